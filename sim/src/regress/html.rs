//! The coverage of a report as one self-contained HTML page (`pisa regress --html FILE`): the
//! run's summary, a heat map of hits per form (and segmask class) × participation class, the
//! uncovered bins by name, and every mismatch with its replay line.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use pisa_model::gen::{MaskClass, SegClass};
use pisa_model::SgOp;

use super::Report;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// The page.
pub fn page(r: &Report) -> String {
    let classes = [MaskClass::Empty, MaskClass::Single, MaskClass::Partial, MaskClass::Full];
    let mut rows: BTreeMap<(SgOp, Option<SegClass>), [u64; 4]> = BTreeMap::new();
    for (b, &n) in &r.coverage {
        let col = classes.iter().position(|c| *c == b.mask).unwrap_or(0);
        rows.entry((b.op, b.segmask)).or_default()[col] = n;
    }
    let max = r.coverage.values().copied().max().unwrap_or(1).max(1) as f64;
    let (hit, bins) = r.bins_hit();
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>pisa regress coverage: {cfg}</title>\n\
<style>body{{font-family:sans-serif;margin:2em}}table{{border-collapse:collapse}}\
td,th{{border:1px solid #ccc;padding:2px 8px;text-align:right;font-size:13px}}\
th{{background:#eee}}td.name{{text-align:left;font-family:monospace}}td.zero{{background:#f4a3a3}}\
code{{background:#f4f4f4;padding:1px 3px;word-break:break-all}}</style></head><body>\n\
<h1>Coverage of <code>{cfg}</code></h1>\n<p>seed {seed}, {cases} of {count} cases checked ({shards} shard(s){complete}), \
{rate:.0} checked warp-ops/s, {hit}/{bins} bins hit, {res} reserved-opcode cases, \
<b>{verdict}</b>.</p>\n",
        cfg = esc(&r.config),
        seed = r.seed,
        cases = r.cases,
        count = r.count,
        shards = r.shards.len(),
        complete = if r.complete() { ", the whole run" } else { ", part of the run" },
        rate = r.rate(),
        res = r.reserved_cases,
        verdict = if r.mismatches.is_empty() { "no mismatch".to_string() } else { format!("{} mismatch(es)", r.mismatches.len()) },
    );
    h.push_str("<h2>Hits per bin</h2>\n<table><tr><th>form</th><th>segmask</th>");
    for c in classes {
        let _ = write!(h, "<th>{}</th>", c.name());
    }
    h.push_str("</tr>\n");
    for ((op, seg), c) in &rows {
        let _ = write!(
            h,
            "<tr><td class=\"name\">{op}</td><td class=\"name\">{}</td>",
            seg.map(|s| s.name()).unwrap_or_default()
        );
        for (i, &n) in c.iter().enumerate() {
            if n == 0 {
                let _ = write!(
                    h,
                    "<td class=\"zero\" title=\"{op} {} uncovered\">0</td>",
                    classes[i].name()
                );
            } else {
                // log scale from pale to deep blue
                let t = ((n as f64).ln_1p() / max.ln_1p()).clamp(0.0, 1.0);
                let light = 95.0 - 50.0 * t;
                let _ = write!(h, "<td style=\"background:hsl(215,70%,{light:.0}%)\">{n}</td>");
            }
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</table>\n<h2>Uncovered bins</h2>\n");
    let uncovered: Vec<String> = r
        .coverage
        .iter()
        .filter(|(_, &n)| n == 0)
        .map(|(b, _)| {
            format!(
                "{} {}{}",
                b.op,
                b.mask.name(),
                b.segmask.map(|s| format!(" {}", s.name())).unwrap_or_default()
            )
        })
        .collect();
    if uncovered.is_empty() {
        h.push_str("<p>None: every bin was hit.</p>\n");
    } else {
        h.push_str("<ul>\n");
        for u in &uncovered {
            let _ = writeln!(h, "<li><code>{}</code></li>", esc(u));
        }
        h.push_str("</ul>\n");
    }
    if !r.mismatches.is_empty() {
        h.push_str("<h2>Mismatches</h2>\n");
        for m in &r.mismatches {
            let _ = write!(h, "<h3>case {} ({})</h3>\n<ul>", m.index, esc(&m.form()));
            for d in m.differences() {
                let _ = write!(h, "<li>{}</li>", esc(&d));
            }
            let _ = writeln!(h, "</ul>\n<p>replay (<code>pisa exec [--backend rtl]</code>):</p><p><code>{}</code></p>", esc(&m.replay));
        }
    }
    h.push_str("</body></html>\n");
    h
}

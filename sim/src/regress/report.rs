//! The result of a regression run or of merged shards: counts, rate, coverage, mismatches; as
//! JSON (`--report`, the format `pisa regress merge` reads) and as a text table.

use std::collections::BTreeMap;
use std::path::PathBuf;

use pisa_model::gen::{Bin, MaskClass, SegClass};
use pisa_model::SgOp;
use pisa_rtl::UnitConfig;
use serde_json::{json, Value};

use super::Options;
use crate::unit::PortOut;

/// The value of a report's `format` field.
pub const FORMAT: &str = "pisa-regress-report/1";

/// What a report certifies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Every case of the whole run checked, no mismatch.
    Pass,
    /// A mismatch.
    Fail,
    /// No mismatch in the cases checked, but not every shard of the run is there.
    Partial,
}

impl Verdict {
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Pass => "PASS",
            Verdict::Fail => "FAIL",
            Verdict::Partial => "PARTIAL",
        }
    }
}

/// Cases of shard `k` of `n` in a run of `count`: the `i < count` with `i % n == k - 1`.
pub fn shard_cases(count: u64, (k, n): (u64, u64)) -> u64 {
    if k == 0 || n == 0 || count < k {
        0
    } else {
        (count - k) / n + 1
    }
}

/// `1/4 2/4`: shards as the CLI writes them.
pub fn shard_names(shards: &[(u64, u64)]) -> String {
    shards.iter().map(|(k, n)| format!("{k}/{n}")).collect::<Vec<_>>().join(" ")
}

/// One failing case.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    pub index: u64,
    pub op: Option<SgOp>,
    pub opcode: u8,
    pub lanes: usize,
    pub src0: Vec<u32>,
    pub src1: Vec<u32>,
    pub mask: u32,
    pub activemask: u32,
    pub expected: PortOut,
    pub got: PortOut,
    /// The case as a `pisa exec` JSON line (32 lanes), or a raw case description.
    pub replay: String,
    pub vcd: Option<PathBuf>,
}

impl Mismatch {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        index: u64,
        op: Option<SgOp>,
        opcode: u8,
        lanes: usize,
        src0: &[u32],
        src1: &[u32],
        mask: u32,
        activemask: u32,
        expected: PortOut,
        got: PortOut,
        vcd: Option<PathBuf>,
    ) -> Mismatch {
        let replay = super::replay_line(op, opcode, src0, src1, mask, activemask);
        Mismatch {
            index,
            op,
            opcode,
            lanes,
            src0: src0.to_vec(),
            src1: src1.to_vec(),
            mask,
            activemask,
            expected,
            got,
            replay,
            vcd,
        }
    }

    /// The form's name, or the reserved opcode.
    pub fn form(&self) -> String {
        self.op
            .map(|o| o.to_string())
            .unwrap_or_else(|| format!("reserved op_i {:#04x}", self.opcode))
    }

    /// `lane N: rtl X, model Y` lines for the lanes that differ (and the write enables).
    pub fn differences(&self) -> Vec<String> {
        let mut v = Vec::new();
        if self.got.wen != self.expected.wen {
            v.push(format!("wen: rtl {:#x}, model {:#x}", self.got.wen, self.expected.wen));
        }
        for l in 0..self.lanes.min(32) {
            let (got, want) = (self.got.dst.get(l), self.expected.dst.get(l));
            if self.expected.wen >> l & 1 != 0 && got != want {
                let w = |x: Option<&u32>| x.map_or("none".to_string(), |x| format!("{x:#010x}"));
                v.push(format!("lane {l}: rtl {}, model {}", w(got), w(want)));
            }
        }
        v
    }
}

/// A run's result (one shard or several merged).
#[derive(Clone, Debug)]
pub struct Report {
    /// The configuration's tag and its canonical form (the unit it names).
    pub config: String,
    pub unit: UnitConfig,
    pub lanes: usize,
    pub seed: u64,
    /// Cases of the whole run, over all shards.
    pub count: u64,
    /// The shards `(k, n)` this report covers.
    pub shards: Vec<(u64, u64)>,
    /// The forms drawn from (`None`: all, with reserved opcodes).
    pub forms: Option<Vec<String>>,
    /// Cases checked.
    pub cases: u64,
    /// Wall-clock seconds (merged: the longest shard).
    pub seconds: f64,
    /// Clock cycles (pipelined units).
    pub cycles: u64,
    /// Hits per coverage bin (every bin of the forms, hit or not).
    pub coverage: BTreeMap<Bin, u64>,
    pub reserved_cases: u64,
    /// The first mismatch of each shard that had one.
    pub mismatches: Vec<Mismatch>,
    /// Threads (merged: the most any shard used).
    pub jobs: usize,
    /// The Verilog run when it was not the generator's (`--rtl-dir`): the folder and the
    /// sha256 of its files.
    pub rtl: Option<(String, String)>,
    /// The RTL code coverage of the run (`--code-coverage`), when it was measured.
    pub code_coverage: Option<super::code_coverage::CodeCoverage>,
    /// Where that coverage was written (its `coverage.dat`), and the file's sha256: what a merge
    /// reads (and checks) to combine shards' coverage.
    pub code_coverage_dir: Option<(String, String)>,
}

fn mask_name(m: MaskClass) -> &'static str {
    m.name()
}

fn parse_mask(s: &str) -> Option<MaskClass> {
    [MaskClass::Empty, MaskClass::Single, MaskClass::Partial, MaskClass::Full]
        .into_iter()
        .find(|m| m.name() == s)
}

fn parse_seg(s: &str) -> Option<SegClass> {
    if s == "seg-irregular" {
        return Some(SegClass::Irregular);
    }
    s.strip_prefix("seg").and_then(|w| w.parse().ok()).map(SegClass::Width)
}

impl Report {
    /// A report of cases `0..cases` of one shard (the test hook's).
    pub(crate) fn single(
        cfg: &UnitConfig,
        o: &Options<'_>,
        cases: u64,
        mismatches: Vec<Mismatch>,
    ) -> Report {
        Report {
            config: cfg.tag(),
            unit: cfg.canonical(),
            lanes: cfg.lanes,
            seed: o.seed,
            count: o.count,
            shards: vec![o.shard],
            forms: None,
            cases,
            seconds: 0.0,
            cycles: 0,
            coverage: BTreeMap::new(),
            reserved_cases: 0,
            mismatches,
            jobs: 1,
            rtl: o.rtl.map(|r| (r.dir.display().to_string(), r.sha256.clone())),
            code_coverage: None,
            code_coverage_dir: None,
        }
    }

    pub fn rate(&self) -> f64 {
        self.cases as f64 / self.seconds.max(1e-9)
    }

    /// The first mismatch (lowest case index), if any.
    pub fn mismatch(&self) -> Option<&Mismatch> {
        self.mismatches.iter().min_by_key(|m| m.index)
    }

    /// `(bins hit, bins)`.
    pub fn bins_hit(&self) -> (usize, usize) {
        (self.coverage.values().filter(|&&c| c > 0).count(), self.coverage.len())
    }

    /// True when the shards cover the whole run (`1..=n` of one `n`, each once).
    pub fn complete(&self) -> bool {
        let n = self.shards.first().map_or(0, |s| s.1);
        let mut ks: Vec<u64> = self.shards.iter().map(|s| s.0).collect();
        ks.sort_unstable();
        n > 0
            && self.shards.iter().all(|s| s.1 == n)
            && ks.len() as u64 == n
            && ks.iter().enumerate().all(|(i, &k)| k == i as u64 + 1)
    }

    /// The first shards of the split that this report does not cover (at most eight).
    pub fn missing_shards(&self) -> Vec<(u64, u64)> {
        let n = self.shards.first().map_or(0, |s| s.1);
        (1..=n).filter(|k| !self.shards.contains(&(*k, n))).take(8).map(|k| (k, n)).collect()
    }

    /// What the report certifies: `Fail` with a mismatch, else `Pass` only for the whole run,
    /// else `Partial`.
    pub fn verdict(&self) -> Verdict {
        if !self.mismatches.is_empty() {
            Verdict::Fail
        } else if self.complete() {
            Verdict::Pass
        } else {
            Verdict::Partial
        }
    }

    /// The report as JSON.
    pub fn to_json(&self) -> Value {
        let (hit, bins) = self.bins_hit();
        json!({
            "format": FORMAT,
            "config": self.config,
            "unit": self.unit.to_toml(),
            "lanes": self.lanes,
            "seed": self.seed,
            "count": self.count,
            "shards": self.shards.iter().map(|(k, n)| format!("{k}/{n}")).collect::<Vec<_>>(),
            "complete": self.complete(),
            "verdict": self.verdict().name(),
            "forms": self.forms,
            "cases": self.cases,
            "seconds": self.seconds,
            "checked_warp_ops_per_s": self.rate().round(),
            "cycles": self.cycles,
            "jobs": self.jobs,
            "rtl": self.rtl.as_ref().map(|(dir, sha)| json!({"dir": dir, "sha256": sha})),
            "code_coverage": self.code_coverage.as_ref().map(|c| json!({
                "dir": self.code_coverage_dir.as_ref().map(|d| &d.0),
                "dat_sha256": self.code_coverage_dir.as_ref().map(|d| &d.1),
                "points": c.totals().into_iter()
                    .map(|(k, (h, n))| (k, json!({"hit": h, "points": n})))
                    .collect::<serde_json::Map<_, _>>(),
            })),
            "bins_hit": hit,
            "bins": bins,
            "reserved_cases": self.reserved_cases,
            "coverage": self.coverage.iter().map(|(b, n)| json!({
                "form": b.op.to_string(),
                "participation": mask_name(b.mask),
                "segmask": b.segmask.map(|s| s.name()),
                "hits": n,
            })).collect::<Vec<_>>(),
            "mismatches": self.mismatches.iter().map(|m| json!({
                "case": m.index,
                "form": m.form(),
                "opcode": m.opcode,
                "lanes": m.lanes,
                "src0": m.src0, "src1": m.src1, "mask": m.mask, "activemask": m.activemask,
                "expected": {"dst": m.expected.dst, "wen": m.expected.wen},
                "got": {"dst": m.got.dst, "wen": m.got.wen},
                "differences": m.differences(),
                "replay": m.replay,
                "vcd": m.vcd,
            })).collect::<Vec<_>>(),
        })
    }

    /// Reads a report written by [`Report::to_json`]; `name` names it in errors. Every field is
    /// checked before use: its type and range, and that the numbers agree with each other (the
    /// cases of the shards it names, the coverage hits, the mismatches' lane counts), so a
    /// report edited by hand or truncated is an error here, never a verdict.
    pub fn from_json(v: &Value, name: &str) -> Result<Report, String> {
        let err = |m: &str| format!("{name}: {m}");
        if v["format"] != FORMAT {
            return Err(err(&format!(
                "not a pisa regress report (format {}, expected \"{FORMAT}\")",
                v["format"]
            )));
        }
        let u = |x: &Value, k: &str| {
            x[k].as_u64().ok_or_else(|| err(&format!("\"{k}\" is missing or not a whole number")))
        };
        let word = |x: &Value, what: &str| -> Result<u32, String> {
            x.as_u64()
                .and_then(|w| u32::try_from(w).ok())
                .ok_or_else(|| err(&format!("{what}: not a 32-bit value")))
        };
        let unit_text = v["unit"].as_str().ok_or_else(|| err("\"unit\" is missing"))?;
        let unit = UnitConfig::from_toml(unit_text, name).map_err(|e| e.to_string())?;
        let lanes = u(v, "lanes")?;
        if lanes != unit.lanes as u64 {
            return Err(err(&format!("\"lanes\" {lanes} differs from its unit's {}", unit.lanes)));
        }
        let lanes = unit.lanes;
        // the tag of the configuration as given (the unit is its canonical form: a tag of its own)
        let config = v["config"].as_str().ok_or_else(|| err("\"config\" is missing"))?;
        let (seed, count) = (u(v, "seed")?, u(v, "count")?);
        if count == 0 {
            return Err(err("\"count\" is 0: a run of no case"));
        }
        let mut shards: Vec<(u64, u64)> = Vec::new();
        for s in v["shards"].as_array().ok_or_else(|| err("\"shards\" is missing"))? {
            let t = s.as_str().unwrap_or("");
            let (k, n): (u64, u64) = t
                .split_once('/')
                .and_then(|(k, n)| Some((k.parse().ok()?, n.parse().ok()?)))
                .ok_or_else(|| err(&format!("shard {s} is not K/N")))?;
            if k == 0 || k > n {
                return Err(err(&format!("shard {k}/{n}: need 1 <= K <= N")));
            }
            if k > count {
                return Err(err(&format!("shard {k}/{n} of a {count}-case run has no case")));
            }
            if let Some(o) = shards.first().filter(|o| o.1 != n) {
                return Err(err(&format!(
                    "shard {k}/{n} is not a shard of the {}-way split of its shard {}/{}",
                    o.1, o.0, o.1
                )));
            }
            if shards.contains(&(k, n)) {
                return Err(err(&format!("shard {k}/{n} is listed twice")));
            }
            shards.push((k, n));
        }
        if shards.is_empty() {
            return Err(err("\"shards\" is empty: a report covers at least one shard"));
        }
        let forms: Option<Vec<SgOp>> = match &v["forms"] {
            Value::Null => None,
            Value::Array(a) if !a.is_empty() => Some(
                a.iter()
                    .map(|f| {
                        f.as_str()
                            .unwrap_or("")
                            .parse::<SgOp>()
                            .map_err(|e: pisa_model::op::UnknownForm| err(&e.to_string()))
                    })
                    .collect::<Result<_, _>>()?,
            ),
            _ => return Err(err("\"forms\" is neither null nor a list of forms")),
        };
        let cases = u(v, "cases")?;
        let reserved_cases = u(v, "reserved_cases")?;
        if forms.is_some() && reserved_cases > 0 {
            return Err(err("reserved-opcode cases in a run of chosen forms (it has none)"));
        }
        let seconds = v["seconds"].as_f64().filter(|s| s.is_finite() && *s >= 0.0);
        let seconds = seconds.ok_or_else(|| err("\"seconds\" is missing or not a time"))?;
        let jobs = u(v, "jobs")?;
        if !(1..=65_536).contains(&jobs) {
            return Err(err(&format!("\"jobs\" {jobs}: not a thread count")));
        }
        // the coverage: exactly the bins of the forms, hits that add up to the cases
        let all_forms = forms.clone().unwrap_or_else(SgOp::all);
        let want_bins: std::collections::BTreeSet<Bin> = match lanes {
            4 => pisa_model::gen::all_bins::<4>(&all_forms),
            8 => pisa_model::gen::all_bins::<8>(&all_forms),
            16 => pisa_model::gen::all_bins::<16>(&all_forms),
            _ => pisa_model::gen::all_bins::<32>(&all_forms),
        }
        .into_iter()
        .collect();
        let mut coverage = BTreeMap::new();
        let mut hits_total = reserved_cases;
        for c in v["coverage"].as_array().ok_or_else(|| err("\"coverage\" is missing"))? {
            let op: SgOp = c["form"]
                .as_str()
                .unwrap_or("")
                .parse()
                .map_err(|e: pisa_model::op::UnknownForm| err(&e.to_string()))?;
            let mask = parse_mask(c["participation"].as_str().unwrap_or(""))
                .ok_or_else(|| err("a bin's participation class is unknown"))?;
            let segmask = match &c["segmask"] {
                Value::Null => None,
                s => Some(
                    parse_seg(s.as_str().unwrap_or(""))
                        .ok_or_else(|| err("a bin's segmask class is unknown"))?,
                ),
            };
            let bin = Bin { op, mask, segmask };
            if !want_bins.contains(&bin) {
                return Err(err(&format!("a bin of {op} that its forms and lanes do not have")));
            }
            let hits = u(c, "hits")?;
            hits_total = hits_total
                .checked_add(hits)
                .ok_or_else(|| err("the coverage hits overflow a 64-bit count"))?;
            if coverage.insert(bin, hits).is_some() {
                return Err(err(&format!("a bin of {op} is listed twice")));
            }
        }
        if coverage.len() != want_bins.len() {
            return Err(err(&format!(
                "{} coverage bins, but its forms have {}",
                coverage.len(),
                want_bins.len()
            )));
        }
        if hits_total != cases {
            return Err(err(&format!(
                "the coverage counts {hits_total} cases (with the reserved ones), \"cases\" says {cases}"
            )));
        }
        let mut mismatches = Vec::new();
        for m in v["mismatches"].as_array().ok_or_else(|| err("\"mismatches\" is missing"))? {
            let index = u(m, "case")?;
            let what = |f: &str| format!("mismatch of case {index}: {f}");
            let words = |x: &Value, f: &str| -> Result<Vec<u32>, String> {
                let a = x.as_array().ok_or_else(|| err(&what(&format!("{f} is not a list"))))?;
                if a.len() != lanes {
                    return Err(err(&what(&format!("{f} has {} lanes, not {lanes}", a.len()))));
                }
                a.iter().map(|w| word(w, &what(f))).collect()
            };
            if index >= count || !shards.iter().any(|&(k, n)| index % n == k - 1) {
                return Err(err(&what("not a case of its shards")));
            }
            let opcode = u8::try_from(u(m, "opcode")?).map_err(|_| err(&what("opcode")))?;
            let op = SgOp::decode(opcode);
            let form = m["form"].as_str().unwrap_or("");
            let form_ok = match op {
                Some(o) => form == o.to_string(),
                None => form == format!("reserved op_i {opcode:#04x}"),
            };
            if !form_ok {
                return Err(err(&what(&format!("form {form:?} is not opcode {opcode:#04x}"))));
            }
            if u(m, "lanes")? != lanes as u64 {
                return Err(err(&what("its lane count is not the report's")));
            }
            let replay = m["replay"].as_str().filter(|r| !r.is_empty());
            let replay = replay.ok_or_else(|| err(&what("no replay line")))?;
            mismatches.push(Mismatch {
                index,
                op,
                opcode,
                lanes,
                src0: words(&m["src0"], "src0")?,
                src1: words(&m["src1"], "src1")?,
                mask: word(&m["mask"], &what("mask"))?,
                activemask: word(&m["activemask"], &what("activemask"))?,
                expected: PortOut {
                    dst: words(&m["expected"]["dst"], "expected dst")?,
                    wen: word(&m["expected"]["wen"], &what("expected wen"))?,
                },
                got: PortOut {
                    dst: words(&m["got"]["dst"], "got dst")?,
                    wen: word(&m["got"]["wen"], &what("got wen"))?,
                },
                replay: replay.to_string(),
                vcd: m["vcd"].as_str().map(PathBuf::from),
            });
        }
        // the cases of its shards: all of them, or fewer when a mismatch stopped the run
        let mut expected: u64 = 0;
        for &s in &shards {
            expected = expected
                .checked_add(shard_cases(count, s))
                .ok_or_else(|| err("its shards' cases overflow a 64-bit count"))?;
        }
        if mismatches.is_empty() && cases != expected {
            return Err(err(&format!(
                "\"cases\" {cases}, but its shards {} of a {count}-case run have {expected} and no mismatch stopped them",
                shard_names(&shards)
            )));
        }
        if cases > expected {
            return Err(err(&format!(
                "\"cases\" {cases}, more than its shards {} of a {count}-case run have ({expected})",
                shard_names(&shards)
            )));
        }
        let rtl = match &v["rtl"] {
            Value::Null => None,
            r => match (r["dir"].as_str(), r["sha256"].as_str()) {
                (Some(d), Some(h)) => Some((d.to_string(), h.to_string())),
                _ => return Err(err("\"rtl\" is neither null nor {\"dir\", \"sha256\"}")),
            },
        };
        // where the run's code coverage went: merge reads it from there (and checks its sha256)
        let code_coverage_dir = match &v["code_coverage"] {
            Value::Null => None,
            c => match (c["dir"].as_str(), c["dat_sha256"].as_str()) {
                (Some(d), Some(h)) => Some((d.to_string(), h.to_string())),
                _ => None,
            },
        };
        Ok(Report {
            code_coverage: None,
            code_coverage_dir,
            rtl,
            config: config.to_string(),
            unit,
            lanes,
            seed,
            count,
            shards,
            forms: forms.map(|f| f.iter().map(|o| o.to_string()).collect()),
            cases,
            seconds,
            cycles: u(v, "cycles")?,
            coverage,
            reserved_cases,
            mismatches,
            jobs: jobs as usize,
        })
    }

    /// Combines shard reports of one run: the same seed, count, unit and forms, no shard twice,
    /// one shard count. `names` name the reports in errors. The result's [`Report::verdict`] is
    /// `Pass` only when the shards are exactly `1..=N`.
    pub fn merge(reports: &[Report], names: &[String]) -> Result<Report, String> {
        let (first, rest) = reports.split_first().ok_or("no report to merge")?;
        let mut m = first.clone();
        for (r, name) in rest.iter().zip(&names[1..]) {
            let differ = |what: &str, a: String, b: String| {
                format!("{name}: {what} {b} differs from {}'s {a}", names[0])
            };
            if r.seed != m.seed {
                return Err(differ("seed", m.seed.to_string(), r.seed.to_string()));
            }
            if r.count != m.count {
                return Err(differ("--count", m.count.to_string(), r.count.to_string()));
            }
            if !r.unit.same_unit(&m.unit) {
                return Err(differ("configuration", m.config.clone(), r.config.clone()));
            }
            if r.rtl.as_ref().map(|x| &x.1) != m.rtl.as_ref().map(|x| &x.1) {
                let show = |x: &Option<(String, String)>| match x {
                    Some((d, h)) => format!("--rtl-dir {d} (sha256 {})", &h[..h.len().min(12)]),
                    None => "the generator's RTL".to_string(),
                };
                return Err(differ("Verilog", show(&m.rtl), show(&r.rtl)));
            }
            if r.forms != m.forms {
                return Err(differ("--ops", format!("{:?}", m.forms), format!("{:?}", r.forms)));
            }
            for s in &r.shards {
                if m.shards.iter().any(|t| t.1 != s.1) {
                    return Err(format!(
                        "{name}: shard {}/{} is not a shard of a {}-way split",
                        s.0, s.1, m.shards[0].1
                    ));
                }
                if m.shards.contains(s) {
                    return Err(format!(
                        "{name}: shard {}/{} is in another report too (overlapping shards)",
                        s.0, s.1
                    ));
                }
                m.shards.push(*s);
            }
            let over = |what: &str| format!("{name}: the merged {what} overflow a 64-bit count");
            m.cases = m.cases.checked_add(r.cases).ok_or_else(|| over("cases"))?;
            m.seconds = m.seconds.max(r.seconds);
            m.cycles = m.cycles.checked_add(r.cycles).ok_or_else(|| over("cycles"))?;
            m.reserved_cases =
                m.reserved_cases.checked_add(r.reserved_cases).ok_or_else(|| over("cases"))?;
            m.jobs = m.jobs.max(r.jobs);
            for (b, n) in &r.coverage {
                let e = m.coverage.entry(*b).or_insert(0);
                *e = e.checked_add(*n).ok_or_else(|| over("coverage hits"))?;
            }
            m.mismatches.extend(r.mismatches.iter().cloned());
        }
        m.shards.sort_unstable();
        m.mismatches.sort_by_key(|x| x.index);
        Ok(m)
    }

    /// The coverage as a text table: one row per form (and segmask class for `.sg` shuffles),
    /// one column per participation class.
    pub fn table(&self) -> String {
        let classes = [MaskClass::Empty, MaskClass::Single, MaskClass::Partial, MaskClass::Full];
        let mut rows: BTreeMap<(SgOp, Option<SegClass>), [u64; 4]> = BTreeMap::new();
        for (b, &n) in &self.coverage {
            let col = classes.iter().position(|c| *c == b.mask).unwrap_or(0);
            rows.entry((b.op, b.segmask)).or_default()[col] = n;
        }
        let mut out = format!(
            "{:<34} {:>9} {:>9} {:>9} {:>9}\n",
            "form (participation:)", "empty", "single", "partial", "full"
        );
        for ((op, seg), c) in rows {
            let name = match seg {
                Some(s) => format!("{op} {}", s.name()),
                None => op.to_string(),
            };
            let cell = |v: u64| if v == 0 { "-".to_string() } else { v.to_string() };
            out.push_str(&format!(
                "{name:<34} {:>9} {:>9} {:>9} {:>9}\n",
                cell(c[0]),
                cell(c[1]),
                cell(c[2]),
                cell(c[3])
            ));
        }
        out
    }
}

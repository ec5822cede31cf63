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
        for l in 0..self.lanes {
            if self.expected.wen >> l & 1 != 0 && self.got.dst.get(l) != self.expected.dst.get(l) {
                v.push(format!(
                    "lane {l}: rtl {:#010x}, model {:#010x}",
                    self.got.dst[l], self.expected.dst[l]
                ));
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

    /// True when the shards cover the whole run (`1..=n` of one `n`).
    pub fn complete(&self) -> bool {
        let n = self.shards.first().map_or(0, |s| s.1);
        let mut ks: Vec<u64> = self.shards.iter().map(|s| s.0).collect();
        ks.sort();
        self.shards.iter().all(|s| s.1 == n) && ks == (1..=n).collect::<Vec<_>>()
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
            "forms": self.forms,
            "cases": self.cases,
            "seconds": self.seconds,
            "checked_warp_ops_per_s": self.rate().round(),
            "cycles": self.cycles,
            "jobs": self.jobs,
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

    /// Reads a report written by [`Report::to_json`]; `name` names it in errors.
    pub fn from_json(v: &Value, name: &str) -> Result<Report, String> {
        let err = |m: &str| format!("{name}: {m}");
        if v["format"] != FORMAT {
            return Err(err(&format!(
                "not a pisa regress report (format {}, expected \"{FORMAT}\")",
                v["format"]
            )));
        }
        let u = |k: &str| {
            v[k].as_u64().ok_or_else(|| err(&format!("\"{k}\" is missing or not a number")))
        };
        let unit = UnitConfig::from_toml(v["unit"].as_str().unwrap_or(""), name)
            .map_err(|e| e.to_string())?;
        let mut shards = Vec::new();
        for s in v["shards"].as_array().ok_or_else(|| err("\"shards\" is missing"))? {
            let t = s.as_str().unwrap_or("");
            let (k, n) = t
                .split_once('/')
                .and_then(|(k, n)| Some((k.parse().ok()?, n.parse().ok()?)))
                .ok_or_else(|| err(&format!("shard {t:?} is not K/N")))?;
            shards.push((k, n));
        }
        let mut coverage = BTreeMap::new();
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
            coverage.insert(Bin { op, mask, segmask }, c["hits"].as_u64().unwrap_or(0));
        }
        let mut mismatches = Vec::new();
        for m in v["mismatches"].as_array().into_iter().flatten() {
            let words = |x: &Value| -> Vec<u32> {
                x.as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|w| w.as_u64())
                    .map(|w| w as u32)
                    .collect()
            };
            let op = m["form"].as_str().and_then(|f| f.parse().ok());
            mismatches.push(Mismatch {
                index: m["case"].as_u64().unwrap_or(0),
                op,
                opcode: m["opcode"].as_u64().unwrap_or(0) as u8,
                lanes: m["lanes"].as_u64().unwrap_or(0) as usize,
                src0: words(&m["src0"]),
                src1: words(&m["src1"]),
                mask: m["mask"].as_u64().unwrap_or(0) as u32,
                activemask: m["activemask"].as_u64().unwrap_or(0) as u32,
                expected: PortOut {
                    dst: words(&m["expected"]["dst"]),
                    wen: m["expected"]["wen"].as_u64().unwrap_or(0) as u32,
                },
                got: PortOut {
                    dst: words(&m["got"]["dst"]),
                    wen: m["got"]["wen"].as_u64().unwrap_or(0) as u32,
                },
                replay: m["replay"].as_str().unwrap_or("").to_string(),
                vcd: m["vcd"].as_str().map(PathBuf::from),
            });
        }
        Ok(Report {
            config: v["config"].as_str().unwrap_or("").to_string(),
            unit,
            lanes: u("lanes")? as usize,
            seed: u("seed")?,
            count: u("count")?,
            shards,
            forms: v["forms"]
                .as_array()
                .map(|a| a.iter().filter_map(|f| f.as_str().map(String::from)).collect()),
            cases: u("cases")?,
            seconds: v["seconds"].as_f64().unwrap_or(0.0),
            cycles: u("cycles")?,
            coverage,
            reserved_cases: u("reserved_cases")?,
            mismatches,
            jobs: v["jobs"].as_u64().unwrap_or(1) as usize,
        })
    }

    /// Combines shard reports of one run: the same seed, count, unit and forms, no shard twice,
    /// one shard count. `names` name the reports in errors.
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
            m.cases += r.cases;
            m.seconds = m.seconds.max(r.seconds);
            m.cycles += r.cycles;
            m.reserved_cases += r.reserved_cases;
            m.jobs = m.jobs.max(r.jobs);
            for (b, n) in &r.coverage {
                *m.coverage.entry(*b).or_insert(0) += n;
            }
            m.mismatches.extend(r.mismatches.iter().cloned());
        }
        m.shards.sort();
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

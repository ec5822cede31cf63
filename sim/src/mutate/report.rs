//! The result of a mutation run (one shard of the mutants, or several merged): what became of
//! each mutant, per block; as JSON (`pisa mutate --report`, what `pisa mutate merge` reads) and
//! as a table.

use std::collections::BTreeMap;

use pisa_rtl::UnitConfig;
use serde_json::{json, Value};

use crate::regress::report::{shard_names, Verdict};

/// The value of a report's `format` field.
pub const FORMAT: &str = "pisa-mutation-report/1";

/// What became of a mutant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    /// A case of the regression failed on it.
    Killed,
    /// The regression passed on it and the proof shows it equal to the unit: set aside.
    Equivalent,
    /// The regression passed on it and the proof shows it differs: a gap in the regression.
    Survived,
    /// The regression passed on it and the proof did not decide.
    Undecided,
    /// The regression passed on it and no proof was run (`--no-prove`).
    Unchecked,
}

impl Status {
    pub const ALL: [Status; 5] = [
        Status::Killed,
        Status::Equivalent,
        Status::Survived,
        Status::Undecided,
        Status::Unchecked,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Status::Killed => "killed",
            Status::Equivalent => "equivalent",
            Status::Survived => "survived",
            Status::Undecided => "undecided",
            Status::Unchecked => "unchecked",
        }
    }

    fn parse(s: &str) -> Option<Status> {
        Status::ALL.into_iter().find(|x| x.name() == s)
    }
}

/// One mutant's result.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// Its number (the `mutsel` value) and its yosys `mutate` command.
    pub mutation: super::Mutation,
    pub status: Status,
    /// Cases run on it (a killed mutant: up to the one that failed).
    pub cases: u64,
    /// Killed: the failing case's index, form and `pisa exec` replay line.
    pub killed_by: Option<(u64, String, String)>,
    /// Survived: the solver's counterexample (port values per cycle from reset); undecided:
    /// why.
    pub detail: Option<String>,
}

/// A mutation run's result.
#[derive(Clone, Debug)]
pub struct MutationReport {
    pub config: String,
    pub unit: UnitConfig,
    pub lanes: usize,
    /// The regression's seed and cases per mutant.
    pub seed: u64,
    pub count: u64,
    /// How the mutations were chosen (`yosys mutate -list 100 -seed 1`, or the list file).
    pub source: String,
    /// Mutants in the whole list, and the list's sha256.
    pub mutants: u32,
    pub list_sha256: String,
    /// The sha256 of the Verilog the mutants were made from.
    pub rtl_sha256: String,
    /// The shards `(k, n)` covered: shard k runs the mutants with `(index - 1) % n == k - 1`.
    pub shards: Vec<(u64, u64)>,
    /// One per mutant of the shards, by index.
    pub outcomes: Vec<Outcome>,
    /// Wall-clock seconds (merged: the longest shard).
    pub seconds: f64,
}

/// The mutants of shard `(k, n)` of a list of `mutants`.
pub fn shard_members(mutants: u32, (k, n): (u64, u64)) -> Vec<u32> {
    (1..=mutants).filter(|&i| (u64::from(i) - 1) % n == k - 1).collect()
}

/// Sha256 of a mutation list, as the report records it.
pub fn list_sha256(list: &[super::Mutation]) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    for m in list {
        h.update(m.command.as_bytes());
        h.update([b'\n']);
    }
    format!("{:x}", h.finalize())
}

impl MutationReport {
    /// Counts per status.
    pub fn counts(&self) -> BTreeMap<Status, u64> {
        let mut c: BTreeMap<Status, u64> = Status::ALL.iter().map(|s| (*s, 0)).collect();
        for o in &self.outcomes {
            *c.entry(o.status).or_default() += 1;
        }
        c
    }

    /// Killed over the mutants that are not equivalent (1 when every mutant is equivalent).
    pub fn score(&self) -> f64 {
        let c = self.counts();
        let live = self.outcomes.len() as u64 - c[&Status::Equivalent];
        if live == 0 {
            1.0
        } else {
            c[&Status::Killed] as f64 / live as f64
        }
    }

    /// The shards of the run not in this report.
    pub fn missing_shards(&self) -> Vec<(u64, u64)> {
        let n = self.shards.first().map_or(1, |s| s.1);
        (1..=n).map(|k| (k, n)).filter(|s| !self.shards.contains(s)).collect()
    }

    /// PASS: every shard there and every mutant killed or set aside as equivalent; FAIL: a
    /// mutant survived, or was not decided or not checked; PARTIAL: shards missing.
    pub fn verdict(&self) -> Verdict {
        let c = self.counts();
        if c[&Status::Survived] + c[&Status::Undecided] + c[&Status::Unchecked] > 0 {
            Verdict::Fail
        } else if self.missing_shards().is_empty() {
            Verdict::Pass
        } else {
            Verdict::Partial
        }
    }

    /// A row per block: mutants, killed, equivalent, survived, undecided, unchecked, score.
    pub fn table(&self) -> String {
        let mut blocks: BTreeMap<String, [u64; 5]> = BTreeMap::new();
        for o in &self.outcomes {
            let row = blocks.entry(o.mutation.block()).or_default();
            row[Status::ALL.iter().position(|s| *s == o.status).unwrap_or(0)] += 1;
        }
        let mut total = [0u64; 5];
        let mut s = format!(
            "{:<8} {:>7} {:>7} {:>10} {:>8} {:>9} {:>9} {:>7}\n",
            "block",
            "mutants",
            "killed",
            "equivalent",
            "survived",
            "undecided",
            "unchecked",
            "score"
        );
        let mut row = |name: &str, r: &[u64; 5]| {
            let n: u64 = r.iter().sum();
            let live = n - r[1];
            let score = if live == 0 { 100.0 } else { 100.0 * r[0] as f64 / live as f64 };
            s.push_str(&format!(
                "{name:<8} {n:>7} {:>7} {:>10} {:>8} {:>9} {:>9} {score:>6.1}%\n",
                r[0], r[1], r[2], r[3], r[4]
            ));
        };
        for (b, r) in &blocks {
            row(b, r);
            for i in 0..5 {
                total[i] += r[i];
            }
        }
        row("total", &total);
        s
    }

    pub fn to_json(&self) -> Value {
        json!({
            "format": FORMAT,
            "config": self.config,
            "unit": self.unit.canonical().to_toml(),
            "lanes": self.lanes,
            "seed": self.seed,
            "count": self.count,
            "source": self.source,
            "mutants": self.mutants,
            "list_sha256": self.list_sha256,
            "rtl_sha256": self.rtl_sha256,
            "shards": self.shards.iter().map(|(k, n)| format!("{k}/{n}")).collect::<Vec<_>>(),
            "seconds": self.seconds,
            "verdict": self.verdict().name(),
            "score": self.score(),
            "counts": self.counts().iter().map(|(s, n)| (s.name().to_string(), json!(n)))
                .collect::<serde_json::Map<_, _>>(),
            "outcomes": self.outcomes.iter().map(|o| json!({
                "index": o.mutation.index,
                "mutation": o.mutation.command,
                "block": o.mutation.block(),
                "status": o.status.name(),
                "cases": o.cases,
                "killed_by": o.killed_by.as_ref().map(|(i, f, r)| json!({
                    "case": i, "form": f, "replay": r
                })),
                "detail": o.detail,
            })).collect::<Vec<_>>(),
        })
    }

    /// Reads a report and checks it whole: every field there and of its type, the shards
    /// valid, and exactly one outcome for each mutant of its shards, each consistent with its
    /// status. `name` is the file's name for messages.
    pub fn from_json(v: &Value, name: &str) -> Result<MutationReport, String> {
        let bad = |what: &str| format!("{name}: {what}");
        if v["format"] != FORMAT {
            return Err(bad(&format!("not a mutation report (format is not \"{FORMAT}\")")));
        }
        let s = |k: &str| {
            v[k].as_str().map(String::from).ok_or_else(|| bad(&format!("`{k}` is not a string")))
        };
        let u = |k: &str| v[k].as_u64().ok_or_else(|| bad(&format!("`{k}` is not a whole number")));
        let unit_text = s("unit")?;
        let unit = UnitConfig::from_toml(&unit_text, &format!("{name}: unit"))
            .map_err(|e| e.to_string())?;
        let lanes = u("lanes")? as usize;
        if lanes != unit.lanes {
            return Err(bad(&format!("`lanes` is {lanes}, the unit has {}", unit.lanes)));
        }
        let mutants = u32::try_from(u("mutants")?).map_err(|_| bad("`mutants` is too large"))?;
        if mutants == 0 {
            return Err(bad("`mutants` is 0"));
        }
        let count = u("count")?;
        let mut shards = Vec::new();
        for x in v["shards"].as_array().ok_or_else(|| bad("`shards` is not a list"))? {
            let t = x.as_str().unwrap_or("");
            let p = t
                .split_once('/')
                .and_then(|(k, n)| Some((k.parse::<u64>().ok()?, n.parse::<u64>().ok()?)));
            match p {
                Some((k, n)) if k >= 1 && k <= n && n <= u64::from(mutants) => shards.push((k, n)),
                _ => return Err(bad(&format!("shard {x} is not K/N with 1 <= K <= N <= mutants"))),
            }
        }
        if shards.is_empty() {
            return Err(bad("`shards` is empty"));
        }
        if shards.iter().any(|s| s.1 != shards[0].1) {
            return Err(bad("shards of different N"));
        }
        let mut sorted = shards.clone();
        sorted.sort();
        sorted.dedup();
        if sorted.len() != shards.len() {
            return Err(bad("a shard appears twice"));
        }
        let mut want: Vec<u32> = shards.iter().flat_map(|s| shard_members(mutants, *s)).collect();
        want.sort();
        let mut outcomes = Vec::new();
        for (i, o) in v["outcomes"]
            .as_array()
            .ok_or_else(|| bad("`outcomes` is not a list"))?
            .iter()
            .enumerate()
        {
            let ob = |what: &str| bad(&format!("outcome {i}: {what}"));
            let index = o["index"]
                .as_u64()
                .and_then(|x| u32::try_from(x).ok())
                .ok_or_else(|| ob("`index` is not a number"))?;
            let command = o["mutation"].as_str().ok_or_else(|| ob("`mutation` is not a string"))?;
            let parsed = super::parse_list(command, &format!("{name}: outcome {i}"))
                .map_err(|e| e.to_string())?;
            let status = o["status"]
                .as_str()
                .and_then(Status::parse)
                .ok_or_else(|| ob("unknown `status`"))?;
            let cases = o["cases"].as_u64().ok_or_else(|| ob("`cases` is not a number"))?;
            let killed_by = match &o["killed_by"] {
                Value::Null => None,
                k => Some((
                    k["case"].as_u64().ok_or_else(|| ob("killed_by.case is not a number"))?,
                    k["form"].as_str().ok_or_else(|| ob("killed_by.form"))?.to_string(),
                    k["replay"].as_str().ok_or_else(|| ob("killed_by.replay"))?.to_string(),
                )),
            };
            let consistent = match status {
                Status::Killed => {
                    killed_by.as_ref().is_some_and(|k| k.0 < count) && cases >= 1 && cases <= count
                }
                _ => killed_by.is_none() && cases == count,
            };
            if !consistent {
                return Err(ob(&format!(
                    "status {} with {cases} cases of {count} and {} failing case",
                    status.name(),
                    if killed_by.is_some() { "a" } else { "no" }
                )));
            }
            let detail = match &o["detail"] {
                Value::Null => None,
                d => Some(d.as_str().ok_or_else(|| ob("`detail` is not a string"))?.to_string()),
            };
            outcomes.push(Outcome {
                mutation: super::Mutation { index, command: parsed[0].command.clone() },
                status,
                cases,
                killed_by,
                detail,
            });
        }
        outcomes.sort_by_key(|o| o.mutation.index);
        let have: Vec<u32> = outcomes.iter().map(|o| o.mutation.index).collect();
        if have != want {
            return Err(bad(&format!(
                "its outcomes are not exactly the mutants of shards {} ({} outcomes, {} mutants)",
                shard_names(&shards),
                have.len(),
                want.len()
            )));
        }
        Ok(MutationReport {
            config: s("config")?,
            unit,
            lanes,
            seed: u("seed")?,
            count,
            source: s("source")?,
            mutants,
            list_sha256: s("list_sha256")?,
            rtl_sha256: s("rtl_sha256")?,
            shards,
            outcomes,
            seconds: v["seconds"]
                .as_f64()
                .filter(|x| x.is_finite() && *x >= 0.0)
                .ok_or_else(|| bad("`seconds` is not a number"))?,
        })
    }

    /// Combines the shard reports of one run: same unit, seed, count, list and Verilog, no
    /// shard twice.
    pub fn merge(reports: &[MutationReport], names: &[String]) -> Result<MutationReport, String> {
        let first = reports.first().ok_or("no report to merge")?;
        for (r, name) in reports.iter().zip(names).skip(1) {
            let same = r.unit.canonical().to_toml() == first.unit.canonical().to_toml()
                && r.seed == first.seed
                && r.count == first.count
                && r.list_sha256 == first.list_sha256
                && r.mutants == first.mutants
                && r.rtl_sha256 == first.rtl_sha256;
            if !same {
                return Err(format!(
                    "{name}: another run than {} (unit, seed, cases per mutant, mutation list or Verilog differ)",
                    names[0]
                ));
            }
        }
        let mut shards: Vec<(u64, u64)> = reports.iter().flat_map(|r| r.shards.clone()).collect();
        if shards.iter().any(|s| s.1 != shards[0].1) {
            return Err("the reports are shards of different N".into());
        }
        shards.sort();
        if shards.windows(2).any(|w| w[0] == w[1]) {
            return Err("a shard appears in two reports".into());
        }
        let mut outcomes: Vec<Outcome> = reports.iter().flat_map(|r| r.outcomes.clone()).collect();
        outcomes.sort_by_key(|o| o.mutation.index);
        Ok(MutationReport {
            shards,
            outcomes,
            seconds: reports.iter().map(|r| r.seconds).fold(0.0, f64::max),
            ..first.clone()
        })
    }
}

//! RTL code coverage of a regression: Verilator's coverage points of the unit's model (line,
//! toggle and, where the Verilator version has them, expression points), summed over the
//! run's threads and over merged shards, in Verilator's own `coverage.dat` format (which
//! `verilator_coverage` reads and turns into lcov's `.info`).
//!
//! A point is the text between the quotes of a `C '...' COUNT` line: fields `\x01KEY\x02VALUE`,
//! among them `t` (the kind: `line`, `toggle`, `expr`, `branch`, ...), `page` (`v_KIND/MODULE`),
//! `f` (the source file), `l` (its line) and `o` (what the point is, e.g. a toggled bit).

use std::collections::BTreeMap;

/// The points of one or more runs and how often each was hit.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CodeCoverage {
    pub points: BTreeMap<String, u64>,
    /// Points the unit cannot hit by design, with the reason ([`super::waivers`]): left out
    /// of the summary's counts.
    pub waived: BTreeMap<String, String>,
}

/// Hits of one module, by kind of point: kind -> (points hit, points).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModuleSummary {
    pub module: String,
    pub kinds: BTreeMap<String, (u64, u64)>,
}

/// A field of a point's key.
pub fn field<'a>(key: &'a str, name: &str) -> Option<&'a str> {
    key.split('\x01').find_map(|kv| {
        let (k, v) = kv.split_once('\x02')?;
        (k == name).then_some(v)
    })
}

impl CodeCoverage {
    /// Parses a `coverage.dat`; `name` names it in errors (with the line).
    pub fn parse(text: &str, name: &str) -> Result<CodeCoverage, String> {
        let mut c = CodeCoverage::default();
        for (i, line) in text.lines().enumerate() {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let bad = || format!("{name}:{}: not a coverage point (C '...' COUNT)", i + 1);
            let rest = line.strip_prefix("C '").ok_or_else(bad)?;
            let (key, count) = rest.rsplit_once("' ").ok_or_else(bad)?;
            let n: u64 = count.trim().parse().map_err(|_| bad())?;
            let e = c.points.entry(key.to_string()).or_insert(0);
            *e = e.checked_add(n).ok_or_else(|| format!("{name}:{}: count overflows", i + 1))?;
        }
        Ok(c)
    }

    /// Adds another run's points (the same points add their counts).
    pub fn add(&mut self, other: &CodeCoverage) -> Result<(), String> {
        for (k, n) in &other.points {
            let e = self.points.entry(k.clone()).or_insert(0);
            *e = e.checked_add(*n).ok_or("a coverage count overflows")?;
        }
        Ok(())
    }

    /// The points as a `coverage.dat`, each source file named `rtl/<its file name>` (where
    /// the coverage folder keeps the sources).
    pub fn to_dat(&self) -> String {
        let mut out = String::from("# SystemC::Coverage-3\n");
        for (k, n) in &self.points {
            let key: Vec<String> = k
                .split('\x01')
                .map(|kv| match kv.split_once('\x02') {
                    Some(("f", path)) => {
                        let file = std::path::Path::new(path)
                            .file_name()
                            .map(|f| f.to_string_lossy().into_owned())
                            .unwrap_or_default();
                        format!("f\x02rtl/{file}")
                    }
                    _ => kv.to_string(),
                })
                .collect();
            out.push_str(&format!("C '{}' {n}\n", key.join("\x01")));
        }
        out
    }

    /// Waives every point `constants` says cannot be hit (replacing earlier waivers): constant
    /// bits, and the bits of unread inputs that were not hit (one that toggled counts as hit).
    pub fn waive(&mut self, constants: &super::waivers::Constants) {
        self.waived = self
            .points
            .iter()
            .filter_map(|(k, n)| {
                let (constant, why) = constants.reason(k)?;
                (constant || *n == 0).then(|| (k.clone(), why))
            })
            .collect();
    }

    /// The waivers as a reviewable text: a line per point (module, hierarchy, what, reason),
    /// and the waived points that were hit anyway (a wrong waiver) first.
    pub fn waivers_txt(&self) -> String {
        let mut out = String::from(
            "# Coverage points the unit cannot hit by design (pisa regress --code-coverage),\n\
             # found in its flattened netlist by yosys; they are left out of summary.txt.\n\
             # module\thierarchy\tpoint\thits\treason\n",
        );
        let mut lines: Vec<(bool, String)> = self
            .waived
            .iter()
            .map(|(k, why)| {
                let hits = self.points.get(k).copied().unwrap_or(0);
                let module = field(k, "page").and_then(|p| p.split_once('/')).map_or("?", |x| x.1);
                let line = format!(
                    "{module}\t{}\t{}\t{hits}\t{}{why}\n",
                    field(k, "h").unwrap_or("?"),
                    field(k, "o").unwrap_or("?"),
                    if hits > 0 { "HIT ALTHOUGH WAIVED: " } else { "" }
                );
                (hits == 0, line)
            })
            .collect();
        lines.sort();
        for (_, l) in lines {
            out.push_str(&l);
        }
        out
    }

    /// Per module (from `page`), per kind (`t`): points hit and points, waived points left out.
    pub fn summary(&self) -> Vec<ModuleSummary> {
        let mut m: BTreeMap<String, BTreeMap<String, (u64, u64)>> = BTreeMap::new();
        for (k, n) in self.points.iter().filter(|(k, _)| !self.waived.contains_key(*k)) {
            let kind = field(k, "t").unwrap_or("?").to_string();
            let module = field(k, "page")
                .and_then(|p| p.split_once('/').map(|(_, m)| m))
                .unwrap_or("?")
                .to_string();
            let e = m.entry(module).or_default().entry(kind).or_default();
            e.0 += u64::from(*n > 0);
            e.1 += 1;
        }
        m.into_iter().map(|(module, kinds)| ModuleSummary { module, kinds }).collect()
    }

    /// Over all modules, per kind: points hit and points.
    pub fn totals(&self) -> BTreeMap<String, (u64, u64)> {
        let mut t: BTreeMap<String, (u64, u64)> = BTreeMap::new();
        for s in self.summary() {
            for (k, (h, n)) in s.kinds {
                let e = t.entry(k).or_default();
                e.0 += h;
                e.1 += n;
            }
        }
        t
    }

    /// A table of [`CodeCoverage::summary`]: a row per module, a column per kind.
    pub fn table(&self) -> String {
        let totals = self.totals();
        let kinds: Vec<&String> = totals.keys().collect();
        let mut out = format!("{:<34}", "module (points hit/points)");
        for k in &kinds {
            out.push_str(&format!(" {:>20}", k));
        }
        out.push('\n');
        let cell = |v: Option<&(u64, u64)>| match v {
            Some((h, n)) if *n > 0 => {
                format!("{h}/{n} {:>5.1}%", 100.0 * *h as f64 / *n as f64)
            }
            _ => "-".to_string(),
        };
        for s in self.summary() {
            out.push_str(&format!("{:<34}", s.module));
            for k in &kinds {
                out.push_str(&format!(" {:>20}", cell(s.kinds.get(*k))));
            }
            out.push('\n');
        }
        out.push_str(&format!("{:<34}", "all"));
        for k in &kinds {
            out.push_str(&format!(" {:>20}", cell(totals.get(*k))));
        }
        out.push('\n');
        if !self.waived.is_empty() {
            let hit = self.waived.keys().filter(|k| self.points.get(*k).is_some_and(|n| *n > 0));
            out.push_str(&format!(
                "waived: {} toggle points that cannot toggle by design (waivers.txt){}\n",
                self.waived.len(),
                match hit.count() {
                    0 => String::new(),
                    n => format!("; {n} of them were hit: a waiver is wrong"),
                }
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_parse_add_and_summarise() {
        let a = "# SystemC::Coverage-3\nC '\x01t\x02line\x01page\x02v_line/top\x01f\x02/x/y/top.v\x01l\x023' 2\nC '\x01t\x02toggle\x01page\x02v_toggle/top\x01f\x02/x/top.v\x01l\x021\x01o\x02a[0]' 0\n";
        let mut c = CodeCoverage::parse(a, "a.dat").unwrap();
        let b = CodeCoverage::parse(a, "b.dat").unwrap();
        c.add(&b).unwrap();
        assert_eq!(c.points.values().copied().collect::<Vec<_>>(), [4, 0]);
        assert_eq!(c.totals()["line"], (1, 1));
        assert_eq!(c.totals()["toggle"], (0, 1));
        assert!(c.to_dat().contains("\x01f\x02rtl/top.v\x01"));
        assert!(CodeCoverage::parse("C 'x' y\n", "bad.dat").unwrap_err().starts_with("bad.dat:1:"));
    }
}

//! Mutants of the unit for a mutation score, as YosysHQ/mcy makes them.
//!
//! yosys reads the emitted Verilog, elaborates and flattens it (`prep -top; flatten`) and picks
//! `N` mutations with an even sampling over the design (`mutate -list N -seed S`): each is one
//! bit of one cell port inverted, tied to 0 or 1, or tied to a neighbouring bit (`-mode inv`,
//! `const0`, `const1`, `cnot0`, `cnot1`). A second yosys run applies all of them to one netlist,
//! mutation `k` behind `mutate -ctrl mutsel W k`, so that the netlist's new input `mutsel`
//! selects the active mutant (0: none) and one Verilator build serves every mutant. The
//! regression then runs on the netlist once per mutant ([`run_mutant`]).

pub mod report;

use std::path::{Path, PathBuf};
use std::process::Command;

use pisa_rtl::design::{design, BlockName};
use pisa_rtl::UnitConfig;

use crate::model::RtlSources;
use crate::regress::{run, Options, Report};
use crate::unit::SimError;

/// The prefix of the emission the mutants are made from.
pub const PREFIX: &str = "pisa_sg";
/// The module name of the mutated netlist (its top, renamed so that it can sit beside the
/// unmutated unit in a proof).
pub const NETLIST_TOP: &str = "pisa_sg_unit_mutants";
/// The netlist's file name in the work folder.
pub const NETLIST_FILE: &str = "mutants.v";

/// yosys: `$PISA_YOSYS`, else `yosys` on PATH.
pub fn yosys() -> PathBuf {
    PathBuf::from(std::env::var_os("PISA_YOSYS").unwrap_or_else(|| "yosys".into()))
}

/// The modes `mutate` applies.
const MODES: [&str; 5] = ["inv", "const0", "const1", "cnot0", "cnot1"];
/// The options of a `mutate` line (each with one value).
const OPTIONS: [&str; 9] =
    ["-mode", "-module", "-cell", "-port", "-portbit", "-ctrlbit", "-wire", "-wirebit", "-src"];

/// One mutation: its number (1-based; the `mutsel` value that enables it) and its yosys
/// `mutate` command (without `-ctrl`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mutation {
    pub index: u32,
    pub command: String,
}

impl Mutation {
    fn option(&self, name: &str) -> Option<&str> {
        let t: Vec<&str> = self.command.split_whitespace().collect();
        t.windows(2).find(|w| w[0] == name).map(|w| w[1])
    }

    /// The unit's block the mutated cell belongs to: the instance of the unit it was flattened
    /// from (`xbar`, `reduce`, `lzc`), or `unit` for the top module's own logic (its decode and
    /// its pipeline registers).
    pub fn block(&self) -> String {
        let inst = self.option("-cell").and_then(|c| c.strip_prefix("$flatten\\"));
        match inst.and_then(|path| path.split('.').next()) {
            Some(b @ ("xbar" | "reduce" | "lzc")) => b.to_string(),
            _ => "unit".to_string(),
        }
    }

    /// `inv`, `const0`, ...
    pub fn mode(&self) -> &str {
        self.option("-mode").unwrap_or("?")
    }

    /// Where the mutated cell is in the emitted Verilog: the `file:line` in the cell's name
    /// when it has one (`$and$rtl/pisa_sg_lzc.v:56$466`), else the last `-src`.
    pub fn location(&self) -> String {
        let from_cell = self.option("-cell").and_then(|c| {
            c.split('$').find(|p| p.contains(".v:")).map(|p| p.trim_start_matches("rtl/"))
        });
        let src = || {
            let t: Vec<&str> = self.command.split_whitespace().collect();
            t.windows(2).filter(|w| w[0] == "-src").map(|w| w[1]).next_back().map(|s| {
                s.trim_start_matches("rtl/").split('.').take(2).collect::<Vec<_>>().join(".")
            })
        };
        from_cell.map(str::to_string).or_else(src).unwrap_or_default()
    }
}

/// Checks a list of `mutate` commands (one per line, `#` comments and blank lines ignored):
/// `mutate -mode MODE` and the options `mutate -list` writes, each with one value, and nothing
/// yosys would read as another command. `name` is the file's name for messages
/// (`name:line:col`).
pub fn parse_list(text: &str, name: &str) -> Result<Vec<Mutation>, SimError> {
    let mut v = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let at = |col: usize, m: String| SimError::Io(format!("{name}:{}:{col}: {m}", i + 1));
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if let Some(c) = line.find(|c: char| matches!(c, ';' | '!' | '"' | '#') || c.is_control()) {
            return Err(at(
                c + 1,
                format!("{:?} is not allowed in a mutate command", &line[c..].chars().next()),
            ));
        }
        // (column, token)
        let mut tokens = Vec::new();
        let mut start = None;
        for (j, c) in line.char_indices().chain([(line.len(), ' ')]) {
            match (c.is_whitespace(), start) {
                (false, None) => start = Some(j),
                (true, Some(s)) => {
                    tokens.push((s + 1, &line[s..j]));
                    start = None;
                }
                _ => {}
            }
        }
        if tokens[0].1 != "mutate" {
            return Err(at(tokens[0].0, format!("expected `mutate`, found `{}`", tokens[0].1)));
        }
        let mut mode = None;
        let mut module = false;
        let mut k = 1;
        while k < tokens.len() {
            let (col, opt) = tokens[k];
            if !OPTIONS.contains(&opt) {
                return Err(at(
                    col,
                    format!("unknown option `{opt}` (expected one of {})", OPTIONS.join(", ")),
                ));
            }
            let Some(&(vcol, value)) = tokens.get(k + 1) else {
                return Err(at(col, format!("`{opt}` needs a value")));
            };
            if value.starts_with('-') && opt != "-src" {
                return Err(at(vcol, format!("`{opt}` needs a value, found `{value}`")));
            }
            if matches!(opt, "-portbit" | "-ctrlbit" | "-wirebit") && value.parse::<u32>().is_err()
            {
                return Err(at(vcol, format!("`{opt}` needs a bit number, found `{value}`")));
            }
            match opt {
                "-mode" if !MODES.contains(&value) => {
                    return Err(at(
                        vcol,
                        format!("unknown mode `{value}` (expected one of {})", MODES.join(", ")),
                    ))
                }
                "-mode" => mode = Some(value),
                "-module" => module = true,
                _ => {}
            }
            k += 2;
        }
        if mode.is_none() || !module {
            return Err(at(1, "a mutation needs -mode and -module".to_string()));
        }
        let index = u32::try_from(v.len() + 1).map_err(|_| at(1, "too many mutations".into()))?;
        v.push(Mutation {
            index,
            command: tokens.iter().map(|t| t.1).collect::<Vec<_>>().join(" "),
        });
    }
    if v.is_empty() {
        return Err(SimError::Io(format!("{name}: no mutate command")));
    }
    Ok(v)
}

/// The unit's emitted Verilog in a work folder, as yosys reads it.
pub struct Design {
    /// The work folder (the emission is in its `rtl/`).
    pub work: PathBuf,
    pub cfg: UnitConfig,
    /// The unit's top module.
    pub top: String,
    /// The Verilog files, relative to `work`.
    files: Vec<String>,
}

impl Design {
    /// Emits the unit of `cfg` into `work/rtl` (`work` must exist and be the caller's).
    pub fn emit(cfg: &UnitConfig, work: &Path) -> Result<Design, SimError> {
        // absolute: the proofs read the netlist from their own folders
        let work = &std::fs::canonicalize(work)
            .map_err(|e| SimError::Io(format!("{}: {e}", work.display())))?;
        let d = design(cfg, BlockName::Unit, PREFIX).map_err(|e| SimError::Tool(e.to_string()))?;
        d.write(&work.join("rtl"), false).map_err(|e| SimError::Io(e.to_string()))?;
        let mut files: Vec<String> =
            d.modules.iter().map(|m| format!("rtl/{}.v", m.name)).collect();
        files.sort();
        Ok(Design { work: work.to_path_buf(), cfg: cfg.clone(), top: d.top.clone(), files })
    }

    fn read_script(&self) -> String {
        format!(
            "read_verilog -Irtl {}\nprep -top {}\nflatten\nopt_clean\n",
            self.files.join(" "),
            self.top
        )
    }

    fn yosys(&self, script: &str, name: &str) -> Result<(), SimError> {
        let path = self.work.join(format!("{name}.ys"));
        std::fs::write(&path, script)
            .map_err(|e| SimError::Io(format!("{}: {e}", path.display())))?;
        let y = yosys();
        let out = Command::new(&y)
            .current_dir(&self.work)
            .args(["-q", "-l", &format!("{name}.log"), &format!("{name}.ys")])
            .output()
            .map_err(|e| {
                SimError::Tool(format!(
                    "mutants need yosys: `{}` did not run ({e}); install it with scripts/install-deps.sh or set PISA_YOSYS",
                    y.display()
                ))
            })?;
        if !out.status.success() {
            let log = std::fs::read_to_string(self.work.join(format!("{name}.log")))
                .unwrap_or_default()
                + &String::from_utf8_lossy(&out.stderr);
            let first = log.lines().find(|l| l.contains("ERROR")).unwrap_or("yosys failed");
            return Err(SimError::Tool(format!(
                "{first} (log: {})",
                self.work.join(format!("{name}.log")).display()
            )));
        }
        Ok(())
    }

    /// `n` mutations of the design picked by yosys (`mutate -list n -seed seed`), written to
    /// `work/mutations.txt` as well.
    pub fn list(&self, n: u32, seed: u64) -> Result<Vec<Mutation>, SimError> {
        // yosys takes a 32-bit seed
        let script = format!(
            "{}mutate -list {n} -seed {} -o mutations.txt\n",
            self.read_script(),
            seed % (1 << 31)
        );
        self.yosys(&script, "list")?;
        let p = self.work.join("mutations.txt");
        let text = std::fs::read_to_string(&p)
            .map_err(|e| SimError::Io(format!("{}: {e}", p.display())))?;
        parse_list(&text, &p.display().to_string())
    }

    /// The netlist with every mutation behind `mutsel` (mutation `k` active when it is `k`),
    /// its module renamed [`NETLIST_TOP`], written to `work/mutants.v`; and the width of
    /// `mutsel`.
    pub fn netlist(&self, mutations: &[Mutation]) -> Result<(PathBuf, u32), SimError> {
        let width = (u32::BITS - (mutations.len() as u32).leading_zeros()).max(1);
        let mut script = self.read_script();
        for m in mutations {
            let rest = m.command.strip_prefix("mutate ").unwrap_or(&m.command);
            script.push_str(&format!("mutate -ctrl mutsel {width} {} {rest}\n", m.index));
        }
        script.push_str(&format!(
            "opt_clean\nrename {} {NETLIST_TOP}\nwrite_verilog -noattr {NETLIST_FILE}\n",
            self.top
        ));
        self.yosys(&script, "netlist")?;
        Ok((self.work.join(NETLIST_FILE), width))
    }

    /// The netlist as sources to co-simulate.
    pub fn sources(&self, netlist: &Path, width: u32) -> Result<RtlSources, SimError> {
        let text = std::fs::read(netlist)
            .map_err(|e| SimError::Io(format!("{}: {e}", netlist.display())))?;
        Ok(RtlSources::netlist(&self.work, &self.cfg, NETLIST_TOP, NETLIST_FILE, text, width))
    }
}

/// The regression (`count` cases of `seed`, on one thread) on mutant `k` of the netlist in
/// `src` (0: no mutation): it stops at the first case that fails.
pub fn run_mutant(src: &RtlSources, k: u32, count: u64, seed: u64) -> Result<Report, SimError> {
    let o = Options { rtl: Some(src), mutant: k, ..Options::new(count, seed) };
    run(&src.cfg, &o)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: &str = "mutate -mode inv -module pisa_sg_unit -cell $flatten\\xbar.$add$rtl/pisa_sg_shfl_xbar.v:359$271 -port Y -portbit 1 -src rtl/pisa_sg_unit.v:236.23-245.6 -src rtl/pisa_sg_shfl_xbar.v:359.23-359.41";

    #[test]
    fn reads_yosys_lines() {
        let m = parse_list(&format!("# picked by yosys\n{LINE}\n\n"), "l.txt").unwrap();
        assert_eq!(m.len(), 1);
        assert_eq!((m[0].index, m[0].block(), m[0].mode()), (1, "xbar".to_string(), "inv"));
        assert_eq!(m[0].location(), "pisa_sg_shfl_xbar.v:359");
    }

    #[test]
    fn names_the_bad_token() {
        let e = |t: &str| parse_list(t, "l.txt").unwrap_err().to_string();
        assert!(e("mutate -mode inv -module m; shell rm x").contains("l.txt:1:27"), "{}", e("x"));
        assert!(e("\nmutate -mode flip -module m").contains("l.txt:2:14: unknown mode `flip`"));
        assert!(e("mutate -mode inv -module m -portbit x").contains("l.txt:1:37"));
        assert!(e("mutate -mode inv -module m -ctrl mutsel 8 1").contains("unknown option `-ctrl`"));
        assert!(e("read_verilog x.v").contains("l.txt:1:1: expected `mutate`"));
        assert!(e("mutate -mode inv").contains("needs -mode and -module"));
        assert!(e("# nothing\n").contains("no mutate command"));
    }
}

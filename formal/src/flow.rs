//! Running a proof: miter → yosys (flatten, bit-blast, AIG) → ABC `dprove` → verdict.
//!
//! yosys: `hierarchy -check; proc; flatten; opt -full; dffunmap; setundef -zero; techmap; aigmap`, then
//! `write_aiger -zinit -map`. `setundef -zero` fixes the don't-care bits yosys' `proc` creates
//! for incompletely assigned case branches to 0 in both RTL and spec (the emitted RTL assigns
//! every output in every branch; see docs/spec-notes.md §F). Combinational miters are swept with
//! ABC `&fraig -y` (SAT sweeping: merges nodes it proves equal) and proven with `dprove`
//! (fraiging + SAT: UNSATISFIABLE = proven for every input). Sequential
//! (pipeline) miters are unrolled from the initial state over `frames` cycles (ABC `frames -i`,
//! every cycle's output ORed) and proven with `dprove` too: the property holds for every input
//! sequence of that length (bounded proof). A refuted pipeline is re-run with `bmc3` for a
//! cycle-by-cycle counterexample.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use crate::cex::{replay, sequence, Ports};
pub use crate::error::ProveError;
use crate::harness;
use crate::property::Property;
use crate::rtl_dir::RtlDir;
use crate::spec;

/// The external tools.
#[derive(Clone, Debug)]
pub struct Tools {
    pub yosys: PathBuf,
    pub abc: PathBuf,
}

impl Tools {
    /// `yosys` and `yosys-abc` from PATH, or `$PISA_YOSYS` / `$PISA_ABC`; checks they run.
    pub fn from_env() -> Result<Tools, ProveError> {
        let get = |var: &'static str, default: &str| -> Result<PathBuf, ProveError> {
            let p = PathBuf::from(std::env::var_os(var).unwrap_or_else(|| default.into()));
            let arg = if var == "PISA_ABC" { "-h" } else { "-V" };
            match Command::new(&p).arg(arg).output() {
                Ok(_) => Ok(p),
                Err(e) => {
                    Err(ProveError::Tool { tool: p.display().to_string(), var, why: e.to_string() })
                }
            }
        };
        Ok(Tools { yosys: get("PISA_YOSYS", "yosys")?, abc: get("PISA_ABC", "yosys-abc")? })
    }
}

/// The verdict on one property.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Proven for every input (or every input sequence of the bound).
    Pass,
    /// Refuted: the counterexample as a `pisa exec` line (or port values).
    Fail { counterexample: String },
    /// The tools could not decide, or failed; the message says why and where the logs are.
    Error(String),
}

/// One property's result.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub property: Property,
    pub lanes: usize,
    pub verdict: Verdict,
    /// Wall-clock seconds of yosys + ABC.
    pub seconds: f64,
    /// AND gates of the miter's AIG.
    pub and_gates: Option<u64>,
    /// Directory with the miter, scripts and tool logs.
    pub dir: PathBuf,
}

/// A proof to run: a miter over some Verilog.
#[derive(Clone, Debug)]
pub struct Job {
    pub property: Property,
    pub lanes: usize,
    /// RTL files to read (spec files are added).
    pub files: Vec<PathBuf>,
    pub miter: String,
    /// `Some(k)`: sequential miter, bounded proof over `k` cycles from reset.
    pub frames: Option<usize>,
}

impl Job {
    /// A block property (crossbar, priority encoder, reduction form) of the Verilog in `rtl`.
    pub fn block(property: Property, rtl: &RtlDir) -> Result<Job, ProveError> {
        if rtl.latency > 0 {
            return Err(ProveError::Input(format!(
                "{}: the blocks are pipelined (latency {}); block proofs need a combinational emission — prove the pipeline against one instead",
                rtl.dir.display(),
                rtl.latency
            )));
        }
        let need = |m: &Option<String>, what: &str| {
            m.clone().ok_or_else(|| {
                ProveError::Input(format!(
                    "{}: no module named *{what} to prove",
                    rtl.dir.display()
                ))
            })
        };
        let miter = match &property {
            Property::Xbar => harness::xbar(&need(&rtl.xbar, "_shfl_xbar")?, rtl.lanes),
            Property::Lzc => harness::lzc(&need(&rtl.lzc, "_lzc")?, rtl.lanes),
            Property::Reduce(op) => harness::reduce(&need(&rtl.reduce, "_reduce")?, rtl.lanes, *op),
            Property::Pipeline { .. } | Property::Mutant { .. } => {
                return Err(ProveError::Input(
                    "pipeline and mutant properties are built with Job::pipeline and Job::mutant"
                        .into(),
                ))
            }
        };
        let top = match &property {
            Property::Xbar => rtl.xbar.clone(),
            Property::Lzc => rtl.lzc.clone(),
            _ => rtl.reduce.clone(),
        };
        let files = rtl.files_for(top.as_deref().unwrap_or(""));
        Ok(Job { property, lanes: rtl.lanes, files, miter, frames: None })
    }

    /// The pipelined unit in `piped` against the combinational unit in `comb`, over
    /// `latency + extra` cycles from reset.
    pub fn pipeline(
        piped: &RtlDir,
        comb: &RtlDir,
        pipeline: usize,
        extra: usize,
    ) -> Result<Job, ProveError> {
        let pu = piped.unit.clone().ok_or_else(|| {
            ProveError::Input(format!("{}: no *_unit module", piped.dir.display()))
        })?;
        let cu = comb.unit.clone().ok_or_else(|| {
            ProveError::Input(format!("{}: no *_unit module", comb.dir.display()))
        })?;
        if piped.lanes != comb.lanes || comb.latency != 0 {
            return Err(ProveError::Input(
                "pipeline proof needs a combinational unit of the same lanes".into(),
            ));
        }
        if pu == cu {
            return Err(ProveError::Input(format!(
                "both units are named {pu}; emit them with different prefixes"
            )));
        }
        let latency = piped.latency;
        let mut files = piped.files.clone();
        files.extend(comb.files.iter().cloned());
        Ok(Job {
            property: Property::Pipeline { pipeline, latency },
            lanes: piped.lanes,
            files,
            miter: harness::pipeline(&pu, &cu, piped.lanes, latency),
            frames: Some(latency + extra + 1),
        })
    }
}

impl Job {
    /// Mutant `index` of the mutated netlist `netlist` (module `netlist_top`, a `mutsel` input
    /// `width` bits wide, `lanes` lanes, `latency` cycles) against the same netlist with no
    /// mutant enabled: both copies are one structure but for the mutated cell, so structural
    /// hashing and SAT sweeping leave little more than the mutation's cone to prove. A
    /// combinational unit: for every input; a pipelined one: cycle by cycle over
    /// `latency + 3` cycles from reset.
    pub fn mutant(
        netlist: &Path,
        netlist_top: &str,
        lanes: usize,
        latency: usize,
        width: u32,
        index: u32,
    ) -> Job {
        let (mutant, none) = (format!("pisa_mutant_{index}"), "pisa_mutant_none".to_string());
        let wrapped = harness::mutant(&mutant, netlist_top, lanes, width, index)
            + &harness::mutant(&none, netlist_top, lanes, width, 0);
        let (miter, frames) = if latency == 0 {
            (wrapped + &harness::units_comb(&mutant, &none, lanes), None)
        } else {
            (wrapped + &harness::pipeline(&mutant, &none, lanes, 0), Some(latency + 3))
        };
        Job {
            property: Property::Mutant { index, latency },
            lanes,
            files: vec![netlist.to_path_buf()],
            miter,
            frames,
        }
    }
}

fn tool_log(dir: &Path, name: &str) -> String {
    dir.join(name).display().to_string()
}

/// Runs one job in `work/<slug>`.
pub fn run_job(job: &Job, work: &Path, tools: &Tools) -> Outcome {
    let start = Instant::now();
    let dir = work.join(format!("l{}_{}", job.lanes, job.property.slug()));
    let mut out = Outcome {
        property: job.property.clone(),
        lanes: job.lanes,
        verdict: Verdict::Pass,
        seconds: 0.0,
        and_gates: None,
        dir: dir.clone(),
    };
    out.verdict = match run_in(job, &dir, tools, &mut out.and_gates) {
        Ok(v) => v,
        Err(e) => Verdict::Error(e),
    };
    out.seconds = start.elapsed().as_secs_f64();
    out
}

fn run_in(job: &Job, dir: &Path, tools: &Tools, ands: &mut Option<u64>) -> Result<Verdict, String> {
    let io = |e: std::io::Error| format!("{}: {e}", dir.display());
    std::fs::create_dir_all(dir).map_err(io)?;
    for (name, text) in spec::ALL {
        std::fs::write(dir.join(name), text).map_err(io)?;
    }
    std::fs::write(dir.join("miter.v"), &job.miter).map_err(io)?;
    let mut ys = String::new();
    for f in &job.files {
        ys.push_str(&format!("read_verilog -DFORMAL \"{}\"\n", f.display()));
    }
    for (name, _) in spec::ALL {
        ys.push_str(&format!("read_verilog {name}\n"));
    }
    ys.push_str("read_verilog miter.v\n");
    ys.push_str("hierarchy -check -top miter\n");
    // dffunmap: opt_dff folds constant-under-condition D inputs into sync-reset / enable
    // flip-flops, which write_aiger cannot express; unmapped they are plain $dff + muxes
    ys.push_str("proc; flatten; opt -full; dffunmap; setundef -zero; techmap; aigmap\n");
    ys.push_str("write_aiger -zinit -map miter.map miter.aig\n");
    std::fs::write(dir.join("miter.ys"), ys).map_err(io)?;
    let y = Command::new(&tools.yosys)
        .current_dir(dir)
        .args(["-q", "-l", "yosys.log", "miter.ys"])
        .output()
        .map_err(|e| format!("running {}: {e}", tools.yosys.display()))?;
    if !y.status.success() {
        let log = String::from_utf8_lossy(&y.stderr).to_string()
            + &std::fs::read_to_string(dir.join("yosys.log")).unwrap_or_default();
        let first = log.lines().find(|l| l.contains("ERROR")).unwrap_or("yosys failed");
        return Err(format!("{first} (log: {})", tool_log(dir, "yosys.log")));
    }
    let script = match job.frames {
        // SAT sweeping first (`&fraig -y` merges only nodes it proves equal): the 32-lane binary32
        // min/max miters, whose RTL orders inverted keys on one chain where the spec compares
        // values, took 150-350 s with dprove alone and take about 40 s with the sweep
        None => "read miter.aig; print_stats; &get; &fraig -y; &put; dprove; write_cex -n cex.txt"
            .to_string(),
        // unrolled from the all-zero initial state: structural hashing and fraiging match each
        // pipeline stage with the combinational logic of the cycle it came from
        Some(k) => format!("read miter.aig; print_stats; frames -F {k} -i; orpos; dprove"),
    };
    let text = abc(tools, dir, &script, "abc.log")?;
    *ands = text
        .split("and =")
        .nth(1)
        .and_then(|t| t.split_whitespace().next())
        .and_then(|n| n.parse().ok());
    let mut refuted = text.contains("SATISFIABLE") && !text.contains("UNSATISFIABLE")
        || text.contains("NOT EQUIVALENT");
    let proven = text.contains("UNSATISFIABLE") || text.contains("Networks are equivalent");
    if let (true, Some(k)) = (refuted, job.frames) {
        // a sequential counterexample, cycle by cycle, from bounded model checking
        let t = abc(
            tools,
            dir,
            &format!("read miter.aig; bmc3 -F {k}; write_cex -n cex.txt"),
            "abc_bmc.log",
        )?;
        refuted = t.contains("was asserted in frame");
        if !refuted {
            return Err(format!(
                "the unrolled miter failed but bmc3 found no trace (logs: {})",
                tool_log(dir, "abc_bmc.log")
            ));
        }
    }
    if refuted {
        let map = std::fs::read_to_string(dir.join("miter.map")).map_err(io)?;
        let cex = std::fs::read_to_string(dir.join("cex.txt")).unwrap_or_default();
        let decoded = match job.frames {
            None => Ports::parse(&map, &cex, 0).map(|p| replay(&job.property, &p, job.lanes)),
            Some(_) => sequence(&job.property, &map, &cex, job.lanes),
        };
        let counterexample = decoded.unwrap_or_else(|e| {
            format!("(counterexample not decoded: {e}; see {})", tool_log(dir, "cex.txt"))
        });
        Ok(Verdict::Fail { counterexample })
    } else if proven {
        Ok(Verdict::Pass)
    } else {
        Err(format!("ABC did not decide (log: {})", tool_log(dir, "abc.log")))
    }
}

fn abc(tools: &Tools, dir: &Path, script: &str, log: &str) -> Result<String, String> {
    let a = Command::new(&tools.abc)
        .current_dir(dir)
        .args(["-c", script])
        .output()
        .map_err(|e| format!("running {}: {e}", tools.abc.display()))?;
    let text = String::from_utf8_lossy(&a.stdout).to_string();
    std::fs::write(dir.join(log), &text).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(text)
}

/// Runs `jobs` on `threads` threads (most expensive first), calling `report` as each finishes;
/// returns the outcomes in the order of `jobs`.
pub fn prove_all(
    jobs: &[Job],
    work: &Path,
    tools: &Tools,
    threads: usize,
    report: &(dyn Fn(&Outcome) + Sync),
) -> Vec<Outcome> {
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(jobs[i].property.cost()));
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Outcome>>> = Mutex::new(vec![None; jobs.len()]);
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            s.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::SeqCst);
                let Some(&i) = order.get(k) else { break };
                let o = run_job(&jobs[i], work, tools);
                report(&o);
                if let Ok(mut r) = results.lock() {
                    r[i] = Some(o);
                }
            });
        }
    });
    results.into_inner().unwrap_or_default().into_iter().flatten().collect()
}

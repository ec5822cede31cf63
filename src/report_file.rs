//! `--report FILE` (JSON) and `--html FILE`: output files the user names. Each is checked before
//! any work starts: its folder must exist, and an existing file is replaced only if pisa wrote it
//! (a JSON object whose `format` starts with `pisa-`; a page with pisa's generator mark), never
//! someone else's file. Writes go through a temporary file beside the target, then a rename.

use std::path::Path;

use crate::Failure;

/// The mark of an HTML page pisa wrote (in its `<head>`).
const HTML_MARK: &str = "<meta name=\"generator\" content=\"pisa regress\">";

fn is_our_report(text: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .and_then(|v| v.get("format").and_then(|f| f.as_str()).map(|f| f.starts_with("pisa-")))
        .unwrap_or(false)
}

fn is_our_page(text: &str) -> bool {
    text.contains(HTML_MARK)
}

/// Fails now if `path` (given with `flag`) could not be written at the end of the run.
fn check_file(path: &Path, flag: &str, what: &str, ours: fn(&str) -> bool) -> Result<(), Failure> {
    let bad = |m: &str| Failure::input(format!("{flag} {}: {m}", path.display()));
    if path.is_dir() {
        return Err(bad("is a folder"));
    }
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if !parent.is_dir() {
        return Err(bad(&format!("its folder {} does not exist", parent.display())));
    }
    if path.exists() && !std::fs::read_to_string(path).is_ok_and(|t| ours(&t)) {
        return Err(bad(&format!("exists and is not {what} pisa wrote; refusing to overwrite it")));
    }
    Ok(())
}

/// Writes `text` to `path` (checked first), through a temporary file beside it.
fn write_file(path: &Path, flag: &str, text: &str) -> Result<(), Failure> {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = path.with_file_name(pisa_rtl::outdir::unique_name(&format!(".{name}")));
    let io = |e: std::io::Error| Failure::input(format!("{flag} {}: {e}", path.display()));
    std::fs::write(&tmp, text).map_err(io)?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        io(e)
    })
}

/// Fails now if the `--report` file could not be written at the end of the run.
pub fn check(path: &Path) -> Result<(), Failure> {
    check_file(path, "--report", "a report", is_our_report)
}

/// Writes the JSON report.
pub fn write(path: &Path, json: &serde_json::Value) -> Result<(), Failure> {
    check(path)?;
    let text = serde_json::to_string_pretty(json).unwrap_or_default() + "\n";
    write_file(path, "--report", &text)
}

/// Like [`check`], for `--html FILE`.
pub fn check_html(path: &Path) -> Result<(), Failure> {
    check_file(path, "--html", "a page", is_our_page)
}

/// Writes the HTML page, marked as pisa's.
pub fn write_html(path: &Path, page: &str) -> Result<(), Failure> {
    check_html(path)?;
    write_file(path, "--html", &page.replacen("<head>", &format!("<head>{HTML_MARK}"), 1))
}

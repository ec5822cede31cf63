//! `--report FILE`: a JSON report the user names. It is checked before any work starts: its
//! folder must exist, and an existing file is replaced only if it is a report pisa wrote (a
//! JSON object whose `format` starts with `pisa-`), never someone else's file.

use std::path::Path;

use crate::Failure;

/// Fails now if `path` could not be written at the end of the run.
pub fn check(path: &Path) -> Result<(), Failure> {
    let what = |m: &str| Failure::input(format!("--report {}: {m}", path.display()));
    if path.is_dir() {
        return Err(what("is a folder"));
    }
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if !parent.is_dir() {
        return Err(what(&format!("its folder {} does not exist", parent.display())));
    }
    if path.exists() {
        let ours = std::fs::read_to_string(path)
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .and_then(|v| v.get("format").and_then(|f| f.as_str()).map(|f| f.starts_with("pisa-")))
            .unwrap_or(false);
        if !ours {
            return Err(what("exists and is not a report pisa wrote; refusing to overwrite it"));
        }
    }
    Ok(())
}

/// Writes the report (checked with [`check`] first), through a temporary file beside it.
pub fn write(path: &Path, json: &serde_json::Value) -> Result<(), Failure> {
    check(path)?;
    let text = serde_json::to_string_pretty(json).unwrap_or_default() + "\n";
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = path.with_file_name(pisa_rtl::outdir::unique_name(&format!(".{name}")));
    let io = |e: std::io::Error| Failure::input(format!("--report {}: {e}", path.display()));
    std::fs::write(&tmp, text).map_err(io)?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        io(e)
    })
}

/// The mark of an HTML page pisa wrote (in its `<head>`).
const HTML_MARK: &str = "<meta name=\"generator\" content=\"pisa regress\">";

/// Like [`check`], for `--html FILE`: an existing file is replaced only if pisa wrote it.
pub fn check_html(path: &Path) -> Result<(), Failure> {
    let what = |m: &str| Failure::input(format!("--html {}: {m}", path.display()));
    if path.is_dir() {
        return Err(what("is a folder"));
    }
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if !parent.is_dir() {
        return Err(what(&format!("its folder {} does not exist", parent.display())));
    }
    if path.exists() && !std::fs::read_to_string(path).is_ok_and(|t| t.contains(HTML_MARK)) {
        return Err(what("exists and is not a page pisa wrote; refusing to overwrite it"));
    }
    Ok(())
}

/// Writes the HTML page (checked with [`check_html`] first), through a temporary file.
pub fn write_html(path: &Path, page: &str) -> Result<(), Failure> {
    check_html(path)?;
    let page = page.replacen("<head>", &format!("<head>{HTML_MARK}"), 1);
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = path.with_file_name(pisa_rtl::outdir::unique_name(&format!(".{name}")));
    let io = |e: std::io::Error| Failure::input(format!("--html {}: {e}", path.display()));
    std::fs::write(&tmp, page).map_err(io)?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        io(e)
    })
}

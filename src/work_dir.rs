//! `--work DIR`: the folder a command keeps its scripts, netlists and logs in (`pisa prove`,
//! `pisa mutate`).
//!
//! Without `--work`, a fresh temporary folder, removed when the command ends unless asked to
//! keep it (a proof failed: its logs are named). With `--work`: a new or empty folder, or one the
//! same command used before (it holds the marker file `.pisa-<command>`); never removed, and
//! refused when it holds a symbolic link (the tools write below it by path).

use std::path::{Path, PathBuf};

use crate::Failure;

pub struct WorkDir {
    pub path: PathBuf,
    temporary: bool,
    pub keep: std::cell::Cell<bool>,
}

impl WorkDir {
    /// The folder for `pisa <command>`.
    pub fn open(given: Option<&Path>, command: &str) -> Result<WorkDir, Failure> {
        let marker = format!(".pisa-{command}");
        let Some(w) = given else {
            let path =
                pisa_rtl::outdir::fresh_dir(&std::env::temp_dir(), &format!("pisa-{command}"))
                    .map_err(|e| Failure::input(e.to_string()))?;
            return Ok(WorkDir { path, temporary: true, keep: false.into() });
        };
        let bad =
            |e: &dyn std::fmt::Display| Failure::input(format!("--work {}: {e}", w.display()));
        pisa_rtl::outdir::refuse_links(w).map_err(|e| bad(&e))?;
        if w.exists() {
            let empty = std::fs::read_dir(w).map_err(|e| bad(&e))?.next().is_none();
            if !empty && !w.join(&marker).is_file() {
                return Err(bad(&format!(
                    "the folder holds files that pisa {command} did not write; give a new or empty folder"
                )));
            }
        }
        std::fs::create_dir_all(w).map_err(|e| bad(&e))?;
        std::fs::write(
            w.join(&marker),
            format!("pisa {command} keeps its scripts and logs here\n"),
        )
        .map_err(|e| bad(&e))?;
        Ok(WorkDir { path: w.to_path_buf(), temporary: false, keep: false.into() })
    }
}

impl Drop for WorkDir {
    fn drop(&mut self) {
        if self.temporary && !self.keep.get() {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

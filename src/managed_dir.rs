//! A folder a command fills and may fill again (`pisa synth --out`, `pisa regress
//! --code-coverage`): new, empty, or one the same command wrote before, whose record (a JSON
//! ledger with an exact `format`) lists every file it wrote with its sha256. Everything else in
//! the folder is kept; a file under one of the command's names that the record does not list
//! (or that changed) stops the run before any work, unless forced. The writes go through
//! [`pisa_rtl::outdir::Commit`] (no link followed, staged, then moved in).

use std::collections::BTreeMap;
use std::path::Path;

use pisa_rtl::outdir::{list_files, sha256_hex, Commit};

use crate::Failure;

/// One kind of managed folder.
pub struct Managed {
    /// The option that names the folder, and the command, for messages.
    pub flag: &'static str,
    pub command: &'static str,
    /// The record's file name and its `format`.
    pub ledger: &'static str,
    pub format: &'static str,
    /// The names (files or folders) the command writes at the top of the folder.
    pub ours: &'static [&'static str],
}

impl Managed {
    /// Checks the folder before any work and plans the write: the run writes into
    /// [`Commit::staging`]; [`Managed::finish`] moves the results in.
    pub fn begin(&self, out: &Path, force: bool) -> Result<Commit, Failure> {
        let bad = |m: String| Failure::input(format!("{} {}: {m}", self.flag, out.display()));
        let mut owned = BTreeMap::new();
        if std::fs::symlink_metadata(out).is_ok() {
            if let Ok(text) = std::fs::read_to_string(out.join(self.ledger)) {
                let v: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
                if v["format"] == self.format {
                    for (f, sha) in v["files"].as_object().into_iter().flatten() {
                        owned.insert(f.clone(), sha.as_str().unwrap_or_default().to_string());
                    }
                    owned.insert(self.ledger.to_string(), sha256_hex(text.as_bytes()));
                } else if !force {
                    return Err(bad(format!(
                        "{} is not a {} record; refusing to write here (pass --force)",
                        self.ledger, self.command
                    )));
                }
            }
            if !force {
                let files = list_files(out).map_err(|e| bad(e.to_string()))?;
                let top = |f: &str| f.split('/').next().unwrap_or("").to_string();
                if let Some(f) = files
                    .iter()
                    .find(|f| self.ours.contains(&top(f).as_str()) && !owned.contains_key(*f))
                {
                    return Err(bad(format!(
                        "{f} exists and {} did not write it; refusing to replace it (choose another {} or pass --force)",
                        self.command, self.flag
                    )));
                }
            }
        }
        let commit = Commit::begin(out, owned, force).map_err(|e| bad(e.to_string()))?;
        let mut names = self.ours.to_vec();
        names.push(self.ledger);
        if let Err(e) = commit.check_targets(&names) {
            commit.abandon();
            return Err(bad(e.to_string()));
        }
        Ok(commit)
    }

    /// Moves the run's files into the folder and records them in its ledger.
    pub fn finish(&self, out: &Path, commit: Commit) -> Result<(), Failure> {
        let ledger = |written: &BTreeMap<String, String>| {
            let v = serde_json::json!({ "format": self.format, "files": written });
            (serde_json::to_string_pretty(&v).unwrap_or_default() + "\n").into_bytes()
        };
        commit
            .finish_recording(Some((self.ledger, &ledger)))
            .map(|_| ())
            .map_err(|e| Failure::input(format!("{} {}: {e}", self.flag, out.display())))
    }
}

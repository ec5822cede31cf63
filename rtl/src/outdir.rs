//! Writing into a folder someone gave the kit (`pisa emit --out`, `pisa synth --out`), safely:
//!
//! - files go only inside that folder (every name is a relative path of plain components);
//! - a file is replaced or deleted only if the kit wrote it and it is unchanged since (its sha256
//!   is in the folder's ledger, a JSON file with a `format` field the kit recognises), unless the
//!   caller forces it;
//! - the new files are written into a staging folder first (inside the target, so renames stay
//!   on one file system; beside it when the target does not exist yet) and renamed into place
//!   only when all of them were written, so an error leaves the previous state as it was.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use sha2::{Digest, Sha256};

/// Why a folder was not written.
#[derive(Debug, thiserror::Error)]
pub enum OutDirError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{0}: exists and was not written by pisa (or its record was lost); refusing to replace it (pass --force to overwrite)")]
    NotOurs(PathBuf),
    #[error("{0}: changed since pisa wrote it (its sha256 differs from the record); refusing to replace it (pass --force to overwrite)")]
    Changed(PathBuf),
    #[error("{0}: the record of what pisa wrote lists a path outside the folder or not a plain file name; refusing to use it")]
    BadRecord(PathBuf),
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> OutDirError + '_ {
    move |source| OutDirError::Io { path: path.to_path_buf(), source }
}

/// The sha256 of `bytes` in lower-case hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    format!("{:x}", Sha256::digest(bytes))
}

/// True when `rel` is a relative path of normal components (no `..`, no root, not empty).
pub fn is_plain_relative(rel: &str) -> bool {
    let p = Path::new(rel);
    !rel.is_empty() && p.components().all(|c| matches!(c, Component::Normal(_)))
}

/// A unique name for a staging or work folder: `<base>.<pid>.<n>`.
pub fn unique_name(base: &str) -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!("{base}.{}.{nanos}{}", std::process::id(), N.fetch_add(1, Ordering::Relaxed))
}

/// Creates a fresh folder `parent/<unique name from base>` (never one that exists).
pub fn fresh_dir(parent: &Path, base: &str) -> Result<PathBuf, OutDirError> {
    std::fs::create_dir_all(parent).map_err(io(parent))?;
    loop {
        let p = parent.join(unique_name(base));
        match std::fs::create_dir(&p) {
            Ok(()) => return Ok(p),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(io(&p)(e)),
        }
    }
}

/// A planned write into `dir`: what the kit may replace there, and the staging folder the new
/// files are written into before [`Commit::finish`] moves them in.
pub struct Commit {
    dir: PathBuf,
    /// Files of the previous write that may be replaced or deleted: relative path -> sha256.
    owned: BTreeMap<String, String>,
    /// Replace files that are not in `owned` (or changed) too: the caller's `--force`.
    force: bool,
    staging: PathBuf,
    /// `dir` did not exist: the staging folder becomes `dir` itself.
    fresh: bool,
}

impl Commit {
    /// Plans a write into `dir`. `owned` is what the previous write recorded (path -> sha256);
    /// every entry is checked now: it must be a plain relative path, and the file, if it is still
    /// there, must be a regular file with that sha256 (else an error, unless `force`).
    pub fn begin(
        dir: &Path,
        owned: BTreeMap<String, String>,
        force: bool,
    ) -> Result<Commit, OutDirError> {
        for (rel, sha) in &owned {
            if !is_plain_relative(rel) {
                return Err(OutDirError::BadRecord(dir.join(rel)));
            }
            let p = dir.join(rel);
            match std::fs::symlink_metadata(&p) {
                Err(_) => {}
                Ok(m) if m.is_file() => {
                    let have = sha256_hex(&std::fs::read(&p).map_err(io(&p))?);
                    if &have != sha && !force {
                        return Err(OutDirError::Changed(p));
                    }
                }
                Ok(_) if force => {}
                Ok(_) => return Err(OutDirError::NotOurs(p)),
            }
        }
        let (staging, fresh) = if dir.exists() {
            if !dir.is_dir() {
                return Err(OutDirError::NotOurs(dir.to_path_buf()));
            }
            (fresh_dir(dir, ".pisa-staging")?, false)
        } else {
            let parent =
                dir.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
            let name =
                dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            (fresh_dir(parent, &format!(".{name}.pisa-staging"))?, true)
        };
        Ok(Commit { dir: dir.to_path_buf(), owned, force, staging, fresh })
    }

    /// The staging folder: write (or let tools write) the new files here.
    pub fn staging(&self) -> &Path {
        &self.staging
    }

    /// Writes one new file into the staging folder.
    pub fn write(&self, rel: &str, bytes: &[u8]) -> Result<(), OutDirError> {
        if !is_plain_relative(rel) {
            return Err(OutDirError::BadRecord(self.dir.join(rel)));
        }
        let p = self.staging.join(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).map_err(io(parent))?;
        }
        std::fs::write(&p, bytes).map_err(io(&p))
    }

    /// Gives up: removes the staging folder; the target is as it was.
    pub fn abandon(self) {
        let _ = std::fs::remove_dir_all(&self.staging);
    }

    /// Moves every staged file into the target, replacing only files this kit may replace, and
    /// deletes the previous write's files that are not written again. Returns what was written
    /// (relative path -> sha256). On an error the staging folder is removed and the target is
    /// unchanged, except when it fails half-way through the renames (then the message says so).
    pub fn finish(self) -> Result<BTreeMap<String, String>, OutDirError> {
        let staged = match list_files(&self.staging) {
            Ok(f) => f,
            Err(e) => {
                self.abandon();
                return Err(e);
            }
        };
        let mut written = BTreeMap::new();
        for rel in &staged {
            let p = self.staging.join(rel);
            match std::fs::read(&p) {
                Ok(b) => written.insert(rel.clone(), sha256_hex(&b)),
                Err(e) => {
                    self.abandon();
                    return Err(io(&p)(e));
                }
            };
        }
        if self.fresh {
            // the target did not exist: the staging folder becomes it in one rename
            std::fs::rename(&self.staging, &self.dir).map_err(io(&self.dir))?;
            return Ok(written);
        }
        // every file that would be replaced must be ours (checked in `begin`) or forced
        // every file that would be replaced must be ours (checked in `begin`) or forced, and a
        // folder is never replaced, not even forced
        for rel in &staged {
            let target = self.dir.join(rel);
            let Ok(m) = std::fs::symlink_metadata(&target) else { continue };
            if m.is_dir() || (!self.owned.contains_key(rel) && !self.force) {
                self.abandon();
                return Err(OutDirError::NotOurs(target));
            }
        }
        for rel in &staged {
            let (from, to) = (self.staging.join(rel), self.dir.join(rel));
            if let Some(parent) = to.parent() {
                std::fs::create_dir_all(parent).map_err(io(parent))?;
            }
            std::fs::rename(&from, &to).map_err(io(&to))?;
        }
        for rel in self.owned.keys().filter(|r| !written.contains_key(*r)) {
            let p = self.dir.join(rel);
            if std::fs::symlink_metadata(&p).is_ok_and(|m| m.is_file()) {
                std::fs::remove_file(&p).map_err(io(&p))?;
            }
        }
        let _ = std::fs::remove_dir_all(&self.staging);
        Ok(written)
    }
}

/// Every regular file under `dir`, as relative paths with `/`, sorted.
pub fn list_files(dir: &Path) -> Result<Vec<String>, OutDirError> {
    fn walk(root: &Path, d: &Path, out: &mut Vec<String>) -> Result<(), OutDirError> {
        for e in std::fs::read_dir(d).map_err(io(d))? {
            let e = e.map_err(io(d))?;
            let p = e.path();
            let t = e.file_type().map_err(io(&p))?;
            if t.is_dir() {
                walk(root, &p, out)?;
            } else if t.is_file() {
                let rel = p.strip_prefix(root).unwrap_or(&p);
                out.push(
                    rel.components()
                        .map(|c| c.as_os_str().to_string_lossy())
                        .collect::<Vec<_>>()
                        .join("/"),
                );
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out)?;
    out.sort();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(unique_name(&format!("pisa-outdir-{name}")));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn names_must_stay_inside() {
        assert!(is_plain_relative("a.v") && is_plain_relative("synth/yosys.log"));
        for bad in ["", "../a", "/etc/passwd", "a/../../b", "./a"] {
            assert!(!is_plain_relative(bad), "{bad}");
        }
    }

    #[test]
    fn replaces_only_what_it_wrote_and_keeps_the_rest() {
        let d = scratch("own");
        let out = d.join("out");
        let c = Commit::begin(&out, BTreeMap::new(), false).unwrap();
        c.write("a.v", b"one").unwrap();
        let first = c.finish().unwrap();
        std::fs::write(out.join("user.txt"), "mine").unwrap();
        // a second write may replace a.v (recorded, unchanged) and must not touch user.txt
        let c = Commit::begin(&out, first.clone(), false).unwrap();
        c.write("b.v", b"two").unwrap();
        let second = c.finish().unwrap();
        assert!(!out.join("a.v").exists() && out.join("b.v").exists());
        assert_eq!(std::fs::read_to_string(out.join("user.txt")).unwrap(), "mine");
        // a file the user changed is not replaced
        std::fs::write(out.join("b.v"), "edited").unwrap();
        assert!(matches!(Commit::begin(&out, second.clone(), false), Err(OutDirError::Changed(_))));
        // a file it never wrote is not replaced
        let c = Commit::begin(&out, BTreeMap::new(), false).unwrap();
        c.write("user.txt", b"x").unwrap();
        assert!(matches!(c.finish(), Err(OutDirError::NotOurs(_))));
        assert_eq!(std::fs::read_to_string(out.join("user.txt")).unwrap(), "mine");
        // no staging folder is left behind
        assert!(list_files(&out).unwrap().iter().all(|f| !f.contains("pisa-staging")));
        let _ = std::fs::remove_dir_all(d);
    }

    #[test]
    fn a_record_pointing_outside_is_refused() {
        let d = scratch("outside");
        let mut owned = BTreeMap::new();
        owned.insert("../victim.txt".to_string(), "0".repeat(64));
        assert!(matches!(Commit::begin(&d, owned, false), Err(OutDirError::BadRecord(_))));
        let _ = std::fs::remove_dir_all(d);
    }
}

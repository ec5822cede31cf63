//! What `pisa emit` writes: the unit (or one block) for a configuration, with every module named,
//! documented and lint-waived where a waiver is justified.

use std::fmt;
use std::str::FromStr;

use rust_hdl::prelude::*;

use crate::config::UnitConfig;
use crate::config::{CrossbarRegisters, ReductionNodes};
use crate::emit::{Design, EmitError, LaneName, ModuleKind};
use crate::lzc::Lzc;
use crate::reduce::Reduce;
use crate::unit::{Unit16, Unit32, Unit4, Unit8};
use crate::xbar::ShflXbar;
use crate::xbar_mux::{tree_registers, TreeRegisters};

/// A top that can be emitted on its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockName {
    /// The whole sub-group unit.
    Unit,
    /// The shuffle crossbar.
    Xbar,
    /// The reduction tree.
    Reduce,
    /// The priority encoder.
    Lzc,
}

impl BlockName {
    pub const ALL: [BlockName; 4] =
        [BlockName::Unit, BlockName::Xbar, BlockName::Reduce, BlockName::Lzc];
    pub fn name(self) -> &'static str {
        match self {
            BlockName::Unit => "unit",
            BlockName::Xbar => "xbar",
            BlockName::Reduce => "reduce",
            BlockName::Lzc => "lzc",
        }
    }
}

impl fmt::Display for BlockName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for BlockName {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        BlockName::ALL
            .into_iter()
            .find(|b| b.name() == s)
            .ok_or_else(|| format!("unknown block '{s}' (expected unit, xbar, reduce or lzc)"))
    }
}

/// The block type behind an emitted module: what its header, name and waivers are keyed on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModuleType {
    /// `unit::Unit*`
    Unit,
    /// `xbar::ShflXbar`
    Xbar,
    /// `xbar_mux::ShflMux`
    XbarMux,
    /// `reduce::Reduce`
    Reduce,
    /// `reduce::ReduceDecode`
    ReduceDecode,
    /// `reduce::ReduceLeaf`
    ReduceLeaf,
    /// `reduce::ReduceNode`
    ReduceNode,
    /// `reduce::ReduceNodeCompact`
    ReduceNodeCompact,
    /// `reduce::ReduceSumSel`
    ReduceSumSel,
    /// `reduce::ReducePick`
    ReducePick,
    /// `reduce::ReduceRoot`
    ReduceRoot,
    /// `lzc::Lzc`
    Lzc,
    /// `prims::PipeReg`
    PipeReg,
    /// `prims::ValidReg`
    ValidReg,
}

impl ModuleType {
    /// The type of a top emitted on its own.
    pub fn of_top(b: BlockName) -> ModuleType {
        match b {
            BlockName::Unit => ModuleType::Unit,
            BlockName::Xbar => ModuleType::Xbar,
            BlockName::Reduce => ModuleType::Reduce,
            BlockName::Lzc => ModuleType::Lzc,
        }
    }

    /// The type of the submodule(s) in field `field` of a block of this type; the registers
    /// are recognised by their own Verilog ([`ModuleType::of_instance`]), wherever they sit.
    pub fn child(self, field: &str) -> Option<ModuleType> {
        use ModuleType as T;
        Some(match (self, field) {
            (T::Unit, "xbar") => T::Xbar,
            (T::Unit, "reduce") => T::Reduce,
            (T::Unit, "lzc") => T::Lzc,
            (T::Xbar, "mux") => T::XbarMux,
            (T::Reduce, "dec") => T::ReduceDecode,
            (T::Reduce, "leaves") => T::ReduceLeaf,
            (T::Reduce, "n") => T::ReduceNode,
            (T::Reduce, "nc") => T::ReduceNodeCompact,
            (T::Reduce, "pick" | "pickl") => T::ReducePick,
            (T::Reduce, "root") => T::ReduceRoot,
            (T::ReduceNode, "sumsel") => T::ReduceSumSel,
            _ => return None,
        })
    }

    /// The type of the module instance at rust-hdl hierarchy path `path` (`top`, then one
    /// field name per level, array indices between them: `top$reduce$n$1$0`) under a `top` of
    /// type [`ModuleType::of_top`]; `body` is its rust-hdl text. A path that names no known
    /// block is an error, never a default.
    pub fn of_instance(top: BlockName, path: &str, body: &str) -> Result<ModuleType, EmitError> {
        // rust-hdl indents a leaf's custom Verilog: compare line by line, trimmed
        let trimmed = |t: &str| t.lines().map(str::trim).collect::<Vec<_>>().join("\n");
        let text = trimmed(body);
        if text.contains(&trimmed(crate::prims::VALID_REG_VERILOG)) {
            return Ok(ModuleType::ValidReg);
        }
        if text.contains(&trimmed(crate::prims::PIPE_REG_VERILOG)) {
            return Ok(ModuleType::PipeReg);
        }
        let mut fields = path.split('$').filter(|s| s.parse::<usize>().is_err());
        if fields.next() != Some("top") {
            return Err(EmitError::UnknownModule(path.into()));
        }
        fields
            .try_fold(ModuleType::of_top(top), |t, f| t.child(f))
            .ok_or_else(|| EmitError::UnknownModule(path.into()))
    }
}

const SRC1_REASON: &str = "shfl reads only laneOffset, cval and segmask of each lane's src1 (bits [k-1:0], [8+k-1:8], [16+k-1:16], k = log2(LANES)); PISA §7.4 ignores the other bits";

/// Where the crossbar's mux trees of `k` levels hold their registers ([`tree_registers`]), in
/// words.
fn mux_registers(TreeRegisters { at, copy, delay }: TreeRegisters, k: usize) -> String {
    let mut places: Vec<String> = Vec::new();
    if at[0] {
        places.push("boundary 0 (words and selects before the tree)".into());
    }
    if copy {
        places.push(
            "the copy register (four copies of the words, each feeding a quarter of the lanes)"
                .into(),
        );
    }
    places.extend((1..k).filter(|&b| at[b]).map(|b| format!("after level {b}")));
    if delay > 0 {
        places.push(format!("{delay} delay registers on the outputs (crossbar = \"compact\")"));
    }
    if places.is_empty() {
        "no position (combinational)".into()
    } else {
        places.join(", ")
    }
}

/// Names, docs and waivers of every module, for `cfg` and module-name prefix `prefix`.
fn kind(cfg: &UnitConfig, prefix: &str, top: BlockName, ty: ModuleType) -> ModuleKind {
    let n = cfg.lanes;
    let k = cfg.log2_lanes();
    let lat = cfg.latency();
    // boundary 0 (before level 1) and 1..K-1 lie inside the trees; K is the unit's output register
    let regs = cfg.registers();
    let inner_stages = regs.inside_trees(k);
    let tree = tree_registers(regs, k);
    let mut extra =
        cfg.pipeline_extra.iter().map(|e| format!(", {}", e.name())).collect::<String>();
    if regs.crossbar == CrossbarRegisters::Compact {
        extra.push_str(", crossbar = \"compact\"");
    }
    if regs.reduction == ReductionNodes::Compact {
        extra.push_str(", reduction = \"compact\"");
    }
    let block_latency = || -> String {
        let text: String = match (inner_stages, cfg.pipeline_extra.is_empty()) {
            (false, true) => "combinational".into(),
            (true, true) => "one cycle per stage boundary inside the tree".into(),
            (false, false) => "one cycle per pipeline_extra register".into(),
            (true, false) => {
                "one cycle per stage boundary inside the tree and per pipeline_extra register"
                    .into()
            }
        };
        if regs.pick {
            text + " (\"pick\" is the reduction's: one per tree level with a stage register and one before the last node's pick; the crossbar has none, the unit delays its result as long)"
        } else {
            text
        }
    };
    let spec = "Spec: pisa-subgroup-communication.txt";
    let hdr = |title: &str, what: &str, latency: String| {
        format!(
            "{title}\n\n{}\n\nLatency: {latency}.\n{spec}. Configuration: LANES = {n}, pipeline stages after tree levels {:?}{extra}.\nGenerated by `pisa emit` from the rust-hdl description in rtl/src/ (pisa-rtl); do not edit.",
            crate::emit::reflow(what),
            cfg.boundaries()
        )
    };
    let w = |name: &str| format!("{prefix}_{name}");
    let mut waivers: Vec<(String, String)> = Vec::new();
    use ModuleType as T;
    let (name, doc, width_named) = match ty {
        T::Unit => {
            waivers.push(("src1_i".into(), SRC1_REASON.into()));
            if n < 32 {
                waivers.push(("mask_i".into(), format!("mask_i is 32 bits wide like the PISA operand; a {n}-lane unit reads bits [{}:0]", n - 1)));
            }
            if regs.root {
                waivers.push(("reduce_result_o".into(), "with `root` the unit reads the reduction's result once per four lanes (results_o, one root each); result_o is the block's own output".into()));
            }
            if lat == 0 {
                waivers.push(("rst_ni".into(), "the combinational configuration (pipeline = 0) has no register; rst_ni is kept so every configuration has the same ports".into()));
            }
            (
                w("unit"),
                hdr(
                    &format!("{} — PISA sub-group communication unit (fred, ired, redfirstidx, shfl).", w("unit")),
                    "Decodes op_i (encoding: pisa_model::op; reserved codes write no lane) and routes src0_i/src1_i/mask_i/activemask_i\nto the shuffle crossbar, the reduction tree or the priority encoder. dst_o lane i = bits [32i+31:32i];\nwen_o marks the lanes that write dst; 16-bit results are zero-extended; dst_o of lanes with wen_o = 0 is unspecified.\nPorts: clk_i, rst_ni (synchronous, active low, resets valid only), valid_i/valid_o, op_i[7:0],\nsrc0_i/src1_i[LANES*32-1:0], mask_i[31:0], activemask_i[LANES-1:0], dst_o[LANES*32-1:0], wen_o[LANES-1:0].",
                    if lat == 0 { "0 cycles (combinational; valid_o = valid_i)".into() } else { format!("{lat} cycles, one operation per clock, results in issue order") },
                ),
                false,
            )
        }
        T::Xbar => {
            waivers.push(("src1_i|src1g".into(), SRC1_REASON.into()));
            if regs.root {
                waivers.push(("qpart_*".into(), format!("quarter m's copy of the participation mask is shifted down by m * {}; the lookup before the root register reads its low {} bits", n / 4, n / 4)));
            }
            (
                w("shfl_xbar"),
                hdr(
                    &format!("{} — shuffle crossbar of shfl.{{up,dn,xor,idx}}[.sg] (PISA §7.4).", w("shfl_xbar")),
                    "Per lane: laneOffset/cval/segmask from src1, clampLane, srcLane, inBounds, participation of srcLane;\nselect = inBounds && part_i[srcLane] ? srcLane : laneid (own src0). Data path: the mux trees of\nshfl_xbar_mux (a module of its own, so synthesis maps them apart from the select logic).",
                    block_latency(),
                ),
                false,
            )
        }
        T::XbarMux => {
            waivers.push(("sq?_*".into(), "a stage register carries a lane's whole select; the bits its earlier levels consumed are not read again (synthesis removes them)".into()));
            if !inner_stages {
                waivers.push(("clk_i".into(), "no stage boundary lies inside the crossbar in this configuration; the port is kept so every configuration has the same ports".into()));
            }
            (
                w("shfl_xbar_mux"),
                hdr(
                    &format!("{} — data path of the shuffle crossbar (PISA §7.4).", w("shfl_xbar_mux")),
                    &format!(
                        "Per lane one N:1 mux tree of 32-bit words from 2:1 muxes, level l switched by bit l-1 of the lane's\nselect (sel_i, LANE_BITS per lane, computed by shfl_xbar); the select travels beside the words through stage registers.\nRetimed: the tree holds as many registers as the configuration has boundaries inside it, placed at {}.\nNames: lv<l>_lane<i>_w<j> is word j of lane i after level l (lq after its register r); cp<l>_..._b<s> the copy switched by select copy s (byte s); sq<b>_lane<i>_b<s> select copy s of lane i after boundary b (rs its register, sc after the copy register){}.",
                        mux_registers(tree, k),
                        if tree.delay > 0 {
                            "; rd<t>_lane<i> lane i's output word after delay stage t"
                        } else {
                            ""
                        }
                    ),
                    if inner_stages { "one cycle per stage boundary inside the tree".into() } else { "combinational".into() },
                ),
                false,
            )
        }
        T::Reduce => {
            // the reduction's own registers: the tree's, and the `pipeline_extra` ones but, in the
            // unit, `result` (the unit holds that one)
            let in_unit = top == BlockName::Unit;
            let own = if in_unit { regs.of_reduce_in_unit() } else { regs };
            if !(inner_stages || own.front || own.root || own.result || own.pick || own.input) {
                waivers.push(("clk_i".into(), "no stage boundary lies inside the reduction tree in this configuration; the port is kept so every configuration has the same ports".into()));
            }
            (
                w("reduce"),
                hdr(
                    &format!("{} — reduction tree of fred and ired (PISA §7.1, §7.2).", w("reduce")),
                    "Leaves map every participating value to an unsigned key (float: sign-magnitude -> biased; signed: sign bit\nflipped; absmax: magnitude; inverted for max), log2(LANES) levels of nodes keep the smaller key (or add / and / or / xor), split at\nbit 16 for packed and 16-bit types with per-half NaN/valid flags; the root decodes the key and applies the NaN rule.",
                    if in_unit && regs.result {
                        format!("{}, except `result`: in the unit that register is the unit's (one copy of the result per four lanes)", block_latency())
                    } else {
                        block_latency()
                    },
                ),
                false,
            )
        }
        T::Lzc => (
            w("lzc"),
            hdr(
                &format!("{} — priority encoder of redfirstidx (PISA §7.3).", w("lzc")),
                "Index of the lowest set bit of bits_i, or LANES when no bit is set (the spec's loop would not end; see\ndocs/spec-notes.md). A log2(LANES)-level tree like common_cells' cc_lzc in trailing-zero mode,\nas a heap numbered from the leaves: e_<m> (no set bit below entry m) and x_<m> (the index of its lowest\nset bit); entries 0..LANES-1 are the bits, inner node j is entry LANES+j over entries 2j and 2j+1.",
                "combinational".into(),
            ),
            false,
        ),
        T::ReduceDecode => (
            w("reduce_decode"),
            hdr(
                &format!("{} — the reduction's controls decoded from op_i (its fred/ired fields).", w("reduce_decode")),
                "One copy per four leaves, so each copy of the controls is formed beside the leaves it feeds. See the reduction tree.",
                "combinational".into(),
            ),
            false,
        ),
        T::ReduceLeaf => {
            waivers.push(("ctl_i".into(), "the leaf reads only the control fields of the key transform".into()));
            (w("reduce_leaf"), hdr(&format!("{} — one lane's reduction key and NaN/valid flags.", w("reduce_leaf")), "See the reduction tree.", "combinational".into()), false)
        }
        T::ReduceNode => {
            waivers.push(("ctl_i".into(), "the node reads only the min/max, split and arithmetic fields of the control bundle".into()));
            waivers.push(("dab|dba".into(), "the compare subtractions are read only at their borrow bits (16: low half, 33: high half or 32-bit order)".into()));
            (w("reduce_node"), hdr(&format!("{} — combines two reduction values (one compare chain with a break bit between the halves).", w("reduce_node")), "See the reduction tree.", "combinational".into()), false)
        }
        T::ReduceNodeCompact => {
            waivers.push(("ctl_i".into(), "the node reads only the min/max, split and arithmetic fields of the control bundle".into()));
            waivers.push(("dba".into(), "the compare subtraction is read only at its borrow bits (16: low half, 33: high half or 32-bit order)".into()));
            (
                w("reduce_node_compact"),
                hdr(
                    &format!("{} — combines two reduction values into one (reduction = \"compact\").", w("reduce_node_compact")),
                    "The compare chain of the pair node; per output bit e = a, a & b, a | b or a ^ b by a per-node code, y = the sum\nwhere ired.sum has both values, out = b where the half takes it, else y: the output mux before the stage\nregister. See the reduction tree.",
                    "combinational".into(),
                ),
                false,
            )
        }
        T::ReduceSumSel => (
            w("reduce_sumsel"),
            hdr(
                &format!("{} — one byte of a reduction node's output: the sum in place of both outcomes when it is the result.", w("reduce_sumsel")),
                "A node has four, each forming use_sum (ired.sum, both values participating) itself, so no one LUT\nswitches all 64 output bits. A module of its own so that synthesis with the hierarchy kept maps it apart:\nthe sum's carry chain meets one LUT here before the stage register. See the reduction tree.",
                "combinational".into(),
            ),
            false,
        ),
        T::ReducePick => (
            w("reduce_pick"),
            hdr(
                &format!("{} — a reduction node's output mux: o1 where b is better, o0 where not, per half.", w("reduce_pick")),
                "Follows the node's stage register where the level has one, so the compare chain ends at the register and\nthe verdict's fan-out to 32 mux LUTs starts the next cycle (the last node's pick precedes the `root` register). See the reduction tree.",
                "combinational".into(),
            ),
            false,
        ),
        T::ReduceRoot => {
            waivers.push(("ctl_i".into(), "the root reads only the decode fields of the control bundle".into()));
            (w("reduce_root"), hdr(&format!("{} — decodes the final key: inverse order key, canonical NaN, zero extension.", w("reduce_root")), "See the reduction tree.", "combinational".into()), false)
        }
        T::ValidReg => (
            w("valid_reg"),
            hdr(&format!("{} — the valid pipeline register.", w("valid_reg")), "q_o takes d_i at each rising edge of clk_i; synchronous active-low reset to 0.", "1 cycle".into()),
            false,
        ),
        T::PipeReg => (
            w("pipe_reg"),
            hdr(&format!("{} — a pipeline register.", w("pipe_reg")), "q_o takes d_i at each rising edge of clk_i (no reset: data registers need none).", "1 cycle".into()),
            true,
        ),
    };
    let lane_names = if ty == T::XbarMux { mux_lane_names(n, k, inner_stages) } else { Vec::new() };
    // the fields indexed by tree level first (`rtl/src/reduce/tree.rs`, `rtl/src/xbar_mux.rs`)
    let level_vectors = match ty {
        T::Reduce => vec!["n", "nc", "lq", "cq", "r", "rv", "rc", "pick", "p", "pc"],
        T::XbarMux => vec!["lv", "cp", "lq", "sq", "r", "rs", "rd"],
        _ => Vec::new(),
    };
    // the vectors of at most one element, named as plain members (`rtl/src/reduce/tree.rs`)
    let singles = match ty {
        T::Reduce => vec!["last", "pickl"],
        _ => Vec::new(),
    };
    ModuleKind {
        name,
        doc,
        waivers,
        parameterised: width_named,
        lane_names,
        level_vectors,
        singles,
    }
}

/// The crossbar mux tree's signal vectors by lane (`rtl/src/xbar_mux.rs`): after level `l`
/// (`lv`, `lq`, the registers `r`) `N >> l` words per lane, the per-byte copies `cp` four of each
/// (registered trees only), the select copies (`sq`, `sc`, registers `rs`, `rsc`) four per lane
/// in a registered tree, one otherwise.
fn mux_lane_names(n: usize, k: usize, registered: bool) -> Vec<LaneName> {
    let c = if registered { 4 } else { 1 };
    let v = |base: String, per_lane: usize, copies: usize| LaneName { base, per_lane, copies };
    let mut out = Vec::new();
    for l in 1..=k {
        out.push(v(format!("lv{l}"), n >> l, 1));
        out.push(v(format!("cp{l}"), n >> l, 4));
        out.push(v(format!("lq{l}"), n >> l, 1));
        out.push(v(format!("r{l}"), n >> l, 1));
    }
    for b in 0..k {
        out.push(v(format!("sq{b}"), 1, c));
        out.push(v(format!("rs{b}"), 1, c));
    }
    out.push(v("sc".into(), 1, c));
    out.push(v("rsc".into(), 1, c));
    for t in 1..=3 {
        out.push(v(format!("rd{t}"), 1, 1));
    }
    out
}

macro_rules! emit_for {
    ($cfg:expr, $prefix:expr, $block:expr, $n:literal, $k:literal, $k1:literal, $w:literal, $unit:ident) => {{
        let regs = $cfg.registers();
        let kf = |path: &str, body: &str| {
            Ok(kind($cfg, $prefix, $block, ModuleType::of_instance($block, path, body)?))
        };
        match $block {
            BlockName::Unit => {
                let mut u = $unit::new(regs);
                u.connect_all();
                Design::from_block(&u, &kf)
            }
            BlockName::Xbar => {
                let mut u = ShflXbar::<$n, $k, $k1, $w>::new(regs);
                u.connect_all();
                Design::from_block(&u, &kf)
            }
            BlockName::Reduce => {
                let mut u = Reduce::<$n, $k, $w>::new(regs);
                u.connect_all();
                Design::from_block(&u, &kf)
            }
            BlockName::Lzc => {
                let mut u = Lzc::<$n>::default();
                u.connect_all();
                Design::from_block(&u, &kf)
            }
        }
    }};
}

/// The longest module-name prefix: with it every emitted line stays within 100 columns and
/// every file lints clean (a 48-character prefix already makes lines of the waiver file and
/// the modules longer).
pub const MAX_PREFIX: usize = 32;

/// Checks a module-name prefix: a Verilog identifier of at most [`MAX_PREFIX`] characters
/// (letters, digits, `_`, starting with a letter).
pub fn check_prefix(prefix: &str) -> Result<(), String> {
    let ok = prefix.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && prefix.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !ok {
        return Err(format!(
            "'{prefix}' is not a Verilog identifier prefix (letters, digits, '_', starting with a letter)"
        ));
    }
    if prefix.len() > MAX_PREFIX {
        return Err(format!(
            "'{prefix}' has {} characters; a prefix has at most {MAX_PREFIX} (longer ones make \
             module names that do not fit the emitted files' 100 columns)",
            prefix.len()
        ));
    }
    Ok(())
}

/// The Verilog of `block` for `cfg`, module names starting with `prefix` (e.g. `pisa_sg`).
pub fn design(cfg: &UnitConfig, block: BlockName, prefix: &str) -> Result<Design, EmitError> {
    check_prefix(prefix).map_err(EmitError::Prefix)?;
    let mut d = emit_lanes(cfg, block, prefix)?;
    // the encoding's constants from the emission's header (`<prefix>_defs.vh`)
    for m in &mut d.modules {
        m.text = crate::integration::use_header(prefix, &m.text)
            .map_err(|msg| EmitError::Header { module: m.name.clone(), msg })?;
    }
    d.prefix = prefix.to_string();
    d.block = block.name().to_string();
    d.cfg = cfg.clone();
    Ok(d)
}

fn emit_lanes(cfg: &UnitConfig, block: BlockName, prefix: &str) -> Result<Design, EmitError> {
    match cfg.lanes {
        4 => emit_for!(cfg, prefix, block, 4, 2, 3, 128, Unit4),
        8 => emit_for!(cfg, prefix, block, 8, 3, 4, 256, Unit8),
        16 => emit_for!(cfg, prefix, block, 16, 4, 5, 512, Unit16),
        _ => emit_for!(cfg, prefix, block, 32, 5, 6, 1024, Unit32),
    }
}

#[cfg(test)]
mod tests {
    use super::{BlockName, ModuleType};
    use crate::emit::EmitError;

    #[test]
    fn instances_resolve_through_their_parents_types() {
        let of = |top, path| ModuleType::of_instance(top, path, "always @(*) begin end");
        assert_eq!(of(BlockName::Unit, "top").unwrap(), ModuleType::Unit);
        assert_eq!(of(BlockName::Unit, "top$reduce$n$3$1").unwrap(), ModuleType::ReduceNode);
        assert_eq!(of(BlockName::Reduce, "top$n$3$1$sumsel$2").unwrap(), ModuleType::ReduceSumSel);
        assert_eq!(of(BlockName::Xbar, "top$mux").unwrap(), ModuleType::XbarMux);
        // a field of another block's name is not taken for it
        assert!(matches!(of(BlockName::Unit, "top$n$3$1"), Err(EmitError::UnknownModule(_))));
        assert!(matches!(
            of(BlockName::Unit, "top$xbar$leaves$0"),
            Err(EmitError::UnknownModule(_))
        ));
        // registers by their own Verilog, under any field name
        let indented = |t: &str| t.lines().map(|l| format!("        {l}\n")).collect::<String>();
        let valid = indented(crate::prims::VALID_REG_VERILOG);
        let pipe = indented(crate::prims::PIPE_REG_VERILOG);
        let reg = |path, body: &str| ModuleType::of_instance(BlockName::Unit, path, body).unwrap();
        assert_eq!(reg("top$vregx$0", &valid), ModuleType::ValidReg);
        assert_eq!(reg("top$reduce$anything$3", &pipe), ModuleType::PipeReg);
    }
}

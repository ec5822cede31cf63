//! The unit's build parameters, read from TOML.
//!
//! ```toml
//! lanes = 32          # 4, 8, 16 or 32 (default 32)
//! pipeline = 2        # register stages, 0 (combinational) ..= log2(lanes) (default 0)
//! # pipeline_at = [0, 3, 5]   # optional: exact stage boundaries (see below)
//! # pipeline_extra = ["front", "root", "result"]   # optional: registers off the tree levels (see below)
//! # crossbar = "compact"   # optional: where the crossbar holds its registers (see below)
//! # reduction = "compact"  # optional: the reduction node's form (see below)
//! # [pnr]
//! # router = "router1"      # optional: nextpnr's router for `pisa synth --pnr` (see below)
//! ```
//!
//! A stage boundary `b` in `1..=log2(lanes)` is a register after tree level `b` of the crossbar
//! and of the reduction tree; boundary `log2(lanes)` registers the unit's outputs. Boundary `0`
//! (only through `pipeline_at`) registers in front of the trees: the crossbar's computed selects
//! with `src0`, the reduction's operands with its decoded controls, the unit's controls — so the
//! select logic has a cycle of its own. With only a
//! count, the boundaries are spread evenly and always include the outputs:
//! `round(j * log2(lanes) / pipeline)` for `j = 1..=pipeline`. The latency in cycles is the
//! number of boundaries plus the number of `pipeline_extra` entries.
//!
//! `pipeline_extra` adds registers that are not at a tree level, each one cycle in every block:
//! - `"front"`: splits the crossbar's select logic (srcLane, clampLane and the `.up` flag
//!   registered; inBounds, the participation lookup and the select in the next cycle) and
//!   registers the reduction's leaf values, ahead of boundary 0's place in each block;
//! - `"root"`: registers the reduction's last node output before the root (so the root's key
//!   decoding has a cycle of its own; in the unit one per four lanes, each with its own root)
//!   and, in the crossbar, inBounds with the participation lookup's first step (four quarter
//!   lookups) before its second step and the select (the select logic's second half in two
//!   cycles);
//! - `"result"`: registers the crossbar's tree outputs and the reduction's result (after the
//!   root) before the unit's output mux, so the mux and the broadcast of the reduction result
//!   to every lane have a cycle of their own (in the unit, the result and the redfirstidx index
//!   are registered as one copy per four lanes; `--block reduce` keeps one register);
//! - `"pick"`: gives each reduction node's output mux a cycle of its own — a register after the
//!   pick of every tree level that has a stage register, and one before the last node's pick —
//!   so a node's cycle is its route in, its compare chain and one LUT. It adds [`Registers::pick_cycles`]
//!   cycles (not one), and the unit delays the crossbar's result and the controls to match
//!   (the crossbar itself has no pick register);
//! - `"input"`: registers the blocks' inputs at the ports (`src0`, `src1`, the masks, `valid`)
//!   with the opcode and the participation mask as one copy per four lanes in the crossbar
//!   and per decoder in the reduction, so no opcode bit is decoded once and routed to every
//!   lane in the same cycle (each group decodes its own copy).
//!
//! `crossbar` says where the crossbar's mux trees hold the registers of the boundaries inside
//! them (it keeps their count, so the latency is the same either way):
//! - `"spread"` (the default): through the trees, a 4:1 step a cycle, plus a copy register that
//!   cuts the words' fan-out (`crate::xbar_mux::tree_registers`): the fastest crossbar;
//! - `"compact"`: at most two in the trees, before level 1 and after level 3 (an 8:1 step, then
//!   the rest of the tree), the others delay the trees' outputs. The mux trees keep the 8:1
//!   steps synthesis packs best (ECP5: 18 LUT4 per output bit through PFUMX and L6MUX21,
//!   against 24 for `"spread"`'s 4:1 steps) and hold fewer flip-flops, at the cost of longer
//!   paths in the crossbar and a placement that moves with it (`fpga/configs/small_compact.toml`:
//!   13 % fewer LUT4 than `small_pair.toml`, 100 MHz on three of five placer seeds; the `small`
//!   preset, with compact nodes and routed by router1, on all five; docs/qor.md).
//!
//! `reduction` says what a reduction node hands on (the tree, its registers and the latency are
//! the same either way):
//! - `"pair"` (the default): both outcomes of every output bit and the compare's verdict
//!   (`crate::reduce::RedPair`); the output mux (`pisa_sg_reduce_pick`) follows the level's
//!   stage register, so the compare chain ends at the register: the fastest node, about 240
//!   LUT4 at 32 bits on ECP5;
//! - `"compact"`: the picked value (`crate::reduce::ReduceNodeCompact`): three LUTs per output
//!   bit after the chains instead of about seven and half the register bits, at the cost of the
//!   verdict's fan-out to the output bits in the node's own cycle. It cannot be combined with
//!   `"pick"` (a compact node has no pick of its own to register).
//!
//! `[pnr]` holds how the unit is placed and routed, not what it is (the emitted Verilog, the tag
//! and [`UnitConfig::canonical`] ignore it): `router` is nextpnr's router for ECP5,
//! `"router2"` (with timing-driven rip-up; the default) or `"router1"` (the `small` preset: its
//! compact crossbar routes on every placer seed with router1, not with router2; docs/qor.md).
//! `pisa synth --router` overrides it.

use serde::{Deserialize, Serialize};

/// Why a configuration is rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("{origin}: {message}")]
    Invalid { origin: String, message: String },
}

/// The build parameters of one unit.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnitConfig {
    #[serde(default = "default_lanes")]
    pub lanes: usize,
    #[serde(default)]
    pub pipeline: usize,
    #[serde(default)]
    pub pipeline_at: Option<Vec<usize>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pipeline_extra: Vec<Extra>,
    #[serde(default, skip_serializing_if = "CrossbarRegisters::is_spread")]
    pub crossbar: CrossbarRegisters,
    #[serde(default, skip_serializing_if = "ReductionNodes::is_pair")]
    pub reduction: ReductionNodes,
    /// How `pisa synth --pnr` places and routes the unit (`[pnr]`); not part of the hardware.
    #[serde(default, skip_serializing_if = "PnrHints::is_empty")]
    pub pnr: PnrHints,
}

/// Place-and-route settings a unit is measured with (`[pnr]` in the TOML, see the module
/// documentation). They change no hardware: [`UnitConfig::canonical`], the tag and the emitted
/// Verilog ignore them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PnrHints {
    /// nextpnr's router for ECP5 (`pisa synth --router` overrides it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub router: Option<Router>,
}

impl PnrHints {
    fn is_empty(&self) -> bool {
        *self == PnrHints::default()
    }
}

/// A nextpnr router (`--router`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Router {
    /// nextpnr's negotiated-congestion router.
    Router1,
    /// nextpnr's router2, with timing-driven rip-up (`--tmg-ripup`): the ECP5 default.
    Router2,
}

impl Router {
    /// The name nextpnr and the TOML use.
    pub fn name(self) -> &'static str {
        match self {
            Router::Router1 => "router1",
            Router::Router2 => "router2",
        }
    }
}

impl std::str::FromStr for Router {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        [Router::Router1, Router::Router2]
            .into_iter()
            .find(|r| r.name() == s)
            .ok_or_else(|| format!("unknown router `{s}` (use router1 or router2)"))
    }
}

/// Where the crossbar's mux trees hold their registers (see the module documentation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CrossbarRegisters {
    #[default]
    Spread,
    Compact,
}

impl CrossbarRegisters {
    fn is_spread(&self) -> bool {
        *self == CrossbarRegisters::Spread
    }
}

/// What a reduction node hands on (see the module documentation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReductionNodes {
    #[default]
    Pair,
    Compact,
}

impl ReductionNodes {
    fn is_pair(&self) -> bool {
        *self == ReductionNodes::Pair
    }
}

/// A register stage off the tree levels (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Extra {
    Front,
    Root,
    Result,
    Pick,
    Input,
}

/// The registers a configuration enables, by name: one meaning in every block.
///
/// `after_level[b]` is a register after tree level `b` (`b = 0`: in front of level 1;
/// `b = log2(lanes)`: the unit's outputs); the other fields are the `pipeline_extra` registers
/// of the same names (see the module documentation); `crossbar` where the crossbar's trees hold
/// theirs; `reduction` the form of the reduction's nodes (it decides what their stage registers
/// hold).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Registers {
    pub after_level: [bool; 6],
    pub front: bool,
    pub root: bool,
    pub result: bool,
    pub pick: bool,
    pub input: bool,
    pub crossbar: CrossbarRegisters,
    pub reduction: ReductionNodes,
}

impl Registers {
    /// No register anywhere: the combinational unit.
    pub const NONE: Registers = Registers {
        after_level: [false; 6],
        front: false,
        root: false,
        result: false,
        pick: false,
        input: false,
        crossbar: CrossbarRegisters::Spread,
        reduction: ReductionNodes::Pair,
    };

    /// True when the `pipeline_extra` register `e` is enabled.
    pub fn has(&self, e: Extra) -> bool {
        match e {
            Extra::Front => self.front,
            Extra::Root => self.root,
            Extra::Result => self.result,
            Extra::Pick => self.pick,
            Extra::Input => self.input,
        }
    }

    /// True when a register lies inside a tree of `k` levels (a boundary `0 <= b < k`).
    pub fn inside_trees(&self, k: usize) -> bool {
        self.after_level[..k].iter().any(|&s| s)
    }

    /// The registers of the reduction tree inside the unit: all of these but `result`, which the
    /// unit holds itself (the result as one copy per four lanes, beside the redfirstidx index).
    pub fn of_reduce_in_unit(self) -> Registers {
        Registers { result: false, ..self }
    }

    /// The cycles the `"pick"` registers add to a tree of `k` levels: one per level `1 <= b < k`
    /// with a stage register, plus one before the last node's pick; 0 without `"pick"`.
    pub fn pick_cycles(&self, k: usize) -> usize {
        if self.pick {
            (1..k).filter(|&b| self.after_level[b]).count() + 1
        } else {
            0
        }
    }

    /// The `pipeline_extra` registers as loop bounds for `#[hdl_gen]` code (1: present).
    pub fn extras(&self) -> Extras {
        let on = |b: bool| b as usize;
        Extras {
            front: on(self.front),
            root: on(self.root),
            result: on(self.result),
            pick: on(self.pick),
            input: on(self.input),
        }
    }
}

/// The `pipeline_extra` registers as 0 or 1 each, named as in the TOML file: `#[hdl_gen]` code
/// reads them in loop bounds (`for r in 0..self.extra.0.front`, or through
/// `opt_reg!(self.extra.0.front, ..)`), which elaborate a body once where the register exists
/// and not at all where it does not.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Extras {
    pub front: usize,
    pub root: usize,
    pub result: usize,
    pub pick: usize,
    pub input: usize,
}

fn default_lanes() -> usize {
    32
}

impl Default for UnitConfig {
    fn default() -> Self {
        UnitConfig {
            lanes: 32,
            pipeline: 0,
            pipeline_at: None,
            pipeline_extra: Vec::new(),
            crossbar: CrossbarRegisters::Spread,
            reduction: ReductionNodes::Pair,
            pnr: PnrHints::default(),
        }
    }
}

/// What a key of the configuration takes, for messages about a value of the wrong type.
fn key_values(key: &str) -> Option<&'static str> {
    Some(match key {
        "lanes" => "4, 8, 16 or 32",
        "pipeline" => "a number of register stages (0 to log2(lanes))",
        "pipeline_at" => "a list of stage boundaries, e.g. [0, 2, 4]",
        "pipeline_extra" => "a list of \"front\", \"root\", \"result\", \"pick\", \"input\"",
        "crossbar" => "\"spread\" (the default) or \"compact\"",
        "reduction" => "\"pair\" (the default) or \"compact\"",
        "router" => "\"router1\" or \"router2\" (in the [pnr] table)",
        _ => return None,
    })
}

impl UnitConfig {
    /// A validated configuration with `lanes` lanes and `pipeline` evenly spread stages.
    pub fn new(lanes: usize, pipeline: usize) -> Result<Self, ConfigError> {
        let c = UnitConfig { lanes, pipeline, ..UnitConfig::default() };
        c.validate("config")?;
        Ok(c)
    }

    /// Parses and validates TOML text; `origin` (a file name) prefixes error messages, which
    /// carry the TOML `line:col` for syntax errors.
    pub fn from_toml(text: &str, origin: &str) -> Result<Self, ConfigError> {
        let c: UnitConfig = toml::from_str(text).map_err(|e| {
            let Some(s) = e.span().filter(|s| s.start <= text.len()) else {
                return ConfigError::Invalid {
                    origin: origin.to_string(),
                    message: e.message().to_string(),
                };
            };
            let line = text[..s.start].matches('\n').count() + 1;
            let line_start = text[..s.start].rfind('\n').map(|i| i + 1).unwrap_or(0);
            let col = s.start - line_start + 1;
            let at = format!("{origin}:{line}:{col}");
            // name the key and what it takes: serde's message names only the type it wanted
            let line_text = text[line_start..].lines().next().unwrap_or("");
            let message = match line_text.split_once('=') {
                Some((key, value)) => match key_values(key.trim()) {
                    Some(takes) => format!(
                        "{} (in `{} = {}`: {} takes {takes})",
                        e.message(),
                        key.trim(),
                        value.trim(),
                        key.trim()
                    ),
                    None => e.message().to_string(),
                },
                None => e.message().to_string(),
            };
            ConfigError::Invalid { origin: at, message }
        })?;
        c.validate(origin)?;
        Ok(c)
    }

    fn validate(&self, origin: &str) -> Result<(), ConfigError> {
        let bad = |m: String| Err(ConfigError::Invalid { origin: origin.into(), message: m });
        if ![4, 8, 16, 32].contains(&self.lanes) {
            return bad(format!("lanes = {} is not supported (use 4, 8, 16 or 32)", self.lanes));
        }
        let k = self.log2_lanes();
        match &self.pipeline_at {
            None => {
                if self.pipeline > k {
                    return bad(format!("pipeline = {} is more than one register per tree level (at most {k} for {} lanes)", self.pipeline, self.lanes));
                }
            }
            Some(at) => {
                if self.pipeline != 0 && self.pipeline != at.len() {
                    return bad(format!(
                        "pipeline = {} but pipeline_at lists {} boundaries",
                        self.pipeline,
                        at.len()
                    ));
                }
                let mut seen = [false; 6];
                for &b in at {
                    if b > k {
                        return bad(format!("pipeline_at: boundary {b} is not a stage boundary (0..={k} for {} lanes)", self.lanes));
                    }
                    if seen[b] {
                        return bad(format!("pipeline_at: boundary {b} is listed twice"));
                    }
                    seen[b] = true;
                }
            }
        }
        for (i, e) in self.pipeline_extra.iter().enumerate() {
            if self.pipeline_extra[..i].contains(e) {
                return bad(format!("pipeline_extra: \"{}\" is listed twice", e.name()));
            }
        }
        if self.reduction == ReductionNodes::Compact && self.pipeline_extra.contains(&Extra::Pick) {
            return bad("pipeline_extra: \"pick\" registers the output mux of a \"pair\" node; with reduction = \"compact\" the node picks before its register (drop one of them)".into());
        }
        Ok(())
    }

    /// The configuration as TOML text; [`UnitConfig::from_toml`] reads it back to an equal value.
    pub fn to_toml(&self) -> String {
        toml::to_string(self)
            .unwrap_or_else(|e| unreachable!("a UnitConfig always serializes: {e}"))
    }

    /// True when `other` builds the same hardware: the same lanes and the same registers
    /// (`pipeline = 2` and `pipeline_at = [3, 5]` are one unit at 32 lanes).
    pub fn same_unit(&self, other: &UnitConfig) -> bool {
        self.lanes == other.lanes && self.registers() == other.registers()
    }

    /// The same unit written one way: its boundaries as `pipeline_at` and its extras in a fixed
    /// order, so that two configurations of one unit give one canonical form (and one tag).
    pub fn canonical(&self) -> UnitConfig {
        let s = self.registers();
        let k = self.log2_lanes();
        UnitConfig {
            lanes: self.lanes,
            pipeline: 0,
            pipeline_at: Some((0..=k).filter(|&b| s.after_level[b]).collect()),
            pipeline_extra: Extra::CANONICAL.into_iter().filter(|&e| s.has(e)).collect(),
            crossbar: s.crossbar,
            reduction: s.reduction,
            pnr: PnrHints::default(),
        }
    }

    /// `log2(lanes)`: the number of tree levels.
    pub fn log2_lanes(&self) -> usize {
        self.lanes.trailing_zeros() as usize
    }

    /// The registers this configuration enables.
    pub fn registers(&self) -> Registers {
        let k = self.log2_lanes();
        let mut s = Registers {
            front: self.pipeline_extra.contains(&Extra::Front),
            root: self.pipeline_extra.contains(&Extra::Root),
            result: self.pipeline_extra.contains(&Extra::Result),
            pick: self.pipeline_extra.contains(&Extra::Pick),
            input: self.pipeline_extra.contains(&Extra::Input),
            reduction: self.reduction,
            ..Registers::NONE
        };
        match &self.pipeline_at {
            Some(at) => at.iter().for_each(|&b| s.after_level[b] = true),
            None => {
                for j in 1..=self.pipeline {
                    // round(j * k / p), half up
                    s.after_level[(2 * j * k + self.pipeline) / (2 * self.pipeline)] = true;
                }
            }
        }
        // where the crossbar holds its registers matters only when it holds some
        if s.inside_trees(k) {
            s.crossbar = self.crossbar;
        }
        s
    }

    /// The tree levels followed by a register (`0`: in front of level 1), ascending.
    pub fn boundaries(&self) -> Vec<usize> {
        let s = self.registers();
        (0..=self.log2_lanes()).filter(|&b| s.after_level[b]).collect()
    }

    /// Clock cycles from `valid_i` to `valid_o`.
    pub fn latency(&self) -> usize {
        let s = self.registers();
        let extras = [s.front, s.root, s.result, s.input];
        s.after_level.iter().chain(&extras).filter(|&&b| b).count()
            + s.pick_cycles(self.log2_lanes())
    }

    /// A short name: `l32_p2` (`_at3_5` when placed explicitly; `_front`, `_root`, `_result`
    /// for `pipeline_extra`; `_compact` for `crossbar = "compact"`; `_rcompact` for
    /// `reduction = "compact"`).
    pub fn tag(&self) -> String {
        let base = match &self.pipeline_at {
            None => format!("l{}_p{}", self.lanes, self.pipeline),
            Some(at) => format!(
                "l{}_at{}",
                self.lanes,
                at.iter().map(|b| b.to_string()).collect::<Vec<_>>().join("_")
            ),
        };
        let s = self.registers();
        let extra =
            Extra::CANONICAL.into_iter().filter(|&e| s.has(e)).map(|e| format!("_{}", e.name()));
        let crossbar = if s.crossbar == CrossbarRegisters::Compact { "_compact" } else { "" };
        let reduction = if s.reduction == ReductionNodes::Compact { "_rcompact" } else { "" };
        base + &extra.collect::<String>() + crossbar + reduction
    }
}

impl Extra {
    /// Every register, in the order of a configuration's canonical form and tag.
    pub const CANONICAL: [Extra; 5] =
        [Extra::Front, Extra::Root, Extra::Result, Extra::Pick, Extra::Input];

    /// The name used in the TOML file.
    pub fn name(self) -> &'static str {
        match self {
            Extra::Front => "front",
            Extra::Root => "root",
            Extra::Result => "result",
            Extra::Pick => "pick",
            Extra::Input => "input",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn even_placement_includes_the_outputs() {
        let at = |l, p| {
            let s = UnitConfig::new(l, p).unwrap().registers();
            (1..6).filter(|&b| s.after_level[b]).collect::<Vec<_>>()
        };
        assert_eq!(at(32, 0), Vec::<usize>::new());
        assert_eq!(at(32, 1), vec![5]);
        assert_eq!(at(32, 2), vec![3, 5]);
        assert_eq!(at(32, 3), vec![2, 3, 5]);
        assert_eq!(at(32, 5), vec![1, 2, 3, 4, 5]);
        assert_eq!(at(4, 2), vec![1, 2]);
        assert_eq!(UnitConfig::new(32, 3).unwrap().latency(), 3);
    }

    #[test]
    fn errors_name_the_problem_and_the_place() {
        let e = UnitConfig::from_toml("lanes = 32\npipeline = 9\n", "unit.toml").unwrap_err();
        assert_eq!(e.to_string(), "unit.toml: pipeline = 9 is more than one register per tree level (at most 5 for 32 lanes)");
        let e = UnitConfig::from_toml("lanes = 12\n", "unit.toml").unwrap_err();
        assert_eq!(e.to_string(), "unit.toml: lanes = 12 is not supported (use 4, 8, 16 or 32)");
        let e = UnitConfig::from_toml("lanes = 32\nlaness = 4\n", "unit.toml").unwrap_err();
        assert!(e.to_string().starts_with("unit.toml:2:1: unknown field `laness`"), "{e}");
        let e = UnitConfig::from_toml("lanes = \"many\"\n", "unit.toml").unwrap_err();
        assert!(e.to_string().starts_with("unit.toml:1:9: invalid type"), "{e}");
        let e = UnitConfig::from_toml("lanes = 8\npipeline_at = [0, 4]\n", "u.toml").unwrap_err();
        assert_eq!(
            e.to_string(),
            "u.toml: pipeline_at: boundary 4 is not a stage boundary (0..=3 for 8 lanes)"
        );
        let c = UnitConfig::from_toml("pipeline_at = [0, 3, 5]\n", "u.toml").unwrap();
        assert_eq!((c.latency(), c.tag()), (3, "l32_at0_3_5".to_string()));
        assert!(c.registers().after_level[0]);
        let e = UnitConfig::from_toml("pipeline_at = [5, 5]\n", "u.toml").unwrap_err();
        assert_eq!(e.to_string(), "u.toml: pipeline_at: boundary 5 is listed twice");
        let c = UnitConfig::from_toml("pipeline_at = [1, 5]\n", "u.toml").unwrap();
        assert_eq!(c.latency(), 2);
        assert_eq!(c.tag(), "l32_at1_5");
        assert_eq!(UnitConfig::from_toml("", "u.toml").unwrap(), UnitConfig::default());
        let c = UnitConfig::from_toml(
            "pipeline_at = [0, 5]\npipeline_extra = [\"result\", \"front\"]\n",
            "u.toml",
        )
        .unwrap();
        assert_eq!((c.latency(), c.tag()), (4, "l32_at0_5_front_result".to_string()));
        let c =
            UnitConfig::from_toml("lanes = 8\npipeline_extra = [\"result\", \"root\"]\n", "u.toml")
                .unwrap();
        assert_eq!((c.latency(), c.tag()), (2, "l8_p0_root_result".to_string()));
        let r = c.registers();
        assert!(r.root && r.result && !r.front);
        let e = UnitConfig::from_toml("pipeline_extra = [\"front\", \"front\"]\n", "u.toml")
            .unwrap_err();
        assert_eq!(e.to_string(), "u.toml: pipeline_extra: \"front\" is listed twice");
        let e = UnitConfig::from_toml("pipeline_extra = [\"back\"]\n", "u.toml").unwrap_err();
        assert!(e.to_string().starts_with("u.toml:1:19: unknown variant `back`"), "{e}");
        // "pick": one register per tree level with a stage register (1..k-1), one for the last node
        let c = UnitConfig::from_toml(
            "pipeline_at = [0, 1, 2, 3, 4, 5]\npipeline_extra = [\"pick\"]\n",
            "u.toml",
        )
        .unwrap();
        assert_eq!((c.latency(), c.tag()), (6 + 5, "l32_at0_1_2_3_4_5_pick".to_string()));
        let c = UnitConfig::from_toml(
            "lanes = 8\npipeline_at = [2, 3]\npipeline_extra = [\"pick\", \"root\"]\n",
            "u.toml",
        )
        .unwrap();
        assert_eq!(c.latency(), 2 + 1 + 2);
        assert_eq!(
            UnitConfig::from_toml("pipeline_extra = [\"pick\"]\n", "u.toml").unwrap().latency(),
            1
        );
        // "input": one register at the blocks' ports
        let c = UnitConfig::from_toml(
            "lanes = 8\npipeline_at = [3]\npipeline_extra = [\"input\", \"pick\"]\n",
            "u.toml",
        )
        .unwrap();
        assert_eq!((c.latency(), c.tag()), (1 + 1 + 1, "l8_at3_pick_input".to_string()));
        assert!(c.registers().input && !UnitConfig::default().registers().input);
    }

    #[test]
    fn each_extra_sets_its_own_named_register() {
        for e in Extra::CANONICAL {
            let text = format!("lanes = 8\npipeline_extra = [\"{}\"]\n", e.name());
            let r = UnitConfig::from_toml(&text, "u.toml").unwrap().registers();
            for other in Extra::CANONICAL {
                assert_eq!(r.has(other), other == e, "{} sets {}", e.name(), other.name());
            }
            assert_eq!(r.after_level, [false; 6]);
            let x = r.extras();
            let ones = [x.front, x.root, x.result, x.pick, x.input];
            assert_eq!(ones.iter().sum::<usize>(), 1, "{}", e.name());
        }
        let r = UnitConfig::from_toml("pipeline_extra = [\"result\", \"root\"]\n", "u.toml")
            .unwrap()
            .registers();
        assert!(r.result && !r.of_reduce_in_unit().result && r.of_reduce_in_unit().root);
    }

    #[test]
    fn toml_text_reads_back_and_same_unit_compares_registers() {
        for text in ["", "lanes = 8\npipeline = 2\n", "pipeline_at = [0, 1, 2, 3, 4, 5]\npipeline_extra = [\"front\", \"root\", \"result\"]\n"] {
            let c = UnitConfig::from_toml(text, "u.toml").unwrap();
            assert_eq!(UnitConfig::from_toml(&c.to_toml(), "again").unwrap(), c, "{}", c.to_toml());
        }
        let even = UnitConfig::new(32, 2).unwrap();
        let at = UnitConfig::from_toml("pipeline_at = [3, 5]\n", "u.toml").unwrap();
        assert!(even.same_unit(&at) && at.same_unit(&even));
        assert!(!even.same_unit(&UnitConfig::new(32, 3).unwrap()));
        assert!(!even.same_unit(&UnitConfig::new(8, 2).unwrap()));
        let extra =
            UnitConfig::from_toml("pipeline = 2\npipeline_extra = [\"root\"]\n", "u.toml").unwrap();
        assert!(!even.same_unit(&extra));
    }

    #[test]
    fn pnr_hints_read_back_change_no_hardware_and_reject_unknown_values() {
        let text = "lanes = 32\npipeline_at = [0, 5]\n\n[pnr]\nrouter = \"router1\"\n";
        let c = UnitConfig::from_toml(text, "u.toml").unwrap();
        assert_eq!(c.pnr.router, Some(Router::Router1));
        assert_eq!(UnitConfig::from_toml(&c.to_toml(), "again").unwrap(), c);
        let plain = UnitConfig::from_toml("pipeline_at = [0, 5]\n", "u.toml").unwrap();
        assert_eq!(plain.pnr.router, None);
        assert!(!plain.to_toml().contains("pnr"));
        // the same hardware: one tag, one canonical form, and the canonical form drops the hint
        assert!(c.same_unit(&plain));
        assert_eq!(c.tag(), plain.tag());
        assert_eq!(c.canonical(), plain.canonical());
        let e = UnitConfig::from_toml("lanes = 8\n[pnr]\nrouter = \"router3\"\n", "u.toml")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("u.toml:3:10: unknown variant `router3`"), "{e}");
        assert!(e.contains("router1") && e.contains("router2"), "{e}");
        let e = UnitConfig::from_toml("lanes = 8\n[pnr]\nplacer = \"heap\"\n", "u.toml")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("u.toml:3:1: unknown field `placer`"), "{e}");
        assert_eq!("router2".parse::<Router>(), Ok(Router::Router2));
        assert!("sa".parse::<Router>().unwrap_err().contains("router1 or router2"));
    }

    #[test]
    fn crossbar_placement_reads_back_names_the_unit_and_rejects_unknown_values() {
        let text = "pipeline_at = [0, 1, 2, 3, 4, 5]\ncrossbar = \"compact\"\n";
        let c = UnitConfig::from_toml(text, "u.toml").unwrap();
        assert_eq!(c.crossbar, CrossbarRegisters::Compact);
        assert_eq!(c.registers().crossbar, CrossbarRegisters::Compact);
        assert_eq!(UnitConfig::from_toml(&c.to_toml(), "again").unwrap(), c);
        assert_eq!(c.tag(), "l32_at0_1_2_3_4_5_compact");
        assert_eq!(c.canonical().crossbar, CrossbarRegisters::Compact);
        let spread = UnitConfig::from_toml("pipeline_at = [0, 1, 2, 3, 4, 5]\n", "u.toml").unwrap();
        assert!(!c.same_unit(&spread));
        assert_eq!(c.latency(), spread.latency());
        // the default is not written back, and it is what an old file means
        assert!(!spread.to_toml().contains("crossbar"));
        assert_eq!(
            UnitConfig::from_toml(
                "pipeline_at = [0, 1, 2, 3, 4, 5]\ncrossbar = \"spread\"\n",
                "u.toml"
            )
            .unwrap()
            .registers(),
            spread.registers()
        );
        // without a register inside the trees there is nothing to place: the same unit
        let comb =
            UnitConfig::from_toml("pipeline_at = [5]\ncrossbar = \"compact\"\n", "u.toml").unwrap();
        assert!(comb.same_unit(&UnitConfig::new(32, 1).unwrap()));
        assert_eq!(comb.tag(), "l32_at5");
        let e = UnitConfig::from_toml("lanes = 8\ncrossbar = \"fast\"\n", "u.toml").unwrap_err();
        let e = e.to_string();
        assert!(e.starts_with("u.toml:2:12: unknown variant `fast`"), "{e}");
        assert!(e.contains("spread") && e.contains("compact"), "{e}");
    }

    #[test]
    fn reduction_nodes_read_back_name_the_unit_and_exclude_pick() {
        let text = "lanes = 8\npipeline_at = [1, 2, 3]\nreduction = \"compact\"\n";
        let c = UnitConfig::from_toml(text, "u.toml").unwrap();
        assert_eq!(c.registers().reduction, ReductionNodes::Compact);
        assert_eq!(UnitConfig::from_toml(&c.to_toml(), "again").unwrap(), c);
        assert_eq!(c.tag(), "l8_at1_2_3_rcompact");
        assert_eq!(c.canonical().reduction, ReductionNodes::Compact);
        let pair = UnitConfig::from_toml("lanes = 8\npipeline_at = [1, 2, 3]\n", "u.toml").unwrap();
        assert!(!c.same_unit(&pair) && !pair.to_toml().contains("reduction"));
        assert_eq!(c.latency(), pair.latency());
        // unlike the crossbar's placement, the node's form matters without registers too
        let comb = UnitConfig::from_toml("lanes = 8\nreduction = \"compact\"\n", "u.toml").unwrap();
        assert!(!comb.same_unit(&UnitConfig::new(8, 0).unwrap()));
        assert_eq!(comb.tag(), "l8_p0_rcompact");
        let e = UnitConfig::from_toml(
            "lanes = 8\npipeline = 3\npipeline_extra = [\"pick\"]\nreduction = \"compact\"\n",
            "u.toml",
        )
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("u.toml: pipeline_extra: \"pick\"") && e.contains("compact"), "{e}");
        let e = UnitConfig::from_toml("reduction = \"tiny\"\n", "u.toml").unwrap_err().to_string();
        assert!(e.starts_with("u.toml:1:13: unknown variant `tiny`"), "{e}");
        assert!(e.contains("pair") && e.contains("compact"), "{e}");
    }
}

//! `pisa_sg_reduce` — the reduction tree of `fred` and `ired` (PISA §7.1, §7.2).
//!
//! ```text
//!  src0_i[lane] ─► leaf (key transform, NaN/valid flags per 16-bit half) ─┐
//!                                                     ...  N leaves       ├─► node ─► [reg] ─► pick ─► ... log2(N) levels
//!  op_i ─► decode, one per 4 leaves (ctl) ────────────────────────────────┘      last node ─► pick ─► [root reg] ─► root ─► result_o
//! ```
//! One comparator serves every ordering: the leaf maps each value to an unsigned key — floats by
//! the sign-magnitude to biased transform (negative: all bits inverted; positive: sign bit set),
//! signed integers by flipping the sign bit, `absmax` by taking the magnitude — and inverts the
//! key for max, so every node keeps the smaller key and the root inverts it back. The datapath is
//! split at bit 16: each node orders the keys with one 34-bit subtraction (`b - a`, one carry
//! chain) that carries a break bit between the halves — clear, the chain's top borrow is the
//! 32-bit order; set, no borrow crosses and the halves decide on their own (packed `hfx2`/`bfx2`
//! and 16-bit types), the low one read at the break bit. Both outcomes of each output bit are
//! formed beside the chain, so the chain meets one LUT (the low half's verdict) and the node
//! ends: its output is both outcomes and the verdict (`RedPair`), and the 2:1 mux per bit that
//! picks one (`pisa_sg_reduce_pick`) follows the level's stage register. A node's cycle is then:
//! pick, route to the parent, compare chain, register; the verdict's fan-out to 32 mux LUTs
//! starts the next cycle. (On ECP5 at 8 lanes a node level took 8.6 ns with five 16-bit
//! comparators, 7.5 ns with two chains `a - b`, `b - a`, 7.1 ns with one chain and three LUT
//! levels after it, 8.7 ns with the pick before the register on placer seed 1, 5 ns of it
//! routing.) The pick and the mux that puts the sum in place for `ired.sum`
//! (`pisa_sg_reduce_sumsel`) are modules of their own, because synthesis with the hierarchy kept
//! maps each module apart and ABC, blind to the carry chains' late outputs, otherwise put 3-4
//! LUT levels after them. Each half carries a valid flag (a participating
//! non-NaN value is present) and a NaN flag; the root decodes the key, substitutes the canonical
//! NaN (0x7FFFFFFF / 0x7FFF per half) where the NaN rule asks, and zero-extends 16-bit results.
//! `sum`/`and`/`or`/`xor` use the same tree with the node's adder or bitwise unit.
//!
//! With `reduction = "compact"` (`crate::config::ReductionNodes`) each node is
//! `pisa_sg_reduce_node_compact` ([`ReduceNodeCompact`]): the same compare chain and the same
//! result, formed as one word (three LUTs per output bit after the chains) before the level's
//! stage register, which then holds the value ([`RedNode`]) instead of the pair; there is no
//! pick. A node's cycle is its route in, its compare chain, the take decision and the output
//! mux. The 32-lane reduction on ECP5: 6,274 LUT4 and 4,060 FF against 10,351 and 5,080 with
//! pairs (`pisa synth --target ecp5 --block reduce --no-baseline` with `--preset small` and with
//! `--config fpga/configs/small_pair.toml`).
//!
//! Latency: combinational, plus one cycle per enabled stage boundary: `0` registers the operands
//! and the decoded controls before the leaves, `1 <= b < K` follows tree level `b`'s compare
//! (before its pick; the unit registers boundary `K`), plus one for each `pipeline_extra`
//! register: `front` after the leaves, `root` between the last node's pick and the root (the
//! root's decoding and the broadcast of its result get a cycle of their own), `result` after
//! the root (in the unit, with `root`, one `root` register and root per four lanes:
//! `results_o`, so no root drives every lane's output mux); `input` registers `op_i` (one copy
//! per decoder), the participation mask and the operands at the ports; `pick` adds a register
//! after the picks of every level `1 <= b < K` that has a stage register and one before the
//! last node's pick (`Registers::pick_cycles` cycles), so a node's
//! cycle is its route in, its compare chain and one LUT (8 lanes, every boundary: the worst
//! path from 7.2-7.3 ns, the last node and its pick, to 5.8-6.4 ns). `op_i` is decoded once per
//! four leaves (`pisa_sg_reduce_decode`) and the controls are registered as one copy per leaf
//! and one per node (a copy feeds its node and the register of the parent's copy), so neither a
//! decoder nor a control flip-flop fans out across the tree. Parameters: `N` lanes,
//! `K = log2(N)`, `W = 32 * N`.

use rust_hdl::prelude::*;

mod decode;
mod leaf;
mod node;
mod node_compact;
mod pick;
mod root;
mod sumsel;
mod tree;

pub use decode::ReduceDecode;
pub use leaf::ReduceLeaf;
pub use node::ReduceNode;
pub use node_compact::ReduceNodeCompact;
pub use pick::ReducePick;
pub use root::ReduceRoot;
pub use sumsel::ReduceSumSel;
pub use tree::Reduce;

/// Decoded controls of one reduction.
#[derive(Copy, Clone, PartialEq, Debug, Default, LogicStruct)]
pub struct RedCtl {
    /// min/max/absmax family (else `arith`).
    pub minmax: Bit,
    /// keep the larger key.
    pub max: Bit,
    /// the two 16-bit halves are independent.
    pub split: Bit,
    pub flt: Bit,
    /// bfloat16 (else binary16) NaN test for 16-bit floats.
    pub bf: Bit,
    pub abs: Bit,
    pub signed: Bit,
    pub nanp: Bit,
    /// zero-extend a 16-bit result.
    pub w16: Bit,
    /// sum = 0, and = 1, or = 2, xor = 3.
    pub arith: Bits<2>,
}

/// A tree value: the key (or operand) and per-half flags.
#[derive(Copy, Clone, PartialEq, Debug, Default, LogicStruct)]
pub struct RedNode {
    pub val: Bits<32>,
    /// A participating non-NaN value is present in the low / high half.
    pub vlo: Bit,
    pub vhi: Bit,
    /// A participating NaN is present in the low / high half.
    pub nlo: Bit,
    pub nhi: Bit,
}

/// A node's result before its output mux ([`ReducePick`]): both outcomes and the compare's
/// verdict. The stage registers inside the tree hold this, so the compare chain ends at a
/// register and the pick starts the next cycle.
#[derive(Copy, Clone, PartialEq, Debug, Default, LogicStruct)]
pub struct RedPair {
    /// The output word when `b` is better / when it is not.
    pub o1: Bits<32>,
    pub o0: Bits<32>,
    /// `b` is better in the high / low half.
    pub hi: Bit,
    pub lo: Bit,
    /// The node's output flags (see [`RedNode`]).
    pub vlo: Bit,
    pub vhi: Bit,
    pub nlo: Bit,
    pub nhi: Bit,
}

pub(crate) fn k32(v: u64) -> Constant<Bits<32>> {
    Constant::new(v.into())
}

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
//! Latency: combinational, plus one cycle per enabled stage boundary: `0` registers the operands
//! and the decoded controls before the leaves, `1 <= b < K` follows tree level `b`'s compare
//! (before its pick; the unit registers boundary `K`), plus one for each `pipeline_extra`
//! register: `front` after the leaves, `root` between the last node's pick and the root (the
//! root's decoding and the broadcast of its result get a cycle of their own), `result` after
//! the root (in the unit, with `root`, one `root` register and root per four lanes:
//! `results_o`, so no root drives every lane's output mux); `input` registers `op_i` (one copy
//! per decoder), the participation mask and the operands at the ports; `pick` adds a register
//! after the picks of every level `1 <= b < K` that has a stage register and one before the
//! last node's pick (`config::pick_cycles` cycles), so a node's
//! cycle is its route in, its compare chain and one LUT (8 lanes, every boundary: the worst
//! path from 7.2-7.3 ns, the last node and its pick, to 5.8-6.4 ns). `op_i` is decoded once per
//! four leaves (`pisa_sg_reduce_decode`) and the controls are registered as one copy per leaf
//! and one per node (a copy feeds its node and the register of the parent's copy), so neither a
//! decoder nor a control flip-flop fans out across the tree. Parameters: `N` lanes,
//! `K = log2(N)`, `W = 32 * N`.

use rust_hdl::prelude::*;

use pisa_model::float::{BF16, F16, F32};

use crate::config::{Extras, Registers};
use crate::prims::{many, on, Param, PipeReg};

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

fn k32(v: u64) -> Constant<Bits<32>> {
    Constant::new(v.into())
}

/// `pisa_sg_reduce_decode`: the reduction's controls from `op_i` (only its `fred`/`ired` fields
/// matter). Combinational. The reduction holds one per four leaves, so each copy of the decoded
/// controls is formed beside the leaves it feeds (one decoder for all 32 leaves put its output
/// on a 4.3 ns route across the die, the 32-lane unit's worst path).
#[derive(LogicBlock)]
pub struct ReduceDecode {
    pub op_i: Signal<In, Bits<8>>,
    pub ctl_o: Signal<Out, RedCtl>,
    class_fred: Constant<Bits<2>>,
    f_min: Constant<Bits<2>>,
    f_absmax: Constant<Bits<2>>,
    t_f: Constant<Bits<3>>,
    t_hf: Constant<Bits<3>>,
    t_bf: Constant<Bits<3>>,
    t_bfx2: Constant<Bits<3>>,
    i_sum: Constant<Bits<4>>,
    i_smin: Constant<Bits<4>>,
    i_smax: Constant<Bits<4>>,
    i_umax: Constant<Bits<4>>,
    i_and: Constant<Bits<4>>,
    i_or: Constant<Bits<4>>,
    i_xor: Constant<Bits<4>>,
    i_absmax: Constant<Bits<4>>,
    a_sum: Constant<Bits<2>>,
    a_and: Constant<Bits<2>>,
    a_or: Constant<Bits<2>>,
    a_xor: Constant<Bits<2>>,
}

impl Default for ReduceDecode {
    fn default() -> Self {
        let c2 = |v: u64| Constant::<Bits<2>>::new(v.into());
        let c3 = |v: u64| Constant::<Bits<3>>::new(v.into());
        let c4 = |v: u64| Constant::<Bits<4>>::new(v.into());
        ReduceDecode {
            op_i: Default::default(),
            ctl_o: Default::default(),
            class_fred: c2(1),
            f_min: c2(0),
            f_absmax: c2(2),
            t_f: c3(0),
            t_hf: c3(1),
            t_bf: c3(2),
            t_bfx2: c3(4),
            i_sum: c4(0),
            i_smin: c4(1),
            i_smax: c4(2),
            i_umax: c4(4),
            i_and: c4(5),
            i_or: c4(6),
            i_xor: c4(7),
            i_absmax: c4(8),
            a_sum: c2(0),
            a_and: c2(1),
            a_or: c2(2),
            a_xor: c2(3),
        }
    }
}

impl Logic for ReduceDecode {
    #[hdl_gen]
    fn update(&mut self) {
        // op_i layout: see pisa_model::op
        self.ctl_o.next.nanp = false;
        self.ctl_o.next.bf = false;
        self.ctl_o.next.signed = false;
        self.ctl_o.next.abs = false;
        self.ctl_o.next.arith = self.a_sum.val();
        if self.op_i.val().get_bits::<2>(6) == self.class_fred.val() {
            self.ctl_o.next.minmax = true;
            self.ctl_o.next.flt = true;
            self.ctl_o.next.max = self.op_i.val().get_bits::<2>(0) != self.f_min.val();
            self.ctl_o.next.abs = self.op_i.val().get_bits::<2>(0) == self.f_absmax.val();
            self.ctl_o.next.nanp = self.op_i.val().get_bit(2);
            self.ctl_o.next.split = self.op_i.val().get_bits::<3>(3) != self.t_f.val();
            self.ctl_o.next.bf = (self.op_i.val().get_bits::<3>(3) == self.t_bf.val())
                || (self.op_i.val().get_bits::<3>(3) == self.t_bfx2.val());
            self.ctl_o.next.w16 = (self.op_i.val().get_bits::<3>(3) == self.t_hf.val())
                || (self.op_i.val().get_bits::<3>(3) == self.t_bf.val());
        } else {
            self.ctl_o.next.flt = false;
            self.ctl_o.next.w16 = self.op_i.val().get_bit(4);
            self.ctl_o.next.minmax = (self.op_i.val().get_bits::<4>(0) != self.i_sum.val())
                && (self.op_i.val().get_bits::<4>(0) != self.i_and.val())
                && (self.op_i.val().get_bits::<4>(0) != self.i_or.val())
                && (self.op_i.val().get_bits::<4>(0) != self.i_xor.val());
            self.ctl_o.next.split = self.op_i.val().get_bit(4)
                && (self.op_i.val().get_bits::<4>(0) != self.i_sum.val())
                && (self.op_i.val().get_bits::<4>(0) != self.i_and.val())
                && (self.op_i.val().get_bits::<4>(0) != self.i_or.val())
                && (self.op_i.val().get_bits::<4>(0) != self.i_xor.val());
            self.ctl_o.next.max = (self.op_i.val().get_bits::<4>(0) == self.i_smax.val())
                || (self.op_i.val().get_bits::<4>(0) == self.i_umax.val())
                || (self.op_i.val().get_bits::<4>(0) == self.i_absmax.val());
            self.ctl_o.next.signed = (self.op_i.val().get_bits::<4>(0) == self.i_smin.val())
                || (self.op_i.val().get_bits::<4>(0) == self.i_smax.val());
            self.ctl_o.next.abs = self.op_i.val().get_bits::<4>(0) == self.i_absmax.val();
            if self.op_i.val().get_bits::<4>(0) == self.i_and.val() {
                self.ctl_o.next.arith = self.a_and.val();
            } else if self.op_i.val().get_bits::<4>(0) == self.i_or.val() {
                self.ctl_o.next.arith = self.a_or.val();
            } else if self.op_i.val().get_bits::<4>(0) == self.i_xor.val() {
                self.ctl_o.next.arith = self.a_xor.val();
            }
        }
    }
}

/// `pisa_sg_reduce_leaf`: one lane's key and flags.
///
/// Every key transform is the operand, or its negation (integer `absmax` of a negative value),
/// XORed with a mask that is constant over four segments of the word — bits 14:0, 15, 30:16 and
/// 31 — and depends only on the controls and the two sign bits: one LUT per key bit after the
/// negation's carry chain, its mask bit formed from narrow inputs beside it. (The if-chain over
/// the forms it replaces mapped to three or four LUT levels per bit.) The mask per segment:
///
/// | form | 14:0 | 15 | 30:16 | 31 |
/// |---|---|---|---|---|
/// | sum/and/or/xor, unsigned min/max | 0 | 0 | 0 | 0 |
/// | f32 | s | s | s | a ? !x31 : 1 |
/// | f16x2 / bf16x2 / 16-bit float | l | a ? !x15 : 1 | h | a ? !x31 : 1 |
/// | signed 32 / 16 | 0 | 0 / 1 | 0 | 1 / 0 |
/// | integer absmax | 0 | 0 | 0 | 0 (negated when negative) |
///
/// (`a`: absmax, whose magnitude clears the sign bits; `s = h = !a && x31`, `l = !a && x15`:
/// a negative float inverts its magnitude bits.) For max every mask bit is inverted, so the
/// nodes always keep the smaller key.
#[derive(LogicBlock)]
pub struct ReduceLeaf {
    pub x_i: Signal<In, Bits<32>>,
    pub part_i: Signal<In, Bit>,
    pub ctl_i: Signal<In, RedCtl>,
    pub leaf_o: Signal<Out, RedNode>,
    one: Constant<Bits<32>>,
    zero: Constant<Bits<32>>,
    mag32: Constant<Bits<32>>,
    inf32: Constant<Bits<32>>,
    mag_lo: Constant<Bits<32>>,
    mag_hi: Constant<Bits<32>>,
    hf_inf_lo: Constant<Bits<32>>,
    hf_inf_hi: Constant<Bits<32>>,
    bf_inf_lo: Constant<Bits<32>>,
    bf_inf_hi: Constant<Bits<32>>,
    /// The four mask segments as words.
    seg_lo: Constant<Bits<32>>,
    seg_15: Constant<Bits<32>>,
    seg_hi: Constant<Bits<32>>,
    seg_31: Constant<Bits<32>>,
    neg: Signal<Local, Bits<32>>,
    nan_lo: Signal<Local, Bit>,
    nan_hi: Signal<Local, Bit>,
    nan32: Signal<Local, Bit>,
    /// A negative float (sign bit set, not absmax) in the high / low half.
    s_hi: Signal<Local, Bit>,
    s_lo: Signal<Local, Bit>,
    /// The mask bit of each segment (before the inversion for max), and whether the key starts
    /// from the negation.
    m_lo: Signal<Local, Bit>,
    m_15: Signal<Local, Bit>,
    m_hi: Signal<Local, Bit>,
    m_31: Signal<Local, Bit>,
    use_neg: Signal<Local, Bit>,
    w_lo: Signal<Local, Bits<32>>,
    w_15: Signal<Local, Bits<32>>,
    w_hi: Signal<Local, Bits<32>>,
    w_31: Signal<Local, Bits<32>>,
    base: Signal<Local, Bits<32>>,
}

impl Default for ReduceLeaf {
    fn default() -> Self {
        ReduceLeaf {
            x_i: Default::default(),
            part_i: Default::default(),
            ctl_i: Default::default(),
            leaf_o: Default::default(),
            one: k32(1),
            zero: k32(0),
            // the formats' constants from the model (pisa_model::float), per 16-bit half
            mag32: k32(F32.magnitude.into()),
            inf32: k32(F32.infinity.into()),
            mag_lo: k32(F16.magnitude.into()),
            mag_hi: k32(u64::from(F16.magnitude) << 16),
            hf_inf_lo: k32(F16.infinity.into()),
            hf_inf_hi: k32(u64::from(F16.infinity) << 16),
            bf_inf_lo: k32(BF16.infinity.into()),
            bf_inf_hi: k32(u64::from(BF16.infinity) << 16),
            seg_lo: k32(F16.magnitude.into()),
            seg_15: k32(F16.sign.into()),
            seg_hi: k32(u64::from(F16.magnitude) << 16),
            seg_31: k32(F32.sign.into()),
            neg: Default::default(),
            nan_lo: Default::default(),
            nan_hi: Default::default(),
            nan32: Default::default(),
            s_hi: Default::default(),
            s_lo: Default::default(),
            m_lo: Default::default(),
            m_15: Default::default(),
            m_hi: Default::default(),
            m_31: Default::default(),
            use_neg: Default::default(),
            w_lo: Default::default(),
            w_15: Default::default(),
            w_hi: Default::default(),
            w_31: Default::default(),
            base: Default::default(),
        }
    }
}

impl Logic for ReduceLeaf {
    #[hdl_gen]
    fn update(&mut self) {
        self.neg.next = !self.x_i.val() + self.one.val();
        // NaN tests on the operand (the magnitude masks ignore the sign bits)
        self.nan32.next = (self.x_i.val() & self.mag32.val()) > self.inf32.val();
        if self.ctl_i.val().bf {
            self.nan_lo.next = (self.x_i.val() & self.mag_lo.val()) > self.bf_inf_lo.val();
            self.nan_hi.next = (self.x_i.val() & self.mag_hi.val()) > self.bf_inf_hi.val();
        } else {
            self.nan_lo.next = (self.x_i.val() & self.mag_lo.val()) > self.hf_inf_lo.val();
            self.nan_hi.next = (self.x_i.val() & self.mag_hi.val()) > self.hf_inf_hi.val();
        }
        // flags: a participating value; for floats, NaN or not per half
        self.leaf_o.next.vlo = self.part_i.val();
        self.leaf_o.next.vhi = self.part_i.val();
        self.leaf_o.next.nlo = false;
        self.leaf_o.next.nhi = false;
        if self.ctl_i.val().minmax && self.ctl_i.val().flt && !self.ctl_i.val().split {
            self.leaf_o.next.vlo = self.part_i.val() && !self.nan32.val();
            self.leaf_o.next.vhi = self.part_i.val() && !self.nan32.val();
            self.leaf_o.next.nlo = self.part_i.val() && self.nan32.val();
            self.leaf_o.next.nhi = self.part_i.val() && self.nan32.val();
        } else if self.ctl_i.val().minmax && self.ctl_i.val().flt {
            self.leaf_o.next.vlo = self.part_i.val() && !self.nan_lo.val();
            self.leaf_o.next.vhi = self.part_i.val() && !self.nan_hi.val();
            self.leaf_o.next.nlo = self.part_i.val() && self.nan_lo.val();
            self.leaf_o.next.nhi = self.part_i.val() && self.nan_hi.val();
        }
        // the mask per segment (see the table above)
        self.s_hi.next = !self.ctl_i.val().abs && self.x_i.val().get_bit(31);
        self.s_lo.next = !self.ctl_i.val().abs && self.x_i.val().get_bit(15);
        self.m_lo.next = false;
        self.m_15.next = false;
        self.m_hi.next = false;
        self.m_31.next = false;
        self.use_neg.next = false;
        if !self.ctl_i.val().minmax {
            self.m_lo.next = false;
        } else if self.ctl_i.val().flt && !self.ctl_i.val().split {
            self.m_lo.next = self.s_hi.val();
            self.m_15.next = self.s_hi.val();
            self.m_hi.next = self.s_hi.val();
            self.m_31.next = !self.ctl_i.val().abs || !self.x_i.val().get_bit(31);
        } else if self.ctl_i.val().flt {
            self.m_lo.next = self.s_lo.val();
            self.m_15.next = !self.ctl_i.val().abs || !self.x_i.val().get_bit(15);
            self.m_hi.next = self.s_hi.val();
            self.m_31.next = !self.ctl_i.val().abs || !self.x_i.val().get_bit(31);
        } else if self.ctl_i.val().abs {
            self.use_neg.next = (self.ctl_i.val().split && self.x_i.val().get_bit(15))
                || (!self.ctl_i.val().split && self.x_i.val().get_bit(31));
        } else if self.ctl_i.val().signed {
            self.m_15.next = self.ctl_i.val().split;
            self.m_31.next = !self.ctl_i.val().split;
        }
        // max keeps the larger key: invert every mask bit, so the nodes always keep the smaller one
        if self.m_lo.val() ^ (self.ctl_i.val().minmax && self.ctl_i.val().max) {
            self.w_lo.next = self.seg_lo.val();
        } else {
            self.w_lo.next = self.zero.val();
        }
        if self.m_15.val() ^ (self.ctl_i.val().minmax && self.ctl_i.val().max) {
            self.w_15.next = self.seg_15.val();
        } else {
            self.w_15.next = self.zero.val();
        }
        if self.m_hi.val() ^ (self.ctl_i.val().minmax && self.ctl_i.val().max) {
            self.w_hi.next = self.seg_hi.val();
        } else {
            self.w_hi.next = self.zero.val();
        }
        if self.m_31.val() ^ (self.ctl_i.val().minmax && self.ctl_i.val().max) {
            self.w_31.next = self.seg_31.val();
        } else {
            self.w_31.next = self.zero.val();
        }
        if self.use_neg.val() {
            self.base.next = self.neg.val();
        } else {
            self.base.next = self.x_i.val();
        }
        self.leaf_o.next.val = self.base.val()
            ^ (self.w_lo.val() | self.w_15.val() | self.w_hi.val() | self.w_31.val());
    }
}

/// `pisa_sg_reduce_sumsel`: puts the sum `a + b` in place of both outcomes `o1`, `o0` when it is
/// the node's result (ired.sum, both values participating), for one byte of the word.
/// Combinational; a module of its own like [`ReducePick`], so the sum's carry chain meets one LUT
/// here before the stage register. A node has four, each deciding `use_sum` itself from the
/// operation and both valid flags: one `use_sum` LUT for the whole word fanned out to 64 mux
/// LUTs and was the worst path of the 32-lane unit on ECP5 (7.78 ns, seed 2: 3.44 ns from the
/// flag register to it, 2.82 ns from it to the muxes).
#[derive(LogicBlock, Default)]
pub struct ReduceSumSel {
    pub o1_i: Signal<In, Bits<8>>,
    pub o0_i: Signal<In, Bits<8>>,
    pub sum_i: Signal<In, Bits<8>>,
    /// ired.sum (the node's controls).
    pub is_sum_i: Signal<In, Bit>,
    /// `a` and `b` hold a participating value.
    pub a_v_i: Signal<In, Bit>,
    pub b_v_i: Signal<In, Bit>,
    pub o1_o: Signal<Out, Bits<8>>,
    pub o0_o: Signal<Out, Bits<8>>,
    use_sum: Signal<Local, Bit>,
}

impl Logic for ReduceSumSel {
    #[hdl_gen]
    fn update(&mut self) {
        self.use_sum.next = self.is_sum_i.val() && self.a_v_i.val() && self.b_v_i.val();
        if self.use_sum.val() {
            self.o1_o.next = self.sum_i.val();
            self.o0_o.next = self.sum_i.val();
        } else {
            self.o1_o.next = self.o1_i.val();
            self.o0_o.next = self.o0_i.val();
        }
    }
}

/// `pisa_sg_reduce_pick`: a node's output mux, `o1` where `b` is better and `o0` where it is
/// not, per half; the flags pass through. It sits after the node's stage register (when the
/// configuration has one at that level; the last node's pick comes before the `root` register,
/// so the root's cycle is its decoding and the result's fan-out), so a node's cycle is: pick, route to the parent node,
/// compare chain, one LUT (the low half's verdict), register — the chain's verdict fans out to
/// 32 mux LUTs only after the register. A module of its own so that synthesis with the hierarchy
/// kept (fpga/synth.sh `-noflatten`) maps it apart. Combinational.
#[derive(LogicBlock)]
pub struct ReducePick {
    pub pair_i: Signal<In, RedPair>,
    pub val_o: Signal<Out, RedNode>,
    m_hi: Constant<Bits<32>>,
    m_lo: Constant<Bits<32>>,
    /// The whole word switched by one half's flag (the other half is not used).
    w_hi: Signal<Local, Bits<32>>,
    w_lo: Signal<Local, Bits<32>>,
}

impl Default for ReducePick {
    fn default() -> Self {
        ReducePick {
            pair_i: Default::default(),
            val_o: Default::default(),
            m_hi: k32(0xFFFF_0000),
            m_lo: k32(0x0000_FFFF),
            w_hi: Default::default(),
            w_lo: Default::default(),
        }
    }
}

impl Logic for ReducePick {
    #[hdl_gen]
    fn update(&mut self) {
        if self.pair_i.val().hi {
            self.w_hi.next = self.pair_i.val().o1;
        } else {
            self.w_hi.next = self.pair_i.val().o0;
        }
        if self.pair_i.val().lo {
            self.w_lo.next = self.pair_i.val().o1;
        } else {
            self.w_lo.next = self.pair_i.val().o0;
        }
        self.val_o.next.val =
            (self.w_hi.val() & self.m_hi.val()) | (self.w_lo.val() & self.m_lo.val());
        self.val_o.next.vlo = self.pair_i.val().vlo;
        self.val_o.next.vhi = self.pair_i.val().vhi;
        self.val_o.next.nlo = self.pair_i.val().nlo;
        self.val_o.next.nhi = self.pair_i.val().nhi;
    }
}

/// `pisa_sg_reduce_node`: combines two tree values.
///
/// The leaves invert the keys for max, so a node always keeps the smaller key. The order is one
/// 34-bit subtraction (one carry chain) of the keys with a break bit between the halves,
/// `{0, b_hi, p, b_lo} - {0, a_hi, 0, a_lo}`, where `p = split`. With `p = 1` no borrow crosses
/// into the high half, so the top bit is the 16-bit high compare `b_hi < a_hi`, and the
/// difference bit at the break is `!(b_lo < a_lo)`; with `p = 0` the top bit is the 32-bit
/// compare. Both outcomes of every output bit are formed beside the chain (`b` better or not,
/// with the valid flags and the sum/and/or/xor); the node's output is that pair and the verdict
/// ([`RedPair`]): the chain meets one LUT (the low half's verdict) and the stage register, and
/// the 2:1 mux per bit ([`ReducePick`]) follows the register.
#[derive(LogicBlock)]
pub struct ReduceNode {
    pub a_i: Signal<In, RedNode>,
    pub b_i: Signal<In, RedNode>,
    pub ctl_i: Signal<In, RedCtl>,
    pub out_o: Signal<Out, RedPair>,
    arith_and: Constant<Bits<2>>,
    arith_or: Constant<Bits<2>>,
    arith_sum: Constant<Bits<2>>,
    m_none: Constant<Bits<32>>,
    m_lo: Constant<Bits<32>>,
    m_hi: Constant<Bits<32>>,
    m_all: Constant<Bits<32>>,
    brk_on: Constant<Bits<34>>,
    brk_off: Constant<Bits<34>>,
    /// The break bit `p` (bit 16): set when the halves are independent.
    brk: Signal<Local, Bits<34>>,
    /// Keys spread to 34 bits, `{0, hi, 0, lo}`.
    ea: Signal<Local, Bits<34>>,
    eb: Signal<Local, Bits<34>>,
    /// `{0, b_hi, p, b_lo} - {0, a_hi, 0, a_lo}`.
    dba: Signal<Local, Bits<34>>,
    /// `b`'s key is smaller in the low / high half.
    better_lo: Signal<Local, Bit>,
    better_hi: Signal<Local, Bit>,
    /// Take `b` in the low / high half when `b` is better (`t1`) and when it is not (`t0`).
    t1_lo: Signal<Local, Bit>,
    t1_hi: Signal<Local, Bit>,
    t0_lo: Signal<Local, Bit>,
    t0_hi: Signal<Local, Bit>,
    /// The same as bit masks.
    take1: Signal<Local, Bits<32>>,
    take0: Signal<Local, Bits<32>>,
    /// The sum in place of both outcomes, one per byte.
    sumsel: Vec<ReduceSumSel>,
    /// `a` and `b` combined by the and/or/xor of `ctl_i.arith` (the sum: `sum`).
    arith: Signal<Local, Bits<32>>,
    /// `a + b`, and whether the operation is ired.sum (each sumsel slice adds: both values
    /// participating).
    sum: Signal<Local, Bits<32>>,
    is_sum: Signal<Local, Bit>,
    /// What a half holds when it does not take `b`.
    keep: Signal<Local, Bits<32>>,
    /// The output word when `b` is better / when it is not.
    o1: Signal<Local, Bits<32>>,
    o0: Signal<Local, Bits<32>>,
}

impl Default for ReduceNode {
    fn default() -> Self {
        ReduceNode {
            a_i: Default::default(),
            b_i: Default::default(),
            ctl_i: Default::default(),
            out_o: Default::default(),
            arith_and: Constant::new(1u64.into()),
            arith_or: Constant::new(2u64.into()),
            arith_sum: Constant::new(0u64.into()),
            m_none: k32(0),
            m_lo: k32(0x0000_FFFF),
            m_hi: k32(0xFFFF_0000),
            m_all: k32(0xFFFF_FFFF),
            brk_on: Constant::new((1u64 << 16).into()),
            brk_off: Constant::new(0u64.into()),
            brk: Default::default(),
            ea: Default::default(),
            eb: Default::default(),
            dba: Default::default(),
            better_lo: Default::default(),
            better_hi: Default::default(),
            t1_lo: Default::default(),
            t1_hi: Default::default(),
            t0_lo: Default::default(),
            t0_hi: Default::default(),
            take1: Default::default(),
            take0: Default::default(),
            sumsel: (0..4).map(|_| ReduceSumSel::default()).collect(),
            arith: Default::default(),
            sum: Default::default(),
            is_sum: Default::default(),
            keep: Default::default(),
            o1: Default::default(),
            o0: Default::default(),
        }
    }
}

impl Logic for ReduceNode {
    #[hdl_gen]
    fn update(&mut self) {
        // the compare chain
        if self.ctl_i.val().split {
            self.brk.next = self.brk_on.val();
        } else {
            self.brk.next = self.brk_off.val();
        }
        self.ea.next = (bit_cast::<34, 16>(self.a_i.val().val.get_bits::<16>(16)) << 17)
            | bit_cast::<34, 16>(self.a_i.val().val.get_bits::<16>(0));
        self.eb.next = (bit_cast::<34, 16>(self.b_i.val().val.get_bits::<16>(16)) << 17)
            | bit_cast::<34, 16>(self.b_i.val().val.get_bits::<16>(0));
        self.dba.next = (self.eb.val() | self.brk.val()) - self.ea.val();
        // is b's key smaller? the top borrow is the high-half or the 32-bit order; the low half's
        // borrow shows at the break bit (difference bit 16 = p ^ borrow)
        self.better_hi.next = self.dba.val().get_bit(33);
        if self.ctl_i.val().split {
            self.better_lo.next = !self.dba.val().get_bit(16);
        } else {
            self.better_lo.next = self.dba.val().get_bit(33);
        }
        // take b: min/max: a half with no valid value on the left, or a better valid b;
        // sum/and/or/xor: a has no participating value
        if self.ctl_i.val().minmax {
            self.t1_lo.next = !self.a_i.val().vlo || self.b_i.val().vlo;
            self.t1_hi.next = !self.a_i.val().vhi || self.b_i.val().vhi;
            self.t0_lo.next = !self.a_i.val().vlo;
            self.t0_hi.next = !self.a_i.val().vhi;
        } else {
            self.t1_lo.next = !self.a_i.val().vlo;
            self.t1_hi.next = !self.a_i.val().vlo;
            self.t0_lo.next = !self.a_i.val().vlo;
            self.t0_hi.next = !self.a_i.val().vlo;
        }
        if self.t1_hi.val() && self.t1_lo.val() {
            self.take1.next = self.m_all.val();
        } else if self.t1_hi.val() {
            self.take1.next = self.m_hi.val();
        } else if self.t1_lo.val() {
            self.take1.next = self.m_lo.val();
        } else {
            self.take1.next = self.m_none.val();
        }
        if self.t0_hi.val() && self.t0_lo.val() {
            self.take0.next = self.m_all.val();
        } else if self.t0_hi.val() {
            self.take0.next = self.m_hi.val();
        } else if self.t0_lo.val() {
            self.take0.next = self.m_lo.val();
        } else {
            self.take0.next = self.m_none.val();
        }
        // otherwise: a (min/max, or b has no participating value), or the combined operands
        if self.ctl_i.val().arith == self.arith_and.val() {
            self.arith.next = self.a_i.val().val & self.b_i.val().val;
        } else if self.ctl_i.val().arith == self.arith_or.val() {
            self.arith.next = self.a_i.val().val | self.b_i.val().val;
        } else {
            self.arith.next = self.a_i.val().val ^ self.b_i.val().val;
        }
        // the sum's carry chain goes to one mux (sumsel) before the register: with both values
        // participating it is the result, otherwise one value passes through
        self.sum.next = self.a_i.val().val + self.b_i.val().val;
        self.is_sum.next =
            !self.ctl_i.val().minmax && (self.ctl_i.val().arith == self.arith_sum.val());
        if self.ctl_i.val().minmax || !self.b_i.val().vlo {
            self.keep.next = self.a_i.val().val;
        } else {
            self.keep.next = self.arith.val();
        }
        self.o1.next =
            (self.keep.val() & !self.take1.val()) | (self.b_i.val().val & self.take1.val());
        self.o0.next =
            (self.keep.val() & !self.take0.val()) | (self.b_i.val().val & self.take0.val());
        // the chains end here: the sum in one LUT (sumsel), the verdict in at most one
        for q in 0..4 {
            self.sumsel[q].o1_i.next = self.o1.val().get_bits::<8>(8 * q);
            self.sumsel[q].o0_i.next = self.o0.val().get_bits::<8>(8 * q);
            self.sumsel[q].sum_i.next = self.sum.val().get_bits::<8>(8 * q);
            self.sumsel[q].is_sum_i.next = self.is_sum.val();
            self.sumsel[q].a_v_i.next = self.a_i.val().vlo;
            self.sumsel[q].b_v_i.next = self.b_i.val().vlo;
        }
        self.out_o.next.o1 = bit_cast::<32, 8>(self.sumsel[0].o1_o.val().get_bits::<8>(0))
            | (bit_cast::<32, 8>(self.sumsel[1].o1_o.val().get_bits::<8>(0)) << 8)
            | (bit_cast::<32, 8>(self.sumsel[2].o1_o.val().get_bits::<8>(0)) << 16)
            | (bit_cast::<32, 8>(self.sumsel[3].o1_o.val().get_bits::<8>(0)) << 24);
        self.out_o.next.o0 = bit_cast::<32, 8>(self.sumsel[0].o0_o.val().get_bits::<8>(0))
            | (bit_cast::<32, 8>(self.sumsel[1].o0_o.val().get_bits::<8>(0)) << 8)
            | (bit_cast::<32, 8>(self.sumsel[2].o0_o.val().get_bits::<8>(0)) << 16)
            | (bit_cast::<32, 8>(self.sumsel[3].o0_o.val().get_bits::<8>(0)) << 24);
        self.out_o.next.hi = self.better_hi.val();
        self.out_o.next.lo = self.better_lo.val();
        self.out_o.next.vlo = self.a_i.val().vlo || self.b_i.val().vlo;
        self.out_o.next.vhi = self.a_i.val().vhi || self.b_i.val().vhi;
        self.out_o.next.nlo = self.a_i.val().nlo || self.b_i.val().nlo;
        self.out_o.next.nhi = self.a_i.val().nhi || self.b_i.val().nhi;
    }
}

/// `pisa_sg_reduce_root`: decodes the final key into the result.
#[derive(LogicBlock)]
pub struct ReduceRoot {
    pub root_i: Signal<In, RedNode>,
    pub ctl_i: Signal<In, RedCtl>,
    pub result_o: Signal<Out, Bits<32>>,
    sign32: Constant<Bits<32>>,
    ones32: Constant<Bits<32>>,
    canon32: Constant<Bits<32>>,
    canon16x2: Constant<Bits<32>>,
    sign16: Constant<Bits<32>>,
    low16: Constant<Bits<32>>,
    /// XOR masks of the inverse 16-bit key transform, by (high key msb, low key msb).
    unflip_11: Constant<Bits<32>>,
    unflip_10: Constant<Bits<32>>,
    unflip_01: Constant<Bits<32>>,
    unflip_00: Constant<Bits<32>>,
    m_none: Constant<Bits<32>>,
    m_lo: Constant<Bits<32>>,
    m_hi: Constant<Bits<32>>,
    m_all: Constant<Bits<32>>,
    nan_lo: Signal<Local, Bit>,
    nan_hi: Signal<Local, Bit>,
    canon_mask: Signal<Local, Bits<32>>,
    decoded: Signal<Local, Bits<32>>,
    full: Signal<Local, Bits<32>>,
    /// The root key, inverted back for max.
    rv: Signal<Local, Bits<32>>,
}

impl Default for ReduceRoot {
    fn default() -> Self {
        ReduceRoot {
            root_i: Default::default(),
            ctl_i: Default::default(),
            result_o: Default::default(),
            sign32: k32(F32.sign.into()),
            ones32: k32(0xFFFF_FFFF),
            canon32: k32(0x7FFF_FFFF),
            canon16x2: k32(0x7FFF_7FFF),
            sign16: k32(0x0000_8000),
            low16: k32(0x0000_FFFF),
            unflip_11: k32(0x8000_8000),
            unflip_10: k32(0x8000_FFFF),
            unflip_01: k32(0xFFFF_8000),
            unflip_00: k32(0xFFFF_FFFF),
            m_none: k32(0),
            m_lo: k32(0x0000_FFFF),
            m_hi: k32(0xFFFF_0000),
            m_all: k32(0xFFFF_FFFF),
            nan_lo: Default::default(),
            nan_hi: Default::default(),
            canon_mask: Default::default(),
            decoded: Default::default(),
            full: Default::default(),
            rv: Default::default(),
        }
    }
}

impl Logic for ReduceRoot {
    #[hdl_gen]
    fn update(&mut self) {
        // the key as the leaves formed it (they invert it for max)
        if self.ctl_i.val().minmax && self.ctl_i.val().max {
            self.rv.next = self.root_i.val().val ^ self.ones32.val();
        } else {
            self.rv.next = self.root_i.val().val;
        }
        // NaN result per half: nothing valid, or .nanp and a NaN seen
        self.nan_lo.next =
            !self.root_i.val().vlo || (self.ctl_i.val().nanp && self.root_i.val().nlo);
        self.nan_hi.next =
            !self.root_i.val().vhi || (self.ctl_i.val().nanp && self.root_i.val().nhi);
        if self.nan_hi.val() && self.nan_lo.val() {
            self.canon_mask.next = self.m_all.val();
        } else if self.nan_hi.val() {
            self.canon_mask.next = self.m_hi.val();
        } else if self.nan_lo.val() {
            self.canon_mask.next = self.m_lo.val();
        } else {
            self.canon_mask.next = self.m_none.val();
        }
        // inverse order key
        if !self.ctl_i.val().split {
            if self.rv.val().get_bit(31) {
                self.decoded.next = self.rv.val() ^ self.sign32.val();
            } else {
                self.decoded.next = self.rv.val() ^ self.ones32.val();
            }
        } else if self.rv.val().get_bit(31) && self.rv.val().get_bit(15) {
            self.decoded.next = self.rv.val() ^ self.unflip_11.val();
        } else if self.rv.val().get_bit(31) {
            self.decoded.next = self.rv.val() ^ self.unflip_10.val();
        } else if self.rv.val().get_bit(15) {
            self.decoded.next = self.rv.val() ^ self.unflip_01.val();
        } else {
            self.decoded.next = self.rv.val() ^ self.unflip_00.val();
        }
        if self.ctl_i.val().flt && self.ctl_i.val().split {
            self.full.next = (self.decoded.val() & !self.canon_mask.val())
                | (self.canon16x2.val() & self.canon_mask.val());
        } else if self.ctl_i.val().flt {
            if self.nan_lo.val() {
                self.full.next = self.canon32.val();
            } else {
                self.full.next = self.decoded.val();
            }
        } else if self.ctl_i.val().minmax
            && !self.ctl_i.val().abs
            && self.ctl_i.val().signed
            && self.ctl_i.val().split
        {
            self.full.next = self.rv.val() ^ self.sign16.val();
        } else if self.ctl_i.val().minmax && !self.ctl_i.val().abs && self.ctl_i.val().signed {
            self.full.next = self.rv.val() ^ self.sign32.val();
        } else {
            self.full.next = self.rv.val();
        }
        if self.ctl_i.val().w16 {
            self.result_o.next = self.full.val() & self.low16.val();
        } else {
            self.result_o.next = self.full.val();
        }
    }
}

/// `pisa_sg_reduce`: decode, `N` leaves, `log2(N)` levels of nodes, the root.
#[derive(LogicBlock)]
pub struct Reduce<const N: usize, const K: usize, const W: usize> {
    pub clk_i: Signal<In, Clock>,
    /// The unit's opcode (only `fred`/`ired` codes matter; see `pisa_model::op`).
    pub op_i: Signal<In, Bits<8>>,
    /// Participating lanes: `src1 & %activemask`.
    pub part_i: Signal<In, Bits<N>>,
    pub src0_i: Signal<In, Bits<W>>,
    pub result_o: Signal<Out, Bits<32>>,
    /// In the unit with `root`: the result once per root copy (`Reduce::with_root_copies`),
    /// each from its own `root` register and root, so no root drives every lane's output mux.
    pub results_o: Vec<Signal<Out, Bits<32>>>,
    /// The decoders of `op_i`, one per four leaves (`dec[i / 4]` feeds leaf `i`'s controls).
    dec: Vec<ReduceDecode>,
    /// The optional `input` register: `op_i` as one copy per decoder, the participation mask
    /// and the operands (`srcg`, `partg`: after it, or the ports).
    in_op: Vec<PipeReg<Bits<8>>>,
    in_part: Vec<PipeReg<Bits<N>>>,
    in_src0: Vec<PipeReg<Bits<W>>>,
    srcg: Signal<Local, Bits<W>>,
    partg: Signal<Local, Bits<N>>,
    /// Operands and controls after the optional register at boundary 0.
    s0q: Signal<Local, Bits<W>>,
    p0q: Signal<Local, Bits<N>>,
    /// Controls: one copy per leaf (`c0q`), per level-1 node (`cfq`) and per node of level
    /// `b + 1` (`cqb`), so no control flip-flop drives more than one node's logic.
    c0q: Vec<Signal<Local, RedCtl>>,
    r0s: Vec<PipeReg<Bits<W>>>,
    r0p: Vec<PipeReg<Bits<N>>>,
    r0c: Vec<PipeReg<RedCtl>>,
    leaves: Vec<ReduceLeaf>,
    n1: Vec<ReduceNode>,
    n2: Vec<ReduceNode>,
    n3: Vec<ReduceNode>,
    n4: Vec<ReduceNode>,
    n5: Vec<ReduceNode>,
    /// Node values and controls after the optional register following level `b`.
    lq1: Vec<Signal<Local, RedNode>>,
    lq2: Vec<Signal<Local, RedNode>>,
    lq3: Vec<Signal<Local, RedNode>>,
    lq4: Vec<Signal<Local, RedNode>>,
    cq1: Vec<Signal<Local, RedCtl>>,
    cq2: Vec<Signal<Local, RedCtl>>,
    cq3: Vec<Signal<Local, RedCtl>>,
    cq4: Vec<Signal<Local, RedCtl>>,
    /// Level `b`'s stage registers hold the nodes' pairs; the picks follow them.
    r1: Vec<PipeReg<RedPair>>,
    r2: Vec<PipeReg<RedPair>>,
    r3: Vec<PipeReg<RedPair>>,
    r4: Vec<PipeReg<RedPair>>,
    pick1: Vec<ReducePick>,
    pick2: Vec<ReducePick>,
    pick3: Vec<ReducePick>,
    pick4: Vec<ReducePick>,
    rc1: Vec<PipeReg<RedCtl>>,
    rc2: Vec<PipeReg<RedCtl>>,
    rc3: Vec<PipeReg<RedCtl>>,
    rc4: Vec<PipeReg<RedCtl>>,
    /// With `"pick"`: level `b`'s pick registers and the controls' copies beside them.
    p1: Vec<PipeReg<RedNode>>,
    p2: Vec<PipeReg<RedNode>>,
    p3: Vec<PipeReg<RedNode>>,
    p4: Vec<PipeReg<RedNode>>,
    pc1: Vec<PipeReg<RedCtl>>,
    pc2: Vec<PipeReg<RedCtl>>,
    pc3: Vec<PipeReg<RedCtl>>,
    pc4: Vec<PipeReg<RedCtl>>,
    /// Leaf values and controls after the optional `front` register.
    lfq: Vec<Signal<Local, RedNode>>,
    cfq: Vec<Signal<Local, RedCtl>>,
    rf: Vec<PipeReg<RedNode>>,
    rfc: Vec<PipeReg<RedCtl>>,
    /// The last node's pair and controls, its pick, and the optional `root` register after the
    /// pick (the root's decoding and the result's fan-out share the next cycle, so the pick
    /// stays with the last node).
    last: Signal<Local, RedPair>,
    lastc: Signal<Local, RedCtl>,
    /// With `"pick"`: the last node's pair and controls registered before its pick.
    rl: Vec<PipeReg<RedPair>>,
    rlc: Vec<PipeReg<RedCtl>>,
    lastcp: Signal<Local, RedCtl>,
    pickl: ReducePick,
    rx: Vec<PipeReg<RedNode>>,
    rxc: Vec<PipeReg<RedCtl>>,
    /// The root (`root[0]` feeds `result_o`), one per copy of `results_o` with `root`.
    root: Vec<ReduceRoot>,
    /// `[roots, copies]`: root instances, `results_o` entries.
    nr: Param<[usize; 2]>,
    /// The optional `result` register after the root.
    rr: Vec<PipeReg<Bits<32>>>,
    stage: Param<[usize; 6]>,
    /// The `pipeline_extra` registers present (1) or not (0).
    extra: Param<Extras>,
}

impl<const N: usize, const K: usize, const W: usize> Reduce<N, K, W> {
    /// `regs.after_level[b]`: register after tree level `b`, `[0]`: before the leaves
    /// (boundary `K` is the unit's); `front`: after the leaves, `root`: after the last node,
    /// `result`: after the root, `pick` and `input` as in [`crate::config`].
    pub fn new(regs: Registers) -> Self {
        Self::with_root_copies(regs, 0)
    }

    /// As [`Reduce::new`], and with `regs.root` and `copies > 0`, `copies` copies of the
    /// `root` register and the root, whose results are `results_o` (the unit takes one per four
    /// lanes). Without `root`, `copies` must be 0.
    pub fn with_root_copies(regs: Registers, copies: usize) -> Self {
        assert!(copies == 0 || regs.root, "root copies need the root register");
        assert!(N.is_power_of_two() && 1 << K == N && W == 32 * N && (4..=32).contains(&N));
        let stage: [usize; 6] = std::array::from_fn(|b| on(b < K && regs.after_level[b]));
        let extra = regs.extras();
        let Extras { front, result, root, pick, input } = extra;
        let roots = copies.max(1);
        let nodes = |b: usize| if b <= K { N >> b } else { 0 };
        let inner = |b: usize| if b < K { N >> b } else { 0 };
        let node_ctl = |b: usize| if b < K { N >> (b + 1) } else { 0 };
        Reduce {
            clk_i: Default::default(),
            op_i: Default::default(),
            part_i: Default::default(),
            src0_i: Default::default(),
            result_o: Default::default(),
            results_o: many(copies),
            dec: many(N >> 2),
            in_op: many(input * (N >> 2)),
            in_part: many(input),
            in_src0: many(input),
            srcg: Default::default(),
            partg: Default::default(),
            s0q: Default::default(),
            p0q: Default::default(),
            c0q: many(N),
            r0s: many(stage[0]),
            r0p: many(stage[0]),
            r0c: many(stage[0] * N),
            leaves: many(N),
            n1: many(nodes(1)),
            n2: many(nodes(2)),
            n3: many(nodes(3)),
            n4: many(nodes(4)),
            n5: many(nodes(5)),
            lq1: many(inner(1)),
            lq2: many(inner(2)),
            lq3: many(inner(3)),
            lq4: many(inner(4)),
            cq1: many(node_ctl(1)),
            cq2: many(node_ctl(2)),
            cq3: many(node_ctl(3)),
            cq4: many(node_ctl(4)),
            r1: many(if stage[1] == 1 { N >> 1 } else { 0 }),
            r2: many(if stage[2] == 1 { N >> 2 } else { 0 }),
            r3: many(if stage[3] == 1 { N >> 3 } else { 0 }),
            r4: many(if stage[4] == 1 { N >> 4 } else { 0 }),
            pick1: many(inner(1)),
            pick2: many(inner(2)),
            pick3: many(inner(3)),
            pick4: many(inner(4)),
            rc1: many(stage[1] * (N >> (1 + 1))),
            rc2: many(stage[2] * (N >> (2 + 1))),
            rc3: many(stage[3] * (N >> (3 + 1))),
            rc4: many(stage[4] * (N >> (4 + 1))),
            p1: many(pick * stage[1] * (N >> 1)),
            p2: many(pick * stage[2] * (N >> 2)),
            p3: many(pick * stage[3] * (N >> 3)),
            p4: many(pick * stage[4] * (N >> 4)),
            pc1: many(pick * stage[1] * (N >> (1 + 1))),
            pc2: many(pick * stage[2] * (N >> (2 + 1))),
            pc3: many(pick * stage[3] * (N >> (3 + 1))),
            pc4: many(pick * stage[4] * (N >> (4 + 1))),
            lfq: many(N),
            cfq: many(N >> 1),
            rf: many(front * N),
            rfc: many(front * (N >> 1)),
            last: Default::default(),
            lastc: Default::default(),
            rl: many(pick),
            rlc: many(pick),
            lastcp: Default::default(),
            rx: many(root * roots),
            rxc: many(root * roots),
            pickl: Default::default(),
            root: many(roots),
            nr: Param([roots, copies]),
            rr: many(result),
            stage: Param(stage),
            extra: Param(extra),
        }
    }
}

impl<const N: usize, const K: usize, const W: usize> Logic for Reduce<N, K, W> {
    #[hdl_gen]
    fn update(&mut self) {
        // ---- optional `input` register: op_i once per decoder, the mask, the operands
        for r in 0..self.extra.0.input {
            for g in 0..(N >> 2) {
                self.in_op[g].clk_i.next = self.clk_i.val();
                self.in_op[g].d_i.next = self.op_i.val();
                self.dec[g].op_i.next = self.in_op[g].q_o.val();
            }
            self.in_part[r].clk_i.next = self.clk_i.val();
            self.in_part[r].d_i.next = self.part_i.val();
            self.partg.next = self.in_part[r].q_o.val();
            self.in_src0[r].clk_i.next = self.clk_i.val();
            self.in_src0[r].d_i.next = self.src0_i.val();
            self.srcg.next = self.in_src0[r].q_o.val();
        }
        for _e in 0..(1 - self.extra.0.input) {
            for g in 0..(N >> 2) {
                self.dec[g].op_i.next = self.op_i.val();
            }
            self.partg.next = self.part_i.val();
            self.srcg.next = self.src0_i.val();
        }
        // ---- boundary 0: operands and controls, registered before the leaves
        for r in 0..self.stage.0[0] {
            self.r0s[r].clk_i.next = self.clk_i.val();
            self.r0s[r].d_i.next = self.srcg.val();
            self.s0q.next = self.r0s[r].q_o.val();
            self.r0p[r].clk_i.next = self.clk_i.val();
            self.r0p[r].d_i.next = self.partg.val();
            self.p0q.next = self.r0p[r].q_o.val();
            for i in 0..N {
                self.r0c[i].clk_i.next = self.clk_i.val();
                self.r0c[i].d_i.next = self.dec[i / 4].ctl_o.val();
                self.c0q[i].next = self.r0c[i].q_o.val();
            }
        }
        for _e in 0..(1 - self.stage.0[0]) {
            self.s0q.next = self.srcg.val();
            self.p0q.next = self.partg.val();
            for i in 0..N {
                self.c0q[i].next = self.dec[i / 4].ctl_o.val();
            }
        }
        // ---- leaves
        for i in 0..N {
            self.leaves[i].x_i.next = self.s0q.val().get_bits::<32>(i * 32);
            self.leaves[i].part_i.next = self.p0q.val().get_bit(i);
            self.leaves[i].ctl_i.next = self.c0q[i].val();
        }
        // ---- optional `front` register: the leaf values and the controls
        for _r in 0..self.extra.0.front {
            for i in 0..N {
                self.rf[i].clk_i.next = self.clk_i.val();
                self.rf[i].d_i.next = self.leaves[i].leaf_o.val();
                self.lfq[i].next = self.rf[i].q_o.val();
            }
            for j in 0..(N >> 1) {
                self.rfc[j].clk_i.next = self.clk_i.val();
                self.rfc[j].d_i.next = self.c0q[2 * j].val();
                self.cfq[j].next = self.rfc[j].q_o.val();
            }
        }
        for _e in 0..(1 - self.extra.0.front) {
            for i in 0..N {
                self.lfq[i].next = self.leaves[i].leaf_o.val();
            }
            for j in 0..(N >> 1) {
                self.cfq[j].next = self.c0q[2 * j].val();
            }
        }
        // ---- level 1
        for j in 0..(N >> 1) {
            self.n1[j].a_i.next = self.lfq[2 * j].val();
            self.n1[j].b_i.next = self.lfq[2 * j + 1].val();
            self.n1[j].ctl_i.next = self.cfq[j].val();
        }
        for _e in 0..self.stage.0[1] {
            for j in 0..(N >> 1) {
                self.r1[j].clk_i.next = self.clk_i.val();
                self.r1[j].d_i.next = self.n1[j].out_o.val();
                self.pick1[j].pair_i.next = self.r1[j].q_o.val();
            }
            for j in 0..(N >> (1 + 1)) {
                self.rc1[j].clk_i.next = self.clk_i.val();
                self.rc1[j].d_i.next = self.cfq[2 * j].val();
            }
            // with "pick": the pick's own register, and the controls' copy beside it
            for _p in 0..self.extra.0.pick {
                for j in 0..(N >> 1) {
                    self.p1[j].clk_i.next = self.clk_i.val();
                    self.p1[j].d_i.next = self.pick1[j].val_o.val();
                    self.lq1[j].next = self.p1[j].q_o.val();
                }
                for j in 0..(N >> (1 + 1)) {
                    self.pc1[j].clk_i.next = self.clk_i.val();
                    self.pc1[j].d_i.next = self.rc1[j].q_o.val();
                    self.cq1[j].next = self.pc1[j].q_o.val();
                }
            }
            for _q in 0..(1 - self.extra.0.pick) {
                for j in 0..(N >> 1) {
                    self.lq1[j].next = self.pick1[j].val_o.val();
                }
                for j in 0..(N >> (1 + 1)) {
                    self.cq1[j].next = self.rc1[j].q_o.val();
                }
            }
        }
        for _e in 0..(1 - self.stage.0[1]) {
            for j in 0..(N >> 1) {
                self.pick1[j].pair_i.next = self.n1[j].out_o.val();
                self.lq1[j].next = self.pick1[j].val_o.val();
            }
            for j in 0..(N >> (1 + 1)) {
                self.cq1[j].next = self.cfq[2 * j].val();
            }
        }
        // ---- level 2
        for j in 0..(N >> 2) {
            self.n2[j].a_i.next = self.lq1[2 * j].val();
            self.n2[j].b_i.next = self.lq1[2 * j + 1].val();
            self.n2[j].ctl_i.next = self.cq1[j].val();
        }
        for _e in 0..self.stage.0[2] {
            for j in 0..(N >> 2) {
                self.r2[j].clk_i.next = self.clk_i.val();
                self.r2[j].d_i.next = self.n2[j].out_o.val();
                self.pick2[j].pair_i.next = self.r2[j].q_o.val();
            }
            for j in 0..(N >> (2 + 1)) {
                self.rc2[j].clk_i.next = self.clk_i.val();
                self.rc2[j].d_i.next = self.cq1[2 * j].val();
            }
            // with "pick": the pick's own register, and the controls' copy beside it
            for _p in 0..self.extra.0.pick {
                for j in 0..(N >> 2) {
                    self.p2[j].clk_i.next = self.clk_i.val();
                    self.p2[j].d_i.next = self.pick2[j].val_o.val();
                    self.lq2[j].next = self.p2[j].q_o.val();
                }
                for j in 0..(N >> (2 + 1)) {
                    self.pc2[j].clk_i.next = self.clk_i.val();
                    self.pc2[j].d_i.next = self.rc2[j].q_o.val();
                    self.cq2[j].next = self.pc2[j].q_o.val();
                }
            }
            for _q in 0..(1 - self.extra.0.pick) {
                for j in 0..(N >> 2) {
                    self.lq2[j].next = self.pick2[j].val_o.val();
                }
                for j in 0..(N >> (2 + 1)) {
                    self.cq2[j].next = self.rc2[j].q_o.val();
                }
            }
        }
        for _e in 0..(on(K > 2) - self.stage.0[2]) {
            for j in 0..(N >> 2) {
                self.pick2[j].pair_i.next = self.n2[j].out_o.val();
                self.lq2[j].next = self.pick2[j].val_o.val();
            }
            for j in 0..(N >> (2 + 1)) {
                self.cq2[j].next = self.cq1[2 * j].val();
            }
        }
        // ---- level 3
        for j in 0..(N >> 3) {
            self.n3[j].a_i.next = self.lq2[2 * j].val();
            self.n3[j].b_i.next = self.lq2[2 * j + 1].val();
            self.n3[j].ctl_i.next = self.cq2[j].val();
        }
        for _e in 0..self.stage.0[3] {
            for j in 0..(N >> 3) {
                self.r3[j].clk_i.next = self.clk_i.val();
                self.r3[j].d_i.next = self.n3[j].out_o.val();
                self.pick3[j].pair_i.next = self.r3[j].q_o.val();
            }
            for j in 0..(N >> (3 + 1)) {
                self.rc3[j].clk_i.next = self.clk_i.val();
                self.rc3[j].d_i.next = self.cq2[2 * j].val();
            }
            // with "pick": the pick's own register, and the controls' copy beside it
            for _p in 0..self.extra.0.pick {
                for j in 0..(N >> 3) {
                    self.p3[j].clk_i.next = self.clk_i.val();
                    self.p3[j].d_i.next = self.pick3[j].val_o.val();
                    self.lq3[j].next = self.p3[j].q_o.val();
                }
                for j in 0..(N >> (3 + 1)) {
                    self.pc3[j].clk_i.next = self.clk_i.val();
                    self.pc3[j].d_i.next = self.rc3[j].q_o.val();
                    self.cq3[j].next = self.pc3[j].q_o.val();
                }
            }
            for _q in 0..(1 - self.extra.0.pick) {
                for j in 0..(N >> 3) {
                    self.lq3[j].next = self.pick3[j].val_o.val();
                }
                for j in 0..(N >> (3 + 1)) {
                    self.cq3[j].next = self.rc3[j].q_o.val();
                }
            }
        }
        for _e in 0..(on(K > 3) - self.stage.0[3]) {
            for j in 0..(N >> 3) {
                self.pick3[j].pair_i.next = self.n3[j].out_o.val();
                self.lq3[j].next = self.pick3[j].val_o.val();
            }
            for j in 0..(N >> (3 + 1)) {
                self.cq3[j].next = self.cq2[2 * j].val();
            }
        }
        // ---- level 4
        for j in 0..(N >> 4) {
            self.n4[j].a_i.next = self.lq3[2 * j].val();
            self.n4[j].b_i.next = self.lq3[2 * j + 1].val();
            self.n4[j].ctl_i.next = self.cq3[j].val();
        }
        for _e in 0..self.stage.0[4] {
            for j in 0..(N >> 4) {
                self.r4[j].clk_i.next = self.clk_i.val();
                self.r4[j].d_i.next = self.n4[j].out_o.val();
                self.pick4[j].pair_i.next = self.r4[j].q_o.val();
            }
            for j in 0..(N >> (4 + 1)) {
                self.rc4[j].clk_i.next = self.clk_i.val();
                self.rc4[j].d_i.next = self.cq3[2 * j].val();
            }
            // with "pick": the pick's own register, and the controls' copy beside it
            for _p in 0..self.extra.0.pick {
                for j in 0..(N >> 4) {
                    self.p4[j].clk_i.next = self.clk_i.val();
                    self.p4[j].d_i.next = self.pick4[j].val_o.val();
                    self.lq4[j].next = self.p4[j].q_o.val();
                }
                for j in 0..(N >> (4 + 1)) {
                    self.pc4[j].clk_i.next = self.clk_i.val();
                    self.pc4[j].d_i.next = self.rc4[j].q_o.val();
                    self.cq4[j].next = self.pc4[j].q_o.val();
                }
            }
            for _q in 0..(1 - self.extra.0.pick) {
                for j in 0..(N >> 4) {
                    self.lq4[j].next = self.pick4[j].val_o.val();
                }
                for j in 0..(N >> (4 + 1)) {
                    self.cq4[j].next = self.rc4[j].q_o.val();
                }
            }
        }
        for _e in 0..(on(K > 4) - self.stage.0[4]) {
            for j in 0..(N >> 4) {
                self.pick4[j].pair_i.next = self.n4[j].out_o.val();
                self.lq4[j].next = self.pick4[j].val_o.val();
            }
            for j in 0..(N >> (4 + 1)) {
                self.cq4[j].next = self.cq3[2 * j].val();
            }
        }
        // ---- level 5
        for j in 0..(N >> 5) {
            self.n5[j].a_i.next = self.lq4[2 * j].val();
            self.n5[j].b_i.next = self.lq4[2 * j + 1].val();
            self.n5[j].ctl_i.next = self.cq4[j].val();
        }
        // ---- root: the last level's single node, with the controls of that level
        for _e in 0..on(K == 2) {
            self.last.next = self.n2[0].out_o.val();
            self.lastc.next = self.cq1[0].val();
        }
        for _e in 0..on(K == 3) {
            self.last.next = self.n3[0].out_o.val();
            self.lastc.next = self.cq2[0].val();
        }
        for _e in 0..on(K == 4) {
            self.last.next = self.n4[0].out_o.val();
            self.lastc.next = self.cq3[0].val();
        }
        for _e in 0..on(K == 5) {
            self.last.next = self.n5[0].out_o.val();
            self.lastc.next = self.cq4[0].val();
        }
        // with "pick": a register before the last node's pick
        for r in 0..self.extra.0.pick {
            self.rl[r].clk_i.next = self.clk_i.val();
            self.rl[r].d_i.next = self.last.val();
            self.pickl.pair_i.next = self.rl[r].q_o.val();
            self.rlc[r].clk_i.next = self.clk_i.val();
            self.rlc[r].d_i.next = self.lastc.val();
            self.lastcp.next = self.rlc[r].q_o.val();
        }
        for _e in 0..(1 - self.extra.0.pick) {
            self.pickl.pair_i.next = self.last.val();
            self.lastcp.next = self.lastc.val();
        }
        // ---- optional `root` register between the last node's pick and the root
        // (one register and root per copy of the result)
        for _r in 0..self.extra.0.root {
            for c in 0..self.nr.0[0] {
                self.rx[c].clk_i.next = self.clk_i.val();
                self.rx[c].d_i.next = self.pickl.val_o.val();
                self.rxc[c].clk_i.next = self.clk_i.val();
                self.rxc[c].d_i.next = self.lastcp.val();
                self.root[c].root_i.next = self.rx[c].q_o.val();
                self.root[c].ctl_i.next = self.rxc[c].q_o.val();
            }
        }
        for _e in 0..(1 - self.extra.0.root) {
            self.root[0].root_i.next = self.pickl.val_o.val();
            self.root[0].ctl_i.next = self.lastcp.val();
        }
        for c in 0..self.nr.0[1] {
            self.results_o[c].next = self.root[c].result_o.val();
        }
        // ---- optional `result` register after the root
        for r in 0..self.extra.0.result {
            self.rr[r].clk_i.next = self.clk_i.val();
            self.rr[r].d_i.next = self.root[0].result_o.val();
            self.result_o.next = self.rr[r].q_o.val();
        }
        for _e in 0..(1 - self.extra.0.result) {
            self.result_o.next = self.root[0].result_o.val();
        }
    }
}

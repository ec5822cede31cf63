//! `pisa_sg_reduce_leaf` ([`ReduceLeaf`]): one lane's reduction key and NaN/valid flags
//! (PISA §7.1, §7.2). Latency: combinational.

use rust_hdl::prelude::*;

use pisa_model::float::{BF16, F16, F32};

use super::{k32, RedCtl, RedNode};

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

//! `pisa_sg_reduce_node` ([`ReduceNode`]): combines two tree values with one compare chain
//! (PISA §7.1, §7.2). Latency: combinational.

use rust_hdl::prelude::*;

use super::{k32, RedCtl, RedNode, RedPair, ReduceSumSel};

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
/// the 2:1 mux per bit ([`ReducePick`](super::ReducePick)) follows the register.
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

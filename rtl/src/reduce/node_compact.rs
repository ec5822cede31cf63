//! `pisa_sg_reduce_node_compact` ([`ReduceNodeCompact`]): combines two tree values into one,
//! its output mux before the stage register (PISA §7.1, §7.2). Latency: combinational.

use rust_hdl::prelude::*;

use super::{RedCtl, RedNode};

/// `pisa_sg_reduce_node_compact`: combines two tree values into one (`reduction = "compact"`).
///
/// The same compare chain as [`ReduceNode`](super::ReduceNode) (`{0, b_hi, p, b_lo} - {0, a_hi,
/// 0, a_lo}`, `p = split`), and the same result, but formed as one word instead of both outcomes:
/// per output bit three small functions in place of [`ReduceNode`](super::ReduceNode)'s four
/// [`ReduceSumSel`](super::ReduceSumSel) bytes and its [`ReducePick`](super::ReducePick),
///
/// - `e = a`, `a & b`, `a | b` or `a ^ b` by a per-node code: `a` for min/max and where `b`
///   has no participating value, else the operation (`ctl_i.arith`; `sum` also reads `a`, the
///   sum takes its place below);
/// - `y = use_sum ? a + b : e`, `use_sum` = ired.sum with both values participating;
/// - `out = take ? b : y` per half, `take` = `a` has no participating value in the half, or
///   (min/max) `b` has one and its key is smaller.
///
/// The verdict fans out to the output bits in the node's own cycle, so a node's cycle is its
/// compare chain, `take` and one LUT level; no pair of outcomes is registered.
#[derive(LogicBlock)]
pub struct ReduceNodeCompact {
    pub a_i: Signal<In, RedNode>,
    pub b_i: Signal<In, RedNode>,
    pub ctl_i: Signal<In, RedCtl>,
    pub out_o: Signal<Out, RedNode>,
    code_a: Constant<Bits<2>>,
    code_and: Constant<Bits<2>>,
    code_or: Constant<Bits<2>>,
    arith_sum: Constant<Bits<2>>,
    m_lo: Constant<Bits<32>>,
    m_hi: Constant<Bits<32>>,
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
    /// Take `b` in the low / high half.
    take_lo: Signal<Local, Bit>,
    take_hi: Signal<Local, Bit>,
    /// What `e` is: `a` (0), `a & b` (1), `a | b` (2), `a ^ b` (3).
    code: Signal<Local, Bits<2>>,
    e: Signal<Local, Bits<32>>,
    sum: Signal<Local, Bits<32>>,
    use_sum: Signal<Local, Bit>,
    y: Signal<Local, Bits<32>>,
    /// `b` where the half takes it, else `y`.
    w_lo: Signal<Local, Bits<32>>,
    w_hi: Signal<Local, Bits<32>>,
}

impl Default for ReduceNodeCompact {
    fn default() -> Self {
        ReduceNodeCompact {
            a_i: Default::default(),
            b_i: Default::default(),
            ctl_i: Default::default(),
            out_o: Default::default(),
            code_a: Constant::new(0u64.into()),
            code_and: Constant::new(1u64.into()),
            code_or: Constant::new(2u64.into()),
            arith_sum: Constant::new(0u64.into()),
            m_lo: super::k32(0x0000_FFFF),
            m_hi: super::k32(0xFFFF_0000),
            brk_on: Constant::new((1u64 << 16).into()),
            brk_off: Constant::new(0u64.into()),
            brk: Default::default(),
            ea: Default::default(),
            eb: Default::default(),
            dba: Default::default(),
            better_lo: Default::default(),
            better_hi: Default::default(),
            take_lo: Default::default(),
            take_hi: Default::default(),
            code: Default::default(),
            e: Default::default(),
            sum: Default::default(),
            use_sum: Default::default(),
            y: Default::default(),
            w_lo: Default::default(),
            w_hi: Default::default(),
        }
    }
}

impl Logic for ReduceNodeCompact {
    #[hdl_gen]
    fn update(&mut self) {
        // the compare chain (as in pisa_sg_reduce_node)
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
        self.better_hi.next = self.dba.val().get_bit(33);
        if self.ctl_i.val().split {
            self.better_lo.next = !self.dba.val().get_bit(16);
        } else {
            self.better_lo.next = self.dba.val().get_bit(33);
        }
        // take b: min/max: a half with no valid value in a, or a valid, better b;
        // sum/and/or/xor: a has no participating value
        if self.ctl_i.val().minmax {
            self.take_lo.next = !self.a_i.val().vlo || (self.b_i.val().vlo && self.better_lo.val());
            self.take_hi.next = !self.a_i.val().vhi || (self.b_i.val().vhi && self.better_hi.val());
        } else {
            self.take_lo.next = !self.a_i.val().vlo;
            self.take_hi.next = !self.a_i.val().vlo;
        }
        // otherwise a (min/max, or b has no participating value) or the combined operands
        if self.ctl_i.val().minmax || !self.b_i.val().vlo {
            self.code.next = self.code_a.val();
        } else {
            self.code.next = self.ctl_i.val().arith;
        }
        if self.code.val() == self.code_a.val() {
            self.e.next = self.a_i.val().val;
        } else if self.code.val() == self.code_and.val() {
            self.e.next = self.a_i.val().val & self.b_i.val().val;
        } else if self.code.val() == self.code_or.val() {
            self.e.next = self.a_i.val().val | self.b_i.val().val;
        } else {
            self.e.next = self.a_i.val().val ^ self.b_i.val().val;
        }
        // ired.sum with both values participating: the sum
        self.sum.next = self.a_i.val().val + self.b_i.val().val;
        self.use_sum.next = !self.ctl_i.val().minmax
            && (self.ctl_i.val().arith == self.arith_sum.val())
            && self.a_i.val().vlo
            && self.b_i.val().vlo;
        if self.use_sum.val() {
            self.y.next = self.sum.val();
        } else {
            self.y.next = self.e.val();
        }
        if self.take_lo.val() {
            self.w_lo.next = self.b_i.val().val;
        } else {
            self.w_lo.next = self.y.val();
        }
        if self.take_hi.val() {
            self.w_hi.next = self.b_i.val().val;
        } else {
            self.w_hi.next = self.y.val();
        }
        self.out_o.next.val =
            (self.w_hi.val() & self.m_hi.val()) | (self.w_lo.val() & self.m_lo.val());
        self.out_o.next.vlo = self.a_i.val().vlo || self.b_i.val().vlo;
        self.out_o.next.vhi = self.a_i.val().vhi || self.b_i.val().vhi;
        self.out_o.next.nlo = self.a_i.val().nlo || self.b_i.val().nlo;
        self.out_o.next.nhi = self.a_i.val().nhi || self.b_i.val().nhi;
    }
}

//! `pisa_sg_reduce_decode` ([`ReduceDecode`]): the reduction's controls from `op_i`
//! (PISA §7.1, §7.2 encodings, from `pisa_model`). Latency: combinational.

use pisa_model::op::{FloatType, FredOp, IredOp};
use rust_hdl::prelude::*;

use super::RedCtl;
use crate::decode as dc;

/// `pisa_sg_reduce_decode`: the reduction's controls from `op_i` (only its `fred`/`ired` fields
/// matter). Combinational. The reduction holds one per four leaves, so each copy of the decoded
/// controls is formed beside the leaves it feeds (one decoder for all 32 leaves put its output
/// on a 4.3 ns route across the die, the 32-lane unit's worst path).
#[derive(LogicBlock)]
pub struct ReduceDecode {
    pub op_i: Signal<In, Bits<8>>,
    pub ctl_o: Signal<Out, RedCtl>,
    /// The controls formed field by field, then driven onto `ctl_o` as one word: Verilator keeps
    /// a local in a register, where each field written to the port was a read-modify-write of
    /// the model's state (docs/qor.md, "Co-simulation throughput").
    ctl: Signal<Local, RedCtl>,
    class_fred: Constant<Bits<2>>,
    fred_op_min: Constant<Bits<2>>,
    fred_op_absmax: Constant<Bits<2>>,
    fred_type_f: Constant<Bits<3>>,
    fred_type_hf: Constant<Bits<3>>,
    fred_type_bf: Constant<Bits<3>>,
    fred_type_bfx2: Constant<Bits<3>>,
    ired_op_sum: Constant<Bits<4>>,
    ired_op_smin: Constant<Bits<4>>,
    ired_op_smax: Constant<Bits<4>>,
    ired_op_umax: Constant<Bits<4>>,
    ired_op_and: Constant<Bits<4>>,
    ired_op_or: Constant<Bits<4>>,
    ired_op_xor: Constant<Bits<4>>,
    ired_op_absmax: Constant<Bits<4>>,
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
            ctl: Default::default(),
            class_fred: c2(dc::class_fred()),
            fred_op_min: c2(dc::fred_op(FredOp::Min)),
            fred_op_absmax: c2(dc::fred_op(FredOp::Absmax)),
            fred_type_f: c3(dc::fred_type(FloatType::F)),
            fred_type_hf: c3(dc::fred_type(FloatType::Hf)),
            fred_type_bf: c3(dc::fred_type(FloatType::Bf)),
            fred_type_bfx2: c3(dc::fred_type(FloatType::Bfx2)),
            ired_op_sum: c4(dc::ired_op(IredOp::Sum)),
            ired_op_smin: c4(dc::ired_op(IredOp::Smin)),
            ired_op_smax: c4(dc::ired_op(IredOp::Smax)),
            ired_op_umax: c4(dc::ired_op(IredOp::Umax)),
            ired_op_and: c4(dc::ired_op(IredOp::And)),
            ired_op_or: c4(dc::ired_op(IredOp::Or)),
            ired_op_xor: c4(dc::ired_op(IredOp::Xor)),
            ired_op_absmax: c4(dc::ired_op(IredOp::Absmax)),
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
        self.ctl.next.nanp = false;
        self.ctl.next.bf = false;
        self.ctl.next.signed = false;
        self.ctl.next.abs = false;
        self.ctl.next.arith = self.a_sum.val();
        if self.op_i.val().get_bits::<2>(6) == self.class_fred.val() {
            self.ctl.next.minmax = true;
            self.ctl.next.flt = true;
            self.ctl.next.max = self.op_i.val().get_bits::<2>(0) != self.fred_op_min.val();
            self.ctl.next.abs = self.op_i.val().get_bits::<2>(0) == self.fred_op_absmax.val();
            self.ctl.next.nanp = self.op_i.val().get_bit(2);
            self.ctl.next.split = self.op_i.val().get_bits::<3>(3) != self.fred_type_f.val();
            self.ctl.next.bf = (self.op_i.val().get_bits::<3>(3) == self.fred_type_bf.val())
                || (self.op_i.val().get_bits::<3>(3) == self.fred_type_bfx2.val());
            self.ctl.next.w16 = (self.op_i.val().get_bits::<3>(3) == self.fred_type_hf.val())
                || (self.op_i.val().get_bits::<3>(3) == self.fred_type_bf.val());
        } else {
            self.ctl.next.flt = false;
            self.ctl.next.w16 = self.op_i.val().get_bit(4);
            self.ctl.next.minmax = (self.op_i.val().get_bits::<4>(0) != self.ired_op_sum.val())
                && (self.op_i.val().get_bits::<4>(0) != self.ired_op_and.val())
                && (self.op_i.val().get_bits::<4>(0) != self.ired_op_or.val())
                && (self.op_i.val().get_bits::<4>(0) != self.ired_op_xor.val());
            self.ctl.next.split = self.op_i.val().get_bit(4)
                && (self.op_i.val().get_bits::<4>(0) != self.ired_op_sum.val())
                && (self.op_i.val().get_bits::<4>(0) != self.ired_op_and.val())
                && (self.op_i.val().get_bits::<4>(0) != self.ired_op_or.val())
                && (self.op_i.val().get_bits::<4>(0) != self.ired_op_xor.val());
            self.ctl.next.max = (self.op_i.val().get_bits::<4>(0) == self.ired_op_smax.val())
                || (self.op_i.val().get_bits::<4>(0) == self.ired_op_umax.val())
                || (self.op_i.val().get_bits::<4>(0) == self.ired_op_absmax.val());
            self.ctl.next.signed = (self.op_i.val().get_bits::<4>(0) == self.ired_op_smin.val())
                || (self.op_i.val().get_bits::<4>(0) == self.ired_op_smax.val());
            self.ctl.next.abs = self.op_i.val().get_bits::<4>(0) == self.ired_op_absmax.val();
            if self.op_i.val().get_bits::<4>(0) == self.ired_op_and.val() {
                self.ctl.next.arith = self.a_and.val();
            } else if self.op_i.val().get_bits::<4>(0) == self.ired_op_or.val() {
                self.ctl.next.arith = self.a_or.val();
            } else if self.op_i.val().get_bits::<4>(0) == self.ired_op_xor.val() {
                self.ctl.next.arith = self.a_xor.val();
            }
        }
        self.ctl_o.next = self.ctl.val();
    }
}

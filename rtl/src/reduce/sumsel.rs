//! `pisa_sg_reduce_sumsel` ([`ReduceSumSel`]): one byte of a node's output, the sum in place of
//! both outcomes for `ired.sum` (PISA §7.2). Latency: combinational.

use rust_hdl::prelude::*;

/// `pisa_sg_reduce_sumsel`: puts the sum `a + b` in place of both outcomes `o1`, `o0` when it is
/// the node's result (ired.sum, both values participating), for one byte of the word.
/// Combinational; a module of its own like [`ReducePick`](super::ReducePick), so the sum's carry chain meets one LUT
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

//! `pisa_sg_reduce_pick` ([`ReducePick`]): a node's output mux per half (PISA §7.1, §7.2).
//! Latency: combinational.

use rust_hdl::prelude::*;

use super::{k32, RedNode, RedPair};

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

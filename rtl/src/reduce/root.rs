//! `pisa_sg_reduce_root` ([`ReduceRoot`]): decodes the final key into the result: inverse key,
//! canonical NaN, zero extension (PISA §7.1, §7.2). Latency: combinational.

use rust_hdl::prelude::*;

use pisa_model::float::{BF16, F16, F32};

use super::{k32, RedCtl, RedNode};

// one canonical NaN serves both 16-bit formats (each half of an x2 result)
const _: () = assert!(F16.canonical_nan == BF16.canonical_nan, "the root writes one 16-bit NaN");

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
        let canon16 = u64::from(F16.canonical_nan);
        ReduceRoot {
            root_i: Default::default(),
            ctl_i: Default::default(),
            result_o: Default::default(),
            sign32: k32(F32.sign.into()),
            ones32: k32(0xFFFF_FFFF),
            canon32: k32(F32.canonical_nan.into()),
            canon16x2: k32(canon16 << 16 | canon16),
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

//! `pisa_sg_shfl_xbar` — the shuffle crossbar of `shfl` (PISA §7.4).
//!
//! ```text
//!  src1_i ─┬─► per lane: laneOffset, cval, segmask ─► clampLane, srcLane, inBounds
//!  mode_i ─┤                                                │
//!  sg_i  ──┘                    part_i[srcLane] ◄───────────┤
//!                                        sel = (inBounds && part_i[srcLane]) ? srcLane : laneid
//!                                                           │  (K bits per lane)
//!  src0_i ─► pisa_sg_shfl_xbar_mux (xbar_mux.rs): level 1: N lanes × N/2 2:1 muxes on sel[0]
//!            ─► [reg?] ─► level 2 on sel[1] ─► ... level K ─► dst_o[lane]  (one N:1 tree per lane)
//! ```
//! Every lane reads any lane (per-lane `src1` makes it a full crossbar). The own-value fallback
//! costs nothing in the data path: a lane that must keep its own `src0` selects itself, so each
//! output bit is exactly one N:1 mux, built as an explicit tree of 2:1 muxes, level `l` switched
//! by select bit `l-1` (4:1 per LUT6 with MUXF7/MUXF8 on 7-series, LUT4 + PFUMX + L6MUX21 on
//! ECP5). `srcLane` is formed with one extra bit that catches the `.up` borrow and the `.dn`
//! carry, so one `>=` (`.up`) and one `<=` (the others) against `clampLane` decide `inBounds`.
//!
//! Latency: combinational, plus one cycle for each enabled stage boundary inside the tree
//! (`stage[0]`: before level 1, `stage[b]` for `1 <= b < K`; the unit registers boundary `K`, its
//! outputs; the mux trees place that many registers by their own order, see xbar_mux.rs), plus
//! one for each `pipeline_extra` register: `front` registers srcLane, clampLane, the `.up` flag,
//! the participation mask and src0 between the two halves of the select logic (inBounds, the
//! `part_i[srcLane]` lookup and the select follow in the next cycle), `root` registers
//! inBounds, srcLane, src0 and the participation lookup's first step (four lookups of a
//! quarter of the mask each; the second step, the quarter srcLane's top two bits name, follows
//! it) before the select (named for the reduction's register in the same cycle), `result`
//! registers the tree outputs, `input` registers the inputs at the ports — mode, `.sg` and the
//! participation mask as one copy per four lanes, so each group decodes its own copy.
//! Parameters: `N` lanes (4, 8, 16, 32), `K = log2(N)`, `W = 32 * N`.

use pisa_hdl_gen::hdl_gen;
use rust_hdl::prelude::*;

use crate::config::{Extras, Registers};
use crate::prims::{many, Param, PipeReg};
use crate::xbar_mux::ShflMux;

/// The shuffle crossbar for `N` lanes (see the module documentation).
#[derive(LogicBlock)]
pub struct ShflXbar<const N: usize, const K: usize, const K1: usize, const W: usize> {
    pub clk_i: Signal<In, Clock>,
    /// `shfl` mode: up = 0, dn = 1, xor = 2, idx = 3.
    pub mode_i: Signal<In, Bits<2>>,
    /// The `.sg` qualifier.
    pub sg_i: Signal<In, Bit>,
    /// Participating lanes: `src2 & %activemask`.
    pub part_i: Signal<In, Bits<N>>,
    pub src0_i: Signal<In, Bits<W>>,
    pub src1_i: Signal<In, Bits<W>>,
    /// The shuffled word of every lane (valid in participating lanes).
    pub dst_o: Vec<Signal<Out, Bits<32>>>,
    lane_id: Vec<Constant<Bits<K>>>,
    /// Lane ids and lane fields one bit wider, so bound tests read a borrow bit.
    lane_w: Vec<Constant<Bits<K1>>>,
    zero_w: Constant<Bits<K1>>,
    low_w: Constant<Bits<K1>>,
    mode_up: Constant<Bits<2>>,
    mode_dn: Constant<Bits<2>>,
    mode_xor: Constant<Bits<2>>,
    cval: Vec<Signal<Local, Bits<K1>>>,
    seg: Vec<Signal<Local, Bits<K1>>>,
    clamp: Vec<Signal<Local, Bits<K1>>>,
    /// laneOffset and srcLane one bit wider: bit K is the borrow of `.up` / carry of `.dn`.
    off_w: Vec<Signal<Local, Bits<K1>>>,
    src_w: Vec<Signal<Local, Bits<K1>>>,
    src: Vec<Signal<Local, Bits<K>>>,
    in_bounds: Vec<Signal<Local, Bit>>,
    sel: Vec<Signal<Local, Bits<K>>>,
    /// `.up` mode (one per four lanes, from that group's copy of the mode).
    up: Vec<Signal<Local, Bit>>,
    /// The inputs after the optional `input` register: mode, `.sg` and the participation mask
    /// as one copy per four lanes (`modeg[i / 4]` feeds lane `i`), so each group decodes its
    /// own copy and no flip-flop drives the select logic of every lane.
    modeg: Vec<Signal<Local, Bits<2>>>,
    sgg: Vec<Signal<Local, Bit>>,
    partg: Vec<Signal<Local, Bits<N>>>,
    src0g: Signal<Local, Bits<W>>,
    src1g: Signal<Local, Bits<W>>,
    in_mode: Vec<PipeReg<Bits<2>>>,
    in_sg: Vec<PipeReg<Bit>>,
    in_part: Vec<PipeReg<Bits<N>>>,
    in_src0: Vec<PipeReg<Bits<W>>>,
    in_src1: Vec<PipeReg<Bits<W>>>,
    /// srcLane, clampLane, `.up`, participation and src0 after the optional `front` register:
    /// `.up` as one copy per lane, the participation mask as one copy per four lanes
    /// (`partq[i / 4]` feeds lane `i`'s lookup), so neither flip-flop drives all lanes.
    src_wq: Vec<Signal<Local, Bits<K1>>>,
    clampq: Vec<Signal<Local, Bits<K1>>>,
    upq: Vec<Signal<Local, Bit>>,
    partq: Vec<Signal<Local, Bits<N>>>,
    src0q: Signal<Local, Bits<W>>,
    fr_src_w: Vec<PipeReg<Bits<K1>>>,
    fr_clamp: Vec<PipeReg<Bits<K1>>>,
    fr_up: Vec<PipeReg<Bit>>,
    fr_part: Vec<PipeReg<Bits<N>>>,
    fr_src0: Vec<PipeReg<Bits<W>>>,
    /// With `root`, the participation lookup in two steps around the register: four lookups of
    /// a quarter each (`rx_q[4 * i + m]` = `part[m * N/4 + srcLane % (N/4)]`, from `qpart[4 * g
    /// + m]` = group `g`'s mask shifted down by `m * N/4`, read at constant bits `j` where
    /// `srcLane % (N/4) == j`, so no lookup has a variable shift whose index has constant bits:
    /// yosys 0.23's xc7 shiftx mapping fails on those), then the quarter that srcLane's top two
    /// bits name. Without `root` one lookup, `part[srcLane]`.
    qpart: Vec<Signal<Local, Bits<N>>>,
    /// The lane reads srcLane: `inBounds && part[srcLane]`, with srcLane and src0 after the
    /// optional `root` register.
    okq: Vec<Signal<Local, Bit>>,
    srcq: Vec<Signal<Local, Bits<K>>>,
    src0x: Signal<Local, Bits<W>>,
    rx_inb: Vec<PipeReg<Bit>>,
    rx_q: Vec<PipeReg<Bit>>,
    /// With `root`: `N/4 - 1`, the top two bits of a lane number, and `m << (K - 2)` (the
    /// first lane of quarter `m`, also the shift of `qpart`).
    low2: Vec<Constant<Bits<K>>>,
    top2: Vec<Constant<Bits<K>>>,
    quarter: Vec<Constant<Bits<K>>>,
    rx_src: Vec<PipeReg<Bits<K>>>,
    rx_src0: Vec<PipeReg<Bits<W>>>,
    /// The data path: per-lane mux trees (and the stage registers inside them).
    mux: ShflMux<N, K, W>,
    /// The optional `result` register on the tree outputs.
    rr: Vec<PipeReg<Bits<32>>>,
    /// The `pipeline_extra` registers present (1) or not (0); `pick` is the reduction's.
    extra: Param<Extras>,
}

impl<const N: usize, const K: usize, const K1: usize, const W: usize> ShflXbar<N, K, K1, W> {
    /// `regs.after_level[b]`: register after tree level `b` (boundaries `b >= K` are the
    /// unit's); `front`, `root`, `result`, `input`: the extra registers (`pick` is not the
    /// crossbar's).
    pub fn new(regs: Registers) -> Self {
        let extra = regs.extras();
        let Extras { front, result, root, input, .. } = extra;
        assert!(
            N.is_power_of_two()
                && 1 << K == N
                && K1 == K + 1
                && W == 32 * N
                && (4..=32).contains(&N)
        );
        let mask = (1u64 << K) - 1;
        ShflXbar {
            clk_i: Default::default(),
            mode_i: Default::default(),
            sg_i: Default::default(),
            part_i: Default::default(),
            src0_i: Default::default(),
            src1_i: Default::default(),
            dst_o: many(N),
            lane_id: (0..N).map(|i| Constant::new((i as u64).into())).collect(),
            lane_w: (0..N).map(|i| Constant::new((i as u64).into())).collect(),
            zero_w: Constant::new(0u64.into()),
            low_w: Constant::new(mask.into()),
            mode_up: Constant::new(0u64.into()),
            mode_dn: Constant::new(1u64.into()),
            mode_xor: Constant::new(2u64.into()),
            cval: many(N),
            seg: many(N),
            clamp: many(N),
            off_w: many(N),
            src_w: many(N),
            src: many(N),
            in_bounds: many(N),
            sel: many(N),
            up: many(N >> 2),
            modeg: many(N >> 2),
            sgg: many(N >> 2),
            partg: many(N >> 2),
            src0g: Default::default(),
            src1g: Default::default(),
            in_mode: many(input * (N >> 2)),
            in_sg: many(input * (N >> 2)),
            in_part: many(input * (N >> 2)),
            in_src0: many(input),
            in_src1: many(input),
            src_wq: many(N),
            clampq: many(N),
            upq: many(N),
            partq: many(N >> 2),
            src0q: Default::default(),
            fr_src_w: many(front * N),
            fr_clamp: many(front * N),
            fr_up: many(front * N),
            fr_part: many(front * (N >> 2)),
            fr_src0: many(front),
            okq: many(N),
            srcq: many(N),
            src0x: Default::default(),
            qpart: many(root * N),
            rx_inb: many(root * N),
            rx_q: many(root * 4 * N),
            low2: (0..root).map(|_| Constant::new(((N as u64 >> 2) - 1).into())).collect(),
            top2: (0..root).map(|_| Constant::new((3u64 << (K - 2)).into())).collect(),
            quarter: (0..4 * root as u64).map(|m| Constant::new((m << (K - 2)).into())).collect(),
            rx_src: many(root * N),
            rx_src0: many(root),
            mux: ShflMux::new(regs),
            rr: many(result * N),
            extra: Param(extra),
        }
    }
}

impl<const N: usize, const K: usize, const K1: usize, const W: usize> Logic
    for ShflXbar<N, K, K1, W>
{
    #[hdl_gen]
    fn update(&mut self) {
        // ---- optional `input` register: the controls as one copy per four lanes
        for g in 0..(N >> 2) {
            opt_reg!(self.extra.0.input, self.in_mode[g], self.mode_i.val() => self.modeg[g]);
            opt_reg!(self.extra.0.input, self.in_sg[g], self.sg_i.val() => self.sgg[g]);
            opt_reg!(self.extra.0.input, self.in_part[g], self.part_i.val() => self.partg[g]);
        }
        opt_reg!(self.extra.0.input, self.in_src0[0], self.src0_i.val() => self.src0g);
        opt_reg!(self.extra.0.input, self.in_src1[0], self.src1_i.val() => self.src1g);
        // ---- per lane: select = the source lane, or the lane itself when it keeps its own src0
        for i in 0..N {
            if self.sgg[i / 4].val() {
                self.cval[i].next = self.src1g.val().get_bits::<K1>(i * 32 + 8) & self.low_w.val();
                self.seg[i].next = self.src1g.val().get_bits::<K1>(i * 32 + 16) & self.low_w.val();
            } else {
                if self.modeg[i / 4].val() == self.mode_up.val() {
                    self.cval[i].next = self.zero_w.val();
                } else {
                    self.cval[i].next = self.low_w.val();
                }
                self.seg[i].next = self.zero_w.val();
            }
            // clampLane = (laneid & segmask) | (cval & ~segmask); bit K is always 0
            self.clamp[i].next = (self.lane_w[i].val() & self.seg[i].val())
                | (self.cval[i].val() & !self.seg[i].val());
            // srcLane with one more bit: a borrow (.up below 0) or carry (.dn past N-1) sets bit K
            self.off_w[i].next = self.src1g.val().get_bits::<K1>(i * 32) & self.low_w.val();
            if self.modeg[i / 4].val() == self.mode_up.val() {
                self.src_w[i].next = self.lane_w[i].val() - self.off_w[i].val();
            } else if self.modeg[i / 4].val() == self.mode_dn.val() {
                self.src_w[i].next = self.lane_w[i].val() + self.off_w[i].val();
            } else if self.modeg[i / 4].val() == self.mode_xor.val() {
                self.src_w[i].next = self.lane_w[i].val() ^ self.off_w[i].val();
            } else {
                // srcLane = minLane | (off & ~segmask)
                self.src_w[i].next = (self.lane_w[i].val() & self.seg[i].val())
                    | (self.off_w[i].val() & !self.seg[i].val());
            }
        }
        for g in 0..(N >> 2) {
            self.up[g].next = self.modeg[g].val() == self.mode_up.val();
        }
        // ---- optional `front` register: srcLane, clampLane, .up, participation, src0
        for i in 0..N {
            opt_reg!(self.extra.0.front, self.fr_src_w[i], self.src_w[i].val() => self.src_wq[i]);
            opt_reg!(self.extra.0.front, self.fr_clamp[i], self.clamp[i].val() => self.clampq[i]);
            opt_reg!(self.extra.0.front, self.fr_up[i], self.up[i / 4].val() => self.upq[i]);
        }
        for g in 0..(N >> 2) {
            opt_reg!(self.extra.0.front, self.fr_part[g], self.partg[g].val() => self.partq[g]);
        }
        opt_reg!(self.extra.0.front, self.fr_src0[0], self.src0g.val() => self.src0q);
        for i in 0..N {
            self.src[i].next = self.src_wq[i].val().get_bits::<K>(0);
            // inBounds: .up srcLane >= clampLane (and not below 0); else srcLane <= clampLane
            // (a carry makes src_w > N-1 >= clampLane)
            if self.upq[i].val() {
                self.in_bounds[i].next = (self.src_wq[i].val() <= self.low_w.val())
                    && (self.src_wq[i].val() >= self.clampq[i].val());
            } else {
                self.in_bounds[i].next = self.src_wq[i].val() <= self.clampq[i].val();
            }
        }
        // ---- optional `root` register: inBounds, the quarter lookups, srcLane, src0
        for r in 0..self.extra.0.root {
            for g in 0..(N >> 2) {
                for m in 0..4 {
                    self.qpart[4 * g + m].next = self.partq[g].val() >> self.quarter[m].val();
                }
            }
            for i in 0..N {
                self.rx_inb[i].clk_i.next = self.clk_i.val();
                self.rx_inb[i].d_i.next = self.in_bounds[i].val();
                self.rx_src[i].clk_i.next = self.clk_i.val();
                self.rx_src[i].d_i.next = self.src[i].val();
                self.srcq[i].next = self.rx_src[i].q_o.val();
                self.okq[i].next = false;
                for m in 0..4 {
                    self.rx_q[4 * i + m].clk_i.next = self.clk_i.val();
                    self.rx_q[4 * i + m].d_i.next = false;
                    for j in 0..(N >> 2) {
                        if (self.src[i].val() & self.low2[r].val()) == self.lane_id[j].val() {
                            self.rx_q[4 * i + m].d_i.next =
                                self.qpart[4 * (i / 4) + m].val().get_bit(j);
                        }
                    }
                    if (self.rx_src[i].q_o.val() & self.top2[r].val()) == self.quarter[m].val() {
                        self.okq[i].next =
                            self.rx_inb[i].q_o.val() && self.rx_q[4 * i + m].q_o.val();
                    }
                }
            }
            self.rx_src0[r].clk_i.next = self.clk_i.val();
            self.rx_src0[r].d_i.next = self.src0q.val();
            self.src0x.next = self.rx_src0[r].q_o.val();
        }
        for _e in 0..(1 - self.extra.0.root) {
            for i in 0..N {
                self.okq[i].next = self.in_bounds[i].val()
                    && self.partq[i / 4].val().get_bit(self.src[i].val().index());
                self.srcq[i].next = self.src[i].val();
            }
            self.src0x.next = self.src0q.val();
        }
        for i in 0..N {
            if self.okq[i].val() {
                self.sel[i].next = self.srcq[i].val();
            } else {
                self.sel[i].next = self.lane_id[i].val();
            }
        }
        // ---- data path: the mux trees, in their own module
        self.mux.clk_i.next = self.clk_i.val();
        self.mux.src0_i.next = self.src0x.val();
        for i in 0..N {
            self.mux.sel_i[i].next = self.sel[i].val();
        }
        // ---- optional `result` register on the tree outputs
        for i in 0..N {
            opt_reg!(self.extra.0.result, self.rr[i], self.mux.dst_o[i].val() => self.dst_o[i]);
        }
    }
}

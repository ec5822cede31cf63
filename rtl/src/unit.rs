//! `pisa_sg_unit` — the sub-group communication unit: decodes `op_i` and routes the operands to
//! the shuffle crossbar, the reduction tree or the priority encoder (PISA §7).
//!
//! ```text
//!            ┌──────────── pisa_sg_shfl_xbar ────────────┐
//!  src0_i ──►│ per-lane select ─► N:1 mux tree per lane  ├──► dst (shfl)
//!  src1_i ──►└───────────────────────────────────────────┘
//!  mask_i ──► part = mask & activemask ─► pisa_sg_reduce ───► result (fred, ired)   ─► out mux ─► [reg] ─► dst_o, wen_o
//!  activemask_i ──────────────────────► pisa_sg_lzc ──────► index (redfirstidx)
//!  op_i ─► decode: class (shfl / reduction / redfirstidx / reserved) ─► control pipeline
//!  valid_i ─────────────────────────────────────────────────────────► [reg] ─► valid_o
//! ```
//! Ports: `src0_i`, `src1_i` (`LANES*32` bits, lane `i` in bits `[32i+31:32i]`), `mask_i[31:0]`
//! (the uniform mask operand: `src2` of `shfl`, `src1` of `fred`/`ired`, `src0` of
//! `redfirstidx`), `activemask_i`, `op_i[7:0]` (encoding in `pisa_model::op`), `valid_i`;
//! `dst_o`, `wen_o` (lanes that write `dst`), `valid_o`. A reserved `op_i` writes no lane.
//! 16-bit results are zero-extended; `dst_o` of lanes with `wen_o = 0` is unspecified.
//!
//! Latency: the number of enabled stage boundaries plus `pipeline_extra` registers
//! (`UnitConfig::latency`), one operation per clock. With 0 the unit is combinational and
//! `valid_o = valid_i`. The controls (valid, wen, the redfirstidx index, and the class as one
//! copy per lane) pass through the same number of registers as the blocks' data. With
//! `pipeline_extra = ["result"]` the unit, not the reduction, holds the reduction's result
//! register, as one copy per four lanes (and the index likewise), so no flip-flop drives the
//! output mux of every lane.
//! With `pipeline_extra = ["front"]` the priority encoder reads the participation mask from the
//! `front` register (its index is not needed before the output mux), so its tree starts at a
//! register beside it, not at the unit's ports. With `pipeline_extra = ["pick"]` the reduction
//! takes `Registers::pick_cycles` more cycles; the unit delays the crossbar's result, the class
//! copies, the controls and valid by as many registers before the output side. With
//! `pipeline_extra = ["input"]` every block registers its inputs at the ports (the crossbar
//! and the reduction keep the opcode and the mask as one copy per four lanes) and the unit its
//! own copy of op, the masks and valid, so no opcode bit is decoded once for all 32 lanes. With
//! `root`, the reduction gives one result per four lanes (`results_o`, one root each).

use pisa_hdl_gen::hdl_gen;
use rust_hdl::prelude::*;
use seq_macro::seq;

use crate::config::{Extras, Registers};
use crate::lzc::Lzc;
use crate::prims::{many, on, Param, PipeReg, ValidReg};
use crate::reduce::Reduce;
use crate::xbar::ShflXbar;

/// A constant of any width.
fn c<const B: usize>(v: u64) -> Constant<Bits<B>> {
    Constant::new(v.into())
}

/// Operation classes after decoding.
pub const CLS_SHFL: u64 = 0;
pub const CLS_RED: u64 = 1;
pub const CLS_RFI: u64 = 2;
pub const CLS_NONE: u64 = 3;

macro_rules! unit {
    ($unit:ident, $bus:ident, $ctl:ident, $n:literal, $k:literal, $k1:literal, $w:literal) => {
        seq!(L in 0..$n {
            /// The `dst_o` bus: lane `i` in bits `[32i+31:32i]`.
            #[derive(Copy, Clone, PartialEq, Debug, Default, LogicStruct)]
            pub struct $bus {
                #( pub l~L: Bits<32>, )*
            }

            impl $bus {
                /// Lane `i`'s word.
                pub fn lane(&self, i: usize) -> u32 {
                    match i {
                        #( L => self.l~L.to_u32(), )*
                        _ => panic!("lane {i} out of range"),
                    }
                }
            }
        });

        /// Controls travelling with an operation through the pipeline.
        #[derive(Copy, Clone, PartialEq, Debug, Default, LogicStruct)]
        pub struct $ctl {
            /// Lanes that will write `dst`.
            pub wen: Bits<$n>,
            /// `redfirstidx` result.
            pub idx: Bits<32>,
        }

        #[derive(LogicBlock)]
        pub struct $unit {
            pub clk_i: Signal<In, Clock>,
            pub rst_ni: Signal<In, Bit>,
            pub valid_i: Signal<In, Bit>,
            pub op_i: Signal<In, Bits<8>>,
            pub src0_i: Signal<In, Bits<$w>>,
            pub src1_i: Signal<In, Bits<$w>>,
            pub mask_i: Signal<In, Bits<32>>,
            pub activemask_i: Signal<In, Bits<$n>>,
            pub dst_o: Signal<Out, $bus>,
            pub wen_o: Signal<Out, Bits<$n>>,
            pub valid_o: Signal<Out, Bit>,
            xbar: ShflXbar<$n, $k, $k1, $w>,
            reduce: Reduce<$n, $k, $w>,
            lzc: Lzc<$n>,
            c_shfl: Constant<Bits<2>>,
            c_red: Constant<Bits<2>>,
            c_rfi: Constant<Bits<2>>,
            c_none: Constant<Bits<2>>,
            class_shfl: Constant<Bits<2>>,
            class_fred: Constant<Bits<2>>,
            class_ired: Constant<Bits<2>>,
            zero3: Constant<Bits<3>>,
            zero6: Constant<Bits<6>>,
            fred_op_reserved: Constant<Bits<2>>,
            fred_type_last: Constant<Bits<3>>,
            ired_op_last: Constant<Bits<4>>,
            no_lanes: Constant<Bits<$n>>,
            cls: Signal<Local, Bits<2>>,
            /// The unit's own copies of the inputs after the optional `input` register (the
            /// blocks register theirs): op, the participation mask, activemask, valid.
            opi: Signal<Local, Bits<8>>,
            parti: Signal<Local, Bits<$n>>,
            acti: Signal<Local, Bits<$n>>,
            vali: Signal<Local, Bit>,
            in_op: Vec<PipeReg<Bits<8>>>,
            in_part: Vec<PipeReg<Bits<$n>>>,
            in_act: Vec<PipeReg<Bits<$n>>>,
            in_v: Vec<ValidReg>,
            /// The reduction's result for each four lanes (`reduce.results_o[g]` with `root`: one
            /// root per copy; else `reduce.result_o`).
            rsrc: Vec<Signal<Local, Bits<32>>>,
            /// `[copies, no copies]` of the reduction's root.
            rc: Param<[usize; 2]>,
            /// Controls at the front, and after the optional register at boundary `b < K`
            /// (`cq[0]`: after boundary 0, before tree level 1).
            /// (`c0`: the lanes that will write, as decoded at the front.)
            c0: Signal<Local, Bits<$n>>,
            creg0: Vec<PipeReg<$ctl>>,
            vreg0: Vec<ValidReg>,
            cq: Vec<Signal<Local, $ctl>>,
            vq: Vec<Signal<Local, Bit>>,
            creg: Vec<PipeReg<$ctl>>,
            vreg: Vec<ValidReg>,
            /// The class, one copy per lane at every boundary `b < K` (`kq[b * N + i]`): each
            /// copy switches only its lane's 32 output bits (one shared copy drove all of them).
            kq: Vec<Signal<Local, Bits<2>>>,
            kreg: Vec<PipeReg<Bits<2>>>,
            /// Controls, class and valid after the optional `front` register (before boundary 0).
            c0f: Signal<Local, $ctl>,
            clsf: Signal<Local, Bits<2>>,
            v0f: Signal<Local, Bit>,
            /// The same after the optional `root` register (one cycle anywhere before the output
            /// mux keeps the controls in step with the blocks).
            c0x: Signal<Local, $ctl>,
            clsx: Signal<Local, Bits<2>>,
            v0x: Signal<Local, Bit>,
            cregx: Vec<PipeReg<$ctl>>,
            kregx: Vec<PipeReg<Bits<2>>>,
            vregx: Vec<ValidReg>,
            /// With `front`: the lanes that write, and the participation mask the priority encoder
            /// reads in the next cycle (its input comes from this register, not the ports).
            cregf: Vec<PipeReg<Bits<$n>>>,
            lzcq: Vec<PipeReg<Bits<$n>>>,
            kregf: Vec<PipeReg<Bits<2>>>,
            vregf: Vec<ValidReg>,
            /// Lanes that write, class (four copies per lane, one per byte: `kr[4 * lane + s]`),
            /// the reduction's result and the redfirstidx index (one copy per four lanes:
            /// `resq[i / 4]`, `idxq[i / 4]` feed lane `i`) and valid after the optional `result`
            /// register (after the last tree level, before the output mux). The unit holds the
            /// reduction's `result` register itself, as these copies: one register drove the
            /// output mux of all 32 lanes.
            wr: Signal<Local, Bits<$n>>,
            kr: Vec<Signal<Local, Bits<2>>>,
            resq: Vec<Signal<Local, Bits<32>>>,
            idxq: Vec<Signal<Local, Bits<32>>>,
            rres: Vec<PipeReg<Bits<32>>>,
            ridx: Vec<PipeReg<Bits<32>>>,
            /// With `"pick"`: the crossbar's result (`xd[p * N + i]`), the class (`kd`), the
            /// controls (`cd`) and valid (`vd`) entering delay register `p` (of `pk`).
            xd: Vec<Signal<Local, Bits<32>>>,
            kd: Vec<Signal<Local, Bits<2>>>,
            cd: Vec<Signal<Local, $ctl>>,
            vd: Vec<Signal<Local, Bit>>,
            xdr: Vec<PipeReg<Bits<32>>>,
            kdr: Vec<PipeReg<Bits<2>>>,
            cdr: Vec<PipeReg<$ctl>>,
            vdr: Vec<ValidReg>,
            /// The delayed values the output side reads (the chain's end).
            xo: Vec<Signal<Local, Bits<32>>>,
            ko: Vec<Signal<Local, Bits<2>>>,
            co: Signal<Local, $ctl>,
            vo: Signal<Local, Bit>,
            /// `[pk, pk > 0]`.
            pk: Param<[usize; 2]>,
            /// Output mux per lane and byte copy; `byte[s]` = 0xff << 8s keeps byte `s` of copy `s`.
            oc: Vec<Signal<Local, Bits<32>>>,
            byte: Vec<Constant<Bits<32>>>,
            vr: Signal<Local, Bit>,
            cregr: Vec<PipeReg<Bits<$n>>>,
            kregr: Vec<PipeReg<Bits<2>>>,
            vregr: Vec<ValidReg>,
            /// The unit's result before the optional output register.
            out: Vec<Signal<Local, Bits<32>>>,
            dst_c: Signal<Local, $bus>,
            wen_c: Signal<Local, Bits<$n>>,
            dst_reg: Vec<PipeReg<$bus>>,
            wen_reg: Vec<PipeReg<Bits<$n>>>,
            out_vreg: Vec<ValidReg>,
            /// `stage.0[b]` = 1 when a register follows tree level `b`; `b = K`: outputs.
            stage: Param<[usize; 6]>,
            /// The `pipeline_extra` registers present (1) or not (0) (`pick`: see `pk`).
            extra: Param<Extras>,
        }

        impl $unit {
            pub const LANES: usize = $n;

            /// The stage registers at boundaries `from .. to`: where a register bank's entries
            /// for boundary `to` start (`creg` counts from boundary 1, `kreg` from 0).
            fn registers_in(&self, from: usize, to: usize) -> usize {
                self.stage.0[from..to].iter().sum()
            }

            /// `regs.after_level[b]`: register after tree level `b` (`b = K`: the outputs);
            /// the other fields: the `pipeline_extra` registers.
            pub fn new(regs: Registers) -> Self {
                let stage: [usize; 6] = std::array::from_fn(|b| on(b <= $k && regs.after_level[b]));
                let extra = regs.extras();
                let Extras { front, result, root, input, .. } = extra;
                let pk = regs.pick_cycles($k);
                // with `root`, one root per four lanes: each copy of the result has its own
                let copies = root * ($n >> 2);
                $unit {
                    clk_i: Default::default(),
                    rst_ni: Default::default(),
                    valid_i: Default::default(),
                    op_i: Default::default(),
                    src0_i: Default::default(),
                    src1_i: Default::default(),
                    mask_i: Default::default(),
                    activemask_i: Default::default(),
                    dst_o: Default::default(),
                    wen_o: Default::default(),
                    valid_o: Default::default(),
                    xbar: ShflXbar::new(regs),
                    reduce: Reduce::with_root_copies(regs.of_reduce_in_unit(), copies),
                    lzc: Default::default(),
                    c_shfl: c(CLS_SHFL),
                    c_red: c(CLS_RED),
                    c_rfi: c(CLS_RFI),
                    c_none: c(CLS_NONE),
                    class_shfl: c(crate::decode::class_shfl()),
                    class_fred: c(crate::decode::class_fred()),
                    class_ired: c(crate::decode::class_ired()),
                    zero3: c(0),
                    zero6: c(0),
                    fred_op_reserved: c(crate::decode::fred_op_reserved()),
                    fred_type_last: c(crate::decode::fred_type_last()),
                    ired_op_last: c(crate::decode::ired_op_last()),
                    no_lanes: c(0),
                    cls: Default::default(),
                    opi: Default::default(),
                    parti: Default::default(),
                    acti: Default::default(),
                    vali: Default::default(),
                    in_op: many(input),
                    in_part: many(input),
                    in_act: many(input),
                    in_v: many(input),
                    rsrc: many($n >> 2),
                    rc: Param([copies, on(copies == 0)]),
                    c0: Default::default(),
                    creg0: many(stage[0]),
                    vreg0: many(stage[0]),
                    cq: many($k),
                    vq: many($k),
                    creg: many(stage[1..$k].iter().sum()),
                    vreg: many(stage[1..$k].iter().sum()),
                    kq: many($n * $k),
                    kreg: many($n * stage[0..$k].iter().sum::<usize>()),
                    c0f: Default::default(),
                    clsf: Default::default(),
                    v0f: Default::default(),
                    c0x: Default::default(),
                    clsx: Default::default(),
                    v0x: Default::default(),
                    cregx: many(root),
                    kregx: many(root),
                    vregx: many(root),
                    cregf: many(front),
                    lzcq: many(front),
                    kregf: many(front),
                    vregf: many(front),
                    wr: Default::default(),
                    kr: many(4 * $n),
                    resq: many($n >> 2),
                    idxq: many($n >> 2),
                    rres: many(result * ($n >> 2)),
                    ridx: many(result * ($n >> 2)),
                    xd: many(pk.max(1) * $n),
                    kd: many(pk.max(1) * $n),
                    cd: many(pk.max(1)),
                    vd: many(pk.max(1)),
                    xdr: many(pk * $n),
                    kdr: many(pk * $n),
                    cdr: many(pk),
                    vdr: many(pk),
                    xo: many($n),
                    ko: many($n),
                    co: Default::default(),
                    vo: Default::default(),
                    pk: Param([pk, on(pk > 0)]),
                    oc: many(4 * $n),
                    byte: (0..4).map(|s| c(0xffu64 << (8 * s))).collect(),
                    vr: Default::default(),
                    cregr: many(result),
                    kregr: many(result * 4 * $n),
                    vregr: many(result),
                    out: many($n),
                    dst_c: Default::default(),
                    wen_c: Default::default(),
                    dst_reg: many(stage[$k]),
                    wen_reg: many(stage[$k]),
                    out_vreg: many(stage[$k]),
                    stage: Param(stage),
                    extra: Param(extra),
                }
            }
        }

        seq!(L in 0..$n {
        impl Logic for $unit {
            #[hdl_gen]
            fn update(&mut self) {
                // ---- optional `input` register (the unit's copies; the blocks hold their own)
                opt_reg!(self.extra.0.input, self.in_op[0], self.op_i.val() => self.opi);
                opt_reg!(self.extra.0.input, self.in_part[0],
                    self.mask_i.val().get_bits::<$n>(0) & self.activemask_i.val() => self.parti);
                opt_reg!(self.extra.0.input, self.in_act[0], self.activemask_i.val() => self.acti);
                opt_reg!(self.extra.0.input, self.in_v[0], self.valid_i.val() => self.vali, reset);
                // ---- decode
                if self.opi.val().get_bits::<2>(6) == self.class_shfl.val() {
                    if self.opi.val().get_bits::<3>(3) == self.zero3.val() {
                        self.cls.next = self.c_shfl.val();
                    } else {
                        self.cls.next = self.c_none.val();
                    }
                } else if self.opi.val().get_bits::<2>(6) == self.class_fred.val() {
                    if (self.opi.val().get_bits::<2>(0) != self.fred_op_reserved.val())
                        && (self.opi.val().get_bits::<3>(3) <= self.fred_type_last.val())
                    {
                        self.cls.next = self.c_red.val();
                    } else {
                        self.cls.next = self.c_none.val();
                    }
                } else if self.opi.val().get_bits::<2>(6) == self.class_ired.val() {
                    if !self.opi.val().get_bit(5) && (self.opi.val().get_bits::<4>(0) <= self.ired_op_last.val()) {
                        self.cls.next = self.c_red.val();
                    } else {
                        self.cls.next = self.c_none.val();
                    }
                } else if self.opi.val().get_bits::<6>(0) == self.zero6.val() {
                    self.cls.next = self.c_rfi.val();
                } else {
                    self.cls.next = self.c_none.val();
                }
                // ---- blocks
                self.xbar.clk_i.next = self.clk_i.val();
                self.xbar.mode_i.next = self.op_i.val().get_bits::<2>(0);
                self.xbar.sg_i.next = self.op_i.val().get_bit(2);
                // submodule inputs come straight from ports: a value computed in this always block
                // and fed to a child whose outputs this block reads is a false loop for Verilator
                self.xbar.part_i.next = self.mask_i.val().get_bits::<$n>(0) & self.activemask_i.val();
                self.xbar.src0_i.next = self.src0_i.val();
                self.xbar.src1_i.next = self.src1_i.val();
                self.reduce.clk_i.next = self.clk_i.val();
                self.reduce.op_i.next = self.op_i.val();
                self.reduce.part_i.next = self.mask_i.val().get_bits::<$n>(0) & self.activemask_i.val();
                self.reduce.src0_i.next = self.src0_i.val();
                // ---- controls at the front
                if (self.cls.val() == self.c_shfl.val()) || (self.cls.val() == self.c_red.val()) {
                    self.c0.next = self.parti.val();
                } else if self.cls.val() == self.c_rfi.val() {
                    self.c0.next = self.acti.val();
                } else {
                    self.c0.next = self.no_lanes.val();
                }
                // ---- optional `front` register
                for r in 0..self.extra.0.front {
                    self.cregf[r].clk_i.next = self.clk_i.val();
                    self.cregf[r].d_i.next = self.c0.val();
                    self.c0f.next.wen = self.cregf[r].q_o.val();
                    self.lzcq[r].clk_i.next = self.clk_i.val();
                    self.lzcq[r].d_i.next = self.parti.val();
                    self.lzc.bits_i.next = self.lzcq[r].q_o.val();
                    self.c0f.next.idx = self.lzc.idx_o.val();
                    self.kregf[r].clk_i.next = self.clk_i.val();
                    self.kregf[r].d_i.next = self.cls.val();
                    self.clsf.next = self.kregf[r].q_o.val();
                    self.vregf[r].clk_i.next = self.clk_i.val();
                    self.vregf[r].rst_ni.next = self.rst_ni.val();
                    self.vregf[r].d_i.next = self.vali.val();
                    self.v0f.next = self.vregf[r].q_o.val();
                }
                for _e in 0..(1 - self.extra.0.front) {
                    self.c0f.next.wen = self.c0.val();
                    // (straight from a register or the ports: see the blocks' inputs above)
                    for q in 0..self.extra.0.input {
                        self.lzc.bits_i.next = self.in_part[q].q_o.val();
                    }
                    for _f in 0..(1 - self.extra.0.input) {
                        self.lzc.bits_i.next = self.mask_i.val().get_bits::<$n>(0) & self.activemask_i.val();
                    }
                    self.c0f.next.idx = self.lzc.idx_o.val();
                    self.clsf.next = self.cls.val();
                    self.v0f.next = self.vali.val();
                }
                // ---- optional `root` register (the reduction's last node to its root)
                opt_reg!(self.extra.0.root, self.cregx[0], self.c0f.val() => self.c0x);
                opt_reg!(self.extra.0.root, self.kregx[0], self.clsf.val() => self.clsx);
                opt_reg!(self.extra.0.root, self.vregx[0], self.v0f.val() => self.v0x, reset);
                // ---- control pipeline: a register after tree level b < K where enabled
                opt_reg!(self.stage.0[0], self.creg0[0], self.c0x.val() => self.cq[0]);
                opt_reg!(self.stage.0[0], self.vreg0[0], self.v0x.val() => self.vq[0], reset);
                for b in 1..$k {
                    for r in self.registers_in(1, b)..self.registers_in(1, b + 1) {
                        self.creg[r].clk_i.next = self.clk_i.val();
                        self.creg[r].d_i.next = self.cq[b - 1].val();
                        self.cq[b].next = self.creg[r].q_o.val();
                        self.vreg[r].clk_i.next = self.clk_i.val();
                        self.vreg[r].rst_ni.next = self.rst_ni.val();
                        self.vreg[r].d_i.next = self.vq[b - 1].val();
                        self.vq[b].next = self.vreg[r].q_o.val();
                    }
                    for _e in 0..(1 - self.stage.0[b]) {
                        self.cq[b].next = self.cq[b - 1].val();
                        self.vq[b].next = self.vq[b - 1].val();
                    }
                }
                // ---- the class, one copy per lane, through the same boundaries
                for i in 0..$n {
                    opt_reg!(self.stage.0[0], self.kreg[i], self.clsx.val() => self.kq[i]);
                }
                for b in 1..$k {
                    for r in self.registers_in(0, b)..self.registers_in(0, b + 1) {
                        for i in 0..$n {
                            self.kreg[r * $n + i].clk_i.next = self.clk_i.val();
                            self.kreg[r * $n + i].d_i.next = self.kq[(b - 1) * $n + i].val();
                            self.kq[b * $n + i].next = self.kreg[r * $n + i].q_o.val();
                        }
                    }
                    for _e in 0..(1 - self.stage.0[b]) {
                        for i in 0..$n {
                            self.kq[b * $n + i].next = self.kq[(b - 1) * $n + i].val();
                        }
                    }
                }
                // ---- with "pick": the reduction's pick registers add `pk` cycles; the crossbar's
                // result and the controls wait as long (entry p: after p registers)
                for i in 0..$n {
                    self.xd[i].next = self.xbar.dst_o[i].val();
                    self.kd[i].next = self.kq[($k - 1) * $n + i].val();
                }
                self.cd[0].next = self.cq[$k - 1].val();
                self.vd[0].next = self.vq[$k - 1].val();
                for p in 1..self.pk.0[0] {
                    for i in 0..$n {
                        self.xd[p * $n + i].next = self.xdr[(p - 1) * $n + i].q_o.val();
                        self.kd[p * $n + i].next = self.kdr[(p - 1) * $n + i].q_o.val();
                    }
                    self.cd[p].next = self.cdr[p - 1].q_o.val();
                    self.vd[p].next = self.vdr[p - 1].q_o.val();
                }
                for p in 0..self.pk.0[0] {
                    for i in 0..$n {
                        self.xdr[p * $n + i].clk_i.next = self.clk_i.val();
                        self.xdr[p * $n + i].d_i.next = self.xd[p * $n + i].val();
                        self.kdr[p * $n + i].clk_i.next = self.clk_i.val();
                        self.kdr[p * $n + i].d_i.next = self.kd[p * $n + i].val();
                    }
                    self.cdr[p].clk_i.next = self.clk_i.val();
                    self.cdr[p].d_i.next = self.cd[p].val();
                    self.vdr[p].clk_i.next = self.clk_i.val();
                    self.vdr[p].rst_ni.next = self.rst_ni.val();
                    self.vdr[p].d_i.next = self.vd[p].val();
                    // the chain's end: the last iteration's value stands
                    for i in 0..$n {
                        self.xo[i].next = self.xdr[p * $n + i].q_o.val();
                        self.ko[i].next = self.kdr[p * $n + i].q_o.val();
                    }
                    self.co.next = self.cdr[p].q_o.val();
                    self.vo.next = self.vdr[p].q_o.val();
                }
                for _e in 0..(1 - self.pk.0[1]) {
                    for i in 0..$n {
                        self.xo[i].next = self.xd[i].val();
                        self.ko[i].next = self.kd[i].val();
                    }
                    self.co.next = self.cd[0].val();
                    self.vo.next = self.vd[0].val();
                }
                // ---- the reduction's result for each four lanes
                for g in 0..self.rc.0[0] {
                    self.rsrc[g].next = self.reduce.results_o[g].val();
                }
                for _e in 0..self.rc.0[1] {
                    for g in 0..($n >> 2) {
                        self.rsrc[g].next = self.reduce.result_o.val();
                    }
                }
                // ---- optional `result` register (after the last tree level)
                opt_reg!(self.extra.0.result, self.cregr[0], self.co.val().wen => self.wr);
                for g in 0..($n >> 2) {
                    opt_reg!(self.extra.0.result, self.rres[g], self.rsrc[g].val() => self.resq[g]);
                    opt_reg!(self.extra.0.result, self.ridx[g], self.co.val().idx => self.idxq[g]);
                }
                for i in 0..$n {
                    for s in 0..4 {
                        opt_reg!(self.extra.0.result, self.kregr[4 * i + s], self.ko[i].val()
                            => self.kr[4 * i + s]);
                    }
                }
                opt_reg!(self.extra.0.result, self.vregr[0], self.vo.val() => self.vr, reset);
                // ---- output mux (controls of the last tree level), byte `s` of each lane switched
                // by its own copy of the class
                for g in 0..($n >> 2) {
                    for j in 0..4 {
                        for s in 0..4 {
                            if self.kr[16 * g + 4 * j + s].val() == self.c_shfl.val() {
                                self.oc[16 * g + 4 * j + s].next = self.xo[4 * g + j].val();
                            } else if self.kr[16 * g + 4 * j + s].val() == self.c_red.val() {
                                self.oc[16 * g + 4 * j + s].next = self.resq[g].val();
                            } else {
                                self.oc[16 * g + 4 * j + s].next = self.idxq[g].val();
                            }
                        }
                    }
                }
                for i in 0..$n {
                    self.out[i].next = (self.oc[4 * i].val() & self.byte[0].val())
                        | (self.oc[4 * i + 1].val() & self.byte[1].val())
                        | (self.oc[4 * i + 2].val() & self.byte[2].val())
                        | (self.oc[4 * i + 3].val() & self.byte[3].val());
                }
                #(
                    self.dst_c.next.l~L = self.out[L].val();
                )*
                self.wen_c.next = self.wr.val();
                // ---- optional output register (boundary K)
                opt_reg!(self.stage.0[$k], self.dst_reg[0], self.dst_c.val() => self.dst_o);
                opt_reg!(self.stage.0[$k], self.wen_reg[0], self.wen_c.val() => self.wen_o);
                opt_reg!(self.stage.0[$k], self.out_vreg[0], self.vr.val() => self.valid_o, reset);
            }
        }
        });
    };
}

unit!(Unit4, LanesBus4, UnitCtl4, 4, 2, 3, 128);
unit!(Unit8, LanesBus8, UnitCtl8, 8, 3, 4, 256);
unit!(Unit16, LanesBus16, UnitCtl16, 16, 4, 5, 512);
unit!(Unit32, LanesBus32, UnitCtl32, 32, 5, 6, 1024);

//! `pisa_sg_reduce` ([`Reduce`]): the reduction tree — decoders, `N` leaves, `log2(N)` levels of
//! nodes, the root — and its registers (see [`super`] for the structure and the latency).

use pisa_hdl_gen::hdl_gen;
use rust_hdl::prelude::*;

use crate::config::{Extras, ReductionNodes, Registers};
use crate::prims::{many, on, Param, PipeReg};

use super::{
    RedCtl, RedNode, RedPair, ReduceDecode, ReduceLeaf, ReduceNode, ReduceNodeCompact, ReducePick,
    ReduceRoot,
};

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
    /// Controls: one copy per leaf (the others per node: `cq`).
    c0q: Vec<Signal<Local, RedCtl>>,
    r0s: Vec<PipeReg<Bits<W>>>,
    r0p: Vec<PipeReg<Bits<N>>>,
    r0c: Vec<PipeReg<RedCtl>>,
    leaves: Vec<ReduceLeaf>,
    /// Per tree level `b`, the outer index (`[0]` unused, `1 ..= K`): its `N >> b` nodes, `n`
    /// with `reduction = "pair"`, `nc` with `"compact"` (the other is empty).
    n: Vec<Vec<ReduceNode>>,
    nc: Vec<Vec<ReduceNodeCompact>>,
    /// Node values and controls after level `b` and its optional registers (`0 <= b < K`; `[0]`:
    /// the leaves after the optional `front` register). `lq[b]` has a value per node; `cq[b]` one
    /// control copy per node of level `b + 1`, so no control flip-flop drives more than one
    /// node's logic.
    lq: Vec<Vec<Signal<Local, RedNode>>>,
    cq: Vec<Vec<Signal<Local, RedCtl>>>,
    /// Level `b`'s stage registers hold the nodes' pairs (`r`; the picks follow them) or, with
    /// `reduction = "compact"`, their values (`rv`), and the controls' copies (`rc`)
    /// (`1 <= b < K`).
    r: Vec<Vec<PipeReg<RedPair>>>,
    rv: Vec<Vec<PipeReg<RedNode>>>,
    rc: Vec<Vec<PipeReg<RedCtl>>>,
    pick: Vec<Vec<ReducePick>>,
    /// With `"pick"`: level `b`'s pick registers and the controls' copies beside them.
    p: Vec<Vec<PipeReg<RedNode>>>,
    pc: Vec<Vec<PipeReg<RedCtl>>>,
    /// The optional `front` register after the leaves: values and controls.
    rf: Vec<PipeReg<RedNode>>,
    rfc: Vec<PipeReg<RedCtl>>,
    /// The last node's pair (`"pair"` only) and controls, its pick (`"pair"` only), and the
    /// optional `root` register after the pick or the compact node (the root's decoding and the
    /// result's fan-out share the next cycle, so the pick stays with the last node).
    last: Vec<Signal<Local, RedPair>>,
    lastc: Signal<Local, RedCtl>,
    /// With `"pick"`: the last node's pair and controls registered before its pick.
    rl: Vec<PipeReg<RedPair>>,
    rlc: Vec<PipeReg<RedCtl>>,
    lastcp: Signal<Local, RedCtl>,
    pickl: Vec<ReducePick>,
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
    /// `[pair, compact]`: 1 for the configuration's node form, 0 for the other.
    form: Param<[usize; 2]>,
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
        let compact = on(regs.reduction == ReductionNodes::Compact);
        let pair = 1 - compact;
        assert!(pair == 1 || pick == 0, "a compact node has no pick to register");
        // levels 1 .. K-1 have a pick and may have a stage register; level K is the last node
        let inner = |b: usize| if b >= 1 { N >> b } else { 0 };
        let staged = |b: usize| if b >= 1 { stage[b] } else { 0 };
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
            n: (0..=K).map(|b| many(if b == 0 { 0 } else { pair * (N >> b) })).collect(),
            nc: (0..=K).map(|b| many(if b == 0 { 0 } else { compact * (N >> b) })).collect(),
            lq: (0..K).map(|b| many(N >> b)).collect(),
            cq: (0..K).map(|b| many(N >> (b + 1))).collect(),
            r: (0..K).map(|b| many(pair * staged(b) * (N >> b))).collect(),
            rv: (0..K).map(|b| many(compact * staged(b) * (N >> b))).collect(),
            rc: (0..K).map(|b| many(staged(b) * (N >> (b + 1)))).collect(),
            pick: (0..K).map(|b| many(pair * inner(b))).collect(),
            p: (0..K).map(|b| many(pick * staged(b) * (N >> b))).collect(),
            pc: (0..K).map(|b| many(pick * staged(b) * (N >> (b + 1)))).collect(),
            rf: many(front * N),
            rfc: many(front * (N >> 1)),
            last: many(pair),
            lastc: Default::default(),
            rl: many(pick),
            rlc: many(pick),
            lastcp: Default::default(),
            rx: many(root * roots),
            rxc: many(root * roots),
            pickl: many(pair),
            root: many(roots),
            nr: Param([roots, copies]),
            rr: many(result),
            stage: Param(stage),
            extra: Param(extra),
            form: Param([pair, compact]),
        }
    }
}

impl<const N: usize, const K: usize, const W: usize> Logic for Reduce<N, K, W> {
    #[hdl_gen]
    fn update(&mut self) {
        // ---- optional `input` register: op_i once per decoder, the mask, the operands
        for g in 0..(N >> 2) {
            opt_reg!(self.extra.0.input, self.in_op[g], self.op_i.val() => self.dec[g].op_i);
        }
        opt_reg!(self.extra.0.input, self.in_part[0], self.part_i.val() => self.partg);
        opt_reg!(self.extra.0.input, self.in_src0[0], self.src0_i.val() => self.srcg);
        // ---- boundary 0: operands and controls, registered before the leaves
        opt_reg!(self.stage.0[0], self.r0s[0], self.srcg.val() => self.s0q);
        opt_reg!(self.stage.0[0], self.r0p[0], self.partg.val() => self.p0q);
        for i in 0..N {
            opt_reg!(self.stage.0[0], self.r0c[i], self.dec[i / 4].ctl_o.val() => self.c0q[i]);
        }
        // ---- leaves
        for i in 0..N {
            self.leaves[i].x_i.next = self.s0q.val().get_bits::<32>(i * 32);
            self.leaves[i].part_i.next = self.p0q.val().get_bit(i);
            self.leaves[i].ctl_i.next = self.c0q[i].val();
        }
        // ---- optional `front` register: the leaf values and the controls (`lq[0]`, `cq[0]`)
        for i in 0..N {
            opt_reg!(self.extra.0.front, self.rf[i], self.leaves[i].leaf_o.val() => self.lq[0][i]);
        }
        for j in 0..(N >> 1) {
            opt_reg!(self.extra.0.front, self.rfc[j], self.c0q[2 * j].val() => self.cq[0][j]);
        }
        // ---- the levels: level `b`'s nodes combine pairs of level `b - 1`'s values; below the
        // last level a pair node's pick follows the optional stage register, a compact node's
        // value goes to it directly
        for b in 1..(K + 1) {
            for _f in 0..self.form.0[0] {
                for j in 0..(N >> b) {
                    self.n[b][j].a_i.next = self.lq[b - 1][2 * j].val();
                    self.n[b][j].b_i.next = self.lq[b - 1][2 * j + 1].val();
                    self.n[b][j].ctl_i.next = self.cq[b - 1][j].val();
                }
            }
            for _f in 0..self.form.0[1] {
                for j in 0..(N >> b) {
                    self.nc[b][j].a_i.next = self.lq[b - 1][2 * j].val();
                    self.nc[b][j].b_i.next = self.lq[b - 1][2 * j + 1].val();
                    self.nc[b][j].ctl_i.next = self.cq[b - 1][j].val();
                }
            }
            // reduction = "compact": the node's value, registered or not
            for _e in 0..(on(b < K) * self.stage.0[b] * self.form.0[1]) {
                for j in 0..(N >> b) {
                    self.rv[b][j].clk_i.next = self.clk_i.val();
                    self.rv[b][j].d_i.next = self.nc[b][j].out_o.val();
                    self.lq[b][j].next = self.rv[b][j].q_o.val();
                }
                for j in 0..(N >> (b + 1)) {
                    self.rc[b][j].clk_i.next = self.clk_i.val();
                    self.rc[b][j].d_i.next = self.cq[b - 1][2 * j].val();
                    self.cq[b][j].next = self.rc[b][j].q_o.val();
                }
            }
            for _e in 0..(on(b < K) * (1 - self.stage.0[b]) * self.form.0[1]) {
                for j in 0..(N >> b) {
                    self.lq[b][j].next = self.nc[b][j].out_o.val();
                }
                for j in 0..(N >> (b + 1)) {
                    self.cq[b][j].next = self.cq[b - 1][2 * j].val();
                }
            }
            // reduction = "pair": the register holds the pair, the pick follows it
            for _e in 0..(on(b < K) * self.stage.0[b] * self.form.0[0]) {
                for j in 0..(N >> b) {
                    self.r[b][j].clk_i.next = self.clk_i.val();
                    self.r[b][j].d_i.next = self.n[b][j].out_o.val();
                    self.pick[b][j].pair_i.next = self.r[b][j].q_o.val();
                }
                for j in 0..(N >> (b + 1)) {
                    self.rc[b][j].clk_i.next = self.clk_i.val();
                    self.rc[b][j].d_i.next = self.cq[b - 1][2 * j].val();
                }
                // with "pick": the pick's own register, and the controls' copy beside it
                for _p in 0..self.extra.0.pick {
                    for j in 0..(N >> b) {
                        self.p[b][j].clk_i.next = self.clk_i.val();
                        self.p[b][j].d_i.next = self.pick[b][j].val_o.val();
                        self.lq[b][j].next = self.p[b][j].q_o.val();
                    }
                    for j in 0..(N >> (b + 1)) {
                        self.pc[b][j].clk_i.next = self.clk_i.val();
                        self.pc[b][j].d_i.next = self.rc[b][j].q_o.val();
                        self.cq[b][j].next = self.pc[b][j].q_o.val();
                    }
                }
                for _q in 0..(1 - self.extra.0.pick) {
                    for j in 0..(N >> b) {
                        self.lq[b][j].next = self.pick[b][j].val_o.val();
                    }
                    for j in 0..(N >> (b + 1)) {
                        self.cq[b][j].next = self.rc[b][j].q_o.val();
                    }
                }
            }
            for _e in 0..(on(b < K) * (1 - self.stage.0[b]) * self.form.0[0]) {
                for j in 0..(N >> b) {
                    self.pick[b][j].pair_i.next = self.n[b][j].out_o.val();
                    self.lq[b][j].next = self.pick[b][j].val_o.val();
                }
                for j in 0..(N >> (b + 1)) {
                    self.cq[b][j].next = self.cq[b - 1][2 * j].val();
                }
            }
        }
        // ---- root: the last level's single node, with the controls of that level
        for _f in 0..self.form.0[0] {
            self.last[0].next = self.n[K][0].out_o.val();
        }
        self.lastc.next = self.cq[K - 1][0].val();
        // with "pick": a register before the last node's pick (never with "compact")
        for _f in 0..self.form.0[0] {
            opt_reg!(self.extra.0.pick, self.rl[0], self.last[0].val() => self.pickl[0].pair_i);
        }
        opt_reg!(self.extra.0.pick, self.rlc[0], self.lastc.val() => self.lastcp);
        // ---- optional `root` register between the last node's pick (or the compact node) and
        // the root (one register and root per copy of the result)
        for _r in 0..self.extra.0.root {
            for c in 0..self.nr.0[0] {
                self.rx[c].clk_i.next = self.clk_i.val();
                for _f in 0..self.form.0[0] {
                    self.rx[c].d_i.next = self.pickl[0].val_o.val();
                }
                for _f in 0..self.form.0[1] {
                    self.rx[c].d_i.next = self.nc[K][0].out_o.val();
                }
                self.rxc[c].clk_i.next = self.clk_i.val();
                self.rxc[c].d_i.next = self.lastcp.val();
                self.root[c].root_i.next = self.rx[c].q_o.val();
                self.root[c].ctl_i.next = self.rxc[c].q_o.val();
            }
        }
        for _e in 0..(1 - self.extra.0.root) {
            for _f in 0..self.form.0[0] {
                self.root[0].root_i.next = self.pickl[0].val_o.val();
            }
            for _f in 0..self.form.0[1] {
                self.root[0].root_i.next = self.nc[K][0].out_o.val();
            }
            self.root[0].ctl_i.next = self.lastcp.val();
        }
        for c in 0..self.nr.0[1] {
            self.results_o[c].next = self.root[c].result_o.val();
        }
        // ---- optional `result` register after the root
        opt_reg!(self.extra.0.result, self.rr[0], self.root[0].result_o.val() => self.result_o);
    }
}

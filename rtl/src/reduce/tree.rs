//! `pisa_sg_reduce` ([`Reduce`]): the reduction tree — decoders, `N` leaves, `log2(N)` levels of
//! nodes, the root — and its registers (see [`super`] for the structure and the latency).

use rust_hdl::prelude::*;

use crate::config::{Extras, Registers};
use crate::prims::{many, on, Param, PipeReg};

use super::{
    RedCtl, RedNode, RedPair, ReduceDecode, ReduceLeaf, ReduceNode, ReducePick, ReduceRoot,
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
    /// Controls: one copy per leaf (`c0q`), per level-1 node (`cfq`) and per node of level
    /// `b + 1` (`cqb`), so no control flip-flop drives more than one node's logic.
    c0q: Vec<Signal<Local, RedCtl>>,
    r0s: Vec<PipeReg<Bits<W>>>,
    r0p: Vec<PipeReg<Bits<N>>>,
    r0c: Vec<PipeReg<RedCtl>>,
    leaves: Vec<ReduceLeaf>,
    n1: Vec<ReduceNode>,
    n2: Vec<ReduceNode>,
    n3: Vec<ReduceNode>,
    n4: Vec<ReduceNode>,
    n5: Vec<ReduceNode>,
    /// Node values and controls after the optional register following level `b`.
    lq1: Vec<Signal<Local, RedNode>>,
    lq2: Vec<Signal<Local, RedNode>>,
    lq3: Vec<Signal<Local, RedNode>>,
    lq4: Vec<Signal<Local, RedNode>>,
    cq1: Vec<Signal<Local, RedCtl>>,
    cq2: Vec<Signal<Local, RedCtl>>,
    cq3: Vec<Signal<Local, RedCtl>>,
    cq4: Vec<Signal<Local, RedCtl>>,
    /// Level `b`'s stage registers hold the nodes' pairs; the picks follow them.
    r1: Vec<PipeReg<RedPair>>,
    r2: Vec<PipeReg<RedPair>>,
    r3: Vec<PipeReg<RedPair>>,
    r4: Vec<PipeReg<RedPair>>,
    pick1: Vec<ReducePick>,
    pick2: Vec<ReducePick>,
    pick3: Vec<ReducePick>,
    pick4: Vec<ReducePick>,
    rc1: Vec<PipeReg<RedCtl>>,
    rc2: Vec<PipeReg<RedCtl>>,
    rc3: Vec<PipeReg<RedCtl>>,
    rc4: Vec<PipeReg<RedCtl>>,
    /// With `"pick"`: level `b`'s pick registers and the controls' copies beside them.
    p1: Vec<PipeReg<RedNode>>,
    p2: Vec<PipeReg<RedNode>>,
    p3: Vec<PipeReg<RedNode>>,
    p4: Vec<PipeReg<RedNode>>,
    pc1: Vec<PipeReg<RedCtl>>,
    pc2: Vec<PipeReg<RedCtl>>,
    pc3: Vec<PipeReg<RedCtl>>,
    pc4: Vec<PipeReg<RedCtl>>,
    /// Leaf values and controls after the optional `front` register.
    lfq: Vec<Signal<Local, RedNode>>,
    cfq: Vec<Signal<Local, RedCtl>>,
    rf: Vec<PipeReg<RedNode>>,
    rfc: Vec<PipeReg<RedCtl>>,
    /// The last node's pair and controls, its pick, and the optional `root` register after the
    /// pick (the root's decoding and the result's fan-out share the next cycle, so the pick
    /// stays with the last node).
    last: Signal<Local, RedPair>,
    lastc: Signal<Local, RedCtl>,
    /// With `"pick"`: the last node's pair and controls registered before its pick.
    rl: Vec<PipeReg<RedPair>>,
    rlc: Vec<PipeReg<RedCtl>>,
    lastcp: Signal<Local, RedCtl>,
    pickl: ReducePick,
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
        let nodes = |b: usize| if b <= K { N >> b } else { 0 };
        let inner = |b: usize| if b < K { N >> b } else { 0 };
        let node_ctl = |b: usize| if b < K { N >> (b + 1) } else { 0 };
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
            n1: many(nodes(1)),
            n2: many(nodes(2)),
            n3: many(nodes(3)),
            n4: many(nodes(4)),
            n5: many(nodes(5)),
            lq1: many(inner(1)),
            lq2: many(inner(2)),
            lq3: many(inner(3)),
            lq4: many(inner(4)),
            cq1: many(node_ctl(1)),
            cq2: many(node_ctl(2)),
            cq3: many(node_ctl(3)),
            cq4: many(node_ctl(4)),
            r1: many(if stage[1] == 1 { N >> 1 } else { 0 }),
            r2: many(if stage[2] == 1 { N >> 2 } else { 0 }),
            r3: many(if stage[3] == 1 { N >> 3 } else { 0 }),
            r4: many(if stage[4] == 1 { N >> 4 } else { 0 }),
            pick1: many(inner(1)),
            pick2: many(inner(2)),
            pick3: many(inner(3)),
            pick4: many(inner(4)),
            rc1: many(stage[1] * (N >> (1 + 1))),
            rc2: many(stage[2] * (N >> (2 + 1))),
            rc3: many(stage[3] * (N >> (3 + 1))),
            rc4: many(stage[4] * (N >> (4 + 1))),
            p1: many(pick * stage[1] * (N >> 1)),
            p2: many(pick * stage[2] * (N >> 2)),
            p3: many(pick * stage[3] * (N >> 3)),
            p4: many(pick * stage[4] * (N >> 4)),
            pc1: many(pick * stage[1] * (N >> (1 + 1))),
            pc2: many(pick * stage[2] * (N >> (2 + 1))),
            pc3: many(pick * stage[3] * (N >> (3 + 1))),
            pc4: many(pick * stage[4] * (N >> (4 + 1))),
            lfq: many(N),
            cfq: many(N >> 1),
            rf: many(front * N),
            rfc: many(front * (N >> 1)),
            last: Default::default(),
            lastc: Default::default(),
            rl: many(pick),
            rlc: many(pick),
            lastcp: Default::default(),
            rx: many(root * roots),
            rxc: many(root * roots),
            pickl: Default::default(),
            root: many(roots),
            nr: Param([roots, copies]),
            rr: many(result),
            stage: Param(stage),
            extra: Param(extra),
        }
    }
}

impl<const N: usize, const K: usize, const W: usize> Logic for Reduce<N, K, W> {
    #[hdl_gen]
    fn update(&mut self) {
        // ---- optional `input` register: op_i once per decoder, the mask, the operands
        for r in 0..self.extra.0.input {
            for g in 0..(N >> 2) {
                self.in_op[g].clk_i.next = self.clk_i.val();
                self.in_op[g].d_i.next = self.op_i.val();
                self.dec[g].op_i.next = self.in_op[g].q_o.val();
            }
            self.in_part[r].clk_i.next = self.clk_i.val();
            self.in_part[r].d_i.next = self.part_i.val();
            self.partg.next = self.in_part[r].q_o.val();
            self.in_src0[r].clk_i.next = self.clk_i.val();
            self.in_src0[r].d_i.next = self.src0_i.val();
            self.srcg.next = self.in_src0[r].q_o.val();
        }
        for _e in 0..(1 - self.extra.0.input) {
            for g in 0..(N >> 2) {
                self.dec[g].op_i.next = self.op_i.val();
            }
            self.partg.next = self.part_i.val();
            self.srcg.next = self.src0_i.val();
        }
        // ---- boundary 0: operands and controls, registered before the leaves
        for r in 0..self.stage.0[0] {
            self.r0s[r].clk_i.next = self.clk_i.val();
            self.r0s[r].d_i.next = self.srcg.val();
            self.s0q.next = self.r0s[r].q_o.val();
            self.r0p[r].clk_i.next = self.clk_i.val();
            self.r0p[r].d_i.next = self.partg.val();
            self.p0q.next = self.r0p[r].q_o.val();
            for i in 0..N {
                self.r0c[i].clk_i.next = self.clk_i.val();
                self.r0c[i].d_i.next = self.dec[i / 4].ctl_o.val();
                self.c0q[i].next = self.r0c[i].q_o.val();
            }
        }
        for _e in 0..(1 - self.stage.0[0]) {
            self.s0q.next = self.srcg.val();
            self.p0q.next = self.partg.val();
            for i in 0..N {
                self.c0q[i].next = self.dec[i / 4].ctl_o.val();
            }
        }
        // ---- leaves
        for i in 0..N {
            self.leaves[i].x_i.next = self.s0q.val().get_bits::<32>(i * 32);
            self.leaves[i].part_i.next = self.p0q.val().get_bit(i);
            self.leaves[i].ctl_i.next = self.c0q[i].val();
        }
        // ---- optional `front` register: the leaf values and the controls
        for _r in 0..self.extra.0.front {
            for i in 0..N {
                self.rf[i].clk_i.next = self.clk_i.val();
                self.rf[i].d_i.next = self.leaves[i].leaf_o.val();
                self.lfq[i].next = self.rf[i].q_o.val();
            }
            for j in 0..(N >> 1) {
                self.rfc[j].clk_i.next = self.clk_i.val();
                self.rfc[j].d_i.next = self.c0q[2 * j].val();
                self.cfq[j].next = self.rfc[j].q_o.val();
            }
        }
        for _e in 0..(1 - self.extra.0.front) {
            for i in 0..N {
                self.lfq[i].next = self.leaves[i].leaf_o.val();
            }
            for j in 0..(N >> 1) {
                self.cfq[j].next = self.c0q[2 * j].val();
            }
        }
        // ---- level 1
        for j in 0..(N >> 1) {
            self.n1[j].a_i.next = self.lfq[2 * j].val();
            self.n1[j].b_i.next = self.lfq[2 * j + 1].val();
            self.n1[j].ctl_i.next = self.cfq[j].val();
        }
        for _e in 0..self.stage.0[1] {
            for j in 0..(N >> 1) {
                self.r1[j].clk_i.next = self.clk_i.val();
                self.r1[j].d_i.next = self.n1[j].out_o.val();
                self.pick1[j].pair_i.next = self.r1[j].q_o.val();
            }
            for j in 0..(N >> (1 + 1)) {
                self.rc1[j].clk_i.next = self.clk_i.val();
                self.rc1[j].d_i.next = self.cfq[2 * j].val();
            }
            // with "pick": the pick's own register, and the controls' copy beside it
            for _p in 0..self.extra.0.pick {
                for j in 0..(N >> 1) {
                    self.p1[j].clk_i.next = self.clk_i.val();
                    self.p1[j].d_i.next = self.pick1[j].val_o.val();
                    self.lq1[j].next = self.p1[j].q_o.val();
                }
                for j in 0..(N >> (1 + 1)) {
                    self.pc1[j].clk_i.next = self.clk_i.val();
                    self.pc1[j].d_i.next = self.rc1[j].q_o.val();
                    self.cq1[j].next = self.pc1[j].q_o.val();
                }
            }
            for _q in 0..(1 - self.extra.0.pick) {
                for j in 0..(N >> 1) {
                    self.lq1[j].next = self.pick1[j].val_o.val();
                }
                for j in 0..(N >> (1 + 1)) {
                    self.cq1[j].next = self.rc1[j].q_o.val();
                }
            }
        }
        for _e in 0..(1 - self.stage.0[1]) {
            for j in 0..(N >> 1) {
                self.pick1[j].pair_i.next = self.n1[j].out_o.val();
                self.lq1[j].next = self.pick1[j].val_o.val();
            }
            for j in 0..(N >> (1 + 1)) {
                self.cq1[j].next = self.cfq[2 * j].val();
            }
        }
        // ---- level 2
        for j in 0..(N >> 2) {
            self.n2[j].a_i.next = self.lq1[2 * j].val();
            self.n2[j].b_i.next = self.lq1[2 * j + 1].val();
            self.n2[j].ctl_i.next = self.cq1[j].val();
        }
        for _e in 0..self.stage.0[2] {
            for j in 0..(N >> 2) {
                self.r2[j].clk_i.next = self.clk_i.val();
                self.r2[j].d_i.next = self.n2[j].out_o.val();
                self.pick2[j].pair_i.next = self.r2[j].q_o.val();
            }
            for j in 0..(N >> (2 + 1)) {
                self.rc2[j].clk_i.next = self.clk_i.val();
                self.rc2[j].d_i.next = self.cq1[2 * j].val();
            }
            // with "pick": the pick's own register, and the controls' copy beside it
            for _p in 0..self.extra.0.pick {
                for j in 0..(N >> 2) {
                    self.p2[j].clk_i.next = self.clk_i.val();
                    self.p2[j].d_i.next = self.pick2[j].val_o.val();
                    self.lq2[j].next = self.p2[j].q_o.val();
                }
                for j in 0..(N >> (2 + 1)) {
                    self.pc2[j].clk_i.next = self.clk_i.val();
                    self.pc2[j].d_i.next = self.rc2[j].q_o.val();
                    self.cq2[j].next = self.pc2[j].q_o.val();
                }
            }
            for _q in 0..(1 - self.extra.0.pick) {
                for j in 0..(N >> 2) {
                    self.lq2[j].next = self.pick2[j].val_o.val();
                }
                for j in 0..(N >> (2 + 1)) {
                    self.cq2[j].next = self.rc2[j].q_o.val();
                }
            }
        }
        for _e in 0..(on(K > 2) - self.stage.0[2]) {
            for j in 0..(N >> 2) {
                self.pick2[j].pair_i.next = self.n2[j].out_o.val();
                self.lq2[j].next = self.pick2[j].val_o.val();
            }
            for j in 0..(N >> (2 + 1)) {
                self.cq2[j].next = self.cq1[2 * j].val();
            }
        }
        // ---- level 3
        for j in 0..(N >> 3) {
            self.n3[j].a_i.next = self.lq2[2 * j].val();
            self.n3[j].b_i.next = self.lq2[2 * j + 1].val();
            self.n3[j].ctl_i.next = self.cq2[j].val();
        }
        for _e in 0..self.stage.0[3] {
            for j in 0..(N >> 3) {
                self.r3[j].clk_i.next = self.clk_i.val();
                self.r3[j].d_i.next = self.n3[j].out_o.val();
                self.pick3[j].pair_i.next = self.r3[j].q_o.val();
            }
            for j in 0..(N >> (3 + 1)) {
                self.rc3[j].clk_i.next = self.clk_i.val();
                self.rc3[j].d_i.next = self.cq2[2 * j].val();
            }
            // with "pick": the pick's own register, and the controls' copy beside it
            for _p in 0..self.extra.0.pick {
                for j in 0..(N >> 3) {
                    self.p3[j].clk_i.next = self.clk_i.val();
                    self.p3[j].d_i.next = self.pick3[j].val_o.val();
                    self.lq3[j].next = self.p3[j].q_o.val();
                }
                for j in 0..(N >> (3 + 1)) {
                    self.pc3[j].clk_i.next = self.clk_i.val();
                    self.pc3[j].d_i.next = self.rc3[j].q_o.val();
                    self.cq3[j].next = self.pc3[j].q_o.val();
                }
            }
            for _q in 0..(1 - self.extra.0.pick) {
                for j in 0..(N >> 3) {
                    self.lq3[j].next = self.pick3[j].val_o.val();
                }
                for j in 0..(N >> (3 + 1)) {
                    self.cq3[j].next = self.rc3[j].q_o.val();
                }
            }
        }
        for _e in 0..(on(K > 3) - self.stage.0[3]) {
            for j in 0..(N >> 3) {
                self.pick3[j].pair_i.next = self.n3[j].out_o.val();
                self.lq3[j].next = self.pick3[j].val_o.val();
            }
            for j in 0..(N >> (3 + 1)) {
                self.cq3[j].next = self.cq2[2 * j].val();
            }
        }
        // ---- level 4
        for j in 0..(N >> 4) {
            self.n4[j].a_i.next = self.lq3[2 * j].val();
            self.n4[j].b_i.next = self.lq3[2 * j + 1].val();
            self.n4[j].ctl_i.next = self.cq3[j].val();
        }
        for _e in 0..self.stage.0[4] {
            for j in 0..(N >> 4) {
                self.r4[j].clk_i.next = self.clk_i.val();
                self.r4[j].d_i.next = self.n4[j].out_o.val();
                self.pick4[j].pair_i.next = self.r4[j].q_o.val();
            }
            for j in 0..(N >> (4 + 1)) {
                self.rc4[j].clk_i.next = self.clk_i.val();
                self.rc4[j].d_i.next = self.cq3[2 * j].val();
            }
            // with "pick": the pick's own register, and the controls' copy beside it
            for _p in 0..self.extra.0.pick {
                for j in 0..(N >> 4) {
                    self.p4[j].clk_i.next = self.clk_i.val();
                    self.p4[j].d_i.next = self.pick4[j].val_o.val();
                    self.lq4[j].next = self.p4[j].q_o.val();
                }
                for j in 0..(N >> (4 + 1)) {
                    self.pc4[j].clk_i.next = self.clk_i.val();
                    self.pc4[j].d_i.next = self.rc4[j].q_o.val();
                    self.cq4[j].next = self.pc4[j].q_o.val();
                }
            }
            for _q in 0..(1 - self.extra.0.pick) {
                for j in 0..(N >> 4) {
                    self.lq4[j].next = self.pick4[j].val_o.val();
                }
                for j in 0..(N >> (4 + 1)) {
                    self.cq4[j].next = self.rc4[j].q_o.val();
                }
            }
        }
        for _e in 0..(on(K > 4) - self.stage.0[4]) {
            for j in 0..(N >> 4) {
                self.pick4[j].pair_i.next = self.n4[j].out_o.val();
                self.lq4[j].next = self.pick4[j].val_o.val();
            }
            for j in 0..(N >> (4 + 1)) {
                self.cq4[j].next = self.cq3[2 * j].val();
            }
        }
        // ---- level 5
        for j in 0..(N >> 5) {
            self.n5[j].a_i.next = self.lq4[2 * j].val();
            self.n5[j].b_i.next = self.lq4[2 * j + 1].val();
            self.n5[j].ctl_i.next = self.cq4[j].val();
        }
        // ---- root: the last level's single node, with the controls of that level
        for _e in 0..on(K == 2) {
            self.last.next = self.n2[0].out_o.val();
            self.lastc.next = self.cq1[0].val();
        }
        for _e in 0..on(K == 3) {
            self.last.next = self.n3[0].out_o.val();
            self.lastc.next = self.cq2[0].val();
        }
        for _e in 0..on(K == 4) {
            self.last.next = self.n4[0].out_o.val();
            self.lastc.next = self.cq3[0].val();
        }
        for _e in 0..on(K == 5) {
            self.last.next = self.n5[0].out_o.val();
            self.lastc.next = self.cq4[0].val();
        }
        // with "pick": a register before the last node's pick
        for r in 0..self.extra.0.pick {
            self.rl[r].clk_i.next = self.clk_i.val();
            self.rl[r].d_i.next = self.last.val();
            self.pickl.pair_i.next = self.rl[r].q_o.val();
            self.rlc[r].clk_i.next = self.clk_i.val();
            self.rlc[r].d_i.next = self.lastc.val();
            self.lastcp.next = self.rlc[r].q_o.val();
        }
        for _e in 0..(1 - self.extra.0.pick) {
            self.pickl.pair_i.next = self.last.val();
            self.lastcp.next = self.lastc.val();
        }
        // ---- optional `root` register between the last node's pick and the root
        // (one register and root per copy of the result)
        for _r in 0..self.extra.0.root {
            for c in 0..self.nr.0[0] {
                self.rx[c].clk_i.next = self.clk_i.val();
                self.rx[c].d_i.next = self.pickl.val_o.val();
                self.rxc[c].clk_i.next = self.clk_i.val();
                self.rxc[c].d_i.next = self.lastcp.val();
                self.root[c].root_i.next = self.rx[c].q_o.val();
                self.root[c].ctl_i.next = self.rxc[c].q_o.val();
            }
        }
        for _e in 0..(1 - self.extra.0.root) {
            self.root[0].root_i.next = self.pickl.val_o.val();
            self.root[0].ctl_i.next = self.lastcp.val();
        }
        for c in 0..self.nr.0[1] {
            self.results_o[c].next = self.root[c].result_o.val();
        }
        // ---- optional `result` register after the root
        for r in 0..self.extra.0.result {
            self.rr[r].clk_i.next = self.clk_i.val();
            self.rr[r].d_i.next = self.root[0].result_o.val();
            self.result_o.next = self.rr[r].q_o.val();
        }
        for _e in 0..(1 - self.extra.0.result) {
            self.result_o.next = self.root[0].result_o.val();
        }
    }
}

//! `pisa_sg_shfl_xbar_mux` — the data path of the shuffle crossbar (PISA §7.4): for every lane an
//! N:1 mux tree of 32-bit words built from 2:1 muxes, level `l` switched by bit `l-1` of the
//! lane's select.
//!
//! ```text
//!  src0_i, sel_i ─► [reg? boundary 0] ─► [copy reg? 4 copies of the words] ─► level 1: N lanes × N/2 2:1 muxes
//!            on sel[lane][0] ─► [reg?] ─► level 2 on bit 1 ─► ... level K ─► dst_o[lane]
//!            (select bits travel beside the words through the registers; which [reg?] exist: tree_registers)
//!
//!  per lane, 4 copies of the select (sq[4*lane + s]); copy s switches byte s of every word:
//!    cp[4x+s] = sel copy s ? word a : word b     lv[x] = OR over s of (cp[4x+s] & 0xff << 8s)
//! ```
//! Each register stage holds four copies of every lane's select, one per byte, as separate
//! register instances (synthesis merges identical flip-flops inside one module, not across
//! instances): one select flip-flop drives the muxes of 8 bits, not 32 — 128 LUT4 inputs at
//! level 1 of a 32-lane tree instead of 512. In the mux logic the masks only pick which copy
//! drives which byte; synthesis reduces them to the same 2:1 muxes (measured: 18,432 LUT4 in the
//! 32-lane ECP5 tree, unchanged). Without registers the four copies would be one wire, so a
//! tree without registers (the combinational unit) is emitted with one copy: each node one
//! 32-bit 2:1 mux reading the level before it directly (a quarter of the text, the same gates).
//! It is its own module so synthesis maps it alone: with the select logic outside, each
//! 4:1 step is one LUT6 (7-series) or two LUT4s + PFUMX (ECP5); merged with the select logic,
//! yosys/ABC duplicated select terms into the mux LUTs (2.5× the LUTs at 8 lanes).
//!
//! Latency: combinational, plus one cycle for each enabled stage boundary inside the tree
//! (`0 <= b < K`). The tree is retimed: it holds that many registers, but places them by its own
//! order ([`tree_registers`]), not at the enabled boundaries — first boundary 0 (the words and
//! selects before level 1, so the select logic in front has a cycle of its own), then after every
//! second level (each stage a 4:1 step: two LUT4s + PFUMX on ECP5, one LUT6 on 7-series; with a
//! register after every 2:1 level the 32-lane ECP5 tree took 31,744 LUT4 and 31,744 data
//! flip-flops, with 4:1 steps 21,504 LUT4 + 10,240 PFUMX), then a copy
//! register (four copies of the words, copy `g` feeding destination lanes `g*N/4 ..`, so a
//! source bit drives a quarter of the lanes' first muxes), then after level 3. The reduction
//! tree keeps its registers at the enabled boundaries; both have the same latency.
//! With `crossbar = "compact"` ([`crate::config::CrossbarRegisters`]) the order is boundary 0,
//! after level 3, then registers `rd[1..=3]` (emitted `rd1_*` ..) that delay the trees' outputs:
//! an 8:1 step a cycle (ECP5: 18 LUT4 per output bit through PFUMX and L6MUX21; the 32-lane
//! crossbar of `fpga/configs/small_compact.toml` 20,338 LUT4 against 25,458 for the spread one of
//! `small_pair.toml`) and no copy register.
//! Parameters: `N` lanes, `K = log2(N)`, `W = 32 * N`.

use pisa_hdl_gen::hdl_gen;
use rust_hdl::prelude::*;

use crate::config::{CrossbarRegisters, Registers};
use crate::prims::{many, on, Param, PipeReg};

/// The crossbar's mux trees for `N` lanes (see the module documentation).
#[derive(LogicBlock)]
pub struct ShflMux<const N: usize, const K: usize, const W: usize> {
    pub clk_i: Signal<In, Clock>,
    pub src0_i: Signal<In, Bits<W>>,
    /// Per lane: the lane whose word it receives.
    pub sel_i: Vec<Signal<In, Bits<K>>>,
    pub dst_o: Vec<Signal<Out, Bits<32>>>,
    /// `src0_i` and the selects after the optional register at boundary 0.
    s0q: Signal<Local, Bits<W>>,
    /// `s0q` after the optional copy register: copy `g` feeds destination lanes `g*N/4 ..`.
    s0c: Vec<Signal<Local, Bits<W>>>,
    /// The select copies after the optional copy register.
    sc: Vec<Signal<Local, Bits<K>>>,
    rc: Vec<PipeReg<Bits<W>>>,
    rsc: Vec<PipeReg<Bits<K>>>,
    /// Byte masks 0xff << 8s: byte `s` of every tree word is switched by select copy `s`.
    byte: Vec<Constant<Bits<32>>>,
    r0: Vec<PipeReg<Bits<W>>>,
    rs0: Vec<PipeReg<Bits<K>>>,
    /// Per tree level `b` (the outer index; `[0]` unused): its words, one per lane and node
    /// (`lv`), and with the byte copies the per-byte muxes that form them (`cp`).
    lv: Vec<Vec<Signal<Local, Bits<32>>>>,
    cp: Vec<Vec<Signal<Local, Bits<32>>>>,
    /// Level words (`lq`, `1 <= b < K`) and select copies (`sq`, `0 <= b < K`; `[0]`: after
    /// boundary 0) after the optional register following level `b`.
    lq: Vec<Vec<Signal<Local, Bits<32>>>>,
    sq: Vec<Vec<Signal<Local, Bits<K>>>>,
    /// The registers after level `b` (`2 <= b < K`): words and select copies.
    r: Vec<Vec<PipeReg<Bits<32>>>>,
    rs: Vec<Vec<PipeReg<Bits<K>>>>,
    /// The delay registers of the trees' outputs (`crossbar = "compact"`): `rd[t]` is delay
    /// stage `t` (`1 <= t <= 3`), one word per lane.
    rd: Vec<Vec<PipeReg<Bits<32>>>>,
    /// `delay.0[t]` = 1 when delay stage `t` exists (`1 <= t <= 3`; `[0]` is 1): the outputs
    /// come from the last stage that exists (`delay.0[t] - delay.0[t + 1]`, `t = 0`: the last
    /// level).
    delay: Param<[usize; 5]>,
    /// `stage.0[b]` = 1 when a register follows tree level `b` (`1 <= b < K`; `b = 0`: before
    /// level 1).
    stage: Param<[usize; 6]>,
    /// 1 when the copy register (four copies of the words) sits between boundary 0 and level 1.
    copy: Param<usize>,
    /// Select copies per lane: 4 when the tree holds a register (one copy per byte, see the
    /// module documentation), 1 when it is combinational (the copies would be one wire).
    ncopy: Param<usize>,
    /// 1 when `ncopy` is 4 (the per-byte muxes and their merge are emitted).
    wide: Param<usize>,
    /// 1 when `ncopy` is 1 (one 32-bit 2:1 mux per tree node).
    narrow: Param<usize>,
}

/// Where the crossbar's trees hold their registers ([`tree_registers`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TreeRegisters {
    /// `at[b]`: a register after level `b` (`0`: before level 1), `b < k`.
    pub at: [bool; 6],
    /// The copy register (four copies of the words) between boundary 0 and level 1.
    pub copy: bool,
    /// Registers that delay the trees' outputs (`crossbar = "compact"`), 0..=3.
    pub delay: usize,
}

/// Where the crossbar places its stage registers: as many as `regs` enables inside the tree
/// (boundaries `0 <= b < k`), at the positions of an order of its own, not necessarily the
/// enabled ones (the crossbar is retimed; its latency is the count). `crossbar = "spread"`:
/// boundary 0, after every second level, the copy register, after level 3 (see the module
/// documentation). `"compact"`: boundary 0, after level 3 (when `k > 3`), then delays of the
/// outputs.
pub fn tree_registers(regs: Registers, k: usize) -> TreeRegisters {
    let count = regs.after_level[..k].iter().filter(|&&s| s).count();
    // exactly `k` places, so every count up to `k` boundaries fits
    let order: Vec<Place> = match regs.crossbar {
        // boundary 0 first (the select logic gets a cycle of its own), then after every second
        // level (each stage a 4:1 step: two LUT4s + PFUMX on ECP5, one LUT6 on 7-series), then
        // the copy register (the words fan out to a quarter of the lanes each), then after
        // level 3
        CrossbarRegisters::Spread => std::iter::once(Place::At(0))
            .chain((2..k).step_by(2).map(Place::At))
            .chain(std::iter::once(Place::Copy))
            .chain((3..k).step_by(2).map(Place::At))
            .collect(),
        // boundary 0, an 8:1 step (PFUMX + L6MUX21 on ECP5), the rest of the tree, then delays
        CrossbarRegisters::Compact => std::iter::once(Place::At(0))
            .chain((k > 3).then_some(Place::At(3)))
            .chain(std::iter::repeat(Place::Delay))
            .take(k)
            .collect(),
    };
    debug_assert_eq!(order.len(), k);
    let mut t = TreeRegisters { at: [false; 6], copy: false, delay: 0 };
    for &pos in order.iter().take(count) {
        match pos {
            Place::At(b) => t.at[b] = true,
            Place::Copy => t.copy = true,
            Place::Delay => t.delay += 1,
        }
    }
    t
}

#[derive(Clone, Copy)]
enum Place {
    At(usize),
    Copy,
    Delay,
}

/// Words of level `l` over all lanes.
const fn words(n: usize, l: usize) -> usize {
    n * (n >> l)
}

impl<const N: usize, const K: usize, const W: usize> ShflMux<N, K, W> {
    /// `regs.after_level[b]`: register after tree level `b`, `[0]`: before level 1 (boundaries
    /// `b >= K` and the extra registers are not the tree's).
    pub fn new(regs: Registers) -> Self {
        assert!(N.is_power_of_two() && 1 << K == N && W == 32 * N && (4..=32).contains(&N));
        let TreeRegisters { at, copy, delay } = tree_registers(regs, K);
        let registered = copy || at.iter().any(|&b| b);
        let delay_on: [usize; 5] = std::array::from_fn(|t| on(delay >= t));
        let nc = if registered { 4 } else { 1 };
        let stage = at.map(on);
        let copy = on(copy);
        // boundary 0's registers are `r0`/`rs0`; `r`/`rs` hold those after the levels
        let bank = |b: usize| if b >= 1 && stage[b] == 1 { words(N, b) } else { 0 };
        let sel_bank = |b: usize| if b >= 1 && stage[b] == 1 { 4 * N } else { 0 };
        let level = |b: usize| if b >= 1 { words(N, b) } else { 0 };
        let inner = |b: usize| if b >= 1 && registered { words(N, b) } else { 0 };
        let inner_sel = |b: usize| if b < K && registered { nc * N } else { 0 };
        let cps = |b: usize| if registered { 4 * level(b) } else { 0 };
        ShflMux {
            clk_i: Default::default(),
            src0_i: Default::default(),
            sel_i: many(N),
            dst_o: many(N),
            s0q: Default::default(),
            s0c: many(nc),
            sc: many(nc * N),
            rc: many(4 * copy),
            rsc: many(4 * N * copy),
            r0: many(stage[0]),
            rs0: many(4 * N * stage[0]),
            byte: (0..4 * on(registered))
                .map(|s| Constant::new((0xffu64 << (8 * s)).into()))
                .collect(),
            lv: (0..=K).map(|b| many(level(b))).collect(),
            cp: (0..=K).map(|b| many(cps(b))).collect(),
            lq: (0..K).map(|b| many(inner(b))).collect(),
            sq: (0..K).map(|b| many(if b == 0 { nc * N } else { inner_sel(b) })).collect(),
            r: (0..K).map(|b| many(bank(b))).collect(),
            rs: (0..K).map(|b| many(sel_bank(b))).collect(),
            rd: (0..4).map(|t| many(if t == 0 { 0 } else { N * delay_on[t] })).collect(),
            delay: Param(delay_on),
            stage: Param(stage),
            copy: Param(copy),
            ncopy: Param(nc),
            wide: Param(on(registered)),
            narrow: Param(on(!registered)),
        }
    }
}

impl<const N: usize, const K: usize, const W: usize> Logic for ShflMux<N, K, W> {
    #[hdl_gen]
    fn update(&mut self) {
        // ---- boundary 0: the words and the selects, registered before the tree
        for r in 0..self.stage.0[0] {
            self.r0[r].clk_i.next = self.clk_i.val();
            self.r0[r].d_i.next = self.src0_i.val();
            self.s0q.next = self.r0[r].q_o.val();
            for i in 0..N {
                for s in 0..4 {
                    self.rs0[4 * i + s].clk_i.next = self.clk_i.val();
                    self.rs0[4 * i + s].d_i.next = self.sel_i[i].val();
                    self.sq[0][4 * i + s].next = self.rs0[4 * i + s].q_o.val();
                }
            }
        }
        for _e in 0..(1 - self.stage.0[0]) {
            self.s0q.next = self.src0_i.val();
            for c in self.ncopy.0..(self.ncopy.0 + 1) {
                for i in 0..N {
                    for s in 0..self.ncopy.0 {
                        self.sq[0][c * i + s].next = self.sel_i[i].val();
                    }
                }
            }
        }
        // ---- optional copy register: four copies of the words, one per quarter of the lanes
        for _e in 0..self.copy.0 {
            for g in 0..4 {
                self.rc[g].clk_i.next = self.clk_i.val();
                self.rc[g].d_i.next = self.s0q.val();
                self.s0c[g].next = self.rc[g].q_o.val();
            }
            for c in 0..(4 * N) {
                self.rsc[c].clk_i.next = self.clk_i.val();
                self.rsc[c].d_i.next = self.sq[0][c].val();
                self.sc[c].next = self.rsc[c].q_o.val();
            }
        }
        for _e in 0..(1 - self.copy.0) {
            for g in 0..self.ncopy.0 {
                self.s0c[g].next = self.s0q.val();
            }
            for c in 0..(self.ncopy.0 * N) {
                self.sc[c].next = self.sq[0][c].val();
            }
        }
        // ---- level 1: each lane picks word 2j or 2j+1 of src0 on select bit 0
        for _e in 0..self.wide.0 {
            for h in (N >> 1)..((N >> 1) + 1) {
                for q in (N >> 2)..((N >> 2) + 1) {
                    for i in 0..N {
                        for j in 0..(N >> 1) {
                            for s in 0..4 {
                                if self.sc[4 * i + s].val().get_bit(0) {
                                    self.cp[1][4 * (i * h + j) + s].next =
                                        self.s0c[i / q].val().get_bits::<32>((2 * j + 1) * 32);
                                } else {
                                    self.cp[1][4 * (i * h + j) + s].next =
                                        self.s0c[i / q].val().get_bits::<32>((2 * j) * 32);
                                }
                            }
                            self.lv[1][i * h + j].next = (self.cp[1][4 * (i * h + j)].val()
                                & self.byte[0].val())
                                | (self.cp[1][4 * (i * h + j) + 1].val() & self.byte[1].val())
                                | (self.cp[1][4 * (i * h + j) + 2].val() & self.byte[2].val())
                                | (self.cp[1][4 * (i * h + j) + 3].val() & self.byte[3].val());
                        }
                    }
                }
            }
        }
        for _e in 0..self.narrow.0 {
            for h in (N >> 1)..((N >> 1) + 1) {
                for i in 0..N {
                    for j in 0..(N >> 1) {
                        if self.sc[i].val().get_bit(0) {
                            self.lv[1][i * h + j].next =
                                self.s0c[0].val().get_bits::<32>((2 * j + 1) * 32);
                        } else {
                            self.lv[1][i * h + j].next =
                                self.s0c[0].val().get_bits::<32>((2 * j) * 32);
                        }
                    }
                }
            }
        }
        // (no register after level 1: tree_registers never places one there)
        for x in 0..(words(N, 1) * self.wide.0) {
            self.lq[1][x].next = self.lv[1][x].val();
        }
        for c in 0..(self.ncopy.0 * N * self.wide.0) {
            self.sq[1][c].next = self.sc[c].val();
        }
        // ---- levels 2 .. K: lane i's node j picks node 2j or 2j+1 of the level before on
        // select bit b-1; `h` nodes per lane
        for b in 2..(K + 1) {
            for _e in 0..self.wide.0 {
                for h in (N >> b)..((N >> b) + 1) {
                    for i in 0..N {
                        for j in 0..(N >> b) {
                            for s in 0..4 {
                                if self.sq[b - 1][4 * i + s].val().get_bit(b - 1) {
                                    self.cp[b][4 * (i * h + j) + s].next =
                                        self.lq[b - 1][i * 2 * h + 2 * j + 1].val();
                                } else {
                                    self.cp[b][4 * (i * h + j) + s].next =
                                        self.lq[b - 1][i * 2 * h + 2 * j].val();
                                }
                            }
                            self.lv[b][i * h + j].next = (self.cp[b][4 * (i * h + j)].val()
                                & self.byte[0].val())
                                | (self.cp[b][4 * (i * h + j) + 1].val() & self.byte[1].val())
                                | (self.cp[b][4 * (i * h + j) + 2].val() & self.byte[2].val())
                                | (self.cp[b][4 * (i * h + j) + 3].val() & self.byte[3].val());
                        }
                    }
                }
            }
            for _e in 0..self.narrow.0 {
                for h in (N >> b)..((N >> b) + 1) {
                    for i in 0..N {
                        for j in 0..(N >> b) {
                            if self.sc[i].val().get_bit(b - 1) {
                                self.lv[b][i * h + j].next =
                                    self.lv[b - 1][i * 2 * h + 2 * j + 1].val();
                            } else {
                                self.lv[b][i * h + j].next =
                                    self.lv[b - 1][i * 2 * h + 2 * j].val();
                            }
                        }
                    }
                }
            }
            // below the last level: the optional register after level b, or wires
            for _e in 0..(on(b < K) * self.stage.0[b]) {
                for x in 0..words(N, b) {
                    self.r[b][x].clk_i.next = self.clk_i.val();
                    self.r[b][x].d_i.next = self.lv[b][x].val();
                    self.lq[b][x].next = self.r[b][x].q_o.val();
                }
                for c in 0..(4 * N) {
                    self.rs[b][c].clk_i.next = self.clk_i.val();
                    self.rs[b][c].d_i.next = self.sq[b - 1][c].val();
                    self.sq[b][c].next = self.rs[b][c].q_o.val();
                }
            }
            for _e in 0..(on(b < K) * (1 - self.stage.0[b]) * self.wide.0) {
                for x in 0..words(N, b) {
                    self.lq[b][x].next = self.lv[b][x].val();
                }
                for c in 0..(self.ncopy.0 * N) {
                    self.sq[b][c].next = self.sq[b - 1][c].val();
                }
            }
        }
        // ---- the last level holds one word per lane, the outputs or (crossbar = "compact")
        // delayed by rd[1] .. rd[3]
        for _e in 0..(self.delay.0[0] - self.delay.0[1]) {
            for i in 0..N {
                self.dst_o[i].next = self.lv[K][i].val();
            }
        }
        for _e in 0..self.delay.0[1] {
            for i in 0..N {
                self.rd[1][i].d_i.next = self.lv[K][i].val();
            }
        }
        for _e in 0..self.delay.0[1] {
            for i in 0..N {
                self.rd[1][i].clk_i.next = self.clk_i.val();
            }
        }
        for t in 2..4 {
            for _e in 0..self.delay.0[t] {
                for i in 0..N {
                    self.rd[t][i].clk_i.next = self.clk_i.val();
                    self.rd[t][i].d_i.next = self.rd[t - 1][i].q_o.val();
                }
            }
        }
        for t in 1..4 {
            for _e in 0..(self.delay.0[t] - self.delay.0[t + 1]) {
                for i in 0..N {
                    self.dst_o[i].next = self.rd[t][i].q_o.val();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{tree_registers, CrossbarRegisters, Registers, TreeRegisters};

    fn with(at: &[usize]) -> Registers {
        let mut s = Registers::NONE;
        for &b in at {
            s.after_level[b] = true;
        }
        s
    }

    #[test]
    fn registers_keep_their_count_and_fill_the_order() {
        // 32 lanes: boundary 0, after levels 2 and 4, the copy register, after level 3
        let order: [(&[usize], [bool; 6], bool); 6] = [
            (&[], [false; 6], false),
            (&[3], [true, false, false, false, false, false], false),
            (&[1, 4], [true, false, true, false, false, false], false),
            (&[0, 1, 2], [true, false, true, false, true, false], false),
            (&[0, 1, 2, 3], [true, false, true, false, true, false], true),
            (&[0, 1, 2, 3, 4, 5], [true, false, true, true, true, false], true),
        ];
        for (at, want, copy) in order {
            let t = tree_registers(with(at), 5);
            assert_eq!((t.at, t.copy, t.delay), (want, copy, 0), "{at:?}");
        }
        // boundary K (the outputs) and the extras are not the crossbar's to place
        let all_extras = Registers {
            front: true,
            root: true,
            result: true,
            pick: true,
            input: true,
            ..with(&[5])
        };
        assert_eq!(
            tree_registers(all_extras, 5),
            TreeRegisters { at: [false; 6], copy: false, delay: 0 }
        );
        // 4 lanes: boundary 0, then the copy register
        let t = tree_registers(with(&[0, 1]), 2);
        assert_eq!((t.at, t.copy, t.delay), ([true, false, false, false, false, false], true, 0));
    }

    #[test]
    fn compact_keeps_the_count_with_two_in_the_tree_and_the_rest_as_delays() {
        let compact = |at: &[usize]| Registers { crossbar: CrossbarRegisters::Compact, ..with(at) };
        let t = |at: &[usize], k| {
            let t = tree_registers(compact(at), k);
            ((0..k).filter(|&b| t.at[b]).collect::<Vec<_>>(), t.copy, t.delay)
        };
        // 32 lanes: boundary 0, after level 3, then delays; the outputs' boundary is not its own
        assert_eq!(t(&[], 5), (vec![], false, 0));
        assert_eq!(t(&[4], 5), (vec![0], false, 0));
        assert_eq!(t(&[1, 2, 5], 5), (vec![0, 3], false, 0));
        assert_eq!(t(&[0, 1, 2, 3, 4, 5], 5), (vec![0, 3], false, 3));
        // 16 lanes: after level 3 is inside the tree; 8 lanes: it is the outputs, so delays
        assert_eq!(t(&[0, 1, 2, 3], 4), (vec![0, 3], false, 2));
        assert_eq!(t(&[0, 1, 2], 3), (vec![0], false, 2));
        assert_eq!(t(&[0, 1], 2), (vec![0], false, 1));
    }
}

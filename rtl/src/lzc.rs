//! `pisa_sg_lzc` — the priority encoder of `redfirstidx` (PISA §7.3): the index of the lowest set
//! bit of `bits_i`, or `N` when no bit is set (the pinned value for the spec's endless loop).
//!
//! ```text
//!  bits_i[0] bits_i[1]  bits_i[2] bits_i[3] ...
//!      └──┬───┘             └──┬───┘           level 1: (empty, index) per pair
//!         └────────┬───────────┘               level 2: lower half wins unless empty
//!                 ...                           log2(N) levels
//!  idx_o = empty ? N : index
//! ```
//! A tree of log2(N) levels like common_cells' `lzc` (trailing-zero mode): a node takes the
//! lower child's index unless that child is empty, else the upper child's index with bit
//! `level-1` set. Combinational, no latency.

use rust_hdl::prelude::*;

use crate::prims::many;

/// `pisa_sg_lzc` for `N` bits (see the module documentation).
#[derive(LogicBlock)]
pub struct Lzc<const N: usize> {
    pub bits_i: Signal<In, Bits<N>>,
    /// Index of the lowest set bit, `N` when `bits_i` is 0 (zero-extended to 32 bits).
    pub idx_o: Signal<Out, Bits<32>>,
    /// `level_bit[l]` = `1 << l`.
    level_bit: Vec<Constant<Bits<32>>>,
    zero: Constant<Bits<32>>,
    empty_value: Constant<Bits<32>>,
    /// Level `l` arrays, `N >> l` nodes (level 0: the input bits).
    e0: Vec<Signal<Local, Bit>>,
    e1: Vec<Signal<Local, Bit>>,
    e2: Vec<Signal<Local, Bit>>,
    e3: Vec<Signal<Local, Bit>>,
    e4: Vec<Signal<Local, Bit>>,
    e5: Vec<Signal<Local, Bit>>,
    x1: Vec<Signal<Local, Bits<32>>>,
    x2: Vec<Signal<Local, Bits<32>>>,
    x3: Vec<Signal<Local, Bits<32>>>,
    x4: Vec<Signal<Local, Bits<32>>>,
    x5: Vec<Signal<Local, Bits<32>>>,
}

impl<const N: usize> Default for Lzc<N> {
    fn default() -> Self {
        assert!(N.is_power_of_two() && (4..=32).contains(&N));
        let at = |l: u32| if l < 32 && (N >> l) > 0 { N >> l } else { 0 };
        Lzc {
            bits_i: Default::default(),
            idx_o: Default::default(),
            level_bit: (0..N.trailing_zeros()).map(|l| Constant::new((1u64 << l).into())).collect(),
            zero: Constant::new(0u64.into()),
            empty_value: Constant::new((N as u64).into()),
            e0: many(N),
            e1: many(at(1)),
            e2: many(at(2)),
            e3: many(at(3)),
            e4: many(at(4)),
            e5: many(at(5)),
            x1: many(at(1)),
            x2: many(at(2)),
            x3: many(at(3)),
            x4: many(at(4)),
            x5: many(at(5)),
        }
    }
}

impl<const N: usize> Logic for Lzc<N> {
    #[hdl_gen]
    fn update(&mut self) {
        for i in 0..N {
            self.e0[i].next = !self.bits_i.val().get_bit(i);
        }
        for j in 0..(N >> 1) {
            self.e1[j].next = self.e0[2 * j].val() && self.e0[2 * j + 1].val();
            if self.e0[2 * j].val() {
                self.x1[j].next = self.level_bit[0].val();
            } else {
                self.x1[j].next = self.zero.val();
            }
        }
        for j in 0..(N >> 2) {
            self.e2[j].next = self.e1[2 * j].val() && self.e1[2 * j + 1].val();
            if self.e1[2 * j].val() {
                self.x2[j].next = self.x1[2 * j + 1].val() | self.level_bit[1].val();
            } else {
                self.x2[j].next = self.x1[2 * j].val();
            }
        }
        for j in 0..(N >> 3) {
            self.e3[j].next = self.e2[2 * j].val() && self.e2[2 * j + 1].val();
            if self.e2[2 * j].val() {
                self.x3[j].next = self.x2[2 * j + 1].val() | self.level_bit[2].val();
            } else {
                self.x3[j].next = self.x2[2 * j].val();
            }
        }
        for j in 0..(N >> 4) {
            self.e4[j].next = self.e3[2 * j].val() && self.e3[2 * j + 1].val();
            if self.e3[2 * j].val() {
                self.x4[j].next = self.x3[2 * j + 1].val() | self.level_bit[3].val();
            } else {
                self.x4[j].next = self.x3[2 * j].val();
            }
        }
        for j in 0..(N >> 5) {
            self.e5[j].next = self.e4[2 * j].val() && self.e4[2 * j + 1].val();
            if self.e4[2 * j].val() {
                self.x5[j].next = self.x4[2 * j + 1].val() | self.level_bit[4].val();
            } else {
                self.x5[j].next = self.x4[2 * j].val();
            }
        }
        for _e in 0..crate::prims::on(N == 4) {
            if self.e2[0].val() {
                self.idx_o.next = self.empty_value.val();
            } else {
                self.idx_o.next = self.x2[0].val();
            }
        }
        for _e in 0..crate::prims::on(N == 8) {
            if self.e3[0].val() {
                self.idx_o.next = self.empty_value.val();
            } else {
                self.idx_o.next = self.x3[0].val();
            }
        }
        for _e in 0..crate::prims::on(N == 16) {
            if self.e4[0].val() {
                self.idx_o.next = self.empty_value.val();
            } else {
                self.idx_o.next = self.x4[0].val();
            }
        }
        for _e in 0..crate::prims::on(N == 32) {
            if self.e5[0].val() {
                self.idx_o.next = self.empty_value.val();
            } else {
                self.idx_o.next = self.x5[0].val();
            }
        }
    }
}

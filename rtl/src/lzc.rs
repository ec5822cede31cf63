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
//! A tree of log2(N) levels like common_cells' `lzc` (trailing-zero mode), written once as a
//! loop over a heap numbered from the leaves: entries `0 .. N-1` are the input bits, inner node
//! `j` (`0 <= j < N-1`) is entry `N + j` and combines entries `2j` and `2j+1`, so every node
//! follows its children and the root is entry `2N-2`. A node takes the lower child's index
//! unless that child is empty, else the upper child's index with bit `level-1` set (`level`
//! counted from the leaves). Signal names: `e_<m>` (no set bit below entry `m`) and `x_<m>`
//! (the index of its lowest set bit). Combinational, no latency.

use rust_hdl::prelude::*;

use crate::prims::many;

/// `pisa_sg_lzc` for `N` bits (see the module documentation).
#[derive(LogicBlock)]
pub struct Lzc<const N: usize> {
    pub bits_i: Signal<In, Bits<N>>,
    /// Index of the lowest set bit, `N` when `bits_i` is 0 (zero-extended to 32 bits).
    pub idx_o: Signal<Out, Bits<32>>,
    /// `node_bit[j]` = `1 << (level - 1)` for inner node `j` at `level` above the leaves.
    node_bit: Vec<Constant<Bits<32>>>,
    zero: Constant<Bits<32>>,
    empty_value: Constant<Bits<32>>,
    /// Heap entry `m`: no set bit below it (`e`), the index of its lowest set bit (`x`).
    e: Vec<Signal<Local, Bit>>,
    x: Vec<Signal<Local, Bits<32>>>,
}

/// The level above the leaves of inner node `j` of an `n`-leaf heap numbered from the leaves.
fn level(n: usize, j: usize) -> u32 {
    // the nodes above j number n - 2 - j; level l holds those with 2^(K-l) <= n - 1 - j < 2^(K-l+1)
    n.trailing_zeros() - (n - 1 - j).ilog2()
}

impl<const N: usize> Default for Lzc<N> {
    fn default() -> Self {
        assert!(N.is_power_of_two() && (4..=32).contains(&N));
        Lzc {
            bits_i: Default::default(),
            idx_o: Default::default(),
            node_bit: (0..N - 1)
                .map(|j| Constant::new((1u64 << (level(N, j) - 1)).into()))
                .collect(),
            zero: Constant::new(0u64.into()),
            empty_value: Constant::new((N as u64).into()),
            e: many(2 * N - 1),
            x: many(2 * N - 1),
        }
    }
}

impl<const N: usize> Logic for Lzc<N> {
    #[hdl_gen]
    fn update(&mut self) {
        // rust-hdl evaluates an array index from loop variables and literals only: this loop of
        // one iteration binds `n` = N for the indices below
        for n in N..(N + 1) {
            for i in 0..N {
                self.e[i].next = !self.bits_i.val().get_bit(i);
                self.x[i].next = self.zero.val();
            }
            for j in 0..(N - 1) {
                self.e[n + j].next = self.e[2 * j].val() && self.e[2 * j + 1].val();
                if self.e[2 * j].val() {
                    self.x[n + j].next = self.x[2 * j + 1].val() | self.node_bit[j].val();
                } else {
                    self.x[n + j].next = self.x[2 * j].val();
                }
            }
            if self.e[2 * n - 2].val() {
                self.idx_o.next = self.empty_value.val();
            } else {
                self.idx_o.next = self.x[2 * n - 2].val();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn heap_levels() {
        // 8 leaves: inner nodes 0-3 at level 1, 4-5 at 2, the root 6 at 3
        let want = [1, 1, 1, 1, 2, 2, 3];
        assert_eq!((0..7).map(|j| super::level(8, j)).collect::<Vec<_>>(), want);
        assert_eq!(super::level(32, 30), 5);
        assert_eq!(super::level(32, 15), 1);
        assert_eq!(super::level(32, 16), 2);
    }
}

//! Reductions: `reduce_*` (result in each tile's lane 0), `reduce_all_*` (broadcast to the tile),
//! `segmented_reduce_*` (broadcast to each head-flagged segment), for add, min and max.
//!
//! Lowering: i32/u32 add/min/max and f32 min/max have one-instruction forms (`ired.sum`,
//! `ired.{s,u}{min,max}`, `fred.{min,max}`); they are used when a tile needs at most `log2_size`
//! of them (one per tile, so `log2_size` 4 and 5), the point where they are cheaper than the
//! doc's `log2_size`-step shuffle tree. Everything else is the doc's tree: `shfl.dn.sg` steps of
//! 16, 8, 4, 2, 1 (within the tile) for `reduce_*`, a `shfl.xor` butterfly for `reduce_all_*`.
//! Float `min`/`max` follow `fred`'s rules on either path (see `value.rs`), so the path does not
//! change the answer; float `add` is only ever a tree, in the doc's order.

use super::{check_log2, tile_src1, Lanes, Num, Result, Subgroup, Value, LOG2_GROUP_SIZE};
use crate::backend::SubgroupBackend;
use crate::op::{SgOp, ShflMode, LANES};

/// True when one instruction per tile costs at most the `k`-step tree.
fn unit_is_cheaper(k: u32) -> bool {
    (1u32 << (LOG2_GROUP_SIZE - k)) <= k
}

/// Lane `i`'s segment `[start, end]`: segments begin at a set bit of `starts`.
fn segment(starts: u32, i: usize) -> (u32, u32) {
    let below = starts & (((2u64 << i) - 1) as u32); // bits 0..=i
    let start = 31 - below.leading_zeros();
    let above = starts & !(((2u64 << i) - 1) as u32); // bits > i
    let end = if above == 0 { LANES as u32 - 1 } else { above.trailing_zeros() - 1 };
    (start, end)
}

impl<B: SubgroupBackend> Subgroup<B> {
    /// The doc's shuffle tree: `log2_size` steps of shuffle + `f`.
    fn tree<T: Value>(
        &mut self,
        v: &Lanes<T>,
        k: u32,
        all: bool,
        f: fn(T, T) -> T,
    ) -> Result<Lanes<T>> {
        let mut v = *v;
        for d in (0..k).rev() {
            let off = 1u32 << d;
            let other = if all {
                self.shfl(ShflMode::Xor, false, &v, [off; LANES])?
            } else {
                self.shfl(ShflMode::Dn, true, &v, [tile_src1(ShflMode::Dn, k, off); LANES])?
            };
            self.lane_ops(1);
            v = std::array::from_fn(|i| f(v[i], other[i]));
        }
        Ok(v)
    }

    fn reduce_with<T: Value>(
        &mut self,
        name: &'static str,
        v: &Lanes<T>,
        k: u32,
        all: bool,
        unit: Option<SgOp>,
        f: fn(T, T) -> T,
    ) -> Result<Lanes<T>> {
        check_log2(name, k)?;
        if k == 0 {
            return Ok(*v); // every lane is its own tile
        }
        match unit {
            Some(op) if unit_is_cheaper(k) => self.per_tile(op, v, k),
            _ => self.tree(v, k, all, f),
        }
    }

    /// Sum over the subgroup in lane 0 (other lanes: partial sums).
    pub fn reduce_add<T: Num>(&mut self, v: &Lanes<T>) -> Result<Lanes<T>> {
        self.reduce_add_tiled(v, LOG2_GROUP_SIZE)
    }
    /// Sum over each `2^log2_size`-lane tile in the tile's lane 0.
    pub fn reduce_add_tiled<T: Num>(&mut self, v: &Lanes<T>, log2_size: u32) -> Result<Lanes<T>> {
        self.reduce_with("reduce_add_tiled", v, log2_size, false, T::unit_add(), T::add)
    }
    /// Sum over the subgroup in every lane.
    pub fn reduce_all_add<T: Num>(&mut self, v: &Lanes<T>) -> Result<Lanes<T>> {
        self.reduce_all_add_tiled(v, LOG2_GROUP_SIZE)
    }
    /// Sum over each tile in every lane of the tile.
    pub fn reduce_all_add_tiled<T: Num>(
        &mut self,
        v: &Lanes<T>,
        log2_size: u32,
    ) -> Result<Lanes<T>> {
        self.reduce_with("reduce_all_add_tiled", v, log2_size, true, T::unit_add(), T::add)
    }
    pub fn reduce_min<T: Num>(&mut self, v: &Lanes<T>) -> Result<Lanes<T>> {
        self.reduce_min_tiled(v, LOG2_GROUP_SIZE)
    }
    pub fn reduce_min_tiled<T: Num>(&mut self, v: &Lanes<T>, log2_size: u32) -> Result<Lanes<T>> {
        self.reduce_with("reduce_min_tiled", v, log2_size, false, T::unit_minmax(false), T::min)
    }
    pub fn reduce_all_min<T: Num>(&mut self, v: &Lanes<T>) -> Result<Lanes<T>> {
        self.reduce_all_min_tiled(v, LOG2_GROUP_SIZE)
    }
    pub fn reduce_all_min_tiled<T: Num>(
        &mut self,
        v: &Lanes<T>,
        log2_size: u32,
    ) -> Result<Lanes<T>> {
        self.reduce_with("reduce_all_min_tiled", v, log2_size, true, T::unit_minmax(false), T::min)
    }
    pub fn reduce_max<T: Num>(&mut self, v: &Lanes<T>) -> Result<Lanes<T>> {
        self.reduce_max_tiled(v, LOG2_GROUP_SIZE)
    }
    pub fn reduce_max_tiled<T: Num>(&mut self, v: &Lanes<T>, log2_size: u32) -> Result<Lanes<T>> {
        self.reduce_with("reduce_max_tiled", v, log2_size, false, T::unit_minmax(true), T::max)
    }
    pub fn reduce_all_max<T: Num>(&mut self, v: &Lanes<T>) -> Result<Lanes<T>> {
        self.reduce_all_max_tiled(v, LOG2_GROUP_SIZE)
    }
    pub fn reduce_all_max_tiled<T: Num>(
        &mut self,
        v: &Lanes<T>,
        log2_size: u32,
    ) -> Result<Lanes<T>> {
        self.reduce_with("reduce_all_max_tiled", v, log2_size, true, T::unit_minmax(true), T::max)
    }

    /// Segmented reduction: segments start at every lane whose `head_flag != 0` and at every
    /// tile's first lane; every lane gets its segment's reduction (in lane order, like the
    /// inclusive scan). One ballot, `log2_size` bounded `shfl.up` steps, one `shfl.idx`.
    fn segmented<T: Value>(
        &mut self,
        name: &'static str,
        v: &Lanes<T>,
        head_flag: &Lanes<i32>,
        k: u32,
        f: fn(T, T) -> T,
    ) -> Result<Lanes<T>> {
        check_log2(name, k)?;
        if k == 0 {
            return Ok(*v);
        }
        let heads = self.ballot32(head_flag)?;
        let size = 1usize << k;
        let tile_starts = (0..LANES).step_by(size).fold(0u32, |m, l| m | 1 << l);
        self.lane_ops(2);
        let seg: Lanes<(u32, u32)> = std::array::from_fn(|i| segment(heads | tile_starts, i));
        let mut x = *v;
        for d in 0..k {
            let off = 1u32 << d;
            let up = self.shfl(ShflMode::Up, true, &x, [tile_src1(ShflMode::Up, k, off); LANES])?;
            self.lane_ops(2); // op, select
            x = std::array::from_fn(
                |i| if i as u32 >= seg[i].0 + off { f(up[i], x[i]) } else { x[i] },
            );
        }
        self.shfl(ShflMode::Idx, false, &x, seg.map(|s| s.1))
    }

    pub fn segmented_reduce_add<T: Num>(
        &mut self,
        v: &Lanes<T>,
        head_flag: &Lanes<i32>,
    ) -> Result<Lanes<T>> {
        self.segmented_reduce_add_tiled(v, head_flag, LOG2_GROUP_SIZE)
    }
    pub fn segmented_reduce_add_tiled<T: Num>(
        &mut self,
        v: &Lanes<T>,
        head_flag: &Lanes<i32>,
        log2_size: u32,
    ) -> Result<Lanes<T>> {
        self.segmented("segmented_reduce_add_tiled", v, head_flag, log2_size, T::add)
    }
    pub fn segmented_reduce_min<T: Num>(
        &mut self,
        v: &Lanes<T>,
        head_flag: &Lanes<i32>,
    ) -> Result<Lanes<T>> {
        self.segmented_reduce_min_tiled(v, head_flag, LOG2_GROUP_SIZE)
    }
    pub fn segmented_reduce_min_tiled<T: Num>(
        &mut self,
        v: &Lanes<T>,
        head_flag: &Lanes<i32>,
        log2_size: u32,
    ) -> Result<Lanes<T>> {
        self.segmented("segmented_reduce_min_tiled", v, head_flag, log2_size, T::min)
    }
    pub fn segmented_reduce_max<T: Num>(
        &mut self,
        v: &Lanes<T>,
        head_flag: &Lanes<i32>,
    ) -> Result<Lanes<T>> {
        self.segmented_reduce_max_tiled(v, head_flag, LOG2_GROUP_SIZE)
    }
    pub fn segmented_reduce_max_tiled<T: Num>(
        &mut self,
        v: &Lanes<T>,
        head_flag: &Lanes<i32>,
        log2_size: u32,
    ) -> Result<Lanes<T>> {
        self.segmented("segmented_reduce_max_tiled", v, head_flag, log2_size, T::max)
    }
}

#[cfg(test)]
mod tests {
    use super::segment;

    #[test]
    fn segments_from_start_bits() {
        let starts = 1 | 1 << 5 | 1 << 6 | 1 << 20;
        assert_eq!(segment(starts, 0), (0, 4));
        assert_eq!(segment(starts, 4), (0, 4));
        assert_eq!(segment(starts, 5), (5, 5));
        assert_eq!(segment(starts, 6), (6, 19));
        assert_eq!(segment(starts, 31), (20, 31));
    }
}

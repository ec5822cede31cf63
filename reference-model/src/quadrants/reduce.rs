//! Reductions: `reduce_*` (result in each tile's lane 0), `reduce_all_*` (broadcast to the tile),
//! `segmented_reduce_*` (a per-lane inclusive scan that restarts at every head flag), for add,
//! min and max (quadrants `reductions.py`).
//!
//! Lowering: i32/u32 add/min/max and f32 min/max have one-instruction forms (`ired.sum`,
//! `ired.{s,u}{min,max}`, `fred.{min,max}`); they are used when a tile needs at most `log2_size`
//! of them (one per tile, so `log2_size` 4 and 5), the point where they are cheaper than the
//! library's `log2_size`-step tree. Everything else is the library's tree in its order: `shfl.dn`
//! offsets 16, 8, 4, 2, 1 (within the tile) for `reduce_*`, the `shfl.xor` butterfly of masks 1,
//! 2, 4, 8, 16 for `reduce_all_*`. Float `min`/`max` follow `fred`'s rules on either path (see
//! `value.rs`), so the path does not change the answer; float `add` is only ever a tree.

use super::{check_log2, tile_src1, Flag, Lanes, Num, Result, Subgroup, Value, LOG2_GROUP_SIZE};
use crate::backend::SubgroupBackend;
use crate::op::{SgOp, ShflMode, LANES};

/// True when one instruction per tile costs at most the `k`-step tree.
fn unit_is_cheaper(k: u32) -> bool {
    (1u32 << (LOG2_GROUP_SIZE - k)) <= k
}

/// How far lane `i` sits past its segment's head: the nearest lane `<= i` of its `2^k`-lane tile
/// whose head flag is set (bit of `heads`), or the tile's first lane when there is none.
fn head_distance(heads: u32, i: usize, k: u32) -> u32 {
    let base = i & !((1usize << k) - 1);
    let upto = ((2u64 << i) - 1) as u32; // lanes 0..=i
    let lower = (heads | 1 << base) & upto;
    i as u32 - (31 - lower.leading_zeros())
}

impl<B: SubgroupBackend> Subgroup<B> {
    /// quadrants' trees: `log2_size` steps of shuffle + `f(own, other)`. `reduce_*` is the
    /// `shuffle_down` tree of offsets `2^(k-1), ..., 2, 1` (a `shfl.dn.sg` bounded to the tile:
    /// the tile's lane 0 reads what it would read unbounded); `reduce_all_*` is the `shuffle_xor`
    /// butterfly of masks `1, 2, ..., 2^(k-1)`.
    fn tree<T: Value>(
        &mut self,
        v: &Lanes<T>,
        k: u32,
        all: bool,
        f: fn(T, T) -> T,
    ) -> Result<Lanes<T>> {
        let mut v = *v;
        for step in 0..k {
            let other = if all {
                self.shfl(ShflMode::Xor, false, &v, [1u32 << step; LANES])?
            } else {
                let off = 1u32 << (k - 1 - step);
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

    /// Segmented reduction (quadrants `segmented_reduce_*_tiled`): lane `i` gets
    /// `op(value[head_below ..= i])`, where `head_below` is the nearest lane `<= i` of its tile
    /// whose head flag is non-zero, or the tile's first lane when there is none — an inclusive
    /// scan that restarts at every head. One ballot of the head flags, then `log2_size`
    /// Hillis-Steele steps of `shfl.up` guarded by the lane's distance from its head:
    /// `value = op(value, partner)` where `distance >= 2^step`.
    fn segmented<T: Value, P: Flag>(
        &mut self,
        name: &'static str,
        v: &Lanes<T>,
        head_flag: &Lanes<P>,
        k: u32,
        f: fn(T, T) -> T,
    ) -> Result<Lanes<T>> {
        check_log2(name, k)?;
        if k == 0 {
            return Ok(*v); // every lane is its own tile and segment
        }
        let heads = self.ballot32(head_flag)?;
        self.lane_ops(2); // distance: mask, count leading zeros
        let distance: Lanes<u32> = std::array::from_fn(|i| head_distance(heads, i, k));
        let mut x = *v;
        for step in 0..k {
            let off = 1u32 << step;
            let up = self.shfl(ShflMode::Up, true, &x, [tile_src1(ShflMode::Up, k, off); LANES])?;
            self.lane_ops(2); // op, select
            x = std::array::from_fn(|i| if distance[i] >= off { f(x[i], up[i]) } else { x[i] });
        }
        Ok(x)
    }

    pub fn segmented_reduce_add<T: Num, P: Flag>(
        &mut self,
        v: &Lanes<T>,
        head_flag: &Lanes<P>,
    ) -> Result<Lanes<T>> {
        self.segmented_reduce_add_tiled(v, head_flag, LOG2_GROUP_SIZE)
    }
    pub fn segmented_reduce_add_tiled<T: Num, P: Flag>(
        &mut self,
        v: &Lanes<T>,
        head_flag: &Lanes<P>,
        log2_size: u32,
    ) -> Result<Lanes<T>> {
        self.segmented("segmented_reduce_add_tiled", v, head_flag, log2_size, T::add)
    }
    pub fn segmented_reduce_min<T: Num, P: Flag>(
        &mut self,
        v: &Lanes<T>,
        head_flag: &Lanes<P>,
    ) -> Result<Lanes<T>> {
        self.segmented_reduce_min_tiled(v, head_flag, LOG2_GROUP_SIZE)
    }
    pub fn segmented_reduce_min_tiled<T: Num, P: Flag>(
        &mut self,
        v: &Lanes<T>,
        head_flag: &Lanes<P>,
        log2_size: u32,
    ) -> Result<Lanes<T>> {
        self.segmented("segmented_reduce_min_tiled", v, head_flag, log2_size, T::min)
    }
    pub fn segmented_reduce_max<T: Num, P: Flag>(
        &mut self,
        v: &Lanes<T>,
        head_flag: &Lanes<P>,
    ) -> Result<Lanes<T>> {
        self.segmented_reduce_max_tiled(v, head_flag, LOG2_GROUP_SIZE)
    }
    pub fn segmented_reduce_max_tiled<T: Num, P: Flag>(
        &mut self,
        v: &Lanes<T>,
        head_flag: &Lanes<P>,
        log2_size: u32,
    ) -> Result<Lanes<T>> {
        self.segmented("segmented_reduce_max_tiled", v, head_flag, log2_size, T::max)
    }
}

#[cfg(test)]
mod tests {
    use super::head_distance;

    #[test]
    fn distance_from_the_nearest_head_below() {
        let heads = 1 << 3 | 1 << 5 | 1 << 6 | 1 << 20;
        let d = |i, k| head_distance(heads, i, k);
        assert_eq!(
            (d(0, 5), d(2, 5), d(3, 5), d(4, 5), d(5, 5), d(19, 5), d(31, 5)),
            (0, 2, 0, 1, 0, 13, 11)
        );
        // tiles of 4: lane 4's tile starts at 4 (an implicit head), lane 7's nearest head is 6
        assert_eq!((d(4, 2), d(7, 2), d(2, 2), d(22, 2)), (0, 1, 2, 2));
    }
}

//! Scans: `inclusive_*` and `exclusive_*` for add, mul, min, max (any dtype) and and, or, xor
//! (integer dtypes), with `_tiled` forms.
//!
//! A Hillis–Steele scan on `shfl.up.sg`: `log2_size` steps; at distance `d` a lane whose position
//! in its tile is at least `d` combines `op(value from d lanes below, own value)` — lower lanes
//! always on the left, so lane `i` holds `v[0] op v[1] op ... op v[i]` of its tile in lane order.
//! Exclusive scans shift the input up by one lane first (one `shfl.up` and a select of the
//! identity in each tile's lane 0), then scan inclusively, as quadrants does.

use super::{check_log2, tile_src1, Int, Lanes, Num, Result, Subgroup, Value, LOG2_GROUP_SIZE};
use crate::backend::SubgroupBackend;
use crate::op::{ShflMode, LANES};

impl<B: SubgroupBackend> Subgroup<B> {
    /// Inclusive scan of `v` with any associative `op` within `2^log2_size`-lane tiles. The
    /// building block of the `inclusive_*` family, public for other operators (the doc's "build
    /// a sized helper" pattern). `op` need not be commutative.
    pub fn inclusive_scan_tiled_with<T: Value>(
        &mut self,
        v: &Lanes<T>,
        log2_size: u32,
        op: impl Fn(T, T) -> T,
    ) -> Result<Lanes<T>> {
        check_log2("inclusive_scan_tiled", log2_size)?;
        let mask = (1usize << log2_size) - 1;
        let mut x = *v;
        for d in 0..log2_size {
            let off = 1usize << d;
            let up = self.shfl(
                ShflMode::Up,
                true,
                &x,
                [tile_src1(ShflMode::Up, log2_size, off as u32); LANES],
            )?;
            self.lane_ops(2); // op, select
            x = std::array::from_fn(|i| if i & mask >= off { op(up[i], x[i]) } else { x[i] });
        }
        Ok(x)
    }

    /// Exclusive scan: the tile's lane 0 holds `identity`, lane `i` the scan of the lanes before
    /// it. As quadrants' `_exclusive_scan_tiled`: the input is shifted up by one lane first
    /// (`shfl.up` by 1, `identity` in each tile's lane 0), then scanned inclusively, so lane `i`
    /// combines `identity, v[0], ..., v[i-1]` in the inclusive scan's order.
    pub fn exclusive_scan_tiled_with<T: Value>(
        &mut self,
        v: &Lanes<T>,
        log2_size: u32,
        identity: T,
        op: impl Fn(T, T) -> T,
    ) -> Result<Lanes<T>> {
        check_log2("exclusive_scan_tiled", log2_size)?;
        if log2_size == 0 {
            return Ok([identity; LANES]); // one-lane tiles: nothing comes before any lane
        }
        let up =
            self.shfl(ShflMode::Up, true, v, [tile_src1(ShflMode::Up, log2_size, 1); LANES])?;
        self.lane_ops(1);
        let mask = (1usize << log2_size) - 1;
        let prev: Lanes<T> = std::array::from_fn(|i| if i & mask == 0 { identity } else { up[i] });
        self.inclusive_scan_tiled_with(&prev, log2_size, op)
    }
}

macro_rules! scans {
    ($($op:ident: $bound:ident, $f:path, $id:expr;)*) => {
        paste::paste! {
            impl<B: SubgroupBackend> Subgroup<B> {
                $(
                    #[doc = concat!("Inclusive `", stringify!($op), "` scan over the subgroup: lane `i` holds lanes `0..=i` combined.")]
                    pub fn [<inclusive_ $op>]<T: $bound>(&mut self, v: &Lanes<T>) -> Result<Lanes<T>> {
                        self.inclusive_scan_tiled_with(v, LOG2_GROUP_SIZE, $f)
                    }
                    #[doc = concat!("Inclusive `", stringify!($op), "` scan within each `2^log2_size`-lane tile.")]
                    pub fn [<inclusive_ $op _tiled>]<T: $bound>(&mut self, v: &Lanes<T>, log2_size: u32) -> Result<Lanes<T>> {
                        check_log2(concat!("inclusive_", stringify!($op), "_tiled"), log2_size)?;
                        self.inclusive_scan_tiled_with(v, log2_size, $f)
                    }
                    #[doc = concat!("Exclusive `", stringify!($op), "` scan over the subgroup: lane `i` holds lanes `0..i` combined, lane 0 the identity.")]
                    pub fn [<exclusive_ $op>]<T: $bound>(&mut self, v: &Lanes<T>) -> Result<Lanes<T>> {
                        self.exclusive_scan_tiled_with(v, LOG2_GROUP_SIZE, $id, $f)
                    }
                    #[doc = concat!("Exclusive `", stringify!($op), "` scan within each `2^log2_size`-lane tile.")]
                    pub fn [<exclusive_ $op _tiled>]<T: $bound>(&mut self, v: &Lanes<T>, log2_size: u32) -> Result<Lanes<T>> {
                        check_log2(concat!("exclusive_", stringify!($op), "_tiled"), log2_size)?;
                        self.exclusive_scan_tiled_with(v, log2_size, $id, $f)
                    }
                )*
            }
        }
    };
}

scans! {
    add: Num, T::add, T::ZERO;
    mul: Num, T::mul, T::ONE;
    min: Num, T::min, T::MIN_IDENTITY;
    max: Num, T::max, T::MAX_IDENTITY;
    and: Int, T::and, T::ALL_ONES;
    or: Int, T::or, T::ZERO;
    xor: Int, T::xor, T::ZERO;
}

//! Votes and lane masks: `ballot`, `ballot_first_n`, `all_true`, `any_true`, `all_equal` (and
//! their `_tiled` forms), `lanemask_{lt,le,eq,gt,ge}`.
//!
//! A vote is one `ired` over lane bits: each lane contributes `(p != 0) << laneid` to an `ired.or`
//! (a ballot), or its flag to an `ired.and`/`ired.or`. Tiled votes take one ballot and extract
//! their tile's bits lane-locally, so every vote costs one instruction at any tile size.

use super::{
    check_log2, segmask, ApiError, Flag, Lanes, Result, Subgroup, Value, FULL, LOG2_GROUP_SIZE,
};
use crate::backend::SubgroupBackend;
use crate::op::{IntType, IredOp, SgOp, ShflMode, LANES};

const OR: SgOp = SgOp::Ired { op: IredOp::Or, ty: IntType::B32 };
const AND: SgOp = SgOp::Ired { op: IredOp::And, ty: IntType::B32 };

/// The bits of lane `lane`'s `2^k`-lane tile, and the tile's all-ones pattern at bit 0.
fn tile_bits(ballot: u32, lane: usize, k: u32) -> (u32, u32) {
    let size = 1u32 << k;
    let base = lane as u32 & !(size - 1);
    let all = ((1u64 << size) - 1) as u32;
    ((ballot >> base) & all, all)
}

impl<B: SubgroupBackend> Subgroup<B> {
    /// The 32-bit ballot of `pred != 0` in every lane (one `ired.or`).
    pub(crate) fn ballot32<P: Flag>(&mut self, pred: &Lanes<P>) -> Result<u32> {
        let bits: Lanes<u32> = std::array::from_fn(|i| (pred[i].is_set() as u32) << i);
        self.lane_ops(2); // compare, shift
        let (v, _) = self.issue(OR, bits, [0; LANES], FULL)?;
        Ok(v[0])
    }

    /// Bit `i` set when lane `i`'s predicate is non-zero; every lane gets the same `u64` (the
    /// upper 32 bits are 0 on a wave32 subgroup). The predicate is any integer dtype.
    pub fn ballot<P: Flag>(&mut self, predicate: &Lanes<P>) -> Result<Lanes<u64>> {
        let b = self.ballot32(predicate)? as u64;
        Ok([b; LANES])
    }

    #[deprecated(note = "renamed to `ballot(predicate)`")]
    pub fn ballot_full_subgroup<P: Flag>(&mut self, predicate: &Lanes<P>) -> Result<Lanes<u64>> {
        self.ballot(predicate)
    }

    /// The ballot of lanes `[0, n)` as a `u32`: bit `i` set iff `i < n` and lane `i`'s predicate
    /// is non-zero. `n` is in `1..=32` (quadrants `ballot_first_n`: "a compile-time constant in
    /// [1, 32]").
    pub fn ballot_first_n<P: Flag>(&mut self, predicate: &Lanes<P>, n: u32) -> Result<Lanes<u32>> {
        if !(1..=LANES as u32).contains(&n) {
            return Err(ApiError::BallotN(n));
        }
        let pred: Lanes<bool> = if n == LANES as u32 {
            predicate.map(Flag::is_set)
        } else {
            // the doc's "one multiply on the predicate": lanes >= n contribute 0
            self.lane_ops(1);
            std::array::from_fn(|i| predicate[i].is_set() && (i as u32) < n)
        };
        Ok([self.ballot32(&pred)?; LANES])
    }

    fn vote<P: Flag>(&mut self, predicate: &Lanes<P>, k: u32, all: bool) -> Result<Lanes<i32>> {
        if k == LOG2_GROUP_SIZE {
            let flags = predicate.map(|p| p.is_set() as u32);
            self.lane_ops(1);
            let (v, _) = self.issue(if all { AND } else { OR }, flags, [0; LANES], FULL)?;
            return Ok(v.map(|x| x as i32));
        }
        let b = self.ballot32(predicate)?;
        self.lane_ops(2); // extract, compare
        Ok(std::array::from_fn(|i| {
            let (bits, ones) = tile_bits(b, i, k);
            (if all { bits == ones } else { bits != 0 }) as i32
        }))
    }

    /// 1 in every lane if every lane's predicate is non-zero, else 0.
    pub fn all_true<P: Flag>(&mut self, predicate: &Lanes<P>) -> Result<Lanes<i32>> {
        self.vote(predicate, LOG2_GROUP_SIZE, true)
    }

    /// 1 in every lane if any lane's predicate is non-zero, else 0.
    pub fn any_true<P: Flag>(&mut self, predicate: &Lanes<P>) -> Result<Lanes<i32>> {
        self.vote(predicate, LOG2_GROUP_SIZE, false)
    }

    /// `all_true` per `2^log2_size`-lane tile, broadcast to the tile.
    pub fn all_true_tiled<P: Flag>(
        &mut self,
        predicate: &Lanes<P>,
        log2_size: u32,
    ) -> Result<Lanes<i32>> {
        check_log2("all_true_tiled", log2_size)?;
        self.vote(predicate, log2_size, true)
    }

    /// `any_true` per `2^log2_size`-lane tile, broadcast to the tile.
    pub fn any_true_tiled<P: Flag>(
        &mut self,
        predicate: &Lanes<P>,
        log2_size: u32,
    ) -> Result<Lanes<i32>> {
        check_log2("any_true_tiled", log2_size)?;
        self.vote(predicate, log2_size, false)
    }

    /// 1 in every lane if every lane's value `==` lane 0's (native `==`: for floats NaN != NaN and
    /// +0.0 == -0.0), else 0.
    pub fn all_equal<T: Value>(&mut self, value: &Lanes<T>) -> Result<Lanes<i32>> {
        self.all_equal_tiled(value, LOG2_GROUP_SIZE)
    }

    /// `all_equal` per `2^log2_size`-lane tile, broadcast to the tile.
    pub fn all_equal_tiled<T: Value>(
        &mut self,
        value: &Lanes<T>,
        log2_size: u32,
    ) -> Result<Lanes<i32>> {
        check_log2("all_equal_tiled", log2_size)?;
        // every lane reads its tile's lane 0: shfl.idx.sg with offset 0
        let first =
            self.shfl(ShflMode::Idx, true, value, [segmask(log2_size) << 16 | 0x1F << 8; LANES])?;
        self.lane_ops(1);
        let eq: Lanes<i32> = std::array::from_fn(|i| (value[i] == first[i]) as i32);
        self.vote(&eq, log2_size, true)
    }

    fn lanemask(op: &'static str, lane_id: u32, f: fn(u64) -> u64) -> Result<u32> {
        if lane_id >= LANES as u32 {
            return Err(ApiError::LaneId { op, lane: lane_id });
        }
        Ok(f(lane_id as u64) as u32)
    }

    /// Lanes below `lane_id`.
    pub fn lanemask_lt(&self, lane_id: u32) -> Result<u32> {
        Self::lanemask("lanemask_lt", lane_id, |l| (1 << l) - 1)
    }
    /// Lanes up to and including `lane_id`.
    pub fn lanemask_le(&self, lane_id: u32) -> Result<u32> {
        Self::lanemask("lanemask_le", lane_id, |l| (2 << l) - 1)
    }
    /// Lane `lane_id` only.
    pub fn lanemask_eq(&self, lane_id: u32) -> Result<u32> {
        Self::lanemask("lanemask_eq", lane_id, |l| 1 << l)
    }
    /// Lanes above `lane_id`.
    pub fn lanemask_gt(&self, lane_id: u32) -> Result<u32> {
        Self::lanemask("lanemask_gt", lane_id, |l| !((2 << l) - 1))
    }
    /// Lanes from `lane_id` up.
    pub fn lanemask_ge(&self, lane_id: u32) -> Result<u32> {
        Self::lanemask("lanemask_ge", lane_id, |l| !((1 << l) - 1))
    }
}

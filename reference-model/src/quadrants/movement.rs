//! Data movement: `shuffle`, `shuffle_up`, `shuffle_down`, `shuffle_xor`, `broadcast`,
//! `broadcast_first`. One `shfl` per 32-bit word of the value.
//!
//! Index and offset semantics are CUDA's (the doc leaves them implementation-defined): a shuffle
//! index is taken modulo 32 (`shfl` reads `src1[4:0]`); `shuffle_up`/`shuffle_down` lanes whose
//! source is outside the subgroup keep their own value, including offsets of 32 or more.

use super::{Lanes, Result, Subgroup, Value};
use crate::backend::SubgroupBackend;
use crate::op::{ShflMode, LANES};

/// A per-lane `u32` operand: the same value in every lane, or one per lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaneArg {
    Uniform(u32),
    PerLane(Lanes<u32>),
}

impl From<u32> for LaneArg {
    fn from(v: u32) -> Self {
        LaneArg::Uniform(v)
    }
}

impl From<Lanes<u32>> for LaneArg {
    fn from(v: Lanes<u32>) -> Self {
        LaneArg::PerLane(v)
    }
}

impl LaneArg {
    pub fn lanes(self) -> Lanes<u32> {
        match self {
            LaneArg::Uniform(v) => [v; LANES],
            LaneArg::PerLane(v) => v,
        }
    }
}

impl<B: SubgroupBackend> Subgroup<B> {
    /// Lane `i` receives `value[index[i] % 32]`.
    pub fn shuffle<T: Value>(
        &mut self,
        value: &Lanes<T>,
        index: impl Into<LaneArg>,
    ) -> Result<Lanes<T>> {
        self.shfl(ShflMode::Idx, false, value, index.into().lanes())
    }

    /// Lane `i` receives `value[i - offset]`, or keeps its own value when `i < offset`.
    pub fn shuffle_up<T: Value>(
        &mut self,
        value: &Lanes<T>,
        offset: impl Into<LaneArg>,
    ) -> Result<Lanes<T>> {
        // an offset of 32 or more is out of range for every lane: read the lane itself
        let src1 = offset.into().lanes().map(|o| if o >= LANES as u32 { 0 } else { o });
        self.shfl(ShflMode::Up, false, value, src1)
    }

    /// Lane `i` receives `value[i + offset]`, or keeps its own value when `i + offset > 31`.
    pub fn shuffle_down<T: Value>(
        &mut self,
        value: &Lanes<T>,
        offset: impl Into<LaneArg>,
    ) -> Result<Lanes<T>> {
        let src1 = offset.into().lanes().map(|o| if o >= LANES as u32 { 0 } else { o });
        self.shfl(ShflMode::Dn, false, value, src1)
    }

    /// `shuffle(value, lane ^ mask)`.
    pub fn shuffle_xor<T: Value>(
        &mut self,
        value: &Lanes<T>,
        mask: impl Into<LaneArg>,
    ) -> Result<Lanes<T>> {
        self.shfl(ShflMode::Xor, false, value, mask.into().lanes())
    }

    /// Lane `i` receives `value[index[i] % 32]`. quadrants requires a uniform `index` on SPIR-V
    /// only; on CUDA and AMDGPU `broadcast` "may vary per lane and the call is identical to
    /// `shuffle(value, index)`", which is what this is (`shfl.idx` takes a per-lane index).
    pub fn broadcast<T: Value>(
        &mut self,
        value: &Lanes<T>,
        index: impl Into<LaneArg>,
    ) -> Result<Lanes<T>> {
        self.shfl(ShflMode::Idx, false, value, index.into().lanes())
    }

    /// `broadcast(value, 0)`.
    pub fn broadcast_first<T: Value>(&mut self, value: &Lanes<T>) -> Result<Lanes<T>> {
        self.broadcast(value, 0u32)
    }
}

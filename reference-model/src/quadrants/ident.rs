//! Identification and control: `invocation_id`, `group_size`, `log2_group_size`, `elect`, `sync`,
//! `mem_fence`, and the deprecated `barrier` / `memory_barrier` names.

use super::{lane_ids, Lanes, Result, Subgroup, GROUP_SIZE, LOG2_GROUP_SIZE};
use crate::backend::SubgroupBackend;

impl<B: SubgroupBackend> Subgroup<B> {
    /// Each lane's index in the subgroup, `0..=31`, as an `i32` (quadrants `invocation_id`).
    /// No instruction.
    pub fn invocation_id(&self) -> Lanes<i32> {
        lane_ids()
    }

    /// 32 (wave32).
    pub fn group_size(&self) -> usize {
        GROUP_SIZE
    }

    /// 5.
    pub fn log2_group_size(&self) -> u32 {
        LOG2_GROUP_SIZE
    }

    /// 1 on lane 0 and 0 on every other lane: quadrants implements `elect` as
    /// `invocation_id() == 0` (lane 0 is active under the all-lanes-active contract). One
    /// lane-local compare, no instruction.
    pub fn elect(&mut self) -> Result<Lanes<i32>> {
        self.lane_ops(1);
        Ok(lane_ids().map(|l| (l == 0) as i32))
    }

    /// Execution barrier across the subgroup. The sub-group unit completes every instruction
    /// before the next issues, so no instruction is needed.
    pub fn sync(&mut self) -> Result<()> {
        Ok(())
    }

    /// Memory fence at subgroup scope. The sub-group unit does not access memory: no instruction.
    pub fn mem_fence(&mut self) -> Result<()> {
        Ok(())
    }

    #[deprecated(note = "renamed to `sync()` (matching `block.sync()`)")]
    pub fn barrier(&mut self) -> Result<()> {
        self.sync()
    }

    #[deprecated(note = "renamed to `mem_fence()`")]
    pub fn memory_barrier(&mut self) -> Result<()> {
        self.mem_fence()
    }
}

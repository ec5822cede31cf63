//! The execution backend interface: anything that can execute sub-group instructions.
//!
//! The reference model implements it here; the Verilated RTL implements it in `pisa-sim`. The
//! PISA interpreter and the quadrants subgroup API only talk to this trait, so the same programs
//! and API tests run on either.

use crate::op::SgOp;
use crate::unit::{execute, SgInputs, SgOutputs};

/// A failure of a backend itself (not of the program): e.g. the RTL simulation could not run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{backend} backend: {message}")]
pub struct BackendError {
    pub backend: String,
    pub message: String,
}

/// Executes 32-lane sub-group instructions.
pub trait SubgroupBackend {
    /// Short name used in messages and on the command line (`ref`, `rtl`).
    fn name(&self) -> &str;

    /// Executes one instruction.
    fn issue(&mut self, op: SgOp, inputs: &SgInputs) -> Result<SgOutputs, BackendError>;

    /// Executes independent instructions in order; a pipelined backend overlaps them.
    fn issue_batch(&mut self, batch: &[(SgOp, SgInputs)]) -> Result<Vec<SgOutputs>, BackendError> {
        batch.iter().map(|(op, inp)| self.issue(*op, inp)).collect()
    }
}

/// The reference model as a backend.
#[derive(Debug, Default, Clone, Copy)]
pub struct RefBackend;

impl SubgroupBackend for RefBackend {
    fn name(&self) -> &str {
        "ref"
    }
    fn issue(&mut self, op: SgOp, inputs: &SgInputs) -> Result<SgOutputs, BackendError> {
        Ok(execute(op, inputs))
    }
}

impl<B: SubgroupBackend + ?Sized> SubgroupBackend for &mut B {
    fn name(&self) -> &str {
        (**self).name()
    }
    fn issue(&mut self, op: SgOp, inputs: &SgInputs) -> Result<SgOutputs, BackendError> {
        (**self).issue(op, inputs)
    }
    fn issue_batch(&mut self, batch: &[(SgOp, SgInputs)]) -> Result<Vec<SgOutputs>, BackendError> {
        (**self).issue_batch(batch)
    }
}

impl<B: SubgroupBackend + ?Sized> SubgroupBackend for Box<B> {
    fn name(&self) -> &str {
        (**self).name()
    }
    fn issue(&mut self, op: SgOp, inputs: &SgInputs) -> Result<SgOutputs, BackendError> {
        (**self).issue(op, inputs)
    }
    fn issue_batch(&mut self, batch: &[(SgOp, SgInputs)]) -> Result<Vec<SgOutputs>, BackendError> {
        (**self).issue_batch(batch)
    }
}

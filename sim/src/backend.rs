//! A 32-lane Verilated model as a [`SubgroupBackend`].

use pisa_model::backend::{BackendError, SubgroupBackend};
use pisa_model::{SgInputs, SgOp, SgOutputs, LANES};
use pisa_rtl::UnitConfig;

use crate::unit::{PortIn, RtlUnit, SimError};

/// The RTL as a backend: `issue` runs one operation; `issue_batch` streams a pipelined unit at one
/// operation per clock.
pub struct RtlBackend {
    unit: RtlUnit,
}

impl RtlBackend {
    /// The default configuration: 32 lanes, combinational.
    pub fn open_default() -> Result<RtlBackend, SimError> {
        Self::open(&UnitConfig::default())
    }

    /// A 32-lane configuration.
    pub fn open(cfg: &UnitConfig) -> Result<RtlBackend, SimError> {
        if cfg.lanes != LANES {
            return Err(SimError::Lanes(cfg.lanes));
        }
        Ok(RtlBackend { unit: RtlUnit::open(cfg)? })
    }

    pub fn unit(&mut self) -> &mut RtlUnit {
        &mut self.unit
    }
}

fn port(op: SgOp, inp: &SgInputs) -> PortIn<'_> {
    PortIn {
        op: op.encode(),
        src0: &inp.src0,
        src1: &inp.src1,
        mask: inp.mask,
        activemask: inp.activemask,
    }
}

impl SubgroupBackend for RtlBackend {
    fn name(&self) -> &str {
        "rtl"
    }

    fn issue(&mut self, op: SgOp, inputs: &SgInputs) -> Result<SgOutputs, BackendError> {
        let out = self.unit.run_one(&port(op, inputs));
        let dst: [u32; LANES] = out
            .dst
            .try_into()
            .map_err(|_| BackendError { backend: "rtl".into(), message: "lane count".into() })?;
        Ok(SgOutputs { dst, wen: out.wen })
    }

    fn issue_batch(&mut self, batch: &[(SgOp, SgInputs)]) -> Result<Vec<SgOutputs>, BackendError> {
        let mut outs = Vec::with_capacity(batch.len());
        self.unit.stream(
            batch.len(),
            |i| port(batch[i].0, &batch[i].1),
            || false,
            |_, o: &crate::unit::PortOut| {
                let mut dst = [0u32; LANES];
                dst.copy_from_slice(&o.dst);
                outs.push(SgOutputs { dst, wen: o.wen });
            },
        );
        Ok(outs)
    }
}

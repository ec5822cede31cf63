//! # pisa-model — the exact reference model of PISA sub-group communication
//!
//! The four instructions of PISA §7 (`fred`, `ired`, `redfirstidx`, `shfl`) as bit-exact
//! functions ([`unit::execute`]), a PISA assembly interpreter ([`asm`], [`interp`]), the
//! `pisa exec` JSON contract ([`exec`]) and the backend interface that lets the same programs
//! run on the Verilated RTL ([`backend`]).
//!
//! The model is the pseudocode of `pisa-subgroup-communication.txt` plus the decisions recorded in
//! `docs/spec-notes.md`. [`literal`] is a second, lane-by-lane port used as the benchmark baseline
//! and as an independent oracle in the tests.

pub mod asm;
pub mod backend;
pub mod diagram;
pub mod exec;
pub mod float;
pub mod fred;
pub mod gen;
pub mod interp;
pub mod ired;
pub mod kernel;
pub mod literal;
pub mod op;
pub mod perf;
pub mod plain;
pub mod quadrants;
pub mod redfirstidx;
pub mod shfl;
pub mod simd;
pub mod unit;

pub use backend::{BackendError, RefBackend, SubgroupBackend};
pub use kernel::{
    execute_batch, execute_batch_into, execute_lane_arrays, Kernel, LaneArrays, LaneArraysMut,
};
pub use op::{FloatType, FredOp, IntType, IredOp, RegKind, SgOp, ShflMode, Warp, LANES};
pub use unit::{execute, SgInputs, SgOutputs};

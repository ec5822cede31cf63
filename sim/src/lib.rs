//! # pisa-sim — the emitted Verilog, Verilated, driven from Rust
//!
//! [`model`] builds a Verilator model of any configuration when it is first asked for and keeps
//! it in a cache; [`RtlUnit`] drives one instance: one operation at a time, or batches in one
//! call (streamed one per clock with `valid` bubbles through a pipelined unit). [`RtlBackend`]
//! makes a 32-lane model a [`pisa_model::SubgroupBackend`], so the PISA interpreter (`pisa exec
//! --backend rtl`) and the quadrants API run on the RTL unchanged. [`regress`] is the
//! constrained-random differential regression behind `pisa regress`.

pub mod backend;
pub mod model;
pub mod mutate;
pub mod regress;
pub mod unit;
pub mod vcd_dump;

pub use backend::RtlBackend;
pub use unit::{RtlUnit, SimError};

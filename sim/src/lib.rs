//! # pisa-sim — the emitted Verilog, Verilated, driven from Rust
//!
//! [`RtlUnit`] wraps one Verilated model of the unit (a prebuilt configuration of
//! `pisa-sim-sys`): drive one operation and read its result, or stream operations back to back,
//! one per clock with `valid` bubbles, in a pipelined configuration. [`RtlBackend`] makes a
//! 32-lane model a [`SubgroupBackend`], so the PISA interpreter (`pisa exec --backend rtl`) and
//! the quadrants API run on the RTL unchanged. [`regress`] is the constrained-random
//! differential regression behind `pisa regress`.

pub mod backend;
pub mod regress;
pub mod unit;
pub mod vcd_dump;

pub use backend::RtlBackend;
pub use unit::{RtlUnit, SimError};

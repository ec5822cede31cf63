//! # pisa-rtl — the PISA sub-group communication unit in rust-hdl
//!
//! Blocks: [`xbar::ShflXbar`] (shuffle crossbar), the reduction tree, the priority encoder and
//! the unit that decodes `op_i` and combines them. [`emit`] writes lint-clean Verilog, one file per
//! module.

pub mod bus;
pub mod config;
pub mod decode;
pub mod design;
pub mod emit;
pub mod integration;
pub mod lzc;
pub mod manifest;
pub mod outdir;
pub mod prims;
pub mod reduce;
pub mod style;
pub mod unit;
pub mod xbar;
pub mod xbar_mux;

pub use config::{ConfigError, UnitConfig};

/// The sha256 of this crate's sources when it was built: the emitted Verilog of a configuration
/// is a function of it (caches of what is built from that Verilog key on it).
pub const SOURCE_SHA256: &str = env!("PISA_RTL_SOURCE_SHA256");

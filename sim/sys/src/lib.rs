//! Raw bindings to the Verilated models of the unit built by `build.rs` (one per prebuilt
//! configuration). Use the safe wrapper in `pisa-sim`.
//!
//! Each model owns its `VerilatedContext`, so different models may run on different threads;
//! one model must not be used from two threads at once.

#![allow(clippy::missing_safety_doc)]

use std::ffi::c_void;

/// The C entry points of one model configuration.
#[derive(Clone, Copy)]
pub struct Shim {
    /// Configuration tag, e.g. `l32_p2`.
    pub tag: &'static str,
    /// The configuration, as TOML text (`pisa_rtl::UnitConfig::from_toml` reads it).
    pub config: &'static str,
    /// Cycles from `valid_i` to `valid_o`.
    pub latency: usize,
    pub new: unsafe extern "C" fn() -> *mut c_void,
    pub free: unsafe extern "C" fn(*mut c_void),
    /// `(model, src0 words, src1 words, mask, activemask, op, valid, rst_n)`
    pub set: unsafe extern "C" fn(*mut c_void, *const u32, *const u32, u32, u32, u32, u32, u32),
    pub eval: unsafe extern "C" fn(*mut c_void),
    pub tick: unsafe extern "C" fn(*mut c_void),
    /// `(model, dst words out, wen out, valid out)`
    pub get: unsafe extern "C" fn(*mut c_void, *mut u32, *mut u32, *mut u32),
}

include!(concat!(env!("OUT_DIR"), "/configs.rs"));

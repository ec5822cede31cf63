//! The quadrants subgroup API suite, unchanged, on the Verilated RTL (default configuration).
#![cfg(feature = "cosim")]

#[macro_use]
mod quadrants_suite;

quadrants_suite!(|| pisa_sim::RtlBackend::open_default().expect("prebuilt default RTL model"));

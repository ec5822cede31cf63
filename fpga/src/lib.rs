//! `pisa-fpga`: yosys synthesis and nextpnr place-and-route flows for the sub-group unit and its
//! blocks, with quality-of-results reports (cells by type, flip-flops, logic levels, Fmax,
//! critical path) and the ratio to a plain behavioural baseline synthesized in the same run.
//!
//! The flows are the shell scripts in `fpga/` (embedded here, so the CLI and an engineer running
//! them by hand do exactly the same thing):
//! ```text
//!  emitted .v ─ synth.sh TARGET (+ ecp5_mux_map.v) ─ stat.json, ltp.txt, TOP.json
//!                    ├─ equiv.sh: TOP.json + cell models vs the RTL (prefix pisa_gold) ─ ABC dprove
//!                    └─ wrap.v (shift-in / registered / XOR-out) ─ synth.sh ─ pnr.sh ─ report.json
//! ```

pub mod baseline;
pub mod report;
pub mod run;
pub mod target;
pub mod wrap;

pub use report::{PnrResult, SynthResult};
pub use run::{equiv, pnr, synth, Equivalence, FpgaError};
pub use target::Target;

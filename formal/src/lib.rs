//! `pisa-formal`: proofs that the emitted RTL of the sub-group unit equals an independent
//! specification, written in plain Verilog from the PISA pseudocode (`formal/spec/*.v`).
//!
//! Each [`Property`] becomes a miter (RTL and spec side by side, one `trigger` output that is 1
//! when they disagree in a lane that writes), which yosys flattens and bit-blasts to an AIG and
//! ABC's `dprove` proves constant 0 for every input (or refutes, with a counterexample that is
//! printed as a `pisa exec` line). The pipelined configurations are proven equal to the
//! combinational one over a bounded number of cycles.
//!
//! ```text
//!  RTL dir ─┐                 ┌─ yosys: proc; flatten; opt; techmap; aigmap ─┐
//!           ├─ miter.v ───────┤                                              ├─ m.aig ─ ABC dprove ─ PASS / FAIL + cex
//!  spec/*.v ┘                 └──────────────────────────────────────────────┘
//! ```
//! See `docs/spec-notes.md` (section F) for the decisions the proofs rely on.

pub mod cex;
pub mod error;
pub mod flow;
pub mod harness;
pub mod property;
pub mod rtl_dir;
pub mod spec;

pub use flow::{prove_all, Outcome, ProveError, Tools, Verdict};
pub use property::Property;
pub use rtl_dir::RtlDir;

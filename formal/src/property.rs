//! What is proven: one [`Property`] per block and instruction form.

use std::fmt;

use pisa_model::op::{FloatType, FredOp, IntType, IredOp};
use pisa_model::SgOp;

/// One proof obligation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Property {
    /// The shuffle crossbar equals `pisa_spec_shfl` for every mode, `.sg`, participation mask and
    /// per-lane `src0`/`src1`, in every participating lane.
    Xbar,
    /// The priority encoder equals `pisa_spec_lzc` for every input (including empty).
    Lzc,
    /// The reduction tree, with `op_i` fixed to this `fred`/`ired` form, equals
    /// `pisa_spec_reduce` for every participation mask (not empty) and every `src0`.
    Reduce(SgOp),
    /// The unit with `pipeline` register stages (latency `latency` cycles) produces, `latency`
    /// cycles later, what the combinational unit produces, for every input sequence of
    /// `latency + extra` cycles from reset (bounded proof), with `valid_i` bubbles and `rst_ni`
    /// free.
    Pipeline { pipeline: usize, latency: usize },
    /// Mutant `index` of a mutated netlist of the unit (`pisa mutate`) produces what the same
    /// netlist with no mutant enabled produces: for every input (a combinational unit), or cycle by cycle for every input
    /// sequence of `latency + 3` cycles from reset (the unit's pipeline holds no state longer
    /// than `latency` cycles, so this bound covers every path from an input to an output).
    Mutant { index: u32, latency: usize },
}

impl Property {
    /// The block the property is about (`--block` filter).
    pub fn block(&self) -> &'static str {
        match self {
            Property::Xbar => "xbar",
            Property::Lzc => "lzc",
            Property::Reduce(_) => "reduce",
            Property::Pipeline { .. } => "pipeline",
            Property::Mutant { .. } => "mutant",
        }
    }

    /// A file-name-safe identifier.
    pub fn slug(&self) -> String {
        match self {
            Property::Xbar => "xbar".into(),
            Property::Lzc => "lzc".into(),
            Property::Reduce(op) => format!("reduce_{}", op.to_string().replace('.', "_")),
            Property::Pipeline { pipeline, .. } => format!("pipeline_p{pipeline}"),
            Property::Mutant { index, .. } => format!("mutant_{index}"),
        }
    }

    /// Rough relative cost, to start the slow proofs first.
    pub fn cost(&self) -> u32 {
        match self {
            Property::Reduce(SgOp::Ired { op: IredOp::Sum, ty: IntType::B32 }) => 100,
            Property::Pipeline { .. } => 60,
            Property::Mutant { .. } => 50,
            Property::Reduce(SgOp::Ired { op: IredOp::Sum, .. }) => 40,
            Property::Xbar => 30,
            Property::Reduce(_) => 20,
            Property::Lzc => 1,
        }
    }

    /// Every reduction form the tree implements (30 `fred` + 18 `ired`).
    pub fn reduce_forms() -> Vec<SgOp> {
        let mut v = Vec::new();
        for ty in FloatType::ALL {
            for op in FredOp::ALL {
                for nanp in [false, true] {
                    v.push(SgOp::Fred { op, nanp, ty });
                }
            }
        }
        for ty in [IntType::B32, IntType::B16] {
            for op in IredOp::ALL {
                v.push(SgOp::Ired { op, ty });
            }
        }
        v
    }

    /// The properties of a combinational unit: crossbar, priority encoder, every reduction form.
    pub fn combinational() -> Vec<Property> {
        let mut v = vec![Property::Xbar, Property::Lzc];
        v.extend(Property::reduce_forms().into_iter().map(Property::Reduce));
        v
    }
}

impl fmt::Display for Property {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Property::Xbar => f.write_str("xbar == spec: shfl.{up,dn,xor,idx}[.sg].32b"),
            Property::Lzc => f.write_str("lzc == spec: redfirstidx.32b"),
            Property::Reduce(op) => write!(f, "reduce == spec: {op}"),
            Property::Pipeline { pipeline, latency } => {
                write!(f, "unit pipeline={pipeline} == unit pipeline=0, {latency}-cycle latency")
            }
            Property::Mutant { index, .. } => write!(f, "mutant {index} == no mutant"),
        }
    }
}

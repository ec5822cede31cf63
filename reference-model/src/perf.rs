//! Throughput of the model per instruction form, against the lane-by-lane port of the
//! pseudocode ([`crate::literal`]) as the baseline. Used by `pisa bench`; the criterion benches in
//! `benches/model.rs` measure the same workloads.

use std::hint::black_box;
use std::time::{Duration, Instant};

use crate::gen::{random_inputs, Rng};
use crate::op::SgOp;
use crate::unit::{execute, SgInputs};

/// Number of distinct operand sets a workload cycles through.
pub const WORKLOAD_CASES: usize = 256;

/// Operand mix of a measurement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Workload {
    /// How compiled code uses the unit: every lane active and participating, edge-weighted data,
    /// per-lane `src1` for `shfl.idx`, a uniform (immediate) offset for `up`/`dn`/`xor`, segment
    /// fields from the spec's table.
    Typical,
    /// The co-simulation stimulus: random masks (empty, single, partial), per-lane or uniform
    /// `src1`, any segmask. Branchy code mispredicts here.
    Edge,
}

impl Workload {
    pub fn name(self) -> &'static str {
        match self {
            Workload::Typical => "typical",
            Workload::Edge => "edge",
        }
    }
}

/// The operands of a workload for `op` (deterministic).
pub fn workload(op: SgOp, w: Workload) -> Vec<SgInputs> {
    (0..WORKLOAD_CASES as u64)
        .map(|i| {
            let mut rng = Rng::for_case(0xBE7C, i);
            let mut inp = random_inputs::<32>(&mut rng, op);
            if w == Workload::Typical {
                inp.activemask = u32::MAX;
                inp.mask = u32::MAX;
                if let SgOp::Shfl { mode, sg } = op {
                    let seg = if sg { 0x1F & !((1u32 << rng.below(6)) - 1) } else { 0 };
                    let cval = if mode == crate::op::ShflMode::Up { 0 } else { 0x1F };
                    let fields = (seg << 16) | (cval << 8);
                    let off = rng.below(32);
                    inp.src1 = std::array::from_fn(|_| {
                        fields | if mode == crate::op::ShflMode::Idx { rng.below(32) } else { off }
                    });
                }
            }
            inp
        })
        .collect()
}

/// Measured rates of one form, in warp-ops per second.
#[derive(Clone, Copy, Debug)]
pub struct FormRate {
    pub form: SgOp,
    pub workload: Workload,
    pub model: f64,
    pub baseline: f64,
}

impl FormRate {
    pub fn ratio(&self) -> f64 {
        self.model / self.baseline
    }
}

/// Warp-ops per second of `f` over `cases`, best of `rounds` rounds of at least `min` each.
pub fn rate(cases: &[SgInputs], min: Duration, rounds: u32, f: impl Fn(&SgInputs) -> u32) -> f64 {
    let mut best = 0f64;
    for _ in 0..rounds {
        let start = Instant::now();
        let mut n = 0u64;
        let mut acc = 0u32;
        while start.elapsed() < min {
            for c in cases {
                acc ^= f(black_box(c));
            }
            n += cases.len() as u64;
        }
        black_box(acc);
        best = best.max(n as f64 / start.elapsed().as_secs_f64());
    }
    best
}

/// Measures the model and the baseline on one form.
pub fn measure(form: SgOp, w: Workload, min: Duration, rounds: u32) -> FormRate {
    let cases = workload(form, w);
    let model = rate(&cases, min, rounds, |c| {
        let o = execute(form, c);
        o.dst[7] ^ o.wen
    });
    let baseline = rate(&cases, min, rounds, |c| {
        let o = crate::literal::execute(form, c);
        o.dst[7] ^ o.wen
    });
    FormRate { form, workload: w, model, baseline }
}

//! Throughput of the model per instruction form against two baselines: the plain port
//! specialised per form ([`crate::plain`], the fair one: a lane loop per form, no SIMD) and the
//! lane-by-lane oracle ([`crate::literal`]). Used by `pisa bench`; the criterion benches in
//! `benches/model.rs` measure the same workloads.

use std::hint::black_box;
use std::time::{Duration, Instant};

use crate::gen::{random_inputs, Rng};
use crate::kernel::{execute_batch_with, execute_with, Kernel, Unsupported};
use crate::op::{SgOp, LANES};
use crate::unit::{execute, SgInputs, SgOutputs};

/// Warps of the default workload: one batch of 256 warps is 101 KB of operands and results
/// (`256 * BYTES_PER_WARP_OP`), more than a core's L1 data cache and less than its L2, so the
/// default measures the kernels fed from L2. [`workload_of`] takes other sizes (`pisa bench
/// --warps`).
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

/// The operands of a workload for `op` (deterministic), [`WORKLOAD_CASES`] warps.
pub fn workload(op: SgOp, w: Workload) -> Vec<SgInputs> {
    workload_of(op, w, WORKLOAD_CASES)
}

/// The operands of a workload of `warps` warps for `op` (deterministic; the first warps of every
/// size are the same).
pub fn workload_of(op: SgOp, w: Workload, warps: usize) -> Vec<SgInputs> {
    (0..warps as u64)
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

/// Measured rates of one form, in warp-ops per second, one core, same run.
#[derive(Clone, Copy, Debug)]
pub struct FormRate {
    pub form: SgOp,
    pub workload: Workload,
    /// The kernel the model ran with.
    pub kernel: Kernel,
    /// The model's batch entry point ([`crate::kernel::execute_batch_with`]).
    pub model: f64,
    /// The model one warp per call ([`crate::execute`] or [`crate::kernel::execute_with`]).
    pub model_single: f64,
    /// The baseline: the plain port specialised per form ([`crate::plain`]), batch loop.
    pub plain: f64,
    /// The lane-by-lane oracle ([`crate::literal`]), one warp per call.
    pub literal: f64,
}

impl FormRate {
    /// Model (batch) over the plain per-form port.
    pub fn ratio(&self) -> f64 {
        self.model / self.plain
    }
}

/// Warp-ops per second of `f` over `cases`, best of `rounds` rounds of at least `min` each.
pub fn rate(cases: &[SgInputs], min: Duration, rounds: u32, f: impl Fn(&SgInputs) -> u32) -> f64 {
    batch_rate(cases, min, rounds, |cs, acc| {
        for c in cs {
            *acc ^= f(black_box(c));
        }
    })
}

/// Like [`rate`] for a function that runs a whole batch per call.
fn batch_rate(
    cases: &[SgInputs],
    min: Duration,
    rounds: u32,
    mut f: impl FnMut(&[SgInputs], &mut u32),
) -> f64 {
    let mut best = 0f64;
    for _ in 0..rounds {
        best = best.max(batch_round(cases, min, &mut f));
    }
    best
}

/// One round of [`batch_rate`]: warp-ops per second over at least `min`.
fn batch_round(cases: &[SgInputs], min: Duration, mut f: impl FnMut(&[SgInputs], &mut u32)) -> f64 {
    // Read the clock once per 1,024 warps or more: a clock read costs about as much as a few
    // warp-ops, which would weigh on small batches of the fast kernels more than on the baseline.
    let calls_per_check = (1024 / cases.len().max(1)).max(1);
    let start = Instant::now();
    let mut n = 0u64;
    let mut acc = 0u32;
    while start.elapsed() < min {
        for _ in 0..calls_per_check {
            f(black_box(cases), &mut acc);
        }
        n += (calls_per_check * cases.len()) as u64;
    }
    black_box(acc);
    n as f64 / start.elapsed().as_secs_f64()
}

/// Measures the model (with `kernel`) and the baselines on one form, `warps` warps per batch.
pub fn measure(
    form: SgOp,
    w: Workload,
    kernel: Kernel,
    warps: usize,
    min: Duration,
    rounds: u32,
) -> Result<FormRate, Unsupported> {
    kernel.check()?;
    let cases = workload_of(form, w, warps);
    let mut out = vec![SgOutputs { dst: [0; LANES], wen: 0 }; cases.len()];
    // The model and the plain port take turns, round by round, so that a slow spell of the
    // machine (another tenant, a clock change) weighs on both and the ratio holds.
    let (mut model, mut plain) = (0f64, 0f64);
    for _ in 0..rounds {
        model = model.max(batch_round(&cases, min, |cs, acc| {
            let _ = execute_batch_with(kernel, form, cs, &mut out);
            *acc ^= black_box(&out)[cs.len() / 2].dst[7];
        }));
        plain = plain.max(batch_round(&cases, min, |cs, acc| {
            crate::plain::execute_batch_into(form, cs, &mut out);
            *acc ^= black_box(&out)[cs.len() / 2].dst[7];
        }));
    }
    let model_single = if kernel == Kernel::best() {
        rate(&cases, min, rounds, |c| {
            let o = execute(form, c);
            o.dst[7] ^ o.wen
        })
    } else {
        rate(&cases, min, rounds, |c| match execute_with(kernel, form, c) {
            Ok(o) => o.dst[7] ^ o.wen,
            Err(_) => 0,
        })
    };
    let literal = rate(&cases, min, rounds, |c| {
        let o = crate::literal::execute(form, c);
        o.dst[7] ^ o.wen
    });
    Ok(FormRate { form, workload: w, kernel, model, model_single, plain, literal })
}

/// Bytes one warp-op of the batch path reads and writes: its [`SgInputs`] and [`SgOutputs`].
pub const BYTES_PER_WARP_OP: usize =
    std::mem::size_of::<SgInputs>() + std::mem::size_of::<SgOutputs>();

/// Streaming throughput: the model's batch path over `warps` warps (far larger than the caches)
/// against the machine's copy bandwidth, measured as a `copy_from_slice` of the same bytes.
#[derive(Clone, Copy, Debug)]
pub struct Streaming {
    pub form: SgOp,
    pub warps: usize,
    pub model: f64,
    /// Bytes per second of a plain memory copy of the inputs and outputs' size.
    pub copy_bytes_per_s: f64,
}

impl Streaming {
    /// Bytes per second the model moves (reads + writes).
    pub fn model_bytes_per_s(&self) -> f64 {
        self.model * BYTES_PER_WARP_OP as f64
    }
}

/// Measures [`Streaming`] for `form` over `warps` warps.
pub fn streaming(
    form: SgOp,
    kernel: Kernel,
    warps: usize,
    rounds: u32,
) -> Result<Streaming, Unsupported> {
    kernel.check()?;
    let base = workload(form, Workload::Typical);
    let cases: Vec<SgInputs> = (0..warps).map(|i| base[i % base.len()].clone()).collect();
    let mut out = vec![SgOutputs { dst: [0; LANES], wen: 0 }; warps];
    let mut model = 0f64;
    for _ in 0..rounds {
        let t = Instant::now();
        let _ = execute_batch_with(kernel, form, black_box(&cases), &mut out);
        black_box(&out);
        model = model.max(warps as f64 / t.elapsed().as_secs_f64());
    }
    // a copy that reads and writes as many bytes as the model does (half each way)
    let n = warps * BYTES_PER_WARP_OP / 2 / 8;
    let src = vec![1u64; n];
    let mut dst = vec![0u64; n];
    let mut copy = 0f64;
    for _ in 0..rounds {
        let t = Instant::now();
        dst.copy_from_slice(black_box(&src));
        black_box(&dst);
        copy = copy.max((2 * n * 8) as f64 / t.elapsed().as_secs_f64());
    }
    Ok(Streaming { form, warps, model, copy_bytes_per_s: copy })
}

//! The timing loop of the profiling examples: millions of warp-ops per second of `f` over a
//! batch of `n` warps, best of five rounds of about `warps_per_round` warps each.
use pisa_model::SgOutputs;
use std::hint::black_box;
use std::time::Instant;

pub fn batch_rate(n: usize, warps_per_round: usize, f: &mut dyn FnMut(&mut [SgOutputs])) -> f64 {
    let mut out = vec![SgOutputs { dst: [0; 32], wen: 0 }; n];
    let mut best = 0f64;
    for _ in 0..5 {
        let reps = (warps_per_round / n).max(1);
        let t = Instant::now();
        for _ in 0..reps {
            f(&mut out);
            black_box(&out);
        }
        best = best.max((reps * n) as f64 / t.elapsed().as_secs_f64());
    }
    best / 1e6
}

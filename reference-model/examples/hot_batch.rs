//! Profiling helper: the batch path on one form's typical workload in a loop, e.g.
//! `perf record target/release/examples/hot_batch ired.sum.32b 200000 [avx2]`.
use pisa_model::kernel::{execute_batch_with, Kernel};
use pisa_model::perf::{workload, Workload};
use pisa_model::{SgOp, SgOutputs};
use std::hint::black_box;
fn main() {
    let Ok(form) = std::env::args().nth(1).unwrap_or("ired.sum.32b".into()).parse::<SgOp>() else {
        return eprintln!("usage: hot_batch FORM [REPS]");
    };
    let reps: u64 = std::env::args().nth(2).and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let kernel =
        std::env::args().nth(3).and_then(|k| Kernel::from_name(&k)).unwrap_or(Kernel::best());
    let cases = workload(form, Workload::Typical);
    let mut out = vec![SgOutputs { dst: [0; 32], wen: 0 }; cases.len()];
    let t = std::time::Instant::now();
    for _ in 0..reps {
        if let Err(e) = execute_batch_with(kernel, form, black_box(&cases), &mut out) {
            return eprintln!("{e}");
        }
        black_box(&out);
    }
    let n = reps as f64 * cases.len() as f64;
    println!("{form} ({}): {:.1} M/s", kernel.name(), n / t.elapsed().as_secs_f64() / 1e6);
}

//! Profiling helper: runs one form's typical workload in a tight loop, e.g.
//! `valgrind --tool=callgrind target/release/examples/hot shfl.idx.32b 100000` for exact
//! instruction counts per warp-op (this VM has no hardware counters).
use pisa_model::perf::{workload, Workload};
use pisa_model::{execute, SgOp};
use std::hint::black_box;
fn main() {
    let form: SgOp = std::env::args().nth(1).unwrap_or("ired.sum.32b".into()).parse().unwrap();
    let n: u64 = std::env::args().nth(2).map(|s| s.parse().unwrap()).unwrap_or(20_000_000);
    let cases = workload(form, Workload::Typical);
    let t = std::time::Instant::now();
    let mut acc = 0u32;
    for k in 0..n {
        let o = execute(form, black_box(&cases[(k & 255) as usize]));
        acc ^= o.dst[7] ^ o.wen;
    }
    black_box(acc);
    let dt = t.elapsed().as_secs_f64();
    println!("{form}: {:.1} M/s ({:.2} ns)", n as f64 / dt / 1e6, dt * 1e9 / n as f64);
}

//! Profiling helper: the batch path on one form's typical workload in a loop, e.g.
//! `perf record target/release/examples/hot_batch ired.sum.32b 200000 [avx2] [lanes]`.
//!
//! With `lanes` it runs the structure-of-arrays batch path (`execute_lane_arrays_with`, the
//! Python package's) on the same warps instead of the `SgInputs` one. The environment variable
//! `WARPS` sets the batch size (default: `pisa bench`'s default batch).
use pisa_model::kernel::{
    execute_batch_with, execute_lane_arrays_with, Kernel, LaneArrays, LaneArraysMut,
};
use pisa_model::perf::{workload, workload_of, Workload};
use pisa_model::{SgOp, SgOutputs};
use std::hint::black_box;
fn main() {
    let Ok(form) = std::env::args().nth(1).unwrap_or("ired.sum.32b".into()).parse::<SgOp>() else {
        return eprintln!("usage: hot_batch FORM [REPS] [KERNEL] [lanes]");
    };
    let reps: u64 = std::env::args().nth(2).and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let kernel =
        std::env::args().nth(3).and_then(|k| Kernel::from_name(&k)).unwrap_or(Kernel::best());
    let lanes = std::env::args().nth(4).is_some_and(|a| a == "lanes");
    let cases = match std::env::var("WARPS") {
        Err(_) => workload(form, Workload::Typical),
        Ok(w) => match w.parse::<usize>() {
            Ok(n) if n > 0 => workload_of(form, Workload::Typical, n),
            _ => return eprintln!("hot_batch: WARPS={w:?} is not a positive number of warps"),
        },
    };
    let mut out = vec![SgOutputs { dst: [0; 32], wen: 0 }; cases.len()];
    let src0: Vec<[u32; 32]> = cases.iter().map(|w| w.src0).collect();
    let src1: Vec<[u32; 32]> = cases.iter().map(|w| w.src1).collect();
    let mask: Vec<u32> = cases.iter().map(|w| w.mask).collect();
    let activemask: Vec<u32> = cases.iter().map(|w| w.activemask).collect();
    let mut dst = vec![[0u32; 32]; cases.len()];
    let mut wen = vec![0u32; cases.len()];
    let t = std::time::Instant::now();
    for _ in 0..reps {
        let r = if lanes {
            let inp = LaneArrays { src0: &src0, src1: &src1, mask: &mask, activemask: &activemask };
            let out = LaneArraysMut { dst: &mut dst, wen: &mut wen };
            execute_lane_arrays_with(kernel, form, black_box(inp), out)
        } else {
            execute_batch_with(kernel, form, black_box(&cases), &mut out)
        };
        if let Err(e) = r {
            return eprintln!("{e}");
        }
        black_box((&out, &dst, &wen));
    }
    let n = reps as f64 * cases.len() as f64;
    let path = if lanes { ", lane arrays" } else { "" };
    println!("{form} ({}{path}): {:.1} M/s", kernel.name(), n / t.elapsed().as_secs_f64() / 1e6);
}

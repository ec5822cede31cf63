//! Criterion benches: the reference model against the lane-by-lane port of the pseudocode
//! (`literal`), per instruction form, on the typical and the edge workloads.
//! `cargo bench -p pisa-model --bench model` (all forms: `PISA_BENCH_ALL=1`).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use pisa_model::perf::{workload, Workload, WORKLOAD_CASES};
use pisa_model::{execute, literal, SgOp};
use std::hint::black_box;
use std::time::Duration;

fn forms() -> Vec<SgOp> {
    if std::env::var_os("PISA_BENCH_ALL").is_some() {
        return SgOp::all();
    }
    [
        "shfl.idx.32b",
        "shfl.up.32b",
        "shfl.dn.sg.32b",
        "fred.max.f",
        "fred.min.nanp.hf",
        "fred.absmax.bfx2",
        "ired.sum.32b",
        "ired.smin.16b",
        "ired.absmax.32b",
        "redfirstidx.32b",
    ]
    .iter()
    .map(|f| f.parse().expect("form"))
    .collect()
}

fn bench(c: &mut Criterion) {
    for w in [Workload::Typical, Workload::Edge] {
        let mut g = c.benchmark_group(format!("warp-ops/{}", w.name()));
        g.throughput(Throughput::Elements(WORKLOAD_CASES as u64));
        g.warm_up_time(Duration::from_millis(300)).measurement_time(Duration::from_secs(1));
        for form in forms() {
            let cases = workload(form, w);
            g.bench_with_input(BenchmarkId::new("model", form), &cases, |b, cases| {
                b.iter(|| cases.iter().fold(0u32, |a, c| a ^ execute(form, black_box(c)).dst[7]))
            });
            g.bench_with_input(BenchmarkId::new("baseline", form), &cases, |b, cases| {
                b.iter(|| {
                    cases.iter().fold(0u32, |a, c| a ^ literal::execute(form, black_box(c)).dst[7])
                })
            });
        }
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);

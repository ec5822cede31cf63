//! Criterion benches: the reference model's batch path (with each kernel this CPU runs) against
//! the plain port specialised per form (`plain`, the baseline of the ratio) and the lane-by-lane
//! oracle (`literal`), per instruction form, on the typical and the edge workloads.
//! `cargo bench -p pisa-model --bench model` (all forms: `PISA_BENCH_ALL=1`).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use pisa_model::kernel::{execute_batch_with, Kernel};
use pisa_model::perf::{workload, Workload, WORKLOAD_CASES};
use pisa_model::{execute, literal, plain, SgOp, SgOutputs};
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
            let mut out = vec![SgOutputs { dst: [0; 32], wen: 0 }; cases.len()];
            for k in Kernel::ALL.into_iter().filter(|k| k.supported()) {
                let id = BenchmarkId::new(format!("model-batch-{}", k.name()), form);
                g.bench_with_input(id, &cases, |b, cases| {
                    b.iter(|| {
                        let _ = execute_batch_with(k, form, black_box(cases), &mut out);
                        out[7].dst[7]
                    })
                });
            }
            g.bench_with_input(BenchmarkId::new("model-single-call", form), &cases, |b, cases| {
                b.iter(|| cases.iter().fold(0u32, |a, c| a ^ execute(form, black_box(c)).dst[7]))
            });
            g.bench_with_input(BenchmarkId::new("plain", form), &cases, |b, cases| {
                b.iter(|| {
                    plain::execute_batch_into(form, black_box(cases), &mut out);
                    out[7].dst[7]
                })
            });
            g.bench_with_input(BenchmarkId::new("literal", form), &cases, |b, cases| {
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

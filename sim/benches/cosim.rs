//! Co-simulation throughput: checked warp-ops per second (case generation, model, Verilated RTL
//! and comparison), per configuration, on one thread and on every core.
//! `cargo bench -p pisa-sim --bench cosim`

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use pisa_rtl::UnitConfig;
use pisa_sim::regress::{run, Options};
use std::time::Duration;

/// Cases per run: about 100 blocks, so the per-run costs (a model instance per thread, the
/// threads, the last block's imbalance) stay under a few percent, as in a real regression (at
/// 40,000 cases, ten blocks, two threads lost about a fifth of their rate to them).
const CASES: u64 = 400_000;

fn bench(c: &mut Criterion) {
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let mut g = c.benchmark_group("cosim");
    g.throughput(Throughput::Elements(CASES));
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(4));
    let qor =
        UnitConfig::from_toml(include_str!("../../fpga/configs/fast.toml"), "fast.toml").unwrap();
    for cfg in [
        UnitConfig::default(),
        UnitConfig::new(32, 2).unwrap(),
        qor,
        UnitConfig::new(8, 2).unwrap(),
    ] {
        for jobs in [1, cores] {
            let mut seed = 0;
            let id = BenchmarkId::new(cfg.tag(), format!("{jobs}-threads"));
            g.bench_with_input(id, &cfg, |b, cfg| {
                b.iter(|| {
                    seed += 1;
                    let r = run(cfg, &Options { jobs, ..Options::new(CASES, seed) }).unwrap();
                    assert!(r.mismatches.is_empty());
                })
            });
        }
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

//! Co-simulation throughput: checked warp-ops per second (case generation, model, Verilated RTL
//! and comparison) on one core, per prebuilt configuration.
//! `cargo bench -p pisa-sim --bench cosim`

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use pisa_rtl::UnitConfig;
use pisa_sim::regress::{run, Options};
use std::time::Duration;

const CASES: u64 = 20_000;

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("cosim");
    g.throughput(Throughput::Elements(CASES));
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(4));
    for (lanes, p) in [(32, 0), (32, 2), (32, 5), (8, 0)] {
        let cfg = UnitConfig::new(lanes, p).unwrap();
        let mut seed = 0;
        g.bench_with_input(BenchmarkId::from_parameter(cfg.tag()), &cfg, |b, cfg| {
            b.iter(|| {
                seed += 1;
                let r = run(
                    cfg,
                    &Options {
                        count: CASES,
                        seed,
                        forms: vec![],
                        shard: (1, 1),
                        vcd_dir: None,
                        progress: None,
                    },
                )
                .unwrap();
                assert!(r.mismatch.is_none());
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

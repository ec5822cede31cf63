//! Models of several configurations against the reference model on random cases, one at a time
//! and streamed; the cache: a second open builds nothing, a missing Verilator is named.

use pisa_model::gen::{random_case, Rng};
use pisa_model::unit::execute_lanes;
use pisa_model::{SgInputs, SgOp};
use pisa_sim::unit::{PortIn, RtlUnit};

fn check<const N: usize>(unit: &mut RtlUnit, cases: usize) {
    let forms = SgOp::all();
    let mut rng = Rng::new(99);
    let batch: Vec<(SgOp, SgInputs<N>)> =
        (0..cases).map(|_| random_case::<N>(&mut rng, &forms)).collect();
    for (op, inp) in batch.iter().take(200) {
        let got = unit.run_one(&PortIn {
            op: op.encode(),
            src0: &inp.src0,
            src1: &inp.src1,
            mask: inp.mask,
            activemask: inp.activemask,
        });
        let want = execute_lanes(*op, inp);
        assert_eq!(got.wen, want.wen, "{} {op}", unit.tag());
        for l in 0..N {
            if want.wen >> l & 1 != 0 {
                assert_eq!(got.dst[l], want.dst[l], "{} {op} lane {l}", unit.tag());
            }
        }
    }
    let mut bubbles = Rng::new(5);
    let mut n = 0;
    let tag = unit.tag();
    unit.stream(
        batch.len(),
        |i| PortIn {
            op: batch[i].0.encode(),
            src0: &batch[i].1.src0,
            src1: &batch[i].1.src1,
            mask: batch[i].1.mask,
            activemask: batch[i].1.activemask,
        },
        || bubbles.chance(10),
        |i, got: &pisa_sim::unit::PortOut| {
            let want = execute_lanes(batch[i].0, &batch[i].1);
            assert_eq!(got.wen, want.wen, "{tag} streamed case {i}");
            assert!(
                (0..N).all(|l| want.wen >> l & 1 == 0 || got.dst[l] == want.dst[l]),
                "{tag} streamed case {i}"
            );
            n += 1;
        },
    );
    assert_eq!(n, batch.len());
}

#[test]
fn models_match_the_reference_model() {
    for (l, p) in [(32, 0), (32, 2), (8, 3), (4, 1)] {
        let cfg = pisa_rtl::UnitConfig::new(l, p).unwrap();
        let mut u = RtlUnit::open(&cfg).unwrap();
        match cfg.lanes {
            4 => check::<4>(&mut u, 3000),
            8 => check::<8>(&mut u, 3000),
            16 => check::<16>(&mut u, 3000),
            _ => check::<32>(&mut u, 3000),
        }
    }
}

/// A model is built once into the cache; a later process loads it; another compiler (`CXX`)
/// builds another model; without Verilator or the compiler the error says what is missing.
#[test]
fn the_cache_builds_once_and_a_missing_verilator_is_named() {
    let cache = std::env::temp_dir().join(format!("pisa-sim-cache-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&cache);
    let probe = |extra: &[(&str, &str)]| {
        let mut c = std::process::Command::new(std::env::current_exe().unwrap());
        c.args(["--exact", "open_a_4_lane_model_in_a_child", "--ignored", "--nocapture"])
            .env("PISA_SIM_CACHE", &cache);
        for (k, v) in extra {
            c.env(k, v);
        }
        let o = c.output().unwrap();
        (
            o.status.success(),
            String::from_utf8_lossy(&o.stderr).into_owned() + &String::from_utf8_lossy(&o.stdout),
        )
    };
    let (ok, first) = probe(&[]);
    assert!(ok, "{first}");
    assert!(first.contains("pisa-sim: building the Verilator model"), "{first}");
    let (ok, second) = probe(&[]);
    assert!(ok, "{second}");
    assert!(!second.contains("building"), "the second process builds nothing: {second}");
    // the compiler is part of the key: GCC (with its own flags) builds a second model that works
    let (ok, gcc) = probe(&[("CXX", "g++")]);
    assert!(ok, "{gcc}");
    assert!(gcc.contains("pisa-sim: building the Verilator model"), "another key for g++: {gcc}");
    let (ok, no_cxx) = probe(&[("CXX", "/nonexistent/c++")]);
    assert!(!ok);
    assert!(
        no_cxx.contains("co-simulation needs a C++ compiler: `/nonexistent/c++` did not run"),
        "{no_cxx}"
    );
    let (ok, missing) = probe(&[("PISA_VERILATOR", "/nonexistent/verilator")]);
    assert!(!ok);
    assert!(
        missing.contains("co-simulation needs Verilator: `/nonexistent/verilator` did not run"),
        "{missing}"
    );
    let _ = std::fs::remove_dir_all(&cache);
}

/// The child of the test above (ignored unless run by it).
#[test]
#[ignore]
fn open_a_4_lane_model_in_a_child() {
    let cfg = pisa_rtl::UnitConfig::new(4, 2).unwrap();
    match RtlUnit::open(&cfg) {
        Ok(mut u) => check::<4>(&mut u, 500),
        Err(e) => panic!("{e}"),
    }
}

//! Every compiled kernel of the model (portable, AVX2, AVX-512), through both entry points (one
//! warp per call and the batch path), and the plain per-form benchmark baseline, against the
//! lane-by-lane oracle `literal` — written independently of all of them.
//!
//! A kernel this CPU cannot run is reported as skipped on stderr (and in the test output with
//! `--nocapture`), never silently passed: `kernels_this_cpu_runs` names what ran.

use pisa_model::gen::{random_inputs, Rng};
use pisa_model::kernel::{
    execute_batch_with, execute_lane_arrays_with, execute_with, Kernel, LaneArrays, LaneArraysMut,
};
use pisa_model::{literal, plain, SgInputs, SgOp, SgOutputs};

/// Edge-weighted random warps for every form: `per_form` warps each, as many again with every
/// lane participating (the reductions' maskless path, on edge values: the most negative
/// integers, NaNs, signed zeros), plus the typical mix (full masks, random values).
fn cases(seed: u64, per_form: u64) -> Vec<(SgOp, Vec<SgInputs>)> {
    SgOp::all()
        .into_iter()
        .enumerate()
        .map(|(f, op)| {
            let mut warps: Vec<SgInputs> = (0..per_form)
                .map(|i| random_inputs::<32>(&mut Rng::for_case(seed ^ f as u64, i), op))
                .collect();
            let full = (0..per_form).map(|i| {
                let mut w = random_inputs::<32>(&mut Rng::for_case(!seed ^ f as u64, i), op);
                (w.mask, w.activemask) = (u32::MAX, u32::MAX);
                w
            });
            warps.extend(full);
            warps.extend(pisa_model::perf::workload(op, pisa_model::perf::Workload::Typical));
            (op, warps)
        })
        .collect()
}

fn zero_outputs(n: usize) -> Vec<SgOutputs> {
    vec![SgOutputs { dst: [0; 32], wen: 0 }; n]
}

fn check_kernel(k: Kernel) {
    let mut checked = 0;
    for (op, warps) in cases(0x4B45_524E, 3000) {
        let want: Vec<SgOutputs> = warps.iter().map(|w| literal::execute(op, w)).collect();
        // batch path, in uneven slices so that batch edges are exercised
        let mut got = zero_outputs(warps.len());
        let mut start = 0;
        for len in [1usize, 7, 64, 1000].iter().cycle() {
            if start >= warps.len() {
                break;
            }
            let end = (start + len).min(warps.len());
            execute_batch_with(k, op, &warps[start..end], &mut got[start..end])
                .expect("kernel is supported");
            start = end;
        }
        // the structure-of-arrays path (the Python package's), over the whole set at once
        let src0: Vec<[u32; 32]> = warps.iter().map(|w| w.src0).collect();
        let src1: Vec<[u32; 32]> = warps.iter().map(|w| w.src1).collect();
        let mask: Vec<u32> = warps.iter().map(|w| w.mask).collect();
        let activemask: Vec<u32> = warps.iter().map(|w| w.activemask).collect();
        let mut dst = vec![[0xDEAD_BEEF; 32]; warps.len()];
        let mut wen = vec![0xDEAD_BEEF; warps.len()];
        execute_lane_arrays_with(
            k,
            op,
            LaneArrays { src0: &src0, src1: &src1, mask: &mask, activemask: &activemask },
            LaneArraysMut { dst: &mut dst, wen: &mut wen },
        )
        .expect("kernel is supported");
        for (i, w) in warps.iter().enumerate() {
            assert_eq!(got[i], want[i], "{} batch: {op} warp {i}\ninputs={w:?}", k.name());
            let soa = SgOutputs { dst: dst[i], wen: wen[i] };
            assert_eq!(soa, want[i], "{} lane arrays: {op} warp {i}\ninputs={w:?}", k.name());
            let single = execute_with(k, op, w).expect("kernel is supported");
            assert_eq!(single, want[i], "{} single: {op} warp {i}\ninputs={w:?}", k.name());
        }
        checked += warps.len();
    }
    eprintln!("kernel {}: {checked} warps over {} forms equal literal", k.name(), 57);
}

#[test]
fn portable_kernel_equals_literal() {
    check_kernel(Kernel::Portable);
}

#[test]
fn avx2_kernel_equals_literal() {
    match Kernel::Avx2.check() {
        Ok(k) => check_kernel(k),
        Err(e) => eprintln!("SKIPPED avx2 kernel: {e}"),
    }
}

#[test]
fn avx2_gather_kernel_equals_literal() {
    match Kernel::Avx2Gather.check() {
        Ok(k) => check_kernel(k),
        Err(e) => eprintln!("SKIPPED avx2-gather kernel: {e}"),
    }
}

#[test]
fn avx512_kernel_equals_literal() {
    match Kernel::Avx512.check() {
        Ok(k) => check_kernel(k),
        Err(e) => eprintln!("SKIPPED avx512 kernel: {e}"),
    }
}

/// The batch path writes a reduction's outputs eight warps at a time where all eight write every
/// lane (AVX2: one stream of aligned stores). For every kernel this CPU runs, every reduction
/// form, and every start of the output slice modulo 32 bytes: batches of full warps with a warp
/// that writes fewer lanes at varying places (which breaks its group of eight) equal
/// `literal`, and the outputs around the slice keep their sentinel.
#[test]
fn grouped_reduction_stores_equal_literal() {
    const SENTINEL: SgOutputs = SgOutputs { dst: [0x5EA7_1E55; 32], wen: 0x5EA7_1E55 };
    let reductions = SgOp::all().into_iter().filter(|op| !matches!(op, SgOp::Shfl { .. }));
    let kernels: Vec<Kernel> = Kernel::ALL.into_iter().filter(|k| k.supported()).collect();
    let mut checked = 0;
    for (f, op) in reductions.enumerate() {
        let mut rng = Rng::for_case(0x6A0F, f as u64);
        let mut warps = pisa_model::perf::workload_of(op, pisa_model::perf::Workload::Typical, 70);
        for broken in [3usize, 17, 40, 41, 66] {
            // fewer lanes: an inactive lane, or (fred/ired) a lane outside the mask operand
            let lane = 1u32 << rng.below(32);
            if rng.below(2) == 0 {
                warps[broken].activemask &= !lane;
            } else {
                warps[broken].mask &= !lane;
            }
        }
        let want: Vec<SgOutputs> = warps.iter().map(|w| literal::execute(op, w)).collect();
        for &k in &kernels {
            for first in 0..8 {
                for len in [warps.len() - first, 8, 9, 16 + first] {
                    let mut got = vec![SENTINEL; first + len + 1];
                    execute_batch_with(k, op, &warps[first..first + len], &mut got[first..][..len])
                        .expect("kernel is supported");
                    for (i, g) in got.iter().enumerate() {
                        let w = if i >= first && i < first + len { Some(&want[i]) } else { None };
                        assert_eq!(
                            g,
                            w.unwrap_or(&SENTINEL),
                            "{} batch of {len} from warp {first}: {op}, output {i}",
                            k.name()
                        );
                    }
                    checked += len;
                }
            }
        }
    }
    eprintln!("grouped reduction stores: {checked} warps equal literal");
}

/// The default entry points use the best kernel; the batch and single-call results agree.
#[test]
fn default_entry_points_equal_literal() {
    for (op, warps) in cases(0xDEF0, 500) {
        let batch = pisa_model::execute_batch(op, &warps);
        assert_eq!(batch.len(), warps.len());
        for (i, w) in warps.iter().enumerate() {
            let want = literal::execute(op, w);
            assert_eq!(batch[i], want, "execute_batch: {op} warp {i}\ninputs={w:?}");
            assert_eq!(pisa_model::execute(op, w), want, "execute: {op} warp {i}");
        }
    }
}

/// The benchmark baseline computes the same function (else its speed would mean nothing).
#[test]
fn plain_baseline_equals_literal() {
    for (op, warps) in cases(0x9A1B, 3000) {
        let mut got = zero_outputs(warps.len());
        plain::execute_batch_into(op, &warps, &mut got);
        for (i, w) in warps.iter().enumerate() {
            assert_eq!(got[i], literal::execute(op, w), "plain: {op} warp {i}\ninputs={w:?}");
        }
    }
}

/// Names what this CPU runs and what it skips; on x86-64 with AVX2 the AVX2 kernel must be
/// among the supported ones (the CI machines have it), so a broken detection cannot hide it.
#[test]
fn kernels_this_cpu_runs() {
    let best = Kernel::best();
    assert!(best.supported());
    for k in Kernel::ALL {
        match k.check() {
            Ok(_) => eprintln!("kernel {}: runs here", k.name()),
            Err(e) => eprintln!("kernel {}: SKIPPED here ({e})", k.name()),
        }
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        assert!(Kernel::Avx2.supported() && Kernel::Avx2Gather.supported());
        assert_ne!(best, Kernel::Portable, "best() must not fall back when AVX2 is present");
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512dq")
    {
        assert_eq!(best, Kernel::Avx512);
    }
    assert_eq!(Kernel::from_name("avx2"), Some(Kernel::Avx2));
    assert_eq!(Kernel::from_name("avx2-gather"), Some(Kernel::Avx2Gather));
    assert_eq!(Kernel::from_name("sse"), None);
}

/// `execute_n` (what the co-simulation regression uses) at 32 lanes and at 8.
#[test]
fn execute_n_equals_literal() {
    for (op, warps) in cases(0xE8, 200) {
        for w in &warps {
            assert_eq!(
                pisa_model::unit::execute_n(op, w),
                literal::execute(op, w),
                "{op} 32 lanes"
            );
            let w8 = pisa_model::SgInputs::<8> {
                src0: std::array::from_fn(|i| w.src0[i]),
                src1: std::array::from_fn(|i| w.src1[i]),
                mask: w.mask,
                activemask: w.activemask,
            };
            assert_eq!(pisa_model::unit::execute_n(op, &w8), literal::execute(op, &w8), "{op} 8");
        }
    }
}

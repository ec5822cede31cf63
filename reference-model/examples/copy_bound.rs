//! The memory ceiling of the batch path: how fast a loop that only moves a warp's bytes runs,
//! against the model's `ired` and `redfirstidx` kernels on the same warps, per batch size, e.g.
//! `cargo run --release -p pisa-model --example copy_bound`.
//!
//! `masked copy` reads each warp's `src0` and masks and writes its whole `SgOutputs`
//! (`dst = src0` in the participating lanes, zero elsewhere, `wen`): the loads and stores of
//! every `ired` form without its reduction, with AVX-512 (two masked 512-bit loads and two
//! 512-bit stores a warp). `stores only` writes each `SgOutputs` from the masks alone, as
//! `redfirstidx` does. No kernel that reads and writes these bytes can run faster than these.
use pisa_model::kernel::{execute_batch_with, Kernel};
use pisa_model::perf::{workload_of, Workload};
use pisa_model::{plain, SgInputs, SgOp, SgOutputs};
use std::hint::black_box;

#[path = "shared/rate.rs"]
mod rate;

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn masked_copy(inputs: &[SgInputs], out: &mut [SgOutputs]) {
    use std::arch::x86_64::*;
    for (i, o) in inputs.iter().zip(out.iter_mut()) {
        let p = i.mask & i.activemask;
        let s = i.src0.as_ptr() as *const i32;
        let d = o.dst.as_mut_ptr() as *mut i32;
        _mm512_storeu_epi32(d, _mm512_maskz_loadu_epi32(p as u16, s));
        _mm512_storeu_epi32(d.add(16), _mm512_maskz_loadu_epi32((p >> 16) as u16, s.add(16)));
        o.wen = p;
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn stores_only(inputs: &[SgInputs], out: &mut [SgOutputs]) {
    use std::arch::x86_64::*;
    for (i, o) in inputs.iter().zip(out.iter_mut()) {
        let p = i.mask & i.activemask;
        let v = _mm512_set1_epi32(p.trailing_zeros() as i32);
        let d = o.dst.as_mut_ptr() as *mut i32;
        _mm512_storeu_epi32(d, _mm512_maskz_mov_epi32(i.activemask as u16, v));
        _mm512_storeu_epi32(d.add(16), _mm512_maskz_mov_epi32((i.activemask >> 16) as u16, v));
        o.wen = i.activemask;
    }
}

fn main() {
    if Kernel::Avx512.check().is_err() {
        return eprintln!("copy_bound: this CPU has no AVX-512F");
    }
    let rate = |n: usize, f: &mut dyn FnMut(&mut [SgOutputs])| rate::batch_rate(n, 4_000_000, f);
    let sum: SgOp = "ired.sum.32b".parse().expect("a form");
    let first: SgOp = "redfirstidx.32b".parse().expect("a form");
    for n in [64usize, 256, 1024] {
        let cases = workload_of(sum, Workload::Typical, n);
        let fcases = workload_of(first, Workload::Typical, n);
        // SAFETY: AVX-512F checked above.
        let copy = rate(n, &mut |o| unsafe { masked_copy(black_box(&cases), o) });
        let model = rate(n, &mut |o| {
            let _ = execute_batch_with(Kernel::Avx512, sum, black_box(&cases), o);
        });
        let base = rate(n, &mut |o| plain::execute_batch_into(sum, black_box(&cases), o));
        let stores = rate(n, &mut |o| unsafe { stores_only(black_box(&fcases), o) });
        let fmodel = rate(n, &mut |o| {
            let _ = execute_batch_with(Kernel::Avx512, first, black_box(&fcases), o);
        });
        let fbase = rate(n, &mut |o| plain::execute_batch_into(first, black_box(&fcases), o));
        println!(
            "{n:5} warps: masked copy {copy:6.1} M/s, ired.sum.32b {model:6.1} (plain {base:5.1}); \
             stores only {stores:6.1} M/s, redfirstidx.32b {fmodel:6.1} (plain {fbase:5.1})"
        );
    }
}

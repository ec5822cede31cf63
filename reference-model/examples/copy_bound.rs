//! The memory ceiling of the batch path: how fast a loop that only moves a warp's bytes runs,
//! against the model's `ired` and `redfirstidx` kernels on the same warps, per batch size, e.g.
//! `cargo run --release -p pisa-model --example copy_bound`.
//!
//! `masked copy` reads each warp's `src0` and masks and writes its whole `SgOutputs`
//! (`dst = src0` in the participating lanes, zero elsewhere, `wen`): the loads and stores of
//! every `ired` form without its reduction, with AVX-512 (two masked 512-bit loads and two
//! 512-bit stores a warp). `stores only` writes each `SgOutputs` from the masks alone, as
//! `redfirstidx` does. No kernel that reads and writes these bytes can run faster than these.
//!
//! On a CPU with AVX2 the same with 256-bit registers, against the `avx2` kernel: the masked
//! copy (four loads, four `and`s with the lane mask, four stores, `wen`), and the stores of
//! `redfirstidx` three ways: `4+1` four unaligned stores and `wen` a warp (what a compiler makes
//! of a plain loop), `5` three aligned stores with one unaligned at each end overlapping them,
//! the last one writing `wen` (the model's store for one warp), and `33/8` thirty-three aligned
//! stores for eight warps (the model's store for eight consecutive warps that write every lane).
//! `33/8` writes the same vector everywhere, so it measures only the stores' cost: the ceiling
//! of any kernel that writes eight 132-byte `SgOutputs` with 32-byte stores. `no reads` is
//! `33/8` without reading the masks: the same bytes stored with no `SgInputs` line in the L1
//! beside them (what the stores alone would allow if the inputs took no cache).
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

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn masked_copy_avx2(inputs: &[SgInputs], out: &mut [SgOutputs]) {
    use std::arch::x86_64::*;
    let shifts = [
        _mm256_setr_epi32(31, 30, 29, 28, 27, 26, 25, 24),
        _mm256_setr_epi32(23, 22, 21, 20, 19, 18, 17, 16),
        _mm256_setr_epi32(15, 14, 13, 12, 11, 10, 9, 8),
        _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0),
    ];
    for (i, o) in inputs.iter().zip(out.iter_mut()) {
        let p = i.mask & i.activemask;
        let b = _mm256_set1_epi32(p as i32);
        let s = i.src0.as_ptr() as *const __m256i;
        let d = o.dst.as_mut_ptr() as *mut __m256i;
        for (q, &shift) in shifts.iter().enumerate() {
            // lane `8q + j`: bit `8q + j` of `p` moved to the sign bit, then to every bit
            let m = _mm256_srai_epi32::<31>(_mm256_sllv_epi32(b, shift));
            _mm256_storeu_si256(d.add(q), _mm256_and_si256(m, _mm256_loadu_si256(s.add(q))));
        }
        o.wen = p;
    }
}

/// The index `redfirstidx` writes (every lane active in these workloads).
fn first(i: &SgInputs) -> i32 {
    let p = i.mask & i.activemask;
    if p == 0 {
        32
    } else {
        p.trailing_zeros() as i32
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn stores_4_1(inputs: &[SgInputs], out: &mut [SgOutputs]) {
    use std::arch::x86_64::*;
    for (i, o) in inputs.iter().zip(out.iter_mut()) {
        let v = _mm256_set1_epi32(first(i));
        let d = o.dst.as_mut_ptr() as *mut __m256i;
        for q in 0..4 {
            _mm256_storeu_si256(d.add(q), v);
        }
        o.wen = i.activemask;
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn stores_5(inputs: &[SgInputs], out: &mut [SgOutputs]) {
    use std::arch::x86_64::*;
    for (i, o) in inputs.iter().zip(out.iter_mut()) {
        let v = _mm256_set1_epi32(first(i));
        let last = _mm256_blend_epi32::<0x80>(v, _mm256_set1_epi32(i.activemask as i32));
        let base = o as *mut SgOutputs as *mut u8;
        let aligned = base.add(32 - (base as usize & 31)) as *mut __m256i;
        _mm256_storeu_si256(base as *mut __m256i, v);
        for q in 0..3 {
            _mm256_store_si256(aligned.add(q), v);
        }
        _mm256_storeu_si256(base.add(100) as *mut __m256i, last);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn stores_33_8(inputs: &[SgInputs], out: &mut [SgOutputs]) {
    use std::arch::x86_64::*;
    // from the first warp on a 32-byte boundary (132 = 4 mod 32); the warps before it and
    // after the last group of eight as `stores_5`
    let lead = ((32 - out.as_ptr() as usize % 32) % 32 / 4).min(inputs.len());
    stores_5(&inputs[..lead], &mut out[..lead]);
    let (inputs, out) = (&inputs[lead..], &mut out[lead..]);
    let tail = inputs.len() / 8 * 8;
    stores_5(&inputs[tail..], &mut out[tail..]);
    for (g_in, g_out) in inputs.chunks_exact(8).zip(out.chunks_exact_mut(8)) {
        let mut v = 0;
        for i in g_in {
            v ^= first(i);
        }
        let v = _mm256_set1_epi32(v);
        let d = g_out.as_mut_ptr() as *mut __m256i;
        for c in 0..33 {
            _mm256_store_si256(d.add(c), v);
        }
    }
}

/// `stores_33_8` without reading `SgInputs`: the 132-byte `SgOutputs` of `out` as aligned
/// 32-byte stores of one vector, from the first 32-byte boundary to the last whole chunk.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn stores_no_reads(out: &mut [SgOutputs]) {
    use std::arch::x86_64::*;
    let base = out.as_mut_ptr() as *mut u8;
    let skip = (32 - base as usize % 32) % 32;
    let d = base.add(skip) as *mut __m256i;
    let v = _mm256_set1_epi32(black_box(7));
    for c in 0..(std::mem::size_of_val(out) - skip) / 32 {
        _mm256_store_si256(d.add(c), v);
    }
}

#[cfg(target_arch = "x86_64")]
fn avx2_lines(rate: impl Fn(usize, &mut dyn FnMut(&mut [SgOutputs])) -> f64) {
    let sum: SgOp = "ired.sum.32b".parse().expect("a form");
    let first: SgOp = "redfirstidx.32b".parse().expect("a form");
    for n in [64usize, 256, 1024] {
        let cases = workload_of(sum, Workload::Typical, n);
        let fcases = workload_of(first, Workload::Typical, n);
        // SAFETY (each unsafe call): AVX2 checked by the caller.
        let copy = rate(n, &mut |o| unsafe { masked_copy_avx2(black_box(&cases), o) });
        let model = rate(n, &mut |o| {
            let _ = execute_batch_with(Kernel::Avx2, sum, black_box(&cases), o);
        });
        let base = rate(n, &mut |o| plain::execute_batch_into(sum, black_box(&cases), o));
        let s41 = rate(n, &mut |o| unsafe { stores_4_1(black_box(&fcases), o) });
        let s5 = rate(n, &mut |o| unsafe { stores_5(black_box(&fcases), o) });
        let s33 = rate(n, &mut |o| unsafe { stores_33_8(black_box(&fcases), o) });
        let bare = rate(n, &mut |o| unsafe { stores_no_reads(o) });
        let fmodel = rate(n, &mut |o| {
            let _ = execute_batch_with(Kernel::Avx2, first, black_box(&fcases), o);
        });
        let fbase = rate(n, &mut |o| plain::execute_batch_into(first, black_box(&fcases), o));
        println!(
            "AVX2 {n:5} warps: masked copy {copy:6.1} M/s, ired.sum.32b {model:6.1} (plain \
             {base:5.1}); stores 4+1 {s41:6.1}, 5 {s5:6.1}, 33/8 {s33:6.1} (no reads {bare:6.1}) \
             M/s, redfirstidx.32b {fmodel:6.1} (plain {fbase:5.1})"
        );
    }
}

fn main() {
    let rate = |n: usize, f: &mut dyn FnMut(&mut [SgOutputs])| rate::batch_rate(n, 4_000_000, f);
    #[cfg(target_arch = "x86_64")]
    if Kernel::Avx2.check().is_ok() {
        avx2_lines(rate);
    }
    if Kernel::Avx512.check().is_err() {
        return eprintln!("copy_bound: this CPU has no AVX-512F (the AVX-512 lines are left out)");
    }
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
            "AVX-512 {n:5} warps: masked copy {copy:6.1} M/s, ired.sum.32b {model:6.1} (plain \
             {base:5.1}); stores only {stores:6.1} M/s, redfirstidx.32b {fmodel:6.1} (plain \
             {fbase:5.1})"
        );
    }
}

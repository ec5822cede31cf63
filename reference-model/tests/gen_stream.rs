//! The case generator keeps its stream: `gen::random_inputs` (written without data-dependent
//! branches, for speed) against a copy of the branchy generator it replaced (below, verbatim but
//! for its name, and with the close-values cases added since, `close_values` below), case for
//! case at every lane count and form. A report's replay line (`--seed S --case I`) therefore
//! names the same case before and after the rewrite. A change meant to alter the stream (new
//! edge values, other weights) changes this reference with it.

use pisa_model::gen::{random_inputs, random_inputs_baseline, Rng};
use pisa_model::op::{lane_mask, FloatType};
use pisa_model::{SgInputs, SgOp};

fn same_stream<const N: usize>(seed: u64, count: u64) {
    for op in SgOp::all() {
        for i in 0..count {
            let mut a = Rng::for_case(seed, i);
            let (mut b, mut c) = (a.clone(), a.clone());
            let new = random_inputs::<N>(&mut a, op);
            let old = branchy_inputs::<N>(&mut b, op);
            // the baseline compilation too, where random_inputs runs the AVX-512 one
            let base = random_inputs_baseline::<N>(&mut c, op);
            assert_eq!(new, old, "N={N} {op} seed={seed} case={i}");
            assert_eq!(base, old, "N={N} {op} seed={seed} case={i}: baseline compilation");
            // and the generator leaves the stream where the old one did
            let next = b.next_u64();
            assert_eq!(a.next_u64(), next, "N={N} {op} seed={seed} case={i}: stream");
            assert_eq!(c.next_u64(), next, "N={N} {op} seed={seed} case={i}: baseline stream");
        }
    }
}

#[test]
fn the_generator_keeps_its_stream_at_every_lane_count() {
    same_stream::<32>(1, 4000);
    same_stream::<32>(0xDEAD_BEEF, 2000);
    same_stream::<16>(2, 2000);
    same_stream::<8>(3, 2000);
    same_stream::<4>(4, 2000);
}

// ---- the generator before the rewrite (d5f7e64), the reference ----

/// Interesting 32-bit float encodings.
const F32_EDGES: [u32; 18] = [
    0x0000_0000,
    0x8000_0000, // ±0
    0x7F80_0000,
    0xFF80_0000, // ±inf
    0x7FC0_0000,
    0xFFC0_0000,
    0x7FFF_FFFF,
    0xFFFF_FFFF, // quiet NaNs
    0x7F80_0001,
    0xFF80_0001,
    0x7FA0_0000, // signalling NaNs
    0x0000_0001,
    0x8000_0001,
    0x007F_FFFF,
    0x807F_FFFF, // subnormals
    0x0080_0000,
    0x7F7F_FFFF,
    0xFF7F_FFFF, // min normal, ±max
];
const F16_EDGES: [u32; 15] = [
    0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0xFE00, 0x7FFF, 0x7C01, 0xFC01, 0x0001, 0x8001, 0x03FF,
    0x0400, 0x7BFF, 0xFBFF,
];
const BF16_EDGES: [u32; 15] = [
    0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0xFFC0, 0x7FFF, 0x7F81, 0xFF81, 0x0001, 0x8001, 0x007F,
    0x0080, 0x7F7F, 0xFF7F,
];
const INT_EDGES: [u32; 12] = [
    0,
    1,
    0xFFFF_FFFF,
    0x8000_0000,
    0x7FFF_FFFF,
    0x8000_0001,
    0x8000,
    0x7FFF,
    0xFFFF,
    0x8001,
    0x1_0000,
    0xFFFF_8000,
];

/// `xs[j]` for a 16-bit random `r16`.
#[inline]
fn pick16<T: Copy>(xs: &[T], r16: u64) -> T {
    xs[((r16 & 0xFFFF) as usize * xs.len()) >> 16]
}

/// One float element from one 64-bit draw `r`.
#[inline]
fn float_elem(r: u64, edges: &[u32], bits: u32, pool: &[u32]) -> u32 {
    let wm = if bits == 32 { u32::MAX } else { 0xFFFF };
    let val = (r >> 32) as u32;
    match ((r & 0xFFFF) * 10) >> 16 {
        0..=3 => pick16(edges, r >> 16),
        4..=5 => pick16(pool, r >> 16), // duplicates across lanes
        6 => val & wm & !(if bits == 32 { 0x7F80_0000 } else { 0x7F80 }), // subnormal-ish / small
        _ => val & wm,
    }
}

/// A random participation-style mask for an `N`-lane unit.
fn random_mask<const N: usize>(rng: &mut Rng) -> u32 {
    let full = lane_mask::<N>();
    let m = match rng.below(10) {
        0 => 0,
        1 => 1 << rng.below(N as u32),
        2..=4 => full,
        5 => {
            let a = rng.below(N as u32);
            let b = rng.below(N as u32);
            let (lo, hi) = (a.min(b), a.max(b));
            (lane_mask::<N>() >> (N as u32 - 1 - (hi - lo))) << lo
        }
        6 => rng.pick(&[0x0000_FFFF, 0xFFFF_0000, 0x5555_5555, 0xAAAA_AAAA, 0x8000_0001]),
        _ => rng.u32(),
    };
    m & full
}

/// `src1` of a shuffle for an `N`-lane unit: offset, clamp and segmask fields plus garbage in
/// the bits the instruction ignores.
fn shfl_src1<const N: usize>(rng: &mut Rng, seg: u32, cval_kind: u32) -> u32 {
    let fm = N as u32 - 1;
    let off = match rng.below(4) {
        0 => rng.pick(&[0, 1, fm]),
        _ => rng.below(N as u32),
    };
    let cval = match cval_kind {
        0 => 0,
        1 => fm,
        _ => rng.below(N as u32),
    };
    let garbage = if rng.chance(30) { rng.u32() & !((fm) | (fm << 8) | (fm << 16)) } else { 0 };
    off | (cval << 8) | (seg << 16) | garbage
}

/// A random segmask: one of the table's widths (for `N` lanes) or, rarely, any bits.
fn random_segmask<const N: usize>(rng: &mut Rng) -> u32 {
    let fm = N as u32 - 1;
    if rng.chance(15) {
        return rng.u32() & fm;
    }
    let width_log2 = rng.below(N.trailing_zeros() + 1); // segment width 2^w, 1..=N
    fm & !((1u32 << width_log2) - 1)
}

/// Random operands for `op` on an `N`-lane unit.
/// In 1 case in 8 (drawn after the lanes), every lane (each 16-bit element) becomes one base
/// value with a window of 1 to 4 bits at one place replaced by that lane's random bits.
fn close_values<const N: usize>(rng: &mut Rng, src: &mut [u32; N], bits: u32) {
    if !rng.chance(12) {
        return;
    }
    let base = rng.u32();
    let width = 1 + rng.below(4);
    let at = rng.below(bits - width + 1);
    let window: u32 = ((1u32 << width) - 1) << at;
    for v in src.iter_mut() {
        let r = rng.next_u64();
        if bits == 32 {
            *v = (base & !window) | (r as u32 & window);
        } else {
            let lo = (base & 0xFFFF & !window) | (r as u32 & window);
            let hi = ((base >> 16) & !window) | ((r >> 32) as u32 & window);
            *v = lo | (hi << 16);
        }
    }
}

fn branchy_inputs<const N: usize>(rng: &mut Rng, op: SgOp) -> SgInputs<N> {
    let full = lane_mask::<N>();
    let activemask = match rng.below(10) {
        0..=5 => full,
        6 => 1 << rng.below(N as u32),
        _ => rng.u32() & full,
    };
    let mask = if rng.chance(10) { rng.u32() } else { random_mask::<N>(rng) | (rng.u32() & !full) };
    let mut src0 = [0u32; N];
    let mut src1 = [0u32; N];
    match op {
        SgOp::Fred { ty, .. } => {
            let (edges, bits): (&[u32], u32) = match ty {
                FloatType::F => (&F32_EDGES, 32),
                FloatType::Hf | FloatType::Hfx2 => (&F16_EDGES, 16),
                FloatType::Bf | FloatType::Bfx2 => (&BF16_EDGES, 16),
            };
            let pool: [u32; 3] =
                std::array::from_fn(|_| float_elem(rng.next_u64(), edges, bits, edges));
            let nan_heavy = rng.chance(15);
            let packed = matches!(ty, FloatType::Hfx2 | FloatType::Bfx2);
            let upper = packed || rng.chance(50);
            for v in src0.iter_mut() {
                let r = rng.next_u64();
                // 1 in 5 lanes is NaN-heavy in a NaN-heavy case (bits 60..63 pick the coin)
                let e0 = if nan_heavy && (r >> 60) < 13 {
                    pick16(&edges[4..11], r >> 44)
                } else {
                    float_elem(r, edges, bits, &pool)
                };
                *v = if bits == 32 {
                    e0
                } else {
                    let e1 = float_elem(rng.next_u64(), edges, bits, &pool);
                    e0 | if upper { e1 << 16 } else { 0 }
                };
            }
            close_values(rng, &mut src0, bits);
        }
        SgOp::Ired { .. } => {
            let pool: [u32; 3] = std::array::from_fn(|_| rng.u32());
            let narrow = rng.chance(20);
            for v in src0.iter_mut() {
                let r = rng.next_u64();
                *v = match r & 7 {
                    0..=2 => pick16(&INT_EDGES, r >> 3),
                    3 => pick16(&pool, r >> 3),
                    _ if narrow => ((r >> 3) & 15) as u32,
                    _ => (r >> 32) as u32,
                };
            }
            close_values(rng, &mut src0, 32);
        }
        SgOp::Shfl { sg, .. } => {
            for v in src0.iter_mut() {
                *v = rng.u32();
            }
            let seg = if sg { random_segmask::<N>(rng) } else { rng.u32() & (N as u32 - 1) };
            let cval_kind = rng.below(3);
            if rng.chance(50) {
                let s = shfl_src1::<N>(rng, seg, cval_kind);
                src1 = [s; N];
            } else {
                let uniform_fields = rng.chance(50);
                let base = shfl_src1::<N>(rng, seg, cval_kind);
                for v in src1.iter_mut() {
                    *v = if uniform_fields {
                        // per-lane offsets, uniform clamp and segmask (the usual hardware use)
                        (base & !(N as u32 - 1)) | rng.below(N as u32)
                    } else {
                        let (seg, kind) = (random_segmask::<N>(rng), rng.below(3));
                        shfl_src1::<N>(rng, seg, kind)
                    };
                }
            }
        }
        SgOp::RedFirstIdx => {}
    }
    SgInputs { src0, src1, mask, activemask }
}

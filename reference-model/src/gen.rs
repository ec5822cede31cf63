//! Constrained-random sub-group cases, weighted to the edge classes where implementations differ:
//! NaN payloads (quiet and signalling, both signs), ±0, ±inf, subnormals, INT_MIN and friends,
//! garbage in the ignored upper half of 16-bit operands, empty / single-lane / full / ranged
//! masks, every `segmask` width (and non-table segmasks), clamps at both ends of a segment,
//! garbage in the ignored `src1` bits, and uniform vs per-lane `src1`.
//!
//! The generator is deterministic for a seed ([`Rng`] is splitmix64), so a failing case is
//! reproducible from `(seed, index)` alone. [`classify`] names the coverage bins a case hits.

use crate::op::lane_mask;
use crate::op::{FloatType, SgOp};
use crate::unit::SgInputs;

const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// splitmix64's output function.
#[inline(always)]
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// [`Rng::below`] of the draw `r`: uniform in `0..n`.
#[inline(always)]
fn below_of(r: u64, n: u32) -> u32 {
    (((r >> 32) * n as u64) >> 32) as u32
}

/// `a` when `c`, else `b`, as a conditional move (the generator's conditions are coin flips).
#[inline(always)]
fn sel(c: bool, a: u32, b: u32) -> u32 {
    std::hint::select_unpredictable(c, a, b)
}

/// splitmix64: small, fast, and good enough for test stimulus.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }
    /// An independent stream for case `index` of run `seed`.
    pub fn for_case(seed: u64, index: u64) -> Self {
        let mut r = Rng(seed ^ index.wrapping_mul(0xA076_1D64_78BD_642F));
        r.next_u64();
        r
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(GAMMA);
        mix(self.0)
    }
    /// The next draw when `c`; otherwise the stream does not move (and the value returned is
    /// not a draw). No branch: the case generator's choices are random, so branches on them
    /// mispredict about every other lane.
    #[inline]
    fn next_u64_if(&mut self, c: bool) -> u64 {
        self.0 = self.0.wrapping_add(GAMMA & (c as u64).wrapping_neg());
        mix(self.0)
    }
    /// The next `n` draws into `out[..n]`, as `n` calls of [`Rng::next_u64`] would give them.
    /// Each is a function of the state and its position, so the loop has no carried dependence
    /// and compiles to vector multiplies where the CPU has them.
    #[inline(always)]
    fn draws(&mut self, out: &mut [u64]) {
        let s = self.0;
        for (k, d) in out.iter_mut().enumerate() {
            *d = mix(s.wrapping_add(GAMMA.wrapping_mul(k as u64 + 1)));
        }
        self.0 = s.wrapping_add(GAMMA.wrapping_mul(out.len() as u64));
    }
    pub fn u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }
    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: u32) -> u32 {
        ((self.u32() as u64 * n as u64) >> 32) as u32
    }
    pub fn chance(&mut self, percent: u32) -> bool {
        self.below(100) < percent
    }
    pub fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len() as u32) as usize]
    }
}

/// Coverage class of a participation mask (`mask & activemask`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MaskClass {
    Empty,
    Single,
    Full,
    Partial,
}

impl MaskClass {
    pub fn of<const N: usize>(p: u32) -> MaskClass {
        let p = p & lane_mask::<N>();
        match p.count_ones() {
            0 => MaskClass::Empty,
            1 => MaskClass::Single,
            c if c as usize == N => MaskClass::Full,
            _ => MaskClass::Partial,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            MaskClass::Empty => "empty",
            MaskClass::Single => "single",
            MaskClass::Full => "full",
            MaskClass::Partial => "partial",
        }
    }
}

/// The segmask of a `.sg` shuffle: a sub-group width of the spec's table, or another pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SegClass {
    /// Segments of this many lanes (segmask = the table's pattern).
    Width(u32),
    /// A segmask that is not one of the table's patterns.
    Irregular,
}

impl SegClass {
    pub fn of<const N: usize>(segmask: u32) -> SegClass {
        let fm = N as u32 - 1;
        let seg = segmask & fm;
        let low = !seg & fm; // the lanes within a segment
        if low & (low + 1) == 0 {
            SegClass::Width(low + 1)
        } else {
            SegClass::Irregular
        }
    }
    /// Every class for an `N`-lane unit.
    pub fn all<const N: usize>() -> Vec<SegClass> {
        let mut v: Vec<SegClass> =
            (0..=N.trailing_zeros()).map(|k| SegClass::Width(1 << k)).collect();
        v.push(SegClass::Irregular);
        v
    }
    pub fn name(self) -> String {
        match self {
            SegClass::Width(w) => format!("seg{w}"),
            SegClass::Irregular => "seg-irregular".into(),
        }
    }
}

/// The coverage bin of a case: form, participation class and (for `.sg` shuffles) the segmask
/// class of lane 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Bin {
    pub op: SgOp,
    pub mask: MaskClass,
    pub segmask: Option<SegClass>,
}

/// The coverage bin a case falls in.
pub fn classify<const N: usize>(op: SgOp, inp: &SgInputs<N>) -> Bin {
    let segmask = match op {
        SgOp::Shfl { sg: true, .. } => Some(SegClass::of::<N>(inp.src1[0] >> 16)),
        _ => None,
    };
    Bin { op, mask: MaskClass::of::<N>(inp.mask & inp.activemask), segmask }
}

/// Every bin of `forms` for an `N`-lane unit.
pub fn all_bins<const N: usize>(forms: &[SgOp]) -> Vec<Bin> {
    let masks = [MaskClass::Empty, MaskClass::Single, MaskClass::Partial, MaskClass::Full];
    let mut v = Vec::new();
    for &op in forms {
        let segs: Vec<Option<SegClass>> = match op {
            SgOp::Shfl { sg: true, .. } => SegClass::all::<N>().into_iter().map(Some).collect(),
            _ => vec![None],
        };
        for mask in masks {
            for &segmask in &segs {
                v.push(Bin { op, mask, segmask });
            }
        }
    }
    v
}

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

/// `xs[j]` for a 16-bit random `r16` (`xs` not empty).
#[inline(always)]
fn pick16<T: Copy>(xs: &[T], r16: u64) -> T {
    let j = ((r16 & 0xFFFF) as usize * xs.len()) >> 16;
    debug_assert!(j < xs.len());
    // SAFETY: (r16 & 0xFFFF) < 2^16, so j < xs.len(); unchecked so the lane loops vectorize.
    unsafe { *xs.get_unchecked(j) }
}

/// One float element from one 64-bit draw `r`: bits [15:0] pick the kind (4 in 10 an edge
/// encoding, 2 in 10 one of the case's pool, so lanes repeat; 1 in 10 a random value with a
/// zero exponent, subnormal-ish or small; else any value), the rest the value.
#[inline(always)]
fn float_elem(r: u64, edges: &[u32], bits: u32, pool: &[u32]) -> u32 {
    let wm = if bits == 32 { u32::MAX } else { 0xFFFF };
    let val = (r >> 32) as u32 & wm;
    let small = val & !(if bits == 32 { 0x7F80_0000 } else { 0x7F80 });
    let kind = ((r & 0xFFFF) * 10) >> 16; // 0..=9
    let other = sel(kind == 6, small, val);
    let listed = sel(kind <= 3, pick16(edges, r >> 16), pick16(pool, r >> 16));
    sel(kind <= 5, listed, other)
}

/// In 1 case in 8, replaces `src` by values close to one another: each lane (each `bits`-bit
/// element) is one base value with a window of 1 to 4 bits at one random place drawn per lane,
/// so that lanes agree in every bit but a few. The reduction's comparators and adders decide
/// such pairs at the window's place, through its carry or borrow chain: random values differ
/// in their high bits and decide there.
fn close_values<const N: usize>(rng: &mut Rng, src: &mut [u32; N], bits: u32) {
    if !rng.chance(12) {
        return;
    }
    let base = rng.u32();
    let width = 1 + rng.below(4);
    let at = rng.below(bits - width + 1);
    let window = ((1u32 << width) - 1) << at;
    let mut d = [0u64; 32];
    rng.draws(&mut d[..N]);
    for (v, &r) in src.iter_mut().zip(&d) {
        let lane = |b: u32, r: u32| (b & !window) | (r & window);
        *v = if bits == 32 {
            lane(base, r as u32)
        } else {
            // both 16-bit elements
            lane(base & 0xFFFF, r as u32) | lane(base >> 16, (r >> 32) as u32) << 16
        };
    }
}

/// A random participation-style mask for an `N`-lane unit.
pub fn random_mask<const N: usize>(rng: &mut Rng) -> u32 {
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
///
/// The offset is one of 0, 1, `N-1` (1 in 4) or any lane; the clamp 0, `N-1` or any lane as
/// `cval_kind` says (0, 1, 2); 3 in 10 get garbage. Written without branches on the draws (the
/// draws are those of `off = if below(4) == 0 { pick(&[0, 1, fm]) } else { below(N) }`, then
/// `below(N)` for a clamp of kind 2, then `chance(30)` and the garbage `u32()` when it hits).
#[inline]
fn shfl_src1<const N: usize>(rng: &mut Rng, seg: u32, cval_kind: u32) -> u32 {
    let fm = N as u32 - 1;
    let (r_kind, r_off) = (rng.next_u64(), rng.next_u64());
    let listed = [0, 1, fm][below_of(r_off, 3) as usize];
    let off = sel(below_of(r_kind, 4) == 0, listed, below_of(r_off, N as u32));
    let r_cval = rng.next_u64_if(cval_kind >= 2);
    let cval = sel(cval_kind >= 2, below_of(r_cval, N as u32), sel(cval_kind == 1, fm, 0));
    let dirty = below_of(rng.next_u64(), 100) < 30;
    let r_garbage = rng.next_u64_if(dirty);
    let garbage = sel(dirty, (r_garbage >> 32) as u32 & !(fm | (fm << 8) | (fm << 16)), 0);
    off | (cval << 8) | (seg << 16) | garbage
}

/// A random segmask: one of the table's widths (for `N` lanes) or, 15 in 100, any bits. Two
/// draws either way: the coin, then the bits or the width.
#[inline]
fn random_segmask<const N: usize>(rng: &mut Rng) -> u32 {
    let fm = N as u32 - 1;
    let irregular = below_of(rng.next_u64(), 100) < 15;
    let r = rng.next_u64();
    let width_log2 = below_of(r, N.trailing_zeros() + 1); // segment width 2^w, 1..=N
    sel(irregular, (r >> 32) as u32 & fm, fm & !((1u32 << width_log2) - 1))
}

/// Random operands for `op` on an `N`-lane unit.
///
/// The same stream on every CPU; where the CPU has AVX-512 (F, DQ, VL, BW) the lane loops are
/// compiled for it (the 64-bit multiplies of the draws vectorize).
pub fn random_inputs<const N: usize>(rng: &mut Rng, op: SgOp) -> SgInputs<N> {
    #[cfg(target_arch = "x86_64")]
    if avx512_gen() {
        // SAFETY: avx512_gen() checked the features the function is compiled for.
        return unsafe { random_inputs_avx512::<N>(rng, op) };
    }
    random_inputs_body::<N>(rng, op)
}

/// [`random_inputs`] compiled for the baseline target, whatever the CPU has (for the tests that
/// check both compilations give the same stream).
#[doc(hidden)]
pub fn random_inputs_baseline<const N: usize>(rng: &mut Rng, op: SgOp) -> SgInputs<N> {
    random_inputs_body::<N>(rng, op)
}

/// Whether this CPU runs [`random_inputs_avx512`] (detected once, then std's cached flags).
#[cfg(target_arch = "x86_64")]
#[inline]
fn avx512_gen() -> bool {
    std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512dq")
        && std::arch::is_x86_feature_detected!("avx512vl")
        && std::arch::is_x86_feature_detected!("avx512bw")
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq,avx512vl,avx512bw,avx2,bmi1,bmi2,popcnt")]
unsafe fn random_inputs_avx512<const N: usize>(rng: &mut Rng, op: SgOp) -> SgInputs<N> {
    random_inputs_body::<N>(rng, op)
}

/// [`random_inputs`], written once (no closures: they would lose the caller's target features).
#[inline(always)]
fn random_inputs_body<const N: usize>(rng: &mut Rng, op: SgOp) -> SgInputs<N> {
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
            let upper_mask = if upper { u32::MAX } else { 0 };
            // in a NaN-heavy case 13 in 16 lanes take `edges[4..11]` (bits 60..63 pick the coin):
            // NaNs, and for the 16-bit types also the two smallest subnormals
            let nan = &edges[4..11];
            let mut d = [0u64; 64];
            if bits == 32 {
                // one draw a lane
                rng.draws(&mut d[..N]);
                for (v, &r) in src0.iter_mut().zip(&d) {
                    let listed = float_elem(r, edges, 32, &pool);
                    *v = sel(nan_heavy & ((r >> 60) < 13), pick16(nan, r >> 44), listed);
                }
            } else {
                // two draws a lane: the low element's, then the high one's
                rng.draws(&mut d[..2 * N]);
                for (k, v) in src0.iter_mut().enumerate() {
                    let (r, r1) = (d[2 * k], d[2 * k + 1]);
                    let listed = float_elem(r, edges, 16, &pool);
                    let e0 = sel(nan_heavy & ((r >> 60) < 13), pick16(nan, r >> 44), listed);
                    let e1 = float_elem(r1, edges, 16, &pool);
                    *v = e0 | ((e1 << 16) & upper_mask);
                }
            }
            close_values(rng, &mut src0, bits);
        }
        SgOp::Ired { .. } => {
            let pool: [u32; 3] = std::array::from_fn(|_| rng.u32());
            let narrow = rng.chance(20);
            let mut d = [0u64; N];
            rng.draws(&mut d);
            for (v, &r) in src0.iter_mut().zip(&d) {
                // bits [2:0] pick the kind: 3 in 8 an edge value, 1 in 8 the pool, else random
                // (in a narrow case 4 bits)
                let random = sel(narrow, ((r >> 3) & 15) as u32, (r >> 32) as u32);
                let listed = sel(r & 7 <= 2, pick16(&INT_EDGES, r >> 3), pick16(&pool, r >> 3));
                *v = sel(r & 7 <= 3, listed, random);
            }
            close_values(rng, &mut src0, 32);
        }
        SgOp::Shfl { sg, .. } => {
            let mut d = [0u64; N];
            rng.draws(&mut d);
            for (v, &r) in src0.iter_mut().zip(&d) {
                *v = (r >> 32) as u32;
            }
            let seg = if sg { random_segmask::<N>(rng) } else { rng.u32() & (N as u32 - 1) };
            let cval_kind = rng.below(3);
            if rng.chance(50) {
                let s = shfl_src1::<N>(rng, seg, cval_kind);
                src1 = [s; N];
            } else {
                let uniform_fields = rng.chance(50);
                let base = shfl_src1::<N>(rng, seg, cval_kind);
                if uniform_fields {
                    // per-lane offsets, uniform clamp and segmask (the usual hardware use)
                    let mut d = [0u64; N];
                    rng.draws(&mut d);
                    for (v, &r) in src1.iter_mut().zip(&d) {
                        *v = (base & !(N as u32 - 1)) | below_of(r, N as u32);
                    }
                } else {
                    for v in src1.iter_mut() {
                        let (seg, kind) = (random_segmask::<N>(rng), rng.below(3));
                        *v = shfl_src1::<N>(rng, seg, kind);
                    }
                }
            }
        }
        SgOp::RedFirstIdx => {}
    }
    SgInputs { src0, src1, mask, activemask }
}

/// A random form, then random operands for it.
pub fn random_case<const N: usize>(rng: &mut Rng, forms: &[SgOp]) -> (SgOp, SgInputs<N>) {
    let op = rng.pick(forms);
    (op, random_inputs::<N>(rng, op))
}

//! [`Avx2`]: 32 lanes as four 256-bit registers.
//!
//! The 32-entry gather of `shfl` is written two ways, one type each: [`Avx2`] permutes in
//! registers (`vpermd` from each quarter of the table, blended by index bits 3 and 4), and
//! [`Avx2Gather`] uses the hardware gather (`vpgatherdd`). Which is faster depends on the core:
//! on AMD Zen 4 the permutes run `shfl.idx.32b` about three times as fast as `vpgatherdd`, on
//! Zen 3 about twice, on the Intel Xeons measured before `vpgatherdd` was faster
//! (`docs/qor.md`); `Kernel::best` picks by vendor.
//!
//! Masks here are often sign bits only: `vblendvps` reads each lane's bit 31, so a lane's bit of
//! a participation word is moved there with one `vpsllvd` rather than widened to a whole lane.
//! Both kinds of type keep a fast path for the common case of every lane participating.
//!
//! Only call these from code compiled with AVX2 enabled (a `#[target_feature(enable = "avx2")]`
//! function entered after a run-time check).
use super::Lanes;
use crate::unit::SgOutputs;
use std::arch::x86_64::*;

/// 32 lanes in four 256-bit registers; `HW_GATHER` selects the gather (module docs).
#[derive(Clone, Copy, Debug)]
pub struct Avx2Lanes<const HW_GATHER: bool>(pub [__m256i; 4]);

/// AVX2 lanes with the in-register gather (`vpermd` + `vblendvps`).
pub type Avx2 = Avx2Lanes<false>;
/// AVX2 lanes with the hardware gather (`vpgatherdd`).
pub type Avx2Gather = Avx2Lanes<true>;

macro_rules! lanewise {
    ($a:expr, $b:expr, $f:ident) => {{
        let (a, b) = ($a.0, $b.0);
        // SAFETY (all intrinsics in this module): callers run on AVX2 hardware (module docs).
        unsafe { Self([$f(a[0], b[0]), $f(a[1], b[1]), $f(a[2], b[2]), $f(a[3], b[3])]) }
    }};
}

/// The four registers `[e(0), e(1), e(2), e(3)]` of `e` with `$q` bound to the register's
/// number: an expression, not a closure, because a closure is compiled without the caller's
/// target features and its intrinsics may then stay calls (`unit::run`).
macro_rules! per_register {
    ($q:ident => $e:expr) => {
        [
            {
                let $q = 0usize;
                $e
            },
            {
                let $q = 1usize;
                $e
            },
            {
                let $q = 2usize;
                $e
            },
            {
                let $q = 3usize;
                $e
            },
        ]
    };
}

/// Combines the four registers with `f`, then the eight lanes of the result.
macro_rules! horizontal {
    ($a:expr, $f:ident) => {{
        let a = $a.0;
        unsafe {
            let v = $f($f(a[0], a[1]), $f(a[2], a[3]));
            let v = $f(v, _mm256_permute2x128_si256::<0x01>(v, v));
            let v = $f(v, _mm256_shuffle_epi32::<0b01_00_11_10>(v));
            let v = $f(v, _mm256_shuffle_epi32::<0b10_11_00_01>(v));
            _mm256_extract_epi32::<0>(v) as u32
        }
    }};
}

/// One 32-byte chunk of eight consecutive `SgOutputs` (33 words a warp): the warp whose lanes
/// it starts with, the words that belong to the next warp (bit `j` for word `j`) and the words
/// that are a `wen` (at most one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct GroupChunk {
    warp: usize,
    next: i32,
    wen: i32,
}

/// The 33 chunks of eight `SgOutputs` ([`Lanes::store_full_group`]).
const GROUP: [GroupChunk; 33] = {
    let mut t = [GroupChunk { warp: 0, next: 0, wen: 0 }; 33];
    let mut c = 0;
    while c < 33 {
        let warp = 8 * c / 33;
        let (mut next, mut wen, mut j) = (0, 0, 0);
        while j < 8 {
            let word = 8 * c + j;
            if word / 33 != warp {
                next |= 1 << j;
            }
            if word % 33 == 32 {
                wen |= 1 << j;
            }
            j += 1;
        }
        t[c] = GroupChunk { warp, next, wen };
        c += 1;
    }
    t
};

/// [`Lanes::store_full_group`] as 33 aligned 32-byte stores when `out` starts on a 32-byte
/// boundary, else warp by warp with `V`'s [`Lanes::store_uniform_outputs`]. Eight warps'
/// `SgOutputs` are 264 words, 33 chunks of eight: 25 chunks hold one warp's value, 8 end one
/// warp (its last lanes and `wen`) and begin the next. Each chunk is one aligned store of the
/// warps' broadcast values, blended by constant masks ([`GROUP`]): 33 stores for eight warps,
/// none across a 64-byte line, against 40 for [`Lanes::store_uniform_outputs`] of which about
/// one in five crosses a line. Used by [`Avx2Lanes`] and by [`super::Avx512`] (whose 512-bit
/// stores move no more bytes a cycle on the cores measured, `docs/qor.md`).
///
/// Only call from code compiled with AVX2 enabled, on a CPU that has it (module docs).
#[inline(always)]
pub(crate) fn store_full_group_by_chunks<V: Lanes<32>>(v: &[u32; 8], out: &mut [SgOutputs<32>; 8]) {
    let base = out.as_mut_ptr() as *mut __m256i;
    if base as usize & 31 != 0 {
        for k in 0..8 {
            V::store_uniform_outputs(v[k], u32::MAX, V::splat(u32::MAX), &mut out[k]);
        }
        return;
    }
    // SAFETY: `out` is eight `repr(C)` `SgOutputs` of 132 bytes, 1,056 bytes from a 32-byte
    // boundary (checked above): the 33 aligned 32-byte stores cover exactly those bytes. The
    // caller runs on AVX2 hardware (above).
    unsafe {
        // Each value read on its own (volatile): the caller has just stored them one by one,
        // and LLVM otherwise may merge the eight reads into vector loads that cannot take their
        // data from those stores (perf showed such a stall when `fred` still ran grouped).
        macro_rules! splat {
            ($($k:literal)+) => {[$(_mm256_set1_epi32(std::ptr::read_volatile(&v[$k]) as i32)),+]};
        }
        let s: [__m256i; 8] = splat!(0 1 2 3 4 5 6 7);
        let ones = _mm256_set1_epi32(-1);
        macro_rules! chunks {
            ($($c:literal)+) => {$({
                const C: GroupChunk = GROUP[$c];
                let x = _mm256_blend_epi32::<{ C.next }>(s[C.warp], s[(C.warp + 1) % 8]);
                _mm256_store_si256(base.add($c), _mm256_blend_epi32::<{ C.wen }>(x, ones));
            })+};
        }
        chunks!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28
            29 30 31 32);
    }
}

impl<const HW_GATHER: bool> Lanes<32> for Avx2Lanes<HW_GATHER> {
    #[inline(always)]
    fn load(x: &[u32; 32]) -> Self {
        let p = x.as_ptr() as *const __m256i;
        // SAFETY: `x` is 32 u32 = four 256-bit unaligned loads in bounds.
        unsafe {
            Self([
                _mm256_loadu_si256(p),
                _mm256_loadu_si256(p.add(1)),
                _mm256_loadu_si256(p.add(2)),
                _mm256_loadu_si256(p.add(3)),
            ])
        }
    }
    #[inline(always)]
    fn store(self, out: &mut [u32; 32]) {
        let p = out.as_mut_ptr() as *mut __m256i;
        // SAFETY: four 256-bit unaligned stores in bounds of `out`.
        unsafe {
            for k in 0..4 {
                _mm256_storeu_si256(p.add(k), self.0[k]);
            }
        }
    }
    #[inline(always)]
    fn splat(v: u32) -> Self {
        let x = unsafe { _mm256_set1_epi32(v as i32) };
        Self([x; 4])
    }
    #[inline(always)]
    fn lane_ids() -> Self {
        unsafe {
            let base = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
            Self([
                base,
                _mm256_add_epi32(base, _mm256_set1_epi32(8)),
                _mm256_add_epi32(base, _mm256_set1_epi32(16)),
                _mm256_add_epi32(base, _mm256_set1_epi32(24)),
            ])
        }
    }
    #[inline(always)]
    fn expand(p: u32) -> Self {
        // One broadcast of `p`; each lane shifts its own bit into the sign position
        // (`vpsllvd` by 31 - lane) and spreads it (`vpsrad` 31): two operations per register.
        unsafe {
            let b = _mm256_set1_epi32(p as i32);
            Self(per_register!(q => {
                _mm256_srai_epi32::<31>(_mm256_sllv_epi32(b, to_sign_bit(q)))
            }))
        }
    }
    #[inline(always)]
    fn and(self, o: Self) -> Self {
        lanewise!(self, o, _mm256_and_si256)
    }
    #[inline(always)]
    fn or(self, o: Self) -> Self {
        lanewise!(self, o, _mm256_or_si256)
    }
    #[inline(always)]
    fn xor(self, o: Self) -> Self {
        lanewise!(self, o, _mm256_xor_si256)
    }
    #[inline(always)]
    fn andnot(self, o: Self) -> Self {
        lanewise!(self, o, _mm256_andnot_si256)
    }
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        lanewise!(self, o, _mm256_add_epi32)
    }
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        lanewise!(self, o, _mm256_sub_epi32)
    }
    #[inline(always)]
    fn umin(self, o: Self) -> Self {
        lanewise!(self, o, _mm256_min_epu32)
    }
    #[inline(always)]
    fn umax(self, o: Self) -> Self {
        lanewise!(self, o, _mm256_max_epu32)
    }
    #[inline(always)]
    fn shr<const S: i32>(self) -> Self {
        let a = self.0;
        unsafe {
            Self([
                _mm256_srli_epi32::<S>(a[0]),
                _mm256_srli_epi32::<S>(a[1]),
                _mm256_srli_epi32::<S>(a[2]),
                _mm256_srli_epi32::<S>(a[3]),
            ])
        }
    }
    #[inline(always)]
    fn shrv(self, c: Self) -> Self {
        lanewise!(self, c, _mm256_srlv_epi32)
    }
    #[inline(always)]
    fn sign_mask(self) -> Self {
        let a = self.0;
        unsafe {
            Self([
                _mm256_srai_epi32::<31>(a[0]),
                _mm256_srai_epi32::<31>(a[1]),
                _mm256_srai_epi32::<31>(a[2]),
                _mm256_srai_epi32::<31>(a[3]),
            ])
        }
    }
    #[inline(always)]
    fn gt(self, o: Self) -> Self {
        lanewise!(self, o, _mm256_cmpgt_epi32)
    }
    #[inline(always)]
    fn eq(self, o: Self) -> Self {
        lanewise!(self, o, _mm256_cmpeq_epi32)
    }
    #[inline(always)]
    fn select(m: Self, a: Self, b: Self) -> Self {
        unsafe {
            Self([
                _mm256_blendv_epi8(b.0[0], a.0[0], m.0[0]),
                _mm256_blendv_epi8(b.0[1], a.0[1], m.0[1]),
                _mm256_blendv_epi8(b.0[2], a.0[2], m.0[2]),
                _mm256_blendv_epi8(b.0[3], a.0[3], m.0[3]),
            ])
        }
    }
    /// [`Avx2`]: in registers ([`permute8`]); [`Avx2Gather`]: hardware gathers (`vpgatherdd`)
    /// from the table in memory, eight lanes each.
    #[inline(always)]
    fn gather(table: &[u32; 32], idx: Self) -> Self {
        if !HW_GATHER {
            let t = Self::load(table).0;
            let i = idx.0;
            // SAFETY: callers run on AVX2 hardware (module docs).
            return unsafe {
                Self([
                    permute8(&t, i[0]),
                    permute8(&t, i[1]),
                    permute8(&t, i[2]),
                    permute8(&t, i[3]),
                ])
            };
        }
        let p = table.as_ptr() as *const i32;
        // SAFETY: every index is below 32 (trait contract), so every read is inside `table`.
        unsafe {
            Self([
                _mm256_i32gather_epi32::<4>(p, idx.0[0]),
                _mm256_i32gather_epi32::<4>(p, idx.0[1]),
                _mm256_i32gather_epi32::<4>(p, idx.0[2]),
                _mm256_i32gather_epi32::<4>(p, idx.0[3]),
            ])
        }
    }
    /// Fused: bit `src` of `p` reaches the sign bit as `p.reverse_bits() << src` (one
    /// `vpsllvd`), and the two selects of the generic version become one `vblendvps` on sign
    /// bits, four operations a register fewer.
    #[inline(always)]
    fn shfl_read(table: &[u32; 32], src: Self, skip: Self, p: u32) -> Self {
        let own = Self::load(table).0;
        let got = Self::gather(table, src).0;
        if p == u32::MAX {
            // every lane participates (the common case): only the bounds decide
            return Self(per_register!(q => blend_sign(got[q], own[q], skip.0[q])));
        }
        // SAFETY: callers run on AVX2 hardware (module docs).
        unsafe {
            let r = _mm256_set1_epi32(p.reverse_bits() as i32);
            Self(per_register!(q => {
                let read = _mm256_andnot_si256(skip.0[q], _mm256_sllv_epi32(r, src.0[q]));
                blend_sign(own[q], got[q], read)
            }))
        }
    }
    /// [`Avx2`] with every lane participating (the common case) reads lane `i`'s value from
    /// `table[skip ? i : src]`, so no select follows the gather. Otherwise (some lanes not
    /// participating, or [`Avx2Gather`]) the generic version.
    #[inline(always)]
    fn shfl_store(table: &[u32; 32], src: Self, skip: Self, p: u32, out: &mut [u32; 32]) {
        if HW_GATHER || p != u32::MAX {
            return Self::shfl_read(table, src, skip, p).keep(p).store(out);
        }
        let ids = Self::lane_ids().0;
        let from = Self(per_register!(q => blend_sign(src.0[q], ids[q], skip.0[q])));
        Self::gather(table, from).store(out)
    }
    /// [`Avx2`] with every lane participating: lanes 0-23 by the permutes of [`permute8`] on
    /// `src1` as loaded (they read only index bits 4:0), lanes 24-31 by scalar loads,
    /// `table[src1[i] & 31]`. The scalar loads run on the load and store ports beside the
    /// permutes, which bound the rest (on AMD Zen 3, 140 against 127 M warps/s in a C copy of
    /// the batch loop, `docs/qor.md`). Otherwise the generic version.
    #[inline(always)]
    fn shfl_idx_store(table: &[u32; 32], src1: &[u32; 32], p: u32, out: &mut [u32; 32]) {
        if HW_GATHER || p != u32::MAX {
            return super::shfl_idx_by_shfl_store::<32, Self>(table, src1, p, out);
        }
        let t = Self::load(table).0;
        let i = Self::load(src1).0;
        let o = out.as_mut_ptr() as *mut __m256i;
        // SAFETY: callers run on AVX2 hardware (module docs); three 256-bit stores in bounds of
        // `out`.
        unsafe {
            _mm256_storeu_si256(o, permute8(&t, i[0]));
            _mm256_storeu_si256(o.add(1), permute8(&t, i[1]));
            _mm256_storeu_si256(o.add(2), permute8(&t, i[2]));
        }
        for (d, &s) in out[24..].iter_mut().zip(&src1[24..]) {
            *d = table[opaque(s) as usize & 31];
        }
    }
    /// Each lane's bit of `p` shifted to its sign bit (`vpsllvd` by 31 - lane), then one
    /// `vblendvps` with zero.
    #[inline(always)]
    fn keep(self, p: u32) -> Self {
        if p == u32::MAX {
            return self;
        }
        // SAFETY: callers run on AVX2 hardware (module docs).
        unsafe {
            let b = _mm256_set1_epi32(p as i32);
            let zero = _mm256_setzero_si256();
            Self(per_register!(q => {
                blend_sign(zero, self.0[q], _mm256_sllv_epi32(b, to_sign_bit(q)))
            }))
        }
    }
    /// When every lane is written: three aligned 32-byte stores and two unaligned ones at the
    /// ends, overlapping them (every lane holds the same value), the last one four bytes on so
    /// that it also writes `wen`. `SgOutputs` is 132 bytes, so most warps' `dst` starts off a
    /// 32-byte boundary: four unaligned stores and `wen` split two 64-byte lines in six stores,
    /// these split at most two in five, on average one (on AMD Zen 3, 622 against 426-484 M
    /// warps/s for the stores alone, `docs/qor.md`). Only the batch path writes this way: a
    /// load that spans two of these stores cannot take its data from them, so a caller that
    /// reads the result at once (one warp per call) would wait for them to reach the cache.
    #[inline(always)]
    fn store_uniform_outputs(v: u32, wen: u32, m: Self, out: &mut SgOutputs<32>) {
        if wen != u32::MAX {
            Self::splat(v).and(m).store(&mut out.dst);
            out.wen = wen;
            return;
        }
        let base = out as *mut SgOutputs<32> as *mut u8;
        // SAFETY: `SgOutputs` is `repr(C)`, 132 bytes: `dst` at 0, `wen` at 128. The aligned
        // stores start at the first 32-byte boundary after `base`, 4 to 32 bytes on (`out` is
        // 4-byte aligned), so they cover [skip, skip + 96) with 100 <= skip + 96 <= 128; the
        // first store covers [0, 32), the last [100, 132): `dst[25..32]` and `wen`. The lane
        // vector type is only built after the CPU's AVX2 was checked (module docs).
        unsafe {
            let x = _mm256_set1_epi32(v as i32);
            let last = _mm256_blend_epi32::<0x80>(x, _mm256_set1_epi32(wen as i32));
            let skip = 32 - (base as usize & 31);
            let aligned = base.add(skip) as *mut __m256i;
            _mm256_storeu_si256(base as *mut __m256i, x);
            _mm256_store_si256(aligned, x);
            _mm256_store_si256(aligned.add(1), x);
            _mm256_store_si256(aligned.add(2), x);
            _mm256_storeu_si256(base.add(100) as *mut __m256i, last);
        }
    }
    const GROUP_ALIGN: usize = 32;
    /// [`store_full_group_by_chunks`]: 33 aligned 32-byte stores.
    #[inline(always)]
    fn store_full_group(v: &[u32; 8], out: &mut [SgOutputs<32>; 8]) {
        store_full_group_by_chunks::<Self>(v, out)
    }
    #[inline(always)]
    fn reduce_add(self) -> u32 {
        horizontal!(self, _mm256_add_epi32)
    }
    #[inline(always)]
    fn reduce_umin(self) -> u32 {
        horizontal!(self, _mm256_min_epu32)
    }
    #[inline(always)]
    fn reduce_umax(self) -> u32 {
        horizontal!(self, _mm256_max_epu32)
    }
    #[inline(always)]
    fn reduce_and(self) -> u32 {
        horizontal!(self, _mm256_and_si256)
    }
    #[inline(always)]
    fn reduce_or(self) -> u32 {
        horizontal!(self, _mm256_or_si256)
    }
    #[inline(always)]
    fn reduce_xor(self) -> u32 {
        horizontal!(self, _mm256_xor_si256)
    }
}

/// Eight lanes of the in-register gather: the table as four vectors of eight, the output
/// permuted from each (`vpermd` reads index bits 2:0) and the four results blended by index bits
/// 3 and 4 (moved to the sign bit that `vblendvps` reads).
///
/// The two shifts are written as `asm!`: LLVM otherwise replaces each by an `and` and a compare
/// with zero (it knows `vblendvps` reads only the sign bit), two operations instead of one.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn permute8(t: &[__m256i; 4], i: __m256i) -> __m256i {
    // SAFETY: callers run on AVX2 hardware (module docs).
    unsafe {
        let (b3, b4): (__m256, __m256);
        std::arch::asm!(
            "vpslld {b3}, {i}, 28",
            "vpslld {b4}, {i}, 27",
            i = in(ymm_reg) i,
            b3 = out(ymm_reg) b3,
            b4 = lateout(ymm_reg) b4,
            options(pure, nomem, nostack, preserves_flags),
        );
        let p0 = _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(t[0], i));
        let p1 = _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(t[1], i));
        let p2 = _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(t[2], i));
        let p3 = _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(t[3], i));
        let lo = _mm256_blendv_ps(p0, p1, b3);
        let hi = _mm256_blendv_ps(p2, p3, b3);
        _mm256_castps_si256(_mm256_blendv_ps(lo, hi, b4))
    }
}

/// `x`, through an empty `asm!`: LLVM no longer sees where the value came from, so it keeps a loop
/// of scalar table reads scalar (it would otherwise vectorize them into extracts or a gather,
/// both on the vector unit this path means to spare).
#[inline(always)]
fn opaque(mut x: u32) -> u32 {
    // SAFETY: an empty instruction sequence on one register.
    unsafe {
        std::arch::asm!("/* {0:e} */", inout(reg) x, options(pure, nomem, nostack, preserves_flags))
    };
    x
}

/// The shift counts that move bit `8q + j` of a word to bit 31 in lane `j` of register `q`.
#[inline(always)]
fn to_sign_bit(q: usize) -> __m256i {
    let top = 31 - 8 * q as i32;
    // SAFETY: callers run on AVX2 hardware (module docs).
    unsafe { _mm256_setr_epi32(top, top - 1, top - 2, top - 3, top - 4, top - 5, top - 6, top - 7) }
}

/// Lane-wise `m < 0 ? if_set : if_clear`: `vblendvps` reads only the sign bit of each lane
/// of `m`.
#[inline(always)]
fn blend_sign(if_clear: __m256i, if_set: __m256i, m: __m256i) -> __m256i {
    // SAFETY: callers run on AVX2 hardware (module docs).
    unsafe {
        _mm256_castps_si256(_mm256_blendv_ps(
            _mm256_castsi256_ps(if_clear),
            _mm256_castsi256_ps(if_set),
            _mm256_castsi256_ps(m),
        ))
    }
}

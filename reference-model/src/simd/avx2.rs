//! [`Avx2`]: 32 lanes as four 256-bit registers.
//!
//! The 32-entry gather of `shfl` is written two ways, one type each: [`Avx2`] permutes in
//! registers (`vpermd` from each quarter of the table, blended by index bits 3 and 4), and
//! [`Avx2Gather`] uses the hardware gather (`vpgatherdd`). Which is faster depends on the core:
//! on AMD Zen 4 the permutes run `shfl.idx.32b` about three times as fast as `vpgatherdd`, on
//! the Intel Xeons measured before `vpgatherdd` was faster (`docs/qor.md`); `Kernel::best`
//! picks by vendor.
//!
//! Only call these from code compiled with AVX2 enabled (a `#[target_feature(enable = "avx2")]`
//! function entered after a run-time check).
use super::Lanes;
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
            macro_rules! quarter {
                ($q:expr) => {{
                    let top = 31 - 8 * $q;
                    let s = _mm256_setr_epi32(
                        top,
                        top - 1,
                        top - 2,
                        top - 3,
                        top - 4,
                        top - 5,
                        top - 6,
                        top - 7,
                    );
                    _mm256_srai_epi32::<31>(_mm256_sllv_epi32(b, s))
                }};
            }
            Self([quarter!(0), quarter!(1), quarter!(2), quarter!(3)])
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
            return Self([
                permute8(&t, i[0]),
                permute8(&t, i[1]),
                permute8(&t, i[2]),
                permute8(&t, i[3]),
            ]);
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
#[inline(always)]
fn permute8(t: &[__m256i; 4], i: __m256i) -> __m256i {
    // SAFETY: callers run on AVX2 hardware (module docs).
    unsafe {
        let b3 = _mm256_castsi256_ps(_mm256_slli_epi32::<28>(i));
        let b4 = _mm256_castsi256_ps(_mm256_slli_epi32::<27>(i));
        let p0 = _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(t[0], i));
        let p1 = _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(t[1], i));
        let p2 = _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(t[2], i));
        let p3 = _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(t[3], i));
        let lo = _mm256_blendv_ps(p0, p1, b3);
        let hi = _mm256_blendv_ps(p2, p3, b3);
        _mm256_castps_si256(_mm256_blendv_ps(lo, hi, b4))
    }
}

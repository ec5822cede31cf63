//! [`Avx512`]: 32 lanes as two 512-bit registers (lanes 0-15 and 16-31).
//!
//! Only call these from code compiled with `avx512f` and `avx512dq` enabled (a
//! `#[target_feature]` function entered after a run-time check, see [`crate::kernel::Kernel`]).
//! The 32-way gather is two `vpermi2d` (one per output register, each reading both table
//! registers), comparisons go through mask registers, and horizontal reductions first combine
//! the two registers and then halve the result in-register.
use super::Lanes;
use crate::unit::SgOutputs;
use std::arch::x86_64::*;

#[derive(Clone, Copy, Debug)]
pub struct Avx512(pub [__m512i; 2]);

macro_rules! lanewise {
    ($a:expr, $b:expr, $f:ident) => {{
        let (a, b) = ($a.0, $b.0);
        // SAFETY (all intrinsics in this module): callers run on AVX-512F/DQ hardware (module
        // docs).
        unsafe { Avx512([$f(a[0], b[0]), $f(a[1], b[1])]) }
    }};
}

/// A comparison into mask registers, widened back to all-ones / zero lanes ([`Avx512::widen`]).
macro_rules! compare {
    ($a:expr, $b:expr, $f:ident) => {{
        let (a, b) = ($a.0, $b.0);
        unsafe { Avx512::widen([$f(a[0], b[0]), $f(a[1], b[1])]) }
    }};
}

impl Avx512 {
    /// Lanes set in `p`, as the two 16-lane mask registers.
    #[inline(always)]
    pub fn kmask(p: u32) -> [__mmask16; 2] {
        [p as u16, (p >> 16) as u16]
    }

    /// Mask registers as lanes of all ones / zero: `vpmovm2d` (AVX-512DQ), which reads only the
    /// mask. (A zero-masked move of an all-ones register is compiled to `vpternlogd $0xff` with
    /// zeroing, which reads its destination register: in a variant of `fred` tried on Zen 4,
    /// LLVM gave it the register of the previous warp's result, and `fred.min.f` ran at half
    /// rate. With the current kernels both forms measure the same.)
    #[inline(always)]
    pub fn widen(k: [__mmask16; 2]) -> Self {
        unsafe { Avx512([_mm512_movm_epi32(k[0]), _mm512_movm_epi32(k[1])]) }
    }

    /// `self` in the lanes of `p`, zero elsewhere (one masked move per register).
    #[inline(always)]
    pub fn keep(self, p: u32) -> Self {
        let k = Self::kmask(p);
        unsafe {
            Avx512([
                _mm512_maskz_mov_epi32(k[0], self.0[0]),
                _mm512_maskz_mov_epi32(k[1], self.0[1]),
            ])
        }
    }
}

impl Lanes<32> for Avx512 {
    #[inline(always)]
    fn load(x: &[u32; 32]) -> Self {
        let p = x.as_ptr() as *const i32;
        // SAFETY: `x` is 32 u32 = two 512-bit unaligned loads in bounds.
        unsafe { Avx512([_mm512_loadu_epi32(p), _mm512_loadu_epi32(p.add(16))]) }
    }
    #[inline(always)]
    fn store(self, out: &mut [u32; 32]) {
        let p = out.as_mut_ptr() as *mut i32;
        // SAFETY: two 512-bit unaligned stores in bounds of `out`.
        unsafe {
            _mm512_storeu_epi32(p, self.0[0]);
            _mm512_storeu_epi32(p.add(16), self.0[1]);
        }
    }
    #[inline(always)]
    fn splat(v: u32) -> Self {
        let x = unsafe { _mm512_set1_epi32(v as i32) };
        Avx512([x; 2])
    }
    #[inline(always)]
    fn lane_ids() -> Self {
        unsafe {
            let base = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
            Avx512([base, _mm512_add_epi32(base, _mm512_set1_epi32(16))])
        }
    }
    #[inline(always)]
    fn expand(p: u32) -> Self {
        Self::widen(Self::kmask(p))
    }
    #[inline(always)]
    fn and(self, o: Self) -> Self {
        lanewise!(self, o, _mm512_and_si512)
    }
    #[inline(always)]
    fn or(self, o: Self) -> Self {
        lanewise!(self, o, _mm512_or_si512)
    }
    #[inline(always)]
    fn xor(self, o: Self) -> Self {
        lanewise!(self, o, _mm512_xor_si512)
    }
    #[inline(always)]
    fn andnot(self, o: Self) -> Self {
        lanewise!(self, o, _mm512_andnot_si512)
    }
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        lanewise!(self, o, _mm512_add_epi32)
    }
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        lanewise!(self, o, _mm512_sub_epi32)
    }
    #[inline(always)]
    fn umin(self, o: Self) -> Self {
        lanewise!(self, o, _mm512_min_epu32)
    }
    #[inline(always)]
    fn umax(self, o: Self) -> Self {
        lanewise!(self, o, _mm512_max_epu32)
    }
    #[inline(always)]
    fn shr<const S: i32>(self) -> Self {
        // a splatted count; the compiler emits the immediate form
        self.shrv(Self::splat(S as u32))
    }
    #[inline(always)]
    fn shrv(self, c: Self) -> Self {
        lanewise!(self, c, _mm512_srlv_epi32)
    }
    #[inline(always)]
    fn sign_mask(self) -> Self {
        let a = self.0;
        unsafe { Avx512([_mm512_srai_epi32::<31>(a[0]), _mm512_srai_epi32::<31>(a[1])]) }
    }
    #[inline(always)]
    fn gt(self, o: Self) -> Self {
        compare!(self, o, _mm512_cmpgt_epi32_mask)
    }
    #[inline(always)]
    fn eq(self, o: Self) -> Self {
        compare!(self, o, _mm512_cmpeq_epi32_mask)
    }
    #[inline(always)]
    fn select(m: Self, a: Self, b: Self) -> Self {
        // bitwise m ? a : b (truth table 0xCA); masks are whole lanes, so this is a lane select
        unsafe {
            Avx512([
                _mm512_ternarylogic_epi32::<0xCA>(m.0[0], a.0[0], b.0[0]),
                _mm512_ternarylogic_epi32::<0xCA>(m.0[1], a.0[1], b.0[1]),
            ])
        }
    }
    /// Two `vpermi2d`: each output register indexes the 32-entry table held in two registers
    /// (index bits [4:0]).
    #[inline(always)]
    fn gather(table: &[u32; 32], idx: Self) -> Self {
        let t = Self::load(table).0;
        unsafe {
            Avx512([
                _mm512_permutex2var_epi32(t[0], idx.0[0], t[1]),
                _mm512_permutex2var_epi32(t[0], idx.0[1], t[1]),
            ])
        }
    }
    const GROUP_ALIGN: usize = 32;
    /// The AVX2 group store ([`super::avx2::store_full_group_by_chunks`], 33 aligned 32-byte
    /// stores; the kernel is compiled with AVX2 as well).
    #[inline(always)]
    fn store_full_group(v: &[u32; 8], out: &mut [SgOutputs<32>; 8]) {
        super::avx2::store_full_group_by_chunks::<Self>(v, out)
    }
    /// With every lane participating (the common case) lane `i` reads `table[skip ? i : src]`:
    /// one masked blend of the indices, then the two `vpermi2d`, with no select or mask after
    /// them. Otherwise the generic version.
    #[inline(always)]
    fn shfl_store(table: &[u32; 32], src: Self, skip: Self, p: u32, out: &mut [u32; 32]) {
        if p != u32::MAX {
            return Self::shfl_read(table, src, skip, p).keep(p).store(out);
        }
        let from = Self::select(skip, Self::lane_ids(), src);
        Self::gather(table, from).store(out)
    }
    /// With every lane participating: `vpermi2d` reads only index bits [4:0], so `src1` as
    /// loaded indexes the table (lane `src1 mod 32`, PISA §7.4 without `.sg`). Otherwise the
    /// generic version.
    #[inline(always)]
    fn shfl_idx_store(table: &[u32; 32], src1: &[u32; 32], p: u32, out: &mut [u32; 32]) {
        if p != u32::MAX {
            return super::shfl_idx_by_shfl_store::<32, Self>(table, src1, p, out);
        }
        Self::gather(table, Self::load(src1)).store(out)
    }
    #[inline(always)]
    fn reduce_add(self) -> u32 {
        unsafe { _mm512_reduce_add_epi32(_mm512_add_epi32(self.0[0], self.0[1])) as u32 }
    }
    #[inline(always)]
    fn reduce_umin(self) -> u32 {
        unsafe { _mm512_reduce_min_epu32(_mm512_min_epu32(self.0[0], self.0[1])) }
    }
    #[inline(always)]
    fn reduce_umax(self) -> u32 {
        unsafe { _mm512_reduce_max_epu32(_mm512_max_epu32(self.0[0], self.0[1])) }
    }
    #[inline(always)]
    fn reduce_and(self) -> u32 {
        unsafe { _mm512_reduce_and_epi32(_mm512_and_si512(self.0[0], self.0[1])) as u32 }
    }
    #[inline(always)]
    fn reduce_or(self) -> u32 {
        unsafe { _mm512_reduce_or_epi32(_mm512_or_si512(self.0[0], self.0[1])) as u32 }
    }
    #[inline(always)]
    fn reduce_xor(self) -> u32 {
        unsafe {
            let v = _mm512_xor_si512(self.0[0], self.0[1]);
            let v = _mm256_xor_si256(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64::<1>(v));
            let v = _mm_xor_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
            let v = _mm_xor_si128(v, _mm_shuffle_epi32::<0b01_00_11_10>(v));
            let v = _mm_xor_si128(v, _mm_shuffle_epi32::<0b10_11_00_01>(v));
            _mm_cvtsi128_si32(v) as u32
        }
    }
}

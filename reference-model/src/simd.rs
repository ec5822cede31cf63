//! Lane vectors: the operations the kernels are written in, with two implementations — plain
//! loops over `[u32; N]` for any lane count ([`Portable`]) and AVX2 intrinsics for the 32-lane
//! PISA width ([`Avx2`], chosen at run time when the CPU has AVX2).
//!
//! Every operation is lane-wise except the `reduce_*` horizontal reductions, which combine all
//! lanes. Masks are lanes of all ones (true) or zero (false).

/// `N` lanes of `u32`.
pub trait Lanes<const N: usize>: Copy {
    fn load(x: &[u32; N]) -> Self;
    fn store(self, out: &mut [u32; N]);
    fn splat(v: u32) -> Self;
    /// Lane `i` holds `i`.
    fn lane_ids() -> Self;
    /// Lane `i` is all ones when bit `i` of `p` is set.
    fn expand(p: u32) -> Self;
    fn and(self, o: Self) -> Self;
    fn or(self, o: Self) -> Self;
    fn xor(self, o: Self) -> Self;
    /// `!self & o`
    fn andnot(self, o: Self) -> Self;
    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    fn umin(self, o: Self) -> Self;
    fn umax(self, o: Self) -> Self;
    fn shr<const S: i32>(self) -> Self;
    /// Lanes shifted right by the per-lane counts in `c` (each < 32).
    fn shrv(self, c: Self) -> Self;
    /// Each lane's bit 31 copied to all bits.
    fn sign_mask(self) -> Self;
    /// Signed `self > o` as a mask.
    fn gt(self, o: Self) -> Self;
    fn eq(self, o: Self) -> Self;
    /// `m ? a : b` per lane (`m` a mask).
    fn select(m: Self, a: Self, b: Self) -> Self;
    /// Lane `i` gets `table[idx[i]]`; every index is below `N`.
    fn gather(table: &[u32; N], idx: Self) -> Self;
    fn reduce_add(self) -> u32;
    fn reduce_umin(self) -> u32;
    fn reduce_umax(self) -> u32;
    fn reduce_and(self) -> u32;
    fn reduce_or(self) -> u32;
    fn reduce_xor(self) -> u32;
}

/// Plain loops; the compiler vectorizes what it can.
#[derive(Clone, Copy, Debug)]
pub struct Portable<const N: usize>(pub [u32; N]);

impl<const N: usize> Portable<N> {
    #[inline(always)]
    fn map(self, f: impl Fn(u32) -> u32) -> Self {
        let mut r = self.0;
        for v in r.iter_mut() {
            *v = f(*v);
        }
        Portable(r)
    }
    #[inline(always)]
    fn zip(self, o: Self, f: impl Fn(u32, u32) -> u32) -> Self {
        let mut r = self.0;
        for (x, &y) in r.iter_mut().zip(&o.0) {
            *x = f(*x, y);
        }
        Portable(r)
    }
    #[inline(always)]
    fn fold(self, init: u32, f: impl Fn(u32, u32) -> u32) -> u32 {
        self.0.iter().fold(init, |a, &b| f(a, b))
    }
}

const fn mask(b: bool) -> u32 {
    if b {
        u32::MAX
    } else {
        0
    }
}

impl<const N: usize> Lanes<N> for Portable<N> {
    #[inline(always)]
    fn load(x: &[u32; N]) -> Self {
        Portable(*x)
    }
    #[inline(always)]
    fn store(self, out: &mut [u32; N]) {
        *out = self.0;
    }
    #[inline(always)]
    fn splat(v: u32) -> Self {
        Portable([v; N])
    }
    #[inline(always)]
    fn lane_ids() -> Self {
        let mut r = [0u32; N];
        for (i, v) in r.iter_mut().enumerate() {
            *v = i as u32;
        }
        Portable(r)
    }
    #[inline(always)]
    fn expand(p: u32) -> Self {
        let mut r = [0u32; N];
        for (i, v) in r.iter_mut().enumerate() {
            *v = mask(p & (1u32 << i) != 0);
        }
        Portable(r)
    }
    #[inline(always)]
    fn and(self, o: Self) -> Self {
        self.zip(o, |a, b| a & b)
    }
    #[inline(always)]
    fn or(self, o: Self) -> Self {
        self.zip(o, |a, b| a | b)
    }
    #[inline(always)]
    fn xor(self, o: Self) -> Self {
        self.zip(o, |a, b| a ^ b)
    }
    #[inline(always)]
    fn andnot(self, o: Self) -> Self {
        self.zip(o, |a, b| !a & b)
    }
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        self.zip(o, u32::wrapping_add)
    }
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        self.zip(o, u32::wrapping_sub)
    }
    #[inline(always)]
    fn umin(self, o: Self) -> Self {
        self.zip(o, u32::min)
    }
    #[inline(always)]
    fn umax(self, o: Self) -> Self {
        self.zip(o, u32::max)
    }
    #[inline(always)]
    fn shr<const S: i32>(self) -> Self {
        self.map(|a| a >> S)
    }
    #[inline(always)]
    fn shrv(self, c: Self) -> Self {
        self.zip(c, |a, s| a >> (s & 31))
    }
    #[inline(always)]
    fn sign_mask(self) -> Self {
        self.map(|a| ((a as i32) >> 31) as u32)
    }
    #[inline(always)]
    fn gt(self, o: Self) -> Self {
        self.zip(o, |a, b| mask(a as i32 > b as i32))
    }
    #[inline(always)]
    fn eq(self, o: Self) -> Self {
        self.zip(o, |a, b| mask(a == b))
    }
    #[inline(always)]
    fn select(m: Self, a: Self, b: Self) -> Self {
        let mut r = b.0;
        for ((x, &a), &m) in r.iter_mut().zip(&a.0).zip(&m.0) {
            *x = (a & m) | (*x & !m);
        }
        Portable(r)
    }
    #[inline(always)]
    fn gather(table: &[u32; N], idx: Self) -> Self {
        idx.map(|i| table[i as usize % N])
    }
    #[inline(always)]
    fn reduce_add(self) -> u32 {
        self.fold(0, u32::wrapping_add)
    }
    #[inline(always)]
    fn reduce_umin(self) -> u32 {
        self.fold(u32::MAX, u32::min)
    }
    #[inline(always)]
    fn reduce_umax(self) -> u32 {
        self.fold(0, u32::max)
    }
    #[inline(always)]
    fn reduce_and(self) -> u32 {
        self.fold(u32::MAX, |a, b| a & b)
    }
    #[inline(always)]
    fn reduce_or(self) -> u32 {
        self.fold(0, |a, b| a | b)
    }
    #[inline(always)]
    fn reduce_xor(self) -> u32 {
        self.fold(0, |a, b| a ^ b)
    }
}

#[cfg(target_arch = "x86_64")]
pub use avx2::Avx2;

#[cfg(target_arch = "x86_64")]
mod avx2 {
    //! 32 lanes as four 256-bit registers. Only call these from code compiled with AVX2 enabled
    //! (a `#[target_feature(enable = "avx2")]` function entered after a run-time check).
    use super::Lanes;
    use std::arch::x86_64::*;

    #[derive(Clone, Copy, Debug)]
    pub struct Avx2(pub [__m256i; 4]);

    macro_rules! lanewise {
        ($a:expr, $b:expr, $f:ident) => {{
            let (a, b) = ($a.0, $b.0);
            // SAFETY (all intrinsics in this module): callers run on AVX2 hardware (module docs).
            unsafe { Avx2([$f(a[0], b[0]), $f(a[1], b[1]), $f(a[2], b[2]), $f(a[3], b[3])]) }
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

    impl Lanes<32> for Avx2 {
        #[inline(always)]
        fn load(x: &[u32; 32]) -> Self {
            let p = x.as_ptr() as *const __m256i;
            // SAFETY: `x` is 32 u32 = four 256-bit unaligned loads in bounds.
            unsafe {
                Avx2([
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
            Avx2([x; 4])
        }
        #[inline(always)]
        fn lane_ids() -> Self {
            unsafe {
                let base = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
                Avx2([
                    base,
                    _mm256_add_epi32(base, _mm256_set1_epi32(8)),
                    _mm256_add_epi32(base, _mm256_set1_epi32(16)),
                    _mm256_add_epi32(base, _mm256_set1_epi32(24)),
                ])
            }
        }
        #[inline(always)]
        fn expand(p: u32) -> Self {
            unsafe {
                let bits = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
                macro_rules! byte {
                    ($k:expr) => {{
                        let b = _mm256_set1_epi32((p >> (8 * $k)) as i32 & 0xFF);
                        _mm256_cmpeq_epi32(_mm256_and_si256(b, bits), bits)
                    }};
                }
                Avx2([byte!(0), byte!(1), byte!(2), byte!(3)])
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
                Avx2([
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
                Avx2([
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
                Avx2([
                    _mm256_blendv_epi8(b.0[0], a.0[0], m.0[0]),
                    _mm256_blendv_epi8(b.0[1], a.0[1], m.0[1]),
                    _mm256_blendv_epi8(b.0[2], a.0[2], m.0[2]),
                    _mm256_blendv_epi8(b.0[3], a.0[3], m.0[3]),
                ])
            }
        }
        /// Four in-register permutes per output register, merged on index bits 3 and 4 —
        /// cheaper than hardware gathers.
        #[inline(always)]
        fn gather(table: &[u32; 32], idx: Self) -> Self {
            let t = Self::load(table).0;
            unsafe {
                macro_rules! blend {
                    ($a:expr, $b:expr, $m:expr) => {
                        _mm256_castps_si256(_mm256_blendv_ps(
                            _mm256_castsi256_ps($a),
                            _mm256_castsi256_ps($b),
                            _mm256_castsi256_ps($m),
                        ))
                    };
                }
                macro_rules! g {
                    ($i:expr) => {{
                        let i = $i;
                        let b3 = _mm256_slli_epi32::<28>(i); // index bit 3 -> sign
                        let b4 = _mm256_slli_epi32::<27>(i); // index bit 4 -> sign
                        let lo = blend!(
                            _mm256_permutevar8x32_epi32(t[0], i),
                            _mm256_permutevar8x32_epi32(t[1], i),
                            b3
                        );
                        let hi = blend!(
                            _mm256_permutevar8x32_epi32(t[2], i),
                            _mm256_permutevar8x32_epi32(t[3], i),
                            b3
                        );
                        blend!(lo, hi, b4)
                    }};
                }
                Avx2([g!(idx.0[0]), g!(idx.0[1]), g!(idx.0[2]), g!(idx.0[3])])
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
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;

    /// Every AVX2 operation against the portable one, on varied data.
    #[test]
    fn avx2_matches_portable() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            return;
        }
        #[target_feature(enable = "avx2")]
        unsafe fn check(a: [u32; 32], b: [u32; 32], p: u32) {
            type P = Portable<32>;
            let (pa, pb) = (P::load(&a), P::load(&b));
            let (xa, xb) = (Avx2::load(&a), Avx2::load(&b));
            let out = |x: Avx2| {
                let mut o = [0; 32];
                x.store(&mut o);
                o
            };
            let idx: [u32; 32] = std::array::from_fn(|i| b[i] % 32);
            let cnt: [u32; 32] = std::array::from_fn(|i| b[i] % 32);
            let pairs: Vec<([u32; 32], [u32; 32])> = vec![
                (out(xa.and(xb)), pa.and(pb).0),
                (out(xa.or(xb)), pa.or(pb).0),
                (out(xa.xor(xb)), pa.xor(pb).0),
                (out(xa.andnot(xb)), pa.andnot(pb).0),
                (out(xa.add(xb)), pa.add(pb).0),
                (out(xa.sub(xb)), pa.sub(pb).0),
                (out(xa.umin(xb)), pa.umin(pb).0),
                (out(xa.umax(xb)), pa.umax(pb).0),
                (out(xa.shr::<7>()), pa.shr::<7>().0),
                (out(xa.shrv(Avx2::load(&cnt))), pa.shrv(P::load(&cnt)).0),
                (out(xa.sign_mask()), pa.sign_mask().0),
                (out(xa.gt(xb)), pa.gt(pb).0),
                (out(xa.eq(xb)), pa.eq(pb).0),
                (out(Avx2::expand(p)), P::expand(p).0),
                (out(Avx2::lane_ids()), P::lane_ids().0),
                (out(Avx2::select(Avx2::expand(p), xa, xb)), P::select(P::expand(p), pa, pb).0),
                (out(Avx2::gather(&a, Avx2::load(&idx))), P::gather(&a, P::load(&idx)).0),
            ];
            for (k, (x, y)) in pairs.iter().enumerate() {
                assert_eq!(x, y, "op #{k}");
            }
            assert_eq!(xa.reduce_add(), pa.reduce_add());
            assert_eq!(xa.reduce_umin(), pa.reduce_umin());
            assert_eq!(xa.reduce_umax(), pa.reduce_umax());
            assert_eq!(xa.reduce_and(), pa.reduce_and());
            assert_eq!(xa.reduce_or(), pa.reduce_or());
            assert_eq!(xa.reduce_xor(), pa.reduce_xor());
        }
        let mut rng = crate::gen::Rng::new(3);
        for _ in 0..2000 {
            let a: [u32; 32] = std::array::from_fn(|_| {
                if rng.chance(30) {
                    rng.pick(&[0, 1, u32::MAX, 0x8000_0000])
                } else {
                    rng.u32()
                }
            });
            let b: [u32; 32] =
                std::array::from_fn(|i| if rng.chance(20) { a[i] } else { rng.u32() });
            unsafe { check(a, b, rng.u32()) };
        }
    }
}

//! Lane vectors: the operations the kernels are written in, with three implementations — plain
//! loops over `[u32; N]` for any lane count ([`Portable`]), and for the 32-lane PISA width AVX2
//! intrinsics ([`Avx2`], four 256-bit registers) and AVX-512 intrinsics ([`Avx512`], two 512-bit
//! registers). [`crate::kernel::Kernel`] picks one at run time from what the CPU has.
//!
//! Every operation is lane-wise except the `reduce_*` horizontal reductions, which combine all
//! lanes. Masks are lanes of all ones (true) or zero (false).

use crate::unit::SgOutputs;

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
    /// The read of `shfl` (PISA §7.4): lane `i` gets `table[src[i]]` when `skip[i]` is false and
    /// bit `src[i]` of `p` is set, else `table[i]`. Every `src` lane is below `N`; `skip` is a
    /// mask. Written once here from the operations above; a lane type may fuse it.
    #[inline(always)]
    fn shfl_read(table: &[u32; N], src: Self, skip: Self, p: u32) -> Self {
        let one = Self::splat(1);
        let src_participates = Self::splat(p).shrv(src).and(one).eq(one);
        let read = skip.andnot(src_participates);
        Self::select(read, Self::gather(table, src), Self::load(table))
    }
    /// [`Lanes::shfl_read`] kept to the lanes of `p` (zero in the others) and stored in `out`.
    #[inline(always)]
    fn shfl_store(table: &[u32; N], src: Self, skip: Self, p: u32, out: &mut [u32; N]) {
        Self::shfl_read(table, src, skip, p).keep(p).store(out)
    }
    /// `shfl.idx` without `.sg` (PISA §7.4): lane `i` reads lane `src1[i] mod N` (never out of
    /// bounds: the clamp is `N - 1`), kept to the lanes of `p`, stored in `out`. Written once
    /// here from [`Lanes::shfl_store`]; a lane type may read `src1` its own way.
    #[inline(always)]
    fn shfl_idx_store(table: &[u32; N], src1: &[u32; N], p: u32, out: &mut [u32; N]) {
        shfl_idx_by_shfl_store::<N, Self>(table, src1, p, out)
    }
    /// `self` in the lanes set in `p`, zero in the others.
    #[inline(always)]
    fn keep(self, p: u32) -> Self {
        self.and(Self::expand(p))
    }
    /// Stores `v` in the lanes set in `wen` and zero in the others of `out.dst` (`m` is
    /// `expand(wen)`), and `wen` in `out.wen`. The batch path's store: a lane type may write in
    /// a way that a load right after it waits on.
    #[inline(always)]
    fn store_uniform_outputs(v: u32, wen: u32, m: Self, out: &mut SgOutputs<N>) {
        Self::splat(v).and(m).store(&mut out.dst);
        out.wen = wen;
    }
    /// The alignment in bytes at which [`Lanes::store_full_group`] writes eight warps as one
    /// stream; 0 when the lane type has no such store (the batch path then stores warp by
    /// warp). A divisor of 128, so that one of any eight consecutive `SgOutputs` (132 bytes,
    /// 4-byte aligned) starts on it.
    const GROUP_ALIGN: usize = 0;
    /// The outputs of eight consecutive warps whose every lane is written (a reduction's
    /// typical case): `out[k].dst` all `v[k]`, `out[k].wen` every lane. Written once here warp
    /// by warp; a lane type with [`Lanes::GROUP_ALIGN`] writes the 8 × 132 bytes as aligned
    /// stores (33 of 32 bytes rather than 40) when `out` starts on that alignment.
    #[inline(always)]
    fn store_full_group(v: &[u32; 8], out: &mut [SgOutputs<N>; 8]) {
        for k in 0..8 {
            out[k].dst = [v[k]; N];
            out[k].wen = crate::op::lane_mask::<N>();
        }
    }
    fn reduce_add(self) -> u32;
    fn reduce_umin(self) -> u32;
    fn reduce_umax(self) -> u32;
    fn reduce_and(self) -> u32;
    fn reduce_or(self) -> u32;
    fn reduce_xor(self) -> u32;
}

/// [`Lanes::shfl_idx_store`] written with [`Lanes::shfl_store`]: source lane `src1 mod N`, none
/// out of bounds. The trait's default, and what a lane type that reads `src1` its own way falls
/// back to.
#[inline(always)]
pub(crate) fn shfl_idx_by_shfl_store<const N: usize, V: Lanes<N>>(
    table: &[u32; N],
    src1: &[u32; N],
    p: u32,
    out: &mut [u32; N],
) {
    let src = V::load(src1).and(V::splat(N as u32 - 1));
    V::shfl_store(table, src, V::splat(0), p, out)
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
pub use avx2::{Avx2, Avx2Gather};
#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
#[cfg(target_arch = "x86_64")]
pub use avx512::Avx512;

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;
    use crate::kernel::Kernel;

    /// Every operation of `V` against the portable one, on one set of operands.
    #[inline(always)]
    fn check<V: Lanes<32>>(a: [u32; 32], b: [u32; 32], p: u32) {
        type P = Portable<32>;
        let (pa, pb) = (P::load(&a), P::load(&b));
        let (xa, xb) = (V::load(&a), V::load(&b));
        let out = |x: V| {
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
            (out(xa.shr::<16>()), pa.shr::<16>().0),
            (out(xa.shrv(V::load(&cnt))), pa.shrv(P::load(&cnt)).0),
            (out(xa.sign_mask()), pa.sign_mask().0),
            (out(xa.gt(xb)), pa.gt(pb).0),
            (out(xa.eq(xb)), pa.eq(pb).0),
            (out(V::expand(p)), P::expand(p).0),
            (out(V::lane_ids()), P::lane_ids().0),
            (out(V::select(V::expand(p), xa, xb)), P::select(P::expand(p), pa, pb).0),
            (out(V::gather(&a, V::load(&idx))), P::gather(&a, P::load(&idx)).0),
            (out(xa.keep(p)), pa.keep(p).0),
            (
                {
                    let mut o = [7; 32];
                    V::shfl_store(&a, V::load(&idx), V::expand(b[0]), p, &mut o);
                    o
                },
                P::shfl_read(&a, P::load(&idx), P::expand(b[0]), p).keep(p).0,
            ),
            (
                {
                    let mut o = [7; 32];
                    V::shfl_store(&a, V::load(&idx), V::expand(b[0]), u32::MAX, &mut o);
                    o
                },
                P::shfl_read(&a, P::load(&idx), P::expand(b[0]), u32::MAX).0,
            ),
            (
                {
                    let mut o =
                        [SgOutputs { dst: [7; 32], wen: 7 }, SgOutputs { dst: [7; 32], wen: 7 }];
                    V::store_uniform_outputs(a[3], p, V::expand(p), &mut o[0]);
                    assert_eq!(o[0].wen, p);
                    assert_eq!(o[1], SgOutputs { dst: [7; 32], wen: 7 }, "a store past the end");
                    o[0].dst
                },
                P::splat(a[3]).keep(p).0,
            ),
            (
                {
                    let mut o = [7; 32];
                    V::shfl_idx_store(&a, &b, p, &mut o);
                    o
                },
                P::shfl_read(&a, P::load(&idx), P::splat(0), p).keep(p).0,
            ),
            (
                {
                    let mut o = [7; 32];
                    V::shfl_idx_store(&a, &b, u32::MAX, &mut o);
                    o
                },
                P::shfl_read(&a, P::load(&idx), P::splat(0), u32::MAX).0,
            ),
            (
                out(V::shfl_read(&a, V::load(&idx), V::expand(b[0]), p)),
                P::shfl_read(&a, P::load(&idx), P::expand(b[0]), p).0,
            ),
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

    #[target_feature(enable = "avx2")]
    unsafe fn check_avx2(a: [u32; 32], b: [u32; 32], p: u32) {
        check::<Avx2>(a, b, p);
        check::<Avx2Gather>(a, b, p)
    }

    #[target_feature(enable = "avx512f,avx512dq,avx2")]
    unsafe fn check_avx512(a: [u32; 32], b: [u32; 32], p: u32) {
        check::<Avx512>(a, b, p)
    }

    /// Varied data: edge values, equal lanes, random bits.
    fn operands(mut f: impl FnMut([u32; 32], [u32; 32], u32)) {
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
            f(a, b, rng.u32());
        }
    }

    /// Whether this CPU runs `kernel`, its features as [`Kernel`] defines them (the one list);
    /// if not, the test is reported as skipped with the missing features.
    fn runs_here(kernel: Kernel) -> bool {
        match kernel.check() {
            Ok(_) => true,
            Err(e) => {
                eprintln!("SKIPPED: {e}");
                false
            }
        }
    }

    /// `store_uniform_outputs` with every lane written, at each 4-byte offset from a 64-byte
    /// line: the warp's 132 bytes hold the value and `wen`, its neighbours are untouched.
    #[inline(always)]
    fn uniform_outputs_stay_in_their_warp<V: Lanes<32>>() {
        let blank = SgOutputs { dst: [7; 32], wen: 7 };
        for i in 1..18 {
            let mut o = vec![blank.clone(); 19];
            V::store_uniform_outputs(
                0xDEAD_0000 + i as u32,
                u32::MAX,
                V::expand(u32::MAX),
                &mut o[i],
            );
            for (k, w) in o.iter().enumerate() {
                let want = if k == i {
                    SgOutputs { dst: [0xDEAD_0000 + i as u32; 32], wen: u32::MAX }
                } else {
                    blank.clone()
                };
                assert_eq!(w, &want, "warp {k} after writing warp {i}");
            }
        }
    }

    #[target_feature(enable = "avx2")]
    unsafe fn uniform_outputs_avx2() {
        uniform_outputs_stay_in_their_warp::<Avx2>();
        uniform_outputs_stay_in_their_warp::<Avx2Gather>();
    }

    #[test]
    fn avx2_uniform_outputs_stay_in_their_warp() {
        uniform_outputs_stay_in_their_warp::<Portable<32>>();
        if !runs_here(Kernel::Avx2) {
            return;
        }
        // SAFETY: the AVX2 kernel's features (AVX2 among them) checked above.
        unsafe { uniform_outputs_avx2() }
    }

    /// `store_full_group` at each 4-byte offset from a 64-byte line (so both its aligned
    /// stream and its fallback run): the eight warps equal the portable lanes' (the trait's
    /// warp-by-warp default), the warps around them are untouched.
    #[inline(always)]
    fn full_group_stays_in_its_warps<V: Lanes<32>>() {
        let blank = SgOutputs { dst: [7; 32], wen: 7 };
        for i in 1..18 {
            let v: [u32; 8] = std::array::from_fn(|k| 0xBEE0_0000 + (i * 8 + k) as u32);
            let mut got = vec![blank.clone(); 26];
            let mut want = got.clone();
            let g: &mut [SgOutputs<32>; 8] = (&mut got[i..i + 8]).try_into().expect("8 warps");
            V::store_full_group(&v, g);
            let g: &mut [SgOutputs<32>; 8] = (&mut want[i..i + 8]).try_into().expect("8 warps");
            Portable::<32>::store_full_group(&v, g);
            assert_eq!(want[i + 7], SgOutputs { dst: [v[7]; 32], wen: u32::MAX });
            assert_eq!(got, want, "eight warps from warp {i}");
        }
    }

    #[target_feature(enable = "avx2")]
    unsafe fn full_group_avx2() {
        full_group_stays_in_its_warps::<Avx2>();
        full_group_stays_in_its_warps::<Avx2Gather>();
    }

    #[test]
    fn avx2_full_group_stays_in_its_warps() {
        full_group_stays_in_its_warps::<Portable<32>>();
        if !runs_here(Kernel::Avx2) {
            return;
        }
        // SAFETY: the AVX2 kernel's features (AVX2 among them) checked above.
        unsafe { full_group_avx2() }
    }

    #[target_feature(enable = "avx512f,avx512dq,avx2")]
    unsafe fn stores_avx512() {
        uniform_outputs_stay_in_their_warp::<Avx512>();
        full_group_stays_in_its_warps::<Avx512>();
    }

    #[test]
    fn avx512_stores_stay_in_their_warps() {
        if !runs_here(Kernel::Avx512) {
            return;
        }
        // SAFETY: the AVX-512 kernel's features (AVX-512F, DQ, AVX2 among them) checked above.
        unsafe { stores_avx512() }
    }

    #[test]
    fn avx2_matches_portable() {
        if !runs_here(Kernel::Avx2) {
            return;
        }
        // SAFETY: the AVX2 kernel's features (AVX2 among them) checked above.
        operands(|a, b, p| unsafe { check_avx2(a, b, p) });
    }

    #[test]
    fn avx512_matches_portable() {
        if !runs_here(Kernel::Avx512) {
            return;
        }
        // SAFETY: the AVX-512 kernel's features (AVX-512F, DQ, AVX2 among them) checked above.
        operands(|a, b, p| unsafe { check_avx512(a, b, p) });
    }
}

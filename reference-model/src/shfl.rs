//! `shfl` — data movement across the lanes of a sub-group (PISA §7.4).
//!
//! For every participating lane (`src2 & %activemask`), with `laneOffset = src1[4:0]`,
//! `cval = src1[12:8]`, `segmask = src1[20:16]` under `.sg` (else `cval = .up ? 0 : 31`,
//! `segmask = 0`):
//!
//! ```text
//! clampLane = (laneid & segmask) | (cval & ~segmask)      minLane = laneid & segmask
//! srcLane   = up: laneid - laneOffset   dn: laneid + laneOffset
//!             xor: laneid ^ laneOffset  idx: minLane | (laneOffset & ~segmask)
//! inBounds  = up ? srcLane >= clampLane : srcLane <= clampLane
//! dst       = (inBounds && participating[srcLane]) ? src0[srcLane] : src0[laneid]
//! ```
//!
//! `srcLane` is a signed integer (`.up` can go below 0, `.dn` above 31). The kernel computes all
//! lanes at once without branches: the `.up` bound test is rewritten without a signed
//! subtraction (`laneid - off >= clamp` ⇔ `laneid >= clamp + off`), and the read is a 32-way
//! in-register gather.

use crate::op::lane_mask;
use crate::op::{ShflMode, LANES};
use crate::simd::{Lanes, Portable};

/// The `src1` operand: an immediate (same for all lanes) or a register (per lane).
#[derive(Clone, Copy, Debug)]
pub enum Src1<'a, const N: usize = LANES> {
    Uniform(u32),
    PerLane(&'a [u32; N]),
}

/// Where one lane's shuffle result came from (for diagrams and explanations).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShflSource {
    /// Read `src0` of this lane.
    Lane(u32),
    /// Out of bounds or source lane not participating: kept its own `src0`.
    Own,
    /// Not participating: `dst` not written.
    NotWritten,
}

/// The shuffle of all lanes: `(dst, read)` where `read` is the mask of lanes that took a value
/// from `srcLane` (the others kept their own `src0`). `dst` is not yet masked by participation.
#[inline(always)]
pub(crate) fn kernel<const N: usize, V: Lanes<N>>(
    mode: ShflMode,
    sg: bool,
    src0: &[u32; N],
    src1: V,
    p: u32,
) -> (V, V) {
    let fm = V::splat(N as u32 - 1);
    let lane = V::lane_ids();
    let off = src1.and(fm);
    let (cval, seg) = if sg {
        (src1.shr::<8>().and(fm), src1.shr::<16>().and(fm))
    } else {
        (V::splat(if mode == ShflMode::Up { 0 } else { N as u32 - 1 }), V::splat(0))
    };
    let clamp = lane.and(seg).or(seg.andnot(cval));
    let (src, out_of_bounds) = match mode {
        ShflMode::Up => (lane.sub(off), clamp.add(off).gt(lane)),
        ShflMode::Dn => {
            let s = lane.add(off);
            (s, s.gt(clamp))
        }
        ShflMode::Xor => {
            let s = lane.xor(off);
            (s, s.gt(clamp))
        }
        ShflMode::Idx => {
            let s = lane.and(seg).or(seg.andnot(off));
            (s, s.gt(clamp))
        }
    };
    // In bounds implies 0 <= srcLane <= clamp <= N-1, so masking the index changes nothing there.
    let src = src.and(fm);
    let one = V::splat(1);
    let src_participates = V::splat(p).shrv(src).and(one).eq(one);
    let read = out_of_bounds.andnot(src_participates);
    (V::select(read, V::gather(src0, src), V::load(src0)), read)
}

/// `shfl.mode[.sg].32b` on all lanes with lane vectors `V`, participating lanes `p`; writes
/// `dst` (zero in the lanes outside `p`) and returns the write enables.
#[inline(always)]
pub(crate) fn shfl<const N: usize, V: Lanes<N>>(
    mode: ShflMode,
    sg: bool,
    src0: &[u32; N],
    src1: V,
    p: u32,
    dst: &mut [u32; N],
) -> u32 {
    let (v, _) = kernel::<N, V>(mode, sg, src0, src1, p);
    v.and(V::expand(p)).store(dst);
    p
}

/// Where each lane's result of a shuffle comes from (same rules as the instruction).
pub fn sources<const N: usize>(
    mode: ShflMode,
    sg: bool,
    src1: Src1<'_, N>,
    mask: u32,
    activemask: u32,
) -> [ShflSource; N] {
    let p = mask & activemask & lane_mask::<N>();
    let ids: [u32; N] = std::array::from_fn(|i| i as u32);
    let s1 = match src1 {
        Src1::Uniform(v) => Portable::<N>::splat(v),
        Src1::PerLane(r) => Portable::<N>::load(r),
    };
    let (from, read) = kernel::<N, Portable<N>>(mode, sg, &ids, s1, p);
    std::array::from_fn(|lane| {
        if p >> lane & 1 == 0 {
            ShflSource::NotWritten
        } else if read.0[lane] != 0 {
            ShflSource::Lane(from.0[lane])
        } else {
            ShflSource::Own
        }
    })
}

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

/// `(srcLane, outOfBounds)` of every lane: `srcLane` reduced below `N` (unchanged where it is in
/// bounds), `outOfBounds` a mask.
#[inline(always)]
fn source_lanes<const N: usize, V: Lanes<N>>(mode: ShflMode, sg: bool, src1: V) -> (V, V) {
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
    (src.and(fm), out_of_bounds)
}

/// `shfl.mode[.sg].32b` on all lanes with lane vectors `V`, participating lanes `p`; writes
/// `dst` (zero in the lanes outside `p`) and returns the write enables.
///
/// `shfl.idx` without `.sg` has `segmask = 0` and `cval = N - 1`, so `srcLane = laneOffset` and
/// every lane is in bounds: the read is [`Lanes::shfl_idx_store`] on `src1` as it is in memory.
#[inline(always)]
pub(crate) fn shfl<const N: usize, V: Lanes<N>>(
    mode: ShflMode,
    sg: bool,
    src0: &[u32; N],
    src1: &[u32; N],
    p: u32,
    dst: &mut [u32; N],
) -> u32 {
    if mode == ShflMode::Idx && !sg {
        V::shfl_idx_store(src0, src1, p, dst);
        return p;
    }
    let (src, out_of_bounds) = source_lanes::<N, V>(mode, sg, V::load(src1));
    V::shfl_store(src0, src, out_of_bounds, p, dst);
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
    let s1 = match src1 {
        Src1::Uniform(v) => Portable::<N>::splat(v),
        Src1::PerLane(r) => Portable::<N>::load(r),
    };
    let (src, out_of_bounds) = source_lanes::<N, Portable<N>>(mode, sg, s1);
    std::array::from_fn(|lane| {
        let from = src.0[lane];
        if p >> lane & 1 == 0 {
            ShflSource::NotWritten
        } else if out_of_bounds.0[lane] == 0 && p >> from & 1 != 0 {
            ShflSource::Lane(from)
        } else {
            ShflSource::Own
        }
    })
}

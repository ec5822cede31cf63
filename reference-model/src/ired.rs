//! `ired` — integer reduction across participating lanes (PISA §7.2).
//!
//! `sum` wraps modulo 2^w; `smin`/`smax` order two's-complement values (by flipping the sign bit
//! and ordering unsigned, the comparator shared with `fred`); `absmax` is `umax(iabs(x))`, where
//! `iabs` of the most negative value is that value read as unsigned (0x8000 / 0x80000000), the
//! largest magnitude, as §7.2 "Important" requires. `.16b` reads bits [15:0] of each lane and the
//! result is zero-extended.

use crate::op::{IntType, IredOp};
use crate::simd::Lanes;

/// The reduction (zero-extended) of `op` over the lanes of `m`, an expanded participation mask
/// with at least one lane.
#[inline(always)]
pub(crate) fn reduce<const N: usize, V: Lanes<N>>(
    op: IredOp,
    ty: IntType,
    src0: &[u32; N],
    m: V,
) -> u32 {
    let wm = ty.mask();
    let sign = 1u32 << (ty.bits() - 1);
    let x = V::load(src0);
    let v = x.and(V::splat(wm));
    // Every reduction keeps lanes outside `m` at zero, the identity of max, or and xor; min and
    // and are taken as complements of max and or (`min(x) = !max(!x)`), so no lane is ever filled
    // with all ones (which AVX-512 code generation turns into a merge-masked, loop-carried
    // register dependency).
    let r = match op {
        IredOp::Sum => x.and(m).reduce_add(),
        IredOp::Smin => v.xor(V::splat(sign ^ wm)).and(m).reduce_umax() ^ wm ^ sign,
        IredOp::Smax => v.xor(V::splat(sign)).and(m).reduce_umax() ^ sign,
        IredOp::Umin => v.xor(V::splat(wm)).and(m).reduce_umax() ^ wm,
        IredOp::Umax => v.and(m).reduce_umax(),
        IredOp::And => !x.xor(V::splat(u32::MAX)).and(m).reduce_or(),
        IredOp::Or => x.and(m).reduce_or(),
        IredOp::Xor => x.and(m).reduce_xor(),
        IredOp::Absmax => {
            let negative = v.and(V::splat(sign)).eq(V::splat(sign));
            let magnitude = V::select(negative, V::splat(0).sub(v).and(V::splat(wm)), v);
            magnitude.and(m).reduce_umax()
        }
    };
    r & wm
}

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
/// with at least one lane, or over every lane when `m` is `None`.
#[inline(always)]
pub(crate) fn reduce<const N: usize, V: Lanes<N>>(
    op: IredOp,
    ty: IntType,
    src0: &[u32; N],
    m: Option<V>,
) -> u32 {
    let wm = ty.mask();
    let sign = 1u32 << (ty.bits() - 1);
    let x = V::load(src0);
    let v = x.and(V::splat(wm));
    // a macro, not a closure: a closure is compiled without the caller's target features, and
    // its lane operations then stay calls (ired.absmax ran at 10 M/s)
    macro_rules! magnitude {
        () => {{
            let negative = v.and(V::splat(sign)).eq(V::splat(sign));
            V::select(negative, V::splat(0).sub(v).and(V::splat(wm)), v)
        }};
    }
    let r = match m {
        // Every reduction keeps lanes outside `m` at zero, the identity of max, or and xor; min
        // and and are taken as complements of max and or (`min(x) = !max(!x)`), so no lane is
        // ever filled with all ones (which AVX-512 code generation turns into a merge-masked,
        // loop-carried register dependency).
        Some(m) => match op {
            IredOp::Sum => x.and(m).reduce_add(),
            IredOp::Smin => v.xor(V::splat(sign ^ wm)).and(m).reduce_umax() ^ wm ^ sign,
            IredOp::Smax => v.xor(V::splat(sign)).and(m).reduce_umax() ^ sign,
            IredOp::Umin => v.xor(V::splat(wm)).and(m).reduce_umax() ^ wm,
            IredOp::Umax => v.and(m).reduce_umax(),
            IredOp::And => !x.xor(V::splat(u32::MAX)).and(m).reduce_or(),
            IredOp::Or => x.and(m).reduce_or(),
            IredOp::Xor => x.and(m).reduce_xor(),
            IredOp::Absmax => magnitude!().and(m).reduce_umax(),
        },
        // Every lane: the reductions themselves, with no mask and no complement (whose all-ones
        // operand AVX-512 code generation materialises with a false dependency on the last
        // result: `ired.and` ran at half the speed of `ired.or`).
        None => match op {
            IredOp::Sum => x.reduce_add(),
            IredOp::Smin => v.xor(V::splat(sign)).reduce_umin() ^ sign,
            IredOp::Smax => v.xor(V::splat(sign)).reduce_umax() ^ sign,
            IredOp::Umin => v.reduce_umin(),
            IredOp::Umax => v.reduce_umax(),
            IredOp::And => x.reduce_and(),
            IredOp::Or => x.reduce_or(),
            IredOp::Xor => x.reduce_xor(),
            IredOp::Absmax => magnitude!().reduce_umax(),
        },
    };
    r & wm
}

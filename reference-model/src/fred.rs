//! `fred` — floating-point min / max / absmax reduction across participating lanes (PISA §7.1).
//!
//! Pinned semantics (`docs/spec-notes.md`): IEEE order with -0.0 < +0.0; subnormals compared
//! exactly; signalling and quiet NaNs are both NaN. Default: NaNs are ignored unless every
//! participating input is NaN; `.nanp`: any NaN input gives NaN. A NaN result is the canonical
//! quiet NaN (`0x7FFFFFFF` for `.f`, `0x7FFF` for `.hf`/`.bf`). `absmax` is `fmax(fabs(x))`, so
//! its result has the sign cleared. Packed types reduce each 16-bit half independently.
//!
//! Every lane's value is turned into an order key ([`FloatFormat::order_key`]) and the keys are
//! reduced with integer min/max — the same comparator the RTL shares with `ired`.

use crate::float::{FloatFormat, BF16, F16, F32};
use crate::op::{FloatType, FredOp};
use crate::simd::Lanes;

/// Reduces one element column `x` (one float per lane, already moved to the low bits and
/// masked to the format's width) over the lanes of `m`, an expanded mask with at least one lane.
#[inline(always)]
fn column<const N: usize, V: Lanes<N>>(
    fmt: FloatFormat,
    op: FredOp,
    nanp: bool,
    x: V,
    m: V,
) -> u32 {
    let sign = V::splat(fmt.sign);
    let v = if op == FredOp::Absmax { x.and(V::splat(fmt.magnitude)) } else { x };
    // magnitude <= 0x7FFFFFFF, so the signed compare is an unsigned one here
    let is_nan = v.and(V::splat(fmt.magnitude)).gt(V::splat(fmt.infinity));
    let num = is_nan.andnot(m);
    // order key: negative -> all bits inverted, positive -> sign bit set
    let negative = v.and(sign).eq(sign);
    let key = v.xor(negative.and(V::splat(fmt.width_mask())).or(sign));
    let acc = match op {
        // min as the complement of max over inverted keys: lanes outside `num` stay zero
        FredOp::Min => !key.xor(V::splat(u32::MAX)).and(num).reduce_umax(),
        FredOp::Max | FredOp::Absmax => key.and(num).reduce_umax(),
    };
    let any_num = num.reduce_or() != 0;
    let any_nan = nanp && is_nan.and(m).reduce_or() != 0;
    if !any_num || any_nan {
        fmt.canonical_nan
    } else {
        fmt.from_order_key(acc)
    }
}

/// The reduction of `fred.op[.nanp].ty` over the lanes of `m` (at least one lane).
#[inline(always)]
pub(crate) fn reduce<const N: usize, V: Lanes<N>>(
    op: FredOp,
    nanp: bool,
    ty: FloatType,
    src0: &[u32; N],
    m: V,
) -> u32 {
    let x = V::load(src0);
    let lo = x.and(V::splat(0xFFFF));
    match ty {
        FloatType::F => column(F32, op, nanp, x, m),
        FloatType::Hf => column(F16, op, nanp, lo, m),
        FloatType::Bf => column(BF16, op, nanp, lo, m),
        FloatType::Hfx2 => {
            column(F16, op, nanp, lo, m) | column(F16, op, nanp, x.shr::<16>(), m) << 16
        }
        FloatType::Bfx2 => {
            column(BF16, op, nanp, lo, m) | column(BF16, op, nanp, x.shr::<16>(), m) << 16
        }
    }
}

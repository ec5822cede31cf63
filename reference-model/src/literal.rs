//! A straightforward per-lane port of the PISA §7 pseudocode — the benchmark baseline and an
//! independent oracle for the optimized model.
//!
//! Each lane runs the pseudocode as written: an early `return` for non-participating lanes, a
//! signed `srcLane`, the `while` loop of `redfirstidx`, and float comparisons on host floats
//! (`f64`, which holds every binary32/binary16/bfloat16 value exactly) instead of order keys.
//! It shares no code with the optimized kernels except the operand types.

use crate::op::{FloatType, FredOp, IntType, IredOp, SgOp, ShflMode};
use crate::unit::{SgInputs, SgOutputs};

/// Executes one instruction form lane by lane, exactly as the pseudocode reads. `reduce()` is
/// the same for every lane, so it is computed once before the lane loop.
pub fn execute<const N: usize>(op: SgOp, inp: &SgInputs<N>) -> SgOutputs<N> {
    let activemask = if N == 32 { inp.activemask } else { inp.activemask & ((1 << N) - 1) };
    let mut out = SgOutputs { dst: [0u32; N], wen: 0 };
    match op {
        SgOp::Shfl { mode, sg } => {
            for laneid in 0..N {
                if let Some(v) = shfl(mode, sg, inp, activemask, laneid) {
                    out.dst[laneid] = v;
                    out.wen |= 1 << laneid;
                }
            }
        }
        SgOp::Fred { .. } | SgOp::Ired { .. } => {
            let all_participating_lanes = inp.mask & activemask;
            if all_participating_lanes == 0 {
                return out;
            }
            let dst = match op {
                SgOp::Fred { op, nanp, ty } => {
                    fred(op, nanp, ty, &inp.src0, all_participating_lanes)
                }
                SgOp::Ired { op, ty } => ired(op, ty, &inp.src0, all_participating_lanes),
                _ => unreachable!(),
            };
            for laneid in 0..N {
                if (1u32 << laneid) & all_participating_lanes == 0 {
                    continue; // return
                }
                out.dst[laneid] = dst;
                out.wen |= 1 << laneid;
            }
        }
        SgOp::RedFirstIdx => {
            let mut participating_lanes = inp.mask & activemask;
            let mut dst = 0;
            if participating_lanes == 0 {
                dst = N as u32; // the spec's loop would not terminate
            } else {
                while (participating_lanes & 1) == 0 {
                    dst += 1;
                    participating_lanes >>= 1;
                }
            }
            for laneid in 0..N {
                if (1u32 << laneid) & activemask != 0 {
                    out.dst[laneid] = dst;
                    out.wen |= 1 << laneid;
                }
            }
        }
    }
    out
}

/// The value lane `laneid` of a shuffle writes to `dst`, or `None` if it returns early.
#[inline]
fn shfl<const N: usize>(
    mode: ShflMode,
    sg: bool,
    inp: &SgInputs<N>,
    activemask: u32,
    laneid: usize,
) -> Option<u32> {
    let participating_lanes = inp.mask & activemask;
    if (1u32 << laneid) & participating_lanes == 0 {
        return None;
    }
    let field = N as i64 - 1; // 0x1F for 32 lanes
    let src1 = inp.src1[laneid] as i64;
    let laneid = laneid as i64;
    let lane_offset = src1 & field;
    let (cval, segmask) = if sg {
        ((src1 >> 8) & field, (src1 >> 16) & field)
    } else {
        (if mode == ShflMode::Up { 0x0 } else { field }, 0x0)
    };
    let clamp_lane = (laneid & segmask) | (cval & !segmask);
    let min_lane = laneid & segmask;
    let src_lane = match mode {
        ShflMode::Up => laneid - lane_offset,
        ShflMode::Dn => laneid + lane_offset,
        ShflMode::Xor => laneid ^ lane_offset,
        ShflMode::Idx => min_lane | (lane_offset & !segmask),
    };
    let in_bounds =
        if mode == ShflMode::Up { src_lane >= clamp_lane } else { src_lane <= clamp_lane };
    if !in_bounds || (participating_lanes >> src_lane) & 1 == 0 {
        Some(inp.src0[laneid as usize])
    } else {
        Some(inp.src0[src_lane as usize])
    }
}

/// One float element as `f64` (exact for all three formats; NaN stays NaN).
fn as_f64(ty: FloatType, bits: u32) -> f64 {
    match ty {
        FloatType::F => f32::from_bits(bits) as f64,
        FloatType::Hf | FloatType::Hfx2 => half::f16::from_bits(bits as u16).to_f64(),
        FloatType::Bf | FloatType::Bfx2 => half::bf16::from_bits(bits as u16).to_f64(),
    }
}

fn fred<const N: usize>(op: FredOp, nanp: bool, ty: FloatType, src: &[u32; N], lanes: u32) -> u32 {
    let (elems, width, sign, qnan) = match ty {
        FloatType::F => (1, 32, 0x8000_0000u32, 0x7FFF_FFFFu32),
        FloatType::Hf | FloatType::Bf => (1, 16, 0x8000, 0x7FFF),
        FloatType::Hfx2 | FloatType::Bfx2 => (2, 16, 0x8000, 0x7FFF),
    };
    // IEEE comparison, with -0.0 ordered below +0.0.
    let less = |a: u32, b: u32| {
        let (fa, fb) = (as_f64(ty, a), as_f64(ty, b));
        fa < fb || (fa == fb && fa == 0.0 && a & sign != 0 && b & sign == 0)
    };
    let mut result = 0u32;
    for e in 0..elems {
        let shift = 16 * e;
        let mut saw_nan = false;
        let mut best: Option<u32> = None;
        for (l, &x) in src.iter().enumerate() {
            if lanes >> l & 1 == 0 {
                continue;
            }
            let bits = if width == 32 { x } else { (x >> shift) & 0xFFFF };
            // fabs clears the sign bit, NaNs included.
            let bits = if op == FredOp::Absmax { bits & !sign } else { bits };
            if as_f64(ty, bits).is_nan() {
                saw_nan = true;
                continue;
            }
            best = Some(match best {
                None => bits,
                Some(b) => {
                    let better = match op {
                        FredOp::Min => less(bits, b),
                        FredOp::Max | FredOp::Absmax => less(b, bits),
                    };
                    if better {
                        bits
                    } else {
                        b
                    }
                }
            });
        }
        // .nanp: any NaN gives NaN; default: NaN only when every input was NaN.
        let r = match best {
            Some(b) if !(nanp && saw_nan) => b,
            _ => qnan,
        };
        result |= r << shift;
    }
    result
}

fn ired<const N: usize>(op: IredOp, ty: IntType, src: &[u32; N], lanes: u32) -> u32 {
    let vals = src.iter().enumerate().filter(|(l, _)| lanes >> l & 1 != 0).map(|(_, &x)| x);
    match ty {
        IntType::B32 => match op {
            IredOp::Sum => vals.fold(0u32, |a, x| a.wrapping_add(x)),
            IredOp::Smin => vals.map(|x| x as i32).min().unwrap_or(0) as u32,
            IredOp::Smax => vals.map(|x| x as i32).max().unwrap_or(0) as u32,
            IredOp::Umin => vals.min().unwrap_or(0),
            IredOp::Umax => vals.max().unwrap_or(0),
            IredOp::And => vals.fold(!0, |a, x| a & x),
            IredOp::Or => vals.fold(0, |a, x| a | x),
            IredOp::Xor => vals.fold(0, |a, x| a ^ x),
            // |x| as unsigned; |i32::MIN| = 0x80000000, the largest value.
            IredOp::Absmax => vals.map(|x| (x as i32).unsigned_abs()).max().unwrap_or(0),
        },
        IntType::B16 => {
            let v16 = vals.map(|x| x as u16);
            (match op {
                IredOp::Sum => v16.fold(0u16, |a, x| a.wrapping_add(x)),
                IredOp::Smin => v16.map(|x| x as i16).min().unwrap_or(0) as u16,
                IredOp::Smax => v16.map(|x| x as i16).max().unwrap_or(0) as u16,
                IredOp::Umin => v16.min().unwrap_or(0),
                IredOp::Umax => v16.max().unwrap_or(0),
                IredOp::And => v16.fold(!0, |a, x| a & x),
                IredOp::Or => v16.fold(0, |a, x| a | x),
                IredOp::Xor => v16.fold(0, |a, x| a ^ x),
                IredOp::Absmax => v16.map(|x| (x as i16).unsigned_abs()).max().unwrap_or(0),
            }) as u32
        }
    }
}

//! The benchmark baseline: a plain port of the PISA §7 pseudocode, specialised per form.
//!
//! This is what a careful programmer writes without SIMD: one loop over the 32 lanes per warp,
//! the pseudocode's per-lane `if` on participation, host integer and float compares (`f32`,
//! with binary16 and bfloat16 widened to `f32`, which is exact), and the form's constants folded —
//! the `match` over forms is hoisted out of the warp loop ([`execute_batch_into`] expands one
//! loop per form, the same hoisting [`crate::kernel`] uses), so each loop is compiled for exactly
//! one form. The compiler may auto-vectorize these loops for the target it builds for (SSE2 on
//! a default x86-64 build); no intrinsics are written here.
//!
//! [`crate::literal`] stays the oracle (it dispatches every form inside the lane loop and
//! computes with `i64`/`f64`); this port is the fair speed baseline, and the differential tests
//! check it against `literal` too.

use crate::kernel::{
    each_bool, each_float, each_form, each_fred_op, each_int, each_ired_op, each_mode, each_value,
};
use crate::op::{FloatType, FredOp, IntType, IredOp, SgOp, ShflMode, LANES};
use crate::unit::{SgInputs, SgOutputs};

/// One warp, with the `match` over forms inside (use [`execute_batch_into`] for speed).
pub fn execute(op: SgOp, inp: &SgInputs) -> SgOutputs {
    let mut out = SgOutputs { dst: [0; LANES], wen: 0 };
    execute_batch_into(op, std::slice::from_ref(inp), std::slice::from_mut(&mut out));
    out
}

/// Runs `op` over every warp of `inputs` (one loop per form). Panics if `outputs` is shorter.
pub fn execute_batch_into(op: SgOp, inputs: &[SgInputs], outputs: &mut [SgOutputs]) {
    assert!(outputs.len() >= inputs.len(), "execute_batch_into: fewer outputs than inputs");
    each_form!(op, FORM => {
        for (inp, out) in inputs.iter().zip(outputs.iter_mut()) {
            warp(FORM, inp, out);
        }
    })
}

#[inline(always)]
fn warp(op: SgOp, inp: &SgInputs, out: &mut SgOutputs) {
    let participating = inp.mask & inp.activemask;
    match op {
        SgOp::Shfl { mode, sg } => {
            for laneid in 0..LANES {
                out.dst[laneid] = if participating >> laneid & 1 == 0 {
                    0
                } else {
                    shfl_lane(mode, sg, inp, participating, laneid)
                };
            }
            out.wen = participating;
        }
        SgOp::Fred { op, nanp, ty } => {
            let r = if participating == 0 {
                0
            } else {
                match ty {
                    FloatType::F => fred_column(op, nanp, &inp.src0, participating, F32_COL),
                    FloatType::Hf => fred_column(op, nanp, &inp.src0, participating, F16_LO),
                    FloatType::Bf => fred_column(op, nanp, &inp.src0, participating, BF16_LO),
                    FloatType::Hfx2 => {
                        fred_column(op, nanp, &inp.src0, participating, F16_LO)
                            | fred_column(op, nanp, &inp.src0, participating, F16_HI) << 16
                    }
                    FloatType::Bfx2 => {
                        fred_column(op, nanp, &inp.src0, participating, BF16_LO)
                            | fred_column(op, nanp, &inp.src0, participating, BF16_HI) << 16
                    }
                }
            };
            broadcast(r, participating, out);
        }
        SgOp::Ired { op, ty } => {
            let r = if participating == 0 { 0 } else { ired(op, ty, &inp.src0, participating) };
            broadcast(r, participating, out);
        }
        SgOp::RedFirstIdx => {
            let r = if participating == 0 { LANES as u32 } else { participating.trailing_zeros() };
            broadcast(r, inp.activemask, out);
        }
    }
}

/// Writes `r` to the lanes of `lanes`, zero to the others.
#[inline(always)]
fn broadcast(r: u32, lanes: u32, out: &mut SgOutputs) {
    for laneid in 0..LANES {
        out.dst[laneid] = if lanes >> laneid & 1 != 0 { r } else { 0 };
    }
    out.wen = lanes;
}

/// The pseudocode of `shfl` for one participating lane.
#[inline(always)]
fn shfl_lane(mode: ShflMode, sg: bool, inp: &SgInputs, participating: u32, laneid: usize) -> u32 {
    let src1 = inp.src1[laneid];
    let lane = laneid as i32;
    let lane_offset = (src1 & 0x1F) as i32;
    let (cval, segmask) = if sg {
        ((src1 >> 8 & 0x1F) as i32, (src1 >> 16 & 0x1F) as i32)
    } else {
        (if mode == ShflMode::Up { 0 } else { 0x1F }, 0)
    };
    let clamp_lane = (lane & segmask) | (cval & !segmask);
    let min_lane = lane & segmask;
    let src_lane = match mode {
        ShflMode::Up => lane - lane_offset,
        ShflMode::Dn => lane + lane_offset,
        ShflMode::Xor => lane ^ lane_offset,
        ShflMode::Idx => min_lane | (lane_offset & !segmask),
    };
    let in_bounds =
        if mode == ShflMode::Up { src_lane >= clamp_lane } else { src_lane <= clamp_lane };
    if in_bounds && participating >> src_lane & 1 != 0 {
        inp.src0[src_lane as usize]
    } else {
        inp.src0[laneid]
    }
}

/// Where one float column sits in a lane and how it widens to `f32`.
#[derive(Clone, Copy)]
struct Column {
    shift: u32,
    width_mask: u32,
    kind: u8, // 0: binary32, 1: binary16, 2: bfloat16
}
const F32_COL: Column = Column { shift: 0, width_mask: u32::MAX, kind: 0 };
const F16_LO: Column = Column { shift: 0, width_mask: 0xFFFF, kind: 1 };
const F16_HI: Column = Column { shift: 16, width_mask: 0xFFFF, kind: 1 };
const BF16_LO: Column = Column { shift: 0, width_mask: 0xFFFF, kind: 2 };
const BF16_HI: Column = Column { shift: 16, width_mask: 0xFFFF, kind: 2 };

#[inline(always)]
fn widen(c: Column, bits: u32) -> f32 {
    match c.kind {
        0 => f32::from_bits(bits),
        1 => half::f16::from_bits(bits as u16).to_f32(),
        _ => f32::from_bits(bits << 16),
    }
}

/// `fmin`/`fmax`/`fabsmax` of one column over the participating lanes (at least one), by host
/// float compares; -0.0 orders below +0.0; NaNs ignored unless all are NaN, or any with `.nanp`.
#[inline(always)]
fn fred_column(op: FredOp, nanp: bool, src0: &[u32; LANES], participating: u32, c: Column) -> u32 {
    let sign = (c.width_mask >> 1) + 1;
    let qnan = c.width_mask >> 1;
    let mut best_bits = 0u32;
    let mut best = f32::NAN;
    let mut saw_nan = false;
    for (laneid, &x) in src0.iter().enumerate() {
        if participating >> laneid & 1 == 0 {
            continue;
        }
        let mut bits = x >> c.shift & c.width_mask;
        if op == FredOp::Absmax {
            bits &= !sign;
        }
        let v = widen(c, bits);
        if v.is_nan() {
            saw_nan = true;
            continue;
        }
        let better = best.is_nan()
            || match op {
                FredOp::Min => v < best || (v == best && bits & sign != 0),
                FredOp::Max | FredOp::Absmax => v > best || (v == best && bits & sign == 0),
            };
        if better {
            best = v;
            best_bits = bits;
        }
    }
    if best.is_nan() || (nanp && saw_nan) {
        qnan
    } else {
        best_bits
    }
}

/// `ired` over the participating lanes (at least one), zero-extended.
#[inline(always)]
fn ired(op: IredOp, ty: IntType, src0: &[u32; LANES], participating: u32) -> u32 {
    match ty {
        IntType::B32 => match op {
            IredOp::Sum => fold(src0, participating, 0u32, |a, x| a.wrapping_add(x)),
            IredOp::Smin => fold(src0, participating, i32::MAX, |a, x| a.min(x as i32)) as u32,
            IredOp::Smax => fold(src0, participating, i32::MIN, |a, x| a.max(x as i32)) as u32,
            IredOp::Umin => fold(src0, participating, u32::MAX, |a, x| a.min(x)),
            IredOp::Umax => fold(src0, participating, 0, |a, x| a.max(x)),
            IredOp::And => fold(src0, participating, u32::MAX, |a, x| a & x),
            IredOp::Or => fold(src0, participating, 0, |a, x| a | x),
            IredOp::Xor => fold(src0, participating, 0, |a, x| a ^ x),
            IredOp::Absmax => fold(src0, participating, 0, |a, x| a.max((x as i32).unsigned_abs())),
        },
        IntType::B16 => {
            (match op {
                IredOp::Sum => fold(src0, participating, 0u16, |a, x| a.wrapping_add(x as u16)),
                IredOp::Smin => fold(src0, participating, i16::MAX, |a, x| a.min(x as i16)) as u16,
                IredOp::Smax => fold(src0, participating, i16::MIN, |a, x| a.max(x as i16)) as u16,
                IredOp::Umin => fold(src0, participating, u16::MAX, |a, x| a.min(x as u16)),
                IredOp::Umax => fold(src0, participating, 0, |a, x| a.max(x as u16)),
                IredOp::And => fold(src0, participating, u16::MAX, |a, x| a & x as u16),
                IredOp::Or => fold(src0, participating, 0, |a, x| a | x as u16),
                IredOp::Xor => fold(src0, participating, 0, |a, x| a ^ x as u16),
                IredOp::Absmax => {
                    fold(src0, participating, 0, |a, x| a.max((x as i16).unsigned_abs()))
                }
            }) as u32
        }
    }
}

#[inline(always)]
fn fold<T>(src0: &[u32; LANES], participating: u32, init: T, f: impl Fn(T, u32) -> T) -> T {
    let mut acc = init;
    for (laneid, &x) in src0.iter().enumerate() {
        if participating >> laneid & 1 != 0 {
            acc = f(acc, x);
        }
    }
    acc
}

//! Which lane-vector implementation runs the 32-lane model, chosen once at run time, and the
//! batch entry point that runs one instruction form over many warps.
//!
//! The kernels of [`crate::unit`] are written once over [`crate::simd::Lanes`]; this module
//! compiles them three times — [`Kernel::Portable`] (plain loops), [`Kernel::Avx2`] and
//! [`Kernel::Avx512`] — and picks the best one the CPU has ([`Kernel::best`], detected once and
//! cached). [`execute_batch_into`] decodes the form once per batch: the `match` over the 57
//! forms is hoisted out of the warp loop, so each form's loop is compiled with its constants
//! folded, as the per-form baseline in [`crate::plain`] is.

use std::sync::atomic::{AtomicU8, Ordering};

use crate::op::{FloatType, FredOp, IntType, IredOp, SgOp, ShflMode, LANES};
use crate::simd::Portable;
#[cfg(target_arch = "x86_64")]
use crate::simd::{Avx2, Avx2Gather, Avx512};
use crate::unit::{run, run_parts, run_reductions, SgInputs, SgOutputs};

/// One compiled variant of the 32-lane model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kernel {
    /// Plain loops over `[u32; 32]` (any CPU).
    Portable,
    /// AVX2: four 256-bit registers per lane vector, the 32-lane gather as `vpermd` and blends
    /// in registers.
    Avx2,
    /// AVX2 with the 32-lane gather as `vpgatherdd` from memory (faster on the Intel cores
    /// measured, slower on AMD Zen 4: [`Kernel::best`] picks by vendor).
    Avx2Gather,
    /// AVX-512F and DQ: two 512-bit registers per lane vector, `vpermi2d` gathers, mask registers
    /// (widened to lanes with `vpmovm2d`).
    Avx512,
}

/// A kernel this CPU cannot run was asked for by name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the {kernel} kernel needs CPU features this machine lacks: {missing}")]
pub struct Unsupported {
    pub kernel: &'static str,
    pub missing: String,
}

const UNKNOWN: u8 = 0xFF;
static BEST: AtomicU8 = AtomicU8::new(UNKNOWN);
/// Bit `k as u8` set when kernel `k` runs here.
static SUPPORTED: AtomicU8 = AtomicU8::new(UNKNOWN);

impl Kernel {
    /// Every kernel, fastest first (of the two AVX2 ones, which is faster depends on the CPU).
    pub const ALL: [Kernel; 4] =
        [Kernel::Avx512, Kernel::Avx2, Kernel::Avx2Gather, Kernel::Portable];

    pub fn name(self) -> &'static str {
        match self {
            Kernel::Portable => "portable",
            Kernel::Avx2 => "avx2",
            Kernel::Avx2Gather => "avx2-gather",
            Kernel::Avx512 => "avx512",
        }
    }

    /// Parses a kernel name as [`Kernel::name`] writes it.
    pub fn from_name(s: &str) -> Option<Kernel> {
        Kernel::ALL.into_iter().find(|k| k.name() == s)
    }

    /// The CPU features this kernel needs that this machine lacks (empty: it can run).
    pub fn missing_features(self) -> Vec<&'static str> {
        #[cfg(target_arch = "x86_64")]
        {
            let need: &[(&str, bool)] = match self {
                Kernel::Portable => &[],
                Kernel::Avx2 | Kernel::Avx2Gather => &[
                    ("avx2", std::arch::is_x86_feature_detected!("avx2")),
                    ("bmi1", std::arch::is_x86_feature_detected!("bmi1")),
                    ("bmi2", std::arch::is_x86_feature_detected!("bmi2")),
                    ("popcnt", std::arch::is_x86_feature_detected!("popcnt")),
                ],
                Kernel::Avx512 => &[
                    ("avx512f", std::arch::is_x86_feature_detected!("avx512f")),
                    ("avx512dq", std::arch::is_x86_feature_detected!("avx512dq")),
                    ("avx2", std::arch::is_x86_feature_detected!("avx2")),
                    ("bmi1", std::arch::is_x86_feature_detected!("bmi1")),
                    ("bmi2", std::arch::is_x86_feature_detected!("bmi2")),
                    ("popcnt", std::arch::is_x86_feature_detected!("popcnt")),
                ],
            };
            need.iter().filter(|(_, have)| !have).map(|(f, _)| *f).collect()
        }
        #[cfg(not(target_arch = "x86_64"))]
        match self {
            Kernel::Portable => vec![],
            Kernel::Avx2 | Kernel::Avx2Gather | Kernel::Avx512 => vec!["x86_64"],
        }
    }

    /// True when this CPU can run the kernel (detected once, then a relaxed load).
    #[inline]
    pub fn supported(self) -> bool {
        let mut bits = SUPPORTED.load(Ordering::Relaxed);
        if bits == UNKNOWN {
            bits = Kernel::ALL
                .into_iter()
                .filter(|k| k.missing_features().is_empty())
                .fold(0, |b, k| b | 1 << k as u8);
            SUPPORTED.store(bits, Ordering::Relaxed);
        }
        bits >> self as u8 & 1 != 0
    }

    /// `Ok(self)` when the CPU can run it, else which features are missing.
    #[inline]
    pub fn check(self) -> Result<Kernel, Unsupported> {
        if self.supported() {
            Ok(self)
        } else {
            Err(Unsupported { kernel: self.name(), missing: self.missing_features().join(", ") })
        }
    }

    /// The fastest kernel this CPU runs (detected on first use, then a relaxed load): AVX-512,
    /// else AVX2 ([`Kernel::Avx2`] on AMD, [`Kernel::Avx2Gather`] on other vendors), else
    /// portable.
    #[inline]
    pub fn best() -> Kernel {
        match BEST.load(Ordering::Relaxed) {
            0 => Kernel::Portable,
            1 => Kernel::Avx2,
            2 => Kernel::Avx2Gather,
            3 => Kernel::Avx512,
            _ => {
                let avx2 = if amd() { Kernel::Avx2 } else { Kernel::Avx2Gather };
                let k = [Kernel::Avx512, avx2, Kernel::Portable]
                    .into_iter()
                    .find(|k| k.supported())
                    .unwrap_or(Kernel::Portable);
                BEST.store(k as u8, Ordering::Relaxed);
                k
            }
        }
    }
}

/// Whether the CPU is AMD's (or Hygon's): their AVX2 gathers are slower than permutes.
fn amd() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: cpuid leaf 0 exists on every x86-64 CPU (`__cpuid` is safe since Rust 1.86;
        // the block keeps the crate building with its declared rust-version).
        #[allow(unused_unsafe)]
        let r = unsafe { std::arch::x86_64::__cpuid(0) };
        let vendor: Vec<u8> = [r.ebx, r.edx, r.ecx].iter().flat_map(|w| w.to_le_bytes()).collect();
        vendor == b"AuthenticAMD" || vendor == b"HygonGenuine"
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// Calls the portable, AVX2 or AVX-512 variant of a function for `$kernel`, after checking
/// that this CPU runs it (`?` returns the [`Unsupported`] error otherwise).
macro_rules! dispatch {
    ($kernel:expr, [$portable:ident, $avx2:ident, $avx2g:ident, $avx512:ident], ($($arg:expr),*)) => {
        match $kernel.check()? {
            Kernel::Portable => $portable($($arg),*),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: check() confirmed the CPU features the function is compiled for.
            Kernel::Avx2 => unsafe { $avx2($($arg),*) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above.
            Kernel::Avx2Gather => unsafe { $avx2g($($arg),*) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above.
            Kernel::Avx512 => unsafe { $avx512($($arg),*) },
            #[cfg(not(target_arch = "x86_64"))]
            _ => unreachable!("check() refuses x86 kernels elsewhere"),
        }
    };
}

/// Runs `op` on every warp of `inputs`, writing `outputs[i]` for `inputs[i]`, with the best
/// kernel of this CPU.
///
/// Panics if `outputs` is shorter than `inputs` (a programming error).
pub fn execute_batch_into(op: SgOp, inputs: &[SgInputs], outputs: &mut [SgOutputs]) {
    // best() is always supported
    let _ = execute_batch_with(Kernel::best(), op, inputs, outputs);
}

/// Runs `op` on every warp of `inputs` with the best kernel of this CPU.
pub fn execute_batch(op: SgOp, inputs: &[SgInputs]) -> Vec<SgOutputs> {
    let mut out = vec![SgOutputs { dst: [0; LANES], wen: 0 }; inputs.len()];
    execute_batch_into(op, inputs, &mut out);
    out
}

/// [`execute_batch_into`] with a chosen kernel; an error if this CPU cannot run it.
///
/// Panics if `outputs` is shorter than `inputs` (a programming error).
pub fn execute_batch_with(
    kernel: Kernel,
    op: SgOp,
    inputs: &[SgInputs],
    outputs: &mut [SgOutputs],
) -> Result<(), Unsupported> {
    assert!(outputs.len() >= inputs.len(), "execute_batch: fewer outputs than inputs");
    let outputs = &mut outputs[..inputs.len()];
    dispatch!(
        kernel,
        [batch_portable, batch_avx2, batch_avx2g, batch_avx512],
        (op, inputs, outputs)
    );
    Ok(())
}

/// One warp with a chosen kernel; an error if this CPU cannot run it.
pub fn execute_with(kernel: Kernel, op: SgOp, inp: &SgInputs) -> Result<SgOutputs, Unsupported> {
    let mut out = [SgOutputs { dst: [0; LANES], wen: 0 }];
    execute_batch_with(kernel, op, std::slice::from_ref(inp), &mut out)?;
    let [o] = out;
    Ok(o)
}

/// Operands of `W` warps as lane arrays (structure of arrays): warp `w` is `src0[w]`,
/// `src1[w]`, `mask[w]`, `activemask[w]` — the layout of the Python package's arrays, run
/// without copying them into [`SgInputs`].
#[derive(Clone, Copy, Debug)]
pub struct LaneArrays<'a> {
    pub src0: &'a [[u32; LANES]],
    pub src1: &'a [[u32; LANES]],
    pub mask: &'a [u32],
    pub activemask: &'a [u32],
}

/// Results of `W` warps as lane arrays: `dst[w]` (zero in the lanes not written) and `wen[w]`.
#[derive(Debug)]
pub struct LaneArraysMut<'a> {
    pub dst: &'a mut [[u32; LANES]],
    pub wen: &'a mut [u32],
}

impl LaneArrays<'_> {
    /// The number of warps, or which array has a different length.
    pub fn warps(&self) -> Result<usize, String> {
        let w = self.src0.len();
        for (name, len) in [
            ("src1", self.src1.len()),
            ("mask", self.mask.len()),
            ("activemask", self.activemask.len()),
        ] {
            if len != w {
                return Err(format!("{name} has {len} warps, src0 has {w}"));
            }
        }
        Ok(w)
    }
}

/// Runs `op` over every warp of `inp` with `kernel`, writing `out`.
///
/// Panics if the arrays of `inp` and `out` differ in length (a programming error; check with
/// [`LaneArrays::warps`]).
pub fn execute_lane_arrays_with(
    kernel: Kernel,
    op: SgOp,
    inp: LaneArrays<'_>,
    out: LaneArraysMut<'_>,
) -> Result<(), Unsupported> {
    let w = inp.warps().unwrap_or_else(|e| panic!("execute_lane_arrays: {e}"));
    assert!(out.dst.len() == w && out.wen.len() == w, "execute_lane_arrays: output length");
    dispatch!(kernel, [soa_portable, soa_avx2, soa_avx2g, soa_avx512], (op, inp, out));
    Ok(())
}

/// [`execute_lane_arrays_with`] with the best kernel of this CPU.
pub fn execute_lane_arrays(op: SgOp, inp: LaneArrays<'_>, out: LaneArraysMut<'_>) {
    // best() is always supported
    let _ = execute_lane_arrays_with(Kernel::best(), op, inp, out);
}

/// Expands `$body` once per instruction form with `$F` a constant naming that form, so every
/// arm is compiled with the form's constants folded.
macro_rules! each_form {
    ($op:expr, $F:ident => $body:expr) => {
        match $op {
            SgOp::Shfl { mode, sg } => each_bool!(sg, SG => each_mode!(mode, M => {
                const $F: SgOp = SgOp::Shfl { mode: M, sg: SG };
                $body
            })),
            SgOp::Fred { op, nanp, ty } => each_fred_op!(op, O => each_bool!(nanp, NP =>
                each_float!(ty, T => {
                    const $F: SgOp = SgOp::Fred { op: O, nanp: NP, ty: T };
                    $body
                }))),
            SgOp::Ired { op, ty } => each_ired_op!(op, O => each_int!(ty, T => {
                const $F: SgOp = SgOp::Ired { op: O, ty: T };
                $body
            })),
            SgOp::RedFirstIdx => {
                const $F: SgOp = SgOp::RedFirstIdx;
                $body
            }
        }
    };
}

/// `match $v` over the listed values, binding each to the constant `$C` of type `$t`.
macro_rules! each_value {
    ($v:expr, $C:ident: $t:ty => $body:expr; $($val:path),+) => {
        match $v {
            $($val => {
                const $C: $t = $val;
                $body
            })+
        }
    };
}
macro_rules! each_bool {
    ($v:expr, $C:ident => $body:expr) => {
        if $v {
            const $C: bool = true;
            $body
        } else {
            const $C: bool = false;
            $body
        }
    };
}
macro_rules! each_mode {
    ($v:expr, $C:ident => $body:expr) => {
        each_value!($v, $C: ShflMode => $body;
            ShflMode::Up, ShflMode::Dn, ShflMode::Xor, ShflMode::Idx)
    };
}
macro_rules! each_fred_op {
    ($v:expr, $C:ident => $body:expr) => {
        each_value!($v, $C: FredOp => $body; FredOp::Min, FredOp::Max, FredOp::Absmax)
    };
}
macro_rules! each_float {
    ($v:expr, $C:ident => $body:expr) => {
        each_value!($v, $C: FloatType => $body;
            FloatType::F, FloatType::Hf, FloatType::Bf, FloatType::Hfx2, FloatType::Bfx2)
    };
}
macro_rules! each_ired_op {
    ($v:expr, $C:ident => $body:expr) => {
        each_value!($v, $C: IredOp => $body;
            IredOp::Sum, IredOp::Smin, IredOp::Smax, IredOp::Umin, IredOp::Umax,
            IredOp::And, IredOp::Or, IredOp::Xor, IredOp::Absmax)
    };
}
macro_rules! each_int {
    ($v:expr, $C:ident => $body:expr) => {
        each_value!($v, $C: IntType => $body; IntType::B16, IntType::B32)
    };
}
pub(crate) use {
    each_bool, each_float, each_form, each_fred_op, each_int, each_ired_op, each_mode, each_value,
};

/// The batch loop, written once; `$V` is the lane-vector type.
macro_rules! batch_loop {
    ($V:ty, $op:expr, $inputs:expr, $outputs:expr) => {
        each_form!($op, FORM => {
            if !matches!(FORM, SgOp::Shfl { .. }) {
                run_reductions::<$V>(FORM, $inputs, $outputs)
            } else {
                for (inp, out) in $inputs.iter().zip($outputs.iter_mut()) {
                    run::<LANES, $V>(FORM, inp, out);
                }
            }
        })
    };
}

/// The structure-of-arrays batch loop, written once.
macro_rules! soa_loop {
    ($V:ty, $op:expr, $inp:expr, $out:expr) => {{
        let (inp, out) = ($inp, $out);
        each_form!($op, FORM => {
            let lanes = inp.src0.iter().zip(inp.src1).zip(out.dst.iter_mut());
            for (w, ((s0, s1), d)) in lanes.enumerate() {
                out.wen[w] = run_parts::<LANES, $V>(FORM, s0, s1, inp.mask[w], inp.activemask[w], d);
            }
        })
    }};
}

fn soa_portable(op: SgOp, inp: LaneArrays<'_>, out: LaneArraysMut<'_>) {
    soa_loop!(Portable<LANES>, op, inp, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
unsafe fn soa_avx2(op: SgOp, inp: LaneArrays<'_>, out: LaneArraysMut<'_>) {
    soa_loop!(Avx2, op, inp, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
unsafe fn soa_avx2g(op: SgOp, inp: LaneArrays<'_>, out: LaneArraysMut<'_>) {
    soa_loop!(Avx2Gather, op, inp, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq,avx2,bmi1,bmi2,popcnt")]
unsafe fn soa_avx512(op: SgOp, inp: LaneArrays<'_>, out: LaneArraysMut<'_>) {
    soa_loop!(Avx512, op, inp, out)
}

fn batch_portable(op: SgOp, inputs: &[SgInputs], outputs: &mut [SgOutputs]) {
    batch_loop!(Portable<LANES>, op, inputs, outputs)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
unsafe fn batch_avx2(op: SgOp, inputs: &[SgInputs], outputs: &mut [SgOutputs]) {
    batch_loop!(Avx2, op, inputs, outputs)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
unsafe fn batch_avx2g(op: SgOp, inputs: &[SgInputs], outputs: &mut [SgOutputs]) {
    batch_loop!(Avx2Gather, op, inputs, outputs)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq,avx2,bmi1,bmi2,popcnt")]
unsafe fn batch_avx512(op: SgOp, inputs: &[SgInputs], outputs: &mut [SgOutputs]) {
    batch_loop!(Avx512, op, inputs, outputs)
}

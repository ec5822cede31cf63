//! The sub-group unit as a function: one instruction form, the operands of every lane in, the
//! destination value and write enable of every lane out.
//!
//! This is the boundary the RTL implements (ports `src0_i`, `src1_i`, `mask_i`, `activemask_i`,
//! `op_i` in; `dst_o`, `wen_o` out), so the same [`SgInputs`] drive the reference model, the
//! Verilated RTL and the formal counterexample replays.
//!
//! The unit is generic over the lane count `N` (a power of two, 4..=32). PISA itself has
//! `N = 32`; smaller `N` are the scaled-down hardware configurations, whose semantics are the
//! pseudocode with every 5-bit lane field narrowed to `log2(N)` bits (see `docs/spec-notes.md`).

#[cfg(target_arch = "x86_64")]
use crate::kernel::Kernel;
pub use crate::op::lane_mask;
use crate::op::{SgOp, LANES};
#[cfg(target_arch = "x86_64")]
use crate::simd::{Avx2, Avx2Gather, Avx512};
use crate::simd::{Lanes, Portable};
use crate::{fred, ired, redfirstidx, shfl};

/// Operands of one sub-group instruction for all `N` lanes.
///
/// Laid out as C lays out its fields, in this order (`src0` words, `src1` words, `mask`,
/// `activemask`), so the co-simulation shim reads a slice of them in place.
#[derive(Clone, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct SgInputs<const N: usize = LANES> {
    /// `src0` of every lane (for 16-bit types only bits [15:0] are read).
    pub src0: [u32; N],
    /// `src1` of every lane; read only by `shfl` (lane offset, clamp, segmask).
    pub src1: [u32; N],
    /// The sub-group-uniform mask operand: `src2` of `shfl`, `src1` of `fred`/`ired`, `src0` of
    /// `redfirstidx`.
    pub mask: u32,
    /// `%activemask`: bit `i` set when lane `i` executes the instruction.
    pub activemask: u32,
}

/// Results of one sub-group instruction: lane `i` writes `dst[i]` when bit `i` of `wen` is set and
/// keeps its old destination value otherwise. The model zeroes `dst` of lanes it does not write;
/// the RTL leaves them unspecified, so compare with [`SgOutputs::agrees_with`]. Laid out as C
/// (`dst` words, then `wen`), so the co-simulation shim writes a slice of them in place.
#[derive(Clone, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct SgOutputs<const N: usize = LANES> {
    pub dst: [u32; N],
    pub wen: u32,
}

impl<const N: usize> SgInputs<N> {
    /// All-zero operands with every lane active.
    pub fn zeroed() -> Self {
        SgInputs { src0: [0; N], src1: [0; N], mask: 0, activemask: lane_mask::<N>() }
    }
}

impl<const N: usize> SgOutputs<N> {
    /// Same write enables, and the same value in every written lane.
    pub fn agrees_with(&self, other: &SgOutputs<N>) -> bool {
        // the lanes that differ as one mask, without a branch per lane (co-simulation compares
        // random write enables, on which a branch mispredicts about every other lane)
        let differ = (self.dst.iter().zip(&other.dst))
            .enumerate()
            .fold(0u32, |m, (i, (a, b))| m | ((a != b) as u32) << i);
        self.wen == other.wen && differ & self.wen == 0
    }

    /// Applies the write enables to a destination register.
    pub fn write_back(&self, dst: &mut [u32; N]) {
        for (i, d) in dst.iter_mut().enumerate() {
            if self.wen >> i & 1 != 0 {
                *d = self.dst[i];
            }
        }
    }
}

/// Executes one instruction form on the 32-lane reference model with the best kernel of this
/// CPU ([`Kernel::best`](crate::kernel::Kernel::best): AVX-512, AVX2, else
/// [`execute_lanes`]). For many warps of one form, [`crate::kernel::execute_batch`] decodes the
/// form once.
#[inline]
pub fn execute(op: SgOp, inp: &SgInputs) -> SgOutputs {
    #[cfg(target_arch = "x86_64")]
    match Kernel::best() {
        // SAFETY: best() only names kernels whose CPU features are present.
        Kernel::Avx512 => return unsafe { execute_avx512(op, inp) },
        // SAFETY: as above.
        Kernel::Avx2 => return unsafe { execute_avx2::<Avx2>(op, inp) },
        // SAFETY: as above.
        Kernel::Avx2Gather => return unsafe { execute_avx2::<Avx2Gather>(op, inp) },
        Kernel::Portable => {}
    }
    execute_lanes(op, inp)
}

/// Executes one instruction form on an `N`-lane unit: the best kernel of this CPU at 32 lanes
/// (as [`execute`]), portable code ([`execute_lanes`]) for the smaller units.
pub fn execute_n<const N: usize>(op: SgOp, inp: &SgInputs<N>) -> SgOutputs<N> {
    if let Some(inp32) = (inp as &dyn std::any::Any).downcast_ref::<SgInputs<LANES>>() {
        let o = execute(op, inp32);
        let mut out = SgOutputs { dst: [0; N], wen: o.wen };
        out.dst.copy_from_slice(&o.dst); // N == LANES here
        return out;
    }
    execute_lanes(op, inp)
}

/// Executes one instruction form on an `N`-lane unit with portable code (plain loops).
///
/// Panics only if `N` is not a power of two in 4..=32 (a programming error, not user input).
pub fn execute_lanes<const N: usize>(op: SgOp, inp: &SgInputs<N>) -> SgOutputs<N> {
    assert!(N.is_power_of_two() && (4..=32).contains(&N), "unsupported lane count {N}");
    let mut out = SgOutputs { dst: [0; N], wen: 0 };
    run::<N, Portable<N>>(op, inp, &mut out);
    out
}

/// The 32-lane kernels compiled with AVX2 and run on [`Avx2`] or [`Avx2Gather`] lane vectors.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
unsafe fn execute_avx2<V: Lanes<LANES>>(op: SgOp, inp: &SgInputs) -> SgOutputs {
    let mut out = SgOutputs { dst: [0; LANES], wen: 0 };
    // `run_parts`, not the batch path's `run`: the caller reads the result at once
    // (`Lanes::store_uniform_outputs`)
    out.wen =
        run_parts::<LANES, V>(op, &inp.src0, &inp.src1, inp.mask, inp.activemask, &mut out.dst);
    out
}

/// The 32-lane kernels compiled with AVX-512F/DQ and run on [`Avx512`] lane vectors.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq,avx2,bmi1,bmi2,popcnt")]
unsafe fn execute_avx512(op: SgOp, inp: &SgInputs) -> SgOutputs {
    let mut out = SgOutputs { dst: [0; LANES], wen: 0 };
    run::<LANES, Avx512>(op, inp, &mut out);
    out
}

/// The unit, written once over lane vectors `V`. (No closures here: a closure would be compiled
/// without the caller's target features and lose the AVX2 intrinsics.)
#[inline(always)]
pub(crate) fn run<const N: usize, V: Lanes<N>>(
    op: SgOp,
    inp: &SgInputs<N>,
    out: &mut SgOutputs<N>,
) {
    if let SgOp::Shfl { .. } = op {
        out.wen =
            run_parts::<N, V>(op, &inp.src0, &inp.src1, inp.mask, inp.activemask, &mut out.dst);
        return;
    }
    match reduction::<N, V>(op, &inp.src0, inp.mask, inp.activemask) {
        Some((v, wen, m)) => V::store_uniform_outputs(v, wen, m, out),
        None => {
            V::splat(0).store(&mut out.dst);
            out.wen = 0;
        }
    }
}

/// The lanes a reduction writes: `(p, wen)` with `p = mask & active` the participating lanes;
/// `redfirstidx` writes every active lane, `fred` and `ired` the participating ones.
#[inline(always)]
fn reduction_lanes<const N: usize>(op: SgOp, mask: u32, activemask: u32) -> (u32, u32) {
    let active = activemask & lane_mask::<N>();
    let p = mask & active;
    (p, if op == SgOp::RedFirstIdx { active } else { p })
}

/// The value a reduction writes to every lane it writes (`m` = `expand(wen)`; `None` when that
/// is every lane).
#[inline(always)]
fn reduction_value<const N: usize, V: Lanes<N>>(
    op: SgOp,
    src0: &[u32; N],
    p: u32,
    m: Option<V>,
) -> u32 {
    match op {
        // `fred` over every lane: its formulas with the constant all-ones mask, which the
        // compiler folds (a maskless min, `reduce_umin` over keys with NaN lanes set to all
        // ones, measured slower on Zen 4)
        SgOp::Fred { op, nanp, ty } => {
            fred::reduce::<N, V>(op, nanp, ty, src0, m.unwrap_or(V::splat(u32::MAX)))
        }
        SgOp::Ired { op, ty } => ired::reduce::<N, V>(op, ty, src0, m),
        _ => redfirstidx::first::<N>(p),
    }
}

/// [`reduction_value`] when every lane is written (the typical case): no mask to build or
/// apply, each reduction computed over all lanes as it is.
#[inline(always)]
fn full_reduction_value<const N: usize, V: Lanes<N>>(op: SgOp, src0: &[u32; N], p: u32) -> u32 {
    reduction_value::<N, V>(op, src0, p, None)
}

/// A reduction (`fred`, `ired`, `redfirstidx`): `None` when it writes no lane, else the value
/// it writes to every lane of its write enables, the write enables, and those expanded to lanes.
#[inline(always)]
fn reduction<const N: usize, V: Lanes<N>>(
    op: SgOp,
    src0: &[u32; N],
    mask: u32,
    activemask: u32,
) -> Option<(u32, u32, V)> {
    let (p, wen) = reduction_lanes::<N>(op, mask, activemask);
    if wen == 0 {
        return None;
    }
    if wen == lane_mask::<N>() {
        // the value is computed in each branch, so that this one is compiled with the constant
        // mask (one call with a selected `m` would merge them again)
        return Some((full_reduction_value::<N, V>(op, src0, p), wen, V::splat(u32::MAX)));
    }
    let m = V::expand(wen);
    Some((reduction_value::<N, V>(op, src0, p, Some(m)), wen, m))
}

/// [`run`] of one reduction over a batch. For a lane type with [`Lanes::GROUP_ALIGN`]: from
/// the first warp whose outputs start on that alignment, eight warps at a time, and where all
/// eight write every lane (the typical case) their outputs in one [`Lanes::store_full_group`];
/// the other warps one by one. For any other lane type, warp by warp.
#[inline(always)]
pub(crate) fn run_reductions<V: Lanes<LANES>>(
    op: SgOp,
    inputs: &[SgInputs],
    outputs: &mut [SgOutputs],
) {
    let outputs = &mut outputs[..inputs.len()];
    let align = V::GROUP_ALIGN;
    if align == 0 || matches!(op, SgOp::Fred { .. }) {
        // warp by warp: no group store, or `fred`, whose value (tens of instructions a warp)
        // outweighs the stores; grouped, its eight values were compiled worse (on Zen 4 with
        // AVX-512 `fred.max.nanp.hfx2` ran 210 against 265-275 M warp-ops/s warp by warp)
        for (inp, out) in inputs.iter().zip(outputs) {
            run::<LANES, V>(op, inp, out);
        }
        return;
    }
    // `SgOutputs` is 132 bytes and 4-byte aligned, 132 = 4 mod `align` (a divisor of 128):
    // warp `lead` starts on the alignment
    let lead = (align - outputs.as_ptr() as usize % align) % align / 4;
    let (head_in, inputs) = inputs.split_at(lead.min(inputs.len()));
    let (head_out, outputs) = outputs.split_at_mut(head_in.len());
    for (inp, out) in head_in.iter().zip(head_out) {
        run::<LANES, V>(op, inp, out);
    }
    let mut groups_in = inputs.chunks_exact(8);
    let mut groups_out = outputs.chunks_exact_mut(8);
    for (g_in, g_out) in (&mut groups_in).zip(&mut groups_out) {
        let (Ok(g_in), Ok(g_out)) =
            (<&[SgInputs; 8]>::try_from(g_in), <&mut [SgOutputs; 8]>::try_from(g_out))
        else {
            unreachable!("chunks_exact gives eight warps")
        };
        let mut full = u32::MAX;
        for inp in g_in {
            // Volatile reads: 16 scalar loads. As plain reads, the AVX-512 kernel vectorised
            // this loop into a `vpgatherdd`, the loop's hot spot in perf on Zen 4. SAFETY: both
            // are reads of valid, aligned `u32` fields.
            let (mask, active) = unsafe {
                (std::ptr::read_volatile(&inp.mask), std::ptr::read_volatile(&inp.activemask))
            };
            full &= reduction_lanes::<LANES>(op, mask, active).1;
        }
        if full != u32::MAX {
            for (inp, out) in g_in.iter().zip(g_out.iter_mut()) {
                run::<LANES, V>(op, inp, out);
            }
            continue;
        }
        let mut v = [0; 8];
        // indexed: `v.iter_mut().zip(g_in)` was compiled to a slower vector build of `v`
        for k in 0..8 {
            // every lane written, so every lane active: `p` is the mask operand
            v[k] = full_reduction_value::<LANES, V>(op, &g_in[k].src0, g_in[k].mask);
        }
        V::store_full_group(&v, g_out);
    }
    for (inp, out) in groups_in.remainder().iter().zip(groups_out.into_remainder()) {
        run::<LANES, V>(op, inp, out);
    }
}

/// [`run`] on operands wherever they live (the lane arrays of a structure-of-arrays batch);
/// writes `dst` and returns the write enables.
#[inline(always)]
pub(crate) fn run_parts<const N: usize, V: Lanes<N>>(
    op: SgOp,
    src0: &[u32; N],
    src1: &[u32; N],
    mask: u32,
    activemask: u32,
    dst: &mut [u32; N],
) -> u32 {
    if let SgOp::Shfl { mode, sg } = op {
        let p = mask & activemask & lane_mask::<N>();
        return shfl::shfl::<N, V>(mode, sg, src0, src1, p, dst);
    }
    match reduction::<N, V>(op, src0, mask, activemask) {
        Some((v, wen, m)) => {
            V::splat(v).and(m).store(dst);
            wen
        }
        None => {
            V::splat(0).store(dst);
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::SgOutputs;
    use crate::gen::Rng;

    /// `agrees_with` against its definition lane by lane: same write enables, and equal values
    /// wherever a lane is written (random results that differ in a few random lanes).
    fn agrees_as_defined<const N: usize>() {
        let mut rng = Rng::for_case(77, N as u64);
        for _ in 0..20_000 {
            let wen = rng.u32() & (u32::MAX >> (32 - N));
            let a: SgOutputs<N> = SgOutputs { dst: std::array::from_fn(|_| rng.u32() % 4), wen };
            let mut b = a.clone();
            for _ in 0..rng.below(3) {
                b.dst[rng.below(N as u32) as usize] ^= 1 << rng.below(32);
            }
            if rng.below(8) == 0 {
                b.wen ^= 1 << rng.below(N as u32);
            }
            let want =
                a.wen == b.wen && (0..N).all(|l| a.wen >> l & 1 == 0 || a.dst[l] == b.dst[l]);
            assert_eq!(a.agrees_with(&b), want, "{a:?} {b:?}");
            assert_eq!(b.agrees_with(&a), want, "{a:?} {b:?}");
        }
    }

    #[test]
    fn agrees_with_compares_written_lanes_only() {
        agrees_as_defined::<4>();
        agrees_as_defined::<8>();
        agrees_as_defined::<16>();
        agrees_as_defined::<32>();
    }
}

//! Executes a checked [`Program`] on a [`SubgroupBackend`], SIMT style with one program counter.
//!
//! Scalar instructions run on the active lanes only; sub-group instructions are issued to the
//! backend and their results written back under its write enables. Control flow must stay
//! uniform: a `goto.cond` whose predicate differs between active lanes is an error, as is a mask
//! operand register that differs between active lanes. With no active lane a branch is not taken.

use crate::asm::{AluOp, Inst, InstKind, Pos, Program, Src};
use crate::backend::{BackendError, SubgroupBackend};
use crate::op::{SgOp, Warp, LANES};
use crate::unit::{SgInputs, SgOutputs};

/// A runtime error, at the instruction that raised it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{pos}: {message}")]
pub struct RunError {
    pub pos: Pos,
    pub message: String,
}

/// Limits of one run.
#[derive(Clone, Copy, Debug)]
pub struct RunOptions {
    /// Instructions executed before the run is stopped as a probable infinite loop.
    pub max_steps: u64,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions { max_steps: 1_000_000 }
    }
}

/// What a run did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunStats {
    /// Instructions executed.
    pub steps: u64,
    /// Sub-group instructions issued to the backend.
    pub sg_issued: u64,
}

/// Something a run did, for observers (lane diagrams, traces, tests).
pub enum Event<'a> {
    /// A sub-group instruction issued to the backend.
    Sg { inst: &'a Inst, op: SgOp, inputs: &'a SgInputs, outputs: &'a SgOutputs },
    /// A `goto.cond` evaluated (with at least one active lane) and whether it was taken.
    Branch { inst: &'a Inst, taken: bool },
}

#[inline]
fn read(src: Src, regs: &[Warp], lane: usize, activemask: u32) -> u32 {
    match src {
        Src::Reg(r) => regs[r][lane],
        Src::Imm(v) => v,
        Src::LaneId => lane as u32,
        Src::ActiveMask => activemask,
    }
}

fn uniform(
    prog: &Program,
    src: Src,
    regs: &[Warp],
    activemask: u32,
    inst: &Inst,
    role: &str,
) -> Result<u32, RunError> {
    // a register or a special register (%laneid differs between lanes): the value of every
    // active lane must be the same, and it is that value, not lane 0's
    let name = match src {
        Src::Imm(v) => return Ok(v),
        Src::Reg(r) => format!("%{}", prog.regs[r].name),
        Src::LaneId => "%laneid".to_string(),
        Src::ActiveMask => "%activemask".to_string(),
    };
    let mut first: Option<(usize, u32)> = None;
    for lane in (0..LANES).filter(|l| activemask >> l & 1 != 0) {
        let v = read(src, regs, lane, activemask);
        match first {
            None => first = Some((lane, v)),
            Some((fl, fv)) if fv != v => {
                return Err(RunError {
                    pos: inst.pos,
                    message: format!(
                        "{}: {role} '{name}' must be uniform across active lanes, but lane {fl} holds {fv:#010x} and lane {lane} holds {v:#010x}",
                        inst.mnemonic
                    ),
                })
            }
            _ => {}
        }
    }
    Ok(first.map(|f| f.1).unwrap_or(0))
}

/// Runs `prog` from its first instruction. `regs` is indexed like `prog.regs` and updated in place.
pub fn run<B: SubgroupBackend + ?Sized>(
    prog: &Program,
    regs: &mut [Warp],
    activemask: u32,
    backend: &mut B,
    opts: &RunOptions,
    observer: &mut dyn FnMut(&Event<'_>),
) -> Result<RunStats, RunError> {
    assert_eq!(regs.len(), prog.regs.len(), "register file does not match the program");
    let mut stats = RunStats::default();
    let mut pc = 0usize;
    let active = |lane: usize| activemask >> lane & 1 != 0;
    while let Some(inst) = prog.insts.get(pc) {
        if stats.steps >= opts.max_steps {
            return Err(RunError {
                pos: inst.pos,
                message: format!("stopped after {} instructions (infinite loop?)", opts.max_steps),
            });
        }
        stats.steps += 1;
        pc += 1;
        match inst.kind {
            InstKind::Sg { op, dst, src0, src1, mask } => {
                let role = match op {
                    SgOp::Shfl { .. } => "src2 (mask)",
                    SgOp::RedFirstIdx => "src0 (mask)",
                    _ => "src1 (mask)",
                };
                let inputs = SgInputs {
                    src0: src0.map(|r| regs[r]).unwrap_or([0; LANES]),
                    src1: match src1 {
                        Some(s) => std::array::from_fn(|l| read(s, regs, l, activemask)),
                        None => [0; LANES],
                    },
                    mask: uniform(prog, mask, regs, activemask, inst, role)?,
                    activemask,
                };
                let outputs = backend.issue(op, &inputs).map_err(|e: BackendError| RunError {
                    pos: inst.pos,
                    message: format!("{}: {e}", inst.mnemonic),
                })?;
                stats.sg_issued += 1;
                outputs.write_back(&mut regs[dst]);
                observer(&Event::Sg { inst, op, inputs: &inputs, outputs: &outputs });
            }
            InstKind::Alu { op, ty, dst, a, b } => {
                for l in (0..LANES).filter(|&l| active(l)) {
                    let (x, y) = (read(a, regs, l, activemask), read(b, regs, l, activemask));
                    let r = match op {
                        AluOp::Add => x.wrapping_add(y),
                        AluOp::Sub => x.wrapping_sub(y),
                    };
                    regs[dst][l] = r & ty.mask();
                }
            }
            InstKind::Ucmp { cmp, ty, dst, a, b } => {
                for l in (0..LANES).filter(|&l| active(l)) {
                    let (x, y) = (read(a, regs, l, activemask), read(b, regs, l, activemask));
                    regs[dst][l] = cmp.eval(x & ty.mask(), y & ty.mask()) as u32;
                }
            }
            InstKind::Sel { ty, dst, a, b, p } => {
                for l in (0..LANES).filter(|&l| active(l)) {
                    let v = if regs[p][l] != 0 {
                        read(a, regs, l, activemask)
                    } else {
                        read(b, regs, l, activemask)
                    };
                    regs[dst][l] = v & ty.mask();
                }
            }
            InstKind::Goto { p, negate, target } => {
                let mut taken: Option<(usize, bool)> = None;
                for l in (0..LANES).filter(|&l| active(l)) {
                    let t = (regs[p][l] != 0) != negate;
                    match taken {
                        None => taken = Some((l, t)),
                        Some((fl, ft)) if ft != t => {
                            return Err(RunError {
                                pos: inst.pos,
                                message: format!(
                                    "divergent branch: predicate '%{}' is {} in lane {fl} but {} in lane {l}; control flow must be uniform",
                                    prog.regs[p].name, regs[p][fl], regs[p][l]
                                ),
                            })
                        }
                        _ => {}
                    }
                }
                if let Some((_, t)) = taken {
                    observer(&Event::Branch { inst, taken: t });
                    if t {
                        pc = target;
                    }
                }
            }
        }
    }
    Ok(stats)
}

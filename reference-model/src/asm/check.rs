//! Resolution and type checking: statements in, an executable [`Program`] out.

use std::collections::HashMap;

use super::parser::{parse, Operand, Stmt, StmtKind};
use super::{AsmError, Pos};
use crate::op::{FloatType, FredOp, IntType, IredOp, RegKind, SgOp, ShflMode};

/// Read-only special registers (§7 pseudocode names).
pub const SPECIAL_REGS: [&str; 2] = ["laneid", "activemask"];

/// One register of the program's register file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegInfo {
    /// Name without `%`.
    pub name: String,
    pub kind: RegKind,
    /// Where it was declared; `None` for a register supplied only by the caller's initial state
    /// (such a register is a 32-bit lane usable as any non-predicate type).
    pub declared: Option<Pos>,
}

/// A source operand after resolution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Src {
    Reg(usize),
    Imm(u32),
    LaneId,
    ActiveMask,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AluOp {
    Add,
    Sub,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpOp {
    pub fn eval(self, a: u32, b: u32) -> bool {
        match self {
            CmpOp::Eq => a == b,
            CmpOp::Ne => a != b,
            CmpOp::Lt => a < b,
            CmpOp::Le => a <= b,
            CmpOp::Gt => a > b,
            CmpOp::Ge => a >= b,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InstKind {
    /// A sub-group instruction. `src0` is the register of `shfl`/`fred`/`ired` (`None` for
    /// `redfirstidx`), `src1` the per-lane `src1` of `shfl`, `mask` the uniform mask operand.
    Sg {
        op: SgOp,
        dst: usize,
        src0: Option<usize>,
        src1: Option<Src>,
        mask: Src,
    },
    Alu {
        op: AluOp,
        ty: IntType,
        dst: usize,
        a: Src,
        b: Src,
    },
    Ucmp {
        cmp: CmpOp,
        ty: IntType,
        dst: usize,
        a: Src,
        b: Src,
    },
    Sel {
        ty: IntType,
        dst: usize,
        a: Src,
        b: Src,
        p: usize,
    },
    Goto {
        p: usize,
        negate: bool,
        target: usize,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inst {
    pub kind: InstKind,
    pub pos: Pos,
    /// The mnemonic as written, e.g. `shfl.dn.sg.32b`.
    pub mnemonic: String,
}

/// A checked program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    pub regs: Vec<RegInfo>,
    pub insts: Vec<Inst>,
}

impl Program {
    pub fn reg_index(&self, name: &str) -> Option<usize> {
        self.regs.iter().position(|r| r.name == name)
    }
}

/// Assembles `src`. `externals` names (without `%`) the registers the caller supplies initial
/// values for; they need no declaration.
pub fn assemble(src: &str, externals: &[&str]) -> Result<Program, AsmError> {
    let stmts = parse(src)?;
    let mut regs: Vec<RegInfo> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut labels: HashMap<String, (usize, Pos)> = HashMap::new();
    let mut n_insts = 0;
    // Pass 1: declarations and labels.
    for s in &stmts {
        match &s.kind {
            StmtKind::Decl { kind, names } => {
                for (n, p) in names {
                    if SPECIAL_REGS.contains(&n.as_str()) {
                        return Err(AsmError::new(
                            *p,
                            format!(
                                "'%{n}' is a read-only special register and cannot be declared"
                            ),
                        ));
                    }
                    if let Some(&i) = index.get(n) {
                        let first = regs[i].declared.unwrap_or_default();
                        return Err(AsmError::new(
                            *p,
                            format!("register '%{n}' is already declared at {first}"),
                        ));
                    }
                    index.insert(n.clone(), regs.len());
                    regs.push(RegInfo { name: n.clone(), kind: *kind, declared: Some(*p) });
                }
            }
            StmtKind::Label(l) => {
                if let Some((_, first)) = labels.get(l) {
                    return Err(AsmError::new(
                        s.pos,
                        format!("label '{l}' is already defined at {first}"),
                    ));
                }
                labels.insert(l.clone(), (n_insts, s.pos));
            }
            StmtKind::Inst { .. } => n_insts += 1,
        }
    }
    for e in externals {
        if !index.contains_key(*e) && !SPECIAL_REGS.contains(e) {
            index.insert(e.to_string(), regs.len());
            regs.push(RegInfo { name: e.to_string(), kind: RegKind::B32, declared: None });
        }
    }
    let cx = Checker { regs: &regs, index: &index, labels: &labels };
    let mut insts = Vec::with_capacity(n_insts);
    for s in &stmts {
        if let StmtKind::Inst { opcode, quals, operands } = &s.kind {
            insts.push(cx.inst(s, opcode, quals, operands)?);
        }
    }
    Ok(Program { regs, insts })
}

struct Checker<'a> {
    regs: &'a [RegInfo],
    index: &'a HashMap<String, usize>,
    labels: &'a HashMap<String, (usize, Pos)>,
}

/// What an operand position accepts.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Want {
    /// A register of this bit width (16 or 32), or a packed .v2.16b register.
    Bits(u32),
    Packed,
    Pred,
}

impl Want {
    fn describe(self) -> &'static str {
        match self {
            Want::Bits(16) => "a 16-bit register (.16b)",
            Want::Bits(_) => "a 32-bit register (.32b or .v2.16b)",
            Want::Packed => "a 2x16-bit vector register (.v2.16b)",
            Want::Pred => "a predicate (.pred)",
        }
    }
    fn accepts(self, r: &RegInfo) -> bool {
        if r.declared.is_none() {
            return self != Want::Pred; // caller-supplied 32-bit lane: any data type
        }
        match self {
            Want::Bits(16) => r.kind == RegKind::B16,
            Want::Bits(_) => matches!(r.kind, RegKind::B32 | RegKind::V2B16),
            Want::Packed => r.kind == RegKind::V2B16,
            Want::Pred => r.kind == RegKind::Pred,
        }
    }
}

/// The error for an operand that must be a register but is not; a bare word is most likely a
/// register written without its `%`.
fn not_a_register(o: &Operand, role: &str, want: Want) -> AsmError {
    let hint = match o {
        Operand::Label(l, _) => format!(", found '{l}' (registers start with '%': write '%{l}')"),
        _ => String::new(),
    };
    AsmError::new(o.pos(), format!("{role} must be {}{hint}", want.describe()))
}

/// One qualifier position of an opcode's syntax.
struct Slot {
    what: &'static str,
    options: &'static [&'static str],
    optional: bool,
}

const fn slot(what: &'static str, options: &'static [&'static str]) -> Slot {
    Slot { what, options, optional: false }
}
const fn opt(what: &'static str, options: &'static [&'static str]) -> Slot {
    Slot { what, options, optional: true }
}

fn list(opts: &[&str]) -> String {
    opts.iter().map(|o| format!(".{o}")).collect::<Vec<_>>().join(" ")
}

impl Checker<'_> {
    /// Matches `quals` against the syntax `slots`; returns the chosen option per slot.
    fn quals<'q>(
        &self,
        at: Pos,
        syntax: &str,
        quals: &'q [(String, Pos)],
        slots: &[Slot],
    ) -> Result<Vec<Option<&'q str>>, AsmError> {
        let mut chosen = Vec::with_capacity(slots.len());
        let mut qi = 0;
        for (si, s) in slots.iter().enumerate() {
            match quals.get(qi) {
                Some((q, _)) if s.options.contains(&q.as_str()) => {
                    chosen.push(Some(q.as_str()));
                    qi += 1;
                }
                Some((q, qp)) if !s.optional => {
                    let misplaced = slots
                        .iter()
                        .enumerate()
                        .any(|(j, o)| j != si && o.options.contains(&q.as_str()));
                    let msg = if misplaced {
                        format!("qualifier '.{q}' is out of order: the syntax is {syntax}")
                    } else {
                        format!(
                            "unknown {} '.{q}' (expected one of {}); the syntax is {syntax}",
                            s.what,
                            list(s.options)
                        )
                    };
                    return Err(AsmError::new(*qp, msg));
                }
                Some(_) => chosen.push(None),
                None if s.optional => chosen.push(None),
                None => {
                    return Err(AsmError::new(
                        at,
                        format!(
                            "missing {} qualifier (one of {}); the syntax is {syntax}",
                            s.what,
                            list(s.options)
                        ),
                    ))
                }
            }
        }
        if let Some((q, qp)) = quals.get(qi) {
            let earlier = slots.iter().any(|o| o.options.contains(&q.as_str()));
            let msg = if earlier {
                format!("qualifier '.{q}' is repeated or out of order: the syntax is {syntax}")
            } else {
                format!("unexpected qualifier '.{q}'; the syntax is {syntax}")
            };
            return Err(AsmError::new(*qp, msg));
        }
        Ok(chosen)
    }

    fn reg(&self, name: &str, pos: Pos) -> Result<usize, AsmError> {
        self.index.get(name).copied().ok_or_else(|| {
            AsmError::new(pos, format!("register '%{name}' is not declared (declare it with .reg/.pred or give it an initial value)"))
        })
    }

    /// A destination register.
    fn dst(&self, o: &Operand, want: Want, role: &str) -> Result<usize, AsmError> {
        match o {
            Operand::Reg(n, p) if SPECIAL_REGS.contains(&n.as_str()) => {
                Err(AsmError::new(*p, format!("{role}: '%{n}' is read-only")))
            }
            Operand::Reg(n, p) => {
                let i = self.reg(n, *p)?;
                self.typed(i, *p, want, role)
            }
            other => Err(not_a_register(other, role, want)),
        }
    }

    fn typed(&self, i: usize, p: Pos, want: Want, role: &str) -> Result<usize, AsmError> {
        let r = &self.regs[i];
        if want.accepts(r) {
            Ok(i)
        } else {
            Err(AsmError::new(
                p,
                format!(
                    "{role} must be {}, but '%{}' is declared {}",
                    want.describe(),
                    r.name,
                    r.kind.name()
                ),
            ))
        }
    }

    /// A source that must be a register (src0 of shfl/fred/ired).
    fn src_reg(&self, o: &Operand, want: Want, role: &str) -> Result<usize, AsmError> {
        match o {
            Operand::Reg(n, p) if SPECIAL_REGS.contains(&n.as_str()) => {
                Err(AsmError::new(*p, format!("{role} must be a general register, not '%{n}'")))
            }
            Operand::Reg(n, p) => self.typed(self.reg(n, *p)?, *p, want, role),
            other => Err(not_a_register(other, role, want)),
        }
    }

    /// A source that may be a register of `bits` width or an immediate.
    fn src(&self, o: &Operand, bits: u32, role: &str) -> Result<Src, AsmError> {
        match o {
            Operand::Reg(n, _) if n == "laneid" => Ok(Src::LaneId),
            Operand::Reg(n, _) if n == "activemask" => Ok(Src::ActiveMask),
            Operand::Reg(n, p) => Ok(Src::Reg(self.typed(self.reg(n, *p)?, *p, Want::Bits(bits), role)?)),
            Operand::Imm(v, p) => {
                let (lo, hi) = (-(1i128 << (bits - 1)), (1i128 << bits) - 1);
                if *v < lo || *v > hi {
                    return Err(AsmError::new(*p, format!("{role}: immediate {v} does not fit in {bits} bits")));
                }
                Ok(Src::Imm((*v as u32) & (((1u64 << bits) - 1) as u32)))
            }
            Operand::NotReg(n, p) => Err(AsmError::new(*p, format!("{role}: '!%{n}' is only allowed in goto.cond"))),
            Operand::Label(l, p) => Err(AsmError::new(*p, format!("{role}: expected a register or immediate, found '{l}' (registers start with '%')"))),
        }
    }

    fn arity(
        &self,
        s: &Stmt,
        opcode: &str,
        ops: &[Operand],
        names: &[&str],
    ) -> Result<(), AsmError> {
        if ops.len() != names.len() {
            return Err(AsmError::new(
                s.pos,
                format!(
                    "'{opcode}' takes {} operands ({}), found {}",
                    names.len(),
                    names.join(", "),
                    ops.len()
                ),
            ));
        }
        Ok(())
    }

    fn inst(
        &self,
        s: &Stmt,
        opcode: &str,
        quals: &[(String, Pos)],
        ops: &[Operand],
    ) -> Result<Inst, AsmError> {
        let mnemonic = std::iter::once(opcode.to_string())
            .chain(quals.iter().map(|(q, _)| format!(".{q}")))
            .collect::<String>();
        let at = s.pos;
        let int_ty = |q: Option<&str>| if q == Some("16b") { IntType::B16 } else { IntType::B32 };
        let kind = match opcode {
            "shfl" => {
                let syntax = "shfl.{up,dn,xor,idx}[.sg].32b dst, src0, src1, src2";
                let q = self.quals(at, syntax, quals, &[
                    slot("shuffle mode", &["up", "dn", "xor", "idx"]),
                    opt("sub-group qualifier", &["sg"]),
                    slot("type", &["32b"]),
                ])?;
                self.arity(s, "shfl", ops, &["dst", "src0", "src1", "src2"])?;
                let mode = match q[0] {
                    Some("up") => ShflMode::Up,
                    Some("dn") => ShflMode::Dn,
                    Some("xor") => ShflMode::Xor,
                    _ => ShflMode::Idx,
                };
                InstKind::Sg {
                    op: SgOp::Shfl { mode, sg: q[1].is_some() },
                    dst: self.dst(&ops[0], Want::Bits(32), "shfl dst")?,
                    src0: Some(self.src_reg(&ops[1], Want::Bits(32), "shfl src0")?),
                    src1: Some(self.src(&ops[2], 32, "shfl src1")?),
                    mask: self.src(&ops[3], 32, "shfl src2 (mask)")?,
                }
            }
            "fred" => {
                let syntax = "fred.{min,max,absmax}[.nanp].{f,hf,bf,hfx2,bfx2} dst, src0, src1";
                let q = self.quals(at, syntax, quals, &[
                    slot("reduction op", &["min", "max", "absmax"]),
                    opt("NaN qualifier", &["nanp"]),
                    slot("type", &["f", "hf", "bf", "hfx2", "bfx2"]),
                ])?;
                self.arity(s, "fred", ops, &["dst", "src0", "src1"])?;
                let op = match q[0] {
                    Some("min") => FredOp::Min,
                    Some("max") => FredOp::Max,
                    _ => FredOp::Absmax,
                };
                let ty = match q[2] {
                    Some("f") => FloatType::F,
                    Some("hf") => FloatType::Hf,
                    Some("bf") => FloatType::Bf,
                    Some("hfx2") => FloatType::Hfx2,
                    _ => FloatType::Bfx2,
                };
                let want = match ty {
                    FloatType::F => Want::Bits(32),
                    FloatType::Hf | FloatType::Bf => Want::Bits(16),
                    _ => Want::Packed,
                };
                InstKind::Sg {
                    op: SgOp::Fred { op, nanp: q[1].is_some(), ty },
                    dst: self.dst(&ops[0], want, "fred dst")?,
                    src0: Some(self.src_reg(&ops[1], want, "fred src0")?),
                    src1: None,
                    mask: self.src(&ops[2], 32, "fred src1 (mask)")?,
                }
            }
            "ired" => {
                let syntax = "ired.{sum,smin,smax,umin,umax,and,or,xor,absmax}.{16b,32b} dst, src0, src1";
                const NAMES: &[&str] = &["sum", "smin", "smax", "umin", "umax", "and", "or", "xor", "absmax"];
                let q = self.quals(at, syntax, quals, &[slot("reduction op", NAMES), slot("type", &["16b", "32b"])])?;
                self.arity(s, "ired", ops, &["dst", "src0", "src1"])?;
                let op = IredOp::ALL.into_iter().find(|o| Some(o.name()) == q[0]).unwrap_or(IredOp::Sum);
                let ty = int_ty(q[1]);
                let want = Want::Bits(ty.bits());
                InstKind::Sg {
                    op: SgOp::Ired { op, ty },
                    dst: self.dst(&ops[0], want, "ired dst")?,
                    src0: Some(self.src_reg(&ops[1], want, "ired src0")?),
                    src1: None,
                    mask: self.src(&ops[2], 32, "ired src1 (mask)")?,
                }
            }
            "redfirstidx" => {
                self.quals(at, "redfirstidx.32b dst, src0", quals, &[slot("type", &["32b"])])?;
                self.arity(s, "redfirstidx", ops, &["dst", "src0"])?;
                InstKind::Sg {
                    op: SgOp::RedFirstIdx,
                    dst: self.dst(&ops[0], Want::Bits(32), "redfirstidx dst")?,
                    src0: None,
                    src1: None,
                    mask: self.src(&ops[1], 32, "redfirstidx src0 (mask)")?,
                }
            }
            "iadd" | "isub" => {
                let syntax = format!("{opcode}.{{16b,32b}} dst, a, b");
                let q = self.quals(at, &syntax, quals, &[slot("type", &["16b", "32b"])])?;
                self.arity(s, opcode, ops, &["dst", "a", "b"])?;
                let ty = int_ty(q[0]);
                InstKind::Alu {
                    op: if opcode == "iadd" { AluOp::Add } else { AluOp::Sub },
                    ty,
                    dst: self.dst(&ops[0], Want::Bits(ty.bits()), &format!("{opcode} dst"))?,
                    a: self.src(&ops[1], ty.bits(), &format!("{opcode} a"))?,
                    b: self.src(&ops[2], ty.bits(), &format!("{opcode} b"))?,
                }
            }
            "ucmp" => {
                let syntax = "ucmp.{eq,ne,lt,le,gt,ge}.{16b,32b} p, a, b";
                let q = self.quals(at, syntax, quals, &[
                    slot("comparison", &["eq", "ne", "lt", "le", "gt", "ge"]),
                    slot("type", &["16b", "32b"]),
                ])?;
                self.arity(s, "ucmp", ops, &["p", "a", "b"])?;
                let cmp = match q[0] {
                    Some("eq") => CmpOp::Eq,
                    Some("ne") => CmpOp::Ne,
                    Some("lt") => CmpOp::Lt,
                    Some("le") => CmpOp::Le,
                    Some("gt") => CmpOp::Gt,
                    _ => CmpOp::Ge,
                };
                let ty = int_ty(q[1]);
                InstKind::Ucmp {
                    cmp,
                    ty,
                    dst: self.dst(&ops[0], Want::Pred, "ucmp p")?,
                    a: self.src(&ops[1], ty.bits(), "ucmp a")?,
                    b: self.src(&ops[2], ty.bits(), "ucmp b")?,
                }
            }
            "sel" => {
                let q = self.quals(at, "sel.{16b,32b} dst, a, b, p", quals, &[slot("type", &["16b", "32b"])])?;
                self.arity(s, "sel", ops, &["dst", "a", "b", "p"])?;
                let ty = int_ty(q[0]);
                InstKind::Sel {
                    ty,
                    dst: self.dst(&ops[0], Want::Bits(ty.bits()), "sel dst")?,
                    a: self.src(&ops[1], ty.bits(), "sel a")?,
                    b: self.src(&ops[2], ty.bits(), "sel b")?,
                    p: self.src_reg(&ops[3], Want::Pred, "sel p")?,
                }
            }
            "goto" => {
                self.quals(at, "goto.cond [!]p, label", quals, &[slot("condition", &["cond"])])?;
                self.arity(s, "goto", ops, &["p", "label"])?;
                let (p, negate) = match &ops[0] {
                    Operand::Reg(n, pp) => (self.src_reg(&ops[0], Want::Pred, "goto.cond p").map_err(|e| {
                        if SPECIAL_REGS.contains(&n.as_str()) { AsmError::new(*pp, "goto.cond p must be a predicate") } else { e }
                    })?, false),
                    Operand::NotReg(n, pp) => {
                        (self.typed(self.reg(n, *pp)?, *pp, Want::Pred, "goto.cond p")?, true)
                    }
                    other => return Err(AsmError::new(other.pos(), "goto.cond p must be a predicate register, optionally negated with '!'")),
                };
                let target = match &ops[1] {
                    Operand::Label(l, lp) => {
                        self.labels.get(l).map(|(t, _)| *t).ok_or_else(|| AsmError::new(*lp, format!("label '{l}' is not defined")))?
                    }
                    other => return Err(AsmError::new(other.pos(), "goto.cond: second operand must be a label")),
                };
                InstKind::Goto { p, negate, target }
            }
            other => {
                return Err(AsmError::new(
                    at,
                    format!("unknown instruction '{other}' (expected shfl, fred, ired, redfirstidx, iadd, isub, ucmp, sel or goto)"),
                ))
            }
        };
        Ok(Inst { kind, pos: at, mnemonic })
    }
}

//! Statements of PISA assembly (declarations, labels, instructions), not yet checked.

use super::lexer::{lex, Tok};
use super::{AsmError, Pos};
use crate::op::RegKind;

/// An instruction operand as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Operand {
    /// `%name`
    Reg(String, Pos),
    /// `!%name` (only `goto.cond`)
    NotReg(String, Pos),
    /// An integer literal.
    Imm(i128, Pos),
    /// A bare word: a label.
    Label(String, Pos),
}

impl Operand {
    pub fn pos(&self) -> Pos {
        match self {
            Operand::Reg(_, p)
            | Operand::NotReg(_, p)
            | Operand::Imm(_, p)
            | Operand::Label(_, p) => *p,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StmtKind {
    /// `.reg .type %a, %b;` or `.pred %p;`
    Decl { kind: RegKind, names: Vec<(String, Pos)> },
    /// `name:`
    Label(String),
    /// `opcode.qual.qual op, op, ...;`
    Inst { opcode: String, quals: Vec<(String, Pos)>, operands: Vec<Operand> },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub pos: Pos,
}

struct Cursor {
    toks: Vec<(Tok, Pos)>,
    i: usize,
    end: Pos,
}

impl Cursor {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.i).map(|t| &t.0)
    }
    fn pos(&self) -> Pos {
        self.toks.get(self.i).map(|t| t.1).unwrap_or(self.end)
    }
    fn next(&mut self) -> Option<(Tok, Pos)> {
        let t = self.toks.get(self.i).cloned();
        self.i += 1;
        t
    }
    fn found(&self) -> String {
        self.peek().map(Tok::describe).unwrap_or_else(|| "end of program".into())
    }
    fn expect_semi(&mut self, after: &str) -> Result<(), AsmError> {
        match self.peek() {
            Some(Tok::Semi) => {
                self.i += 1;
                Ok(())
            }
            _ => Err(AsmError::new(
                self.pos(),
                format!("expected ';' after {after}, found {}", self.found()),
            )),
        }
    }
}

/// Parses program text into statements.
pub fn parse(src: &str) -> Result<Vec<Stmt>, AsmError> {
    let toks = lex(src)?;
    let lines = src.split('\n').count() as u32;
    let last_len = src.rsplit('\n').next().map(|l| l.chars().count()).unwrap_or(0) as u32;
    let mut c = Cursor { toks, i: 0, end: Pos { line: lines.max(1), col: last_len + 1 } };
    let mut out = Vec::new();
    while let Some((tok, pos)) = c.next() {
        match tok {
            Tok::Qual(d) if d == "reg" => {
                let kind = parse_reg_type(&mut c, pos)?;
                let names = parse_reg_list(&mut c)?;
                c.expect_semi("register declaration")?;
                out.push(Stmt { kind: StmtKind::Decl { kind, names }, pos });
            }
            Tok::Qual(d) if d == "pred" => {
                let names = parse_reg_list(&mut c)?;
                c.expect_semi("predicate declaration")?;
                out.push(Stmt { kind: StmtKind::Decl { kind: RegKind::Pred, names }, pos });
            }
            Tok::Qual(d) => {
                return Err(AsmError::new(
                    pos,
                    format!("unknown directive '.{d}' (expected .reg or .pred)"),
                ))
            }
            Tok::Ident(name) if c.peek() == Some(&Tok::Colon) => {
                c.i += 1;
                out.push(Stmt { kind: StmtKind::Label(name), pos });
            }
            Tok::Ident(opcode) => {
                let mut quals = Vec::new();
                while let Some(Tok::Qual(q)) = c.peek() {
                    quals.push((q.clone(), c.pos()));
                    c.i += 1;
                }
                let mut operands = Vec::new();
                if c.peek() != Some(&Tok::Semi) {
                    loop {
                        operands.push(parse_operand(&mut c)?);
                        if c.peek() == Some(&Tok::Comma) {
                            c.i += 1;
                        } else {
                            break;
                        }
                    }
                }
                c.expect_semi(&format!("the operands of '{opcode}'"))?;
                out.push(Stmt { kind: StmtKind::Inst { opcode, quals, operands }, pos });
            }
            Tok::Semi => {} // empty statement
            other => {
                return Err(AsmError::new(
                    pos,
                    format!(
                        "expected an instruction, label or directive, found {}",
                        other.describe()
                    ),
                ))
            }
        }
    }
    Ok(out)
}

fn parse_reg_type(c: &mut Cursor, at: Pos) -> Result<RegKind, AsmError> {
    let err = |c: &Cursor| {
        AsmError::new(
            c.pos(),
            format!(
                "expected a register type (.32b, .16b or .v2.16b) after .reg, found {}",
                c.found()
            ),
        )
    };
    match c.peek() {
        Some(Tok::Qual(t)) if t == "32b" => {
            c.i += 1;
            Ok(RegKind::B32)
        }
        Some(Tok::Qual(t)) if t == "16b" => {
            c.i += 1;
            Ok(RegKind::B16)
        }
        Some(Tok::Qual(t)) if t == "v2" => {
            c.i += 1;
            match c.peek() {
                Some(Tok::Qual(t)) if t == "16b" => {
                    c.i += 1;
                    Ok(RegKind::V2B16)
                }
                _ => Err(AsmError::new(
                    c.pos(),
                    format!("only .v2.16b vectors exist, found .v2 followed by {}", c.found()),
                )),
            }
        }
        None => Err(AsmError::new(at, "expected a register type after .reg, found end of program")),
        _ => Err(err(c)),
    }
}

fn parse_reg_list(c: &mut Cursor) -> Result<Vec<(String, Pos)>, AsmError> {
    let mut names = Vec::new();
    loop {
        match c.next() {
            Some((Tok::Reg(n), p)) => names.push((n, p)),
            _ => {
                c.i -= 1;
                return Err(AsmError::new(
                    c.pos(),
                    format!("expected a register name, found {}", c.found()),
                ));
            }
        }
        if c.peek() == Some(&Tok::Comma) {
            c.i += 1;
        } else {
            return Ok(names);
        }
    }
}

fn parse_operand(c: &mut Cursor) -> Result<Operand, AsmError> {
    let pos = c.pos();
    match c.next() {
        Some((Tok::Reg(n), p)) => Ok(Operand::Reg(n, p)),
        Some((Tok::Num(v), p)) => Ok(Operand::Imm(v, p)),
        Some((Tok::Ident(n), p)) => Ok(Operand::Label(n, p)),
        Some((Tok::Bang, p)) => match c.next() {
            Some((Tok::Reg(n), _)) => Ok(Operand::NotReg(n, p)),
            _ => {
                c.i -= 1;
                Err(AsmError::new(
                    c.pos(),
                    format!("expected a predicate register after '!', found {}", c.found()),
                ))
            }
        },
        _ => {
            c.i -= 1;
            Err(AsmError::new(pos, format!("expected an operand, found {}", c.found())))
        }
    }
}

//! PISA assembly: lexer, parser and checker.
//!
//! [`assemble`] turns program text into a checked [`Program`]: every register resolved and
//! type-checked, every label resolved, every immediate range-checked. Errors carry the
//! `line:col` of the offending token. Syntax accepted (as in the spec's examples):
//!
//! ```text
//! .reg .32b %a, %b;   .reg .16b %h;   .reg .v2.16b %v;   .pred %p;
//! label:
//! shfl.{up,dn,xor,idx}[.sg].32b          dst, src0, src1, src2;
//! fred.{min,max,absmax}[.nanp].{f,hf,bf,hfx2,bfx2}   dst, src0, src1;
//! ired.{sum,smin,smax,umin,umax,and,or,xor,absmax}.{16b,32b}   dst, src0, src1;
//! redfirstidx.32b                        dst, src0;
//! iadd.{16b,32b} d, a, b;   isub.{16b,32b} d, a, b;          // wrap modulo 2^w
//! ucmp.{eq,ne,lt,le,gt,ge}.{16b,32b} p, a, b;                 // unsigned compare
//! sel.{16b,32b} d, a, b, p;                                   // d = p ? a : b
//! goto.cond [!]p, label;                                      // uniform branch
//! ```
//! `%laneid` and `%activemask` are read-only special registers.

mod check;
mod lexer;
mod parser;

pub use check::{assemble, AluOp, CmpOp, Inst, InstKind, Program, RegInfo, Src, SPECIAL_REGS};
pub use lexer::{lex, Tok};
pub use parser::{parse, Operand, Stmt, StmtKind};

use std::fmt;

/// A 1-based source position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Pos {
    pub line: u32,
    pub col: u32,
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// An assembly error: what is wrong and where.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{pos}: {message}")]
pub struct AsmError {
    pub pos: Pos,
    pub message: String,
}

impl AsmError {
    pub fn new(pos: Pos, message: impl Into<String>) -> Self {
        AsmError { pos, message: message.into() }
    }
}

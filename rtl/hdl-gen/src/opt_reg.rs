//! `opt_reg!(PRESENT, REG, D => Q)`: an optional pipeline register in one line. Rewritten, before
//! anything else reads the function, into
//!
//! ```text
//! for _r in 0..(PRESENT) {             // PRESENT: 0 or 1
//!     REG.clk_i.next = self.clk_i.val();
//!     REG.d_i.next = D;
//!     Q.next = REG.q_o.val();
//! }
//! for _w in 0..(1 - (PRESENT)) {
//!     Q.next = D;
//! }
//! ```
//! so `update()`, `connect()` and `hdl()` all see the two loops. `REG` is a `prims::PipeReg`
//! (it exists only where `PRESENT` is 1), `D` an expression, `Q` a signal or a submodule input.
//! `opt_reg!(PRESENT, REG, D => Q, reset)` is the same for a `prims::ValidReg`, whose `rst_ni`
//! takes `self.rst_ni` (between the clock and `d_i`).

use proc_macro2::TokenStream;
use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::{Block, Expr, Stmt, Token};

struct OptReg {
    present: Expr,
    reg: Expr,
    d: Expr,
    q: Expr,
    reset: bool,
}

impl Parse for OptReg {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let present = input.parse()?;
        input.parse::<Token![,]>()?;
        let reg = input.parse()?;
        input.parse::<Token![,]>()?;
        let d = input.parse()?;
        input.parse::<Token![=>]>()?;
        let q = input.parse()?;
        let reset = if input.is_empty() {
            false
        } else {
            input.parse::<Token![,]>()?;
            let word: syn::Ident = input.parse()?;
            if word != "reset" {
                return Err(syn::Error::new(word.span(), "expected `reset` or nothing after Q"));
            }
            true
        };
        Ok(OptReg { present, reg, d, q, reset })
    }
}

fn expand(tokens: TokenStream) -> syn::Result<Vec<Stmt>> {
    let OptReg { present, reg, d, q, reset } = syn::parse2(tokens)?;
    let rst = if reset { quote!(#reg.rst_ni.next = self.rst_ni.val();) } else { quote!() };
    let block: Block = syn::parse2(quote!({
        for _r in 0..(#present) {
            #reg.clk_i.next = self.clk_i.val();
            #rst
            #reg.d_i.next = #d;
            #q.next = #reg.q_o.val();
        }
        for _w in 0..(1 - (#present)) {
            #q.next = #d;
        }
    }))?;
    Ok(block.stmts)
}

fn is_opt_reg(m: &syn::Macro) -> bool {
    m.path.is_ident("opt_reg")
}

/// Rewrites every `opt_reg!` statement in `block`, at any depth of `for` and `if`.
pub(crate) fn desugar(block: &mut Block) -> syn::Result<()> {
    let mut out = Vec::with_capacity(block.stmts.len());
    for stmt in block.stmts.drain(..) {
        let mac = match &stmt {
            Stmt::Semi(Expr::Macro(m), _) | Stmt::Expr(Expr::Macro(m)) if is_opt_reg(&m.mac) => {
                Some(m.mac.tokens.clone())
            }
            Stmt::Item(syn::Item::Macro(m)) if is_opt_reg(&m.mac) => Some(m.mac.tokens.clone()),
            _ => None,
        };
        if let Some(tokens) = mac {
            out.extend(expand(tokens)?);
            continue;
        }
        let mut stmt = stmt;
        match &mut stmt {
            Stmt::Semi(e, _) | Stmt::Expr(e) => desugar_expr(e)?,
            _ => {}
        }
        out.push(stmt);
    }
    block.stmts = out;
    Ok(())
}

fn desugar_expr(e: &mut Expr) -> syn::Result<()> {
    match e {
        Expr::ForLoop(f) => desugar(&mut f.body),
        Expr::If(i) => {
            desugar(&mut i.then_branch)?;
            if let Some((_, els)) = &mut i.else_branch {
                desugar_expr(els)?;
            }
            Ok(())
        }
        Expr::Block(b) => desugar(&mut b.block),
        _ => Ok(()),
    }
}

//! `#[hdl_gen]` for the generator's trees: rust-hdl 0.46's attribute (`rust-hdl-macros`, MIT,
//! Samit Basu; `common.rs`, `connect_gen.rs` and `hdl_gen.rs` are its files) with two changes in
//! `hdl_gen.rs` (`hdl_for_loop`, `signal`), both in how `hdl()` is built, so that a tree can be
//! written once as a loop over its levels:
//!
//! - A `for` loop is unrolled in Rust when `hdl()` runs, so its bounds may use the variables of
//!   the loops around it (`for b in 1..K { for j in 0..(N >> b) { .. } }`); rust-hdl's own
//!   attribute evaluates every bound on its own, where outer loop variables do not exist.
//! - Every `[index]` in a signal's name is a Rust expression evaluated then
//!   (`self.n[b][j].a_i`); rust-hdl evaluates only a name's first index, with loop variables
//!   and literals only. An index may use loop variables, constants and arithmetic, not `self`
//!   (the name's text has lost `self.` and its dots by then).
//!
//! And one addition: `opt_reg!(PRESENT, REG, D => Q)`, an optional pipeline register in one line
//! (`opt_reg.rs`), rewritten into a register loop and a wire loop before the rest reads the
//! function.
//!
//! `update()` and `connect()` are the function as written, as with rust-hdl's attribute, and the
//! Verilog of a loop is the same text rust-hdl writes for it (it unrolls loops too): each
//! iteration is a one-pass rust-hdl loop that binds the loop variable where it stands alone
//! (`x.get_bit(i)`). `rtl/tests/hdl_gen_loops.rs` tests both changes and `opt_reg!`; the
//! snapshots (`rtl/tests/snapshots.rs`) pin the emitted text, and every simulation, lint and
//! proof reads it.

#![allow(clippy::all)]

mod common;
mod connect_gen;
mod hdl_gen;
mod opt_reg;

use proc_macro::TokenStream;
use quote::quote;
use syn::parse_macro_input;

use crate::connect_gen::connect_gen;
use crate::hdl_gen::hdl_gen_process;

/// rust-hdl's `#[hdl_gen]` with loops unrolled in Rust (see the crate documentation).
#[proc_macro_attribute]
pub fn hdl_gen(_attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut parse = parse_macro_input!(item as syn::ItemFn);
    if let Err(e) = opt_reg::desugar(&mut parse.block) {
        return e.to_compile_error().into();
    }
    let orig = quote!(#parse);
    let connects = match connect_gen(&parse) {
        Err(e) => return e.to_compile_error().into(),
        Ok(t) => t,
    };
    match hdl_gen_process(parse) {
        Err(e) => e.to_compile_error().into(),
        Ok(hdl_code) => TokenStream::from(quote! {
            #[allow(unreachable_patterns)]
            #orig

            #[allow(dead_code)]
            #[allow(unused_variables)]
            #[automatically_derived]
            #connects

            #[allow(dead_code)]
            #[allow(unused_variables)]
            #[automatically_derived]
            #hdl_code
        }),
    }
}

use syn::parse::{Parse, ParseStream};
use syn::{Expr, Token};

pub(crate) type TS = proc_macro2::TokenStream;

pub fn squash(x: &str) -> String {
    x.to_string().replace([' ', '\n'], "")
}

pub fn fixup_ident(x: String) -> String {
    let y = x
        .replace(' ', "")
        .replace("self.", "")
        .replace('.', "$")
        .replace("::", "$")
        .replace("&mut", "");
    assert_ne!(y, "config");
    assert_ne!(y, "input");
    assert_ne!(y, "output");
    y
}

// The dff_setup macro uses clock, dfflist arguments
#[derive(Debug)]
pub struct DFFSetupArgs {
    pub me: Expr,
    pub clock: Expr,
    pub dffs: Vec<Expr>,
}

impl Parse for DFFSetupArgs {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let clock: Expr;
        let mut dffs = Vec::new();

        let me: Expr = input.parse()?;
        input.parse::<Token![,]>()?;
        clock = input.parse()?;
        input.parse::<Token![,]>()?;
        while !input.is_empty() {
            let dff_name: Expr = input.parse()?;
            dffs.push(dff_name);
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
        }
        Ok(DFFSetupArgs { me, clock, dffs })
    }
}

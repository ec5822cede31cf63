//! The independent specifications (`formal/spec/*.v`), embedded so `pisa prove` works from any
//! directory. They are written from the PISA pseudocode, not generated from the rust-hdl source.

/// `pisa_spec_shfl #(N, K)`: shfl.{up,dn,xor,idx}[.sg] (§7.4).
pub const SHFL: &str = include_str!("../spec/pisa_spec_shfl.v");
/// `pisa_spec_reduce #(N, OP)`: fred (§7.1) and ired (§7.2) forms.
pub const REDUCE: &str = include_str!("../spec/pisa_spec_reduce.v");
/// `pisa_spec_lzc #(N)`: the redfirstidx search (§7.3).
pub const LZC: &str = include_str!("../spec/pisa_spec_lzc.v");

/// Every spec file as (file name, text).
pub const ALL: [(&str, &str); 3] =
    [("pisa_spec_shfl.v", SHFL), ("pisa_spec_reduce.v", REDUCE), ("pisa_spec_lzc.v", LZC)];

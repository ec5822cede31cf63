//! Conversions between lane words and rust-hdl bit vectors (tests and simulation harnesses).

use rust_hdl::prelude::*;

/// Lane words packed into a flat bus, lane 0 in bits `[31:0]`.
pub fn pack<const W: usize>(words: &[u32]) -> Bits<W> {
    let mut b = Bits::<W>::default();
    for (i, &w) in words.iter().enumerate() {
        b.set_bits::<32>(i * 32, (w as u64).into());
    }
    b
}

/// A lane mask as `Bits<N>`.
pub fn mask<const N: usize>(m: u32) -> Bits<N> {
    let mut b = Bits::<N>::default();
    for i in 0..N {
        b = b.replace_bit(i, m >> i & 1 != 0);
    }
    b
}

/// Bits `[31:0]` of a value as `u32`.
pub fn word<const W: usize>(b: Bits<W>) -> u32 {
    b.get_bits::<32>(0).to_u32()
}

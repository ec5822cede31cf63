//! Test values per dtype: varied, small, bitwise and float-special patterns.

use pisa_model::gen::Rng;
use pisa_model::quadrants::{Lanes, Num};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// Any value of the type (finite floats).
    Varied,
    /// Small non-negative integers (exact float sums).
    Small,
    /// Bit patterns: 0, all ones, single bits, MIN, MAX — for floats raw bit patterns.
    Bitwise,
    /// Floats: NaN, ±0, ±inf, subnormals; integers: MIN, MAX, 0, -1.
    Special,
}

pub const PATTERNS: [Pattern; 4] =
    [Pattern::Varied, Pattern::Small, Pattern::Bitwise, Pattern::Special];

pub trait TestValue: Num + PartialOrd {
    fn gen(rng: &mut Rng, p: Pattern) -> Self;
    /// Equal bits, or both NaN.
    fn same(a: Self, b: Self) -> bool;
    fn from_small(v: u32) -> Self;
}

pub fn lanes<T: TestValue>(rng: &mut Rng, p: Pattern) -> Lanes<T> {
    std::array::from_fn(|_| T::gen(rng, p))
}

macro_rules! ints {
    ($($t:ty),*) => {$(
        impl TestValue for $t {
            fn gen(rng: &mut Rng, p: Pattern) -> Self {
                let wide = rng.next_u64() as $t;
                match p {
                    Pattern::Varied => wide,
                    Pattern::Small => rng.below(8) as $t,
                    Pattern::Bitwise => match rng.below(4) {
                        0 => 0,
                        1 => !0,
                        2 => (1 as $t).wrapping_shl(rng.below(64)),
                        _ => !(1 as $t).wrapping_shl(rng.below(64)),
                    },
                    Pattern::Special => rng.pick(&[<$t>::MIN, <$t>::MAX, 0, (0 as $t).wrapping_sub(1), 1]),
                }
            }
            fn same(a: Self, b: Self) -> bool {
                a == b
            }
            fn from_small(v: u32) -> Self {
                v as $t
            }
        }
    )*};
}
ints!(i32, u32, i64, u64);

macro_rules! floats {
    ($($t:ty, $bits:ty, $specials:expr);*) => {$(
        impl TestValue for $t {
            fn gen(rng: &mut Rng, p: Pattern) -> Self {
                match p {
                    Pattern::Varied => (rng.u32() as f64 / u32::MAX as f64 * 2000.0 - 1000.0) as $t,
                    Pattern::Small => rng.below(8) as $t,
                    Pattern::Bitwise => <$t>::from_bits(rng.next_u64() as $bits),
                    Pattern::Special => <$t>::from_bits(rng.pick(&$specials)),
                }
            }
            fn same(a: Self, b: Self) -> bool {
                a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
            }
            fn from_small(v: u32) -> Self {
                v as $t
            }
        }
    )*};
}
floats!(
    f32, u32, [0x0000_0000u32, 0x8000_0000, 0x7F80_0000, 0xFF80_0000, 0x7FC0_0000, 0xFF80_0001, 0x7F80_0001, 0x0000_0001, 0x8000_0001, 0x3F80_0000, 0xBF80_0000];
    f64, u64, [0u64, 0x8000_0000_0000_0000, 0x7FF0_0000_0000_0000, 0xFFF0_0000_0000_0000, 0x7FF8_0000_0000_0000, 0x7FF0_0000_0000_0001, 0xFFF0_0000_0000_0001, 1, 0x8000_0000_0000_0001, 0x3FF0_0000_0000_0000, 0xBFF0_0000_0000_0000]
);

//! The dtypes of the quadrants subgroup API (i32, u32, f32, f64, i64, u64) as 32-bit words for
//! the 32-bit PISA unit, and their arithmetic for reductions and scans.
//!
//! 64-bit values move as two 32-bit instructions (low word, then high word). Integer arithmetic
//! wraps. Float `min`/`max` follow `fred`'s rules so that a reduction gives the same answer whether
//! it runs on `fred` or on a shuffle tree: NaN inputs are ignored unless both are NaN (then the
//! canonical quiet NaN), and -0.0 < +0.0.

use std::fmt::Debug;

/// A value one lane holds.
pub trait Value: Copy + PartialEq + Debug + Default + 'static {
    /// The dtype name used in the quadrants docs.
    const NAME: &'static str;
    /// 32-bit words per value: 1 or 2.
    const WORDS: usize;
    /// The low 32 bits.
    fn lo(self) -> u32;
    /// The high 32 bits (0 for 32-bit types).
    fn hi(self) -> u32;
    fn from_words(lo: u32, hi: u32) -> Self;
}

/// A predicate or head flag: any integer dtype (and `bool`); a lane's flag is set when it is not
/// zero, as quadrants lowers them (`i32(predicate != 0)`, `head_flag != 0`).
pub trait Flag: Copy + 'static {
    fn is_set(self) -> bool;
}

macro_rules! flags {
    ($($t:ty),*) => {$(
        impl Flag for $t {
            fn is_set(self) -> bool {
                self != 0
            }
        }
    )*};
}
flags!(i32, u32, i64, u64);

impl Flag for bool {
    fn is_set(self) -> bool {
        self
    }
}

/// Arithmetic for reductions and scans (`add`, `mul`, `min`, `max`).
pub trait Num: Value {
    const ZERO: Self;
    const ONE: Self;
    /// Identity of `min` (the largest value; +inf for floats).
    const MIN_IDENTITY: Self;
    /// Identity of `max` (the smallest value; -inf for floats).
    const MAX_IDENTITY: Self;
    fn add(a: Self, b: Self) -> Self;
    fn mul(a: Self, b: Self) -> Self;
    fn min(a: Self, b: Self) -> Self;
    fn max(a: Self, b: Self) -> Self;
    /// The `ired`/`fred` form that computes `min` (`max`: `true`) of this type in one instruction,
    /// if there is one.
    fn unit_minmax(max: bool) -> Option<crate::SgOp>;
    /// The `ired` form that computes `add` in one instruction, if there is one.
    fn unit_add() -> Option<crate::SgOp>;
}

/// Bitwise operations (`and`, `or`, `xor`): integer dtypes only.
pub trait Int: Num {
    const ALL_ONES: Self;
    fn and(a: Self, b: Self) -> Self;
    fn or(a: Self, b: Self) -> Self;
    fn xor(a: Self, b: Self) -> Self;
}

macro_rules! int32 {
    ($t:ty, $name:literal, $min:ident, $max:ident) => {
        impl Value for $t {
            const NAME: &'static str = $name;
            const WORDS: usize = 1;
            fn lo(self) -> u32 {
                self as u32
            }
            fn hi(self) -> u32 {
                0
            }
            fn from_words(lo: u32, _: u32) -> Self {
                lo as $t
            }
        }
        impl Num for $t {
            const ZERO: Self = 0;
            const ONE: Self = 1;
            const MIN_IDENTITY: Self = <$t>::MAX;
            const MAX_IDENTITY: Self = <$t>::MIN;
            fn add(a: Self, b: Self) -> Self {
                a.wrapping_add(b)
            }
            fn mul(a: Self, b: Self) -> Self {
                a.wrapping_mul(b)
            }
            fn min(a: Self, b: Self) -> Self {
                Ord::min(a, b)
            }
            fn max(a: Self, b: Self) -> Self {
                Ord::max(a, b)
            }
            fn unit_minmax(max: bool) -> Option<crate::SgOp> {
                let op = if max { crate::IredOp::$max } else { crate::IredOp::$min };
                Some(crate::SgOp::Ired { op, ty: crate::IntType::B32 })
            }
            fn unit_add() -> Option<crate::SgOp> {
                Some(crate::SgOp::Ired { op: crate::IredOp::Sum, ty: crate::IntType::B32 })
            }
        }
        impl Int for $t {
            const ALL_ONES: Self = !0;
            fn and(a: Self, b: Self) -> Self {
                a & b
            }
            fn or(a: Self, b: Self) -> Self {
                a | b
            }
            fn xor(a: Self, b: Self) -> Self {
                a ^ b
            }
        }
    };
}
int32!(i32, "i32", Smin, Smax);
int32!(u32, "u32", Umin, Umax);

macro_rules! int64 {
    ($t:ty, $name:literal) => {
        impl Value for $t {
            const NAME: &'static str = $name;
            const WORDS: usize = 2;
            fn lo(self) -> u32 {
                self as u64 as u32
            }
            fn hi(self) -> u32 {
                (self as u64 >> 32) as u32
            }
            fn from_words(lo: u32, hi: u32) -> Self {
                (lo as u64 | (hi as u64) << 32) as $t
            }
        }
        impl Num for $t {
            const ZERO: Self = 0;
            const ONE: Self = 1;
            const MIN_IDENTITY: Self = <$t>::MAX;
            const MAX_IDENTITY: Self = <$t>::MIN;
            fn add(a: Self, b: Self) -> Self {
                a.wrapping_add(b)
            }
            fn mul(a: Self, b: Self) -> Self {
                a.wrapping_mul(b)
            }
            fn min(a: Self, b: Self) -> Self {
                Ord::min(a, b)
            }
            fn max(a: Self, b: Self) -> Self {
                Ord::max(a, b)
            }
            fn unit_minmax(_: bool) -> Option<crate::SgOp> {
                None // the unit reduces 32-bit integers only
            }
            fn unit_add() -> Option<crate::SgOp> {
                None
            }
        }
        impl Int for $t {
            const ALL_ONES: Self = !0;
            fn and(a: Self, b: Self) -> Self {
                a & b
            }
            fn or(a: Self, b: Self) -> Self {
                a | b
            }
            fn xor(a: Self, b: Self) -> Self {
                a ^ b
            }
        }
    };
}
int64!(i64, "i64");
int64!(u64, "u64");

/// `fred`'s minimum rule on host floats: NaN ignored unless both are NaN (then `nan`),
/// -0.0 < +0.0.
macro_rules! fminmax {
    ($a:expr, $b:expr, $nan:expr, $max:expr) => {{
        let (a, b) = ($a, $b);
        match (a.is_nan(), b.is_nan()) {
            (true, true) => $nan,
            (true, false) => b,
            (false, true) => a,
            _ => {
                // total order on non-NaN values with -0 < +0
                let a_less = a < b || (a == b && a.is_sign_negative() && !b.is_sign_negative());
                if a_less != $max {
                    a
                } else {
                    b
                }
            }
        }
    }};
}

impl Value for f32 {
    const NAME: &'static str = "f32";
    const WORDS: usize = 1;
    fn lo(self) -> u32 {
        self.to_bits()
    }
    fn hi(self) -> u32 {
        0
    }
    fn from_words(lo: u32, _: u32) -> Self {
        f32::from_bits(lo)
    }
}

impl Num for f32 {
    const ZERO: Self = 0.0;
    const ONE: Self = 1.0;
    const MIN_IDENTITY: Self = f32::INFINITY;
    const MAX_IDENTITY: Self = f32::NEG_INFINITY;
    fn add(a: Self, b: Self) -> Self {
        a + b
    }
    fn mul(a: Self, b: Self) -> Self {
        a * b
    }
    fn min(a: Self, b: Self) -> Self {
        fminmax!(a, b, f32::from_bits(0x7FFF_FFFF), false)
    }
    fn max(a: Self, b: Self) -> Self {
        fminmax!(a, b, f32::from_bits(0x7FFF_FFFF), true)
    }
    fn unit_minmax(max: bool) -> Option<crate::SgOp> {
        let op = if max { crate::FredOp::Max } else { crate::FredOp::Min };
        Some(crate::SgOp::Fred { op, nanp: false, ty: crate::FloatType::F })
    }
    fn unit_add() -> Option<crate::SgOp> {
        None
    }
}

impl Value for f64 {
    const NAME: &'static str = "f64";
    const WORDS: usize = 2;
    fn lo(self) -> u32 {
        self.to_bits() as u32
    }
    fn hi(self) -> u32 {
        (self.to_bits() >> 32) as u32
    }
    fn from_words(lo: u32, hi: u32) -> Self {
        f64::from_bits(lo as u64 | (hi as u64) << 32)
    }
}

impl Num for f64 {
    const ZERO: Self = 0.0;
    const ONE: Self = 1.0;
    const MIN_IDENTITY: Self = f64::INFINITY;
    const MAX_IDENTITY: Self = f64::NEG_INFINITY;
    fn add(a: Self, b: Self) -> Self {
        a + b
    }
    fn mul(a: Self, b: Self) -> Self {
        a * b
    }
    fn min(a: Self, b: Self) -> Self {
        fminmax!(a, b, f64::from_bits(0x7FFF_FFFF_FFFF_FFFF), false)
    }
    fn max(a: Self, b: Self) -> Self {
        fminmax!(a, b, f64::from_bits(0x7FFF_FFFF_FFFF_FFFF), true)
    }
    fn unit_minmax(_: bool) -> Option<crate::SgOp> {
        None // fred has no 64-bit float type
    }
    fn unit_add() -> Option<crate::SgOp> {
        None
    }
}

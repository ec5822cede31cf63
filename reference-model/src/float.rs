//! Bit-level facts about the three float formats of `fred` (§7.1): binary32 (`.f`), binary16
//! (`.hf`) and bfloat16 (`.bf`).
//!
//! The model never converts to a host float: it orders floats through the sign-magnitude to
//! biased-integer transform [`FloatFormat::order_key`], which is exact for every encoding including
//! subnormals and orders -0.0 below +0.0 (the pinned decision in `docs/spec-notes.md`).

/// Width, NaN test and canonical NaN of one float format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FloatFormat {
    /// Width in bits (16 or 32).
    pub bits: u32,
    /// The sign bit.
    pub sign: u32,
    /// All bits but the sign bit.
    pub magnitude: u32,
    /// Encoding of +infinity: exponent all ones, mantissa 0. A magnitude above it is a NaN.
    pub infinity: u32,
    /// The canonical quiet NaN every NaN result is written as.
    pub canonical_nan: u32,
}

/// IEEE 754 binary32.
pub const F32: FloatFormat = FloatFormat {
    bits: 32,
    sign: 0x8000_0000,
    magnitude: 0x7FFF_FFFF,
    infinity: 0x7F80_0000,
    canonical_nan: 0x7FFF_FFFF,
};

/// IEEE 754 binary16.
pub const F16: FloatFormat = FloatFormat {
    bits: 16,
    sign: 0x8000,
    magnitude: 0x7FFF,
    infinity: 0x7C00,
    canonical_nan: 0x7FFF,
};

/// bfloat16 (binary32 with the low 16 mantissa bits dropped).
pub const BF16: FloatFormat = FloatFormat {
    bits: 16,
    sign: 0x8000,
    magnitude: 0x7FFF,
    infinity: 0x7F80,
    canonical_nan: 0x7FFF,
};

impl FloatFormat {
    /// All-ones mask of the format's width.
    #[inline(always)]
    pub const fn width_mask(&self) -> u32 {
        self.sign | self.magnitude
    }

    /// True for every NaN encoding, signalling or quiet, with any payload and either sign.
    #[inline(always)]
    pub const fn is_nan(&self, x: u32) -> bool {
        (x & self.magnitude) > self.infinity
    }

    /// Maps a float encoding to an unsigned key whose integer order is the IEEE order of the
    /// non-NaN values, with -0.0 < +0.0: negative values get all bits inverted, positive values get
    /// the sign bit set.
    #[inline(always)]
    pub const fn order_key(&self, x: u32) -> u32 {
        if x & self.sign != 0 {
            !x & self.width_mask()
        } else {
            x | self.sign
        }
    }

    /// Inverse of [`FloatFormat::order_key`].
    #[inline(always)]
    pub const fn from_order_key(&self, k: u32) -> u32 {
        if k & self.sign != 0 {
            k & self.magnitude
        } else {
            !k & self.width_mask()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_key_is_monotone_on_f32_samples() {
        let samples = [
            f32::NEG_INFINITY,
            -f32::MAX,
            -1.0,
            -f32::MIN_POSITIVE,
            -1e-45, // largest negative subnormal
            -0.0,
            0.0,
            1e-45,
            f32::MIN_POSITIVE,
            1.0,
            f32::MAX,
            f32::INFINITY,
        ];
        for w in samples.windows(2) {
            let (a, b) = (w[0].to_bits(), w[1].to_bits());
            assert!(F32.order_key(a) < F32.order_key(b), "{} !< {}", w[0], w[1]);
        }
        for x in samples {
            assert_eq!(F32.from_order_key(F32.order_key(x.to_bits())), x.to_bits());
        }
    }

    #[test]
    fn nan_tests_match_host_floats() {
        for bits in [0x7F80_0001u32, 0xFFC0_0000, 0x7FFF_FFFF, 0x7F80_0000, 0xFF80_0000, 0] {
            assert_eq!(F32.is_nan(bits), f32::from_bits(bits).is_nan());
        }
        for bits in 0..=0xFFFFu32 {
            assert_eq!(F16.is_nan(bits), half::f16::from_bits(bits as u16).is_nan(), "{bits:#x}");
            assert_eq!(BF16.is_nan(bits), half::bf16::from_bits(bits as u16).is_nan(), "{bits:#x}");
        }
    }
}

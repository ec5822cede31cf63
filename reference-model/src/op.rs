//! The sub-group instruction forms of PISA §7 and their binary encoding on the unit's `op_i` port.
//!
//! One [`SgOp`] value names one instruction form, e.g. `shfl.idx.sg.32b` or `fred.max.nanp.bfx2`.
//! Its [`Display`](std::fmt::Display) is the assembly mnemonic, and [`SgOp::encode`] /
//! [`SgOp::decode`] give the 8-bit opcode that the RTL unit decodes:
//!
//! ```text
//!  bit   7 6   5 4 3       2       1 0
//!       class  ....................................
//!       00     0 0 0       sg      mode   shfl  (mode: up=0 dn=1 xor=2 idx=3)
//!       01     type        nanp    op     fred  (op: min=0 max=1 absmax=2;
//!                                                 type: f=0 hf=1 bf=2 hfx2=3 bfx2=4)
//!       10     0 w16 op[3] op[2:0] ...    ired  (op[3:0]: sum=0 smin=1 smax=2 umin=3 umax=4
//!                                                 and=5 or=6 xor=7 absmax=8; w16: .16b)
//!       11     0 0 0       0       0 0    redfirstidx
//! ```
//! For `ired` the 4-bit op occupies bits [3:0] and `.16b` is bit 4. Every other code is reserved:
//! [`SgOp::decode`] rejects it and the RTL unit writes no lane for it.

use std::fmt;
use std::str::FromStr;

/// Number of work-items (lanes) in a PISA sub-group.
pub const LANES: usize = 32;

/// The mask with one bit per lane of an `N`-lane unit.
#[inline(always)]
pub const fn lane_mask<const N: usize>() -> u32 {
    if N >= 32 {
        u32::MAX
    } else {
        (1u32 << N) - 1
    }
}

/// One 32-bit register across all lanes; index = `%laneid`.
pub type Warp = [u32; LANES];

/// `shfl` data-movement mode (§7.4 `.op`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ShflMode {
    Up,
    Dn,
    Xor,
    Idx,
}

/// `fred` operation (§7.1 `.op`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FredOp {
    Min,
    Max,
    Absmax,
}

/// `fred` element type (§7.1 `.type`); the `x2` types are two 16-bit elements per lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FloatType {
    /// IEEE binary32.
    F,
    /// IEEE binary16.
    Hf,
    /// bfloat16.
    Bf,
    /// Two binary16 elements; element 0 in bits [15:0].
    Hfx2,
    /// Two bfloat16 elements; element 0 in bits [15:0].
    Bfx2,
}

/// `ired` operation (§7.2 `.op`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IredOp {
    Sum,
    Smin,
    Smax,
    Umin,
    Umax,
    And,
    Or,
    Xor,
    Absmax,
}

/// `ired` integer width (§7.2 `.type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IntType {
    B16,
    B32,
}

/// One sub-group instruction form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SgOp {
    Shfl { mode: ShflMode, sg: bool },
    Fred { op: FredOp, nanp: bool, ty: FloatType },
    Ired { op: IredOp, ty: IntType },
    RedFirstIdx,
}

impl ShflMode {
    pub const ALL: [ShflMode; 4] = [ShflMode::Up, ShflMode::Dn, ShflMode::Xor, ShflMode::Idx];
    pub fn name(self) -> &'static str {
        match self {
            ShflMode::Up => "up",
            ShflMode::Dn => "dn",
            ShflMode::Xor => "xor",
            ShflMode::Idx => "idx",
        }
    }
}

impl FredOp {
    pub const ALL: [FredOp; 3] = [FredOp::Min, FredOp::Max, FredOp::Absmax];
    pub fn name(self) -> &'static str {
        match self {
            FredOp::Min => "min",
            FredOp::Max => "max",
            FredOp::Absmax => "absmax",
        }
    }
}

impl FloatType {
    pub const ALL: [FloatType; 5] =
        [FloatType::F, FloatType::Hf, FloatType::Bf, FloatType::Hfx2, FloatType::Bfx2];
    pub fn name(self) -> &'static str {
        match self {
            FloatType::F => "f",
            FloatType::Hf => "hf",
            FloatType::Bf => "bf",
            FloatType::Hfx2 => "hfx2",
            FloatType::Bfx2 => "bfx2",
        }
    }
    /// Register width the type occupies (the §7.1 restriction "bitwidth of dst and src0 must match").
    pub fn reg_kind(self) -> RegKind {
        match self {
            FloatType::F => RegKind::B32,
            FloatType::Hf | FloatType::Bf => RegKind::B16,
            FloatType::Hfx2 | FloatType::Bfx2 => RegKind::V2B16,
        }
    }
}

impl IredOp {
    pub const ALL: [IredOp; 9] = [
        IredOp::Sum,
        IredOp::Smin,
        IredOp::Smax,
        IredOp::Umin,
        IredOp::Umax,
        IredOp::And,
        IredOp::Or,
        IredOp::Xor,
        IredOp::Absmax,
    ];
    pub fn name(self) -> &'static str {
        match self {
            IredOp::Sum => "sum",
            IredOp::Smin => "smin",
            IredOp::Smax => "smax",
            IredOp::Umin => "umin",
            IredOp::Umax => "umax",
            IredOp::And => "and",
            IredOp::Or => "or",
            IredOp::Xor => "xor",
            IredOp::Absmax => "absmax",
        }
    }
}

impl IntType {
    pub const ALL: [IntType; 2] = [IntType::B16, IntType::B32];
    pub fn name(self) -> &'static str {
        match self {
            IntType::B16 => "16b",
            IntType::B32 => "32b",
        }
    }
    pub fn bits(self) -> u32 {
        match self {
            IntType::B16 => 16,
            IntType::B32 => 32,
        }
    }
    /// All-ones mask of the type's width.
    pub fn mask(self) -> u32 {
        match self {
            IntType::B16 => 0xFFFF,
            IntType::B32 => 0xFFFF_FFFF,
        }
    }
    pub fn reg_kind(self) -> RegKind {
        match self {
            IntType::B16 => RegKind::B16,
            IntType::B32 => RegKind::B32,
        }
    }
}

/// Kind of a declared register (`.reg .32b`, `.reg .16b`, `.reg .v2.16b`, `.pred`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RegKind {
    B32,
    B16,
    V2B16,
    Pred,
}

impl RegKind {
    pub fn name(self) -> &'static str {
        match self {
            RegKind::B32 => ".32b",
            RegKind::B16 => ".16b",
            RegKind::V2B16 => ".v2.16b",
            RegKind::Pred => ".pred",
        }
    }
    /// Largest value a lane of this register can hold.
    pub fn max_value(self) -> u32 {
        match self {
            RegKind::B32 | RegKind::V2B16 => u32::MAX,
            RegKind::B16 => 0xFFFF,
            RegKind::Pred => 1,
        }
    }
}

impl SgOp {
    /// Every instruction form of §7, in a fixed order (57 forms).
    pub fn all() -> Vec<SgOp> {
        let mut v = Vec::new();
        for mode in ShflMode::ALL {
            for sg in [false, true] {
                v.push(SgOp::Shfl { mode, sg });
            }
        }
        for op in FredOp::ALL {
            for nanp in [false, true] {
                for ty in FloatType::ALL {
                    v.push(SgOp::Fred { op, nanp, ty });
                }
            }
        }
        for op in IredOp::ALL {
            for ty in IntType::ALL {
                v.push(SgOp::Ired { op, ty });
            }
        }
        v.push(SgOp::RedFirstIdx);
        v
    }

    /// The 8-bit `op_i` code of this form (see the module documentation).
    pub fn encode(self) -> u8 {
        match self {
            SgOp::Shfl { mode, sg } => (mode as u8) | ((sg as u8) << 2),
            SgOp::Fred { op, nanp, ty } => {
                0x40 | (op as u8) | ((nanp as u8) << 2) | ((ty as u8) << 3)
            }
            SgOp::Ired { op, ty } => 0x80 | (op as u8) | (((ty == IntType::B16) as u8) << 4),
            SgOp::RedFirstIdx => 0xC0,
        }
    }

    /// Inverse of [`SgOp::encode`]; `None` for a reserved code.
    pub fn decode(code: u8) -> Option<SgOp> {
        let low = code & 0x3F;
        match code >> 6 {
            0 => {
                if low >> 3 != 0 {
                    return None;
                }
                Some(SgOp::Shfl { mode: ShflMode::ALL[(low & 3) as usize], sg: low & 4 != 0 })
            }
            1 => {
                let op = *FredOp::ALL.get((low & 3) as usize)?;
                let ty = *FloatType::ALL.get((low >> 3) as usize)?;
                Some(SgOp::Fred { op, nanp: low & 4 != 0, ty })
            }
            2 => {
                if low >> 5 != 0 {
                    return None;
                }
                let op = *IredOp::ALL.get((low & 0xF) as usize)?;
                let ty = if low & 0x10 != 0 { IntType::B16 } else { IntType::B32 };
                Some(SgOp::Ired { op, ty })
            }
            _ => (low == 0).then_some(SgOp::RedFirstIdx),
        }
    }

    /// The instruction's base opcode name (`shfl`, `fred`, `ired`, `redfirstidx`).
    pub fn opcode(self) -> &'static str {
        match self {
            SgOp::Shfl { .. } => "shfl",
            SgOp::Fred { .. } => "fred",
            SgOp::Ired { .. } => "ired",
            SgOp::RedFirstIdx => "redfirstidx",
        }
    }
}

impl fmt::Display for SgOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            SgOp::Shfl { mode, sg } => {
                write!(f, "shfl.{}{}.32b", mode.name(), if sg { ".sg" } else { "" })
            }
            SgOp::Fred { op, nanp, ty } => {
                write!(f, "fred.{}{}.{}", op.name(), if nanp { ".nanp" } else { "" }, ty.name())
            }
            SgOp::Ired { op, ty } => write!(f, "ired.{}.{}", op.name(), ty.name()),
            SgOp::RedFirstIdx => f.write_str("redfirstidx.32b"),
        }
    }
}

/// Error of [`SgOp::from_str`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not a sub-group instruction form (e.g. shfl.idx.32b, fred.max.nanp.f, ired.sum.16b, redfirstidx.32b)")]
pub struct UnknownForm(pub String);

impl FromStr for SgOp {
    type Err = UnknownForm;
    /// Parses a mnemonic exactly as [`Display`](fmt::Display) writes it.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        // every form's mnemonic, written once per process (formatting all 57 on each parse
        // cost about 4 us, more than running the form on a warp)
        static MNEMONICS: std::sync::OnceLock<std::collections::HashMap<String, SgOp>> =
            std::sync::OnceLock::new();
        let table = MNEMONICS
            .get_or_init(|| SgOp::all().into_iter().map(|op| (op.to_string(), op)).collect());
        table.get(s).copied().ok_or_else(|| UnknownForm(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoding_is_a_bijection_on_the_57_forms() {
        let all = SgOp::all();
        assert_eq!(all.len(), 57);
        let mut seen = std::collections::HashSet::new();
        for op in &all {
            assert!(seen.insert(op.encode()), "duplicate code for {op}");
            assert_eq!(SgOp::decode(op.encode()), Some(*op));
        }
        let decodable = (0..=255u8).filter(|c| SgOp::decode(*c).is_some()).count();
        assert_eq!(decodable, 57, "every code that decodes is one of the forms");
    }

    #[test]
    fn mnemonics_round_trip() {
        for op in SgOp::all() {
            assert_eq!(op.to_string().parse::<SgOp>(), Ok(op));
        }
        assert!("shfl.sg.idx.32b".parse::<SgOp>().is_err());
    }
}

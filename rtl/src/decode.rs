//! The facts of the opcode encoding that the unit's decode compares against, taken from the
//! model (`pisa_model::op`), never restated as literals: the class codes of `op_i[7:6]` and the
//! limits of each class's fields. `SgOp::encode` / `SgOp::decode` define the encoding;
//! `rtl/tests/integration.rs` checks the emitted decode against `SgOp::decode` on all 256 codes.
//!
//! Field layout (as `SgOp::encode` writes it): `shfl` `mode[1:0] sg[2]`, bits 5:3 zero;
//! `fred` `op[1:0] nanp[2] type[5:3]`; `ired` `op[3:0] b16[4]`, bit 5 zero; `redfirstidx` bits 5:0
//! zero.

use pisa_model::op::{FloatType, FredOp, IntType, IredOp, ShflMode};
use pisa_model::SgOp;

/// `op_i[7:6]` of `form`'s class.
fn class(form: SgOp) -> u64 {
    u64::from(form.encode() >> 6)
}

/// The class code of `shfl`.
pub fn class_shfl() -> u64 {
    class(SgOp::Shfl { mode: ShflMode::Up, sg: false })
}

/// The class code of `fred`.
pub fn class_fred() -> u64 {
    class(SgOp::Fred { op: FredOp::Min, nanp: false, ty: FloatType::F })
}

/// The class code of `ired`.
pub fn class_ired() -> u64 {
    class(SgOp::Ired { op: IredOp::ALL[0], ty: IntType::B32 })
}

/// The class code of `redfirstidx`.
pub fn class_redfirstidx() -> u64 {
    class(SgOp::RedFirstIdx)
}

/// The one value of `fred`'s 2-bit op field that names no operation (the decode tests `!=`).
pub fn fred_op_reserved() -> u64 {
    assert_eq!(FredOp::ALL.len(), 3, "the fred decode assumes one reserved op code of four");
    FredOp::ALL.len() as u64
}

/// The largest valid value of `fred`'s type field (`op_i[5:3]`).
pub fn fred_type_last() -> u64 {
    FloatType::ALL.len() as u64 - 1
}

/// The largest valid value of `ired`'s op field (`op_i[3:0]`).
pub fn ired_op_last() -> u64 {
    IredOp::ALL.len() as u64 - 1
}

/// `fred`'s op field (`op_i[1:0]`) for `op`, as `SgOp::encode` writes it.
pub fn fred_op(op: FredOp) -> u64 {
    u64::from(SgOp::Fred { op, nanp: false, ty: FloatType::F }.encode() & 3)
}

/// `fred`'s type field (`op_i[5:3]`) for `ty`, as `SgOp::encode` writes it.
pub fn fred_type(ty: FloatType) -> u64 {
    u64::from((SgOp::Fred { op: FredOp::Min, nanp: false, ty }.encode() >> 3) & 7)
}

/// `ired`'s op field (`op_i[3:0]`) for `op`, as `SgOp::encode` writes it.
pub fn ired_op(op: IredOp) -> u64 {
    u64::from(SgOp::Ired { op, ty: IntType::B32 }.encode() & 0xF)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The derived facts describe exactly the codes `SgOp::decode` accepts (the decode's logic
    /// written out here independently of the RTL).
    #[test]
    fn facts_describe_the_valid_codes() {
        for code in 0..=255u8 {
            let (cls, low) = (u64::from(code >> 6), u64::from(code & 0x3F));
            let valid = if cls == class_shfl() {
                low >> 3 == 0
            } else if cls == class_fred() {
                low & 3 != fred_op_reserved() && low >> 3 <= fred_type_last()
            } else if cls == class_ired() {
                low >> 5 == 0 && low & 0xF <= ired_op_last()
            } else {
                low == 0
            };
            assert_eq!(valid, SgOp::decode(code).is_some(), "{code:#04x}");
        }
    }

    /// The field codes put back together give each form's code.
    #[test]
    fn field_codes_compose_the_encoding() {
        for op in SgOp::all() {
            let code = u64::from(op.encode());
            match op {
                SgOp::Fred { op, nanp, ty } => assert_eq!(
                    code,
                    class_fred() << 6 | fred_op(op) | u64::from(nanp) << 2 | fred_type(ty) << 3
                ),
                SgOp::Ired { op, ty } => assert_eq!(
                    code,
                    class_ired() << 6 | ired_op(op) | u64::from(ty == IntType::B16) << 4
                ),
                _ => {}
            }
        }
        assert_eq!(fred_type_last(), fred_type(*FloatType::ALL.last().unwrap()));
        assert_eq!(ired_op_last(), ired_op(*IredOp::ALL.last().unwrap()));
    }
}

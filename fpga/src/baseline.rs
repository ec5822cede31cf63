//! The behavioural baselines of `fpga/baseline/`: plain Verilog of each block, written without
//! regard to the fabric, synthesized beside the RTL so that a QoR report gives a ratio against
//! a straightforward implementation of the same work.
//!
//! | block | baseline |
//! |---|---|
//! | `xbar` | per lane, srcLane from the pseudocode and a variable part-select of `src0` |
//! | `reduce` | one binary tree whose every node computes each form's combine and picks one |
//! | `lzc` | a loop that keeps the lowest set bit |
//! | `unit` | the three side by side, the opcode decoded from the encoding table, a plain output mux |

const XBAR: &str = include_str!("../baseline/pisa_base_xbar.v");
const REDUCE: &str = include_str!("../baseline/pisa_base_reduce.v");
const LZC: &str = include_str!("../baseline/pisa_base_lzc.v");
const UNIT: &str = include_str!("../baseline/pisa_base_unit.v");

/// A baseline's top module and its files.
pub struct Baseline {
    pub top: String,
    /// `(file name, text)`, with the lane parameters set.
    pub files: Vec<(&'static str, String)>,
}

/// The baseline of `block` (`unit`, `xbar`, `reduce` or `lzc`) for `lanes` lanes.
pub fn sources(block: &str, lanes: usize) -> Result<Baseline, String> {
    if !lanes.is_power_of_two() || !(4..=32).contains(&lanes) {
        return Err(format!("baseline: {lanes} lanes (use 4, 8, 16 or 32)"));
    }
    let k = lanes.trailing_zeros();
    // each file declares N = 32 (the crossbar also K = 5) as its default
    let set = |t: &str| {
        t.replace("parameter integer N = 32", &format!("parameter integer N = {lanes}"))
            .replace("parameter integer K = 5", &format!("parameter integer K = {k}"))
    };
    let files = match block {
        "xbar" => vec![("pisa_base_xbar.v", set(XBAR))],
        "lzc" => vec![("pisa_base_lzc.v", set(LZC))],
        "reduce" => vec![("pisa_base_reduce.v", set(REDUCE))],
        "unit" => vec![
            ("pisa_base_unit.v", set(UNIT)),
            ("pisa_base_xbar.v", set(XBAR)),
            ("pisa_base_reduce.v", set(REDUCE)),
            ("pisa_base_lzc.v", set(LZC)),
        ],
        other => return Err(format!("baseline: no baseline of block '{other}'")),
    };
    Ok(Baseline { top: format!("pisa_base_{block}"), files })
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_file_has_its_lane_parameter() {
        for text in [super::XBAR, super::REDUCE, super::LZC, super::UNIT] {
            assert!(text.contains("parameter integer N = 32"));
        }
        let b = super::sources("unit", 8).unwrap();
        assert_eq!(b.top, "pisa_base_unit");
        assert!(b.files.iter().all(|(_, t)| t.contains("parameter integer N = 8")));
        assert!(b.files[0].1.contains("parameter integer K = 3"));
        assert!(super::sources("alu", 8).is_err() && super::sources("xbar", 12).is_err());
    }
}

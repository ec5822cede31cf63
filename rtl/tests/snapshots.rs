//! insta snapshots of the emitted Verilog: every change of generated RTL shows up in review.
//! The 4-lane units are snapshotted whole; the default 32-lane unit by module hashes.
//! Update with `cargo insta review` (or INSTA_UPDATE=always) after checking the diff.

use pisa_rtl::design::{design, BlockName};
use pisa_rtl::UnitConfig;

#[test]
fn unit_l4_combinational() {
    let d = design(&UnitConfig::new(4, 0).unwrap(), BlockName::Unit, "pisa_sg").unwrap();
    insta::assert_snapshot!(d.combined());
}

#[test]
fn unit_l4_two_stages() {
    let d = design(&UnitConfig::new(4, 2).unwrap(), BlockName::Unit, "pisa_sg").unwrap();
    insta::assert_snapshot!(d.combined());
}

#[test]
fn unit_l32_default_module_hashes() {
    use sha2::{Digest, Sha256};
    let d = design(&UnitConfig::default(), BlockName::Unit, "pisa_sg").unwrap();
    let listing: String = d
        .modules
        .iter()
        .map(|m| {
            format!(
                "{} {} lines {:x}\n",
                m.name,
                m.text.lines().count(),
                Sha256::digest(m.text.as_bytes())
            )
        })
        .collect();
    insta::assert_snapshot!(listing);
}

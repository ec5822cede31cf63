//! Every prebuilt model against the reference model on random cases, one at a time and streamed.

use pisa_model::gen::{random_case, Rng};
use pisa_model::unit::execute_lanes;
use pisa_model::{SgInputs, SgOp};
use pisa_sim::unit::{PortIn, RtlUnit};

fn check<const N: usize>(unit: &mut RtlUnit, cases: usize) {
    let forms = SgOp::all();
    let mut rng = Rng::new(99);
    let batch: Vec<(SgOp, SgInputs<N>)> =
        (0..cases).map(|_| random_case::<N>(&mut rng, &forms)).collect();
    for (op, inp) in batch.iter().take(200) {
        let got = unit.run_one(&PortIn {
            op: op.encode(),
            src0: &inp.src0,
            src1: &inp.src1,
            mask: inp.mask,
            activemask: inp.activemask,
        });
        let want = execute_lanes(*op, inp);
        assert_eq!(got.wen, want.wen, "{} {op}", unit.tag());
        for l in 0..N {
            if want.wen >> l & 1 != 0 {
                assert_eq!(got.dst[l], want.dst[l], "{} {op} lane {l}", unit.tag());
            }
        }
    }
    let mut bubbles = Rng::new(5);
    let mut n = 0;
    let tag = unit.tag();
    unit.stream(
        batch.len(),
        |i| PortIn {
            op: batch[i].0.encode(),
            src0: &batch[i].1.src0,
            src1: &batch[i].1.src1,
            mask: batch[i].1.mask,
            activemask: batch[i].1.activemask,
        },
        || bubbles.chance(10),
        |i, got: &pisa_sim::unit::PortOut| {
            let want = execute_lanes(batch[i].0, &batch[i].1);
            assert_eq!(got.wen, want.wen, "{tag} streamed case {i}");
            assert!(
                (0..N).all(|l| want.wen >> l & 1 == 0 || got.dst[l] == want.dst[l]),
                "{tag} streamed case {i}"
            );
            n += 1;
        },
    );
    assert_eq!(n, batch.len());
}

#[test]
fn every_prebuilt_model_matches_the_model() {
    for cfg in RtlUnit::available() {
        let mut u = RtlUnit::open(&cfg).unwrap();
        match cfg.lanes {
            4 => check::<4>(&mut u, 3000),
            8 => check::<8>(&mut u, 3000),
            16 => check::<16>(&mut u, 3000),
            _ => check::<32>(&mut u, 3000),
        }
    }
}

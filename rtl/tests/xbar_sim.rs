//! The crossbar in rust-hdl's simulator against the reference model at small lane counts.

use pisa_model::gen::{random_inputs, Rng};
use pisa_model::unit::execute_lanes;
use pisa_model::{SgInputs, SgOp, ShflMode};
use pisa_rtl::bus::{mask, pack};
use pisa_rtl::xbar::ShflXbar;
use rust_hdl::prelude::*;

fn check<const N: usize, const K: usize, const K1: usize, const W: usize>(cases: u64) {
    let mut x = ShflXbar::<N, K, K1, W>::new(pisa_rtl::config::Registers::NONE);
    x.connect_all();
    for i in 0..cases {
        let mut rng = Rng::for_case(77 + N as u64, i);
        let mode = ShflMode::ALL[rng.below(4) as usize];
        let sg = rng.chance(50);
        let op = SgOp::Shfl { mode, sg };
        let inp: SgInputs<N> = random_inputs(&mut rng, op);
        let want = execute_lanes(op, &inp);
        x.mode_i.next = (mode as u64).into();
        x.sg_i.next = sg;
        x.part_i.next = mask::<N>(inp.mask & inp.activemask);
        x.src0_i.next = pack::<W>(&inp.src0);
        x.src1_i.next = pack::<W>(&inp.src1);
        assert!(simulate(&mut x, 100), "settles");
        for l in 0..N {
            if want.wen >> l & 1 != 0 {
                assert_eq!(
                    x.dst_o[l].val().to_u32(),
                    want.dst[l],
                    "N={N} case {i} {op} lane {l}\n{inp:?}"
                );
            }
        }
    }
}

#[test]
fn xbar_matches_model_4_8_16_lanes() {
    check::<4, 2, 3, 128>(3000);
    check::<8, 3, 4, 256>(2000);
    check::<16, 4, 5, 512>(500);
}

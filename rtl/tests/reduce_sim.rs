//! The reduction tree and the priority encoder in rust-hdl's simulator against the reference
//! model, every fred/ired form, at small lane counts.

use pisa_model::gen::{random_inputs, Rng};
use pisa_model::unit::execute_lanes;
use pisa_model::{SgInputs, SgOp};
use pisa_rtl::bus::{mask, pack};
use pisa_rtl::lzc::Lzc;
use pisa_rtl::reduce::Reduce;
use rust_hdl::prelude::*;

fn check<const N: usize, const K: usize, const W: usize>(per_form: u64) {
    let mut r = Reduce::<N, K, W>::new(pisa_rtl::config::Registers::NONE);
    r.connect_all();
    let forms: Vec<SgOp> = SgOp::all()
        .into_iter()
        .filter(|o| matches!(o, SgOp::Fred { .. } | SgOp::Ired { .. }))
        .collect();
    for (f, &op) in forms.iter().enumerate() {
        for i in 0..per_form {
            let mut rng = Rng::for_case(900 + N as u64 * 100 + f as u64, i);
            let inp: SgInputs<N> = random_inputs(&mut rng, op);
            let want = execute_lanes(op, &inp);
            if want.wen == 0 {
                continue;
            }
            r.op_i.next = (op.encode() as u64).into();
            r.part_i.next = mask::<N>(inp.mask & inp.activemask);
            r.src0_i.next = pack::<W>(&inp.src0);
            assert!(simulate(&mut r, 100), "settles");
            let lane = want.wen.trailing_zeros() as usize;
            assert_eq!(r.result_o.val().to_u32(), want.dst[lane], "N={N} {op} case {i}\n{inp:?}");
        }
    }
}

#[test]
fn reduce_matches_model_every_form() {
    check::<4, 2, 128>(300);
    check::<8, 3, 256>(300);
    check::<16, 4, 512>(60);
}

fn lzc<const N: usize>() {
    let mut l = Lzc::<N>::default();
    l.connect_all();
    let mut rng = Rng::new(4);
    let full = if N == 32 { u32::MAX } else { (1u32 << N) - 1 };
    for i in 0..2000u32 {
        let bits = match i {
            0 => 0,
            1 => full,
            _ if i < 2 + N as u32 => 1 << (i - 2),
            _ => rng.u32() & full & if rng.chance(50) { !0 << rng.below(N as u32) } else { !0 },
        };
        l.bits_i.next = mask::<N>(bits);
        assert!(simulate(&mut l, 100));
        let want = if bits == 0 { N as u32 } else { bits.trailing_zeros() };
        assert_eq!(l.idx_o.val().to_u32(), want, "N={N} bits={bits:#x}");
    }
}

#[test]
fn lzc_matches_trailing_zeros() {
    lzc::<4>();
    lzc::<8>();
    lzc::<16>();
    lzc::<32>();
}

//! The optimized model against the lane-by-lane port of the pseudocode (`literal`), two
//! independently written implementations, on edge-weighted random cases and on unconstrained
//! proptest cases, at every supported lane count.

use pisa_model::gen::{random_case, Rng};
use pisa_model::unit::execute_lanes;
use pisa_model::{execute, literal, SgInputs, SgOp};
use proptest::prelude::*;

fn check_many<const N: usize>(seed: u64, count: u64)
where
    SgInputs<N>: 'static,
{
    let forms = SgOp::all();
    for i in 0..count {
        let mut rng = Rng::for_case(seed, i);
        let (op, inp) = random_case::<N>(&mut rng, &forms);
        let slow = literal::execute(op, &inp);
        assert_eq!(
            execute_lanes(op, &inp),
            slow,
            "portable N={N} seed={seed} case={i} op={op}\ninputs={inp:?}"
        );
        if let Some(inp32) = (&inp as &dyn std::any::Any).downcast_ref::<SgInputs<32>>() {
            // `execute` takes the best kernel of this CPU (AVX-512, AVX2); tests/kernels.rs checks each.
            let slow32 = literal::execute(op, inp32);
            assert_eq!(execute(op, inp32), slow32, "seed={seed} case={i} op={op}\ninputs={inp:?}");
        }
    }
}

#[test]
fn model_equals_literal_port_32_lanes() {
    check_many::<32>(0x5EED_0001, 200_000);
}

#[test]
fn model_equals_literal_port_small_lanes() {
    check_many::<4>(0x5EED_0004, 50_000);
    check_many::<8>(0x5EED_0008, 50_000);
    check_many::<16>(0x5EED_0016, 50_000);
}

#[test]
fn every_form_is_exercised_by_the_generator() {
    let forms = SgOp::all();
    let mut seen = std::collections::HashSet::new();
    for i in 0..20_000 {
        let mut rng = Rng::for_case(7, i);
        seen.insert(random_case::<32>(&mut rng, &forms).0);
    }
    assert_eq!(seen.len(), forms.len());
}

fn any_op() -> impl Strategy<Value = SgOp> {
    let all = SgOp::all();
    (0..all.len()).prop_map(move |i| all[i])
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 20_000, ..ProptestConfig::default() })]

    /// Unconstrained operands: any bits anywhere.
    #[test]
    fn unconstrained_operands(op in any_op(), src0 in any::<[u32; 32]>(), src1 in any::<[u32; 32]>(),
                              mask in any::<u32>(), activemask in any::<u32>()) {
        let inp = SgInputs { src0, src1, mask, activemask };
        prop_assert_eq!(execute(op, &inp), literal::execute(op, &inp));
        prop_assert_eq!(execute_lanes(op, &inp), literal::execute(op, &inp));
    }

    /// Few distinct values, so ties, duplicates and equal keys are common.
    #[test]
    fn few_distinct_values(op in any_op(), pick in any::<[u8; 32]>(), vals in any::<[u32; 4]>(),
                           src1 in any::<u32>(), mask in any::<u32>()) {
        let src0 = pick.map(|p| vals[(p & 3) as usize]);
        let inp = SgInputs { src0, src1: [src1; 32], mask, activemask: u32::MAX };
        prop_assert_eq!(execute(op, &inp), literal::execute(op, &inp));
    }
}

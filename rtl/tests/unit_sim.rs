//! The whole unit in rust-hdl's simulator against the reference model: every form and reserved
//! opcodes, combinational and pipelined, back-to-back issue with valid bubbles.

use std::collections::VecDeque;

use pisa_model::gen::{random_case, Rng};
use pisa_model::unit::execute_lanes;
use pisa_model::{SgInputs, SgOp, SgOutputs};
use pisa_rtl::bus::{mask, pack};
use pisa_rtl::unit::{Unit16, Unit4, Unit8};
use pisa_rtl::UnitConfig;
use rust_hdl::prelude::*;

macro_rules! drive {
    ($u:expr, $n:literal, $w:literal, $op:expr, $inp:expr, $valid:expr) => {{
        $u.op_i.next = ($op as u64).into();
        $u.src0_i.next = pack::<$w>(&$inp.src0);
        $u.src1_i.next = pack::<$w>(&$inp.src1);
        $u.mask_i.next = ($inp.mask as u64).into();
        $u.activemask_i.next = mask::<$n>($inp.activemask);
        $u.valid_i.next = $valid;
    }};
}

macro_rules! sample {
    ($u:expr, $n:literal) => {{
        let d = $u.dst_o.val();
        let dst: [u32; $n] = std::array::from_fn(|i| d.lane(i));
        (SgOutputs::<$n> { dst, wen: $u.wen_o.val().to_u32() }, $u.valid_o.val())
    }};
}

/// One case: a form or, 1 in 20, a reserved opcode (must write nothing).
fn case<const N: usize>(rng: &mut Rng) -> (u8, SgInputs<N>, SgOutputs<N>) {
    let (op, inp) = random_case::<N>(rng, &SgOp::all());
    if rng.chance(5) {
        let code = loop {
            let c = rng.u32() as u8;
            if SgOp::decode(c).is_none() {
                break c;
            }
        };
        return (code, inp, SgOutputs { dst: [0; N], wen: 0 });
    }
    (op.encode(), inp.clone(), execute_lanes(op, &inp))
}

macro_rules! run {
    ($ty:ident, $n:literal, $w:literal, $cfg:expr, $cases:expr) => {{
        let cfg: UnitConfig = $cfg;
        let mut u = $ty::new(cfg.registers());
        u.connect_all();
        let lat = cfg.latency();
        let mut rng = Rng::new(0xC0DE + $n + lat as u64);
        let mut expect: VecDeque<(u8, SgOutputs<$n>)> = VecDeque::new();
        let mut checked = 0;
        u.rst_ni.next = false;
        u.clk_i.next = Clock::from(false);
        simulate(&mut u, 200);
        let mut cycle = 0u64;
        while checked < $cases {
            let valid = !rng.chance(20); // bubbles
            let (code, inp, want) = case::<$n>(&mut rng);
            drive!(u, $n, $w, code, inp, valid);
            u.rst_ni.next = cycle > 0;
            assert!(simulate(&mut u, 200), "settles");
            if lat == 0 {
                let (got, v) = sample!(u, $n);
                assert_eq!(v, valid);
                assert!(
                    got.agrees_with(&want),
                    "{} op {code:#04x}\ngot {got:?}\nwant {want:?}\n{inp:?}",
                    cfg.tag()
                );
                checked += 1;
            } else {
                if valid && cycle > 0 {
                    expect.push_back((code, want));
                }
                // rising edge: the outputs now show the operation issued `lat` edges ago
                u.clk_i.next = Clock::from(true);
                assert!(simulate(&mut u, 200));
                let (got, v) = sample!(u, $n);
                if v {
                    let (code, want) =
                        expect.pop_front().expect("valid_o without an operation in flight");
                    assert!(
                        got.agrees_with(&want),
                        "{} op {code:#04x} cycle {cycle}\ngot {got:?}\nwant {want:?}",
                        cfg.tag()
                    );
                    checked += 1;
                }
                u.clk_i.next = Clock::from(false);
                assert!(simulate(&mut u, 200));
                assert!(expect.len() <= lat, "results in order, one per clock");
            }
            cycle += 1;
        }
    }};
}

#[test]
fn unit4_combinational_and_every_pipeline() {
    for p in 0..=2 {
        run!(Unit4, 4, 128, UnitConfig::new(4, p).unwrap(), 1500);
    }
}

#[test]
fn unit8_combinational_and_pipelined() {
    run!(Unit8, 8, 256, UnitConfig::new(8, 0).unwrap(), 800);
    run!(Unit8, 8, 256, UnitConfig::new(8, 3).unwrap(), 800);
    run!(
        Unit8,
        8,
        256,
        UnitConfig::from_toml("lanes = 8\npipeline_at = [1, 3]", "t").unwrap(),
        500
    );
}

#[test]
fn boundary_zero_registers_in_front_of_the_trees() {
    run!(Unit4, 4, 128, UnitConfig::from_toml("lanes = 4\npipeline_at = [0]", "t").unwrap(), 800);
    run!(
        Unit4,
        4,
        128,
        UnitConfig::from_toml("lanes = 4\npipeline_at = [0, 1, 2]", "t").unwrap(),
        800
    );
    run!(
        Unit8,
        8,
        256,
        UnitConfig::from_toml("lanes = 8\npipeline_at = [0, 2, 3]", "t").unwrap(),
        500
    );
}

#[test]
fn extra_registers_off_the_tree_levels() {
    // `front`, `root` and `result` alone (the only registers), together, and beside every boundary
    run!(
        Unit4,
        4,
        128,
        UnitConfig::from_toml("lanes = 4\npipeline_extra = [\"front\"]", "t").unwrap(),
        800
    );
    run!(
        Unit4,
        4,
        128,
        UnitConfig::from_toml("lanes = 4\npipeline_extra = [\"root\"]", "t").unwrap(),
        800
    );
    run!(
        Unit4,
        4,
        128,
        UnitConfig::from_toml("lanes = 4\npipeline_extra = [\"result\"]", "t").unwrap(),
        800
    );
    run!(
        Unit4,
        4,
        128,
        UnitConfig::from_toml(
            "lanes = 4\npipeline = 1\npipeline_extra = [\"front\", \"result\"]",
            "t"
        )
        .unwrap(),
        800
    );
    run!(
        Unit8,
        8,
        256,
        UnitConfig::from_toml(
            "lanes = 8\npipeline_at = [0, 1, 2, 3]\npipeline_extra = [\"front\", \"result\"]",
            "t"
        )
        .unwrap(),
        500
    );
    run!(
        Unit8,
        8,
        256,
        UnitConfig::from_toml("lanes = 8\npipeline_at = [0, 1, 2, 3]\npipeline_extra = [\"front\", \"root\", \"result\"]", "t").unwrap(),
        500
    );
}

/// `"pick"`: a register after each level's pick and before the last node's pick; the unit delays
/// the crossbar's result and the controls by as many cycles (alone: one cycle, the last node's).
#[test]
fn pick_registers_and_the_matching_delay() {
    run!(
        Unit4,
        4,
        128,
        UnitConfig::from_toml("lanes = 4\npipeline_extra = [\"pick\"]", "t").unwrap(),
        800
    );
    run!(
        Unit4,
        4,
        128,
        UnitConfig::from_toml(
            "lanes = 4\npipeline_at = [1]\npipeline_extra = [\"pick\", \"result\"]",
            "t"
        )
        .unwrap(),
        800
    );
    run!(
        Unit8,
        8,
        256,
        UnitConfig::from_toml("lanes = 8\npipeline_at = [0, 1, 2, 3]\npipeline_extra = [\"front\", \"root\", \"result\", \"pick\"]", "t").unwrap(),
        500
    );
    run!(
        Unit16,
        16,
        512,
        UnitConfig::from_toml(
            "lanes = 16\npipeline_at = [2, 4]\npipeline_extra = [\"pick\", \"root\"]",
            "t"
        )
        .unwrap(),
        200
    );
}

/// `"input"`: every block registers its inputs (the opcode and the mask as one copy per four
/// lanes); with `"root"` the reduction has one root per four lanes and the crossbar splits its
/// participation lookup at the root register.
#[test]
fn input_registers_and_root_copies() {
    run!(
        Unit4,
        4,
        128,
        UnitConfig::from_toml("lanes = 4\npipeline_extra = [\"input\"]", "t").unwrap(),
        800
    );
    run!(
        Unit4,
        4,
        128,
        UnitConfig::from_toml("lanes = 4\npipeline_extra = [\"root\"]", "t").unwrap(),
        800
    );
    run!(
        Unit8,
        8,
        256,
        UnitConfig::from_toml("lanes = 8\npipeline_at = [0, 1, 2, 3]\npipeline_extra = [\"front\", \"root\", \"result\", \"pick\", \"input\"]", "t").unwrap(),
        500
    );
    run!(
        Unit16,
        16,
        512,
        UnitConfig::from_toml(
            "lanes = 16\npipeline_at = [4]\npipeline_extra = [\"input\", \"root\"]",
            "t"
        )
        .unwrap(),
        200
    );
}

#[test]
fn retimed_crossbar_every_register_position() {
    // 16 lanes with every boundary: the crossbar puts its four registers at boundary 0, after
    // level 2, in the copy register and after level 3 (xbar_mux::tree_registers)
    run!(
        Unit16,
        16,
        512,
        UnitConfig::from_toml("lanes = 16\npipeline_at = [0, 1, 2, 3, 4]", "t").unwrap(),
        200
    );
}

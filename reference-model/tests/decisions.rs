//! One test per decision pinned in `docs/spec-notes.md`. Expected values are worked out by hand
//! from the spec text (IEEE encodings written out), not taken from the model.

use pisa_model::{
    execute, FloatType, FredOp, IntType, IredOp, SgInputs, SgOp, SgOutputs, ShflMode,
};

const ALL: u32 = 0xFFFF_FFFF;

fn inputs(src0: [u32; 32], mask: u32) -> SgInputs {
    SgInputs { src0, src1: [0; 32], mask, activemask: ALL }
}

fn fill(lanes: &[(usize, u32)], rest: u32) -> [u32; 32] {
    let mut v = [rest; 32];
    for &(l, x) in lanes {
        v[l] = x;
    }
    v
}

fn fred(op: FredOp, nanp: bool, ty: FloatType, src0: [u32; 32], mask: u32) -> SgOutputs {
    execute(SgOp::Fred { op, nanp, ty }, &inputs(src0, mask))
}

/// The value every written lane holds (asserting they agree).
fn result(o: &SgOutputs) -> u32 {
    let lanes: Vec<usize> = (0..32).filter(|l| o.wen >> l & 1 != 0).collect();
    assert!(!lanes.is_empty(), "no lane written");
    let v = o.dst[lanes[0]];
    assert!(lanes.iter().all(|&l| o.dst[l] == v));
    v
}

const F_POS0: u32 = 0x0000_0000;
const F_NEG0: u32 = 0x8000_0000;
const F_ONE: u32 = 0x3F80_0000; // 1.0
const F_NEG_TWO: u32 = 0xC000_0000; // -2.0
const F_INF: u32 = 0x7F80_0000;
const F_NINF: u32 = 0xFF80_0000;
const F_SNAN: u32 = 0x7F80_0001; // signalling NaN
const F_QNAN_NEG_PAYLOAD: u32 = 0xFFC1_2345;

#[test]
fn negative_zero_orders_below_positive_zero() {
    let v = fill(&[(0, F_POS0), (1, F_NEG0)], F_POS0);
    assert_eq!(result(&fred(FredOp::Min, false, FloatType::F, v, 0b11)), F_NEG0);
    assert_eq!(result(&fred(FredOp::Max, false, FloatType::F, v, 0b11)), F_POS0);
    // order of lanes does not matter
    let v = fill(&[(0, F_NEG0), (1, F_POS0)], F_POS0);
    assert_eq!(result(&fred(FredOp::Min, false, FloatType::F, v, 0b11)), F_NEG0);
    assert_eq!(result(&fred(FredOp::Max, false, FloatType::F, v, 0b11)), F_POS0);
    // binary16 and bfloat16 zeros
    for ty in [FloatType::Hf, FloatType::Bf] {
        let v = fill(&[(0, 0x0000), (1, 0x8000)], 0);
        assert_eq!(result(&fred(FredOp::Min, false, ty, v, 0b11)), 0x8000);
        assert_eq!(result(&fred(FredOp::Max, false, ty, v, 0b11)), 0x0000);
    }
}

#[test]
fn subnormals_compare_exactly_without_flush() {
    // 1 ulp and 2 ulp subnormals, and -1 ulp: a flushing unit would see three zeros.
    let v = fill(&[(0, 0x0000_0002), (1, 0x0000_0001), (2, 0x8000_0001)], 0x0000_0002);
    assert_eq!(result(&fred(FredOp::Min, false, FloatType::F, v, 0b111)), 0x8000_0001);
    assert_eq!(result(&fred(FredOp::Max, false, FloatType::F, v, 0b011)), 0x0000_0002);
    assert_eq!(result(&fred(FredOp::Absmax, false, FloatType::F, v, 0b110)), 0x0000_0001);
    // binary16 subnormal vs zero
    let v = fill(&[(0, 0x0001), (1, 0x0000)], 0);
    assert_eq!(result(&fred(FredOp::Max, false, FloatType::Hf, v, 0b11)), 0x0001);
}

#[test]
fn nan_suppressed_by_default_unless_all_nan() {
    let v = fill(&[(0, F_SNAN), (1, F_ONE), (2, F_QNAN_NEG_PAYLOAD), (3, F_NEG_TWO)], F_SNAN);
    assert_eq!(result(&fred(FredOp::Max, false, FloatType::F, v, 0b1111)), F_ONE);
    assert_eq!(result(&fred(FredOp::Min, false, FloatType::F, v, 0b1111)), F_NEG_TWO);
    // every participating input NaN (signalling and quiet): canonical quiet NaN
    assert_eq!(result(&fred(FredOp::Min, false, FloatType::F, v, 0b0101)), 0x7FFF_FFFF);
    assert_eq!(result(&fred(FredOp::Max, false, FloatType::F, v, ALL & !0b1010)), 0x7FFF_FFFF);
}

#[test]
fn nanp_propagates_any_nan_as_canonical_quiet_nan() {
    let v = fill(&[(0, F_SNAN), (1, F_ONE)], F_ONE);
    assert_eq!(result(&fred(FredOp::Max, true, FloatType::F, v, 0b11)), 0x7FFF_FFFF);
    assert_eq!(result(&fred(FredOp::Min, true, FloatType::F, v, 0b11)), 0x7FFF_FFFF);
    assert_eq!(result(&fred(FredOp::Absmax, true, FloatType::F, v, 0b11)), 0x7FFF_FFFF);
    // a NaN outside the participating lanes does not count
    assert_eq!(result(&fred(FredOp::Max, true, FloatType::F, v, 0b10)), F_ONE);
    // bf16 signalling NaN 0xFF81 -> canonical 0x7FFF
    let v = fill(&[(5, 0xFF81)], 0x3F80);
    assert_eq!(result(&fred(FredOp::Min, true, FloatType::Bf, v, ALL)), 0x7FFF);
    assert_eq!(result(&fred(FredOp::Min, false, FloatType::Bf, v, ALL)), 0x3F80);
}

#[test]
fn infinities_order_at_the_ends() {
    let v = fill(&[(0, F_INF), (1, F_NINF), (2, 0x7F7F_FFFF)], F_ONE);
    assert_eq!(result(&fred(FredOp::Max, false, FloatType::F, v, 0b111)), F_INF);
    assert_eq!(result(&fred(FredOp::Min, false, FloatType::F, v, 0b111)), F_NINF);
    assert_eq!(result(&fred(FredOp::Absmax, false, FloatType::F, v, 0b110)), F_INF);
}

#[test]
fn absmax_returns_the_magnitude() {
    let v = fill(&[(0, F_NEG_TWO), (1, F_ONE)], F_ONE);
    assert_eq!(result(&fred(FredOp::Absmax, false, FloatType::F, v, 0b11)), 0x4000_0000); // +2.0
    assert_eq!(result(&fred(FredOp::Absmax, false, FloatType::F, fill(&[], F_NEG0), ALL)), F_POS0);
    // hf: -65504 (0xFBFF) -> 65504 (0x7BFF)
    let v = fill(&[(3, 0xFBFF)], 0x3C00);
    assert_eq!(result(&fred(FredOp::Absmax, false, FloatType::Hf, v, ALL)), 0x7BFF);
}

#[test]
fn packed_types_reduce_each_half_independently() {
    // element 0 (low half): max of {1.0, -2.0} = 1.0 ; element 1 (high half): max of {NaN, -2.0} = -2.0
    let bf_one = 0x3F80u32;
    let bf_neg_two = 0xC000u32;
    let bf_nan = 0x7FC1u32;
    let v = fill(&[(0, bf_one | bf_nan << 16), (1, bf_neg_two | bf_neg_two << 16)], 0);
    assert_eq!(
        result(&fred(FredOp::Max, false, FloatType::Bfx2, v, 0b11)),
        bf_one | bf_neg_two << 16
    );
    // .nanp: only the high half becomes NaN
    assert_eq!(result(&fred(FredOp::Max, true, FloatType::Bfx2, v, 0b11)), bf_one | 0x7FFF << 16);
    // hfx2: low half all NaN -> 0x7FFF, high half min
    let v = fill(&[(0, 0x7E00 | 0x3C00 << 16), (1, 0xFC01 | 0xBC00 << 16)], 0);
    assert_eq!(result(&fred(FredOp::Min, false, FloatType::Hfx2, v, 0b11)), 0x7FFF | 0xBC00 << 16);
}

#[test]
fn sixteen_bit_float_ignores_upper_bits_and_zero_extends() {
    let v = fill(&[(0, 0xDEAD_3C00), (1, 0x1234_4000)], 0);
    assert_eq!(result(&fred(FredOp::Max, false, FloatType::Hf, v, 0b11)), 0x4000);
    assert_eq!(result(&fred(FredOp::Min, false, FloatType::Hf, v, 0b11)), 0x3C00);
}

fn ired(op: IredOp, ty: IntType, src0: [u32; 32], mask: u32) -> u32 {
    result(&execute(SgOp::Ired { op, ty }, &inputs(src0, mask)))
}

#[test]
fn sum_wraps_modulo_width() {
    assert_eq!(ired(IredOp::Sum, IntType::B32, fill(&[], 0x8000_0000), 0b11), 0);
    assert_eq!(ired(IredOp::Sum, IntType::B32, fill(&[], 0xFFFF_FFFF), ALL), 0xFFFF_FFE0); // -32
    assert_eq!(ired(IredOp::Sum, IntType::B16, fill(&[], 0x0001_FFFF), ALL), 0xFFE0); // 32 * -1 (16b)
    assert_eq!(ired(IredOp::Sum, IntType::B16, fill(&[], 0x8000), 0b11), 0);
}

#[test]
fn integer_absmax_treats_int_min_as_largest() {
    let v = fill(&[(0, 0x8000_0000), (1, 0x7FFF_FFFF), (2, 0xFFFF_FFFF)], 5);
    assert_eq!(ired(IredOp::Absmax, IntType::B32, v, 0b111), 0x8000_0000);
    assert_eq!(ired(IredOp::Absmax, IntType::B32, v, 0b110), 0x7FFF_FFFF);
    assert_eq!(ired(IredOp::Absmax, IntType::B32, v, 0b100), 1); // |-1|
    let v = fill(&[(0, 0x8000), (1, 0x7FFF)], 3);
    assert_eq!(ired(IredOp::Absmax, IntType::B16, v, 0b11), 0x8000);
    assert_eq!(ired(IredOp::Absmax, IntType::B16, fill(&[], 0xFFFB), 1), 5); // |-5| in 16 bits
}

#[test]
fn signed_and_unsigned_orders_differ() {
    let v = fill(&[(0, 0xFFFF_FFFF), (1, 1)], 1);
    assert_eq!(ired(IredOp::Smin, IntType::B32, v, 0b11), 0xFFFF_FFFF);
    assert_eq!(ired(IredOp::Smax, IntType::B32, v, 0b11), 1);
    assert_eq!(ired(IredOp::Umin, IntType::B32, v, 0b11), 1);
    assert_eq!(ired(IredOp::Umax, IntType::B32, v, 0b11), 0xFFFF_FFFF);
    let v = fill(&[(0, 0xAAAA_8000), (1, 0x0000_7FFF)], 0);
    assert_eq!(
        ired(IredOp::Smin, IntType::B16, v, 0b11),
        0x8000,
        "upper bits ignored, result zero-extended"
    );
    assert_eq!(ired(IredOp::Smax, IntType::B16, v, 0b11), 0x7FFF);
    assert_eq!(ired(IredOp::Umax, IntType::B16, v, 0b11), 0x8000);
}

#[test]
fn bitwise_reductions() {
    let v = fill(&[(0, 0b1100), (1, 0b1010)], 0xFFFF_FFFF);
    assert_eq!(ired(IredOp::And, IntType::B32, v, 0b11), 0b1000);
    assert_eq!(ired(IredOp::Or, IntType::B32, v, 0b11), 0b1110);
    assert_eq!(ired(IredOp::Xor, IntType::B32, v, 0b11), 0b0110);
    assert_eq!(ired(IredOp::And, IntType::B16, fill(&[], 0xFFFF_FFFF), ALL), 0xFFFF);
    assert_eq!(ired(IredOp::Xor, IntType::B16, fill(&[], 0x0001_0001), 0b111), 1);
}

#[test]
fn non_participating_and_inactive_lanes_are_not_written() {
    let mut inp = inputs(fill(&[], 7), 0x0000_00FF);
    inp.activemask = 0x0000_000F;
    for op in SgOp::all() {
        let o = execute(op, &inp);
        // redfirstidx writes every active lane (0xF); the others mask & activemask = 0xFF & 0xF
        let expected_wen = 0x0000_000F;
        assert_eq!(o.wen, expected_wen, "{op}");
    }
    inp.activemask = 0;
    for op in SgOp::all() {
        assert_eq!(execute(op, &inp).wen, 0, "{op}: inactive lanes never change");
    }
}

#[test]
fn redfirstidx_empty_mask_gives_32() {
    let mut inp = inputs([0; 32], 0);
    assert_eq!(result(&execute(SgOp::RedFirstIdx, &inp)), 32);
    inp.mask = 0xFFFF_0000;
    inp.activemask = 0x0000_FFFF; // disjoint: nothing participates
    assert_eq!(result(&execute(SgOp::RedFirstIdx, &inp)), 32);
    inp.activemask = 0xFFF0_0000;
    assert_eq!(result(&execute(SgOp::RedFirstIdx, &inp)), 20);
    inp.mask = 0x8000_0000;
    assert_eq!(result(&execute(SgOp::RedFirstIdx, &inp)), 31);
    assert_eq!(execute(SgOp::RedFirstIdx, &inp).wen, 0xFFF0_0000, "every active lane receives it");
}

fn lanes() -> [u32; 32] {
    std::array::from_fn(|i| 100 + i as u32)
}

fn shfl(mode: ShflMode, sg: bool, src1: u32, mask: u32) -> SgOutputs {
    execute(
        SgOp::Shfl { mode, sg },
        &SgInputs { src0: lanes(), src1: [src1; 32], mask, activemask: ALL },
    )
}

#[test]
fn shfl_up_below_lane_zero_keeps_own_value() {
    let o = shfl(ShflMode::Up, false, 3, ALL);
    for l in 0..32 {
        let want = if l >= 3 { 100 + l - 3 } else { 100 + l };
        assert_eq!(o.dst[l as usize], want, "lane {l}");
    }
}

#[test]
fn shfl_dn_past_the_end_keeps_own_value() {
    let o = shfl(ShflMode::Dn, false, 5, ALL);
    for l in 0..32u32 {
        assert_eq!(o.dst[l as usize], if l + 5 <= 31 { 105 + l } else { 100 + l });
    }
}

#[test]
fn shfl_source_not_participating_keeps_own_value() {
    // lanes 0..15 participate; lane 15 reading lane 16 (dn 1) falls back to its own value.
    let o = shfl(ShflMode::Dn, false, 1, 0xFFFF);
    assert_eq!(o.dst[14], 115);
    assert_eq!(o.dst[15], 115);
    assert_eq!(o.wen, 0xFFFF);
}

#[test]
fn shfl_without_sg_ignores_bits_20_to_8() {
    let a = shfl(ShflMode::Xor, false, 0x001F_1F03, ALL);
    let b = shfl(ShflMode::Xor, false, 0x0000_0003, ALL);
    assert_eq!(a, b);
    let o = b;
    for l in 0..32u32 {
        assert_eq!(o.dst[l as usize], 100 + (l ^ 3));
    }
}

#[test]
fn shfl_ignores_src1_bits_outside_the_three_fields() {
    let a = shfl(ShflMode::Dn, true, 0xFFE0_E0E0 | 0x0018_0702, ALL);
    let b = shfl(ShflMode::Dn, true, 0x0018_0702, ALL);
    assert_eq!(a, b);
}

#[test]
fn shfl_idx_with_segments_reads_inside_the_segment() {
    // segmask 11100 (width 4), cval 00011: lane reads (lane & ~3) | (off & 3)
    let o = shfl(ShflMode::Idx, true, 0x001C_0302, ALL);
    for l in 0..32u32 {
        assert_eq!(o.dst[l as usize], 100 + ((l & !3) | 2), "lane {l}");
    }
    // without .sg the same src1 broadcasts lane 2
    let o = shfl(ShflMode::Idx, false, 0x001C_0302, ALL);
    assert!(o.dst.iter().all(|&v| v == 102));
}

#[test]
fn shfl_every_segmask_width_with_end_clamp() {
    // dn by 1 within segments of width w, clamp at segment end: the last lane of each segment
    // keeps its own value, the others read the next lane.
    for log_w in 1..=5u32 {
        let w = 1u32 << log_w;
        let segmask = 0x1F & !(w - 1);
        let src1 = 1 | (0x1F << 8) | (segmask << 16);
        let o = shfl(ShflMode::Dn, true, src1, ALL);
        for l in 0..32u32 {
            let want = if l % w == w - 1 { 100 + l } else { 101 + l };
            assert_eq!(o.dst[l as usize], want, "width {w} lane {l}");
        }
        // up by 1, clamp at segment start
        let src1 = 1 | (segmask << 16);
        let o = shfl(ShflMode::Up, true, src1, ALL);
        for l in 0..32u32 {
            let want = if l % w == 0 { 100 + l } else { 99 + l };
            assert_eq!(o.dst[l as usize], want, "up width {w} lane {l}");
        }
    }
}

#[test]
fn shfl_per_lane_src1() {
    let src1: [u32; 32] = std::array::from_fn(|i| 31 - i as u32);
    let o = execute(
        SgOp::Shfl { mode: ShflMode::Idx, sg: false },
        &SgInputs { src0: lanes(), src1, mask: ALL, activemask: ALL },
    );
    for l in 0..32u32 {
        assert_eq!(o.dst[l as usize], 100 + 31 - l);
    }
}

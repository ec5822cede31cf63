//! Every example program of the spec, run through the interpreter. Each file under
//! `tests/spec-examples/` is checked to be a verbatim copy of a block of the spec text, then run;
//! its observable behaviour is checked against what the pseudocode implies (derived here
//! independently), and where the spec's comments or diagrams claim something else the test pins
//! the difference, which `docs/spec-notes.md` records.

use std::collections::BTreeMap;

use pisa_model::diagram::{parse_row, Cell};
use pisa_model::exec::{run_source, InitialState};
use pisa_model::interp::{Event, RunOptions};
use pisa_model::shfl::{sources, ShflSource, Src1};
use pisa_model::{RefBackend, SgInputs, SgOp, SgOutputs, Warp};

const SPEC: &str = include_str!("../../docs/spec/pisa-subgroup-communication.txt");

fn example(name: &str) -> String {
    let path = format!("{}/tests/spec-examples/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(SPEC.contains(text.trim()), "{name} is not a verbatim block of the spec");
    text
}

#[derive(Debug)]
enum Seen {
    Sg(SgOp, Box<SgInputs>, Box<SgOutputs>),
    Branch(bool),
}

struct Ran {
    regs: BTreeMap<String, Warp>,
    events: Vec<Seen>,
}

fn run(name: &str, activemask: u32, regs: &[(&str, Warp)]) -> Ran {
    let st =
        InitialState { activemask, regs: regs.iter().map(|(n, v)| (n.to_string(), *v)).collect() };
    let mut events = Vec::new();
    let done =
        run_source(
            &example(name),
            &st,
            &mut RefBackend,
            &RunOptions::default(),
            &mut |e| match e {
                Event::Sg { op, inputs, outputs, .. } => events.push(Seen::Sg(
                    *op,
                    Box::new((*inputs).clone()),
                    Box::new((*outputs).clone()),
                )),
                Event::Branch { taken, .. } => events.push(Seen::Branch(*taken)),
            },
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let regs = done.program.regs.iter().map(|r| r.name.clone()).zip(done.regs).collect();
    Ran { regs, events }
}

fn sg(r: &Ran, i: usize) -> (SgOp, &SgInputs, &SgOutputs) {
    let sgs: Vec<_> = r
        .events
        .iter()
        .filter_map(|e| match e {
            Seen::Sg(o, i, out) => Some((*o, &**i, &**out)),
            _ => None,
        })
        .collect();
    sgs[i]
}

fn lanes(f: impl Fn(u32) -> u32) -> Warp {
    std::array::from_fn(|i| f(i as u32))
}

#[test]
fn fred_examples_do_what_their_comments_say() {
    // distinct floats: lane i holds (i - 10) * 1.5, lane 7 holds a NaN
    let mut src0 = lanes(|i| ((i as f32 - 10.0) * 1.5).to_bits());
    src0[7] = 0x7FC0_0000;
    let packed = lanes(|i| {
        let lo = half::bf16::from_f32(i as f32).to_bits() as u32;
        let hi = half::bf16::from_f32(-(i as f32)).to_bits() as u32;
        lo | hi << 16
    });
    let r = run("fred.pisa", u32::MAX, &[("src0", src0), ("src0_packed", packed)]);
    let f = |i: u32| f32::from_bits(src0[i as usize]);
    // max over all lanes (NaN suppressed): lane 31 = 31.5
    let (_, _, o) = sg(&r, 0);
    assert_eq!(o.wen, u32::MAX);
    assert!(o.dst.iter().all(|&v| f32::from_bits(v) == f(31)));
    // min over lanes 16-31
    let (_, _, o) = sg(&r, 1);
    assert_eq!(o.wen, 0xFFFF_0000);
    assert_eq!(f32::from_bits(o.dst[16]), f(16));
    // max with NaN propagation: lane 7 is NaN
    let (_, _, o) = sg(&r, 2);
    assert!(o.dst.iter().all(|&v| v == 0x7FFF_FFFF));
    // element-wise bf16 max over lanes 0-15: low = 15.0, high = -0.0 (max of -0..-15 is -0)
    let (_, _, o) = sg(&r, 3);
    assert_eq!(o.wen, 0xFFFF);
    assert_eq!(o.dst[0] & 0xFFFF, half::bf16::from_f32(15.0).to_bits() as u32);
    assert_eq!(o.dst[0] >> 16, 0x8000);
    assert_eq!(r.regs["dst_packed"][16], 0, "lanes 16-31 keep their old value");
}

#[test]
fn ired_examples_do_what_their_comments_say() {
    let src0 = lanes(|i| (i as i32 - 20) as u32);
    let r = run("ired.pisa", u32::MAX, &[("src0", src0)]);
    let (_, _, o) = sg(&r, 0);
    let sum: i32 = (0..32).map(|i| i - 20).sum();
    assert!(o.dst.iter().all(|&v| v == sum as u32));
    let (_, _, o) = sg(&r, 1);
    assert_eq!(o.wen, 0xFFFF);
    assert_eq!(o.dst[0], (15 - 20) as u32, "signed max over lanes 0-15");
    assert_eq!(r.regs["dst"][20], sum as u32, "lanes 16-31 keep the sum");
}

#[test]
fn redfirstidx_example() {
    let r = run("redfirstidx.pisa", u32::MAX, &[]);
    assert!(r.regs["dst"].iter().all(|&v| v == 0));
    let r = run("redfirstidx.pisa", 0xFFF0_FFF0, &[]);
    assert_eq!(r.regs["dst"][4], 4, "first lane of 0xffff & activemask");
    assert_eq!(r.regs["dst"][0], 0, "inactive lane unchanged");
    assert_eq!(r.regs["dst"][31], 4, "every active lane receives the index");
}

#[test]
fn shfl_examples_and_the_laneid_16_31_comment() {
    let src0 = lanes(|i| 1000 + i);
    let src1 = lanes(|i| ((i * 7 + 3) % 32) | 0xABCD_EF00); // per-lane indices, garbage above bit 4
    let r = run("shfl.pisa", u32::MAX, &[("src0", src0), ("src1", src1)]);
    let (_, _, o) = sg(&r, 0);
    for (d, s1) in o.dst.iter().zip(&src1) {
        assert_eq!(*d, 1000 + (s1 & 31));
    }
    // "shuffle data up across active work-items with laneid 16-31" — but src2 = 0xffff selects
    // lanes 0-15: the pseudocode writes lanes 0-15 (spec-notes: comment/operand mismatch).
    let (_, _, o) = sg(&r, 1);
    assert_eq!(o.wen, 0x0000_FFFF);
    assert_eq!(o.dst[0], 1000, "lane 0: out of bounds, own value");
    assert_eq!(o.dst[5], 1004);
}

/// The dataflow of the prefix-sum example, with the pseudocode's own-value fallback.
fn prefix_example_by_hand(v: &Warp) -> Warp {
    let mut sum = [0u32; 32];
    let mut first = true;
    for d in [1usize, 2, 4, 8, 16] {
        let src = if first { *v } else { sum };
        let tmp: Warp = std::array::from_fn(|i| if i >= d { src[i - d] } else { src[i] });
        sum = std::array::from_fn(|i| src[i].wrapping_add(tmp[i]));
        first = false;
    }
    std::array::from_fn(|i| sum[i].wrapping_sub(v[i]))
}

#[test]
fn prefix_sum_example_is_not_an_exclusive_scan_under_the_pseudocode() {
    let ones = [1u32; 32];
    let r = run("prefix-sum.pisa", u32::MAX, &[("value", ones)]);
    assert_eq!(r.regs["sum"], prefix_example_by_hand(&ones));
    // The comment promises sum(N-1, ..., N-31), i.e. lane i = i for all-ones input. Lanes below
    // each shift distance re-add their own value (out-of-bounds reads return own src0):
    let claimed: Warp = lanes(|i| i);
    assert_ne!(r.regs["sum"], claimed);
    assert_eq!(r.regs["sum"], [31; 32], "every lane sums 32 ones, then subtracts its own");
    // value = lane + 1: only lane 31 gets the exclusive prefix sum the comment promises.
    let v = lanes(|i| i + 1);
    let r = run("prefix-sum.pisa", u32::MAX, &[("value", v)]);
    assert_eq!(r.regs["sum"], prefix_example_by_hand(&v));
    let exclusive: Warp = lanes(|i| (0..i).map(|j| j + 1).sum());
    let matching: Vec<usize> = (0..32).filter(|&i| r.regs["sum"][i] == exclusive[i]).collect();
    assert_eq!(matching, vec![31]);
    assert_eq!(&r.regs["sum"][..4], &[31, 46, 53, 76], "evidence row in spec-notes");
}

#[test]
fn all_equal_example_takes_not_all_equal_with_ptx_sel() {
    // sel d, a, b, p = p ? a : b (pinned). All lanes equal -> every flag = 1 -> result = 32 ->
    // %p = (result == 0) = false -> the second goto (to not_all_equal) is taken.
    let r = run("all-equal.pisa", u32::MAX, &[("expr", [42; 32])]);
    assert!(r.regs["result"].iter().all(|&v| v == 32));
    let branches: Vec<bool> = r
        .events
        .iter()
        .filter_map(|e| match e {
            Seen::Branch(t) => Some(*t),
            _ => None,
        })
        .collect();
    assert_eq!(branches, vec![false, true], "goto all_equal not taken, goto not_all_equal taken");
    // Lane 0 reads its own value (out of bounds), so its flag is always 1: result >= 1 and the
    // example can never reach all_equal first.
    let r = run("all-equal.pisa", u32::MAX, &[("expr", lanes(|i| i))]);
    assert!(r.regs["result"].iter().all(|&v| v == 1));
    let r = run("all-equal.pisa", u32::MAX, &[("expr", lanes(|i| if i == 9 { 7 } else { 42 }))]);
    assert!(
        r.regs["result"].iter().all(|&v| v == 30),
        "lanes 9 and 10 differ from their neighbour"
    );
}

/// Compares the spec's diagram rows with the sources the pseudocode gives; returns the lanes
/// where they differ.
fn diagram_mismatches(name: &str) -> Vec<u32> {
    let text = example(name);
    let rows: Vec<_> = text.lines().filter_map(parse_row).collect();
    let (_, a) = &rows[0];
    let (_, r) = &rows[1];
    let ran = run(name, u32::MAX, &[("a", lanes(|i| i))]);
    let (op, inp, _) = sg(&ran, 0);
    let SgOp::Shfl { mode, sg } = op else { panic!() };
    let actual = sources(mode, sg, Src1::PerLane(&inp.src1), inp.mask, inp.activemask);
    let mut bad = Vec::new();
    for (k, cell) in r.iter().enumerate() {
        let Cell::Lane(lane) = a[k] else { panic!("source row lists lanes") };
        let want = match actual[lane as usize] {
            ShflSource::Lane(s) => Cell::Lane(s),
            ShflSource::Own => Cell::Blank,
            ShflSource::NotWritten => Cell::NotWritten,
        };
        if *cell != want {
            bad.push(lane);
        }
    }
    bad
}

#[test]
fn sg_diagram_with_cval_29_matches_the_pseudocode() {
    assert_eq!(diagram_mismatches("shfl-dn-sg-cval29.pisa"), Vec::<u32>::new());
}

#[test]
fn sg_diagram_with_cval_0_disagrees_with_the_pseudocode() {
    // cval = 0 clamps every lane at the start of its segment, so a shift down is always out of
    // bounds: the pseudocode leaves every lane with its own value, the diagram shows lanes
    // 29..24 and 21..16 reading two lanes up (what cval = 5b00111 does).
    assert_eq!(
        diagram_mismatches("shfl-dn-sg-cval0.pisa"),
        vec![29, 28, 27, 26, 25, 24, 21, 20, 19, 18, 17, 16]
    );
    let r = run("shfl-dn-sg-cval0.pisa", u32::MAX, &[("a", lanes(|i| i))]);
    assert_eq!(r.regs["r"], lanes(|i| i), "identity under the pseudocode");
}

//! The formal specs (`formal/spec/*.v`) are themselves checked against the reference model:
//! iverilog simulates each spec on constrained-random edge-weighted cases and the answers are
//! compared with `pisa_model` lane by lane. Two independent readings of the pseudocode must agree
//! before the proofs can mean anything.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use pisa_formal::{spec, Property};
use pisa_model::gen::{random_inputs, Rng};
use pisa_model::op::ShflMode;
use pisa_model::unit::execute_lanes;
use pisa_model::{SgInputs, SgOp};

const N: usize = 32;
const CASES: usize = 1000;

fn simulate(dir: &Path, tb: &str, mem: &str) -> Vec<Vec<u32>> {
    std::fs::write(dir.join("tb.v"), tb).unwrap();
    std::fs::write(dir.join("cases.hex"), mem).unwrap();
    for (name, text) in spec::ALL {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let c = Command::new("iverilog")
        .current_dir(dir)
        .args([
            "-g2005",
            "-o",
            "tb.vvp",
            "tb.v",
            "pisa_spec_shfl.v",
            "pisa_spec_reduce.v",
            "pisa_spec_lzc.v",
        ])
        .output()
        .expect("iverilog runs (scripts/install-deps.sh installs it)");
    assert!(c.status.success(), "iverilog: {}", String::from_utf8_lossy(&c.stderr));
    let r = Command::new("vvp").current_dir(dir).args(["-n", "tb.vvp"]).output().expect("vvp runs");
    assert!(r.status.success(), "vvp: {}", String::from_utf8_lossy(&r.stderr));
    String::from_utf8_lossy(&r.stdout)
        .lines()
        .filter(|l| l.starts_with("R "))
        .map(|l| {
            l[2..].split_whitespace().map(|w| u32::from_str_radix(w, 16).expect("hex")).collect()
        })
        .collect()
}

fn tmp(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("pisa-spec-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn push_case(mem: &mut String, words: impl IntoIterator<Item = u32>) {
    for w in words {
        writeln!(mem, "{w:08x}").unwrap();
    }
}

#[test]
fn shfl_spec_equals_model() {
    let mut rng = Rng::new(0x05be_c5f1);
    let mut cases: Vec<(SgOp, SgInputs<N>)> = Vec::new();
    for i in 0..CASES {
        let op = SgOp::Shfl { mode: ShflMode::ALL[i % 4], sg: i / 4 % 2 == 1 };
        cases.push((op, random_inputs::<N>(&mut rng, op)));
    }
    let mut mem = String::new();
    for (op, inp) in &cases {
        let SgOp::Shfl { mode, sg } = *op else { unreachable!() };
        let code =
            ShflMode::ALL.iter().position(|m| *m == mode).unwrap() as u32 | (u32::from(sg) << 2);
        push_case(&mut mem, [code, inp.mask & inp.activemask]);
        push_case(&mut mem, inp.src0);
        push_case(&mut mem, inp.src1);
    }
    let tb = format!(
        "module tb;\n reg [31:0] m [0:{last}];\n reg [1:0] mode; reg sg; reg [31:0] part; reg [1023:0] src0, src1, t0, t1; wire [1023:0] dst;\n\
         integer c, l, b;\n pisa_spec_shfl #(.N(32), .K(5)) s (.mode(mode), .sg(sg), .part(part), .src0(src0), .src1(src1), .dst(dst));\n\
         initial begin\n  $readmemh(\"cases.hex\", m);\n  for (c = 0; c < {CASES}; c = c + 1) begin\n   b = c * 66;\n   mode = m[b][1:0]; sg = m[b][2]; part = m[b+1];\n\
         \x20  for (l = 0; l < 32; l = l + 1) begin t0[l*32 +: 32] = m[b+2+l]; t1[l*32 +: 32] = m[b+34+l]; end\n   src0 = t0; src1 = t1; #1;\n   $write(\"R\");\n\
         \x20  for (l = 0; l < 32; l = l + 1) $write(\" %h\", dst[l*32 +: 32]);\n   $write(\"\\n\");\n  end\n end\nendmodule\n",
        last = CASES * 66 - 1
    );
    let got = simulate(&tmp("shfl"), &tb, &mem);
    assert_eq!(got.len(), CASES);
    for ((op, inp), spec_dst) in cases.iter().zip(&got) {
        let want = execute_lanes::<N>(*op, inp);
        for (l, (&s, &w)) in spec_dst.iter().zip(&want.dst).enumerate() {
            if want.wen >> l & 1 == 1 {
                assert_eq!(s, w, "{op} lane {l}: spec {s:#x} model {w:#x}; inputs {inp:?}");
            }
        }
    }
}

#[test]
fn reduce_spec_equals_model_for_every_form() {
    let forms = Property::reduce_forms();
    let mut rng = Rng::new(0x05be_c4ed);
    // each case is drawn for one form (edge weighting depends on the form) and run on all forms
    // (fewer cases: iverilog evaluates 48 spec trees per case)
    let n_cases = 400;
    let cases: Vec<SgInputs<N>> =
        (0..n_cases).map(|i| random_inputs::<N>(&mut rng, forms[i % forms.len()])).collect();
    let mut mem = String::new();
    for inp in &cases {
        push_case(&mut mem, [inp.mask & inp.activemask]);
        push_case(&mut mem, inp.src0);
    }
    let mut tb = format!(
        "module tb;\n reg [31:0] m [0:{last}];\n reg [31:0] part; reg [1023:0] src0, t0; wire [31:0] r [0:{nf}];\n integer c, l, f;\n",
        last = n_cases * 33 - 1,
        nf = forms.len() - 1
    );
    for (i, op) in forms.iter().enumerate() {
        writeln!(tb, " pisa_spec_reduce #(.N(32), .OP(8'h{:02x})) s{i} (.part(part), .src0(src0), .result(r[{i}]));", op.encode()).unwrap();
    }
    write!(
        tb,
        " initial begin\n  $readmemh(\"cases.hex\", m);\n  for (c = 0; c < {n_cases}; c = c + 1) begin\n   part = m[c*33];\n\
         \x20  for (l = 0; l < 32; l = l + 1) t0[l*32 +: 32] = m[c*33+1+l];\n   src0 = t0; #1;\n   $write(\"R\");\n\
         \x20  for (f = 0; f < {nf}; f = f + 1) $write(\" %h\", r[f]);\n   $write(\"\\n\");\n  end\n end\nendmodule\n",
        nf = forms.len()
    )
    .unwrap();
    let got = simulate(&tmp("reduce"), &tb, &mem);
    assert_eq!(got.len(), n_cases);
    let mut checked = 0;
    for (inp, results) in cases.iter().zip(&got) {
        for (f, op) in forms.iter().enumerate() {
            let want = execute_lanes::<N>(*op, inp);
            if want.wen != 0 {
                let lane = want.wen.trailing_zeros() as usize;
                assert_eq!(
                    results[f], want.dst[lane],
                    "{op}: spec {:#x} model {:#x}; inputs {inp:?}",
                    results[f], want.dst[lane]
                );
                checked += 1;
            }
        }
    }
    assert!(
        checked > n_cases * forms.len() / 2,
        "too few cases with participating lanes: {checked}"
    );
}

#[test]
fn lzc_spec_equals_model() {
    let mut rng = Rng::new(0x05be_c1dc);
    let op = SgOp::RedFirstIdx;
    let cases: Vec<SgInputs<N>> = (0..CASES).map(|_| random_inputs::<N>(&mut rng, op)).collect();
    let mut mem = String::new();
    for inp in &cases {
        push_case(&mut mem, [inp.mask & inp.activemask]);
    }
    let tb = format!(
        "module tb;\n reg [31:0] m [0:{last}];\n reg [31:0] bits; wire [31:0] idx; integer c;\n pisa_spec_lzc #(.N(32)) s (.bits(bits), .idx(idx));\n\
         initial begin\n  $readmemh(\"cases.hex\", m);\n  for (c = 0; c < {CASES}; c = c + 1) begin bits = m[c]; #1; $display(\"R %h\", idx); end\n end\nendmodule\n",
        last = CASES - 1
    );
    let got = simulate(&tmp("lzc"), &tb, &mem);
    for (inp, r) in cases.iter().zip(&got) {
        let want = execute_lanes::<N>(op, inp);
        if want.wen != 0 {
            let lane = want.wen.trailing_zeros() as usize;
            assert_eq!(
                r[0], want.dst[lane],
                "redfirstidx: spec {} model {}; inputs {inp:?}",
                r[0], want.dst[lane]
            );
        }
    }
}

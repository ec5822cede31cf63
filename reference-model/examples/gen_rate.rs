//! Profiling helper: the constrained-random case generator's rate per form family, e.g.
//! `target/release/examples/gen_rate 2000000` (cases of every form, as `pisa regress` draws them).
use pisa_model::gen::{random_case, random_inputs, Rng};
use pisa_model::SgOp;
use std::hint::black_box;
fn main() {
    let n: u64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(1_000_000);
    let forms: Vec<SgOp> = SgOp::all();
    let t = std::time::Instant::now();
    for i in 0..n {
        let mut rng = Rng::for_case(1, i);
        black_box(random_case::<32>(&mut rng, &forms));
    }
    let all = t.elapsed().as_secs_f64() / n as f64 * 1e9;
    println!("every form: {all:.1} ns/case");
    for name in ["shfl.idx.32b", "shfl.xor.sg.32b", "ired.sum.32b", "fred.max.f", "fred.max.hfx2"] {
        let op: SgOp = name.parse().unwrap();
        let t = std::time::Instant::now();
        for i in 0..n {
            let mut rng = Rng::for_case(1, i);
            black_box(random_inputs::<32>(&mut rng, op));
        }
        println!("{name}: {:.1} ns/case", t.elapsed().as_secs_f64() / n as f64 * 1e9);
    }
}

//! Profiling helper: the batch path's rate against the batch size (cache effects), e.g.
//! `cargo run --release -p pisa-model --example batch_size -- ired.sum.32b`.
use pisa_model::perf::{workload_of, Workload};
use pisa_model::{execute_batch_into, plain, SgOp, SgOutputs};
use std::hint::black_box;
#[path = "shared/rate.rs"]
mod rate;

fn main() {
    let form: SgOp = match std::env::args().nth(1).unwrap_or("ired.sum.32b".into()).parse() {
        Ok(f) => f,
        Err(e) => return eprintln!("{e}"),
    };
    for n in [16usize, 64, 128, 256, 1024, 8192] {
        let cases = workload_of(form, Workload::Typical, n);
        let rate = |f: &mut dyn FnMut(&mut [SgOutputs])| rate::batch_rate(n, 2_000_000, f);
        let m = rate(&mut |o| execute_batch_into(form, black_box(&cases), o));
        let p = rate(&mut |o| plain::execute_batch_into(form, black_box(&cases), o));
        println!("{form} batch {n:5}: model {m:7.1} M/s  plain {p:7.1} M/s  ratio {:.2}", m / p);
    }
}

//! Constrained-random differential regression: the Verilated unit against the reference model.
//!
//! Case `i` of seed `S` comes from its own random stream (`Rng::for_case(S, i)`), so a run is
//! reproducible from `(seed, count)` and `--shard K/N` (cases with `i % N == K - 1`) splits it
//! across machines without changing any case. Stimulus: `pisa_model::gen`, weighted to the edge
//! classes; 1 case in 50 is a reserved opcode (the unit must write no lane). Pipelined units are
//! streamed back to back with 1 in 10 cycles a bubble.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

pub use pisa_model::exec::replay_line;
use pisa_model::gen::{all_bins, classify, Bin, Rng};
use pisa_model::unit::execute_lanes;
use pisa_model::{SgInputs, SgOp, SgOutputs};
use pisa_rtl::UnitConfig;

use crate::unit::{PortIn, PortOut, RtlUnit, SimError};

/// What to run.
#[derive(Clone, Debug)]
pub struct Options {
    pub count: u64,
    pub seed: u64,
    /// Forms to draw from (all 57 when empty); reserved opcodes only with all forms.
    pub forms: Vec<SgOp>,
    /// `(k, n)`: run cases with `i % n == k - 1`.
    pub shard: (u64, u64),
    pub vcd_dir: Option<PathBuf>,
    /// Called with (cases done, cases in this shard) now and then.
    pub progress: Option<fn(u64, u64, f64)>,
}

/// One failing case.
#[derive(Clone, Debug)]
pub struct Mismatch {
    pub index: u64,
    pub op: Option<SgOp>,
    pub opcode: u8,
    pub lanes: usize,
    pub src0: Vec<u32>,
    pub src1: Vec<u32>,
    pub mask: u32,
    pub activemask: u32,
    pub expected: PortOut,
    pub got: PortOut,
    /// The case as a `pisa exec` JSON line (32 lanes), or a raw case description.
    pub replay: String,
    pub vcd: Option<PathBuf>,
}

/// The result of a run.
#[derive(Clone, Debug)]
pub struct Report {
    pub config: String,
    pub seed: u64,
    pub cases: u64,
    pub seconds: f64,
    /// Clock cycles (pipelined units).
    pub cycles: u64,
    /// Hits per coverage bin (every bin of the forms, hit or not).
    pub coverage: BTreeMap<Bin, u64>,
    pub reserved_cases: u64,
    pub mismatch: Option<Mismatch>,
}

impl Report {
    pub fn rate(&self) -> f64 {
        self.cases as f64 / self.seconds.max(1e-9)
    }
    pub fn bins_hit(&self) -> (usize, usize) {
        (self.coverage.values().filter(|&&c| c > 0).count(), self.coverage.len())
    }
}

/// A case: opcode (maybe reserved), operands, the model's answer.
struct Case<const N: usize> {
    index: u64,
    op: Option<SgOp>,
    code: u8,
    inp: SgInputs<N>,
    want: SgOutputs<N>,
}

/// Dense index of a coverage bin: opcode x participation class x segmask class.
fn bin_index(b: &Bin) -> usize {
    use pisa_model::gen::{MaskClass, SegClass};
    let m = match b.mask {
        MaskClass::Empty => 0,
        MaskClass::Single => 1,
        MaskClass::Partial => 2,
        MaskClass::Full => 3,
    };
    let s = match b.segmask {
        None => 0,
        Some(SegClass::Width(w)) => 1 + w.trailing_zeros() as usize,
        Some(SegClass::Irregular) => 7,
    };
    (b.op.encode() as usize * 4 + m) * 8 + s
}

fn make_case<const N: usize>(seed: u64, index: u64, forms: &[SgOp], reserved: bool) -> Case<N> {
    let mut rng = Rng::for_case(seed, index);
    let (op, inp) = pisa_model::gen::random_case::<N>(&mut rng, forms);
    if reserved && rng.below(50) == 0 {
        let code = loop {
            let c = rng.u32() as u8;
            if SgOp::decode(c).is_none() {
                break c;
            }
        };
        return Case { index, op: None, code, inp, want: SgOutputs { dst: [0; N], wen: 0 } };
    }
    let want = execute_lanes(op, &inp);
    Case { index, op: Some(op), code: op.encode(), inp, want }
}

fn port<const N: usize>(c: &Case<N>) -> PortIn<'_> {
    PortIn {
        op: c.code,
        src0: &c.inp.src0,
        src1: &c.inp.src1,
        mask: c.inp.mask,
        activemask: c.inp.activemask,
    }
}

fn agrees(got: &PortOut, want_dst: &[u32], want_wen: u32) -> bool {
    got.wen == want_wen
        && (0..want_dst.len()).all(|l| want_wen >> l & 1 == 0 || got.dst[l] == want_dst[l])
}

fn run_n<const N: usize>(cfg: &UnitConfig, o: &Options) -> Result<Report, SimError> {
    let mut unit = RtlUnit::open(cfg)?;
    let forms: Vec<SgOp> = if o.forms.is_empty() { SgOp::all() } else { o.forms.clone() };
    let reserved = o.forms.is_empty();
    let bins = all_bins::<N>(&forms);
    let mut counts = vec![0u64; 256 * 4 * 8];
    let (k, n) = o.shard;
    // the shard's case indices, generated chunk by chunk: memory does not grow with the count
    let mut indices = (k - 1..o.count).step_by(n as usize);
    let total = (o.count + n - k) / n;
    let start = Instant::now();
    let cycles0 = unit.cycles();
    let mut done = 0u64;
    let mut reserved_cases = 0u64;
    let mut bubbles = Rng::new(o.seed ^ 0xB0B);
    let mut last_progress = Instant::now();
    loop {
        let cases: Vec<Case<N>> = indices
            .by_ref()
            .take(4096)
            .map(|i| make_case::<N>(o.seed, i, &forms, reserved))
            .collect();
        if cases.is_empty() {
            break;
        }
        let mut bad: Option<(usize, PortOut)> = None;
        unit.stream(
            cases.len(),
            |i| port(&cases[i]),
            || bubbles.below(10) == 0,
            |i, got| {
                if bad.is_none() && !agrees(got, &cases[i].want.dst, cases[i].want.wen) {
                    bad = Some((i, got.clone()));
                }
            },
        );
        for c in &cases {
            match c.op {
                Some(op) => counts[bin_index(&classify::<N>(op, &c.inp))] += 1,
                None => reserved_cases += 1,
            }
        }
        let coverage =
            || -> BTreeMap<Bin, u64> { bins.iter().map(|b| (*b, counts[bin_index(b)])).collect() };
        if let Some((i, got)) = bad {
            let c = &cases[i];
            let expected = PortOut { dst: c.want.dst.to_vec(), wen: c.want.wen };
            let vcd = match &o.vcd_dir {
                Some(dir) => Some(write_vcd(dir, cfg, c.index, &port(c), &expected)?),
                None => None,
            };
            let mismatch = Mismatch {
                index: c.index,
                op: c.op,
                opcode: c.code,
                lanes: N,
                src0: c.inp.src0.to_vec(),
                src1: c.inp.src1.to_vec(),
                mask: c.inp.mask,
                activemask: c.inp.activemask,
                expected,
                got,
                replay: replay_line(
                    c.op,
                    c.code,
                    &c.inp.src0,
                    &c.inp.src1,
                    c.inp.mask,
                    c.inp.activemask,
                ),
                vcd,
            };
            return Ok(Report {
                config: cfg.tag(),
                seed: o.seed,
                cases: done + i as u64 + 1,
                seconds: start.elapsed().as_secs_f64(),
                cycles: unit.cycles() - cycles0,
                coverage: coverage(),
                reserved_cases,
                mismatch: Some(mismatch),
            });
        }
        done += cases.len() as u64;
        if let Some(p) = o.progress {
            if last_progress.elapsed().as_millis() >= 250 || done == total {
                p(done, total, start.elapsed().as_secs_f64());
                last_progress = Instant::now();
            }
        }
    }
    Ok(Report {
        config: cfg.tag(),
        seed: o.seed,
        cases: done,
        seconds: start.elapsed().as_secs_f64(),
        cycles: unit.cycles() - cycles0,
        coverage: bins.iter().map(|b| (*b, counts[bin_index(b)])).collect(),
        reserved_cases,
        mismatch: None,
    })
}

fn write_vcd(
    dir: &Path,
    cfg: &UnitConfig,
    index: u64,
    inp: &PortIn<'_>,
    expected: &PortOut,
) -> Result<PathBuf, SimError> {
    let io = |e: std::io::Error| SimError::Io(format!("{}: {e}", dir.display()));
    std::fs::create_dir_all(dir).map_err(io)?;
    // a new file, never one that is there already (an earlier run's VCD, someone else's file)
    let mut n = 0;
    let (path, file) = loop {
        let name = match n {
            0 => format!("{}_case{index}.vcd", cfg.tag()),
            _ => format!("{}_case{index}.{n}.vcd", cfg.tag()),
        };
        let path = dir.join(name);
        match std::fs::OpenOptions::new().write(true).create_new(true).open(&path) {
            Ok(f) => break (path, f),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => n += 1,
            Err(e) => return Err(io(e)),
        }
    };
    let mut fresh = RtlUnit::open(cfg)?;
    crate::vcd_dump::write_case(std::io::BufWriter::new(file), &mut fresh, inp, expected)
        .map_err(io)?;
    Ok(path)
}

/// Runs the regression on `cfg` (a prebuilt configuration).
pub fn run(cfg: &UnitConfig, o: &Options) -> Result<Report, SimError> {
    assert!(o.shard.0 >= 1 && o.shard.0 <= o.shard.1, "shard K/N with 1 <= K <= N");
    match cfg.lanes {
        4 => run_n::<4>(cfg, o),
        8 => run_n::<8>(cfg, o),
        16 => run_n::<16>(cfg, o),
        _ => run_n::<32>(cfg, o),
    }
}

/// Test hook: the same run against a deliberately different oracle, to show a mismatch is caught
/// and reported. `corrupt` may change the model's answer.
#[doc(hidden)]
pub fn run_with_corrupted_model<const N: usize>(
    cfg: &UnitConfig,
    o: &Options,
    corrupt: fn(SgOp, &mut SgOutputs<N>),
) -> Result<Report, SimError> {
    let mut unit = RtlUnit::open(cfg)?;
    let forms: Vec<SgOp> = if o.forms.is_empty() { SgOp::all() } else { o.forms.clone() };
    for i in 0..o.count {
        let mut c = make_case::<N>(o.seed, i, &forms, false);
        if let Some(op) = c.op {
            corrupt(op, &mut c.want);
        }
        let got = unit.run_one(&port(&c));
        if !agrees(&got, &c.want.dst, c.want.wen) {
            let expected = PortOut { dst: c.want.dst.to_vec(), wen: c.want.wen };
            let vcd = match &o.vcd_dir {
                Some(dir) => Some(write_vcd(dir, cfg, c.index, &port(&c), &expected)?),
                None => None,
            };
            return Ok(Report {
                config: cfg.tag(),
                seed: o.seed,
                cases: i + 1,
                seconds: 0.0,
                cycles: 0,
                coverage: BTreeMap::new(),
                reserved_cases: 0,
                mismatch: Some(Mismatch {
                    index: i,
                    op: c.op,
                    opcode: c.code,
                    lanes: N,
                    src0: c.inp.src0.to_vec(),
                    src1: c.inp.src1.to_vec(),
                    mask: c.inp.mask,
                    activemask: c.inp.activemask,
                    expected,
                    got,
                    replay: replay_line(
                        c.op,
                        c.code,
                        &c.inp.src0,
                        &c.inp.src1,
                        c.inp.mask,
                        c.inp.activemask,
                    ),
                    vcd,
                }),
            });
        }
    }
    Ok(Report {
        config: cfg.tag(),
        seed: o.seed,
        cases: o.count,
        seconds: 0.0,
        cycles: 0,
        coverage: BTreeMap::new(),
        reserved_cases: 0,
        mismatch: None,
    })
}

//! Constrained-random differential regression: the Verilated unit against the reference model.
//!
//! Case `i` of seed `S` comes from its own random stream (`Rng::for_case(S, i)`), and so does
//! whether an idle cycle precedes it in a pipelined unit; `--shard K/N` runs the cases with
//! `i % N == K - 1`. A shard's cases are cut into blocks of [`BLOCK`]; `jobs` threads, each with
//! its own model instance (reset at the start of every block), take blocks in order. The run
//! stops at the first mismatching case (the lowest index), and its coverage counts exactly the
//! cases up to that one: the result does not depend on the number of threads or machines.
//! Stimulus: `pisa_model::gen`, weighted to the edge classes; 1 case in 50 is a reserved opcode
//! (the unit must write no lane).

pub mod code_coverage;
pub mod html;
pub mod report;
pub mod waivers;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

pub use pisa_model::exec::replay_line;
use pisa_model::gen::{all_bins, classify, Bin, Rng};
use pisa_model::unit::execute_n;
use pisa_model::{SgInputs, SgOp, SgOutputs};
use pisa_rtl::UnitConfig;

pub use report::{Mismatch, Report};

use crate::unit::{PortIn, PortOut, RtlUnit, SimError};

/// Cases per block: the unit of work of one thread and of one call into the model.
pub const BLOCK: u64 = 4096;
const BUBBLE_SALT: u64 = 0xB0B5_1DE5;
/// Coverage bins by [`bin_index`]: opcode x participation class x segmask class.
const BINS: usize = 256 * 4 * 8;

/// What to run.
pub struct Options<'a> {
    pub count: u64,
    pub seed: u64,
    /// Forms to draw from (all 57 when empty); reserved opcodes only with all forms.
    pub forms: Vec<SgOp>,
    /// `(k, n)`: run cases with `i % n == k - 1`.
    pub shard: (u64, u64),
    /// Threads, each with its own model (at least 1).
    pub jobs: usize,
    pub vcd_dir: Option<PathBuf>,
    /// Called now and then with (cases done, cases in this shard, seconds).
    pub progress: Option<&'a (dyn Fn(u64, u64, f64) + Sync)>,
    /// The Verilog to run (a folder `pisa emit` wrote, maybe edited); `None`: what the
    /// generator emits for the configuration.
    pub rtl: Option<&'a crate::model::RtlSources>,
    /// The waveform format of `vcd_dir`'s files.
    pub wave_format: crate::vcd_dump::WaveFormat,
    /// Run a model with code coverage points and return their hits
    /// ([`Report::code_coverage`]).
    pub code_coverage: bool,
    /// The mutant of a mutated netlist (`rtl` with a `mutsel` input) to run; 0: none.
    pub mutant: u32,
}

impl Options<'_> {
    /// One shard of `count` cases of `seed`, on one thread, no VCD, no progress.
    pub fn new(count: u64, seed: u64) -> Options<'static> {
        Options {
            count,
            seed,
            forms: vec![],
            shard: (1, 1),
            jobs: 1,
            vcd_dir: None,
            progress: None,
            rtl: None,
            wave_format: crate::vcd_dump::WaveFormat::Vcd,
            code_coverage: false,
            mutant: 0,
        }
    }
}

/// A case: opcode (maybe reserved), operands, the model's answer.
struct Case<const N: usize> {
    index: u64,
    op: Option<SgOp>,
    code: u8,
    inp: SgInputs<N>,
    want: SgOutputs<N>,
    bubble: bool,
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
    let bubble = Rng::for_case(seed ^ BUBBLE_SALT, index).below(10) == 0;
    if reserved && rng.below(50) == 0 {
        let code = loop {
            let c = rng.u32() as u8;
            if SgOp::decode(c).is_none() {
                break c;
            }
        };
        return Case {
            index,
            op: None,
            code,
            inp,
            want: SgOutputs { dst: [0; N], wen: 0 },
            bubble,
        };
    }
    // each case has its own form, so the per-warp entry point (best kernel at 32 lanes)
    let want = execute_n(op, &inp);
    Case { index, op: Some(op), code: op.encode(), inp, want, bubble }
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

/// What one block found: its coverage counts (up to its first mismatch), and that mismatch.
struct BlockResult<const N: usize> {
    block: u64,
    cases: u64,
    reserved: u64,
    counts: Vec<(usize, u64)>,
    bad: Option<(Case<N>, PortOut)>,
    cycles: u64,
}

/// A block's cases as parallel arrays, the layout the model reads and writes in place
/// ([`RtlUnit::run_inputs`]); one per thread, reused from block to block.
struct Block<const N: usize> {
    index: Vec<u64>,
    op: Vec<Option<SgOp>>,
    code: Vec<u8>,
    inp: Vec<SgInputs<N>>,
    want: Vec<SgOutputs<N>>,
    bubble: Vec<bool>,
    got: Vec<SgOutputs<N>>,
    /// Coverage counts by [`bin_index`], zero between blocks.
    counts: Vec<u64>,
}

impl<const N: usize> Block<N> {
    fn new() -> Self {
        Block {
            index: vec![],
            op: vec![],
            code: vec![],
            inp: vec![],
            want: vec![],
            bubble: vec![],
            got: vec![],
            counts: vec![0; BINS],
        }
    }

    fn clear(&mut self) {
        self.index.clear();
        self.op.clear();
        self.code.clear();
        self.inp.clear();
        self.want.clear();
        self.bubble.clear();
    }

    fn push(&mut self, c: Case<N>) {
        self.index.push(c.index);
        self.op.push(c.op);
        self.code.push(c.code);
        self.inp.push(c.inp);
        self.want.push(c.want);
        self.bubble.push(c.bubble);
    }

    fn case(&self, i: usize) -> Case<N> {
        Case {
            index: self.index[i],
            op: self.op[i],
            code: self.code[i],
            inp: self.inp[i].clone(),
            want: self.want[i].clone(),
            bubble: self.bubble[i],
        }
    }
}

fn run_block<const N: usize>(
    unit: &mut RtlUnit,
    o: &Options<'_>,
    forms: &[SgOp],
    reserved: bool,
    b: u64,
    total: u64,
    cases: &mut Block<N>,
) -> BlockResult<N> {
    let (k, n) = o.shard;
    let (first, last) = (b * BLOCK, ((b + 1) * BLOCK).min(total));
    cases.clear();
    for j in first..last {
        cases.push(make_case::<N>(o.seed, k - 1 + n * j, forms, reserved));
    }
    unit.reset();
    let start_cycles = unit.cycles();
    let mut bubbles = cases.bubble.iter().copied();
    let mut got = std::mem::take(&mut cases.got);
    let results =
        unit.run_inputs(&cases.code, &cases.inp, &mut || bubbles.next().unwrap_or(false), &mut got);
    cases.got = got;
    let n = cases.inp.len();
    let mut bad = (0..n).find(|&i| !cases.got[i].agrees_with(&cases.want[i]));
    if results != n {
        // valid_o rose for fewer or more cycles than operations were issued (a broken unit, or
        // a mutant): the first operation without its own result fails (its outputs read as
        // zero), or the last one when there were too many
        bad = Some(bad.unwrap_or(n - 1).min(results.min(n - 1)));
    }
    let counted = bad.map_or(cases.inp.len(), |i| i + 1);
    let mut reserved_cases = 0;
    for (op, inp) in cases.op[..counted].iter().zip(&cases.inp) {
        match op {
            Some(op) => cases.counts[bin_index(&classify::<N>(*op, inp))] += 1,
            None => reserved_cases += 1,
        }
    }
    // the bins this block hit, in index order; the array is zero again for the next block
    let counts: Vec<(usize, u64)> = (cases.counts.iter_mut().enumerate())
        .filter(|(_, c)| **c > 0)
        .map(|(i, c)| (i, std::mem::take(c)))
        .collect();
    let bad = bad.map(|i| {
        let got = PortOut { dst: cases.got[i].dst.to_vec(), wen: cases.got[i].wen };
        (cases.case(i), got)
    });
    BlockResult {
        block: b,
        cases: counted as u64,
        reserved: reserved_cases,
        counts,
        bad,
        cycles: unit.cycles() - start_cycles,
    }
}

fn run_n<const N: usize>(cfg: &UnitConfig, o: &Options<'_>) -> Result<Report, SimError> {
    let forms: Vec<SgOp> = if o.forms.is_empty() { SgOp::all() } else { o.forms.clone() };
    let reserved = o.forms.is_empty();
    let (k, n) = o.shard;
    // the shard's cases are i = k - 1 + n * j for j in 0..total
    let total = if o.count >= k { (o.count - k) / n + 1 } else { 0 };
    let blocks = total.div_ceil(BLOCK);
    let jobs = o.jobs.clamp(1, blocks.max(1) as usize);
    // one model instance per thread, all opened (and the model built) before the clock starts
    let mut units: Vec<RtlUnit> = (0..jobs)
        .map(|_| {
            let mut u = RtlUnit::open_from(cfg, o.rtl, o.code_coverage)?;
            if o.mutant > 0 {
                u.set_mutant(o.mutant)?;
            }
            Ok(u)
        })
        .collect::<Result<_, SimError>>()?;
    let start = Instant::now();
    let next = AtomicU64::new(0);
    let stop = AtomicU64::new(u64::MAX); // the first block with a mismatch
    let done = AtomicU64::new(0);
    let results: Mutex<Vec<BlockResult<N>>> = Mutex::new(Vec::new());
    let main = std::thread::current();
    let finished = std::sync::atomic::AtomicUsize::new(0);
    let seconds = std::thread::scope(|s| {
        let workers: Vec<_> = units
            .iter_mut()
            .map(|unit| {
                let (next, stop, done, results, forms) = (&next, &stop, &done, &results, &forms);
                let (main, finished) = (main.clone(), &finished);
                s.spawn(move || {
                    let mut cases = Block::<N>::new();
                    loop {
                        let b = next.fetch_add(1, Ordering::Relaxed);
                        if b >= blocks || b > stop.load(Ordering::Relaxed) {
                            break;
                        }
                        let r = run_block::<N>(unit, o, forms, reserved, b, total, &mut cases);
                        if r.bad.is_some() {
                            stop.fetch_min(b, Ordering::Relaxed);
                        }
                        done.fetch_add(r.cases, Ordering::Relaxed);
                        if let Ok(mut v) = results.lock() {
                            v.push(r);
                        }
                    }
                    // wake the loop below, so that the run's time ends with the last worker
                    finished.fetch_add(1, Ordering::Release);
                    main.unpark();
                })
            })
            .collect();
        while finished.load(Ordering::Acquire) < workers.len() {
            std::thread::park_timeout(std::time::Duration::from_millis(250));
            if let Some(p) = o.progress {
                p(done.load(Ordering::Relaxed), total, start.elapsed().as_secs_f64());
            }
        }
        start.elapsed().as_secs_f64()
    });
    let mut results = results.into_inner().unwrap_or_default();
    results.sort_by_key(|r| r.block);
    let stop = stop.into_inner();
    let results: Vec<BlockResult<N>> = results.into_iter().filter(|r| r.block <= stop).collect();
    let mut counts = vec![0u64; BINS];
    let (mut cases, mut reserved_cases, mut cycles) = (0, 0, 0);
    let mut bad = None;
    for r in results {
        cases += r.cases;
        reserved_cases += r.reserved;
        cycles += r.cycles;
        for (i, c) in r.counts {
            counts[i] += c;
        }
        if r.bad.is_some() {
            bad = r.bad;
        }
    }
    if let Some(p) = o.progress {
        p(cases, total, seconds);
    }
    let mismatch = match bad {
        None => None,
        Some((c, got)) => Some(mismatch(cfg, o, &c, got)?),
    };
    let code_coverage = if o.code_coverage { Some(collect_coverage(&units)?) } else { None };
    let bins = all_bins::<N>(&forms);
    Ok(Report {
        config: cfg.tag(),
        unit: cfg.canonical(),
        lanes: N,
        seed: o.seed,
        count: o.count,
        shards: vec![o.shard],
        forms: if o.forms.is_empty() {
            None
        } else {
            Some(o.forms.iter().map(|f| f.to_string()).collect())
        },
        cases,
        seconds,
        cycles,
        coverage: bins.iter().map(|b| (*b, counts[bin_index(b)])).collect(),
        reserved_cases,
        mismatches: mismatch.into_iter().collect(),
        jobs,
        rtl: o.rtl.map(|r| (r.dir.display().to_string(), r.sha256.clone())),
        code_coverage,
        code_coverage_dir: None,
    })
}

/// The code coverage of the run's model instances (one per thread), summed.
fn collect_coverage(units: &[RtlUnit]) -> Result<code_coverage::CodeCoverage, SimError> {
    let mut total = code_coverage::CodeCoverage::default();
    for u in units {
        let p = std::env::temp_dir().join(pisa_rtl::outdir::unique_name("pisa-coverage.dat"));
        let r = u.write_coverage(&p).and_then(|()| {
            std::fs::read_to_string(&p).map_err(|e| SimError::Io(format!("{}: {e}", p.display())))
        });
        let _ = std::fs::remove_file(&p);
        let c = code_coverage::CodeCoverage::parse(&r?, "coverage.dat").map_err(SimError::Io)?;
        total.add(&c).map_err(SimError::Io)?;
    }
    Ok(total)
}

/// The report of a mismatching case, with its VCD when `o.vcd_dir` asks for one.
fn mismatch<const N: usize>(
    cfg: &UnitConfig,
    o: &Options<'_>,
    c: &Case<N>,
    got: PortOut,
) -> Result<Mismatch, SimError> {
    let expected = PortOut { dst: c.want.dst.to_vec(), wen: c.want.wen };
    let vcd = match &o.vcd_dir {
        Some(dir) => Some(write_vcd(dir, cfg, o.rtl, o.wave_format, c.index, &port(c), &expected)?),
        None => None,
    };
    Ok(Mismatch::new(
        c.index,
        c.op,
        c.code,
        N,
        &c.inp.src0,
        &c.inp.src1,
        c.inp.mask,
        c.inp.activemask,
        expected,
        got,
        vcd,
    ))
}

fn write_vcd(
    dir: &Path,
    cfg: &UnitConfig,
    rtl: Option<&crate::model::RtlSources>,
    format: crate::vcd_dump::WaveFormat,
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
            0 => format!("{}_case{index}.{}", cfg.tag(), format.extension()),
            _ => format!("{}_case{index}.{n}.{}", cfg.tag(), format.extension()),
        };
        let path = dir.join(name);
        match std::fs::OpenOptions::new().write(true).create_new(true).open(&path) {
            Ok(f) => break (path, f),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => n += 1,
            Err(e) => return Err(io(e)),
        }
    };
    let mut fresh = RtlUnit::open_from(cfg, rtl, false)?;
    crate::vcd_dump::write_case_as(
        format,
        std::io::BufWriter::new(file),
        &mut fresh,
        inp,
        expected,
    )
    .map_err(io)?;
    Ok(path)
}

/// Writes the waveform (VCD or FST) of a reported mismatch into `dir` (created if need be; a new file, never one
/// that is there): the path written. The CLI calls it after printing the verdict.
pub fn write_mismatch_vcd(
    cfg: &UnitConfig,
    rtl: Option<&crate::model::RtlSources>,
    format: crate::vcd_dump::WaveFormat,
    m: &Mismatch,
    dir: &Path,
) -> Result<PathBuf, SimError> {
    let inp = PortIn {
        op: m.opcode,
        src0: &m.src0,
        src1: &m.src1,
        mask: m.mask,
        activemask: m.activemask,
    };
    write_vcd(dir, cfg, rtl, format, m.index, &inp, &m.expected)
}

/// Runs the regression on `cfg` (its Verilator model is built on first use).
pub fn run(cfg: &UnitConfig, o: &Options<'_>) -> Result<Report, SimError> {
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
    o: &Options<'_>,
    corrupt: fn(SgOp, &mut SgOutputs<N>),
) -> Result<Report, SimError> {
    let mut unit = RtlUnit::open_from(cfg, o.rtl, false)?;
    let forms: Vec<SgOp> = if o.forms.is_empty() { SgOp::all() } else { o.forms.clone() };
    for i in 0..o.count {
        let mut c = make_case::<N>(o.seed, i, &forms, false);
        if let Some(op) = c.op {
            corrupt(op, &mut c.want);
        }
        let got = unit.run_one(&port(&c));
        let got_out = SgOutputs::<N> { dst: std::array::from_fn(|l| got.dst[l]), wen: got.wen };
        if !got_out.agrees_with(&c.want) {
            let m = mismatch(cfg, o, &c, got)?;
            return Ok(Report::single(cfg, o, i + 1, vec![m]));
        }
    }
    Ok(Report::single(cfg, o, o.count, vec![]))
}

//! One Verilated model of the unit, driven from Rust.

use std::sync::Arc;

use pisa_model::{SgInputs, SgOutputs};
use pisa_rtl::UnitConfig;

use crate::model::Model;

/// Why a model could not be opened or run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SimError {
    #[error("{0}")]
    Io(String),
    /// A tool is missing or a build step failed: the message names the tool or the command.
    #[error("{0}")]
    Tool(String),
    #[error("the RTL backend runs PISA programs, which have 32 lanes; this configuration has {0} lanes (co-simulate smaller units with pisa regress --config)")]
    Lanes(usize),
}

/// The unit's port values for one operation (`lanes` words per source).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PortIn<'a> {
    pub op: u8,
    pub src0: &'a [u32],
    pub src1: &'a [u32],
    pub mask: u32,
    pub activemask: u32,
}

/// Outputs of one operation: `dst` words and write enables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PortOut {
    pub dst: Vec<u32>,
    pub wen: u32,
}

/// Operations for [`RtlUnit::run_batch`], in flat arrays (`lanes` words per operation).
#[derive(Clone, Debug, Default)]
pub struct Batch {
    pub op: Vec<u32>,
    pub src0: Vec<u32>,
    pub src1: Vec<u32>,
    pub mask: Vec<u32>,
    pub activemask: Vec<u32>,
}

impl Batch {
    pub fn clear(&mut self) {
        self.op.clear();
        self.src0.clear();
        self.src1.clear();
        self.mask.clear();
        self.activemask.clear();
    }
    pub fn push(&mut self, p: &PortIn<'_>) {
        self.op.push(p.op as u32);
        self.src0.extend_from_slice(p.src0);
        self.src1.extend_from_slice(p.src1);
        self.mask.push(p.mask);
        self.activemask.push(p.activemask);
    }
    pub fn len(&self) -> usize {
        self.op.len()
    }
    pub fn is_empty(&self) -> bool {
        self.op.is_empty()
    }
}

/// The results of a batch: `dst` (`lanes` words per operation) and `wen`, in issue order.
#[derive(Clone, Debug, Default)]
pub struct BatchOut {
    pub dst: Vec<u32>,
    pub wen: Vec<u32>,
}

/// A Verilated model of the unit. Not `Sync`: one thread drives one model.
pub struct RtlUnit {
    p: *mut std::ffi::c_void,
    model: Arc<Model>,
    lanes: usize,
    latency: usize,
    cycles: u64,
    /// Scratch arrays of the cycle-by-cycle interface (reused between batches).
    scratch: Scratch,
}

#[derive(Default)]
struct Scratch {
    op: Vec<u32>,
    src0: Vec<u32>,
    src1: Vec<u32>,
    mask: Vec<u32>,
    active: Vec<u32>,
    valid: Vec<u32>,
    dst: Vec<u32>,
    wen: Vec<u32>,
    valid_o: Vec<u32>,
}

// SAFETY: the model owns its VerilatedContext and holds no thread-local state; moving it to
// another thread is fine as long as only one thread uses it at a time (RtlUnit is not Sync).
unsafe impl Send for RtlUnit {}

impl RtlUnit {
    /// Opens a fresh model of `cfg`, out of reset. The Verilator model is built on first use
    /// and cached (see [`crate::model`]).
    pub fn open(cfg: &UnitConfig) -> Result<RtlUnit, SimError> {
        Self::open_from(cfg, None, false)
    }

    /// [`RtlUnit::open`] of the Verilog in `sources` when given (`cfg` is its unit); with
    /// `coverage`, a model with code coverage points ([`RtlUnit::write_coverage`]).
    pub fn open_from(
        cfg: &UnitConfig,
        sources: Option<&crate::model::RtlSources>,
        coverage: bool,
    ) -> Result<RtlUnit, SimError> {
        let model = Model::open_from(cfg, sources, coverage)?;
        // SAFETY: `new` returns a fresh model instance; it is freed exactly once, in Drop.
        let p = unsafe { (model.new)() };
        let mut u = RtlUnit {
            p,
            model,
            lanes: cfg.lanes,
            latency: cfg.latency(),
            cycles: 0,
            scratch: Scratch::default(),
        };
        u.reset();
        Ok(u)
    }

    /// Writes this instance's code coverage (Verilator's `coverage.dat`) to `path`; an error
    /// for a model built without coverage points.
    pub fn write_coverage(&self, path: &std::path::Path) -> Result<(), SimError> {
        if !self.model.coverage {
            return Err(SimError::Tool("the model has no coverage points".into()));
        }
        let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes())
            .map_err(|_| SimError::Io(format!("{}: a NUL in the path", path.display())))?;
        // SAFETY: `p` is this instance's live model; `c` outlives the call
        let r = unsafe { (self.model.coverage_write)(self.p, c.as_ptr()) };
        if r != 0 || !path.is_file() {
            return Err(SimError::Io(format!("{}: coverage not written", path.display())));
        }
        Ok(())
    }

    /// Selects mutant `k` of a mutated netlist (0: the unmutated unit); an error for a model
    /// without a `mutsel` input. The selection holds until the next call, through resets.
    pub fn set_mutant(&mut self, k: u32) -> Result<(), SimError> {
        // SAFETY: `p` is this instance's live model
        let r = unsafe { (self.model.mutant)(self.p, k) };
        if r != 0 {
            return Err(SimError::Tool("the model has no mutsel input".into()));
        }
        Ok(())
    }

    /// Lanes of this model.
    pub fn lanes(&self) -> usize {
        self.lanes
    }

    /// Cycles from `valid_i` to `valid_o`.
    pub fn latency(&self) -> usize {
        self.latency
    }

    /// Configuration tag, e.g. `l32_p2`.
    pub fn tag(&self) -> String {
        self.model.cfg.tag()
    }

    /// The model's cache folder (its Verilog, logs and library).
    pub fn model_dir(&self) -> &std::path::Path {
        &self.model.dir
    }

    /// Clock cycles run since opening.
    pub fn cycles(&self) -> u64 {
        self.cycles
    }

    /// Holds `rst_ni` low for two cycles with `valid_i` low.
    pub fn reset(&mut self) {
        let z = vec![0u32; self.lanes];
        for _ in 0..2 {
            self.drive(&PortIn { op: 0, src0: &z, src1: &z, mask: 0, activemask: 0 }, false, false);
            self.tick();
        }
    }

    /// Sets every input port (`rst_n` false holds reset).
    pub fn drive(&mut self, inp: &PortIn<'_>, valid: bool, rst_n: bool) {
        assert!(inp.src0.len() == self.lanes && inp.src1.len() == self.lanes, "one word per lane");
        // SAFETY: the pointers cover `lanes` words each, as the shim reads.
        unsafe {
            (self.model.set)(
                self.p,
                inp.src0.as_ptr(),
                inp.src1.as_ptr(),
                inp.mask,
                inp.activemask,
                inp.op as u32,
                valid as u32,
                rst_n as u32,
            )
        };
    }

    /// Settles combinational logic.
    pub fn eval(&mut self) {
        // SAFETY: valid model pointer.
        unsafe { (self.model.eval)(self.p) };
    }

    /// One clock cycle.
    pub fn tick(&mut self) {
        // SAFETY: valid model pointer.
        unsafe { (self.model.tick)(self.p) };
        self.cycles += 1;
    }

    /// The output ports now: `(dst, wen, valid_o)`.
    pub fn sample(&mut self) -> (PortOut, bool) {
        let mut out = PortOut { dst: vec![0u32; self.lanes], wen: 0 };
        let valid = self.sample_into(&mut out);
        (out, valid)
    }

    /// The output ports into `out` (no allocation); returns `valid_o`.
    pub fn sample_into(&mut self, out: &mut PortOut) -> bool {
        assert_eq!(out.dst.len(), self.lanes, "one word per lane");
        let mut valid = 0u32;
        // SAFETY: `dst` holds `lanes` words, as the shim writes.
        unsafe { (self.model.get)(self.p, out.dst.as_mut_ptr(), &mut out.wen, &mut valid) };
        valid != 0
    }

    /// Runs one operation alone and returns its result: evaluates a combinational unit, or
    /// issues with `valid_i` and clocks a pipelined one until `valid_o`.
    pub fn run_one(&mut self, inp: &PortIn<'_>) -> PortOut {
        let mut b = Batch::default();
        b.push(inp);
        let out = self.run_batch(&b, &mut || false);
        PortOut { dst: out.dst, wen: out.wen[0] }
    }

    /// Runs a batch of operations in one call into the model: a combinational unit evaluates
    /// each; a pipelined one streams them one per clock, with an idle cycle (`valid_i` low)
    /// wherever `bubble()` says so, and the results come back in issue order.
    pub fn run_batch(&mut self, b: &Batch, bubble: &mut dyn FnMut() -> bool) -> BatchOut {
        let (n, l) = (b.len(), self.lanes);
        let clocked = self.latency > 0;
        let s = &mut self.scratch;
        for v in [&mut s.op, &mut s.src0, &mut s.src1, &mut s.mask, &mut s.active, &mut s.valid] {
            v.clear();
        }
        // the cycle schedule: each operation in order with bubbles between, then idle cycles
        // until the last result leaves the pipeline (it is sampled `latency - 1` cycles after
        // the cycle that issues it)
        let push = |s: &mut Scratch, op: Option<usize>| {
            let (o, m, a, v) = match op {
                Some(i) => (b.op[i], b.mask[i], b.activemask[i], 1),
                None => (0, 0, 0, 0),
            };
            s.op.push(o);
            s.mask.push(m);
            s.active.push(a);
            s.valid.push(v);
            match op {
                Some(i) => {
                    s.src0.extend_from_slice(&b.src0[i * l..(i + 1) * l]);
                    s.src1.extend_from_slice(&b.src1[i * l..(i + 1) * l]);
                }
                None => {
                    s.src0.extend(std::iter::repeat_n(0, l));
                    s.src1.extend(std::iter::repeat_n(0, l));
                }
            }
        };
        let mut i = 0;
        while i < n {
            if clocked && bubble() {
                push(s, None);
            } else {
                push(s, Some(i));
                i += 1;
            }
        }
        for _ in 1..self.latency {
            push(s, None);
        }
        let c = s.valid.len();
        s.dst.resize(c * l, 0);
        s.wen.resize(c, 0);
        s.valid_o.resize(c, 0);
        // SAFETY: every array holds `c` entries (`c * lanes` words for the sources and dst), as
        // the shim reads and writes.
        unsafe {
            (self.model.cycles)(
                self.p,
                c as u32,
                clocked as u32,
                s.op.as_ptr(),
                s.src0.as_ptr(),
                s.src1.as_ptr(),
                s.mask.as_ptr(),
                s.active.as_ptr(),
                s.valid.as_ptr(),
                s.dst.as_mut_ptr(),
                s.wen.as_mut_ptr(),
                s.valid_o.as_mut_ptr(),
            )
        };
        if clocked {
            self.cycles += c as u64;
        }
        let mut out = BatchOut { dst: Vec::with_capacity(n * l), wen: Vec::with_capacity(n) };
        for cycle in 0..c {
            // a combinational unit answers in the same cycle; a pipelined one raises valid_o
            if (!clocked && s.valid[cycle] != 0) || (clocked && s.valid_o[cycle] != 0) {
                out.dst.extend_from_slice(&s.dst[cycle * l..(cycle + 1) * l]);
                out.wen.push(s.wen[cycle]);
            }
        }
        assert_eq!(out.wen.len(), n, "every operation returns in order ({})", self.tag());
        out
    }

    /// Runs `inputs[k]` with opcode `codes[k]` for every `k`, in one call into the model that
    /// reads the operands and writes `out` in place (no copies): a combinational unit evaluates
    /// each; a pipelined one streams them one per clock, with an idle cycle before an operation
    /// wherever `bubble()` says so. `out` receives one result per operation, in issue order.
    /// Returns the number of results the unit gave (`valid_o` cycles of a pipelined unit): the
    /// number of operations for a working unit; when it is fewer, the missing results are zero.
    ///
    /// Panics if `N` is not this model's lane count or the slices differ in length (programming
    /// errors).
    pub fn run_inputs<const N: usize>(
        &mut self,
        codes: &[u8],
        inputs: &[SgInputs<N>],
        bubble: &mut dyn FnMut() -> bool,
        out: &mut Vec<SgOutputs<N>>,
    ) -> usize {
        assert_eq!(N, self.lanes, "run_inputs: {N} lanes on a {}-lane model", self.lanes);
        assert_eq!(codes.len(), inputs.len(), "run_inputs: one opcode per operation");
        let n = inputs.len();
        let clocked = self.latency > 0;
        let mut sched: Vec<i32> = Vec::with_capacity(n + n / 8 + self.latency);
        for k in 0..n {
            if clocked && bubble() {
                sched.push(-1);
            }
            sched.push(k as i32);
        }
        for _ in 1..self.latency {
            sched.push(-1);
        }
        out.clear();
        out.resize(n, SgOutputs { dst: [0; N], wen: 0 });
        // SAFETY: `inputs` holds `n` `#[repr(C)]` SgInputs<N> of `stride` bytes each and `codes`
        // `n` opcodes; every entry of `sched` is below `n`; `out` holds `n` `#[repr(C)]`
        // SgOutputs<N> (N + 1 words each), and the shim writes at most `n` of them.
        let results = unsafe {
            (self.model.run)(
                self.p,
                sched.len() as u32,
                clocked as u32,
                sched.as_ptr(),
                inputs.as_ptr().cast::<u8>(),
                std::mem::size_of::<SgInputs<N>>(),
                codes.as_ptr(),
                out.as_mut_ptr().cast::<u32>(),
                n as u32,
            )
        };
        if clocked {
            self.cycles += sched.len() as u64;
        }
        results as usize
    }

    /// Streams `count` operations through the unit (see [`RtlUnit::run_batch`]); `done(i, out)`
    /// receives each result in issue order. Returns the cycles used.
    pub fn stream<'a>(
        &mut self,
        count: usize,
        mut issue: impl FnMut(usize) -> PortIn<'a>,
        mut bubble: impl FnMut() -> bool,
        mut done: impl FnMut(usize, &PortOut),
    ) -> u64 {
        let start = self.cycles;
        let mut b = Batch::default();
        for i in 0..count {
            b.push(&issue(i));
        }
        let r = self.run_batch(&b, &mut bubble);
        let mut out = PortOut { dst: vec![0; self.lanes], wen: 0 };
        for i in 0..count {
            out.dst.copy_from_slice(&r.dst[i * self.lanes..(i + 1) * self.lanes]);
            out.wen = r.wen[i];
            done(i, &out);
        }
        self.cycles - start
    }
}

impl Drop for RtlUnit {
    fn drop(&mut self) {
        // SAFETY: created by `new`, freed once.
        unsafe { (self.model.free)(self.p) };
    }
}

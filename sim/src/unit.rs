//! One Verilated model of the unit.

use pisa_rtl::UnitConfig;
use pisa_sim_sys::{Shim, CONFIGS};

/// Why a model could not be opened.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SimError {
    #[error("{0}")]
    Io(String),
    #[error("the RTL backend runs PISA programs, which have 32 lanes; this configuration has {0} lanes (co-simulate smaller units with pisa regress --config)")]
    Lanes(usize),
    #[error("no prebuilt Verilator model for {lanes} lanes with pipeline = {pipeline}{detail}; prebuilt: {available} (add one at build time with PISA_SIM_CONFIGS=\"{lanes}:{pipeline}\" or PISA_SIM_CONFIGS=\"path/to/unit.toml\")")]
    NotBuilt { lanes: usize, pipeline: usize, detail: String, available: String },
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

/// A Verilated model of the unit. Not `Sync`: one thread drives one model.
pub struct RtlUnit {
    p: *mut std::ffi::c_void,
    shim: &'static Shim,
    lanes: usize,
    cycles: u64,
}

// SAFETY: the model owns its VerilatedContext and holds no thread-local state; moving it to
// another thread is fine as long as only one thread uses it at a time (RtlUnit is not Sync).
unsafe impl Send for RtlUnit {}

/// A prebuilt model's configuration (build.rs wrote it from a valid `UnitConfig`).
fn shim_config(s: &Shim) -> UnitConfig {
    UnitConfig::from_toml(s.config, s.tag)
        .unwrap_or_else(|e| unreachable!("prebuilt configuration {}: {e}", s.tag))
}

impl RtlUnit {
    /// The configurations built into this binary.
    pub fn available() -> Vec<UnitConfig> {
        CONFIGS.iter().map(shim_config).collect()
    }

    /// Opens a fresh model of `cfg` (out of reset): the prebuilt model of the same unit (the
    /// same lanes and registers, however the configuration names them).
    pub fn open(cfg: &UnitConfig) -> Result<RtlUnit, SimError> {
        let shim = CONFIGS.iter().find(|s| shim_config(s).same_unit(cfg)).ok_or_else(|| {
            SimError::NotBuilt {
                lanes: cfg.lanes,
                pipeline: cfg.pipeline,
                detail: cfg
                    .pipeline_at
                    .as_ref()
                    .map(|a| format!(" (pipeline_at {a:?})"))
                    .unwrap_or_default()
                    + &if cfg.pipeline_extra.is_empty() {
                        String::new()
                    } else {
                        format!(
                            " (pipeline_extra {:?})",
                            cfg.pipeline_extra.iter().map(|e| e.name()).collect::<Vec<_>>()
                        )
                    },
                available: CONFIGS.iter().map(|s| s.tag).collect::<Vec<_>>().join(", "),
            }
        })?;
        // SAFETY: `new` returns a fresh model; it is freed exactly once, in Drop.
        let p = unsafe { (shim.new)() };
        let mut u = RtlUnit { p, shim, lanes: cfg.lanes, cycles: 0 };
        u.reset();
        Ok(u)
    }

    /// Lanes of this model.
    pub fn lanes(&self) -> usize {
        self.lanes
    }

    /// Cycles from `valid_i` to `valid_o`.
    pub fn latency(&self) -> usize {
        self.shim.latency
    }

    /// Configuration tag, e.g. `l32_p2`.
    pub fn tag(&self) -> &'static str {
        self.shim.tag
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
            (self.shim.set)(
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
        unsafe { (self.shim.eval)(self.p) };
    }

    /// One clock cycle.
    pub fn tick(&mut self) {
        // SAFETY: valid model pointer.
        unsafe { (self.shim.tick)(self.p) };
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
        unsafe { (self.shim.get)(self.p, out.dst.as_mut_ptr(), &mut out.wen, &mut valid) };
        valid != 0
    }

    /// Runs one operation alone and returns its result: evaluates a combinational unit, or
    /// issues with `valid_i` and clocks a pipelined one until `valid_o`.
    pub fn run_one(&mut self, inp: &PortIn<'_>) -> PortOut {
        self.drive(inp, true, true);
        if self.latency() == 0 {
            self.eval();
            return self.sample().0;
        }
        self.tick();
        let zeros = vec![0u32; self.lanes];
        let idle = PortIn { op: 0, src0: &zeros, src1: &zeros, mask: 0, activemask: 0 };
        for _ in 1..self.latency() {
            self.drive(&idle, false, true);
            self.tick();
        }
        self.eval();
        let (out, valid) = self.sample();
        debug_assert!(valid, "valid_o after `latency` cycles");
        out
    }

    /// Streams operations through the unit, one per clock where `issue(i)` gives the next one,
    /// with an idle cycle (`valid_i` low) wherever `bubble()` says so. `done(i, out)` receives each
    /// result in issue order (`out` is reused between calls). Returns the cycles used.
    pub fn stream<'a>(
        &mut self,
        count: usize,
        mut issue: impl FnMut(usize) -> PortIn<'a>,
        mut bubble: impl FnMut() -> bool,
        mut done: impl FnMut(usize, &PortOut),
    ) -> u64 {
        let start = self.cycles;
        let mut out = PortOut { dst: vec![0u32; self.lanes], wen: 0 };
        if self.latency() == 0 {
            for i in 0..count {
                let inp = issue(i);
                self.drive(&inp, true, true);
                self.eval();
                self.sample_into(&mut out);
                done(i, &out);
            }
            return 0;
        }
        let zeros = vec![0u32; self.lanes];
        let (mut issued, mut retired) = (0usize, 0usize);
        while retired < count {
            if issued < count && !bubble() {
                let inp = issue(issued);
                self.drive(&inp, true, true);
                issued += 1;
            } else {
                self.drive(
                    &PortIn { op: 0, src0: &zeros, src1: &zeros, mask: 0, activemask: 0 },
                    false,
                    true,
                );
            }
            self.tick();
            if self.sample_into(&mut out) {
                done(retired, &out);
                retired += 1;
            }
            assert!(issued - retired <= self.latency(), "at most `latency` operations in flight");
        }
        self.cycles - start
    }
}

impl Drop for RtlUnit {
    fn drop(&mut self) {
        // SAFETY: created by `new`, freed once.
        unsafe { (self.shim.free)(self.p) };
    }
}

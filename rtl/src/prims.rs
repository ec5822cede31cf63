//! Primitive blocks: configuration carriers and the pipeline registers.
//!
//! Registers are leaf blocks with hand-written Verilog (as rust-hdl's own `DFF` is): a positive-
//! edge register for data, and one with a synchronous active-low reset for `valid`. Their
//! `update()` implements the same behaviour for rust-hdl's simulator.

use rust_hdl::prelude::*;

/// A configuration value kept inside a block. It is not a signal: it does not appear in
/// simulation or in the Verilog, but `#[hdl_gen]` code can use it in loop bounds, so a
/// `for e in 0..self.stage.0` loop elaborates its body only where the configuration asks for it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Param<T>(pub T);

impl<T> Logic for Param<T> {
    fn update(&mut self) {}
}

impl<T> Block for Param<T> {
    fn connect_all(&mut self) {}
    fn update_all(&mut self) {}
    fn has_changed(&self) -> bool {
        false
    }
    fn accept(&self, _name: &str, _probe: &mut dyn Probe) {}
}

/// 1 when `b`, else 0: loop bounds that elaborate a body once or not at all.
pub const fn on(b: bool) -> usize {
    b as usize
}

/// The body of [`PipeReg`]'s Verilog (the emitter recognises the module by it).
pub const PIPE_REG_VERILOG: &str = "always @(posedge clk_i) begin\n    q_o <= d_i;\nend";

/// The body of [`ValidReg`]'s Verilog (the emitter recognises the module by it).
pub const VALID_REG_VERILOG: &str =
    "always @(posedge clk_i) begin\n    if (!rst_ni) q_o <= 1'b0;\n    else q_o <= d_i;\nend";

/// A pipeline register: `q_o` takes `d_i` at each rising edge of `clk_i`. No reset — data
/// registers need none; `valid` travels through [`ValidReg`].
#[derive(Clone, Debug, LogicBlock)]
pub struct PipeReg<T: Synth> {
    pub clk_i: Signal<In, Clock>,
    pub d_i: Signal<In, T>,
    pub q_o: Signal<Out, T>,
}

impl<T: Synth> Default for PipeReg<T> {
    fn default() -> Self {
        PipeReg { clk_i: Default::default(), d_i: Default::default(), q_o: Default::default() }
    }
}

impl<T: Synth> Logic for PipeReg<T> {
    fn update(&mut self) {
        if self.clk_i.pos_edge() {
            self.q_o.next = self.d_i.val();
        }
    }
    fn connect(&mut self) {
        self.q_o.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(PIPE_REG_VERILOG.into())
    }
    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "pipe_reg".into(),
            clock: "clk_i".into(),
            inputs: vec!["d_i".into()],
            outputs: vec!["q_o".into()],
        }]
    }
}

/// The `valid` register: synchronous active-low reset to 0.
#[derive(Clone, Debug, Default, LogicBlock)]
pub struct ValidReg {
    pub clk_i: Signal<In, Clock>,
    pub rst_ni: Signal<In, Bit>,
    pub d_i: Signal<In, Bit>,
    pub q_o: Signal<Out, Bit>,
}

impl Logic for ValidReg {
    fn update(&mut self) {
        if self.clk_i.pos_edge() {
            self.q_o.next = self.rst_ni.val() && self.d_i.val();
        }
    }
    fn connect(&mut self) {
        self.q_o.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(VALID_REG_VERILOG.into())
    }
    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "valid_reg".into(),
            clock: "clk_i".into(),
            inputs: vec!["d_i".into(), "rst_ni".into()],
            outputs: vec!["q_o".into()],
        }]
    }
}

/// `n` default-constructed blocks (for register banks and signal arrays).
pub fn many<T: Default>(n: usize) -> Vec<T> {
    (0..n).map(|_| T::default()).collect()
}

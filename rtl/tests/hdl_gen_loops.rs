//! `pisa_hdl_gen::hdl_gen` (rtl/hdl-gen): a loop's bounds may use an outer loop's variable and
//! a signal name may carry several Rust indices. A four-input adder tree written once as a loop
//! over its levels (`v[b]` holds `4 >> b` sums), checked in rust-hdl's simulator and in the
//! Verilog it generates.

use pisa_hdl_gen::hdl_gen;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
struct SumTree {
    pub x_i: Vec<Signal<In, Bits<8>>>,
    pub y_o: Signal<Out, Bits<8>>,
    /// Level `b`: `4 >> b` partial sums (`v[0]`: the inputs).
    v: Vec<Vec<Signal<Local, Bits<8>>>>,
}

impl SumTree {
    fn new() -> Self {
        SumTree {
            x_i: (0..4).map(|_| Default::default()).collect(),
            y_o: Default::default(),
            v: (0..3).map(|b| (0..(4 >> b)).map(|_| Default::default()).collect()).collect(),
        }
    }
}

impl Logic for SumTree {
    #[hdl_gen]
    fn update(&mut self) {
        for j in 0..4 {
            self.v[0][j].next = self.x_i[j].val();
        }
        for b in 1..3 {
            for j in 0..(4 >> b) {
                self.v[b][j].next = self.v[b - 1][2 * j].val() + self.v[b - 1][2 * j + 1].val();
            }
        }
        self.y_o.next = self.v[2][0].val();
    }
}

#[test]
fn a_level_loop_simulates_and_generates_every_level() {
    let mut t = SumTree::new();
    t.connect_all();
    for (k, xs) in [[1u64, 2, 3, 4], [200, 100, 7, 0], [255, 255, 255, 255]].iter().enumerate() {
        for (j, &x) in xs.iter().enumerate() {
            t.x_i[j].next = x.into();
        }
        assert!(simulate(&mut t, 10), "settles");
        let want = xs.iter().sum::<u64>() & 0xff;
        assert_eq!(t.y_o.val().index() as u64, want, "case {k}");
    }
    let v = generate_verilog_unchecked(&t);
    // every node of every level, each reading its two children by their own level's names
    for (node, a, b) in
        [("v$1$0", "v$0$0", "v$0$1"), ("v$1$1", "v$0$2", "v$0$3"), ("v$2$0", "v$1$0", "v$1$1")]
    {
        let line = format!("{node} = {a} + {b};");
        assert!(v.contains(&line), "no `{line}` in\n{v}");
    }
    assert!(v.contains("y_o = v$2$0;"), "{v}");
    // nothing beyond the levels' sizes
    assert!(!v.contains("v$1$2") && !v.contains("v$2$1") && !v.contains("v$3$"), "{v}");
}

/// `opt_reg!(PRESENT, REG, D => Q)`: one optional register, present or a wire.
#[derive(LogicBlock)]
struct Delay {
    pub clk_i: Signal<In, Clock>,
    pub d_i: Signal<In, Bits<8>>,
    pub q_o: Signal<Out, Bits<8>>,
    r: Vec<pisa_rtl::prims::PipeReg<Bits<8>>>,
    present: pisa_rtl::prims::Param<usize>,
}

impl Delay {
    fn new(present: usize) -> Self {
        Delay {
            clk_i: Default::default(),
            d_i: Default::default(),
            q_o: Default::default(),
            r: (0..present).map(|_| Default::default()).collect(),
            present: pisa_rtl::prims::Param(present),
        }
    }
}

impl Logic for Delay {
    #[hdl_gen]
    fn update(&mut self) {
        opt_reg!(self.present.0, self.r[0], self.d_i.val() + 1 => self.q_o);
    }
}

#[test]
fn an_optional_register_is_a_register_or_a_wire() {
    for present in [0, 1] {
        let mut d = Delay::new(present);
        d.connect_all();
        d.d_i.next = 5.into();
        assert!(simulate(&mut d, 10));
        // a wire passes d + 1 at once; the register still holds its reset value 0
        let want = if present == 1 { 0 } else { 6 };
        assert_eq!(d.q_o.val().index(), want, "present {present} before the edge");
        d.clk_i.next = true.into();
        assert!(simulate(&mut d, 10));
        assert_eq!(d.q_o.val().index(), 6, "present {present} after the edge");
        let v = generate_verilog_unchecked(&d);
        if present == 1 {
            assert!(v.contains("r$0$d_i = d_i + 32'h1;") && v.contains("q_o = r$0$q_o;"), "{v}");
        } else {
            assert!(v.contains("q_o = d_i + 32'h1;") && !v.contains("r$0"), "{v}");
        }
    }
}

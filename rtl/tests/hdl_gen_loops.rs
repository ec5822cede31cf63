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

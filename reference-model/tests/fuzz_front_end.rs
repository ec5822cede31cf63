//! Fuzzing of the assembler and JSON front end: random text, token soup built from the PISA
//! vocabulary, and mutated valid cases must give an answer or a located error — never a panic.

use pisa_model::asm::assemble;
use pisa_model::exec::exec_case;
use pisa_model::interp::RunOptions;
use pisa_model::RefBackend;
use proptest::prelude::*;

const VOCAB: &[&str] = &[
    "shfl",
    "fred",
    "ired",
    "redfirstidx",
    "iadd",
    "isub",
    "ucmp",
    "sel",
    "goto",
    ".up",
    ".dn",
    ".xor",
    ".idx",
    ".sg",
    ".32b",
    ".16b",
    ".v2",
    ".min",
    ".max",
    ".absmax",
    ".nanp",
    ".f",
    ".hf",
    ".bf",
    ".hfx2",
    ".bfx2",
    ".sum",
    ".smin",
    ".smax",
    ".umin",
    ".umax",
    ".and",
    ".or",
    ".absmax",
    ".eq",
    ".lt",
    ".ge",
    ".cond",
    ".reg",
    ".pred",
    "%a",
    "%b",
    "%p",
    "%laneid",
    "%activemask",
    "%zz",
    ",",
    ";",
    ":",
    "!",
    "0",
    "1",
    "-1",
    "0xffffffff",
    "0x100000000",
    "99999999999999999999999999999999",
    "l0",
    "l1",
    "\n",
    " ",
    "//c\n",
    "/*",
    "*/",
    "0x",
    "-",
    "%",
    ".",
    "_",
];

fn soup() -> impl Strategy<Value = String> {
    prop::collection::vec(0..VOCAB.len(), 0..40)
        .prop_map(|ix| ix.into_iter().map(|i| VOCAB[i]).collect::<Vec<_>>().join(" "))
}

fn run_case(program: &str, activemask: u32) {
    let case = serde_json::json!({
        "program": program,
        "activemask": activemask,
        "regs": {"%a": (0..32u32).collect::<Vec<_>>(), "%b": vec![0xffffffffu32; 32]},
    });
    let r = exec_case(&case.to_string(), &mut RefBackend, &RunOptions { max_steps: 2000 });
    if let Err(e) = r {
        assert!(!e.to_string().is_empty());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4000, ..ProptestConfig::default() })]

    #[test]
    fn random_text_never_panics(s in any::<String>()) {
        let _ = assemble(&s, &["a"]);
        let _ = exec_case(&s, &mut RefBackend, &RunOptions { max_steps: 100 });
    }

    #[test]
    fn token_soup_never_panics(s in soup(), m in any::<u32>()) {
        if let Err(e) = assemble(&s, &["a", "b"]) {
            prop_assert!(e.pos.line >= 1 && e.pos.col >= 1, "{e}");
        }
        run_case(&s, m);
    }

    #[test]
    fn statements_of_valid_pieces_never_panic(stmts in prop::collection::vec((0..VOCAB.len(), 0..VOCAB.len(), 0..VOCAB.len(), 0..4usize), 0..12), m in any::<u32>()) {
        let body: String = stmts.iter().map(|&(a, b, c, n)| {
            let ops = ["%a", "%b", "1", "l0"];
            format!("{}{}{} {};\n", VOCAB[a], VOCAB[b], VOCAB[c], ops[..n].join(", "))
        }).collect();
        let program = format!(".pred %p;\nl0:\n{body}l1:");
        run_case(&program, m);
    }

    #[test]
    fn mutated_json_never_panics(cut in 0usize..400, byte in any::<u8>()) {
        let good = serde_json::json!({"program": "shfl.up.32b %a, %a, 1, 0xffffffff;", "regs": {"%a": vec![1; 32]}}).to_string();
        let mut b = good.into_bytes();
        let i = cut % b.len();
        b[i] = byte;
        let s = String::from_utf8_lossy(&b).to_string();
        let _ = exec_case(&s, &mut RefBackend, &RunOptions::default());
    }
}

//! The `pisa exec` JSON Lines contract, at the library level (the CLI test drives the binary).

use pisa_model::exec::exec_case;
use pisa_model::interp::RunOptions;
use pisa_model::RefBackend;
use serde_json::{json, Value};

fn exec(case: &Value) -> Result<Value, String> {
    exec_case(&case.to_string(), &mut RefBackend, &RunOptions::default()).map_err(|e| e.to_string())
}

fn lanes(f: impl Fn(u32) -> u32) -> Vec<u32> {
    (0..32).map(f).collect()
}

#[test]
fn answers_every_register_as_integers() {
    let case = json!({
        "program": ".reg .32b %r;\nshfl.idx.32b %r, %a, 3, 0xffffffff;",
        "activemask": "0xffffffff",
        "regs": {"%a": lanes(|i| 10 * i)},
    });
    let out = exec(&case).unwrap();
    assert_eq!(out["regs"]["%r"], json!(vec![30; 32]));
    assert_eq!(out["regs"]["%a"], json!(lanes(|i| 10 * i)));
    assert_eq!(out.as_object().unwrap().len(), 1);
}

#[test]
fn hex_strings_and_defaults() {
    let mut a: Vec<Value> = lanes(|i| i).into_iter().map(Value::from).collect();
    a[0] = json!("0xDEAD_BEEF");
    let case = json!({"program": "ired.umax.32b %d, %a, 0xffffffff;", "regs": {"%a": a, "%d": vec![0; 32]}});
    let out = exec(&case).unwrap();
    assert_eq!(out["regs"]["%d"][5], json!(0xDEAD_BEEFu32));
}

#[test]
fn registers_written_but_not_given_start_at_zero() {
    let case = json!({"program": ".reg .32b %d;\nired.sum.32b %d, %a, 0x1;", "activemask": 3, "regs": {"%a": vec![7; 32]}});
    let out = exec(&case).unwrap();
    assert_eq!(out["regs"]["%d"][0], json!(7));
    assert_eq!(out["regs"]["%d"][1], json!(0), "lane 1 does not participate");
}

#[test]
fn errors_say_what_and_where() {
    let cases: Vec<(String, &str)> = vec![
        ("{\"program\": ".to_string(), "1:12: invalid JSON: EOF while parsing a value"),
        ("[1,2]".to_string(), "expected a JSON object, found an array"),
        (json!({"regs": {}}).to_string(), "missing field \"program\""),
        (json!({"program": 5}).to_string(), "program: expected a string, found a number"),
        (json!({"program": "", "activmask": 1}).to_string(), "unknown field \"activmask\""),
        (json!({"program": "", "activemask": -1}).to_string(), "activemask: -1 is not a 32-bit unsigned integer"),
        (json!({"program": "", "activemask": "0x1_0000_0000"}).to_string(), "activemask: \"0x1_0000_0000\" does not fit 32 bits"),
        (json!({"program": "", "activemask": "12"}).to_string(), "activemask: string \"12\" is not a hex value"),
        (json!({"program": "", "regs": {"a": [0]}}).to_string(), "regs[\"a\"]: register names start with '%'"),
        (json!({"program": "", "regs": {"%a": [0]}}).to_string(), "regs[\"%a\"]: expected 32 values (one per lane), found 1"),
        (json!({"program": "", "regs": {"%a": lanes(|_| 0).into_iter().map(|_| json!(true)).collect::<Vec<_>>()}}).to_string(), "regs[\"%a\"][0]: expected an integer or \"0x..\" string, found a boolean"),
        (json!({"program": "", "regs": {"%laneid": lanes(|i| i)}}).to_string(), "regs[\"%laneid\"]: '%laneid' is a special register"),
        (json!({"program": ".pred %p;", "regs": {"%p": lanes(|i| i)}}).to_string(), "regs[\"%p\"][2]: 0x2 does not fit a .pred (0 or 1)"),
        (json!({"program": "shfl.up.32b %r, %a, 1;"}).to_string(), "program:1:1: 'shfl' takes 4 operands"),
        (json!({"program": "\n\nfoo;"}).to_string(), "program:3:1: unknown instruction 'foo'"),
    ];
    for (line, want) in cases {
        let got =
            exec_case(&line, &mut RefBackend, &RunOptions::default()).unwrap_err().to_string();
        assert!(got.starts_with(want), "{line}\n got:  {got}\n want: {want}");
    }
}

/// The answer lines `exec_stream` writes for `input`.
fn stream(input: &[u8]) -> (pisa_model::exec::StreamSummary, Vec<Value>) {
    let mut out = Vec::new();
    let (sum, err) = pisa_model::exec::exec_stream(
        input,
        &mut out,
        "stdin",
        &mut RefBackend,
        &RunOptions::default(),
    );
    assert!(err.is_none(), "{err:?}");
    let text = String::from_utf8(out).expect("answers are UTF-8");
    (
        sum,
        text.lines()
            .map(|l| serde_json::from_str(l).expect("each answer is one JSON line"))
            .collect(),
    )
}

/// Lines of `input` that get an answer: every line but the blank ones (valid UTF-8, only
/// whitespace), the last line counting even without a newline.
fn answered(input: &[u8]) -> usize {
    let mut lines: Vec<&[u8]> = input.split(|&b| b == b'\n').collect();
    if input.ends_with(b"\n") || input.is_empty() {
        lines.pop();
    }
    lines.iter().filter(|l| !matches!(std::str::from_utf8(l), Ok(s) if s.trim().is_empty())).count()
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

    /// Arbitrary bytes in, exactly one answer line per non-blank input line out, never a panic.
    #[test]
    fn any_byte_stream_gets_one_answer_per_line(
        parts in proptest::collection::vec(
            proptest::prop_oneof![
                proptest::collection::vec(proptest::prelude::any::<u8>(), 0..40),
                proptest::strategy::Just(b"\n".to_vec()),
                proptest::strategy::Just(b"{\"program\": \".reg .32b %r;\\nredfirstidx.32b %r, 6;\"}\n".to_vec()),
                proptest::strategy::Just(b"{\"program\": \"\", \"regs\": {\"%a\": [".to_vec()),
                proptest::strategy::Just(b"  \r\n".to_vec()),
                proptest::strategy::Just(vec![0xff, 0xc3, b'\n']),
            ],
            0..12,
        )
    ) {
        let input: Vec<u8> = parts.concat();
        let (sum, answers) = stream(&input);
        proptest::prop_assert_eq!(answers.len(), answered(&input));
        proptest::prop_assert_eq!(sum.cases as usize, answers.len());
        for a in &answers {
            proptest::prop_assert!(a.get("regs").is_some() ^ a.get("error").is_some(), "{}", a);
        }
    }
}

#[test]
fn a_stream_answers_bad_lines_and_goes_on() {
    let (sum, a) = stream(b"{\"program\": \".reg .32b %r;\\nredfirstidx.32b %r, 6;\"}\n\xff\n\n{\"a\": 1, \"a\": 2}\nnot json\r\n");
    assert_eq!((sum.cases, sum.failed), (4, 3));
    assert_eq!(a[0]["regs"]["%r"][0], 1);
    assert_eq!(a[1]["error"], "stdin:2:1: the line is not UTF-8 text (byte 0xff)");
    assert!(a[2]["error"].as_str().unwrap().starts_with("stdin:4:"), "{}", a[2]);
    assert!(a[3]["error"].as_str().unwrap().starts_with("stdin:5:"), "{}", a[3]);
}

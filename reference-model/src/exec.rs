//! The `pisa exec` JSON Lines contract and the initial-state files of `pisa run`.
//!
//! A case is one JSON object per line:
//! `{"program": "<assembly>", "activemask": <u32 or "0x..">, "regs": {"%a": [32 values], ...}}`.
//! Values are u32 integers or `"0x.."` hex strings; predicates 0/1. `activemask` defaults to
//! `0xffffffff`; `regs` defaults to `{}`; any other field is an error. The answer is
//! `{"regs": {"%name": [32 integers], ...}}` with every register of the program (declared or
//! given), sorted by name, or an error message that says where the problem is.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::asm::{assemble, Pos, Program, SPECIAL_REGS};
use crate::backend::SubgroupBackend;
use crate::interp::{run, Event, RunOptions, RunStats};
use crate::op::{RegKind, SgOp, Warp, LANES};

/// Initial state of a run: `%activemask` and register values (names without `%`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InitialState {
    pub activemask: u32,
    pub regs: BTreeMap<String, Warp>,
}

impl Default for InitialState {
    fn default() -> Self {
        InitialState { activemask: u32::MAX, regs: BTreeMap::new() }
    }
}

/// Parses a JSON value as a u32 (integer or `"0x.."` string); `what` names it in errors.
pub fn parse_u32(v: &Value, what: &str) -> Result<u32, String> {
    match v {
        Value::Number(n) => n.as_u64().and_then(|x| u32::try_from(x).ok()).ok_or_else(|| {
            format!("{what}: {n} is not a 32-bit unsigned integer (0..=4294967295)")
        }),
        Value::String(s) => {
            let hex = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")).ok_or_else(|| {
                format!(
                    "{what}: string {s:?} is not a hex value (write \"0x...\" or a plain integer)"
                )
            })?;
            let digits: String = hex.chars().filter(|&c| c != '_').collect();
            if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_hexdigit()) {
                return Err(format!(
                    "{what}: {s:?} is not a hex value (digits 0-9, a-f after \"0x\")"
                ));
            }
            // leading zeros are fine; what is left must fit 32 bits
            let significant = digits.trim_start_matches('0');
            if significant.len() > 8 {
                return Err(format!("{what}: {s:?} does not fit 32 bits"));
            }
            Ok(u32::from_str_radix(significant, 16).unwrap_or(0))
        }
        other => {
            Err(format!("{what}: expected an integer or \"0x..\" string, found {}", kind(other)))
        }
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Checks a register name given with an initial state (`regs` of a `pisa exec` case, of the
/// Python `run`): `%` and a name the assembler accepts, not a special register. Returns the
/// name without `%`; `what` names it in the error.
pub fn register_name<'a>(name: &'a str, what: &str) -> Result<&'a str, String> {
    let bare =
        name.strip_prefix('%').ok_or_else(|| format!("{what}: register names start with '%'"))?;
    let valid = bare.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && bare.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    if !valid {
        return Err(format!("{what}: not a valid register name"));
    }
    if SPECIAL_REGS.contains(&bare) {
        return Err(format!(
            "{what}: '%{bare}' is a special register; set %activemask with the \"activemask\" field"
        ));
    }
    Ok(bare)
}

/// Parses `activemask` and `regs` out of a JSON object; `allowed` lists the other accepted keys.
pub fn parse_state(obj: &Map<String, Value>, allowed: &[&str]) -> Result<InitialState, String> {
    for k in obj.keys() {
        if k != "activemask" && k != "regs" && !allowed.contains(&k.as_str()) {
            let mut all: Vec<&str> = allowed.to_vec();
            all.extend(["activemask", "regs"]);
            return Err(format!("unknown field {k:?} (expected {})", all.join(", ")));
        }
    }
    let mut st = InitialState::default();
    if let Some(m) = obj.get("activemask") {
        st.activemask = parse_u32(m, "activemask")?;
    }
    match obj.get("regs") {
        None => {}
        Some(Value::Object(regs)) => {
            for (name, vals) in regs {
                let what = format!("regs[{name:?}]");
                let bare = register_name(name, &what)?;
                let Value::Array(arr) = vals else {
                    return Err(format!(
                        "{what}: expected an array of {LANES} values, found {}",
                        kind(vals)
                    ));
                };
                if arr.len() != LANES {
                    return Err(format!(
                        "{what}: expected {LANES} values (one per lane), found {}",
                        arr.len()
                    ));
                }
                let mut w = [0u32; LANES];
                for (i, v) in arr.iter().enumerate() {
                    w[i] = parse_u32(v, &format!("{what}[{i}]"))?;
                }
                st.regs.insert(bare.to_string(), w);
            }
        }
        Some(other) => {
            return Err(format!(
                "regs: expected an object of register arrays, found {}",
                kind(other)
            ))
        }
    }
    Ok(st)
}

/// Builds the register file of `prog` from `st`, checking values against declared types.
pub fn register_file(prog: &Program, st: &InitialState) -> Result<Vec<Warp>, String> {
    prog.regs
        .iter()
        .map(|r| {
            let Some(vals) = st.regs.get(&r.name) else { return Ok([0; LANES]) };
            let max = r.kind.max_value();
            if let Some((lane, v)) = vals.iter().enumerate().find(|(_, v)| **v > max) {
                let ty = if r.kind == RegKind::Pred {
                    "a .pred (0 or 1)".to_string()
                } else {
                    format!("a {} register", r.kind.name())
                };
                return Err(format!("regs[\"%{}\"][{lane}]: {v:#x} does not fit {ty}", r.name));
            }
            Ok(*vals)
        })
        .collect()
}

/// The answer object `{"regs": {...}}` for a finished run.
pub fn regs_json(prog: &Program, regs: &[Warp]) -> Value {
    let mut m = Map::new();
    for (r, vals) in prog.regs.iter().zip(regs) {
        m.insert(
            format!("%{}", r.name),
            Value::Array(vals.iter().map(|&v| Value::from(v)).collect()),
        );
    }
    let mut out = Map::new();
    out.insert("regs".into(), Value::Object(m));
    Value::Object(out)
}

/// Why a case could not run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CaseError {
    /// The text is not valid JSON, at `line:column` of the text.
    Json { line: usize, column: usize, message: String },
    /// The case's fields or register values are wrong.
    State(String),
    /// The program failed to assemble or run, at `pos` in the program text.
    Program { pos: Pos, message: String },
}

/// Where a case's JSON came from, for error locations.
#[derive(Clone, Copy, Debug)]
pub enum Source<'a> {
    /// Line `n` of a JSON Lines stream named `name` (`stdin`).
    Line(&'a str, usize),
    /// A whole JSON file.
    File(&'a str),
}

impl CaseError {
    /// The message with locations: `input` is where the JSON came from, `program` names the
    /// program text (`None`: it came inside the JSON as `"program"`).
    pub fn render(&self, input: Source<'_>, program: Option<&str>) -> String {
        let input_name = match input {
            Source::Line(name, n) => format!("{name}:{n}"),
            Source::File(name) => name.to_string(),
        };
        match self {
            CaseError::Json { line, column, message } => match input {
                Source::Line(name, n) => format!("{name}:{n}:{column}: invalid JSON: {message}"),
                Source::File(name) => format!("{name}:{line}:{column}: invalid JSON: {message}"),
            },
            CaseError::State(m) => format!("{input_name}: {m}"),
            CaseError::Program { pos, message } => match program {
                None => format!("{input_name}: program:{pos}: {message}"),
                Some(file) => format!("{file}:{pos}: {message}"),
            },
        }
    }
}

impl std::fmt::Display for CaseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CaseError::Json { line, column, message } => {
                write!(f, "{line}:{column}: invalid JSON: {message}")
            }
            CaseError::State(m) => f.write_str(m),
            CaseError::Program { pos, message } => write!(f, "program:{pos}: {message}"),
        }
    }
}

impl std::error::Error for CaseError {}

/// A finished case: the checked program, its final registers and run statistics.
pub struct CaseRun {
    pub program: Program,
    pub regs: Vec<Warp>,
    pub stats: RunStats,
}

/// Assembles and runs `src` from state `st`.
pub fn run_source<B: SubgroupBackend + ?Sized>(
    src: &str,
    st: &InitialState,
    backend: &mut B,
    opts: &RunOptions,
    observer: &mut dyn FnMut(&Event<'_>),
) -> Result<CaseRun, CaseError> {
    let externals: Vec<&str> = st.regs.keys().map(String::as_str).collect();
    let program = assemble(src, &externals)
        .map_err(|e| CaseError::Program { pos: e.pos, message: e.message })?;
    let mut regs = register_file(&program, st).map_err(CaseError::State)?;
    let stats = run(&program, &mut regs, st.activemask, backend, opts, observer)
        .map_err(|e| CaseError::Program { pos: e.pos, message: e.message })?;
    Ok(CaseRun { program, regs, stats })
}

/// A JSON value in which no object has the same key twice (serde_json keeps the last one,
/// which would silently drop a field the caller wrote).
struct Strict(Value);

impl<'de> serde::Deserialize<'de> for Strict {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(StrictVisitor).map(Strict)
    }
}

struct StrictVisitor;

impl<'de> serde::de::Visitor<'de> for StrictVisitor {
    type Value = Value;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map(Value::Number).unwrap_or(Value::Null))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut v = Vec::new();
        while let Some(Strict(x)) = seq.next_element()? {
            v.push(x);
        }
        Ok(Value::Array(v))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut m = Map::new();
        while let Some(k) = map.next_key::<String>()? {
            if m.contains_key(&k) {
                return Err(serde::de::Error::custom(format!("duplicate key {k:?}")));
            }
            let Strict(v) = map.next_value()?;
            m.insert(k, v);
        }
        Ok(Value::Object(m))
    }
}

/// Parses a JSON text as an object (for cases and state files); a key given twice is an error.
pub fn parse_object(text: &str) -> Result<Map<String, Value>, CaseError> {
    let v: Value = serde_json::from_str::<Strict>(text)
        .map_err(|e| CaseError::Json {
            line: e.line(),
            column: e.column(),
            message: strip_position(&e.to_string()),
        })?
        .0;
    match v {
        Value::Object(obj) => Ok(obj),
        other => Err(CaseError::State(format!("expected a JSON object, found {}", kind(&other)))),
    }
}

/// Runs one JSON Lines case and returns the answer object `{"regs": ...}`.
pub fn exec_case<B: SubgroupBackend + ?Sized>(
    line: &str,
    backend: &mut B,
    opts: &RunOptions,
) -> Result<Value, CaseError> {
    let obj = parse_object(line)?;
    let st = parse_state(&obj, &["program"]).map_err(CaseError::State)?;
    let src = match obj.get("program") {
        Some(Value::String(s)) => s,
        Some(other) => {
            return Err(CaseError::State(format!(
                "program: expected a string, found {}",
                kind(other)
            )))
        }
        None => return Err(CaseError::State("missing field \"program\"".into())),
    };
    let done = run_source(src, &st, backend, opts, &mut |_| {})?;
    Ok(regs_json(&done.program, &done.regs))
}

fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg.to_string(),
    }
}

/// A failing case of the unit's ports as a `pisa exec` line that replays it (32-lane forms: the
/// program reads `%a` = src0, `%b` = src1, `%m` = the uniform mask), else a raw JSON description of
/// the port values. Used by `pisa regress` and `pisa prove` counterexamples.
pub fn replay_line(
    op: Option<SgOp>,
    code: u8,
    src0: &[u32],
    src1: &[u32],
    mask: u32,
    activemask: u32,
) -> String {
    let lanes = src0.len();
    match op {
        Some(op) if lanes == 32 => {
            let operands = match op {
                SgOp::Shfl { .. } => "%d, %a, %b, %m",
                SgOp::RedFirstIdx => "%d, %m",
                _ => "%d, %a, %m",
            };
            serde_json::json!({
                "program": format!("{op} {operands};"),
                "activemask": format!("{activemask:#010x}"),
                "regs": { "%a": src0, "%b": src1, "%m": vec![mask; 32], "%d": vec![0u32; 32] },
            })
            .to_string()
        }
        _ => serde_json::json!({
            "lanes": lanes,
            "op_i": format!("{code:#04x}"),
            "form": op.map(|o| o.to_string()),
            "src0": src0, "src1": src1,
            "mask": format!("{mask:#010x}"),
            "activemask": format!("{activemask:#010x}"),
        })
        .to_string(),
    }
}

/// What an [`exec_stream`] run did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StreamSummary {
    /// Answer lines written (one per non-blank input line).
    pub cases: u64,
    /// Of those, error answers.
    pub failed: u64,
}

/// The I/O error that ended an [`exec_stream`] early.
#[derive(Debug)]
pub enum StreamIoError {
    /// Reading input line `line` failed.
    Read { line: u64, error: std::io::Error },
    /// Writing an answer failed (e.g. the reader closed the pipe).
    Write(std::io::Error),
    /// Input line `line` is longer than [`MAX_LINE_BYTES`]: answered with an error, and the
    /// stream ends there (what follows cannot be told apart from the rest of that line).
    TooLong { line: u64 },
}

/// The longest input line `pisa exec` reads: 16 MiB (a case's program, registers and all).
pub const MAX_LINE_BYTES: usize = 16 << 20;

/// Reads one line (without its `\n`) into `buf`, at most `limit` bytes of it: `Ok(None)` at the
/// end of the input, `Ok(Some(true))` when the line is longer (then `buf` holds its start and
/// the rest of it is left unread).
fn read_line_bounded<R: std::io::BufRead>(
    input: &mut R,
    buf: &mut Vec<u8>,
    limit: usize,
) -> std::io::Result<Option<bool>> {
    let mut any = false;
    loop {
        let avail = match input.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if avail.is_empty() {
            return Ok(any.then_some(false));
        }
        any = true;
        let (take, newline) = match avail.iter().position(|&b| b == b'\n') {
            Some(i) => (i, true),
            None => (avail.len(), false),
        };
        if buf.len() + take > limit {
            let room = limit - buf.len();
            buf.extend_from_slice(&avail[..room]);
            input.consume(room);
            return Ok(Some(true));
        }
        buf.extend_from_slice(&avail[..take]);
        input.consume(take + usize::from(newline));
        if newline {
            return Ok(Some(false));
        }
    }
}

/// The `pisa exec` loop: one answer line per input line that is not blank, written and flushed
/// before the next line is read (so a program can talk to it line by line). A line that is not
/// UTF-8, not JSON or not a valid case gets an `{"error": "NAME:LINE[:COL]: ..."}` answer and
/// the stream goes on; only an I/O error or a line longer than [`MAX_LINE_BYTES`] ends it early.
pub fn exec_stream<R: std::io::BufRead, W: std::io::Write, B: SubgroupBackend + ?Sized>(
    mut input: R,
    mut out: W,
    name: &str,
    backend: &mut B,
    opts: &RunOptions,
) -> (StreamSummary, Option<StreamIoError>) {
    let mut sum = StreamSummary::default();
    let mut buf = Vec::new();
    for n in 1u64.. {
        buf.clear();
        match read_line_bounded(&mut input, &mut buf, MAX_LINE_BYTES) {
            Ok(None) => break,
            Ok(Some(false)) => {}
            Ok(Some(true)) => {
                sum.failed += 1;
                let answer = serde_json::json!({ "error": format!(
                    "{name}:{n}: the line is longer than {} MiB, the limit of one case; the stream ends here",
                    MAX_LINE_BYTES >> 20
                ) });
                if let Err(e) = writeln!(out, "{answer}").and_then(|()| out.flush()) {
                    return (sum, Some(StreamIoError::Write(e)));
                }
                return (sum, Some(StreamIoError::TooLong { line: n }));
            }
            Err(error) => return (sum, Some(StreamIoError::Read { line: n, error })),
        }
        while matches!(buf.last(), Some(b'\r')) {
            buf.pop();
        }
        let answer = match std::str::from_utf8(&buf) {
            Ok(line) if line.trim().is_empty() => continue,
            Ok(line) => match exec_case(line, backend, opts) {
                Ok(v) => v,
                Err(e) => {
                    sum.failed += 1;
                    serde_json::json!({ "error": e.render(Source::Line(name, n as usize), None) })
                }
            },
            Err(e) => {
                sum.failed += 1;
                let at = e.valid_up_to();
                serde_json::json!({ "error": format!(
                    "{name}:{n}:{}: the line is not UTF-8 text (byte {:#04x})", at + 1, buf[at]
                ) })
            }
        };
        if let Err(e) = writeln!(out, "{answer}").and_then(|()| out.flush()) {
            return (sum, Some(StreamIoError::Write(e)));
        }
        sum.cases += 1;
    }
    (sum, None)
}

//! The assembler accepts every instruction form and rejects bad programs with the right
//! message at the right `line:col`; the interpreter's runtime errors are located too.

use pisa_model::asm::{assemble, InstKind};
use pisa_model::exec::{run_source, InitialState};
use pisa_model::interp::RunOptions;
use pisa_model::{FloatType, RefBackend, SgOp};

fn decl_for(op: SgOp) -> &'static str {
    match op {
        SgOp::Fred { ty: FloatType::Hf | FloatType::Bf, .. }
        | SgOp::Ired { ty: pisa_model::IntType::B16, .. } => ".reg .16b %d, %s;",
        SgOp::Fred { ty: FloatType::Hfx2 | FloatType::Bfx2, .. } => ".reg .v2.16b %d, %s;",
        _ => ".reg .32b %d, %s;",
    }
}

#[test]
fn every_form_assembles_to_itself() {
    for op in SgOp::all() {
        let operands = match op {
            SgOp::Shfl { .. } => "%d, %s, 0x1f, 0xffffffff",
            SgOp::RedFirstIdx => "%d, 0xffff",
            _ => "%d, %s, 0xffffffff",
        };
        let src = format!("{}\n{op} {operands};", decl_for(op));
        let p = assemble(&src, &[]).unwrap_or_else(|e| panic!("{op}: {e}"));
        match &p.insts[0].kind {
            InstKind::Sg { op: got, .. } => assert_eq!(*got, op),
            k => panic!("{k:?}"),
        }
        assert_eq!(p.insts[0].mnemonic, op.to_string());
    }
}

fn err(src: &str) -> String {
    assemble(src, &["x"]).unwrap_err().to_string()
}

#[test]
fn errors_name_the_problem_and_the_place() {
    let cases: &[(&str, &str)] = &[
        ("shfl.up.32b %x, %x, 1;", "1:1: 'shfl' takes 4 operands (dst, src0, src1, src2), found 3"),
        ("shfl.sg.up.32b %x, %x, 1, 2;", "1:5: qualifier '.sg' is out of order"),
        ("shfl.up.16b %x, %x, 1, 2;", "1:8: unknown type '.16b' (expected one of .32b)"),
        ("shfl.up %x, %x, 1, 2;", "1:1: missing type qualifier (one of .32b)"),
        ("shfl.up.32b.32b %x, %x, 1, 2;", "1:12: qualifier '.32b' is repeated or out of order"),
        (
            "fred.max.f %x, %x, 1",
            "1:21: expected ';' after the operands of 'fred', found end of program",
        ),
        ("fred.max.nanp.nanp.f %x, %x, 1;", "1:14: qualifier '.nanp' is out of order"),
        ("fred.median.f %x, %x, 1;", "1:5: unknown reduction op '.median'"),
        ("\n  ired.sum.32b %x, 5, 1;", "2:20: ired src0 must be a 32-bit register"),
        ("ired.sum.32b %x, %y, 1;", "1:18: register '%y' is not declared"),
        (
            ".reg .16b %h;\nired.sum.32b %h, %x, 1;",
            "2:14: ired dst must be a 32-bit register (.32b or .v2.16b), but '%h' is declared .16b",
        ),
        (
            ".reg .32b %w;\nfred.max.bfx2 %w, %w, 1;",
            "2:15: fred dst must be a 2x16-bit vector register (.v2.16b)",
        ),
        (
            "ired.sum.32b %x, %x, 0x100000000;",
            "1:22: ired src1 (mask): immediate 4294967296 does not fit in 32 bits",
        ),
        (
            ".reg .16b %h;\niadd.16b %h, %h, 70000;",
            "2:18: iadd b: immediate 70000 does not fit in 16 bits",
        ),
        ("redfirstidx.32b %laneid, 1;", "1:17: redfirstidx dst: '%laneid' is read-only"),
        (".reg .32b %a;\n.reg .16b %a;", "2:11: register '%a' is already declared at 1:11"),
        ("l: l:", "1:4: label 'l' is already defined at 1:1"),
        (".pred %p;\ngoto.cond %p, nowhere;", "2:15: label 'nowhere' is not defined"),
        ("goto.cond %x, l;\nl:", "1:11: goto.cond p must be a predicate (.pred)"),
        ("fadd.f32 %x, %x, %x;", "1:1: unknown instruction 'fadd'"),
        (
            ".reg .64b %q;",
            "1:6: expected a register type (.32b, .16b or .v2.16b) after .reg, found '.64b'",
        ),
        (".reg .32b ;", "1:11: expected a register name, found ';'"),
        (".global .32b %g;", "1:1: unknown directive '.global'"),
        ("iadd.32b %x, %x, 0xZZ;", "1:18: malformed number '0xZZ'"),
        ("iadd.32b %x, %x, @;", "1:18: unexpected character '@'"),
        ("/* never closed", "1:1: unterminated block comment"),
        ("iadd.32b %x, %x, !%x;", "1:18: iadd b: '!%x' is only allowed in goto.cond"),
        ("sel.32b %x, 1, 2, 3;", "1:19: sel p must be a predicate (.pred)"),
        (".reg .32b %laneid;", "1:11: '%laneid' is a read-only special register"),
        ("iadd.32b %x, %x, foo;", "1:18: iadd b: expected a register or immediate, found 'foo'"),
        (", x", "1:1: expected an instruction, label or directive, found ','"),
    ];
    let bad: Vec<String> = cases
        .iter()
        .filter_map(|(src, want)| {
            let got = err(src);
            (!got.starts_with(want))
                .then(|| format!("source {src:?}\n  got:  {got}\n  want: {want}..."))
        })
        .collect();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

fn run(
    src: &str,
    activemask: u32,
    regs: &[(&str, [u32; 32])],
) -> Result<Vec<(String, [u32; 32])>, String> {
    let st =
        InitialState { activemask, regs: regs.iter().map(|(n, v)| (n.to_string(), *v)).collect() };
    let r = run_source(src, &st, &mut RefBackend, &RunOptions { max_steps: 10_000 }, &mut |_| {})
        .map_err(|e| e.to_string())?;
    Ok(r.program.regs.iter().map(|x| x.name.clone()).zip(r.regs).collect())
}

#[test]
fn runtime_errors_are_located() {
    let mut m = [0xFFFF; 32];
    m[3] = 0xFF;
    let e = run(".reg .32b %d;\nired.sum.32b %d, %d, %m;", u32::MAX, &[("m", m)]).unwrap_err();
    assert!(e.starts_with("program:2:1: ired.sum.32b: src1 (mask) '%m' must be uniform across active lanes, but lane 0 holds 0x0000ffff and lane 3 holds 0x000000ff"), "{e}");
    // the same register is fine when the differing lane is inactive
    assert!(run(".reg .32b %d;\nired.sum.32b %d, %d, %m;", !(1 << 3), &[("m", m)]).is_ok());

    let e = run(".pred %p;\nucmp.eq.32b %p, %laneid, 0;\ngoto.cond %p, l;\nl:", u32::MAX, &[])
        .unwrap_err();
    assert!(
        e.starts_with(
            "program:3:1: divergent branch: predicate '%p' is 1 in lane 0 but 0 in lane 1"
        ),
        "{e}"
    );

    let e =
        run(".pred %p;\nl: ucmp.eq.32b %p, 0, 0;\ngoto.cond %p, l;", u32::MAX, &[]).unwrap_err();
    assert!(e.contains("stopped after 10000 instructions (infinite loop?)"), "{e}");

    let e = run(".reg .16b %h;", u32::MAX, &[("h", [0x1_0000; 32])]).unwrap_err();
    assert_eq!(e, "regs[\"%h\"][0]: 0x10000 does not fit a .16b register");
}

#[test]
fn scalar_instructions_follow_ptx() {
    let src = "
        .reg .32b %a, %b, %c;  .reg .16b %h;  .pred %p, %q;
        iadd.32b %a, %laneid, 0xFFFFFFFF;    // wraps
        isub.32b %b, 0, %laneid;
        iadd.16b %h, 0xFFFF, 2;               // 16-bit wrap, zero-extended
        ucmp.lt.32b %p, %laneid, 4;           // unsigned
        ucmp.gt.32b %q, %b, 5;                // -lane as unsigned is large
        sel.32b %c, 111, 222, %p;             // p ? a : b
        goto.cond !%p, skip;
        iadd.32b %c, %c, 1000;                // not executed: %p is not uniform...
        skip:
    ";
    let e = run(src, u32::MAX, &[]).unwrap_err();
    assert!(e.contains("divergent branch"), "{e}");
    // uniform when only lanes 0..3 are active
    let regs = run(src, 0xF, &[]).unwrap();
    let get = |n: &str| regs.iter().find(|(k, _)| k == n).unwrap().1;
    assert_eq!(get("a")[0], 0xFFFF_FFFF);
    assert_eq!(get("a")[2], 1);
    assert_eq!(get("b")[1], 0xFFFF_FFFF);
    assert_eq!(get("h")[0], 1);
    assert_eq!(get("p")[..4], [1, 1, 1, 1]);
    assert_eq!(get("q")[..4], [0, 1, 1, 1]);
    assert_eq!(get("c")[..4], [1111, 1111, 1111, 1111], "goto.cond !%p not taken; iadd runs");
    assert_eq!(get("c")[4], 0, "inactive lanes never change");
}

#[test]
fn empty_activemask_runs_nothing_and_takes_no_branch() {
    let src = ".pred %p; .reg .32b %d;\nucmp.eq.32b %p, 0, 0;\ngoto.cond %p, end;\niadd.32b %d, 1, 2;\nend:";
    let regs = run(src, 0, &[]).unwrap();
    assert!(regs.iter().all(|(_, v)| v.iter().all(|&x| x == 0)));
}

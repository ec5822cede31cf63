//! A regression's result in the formats CI reads: JUnit XML (`pisa regress --junit FILE`) and,
//! under GitHub Actions, one `::error` annotation per mismatch.
//!
//! The JUnit file has one test suite per run (or merge) and one test case per instruction form
//! the run drew from (and one for the reserved opcodes when it drew them): a form passes when
//! its cases had no mismatch, fails with the first mismatching case (its lanes as the message,
//! its `pisa exec` replay line as the text), and is skipped when no case of it was checked
//! (none drawn, or the run stopped at a mismatch before one). A
//! merge that does not cover every shard has one more case, `the whole run`, that fails.

use std::collections::BTreeMap;

use pisa_sim::regress::report::{shard_names, Verdict};
use pisa_sim::regress::Report;
use quick_junit::{NonSuccessKind, Property, TestCase, TestCaseStatus, TestSuite};

use crate::report_file::JUNIT_MARK as MARK;

/// The name of the test case of a mismatch's form.
fn case_name(m: &pisa_sim::regress::Mismatch) -> String {
    match m.op {
        Some(op) => op.to_string(),
        None => "reserved opcodes".to_string(),
    }
}

/// The report as JUnit XML (with [`MARK`]); `merged`: a merge of shard reports.
pub fn junit(r: &Report, merged: bool) -> String {
    // cases per form, from the coverage (every bin of every form the run drew from)
    let mut per_form: BTreeMap<String, u64> = BTreeMap::new();
    for (b, n) in &r.coverage {
        *per_form.entry(b.op.to_string()).or_insert(0) += n;
    }
    if r.forms.is_none() {
        per_form.insert("reserved opcodes".to_string(), r.reserved_cases);
    }
    let first: BTreeMap<String, &pisa_sim::regress::Mismatch> = r
        .mismatches
        .iter()
        .rev() // the lowest case index of each form wins
        .map(|m| (case_name(m), m))
        .collect();
    let mut suite = TestSuite::new(format!("pisa regress {} seed {}", r.config, r.seed));
    suite.add_properties([
        Property::new("seed", r.seed.to_string()),
        Property::new("count", r.count.to_string()),
        Property::new("shards", shard_names(&r.shards)),
        Property::new("cases", r.cases.to_string()),
        Property::new("verdict", r.verdict().name()),
    ]);
    if let Some((dir, sha)) = &r.rtl {
        suite.add_property(Property::new("rtl_dir", dir.as_str()));
        suite.add_property(Property::new("rtl_sha256", sha.as_str()));
    }
    let classname = format!("pisa.regress.{}", r.config);
    for (form, cases) in &per_form {
        let status = match first.get(form) {
            Some(m) => {
                let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
                s.set_type("mismatch");
                s.set_message(format!(
                    "case {} of seed {} ({}) on {}: {}",
                    m.index,
                    r.seed,
                    m.form(),
                    r.config,
                    m.differences().join("; ")
                ));
                s.set_description(format!("replay (pisa exec [--backend rtl]):\n{}", m.replay));
                s
            }
            None if *cases == 0 => {
                let mut s = TestCaseStatus::skipped();
                match r.mismatch() {
                    Some(m) => s.set_message(format!(
                        "no case of this form checked: the run stops at its first mismatch (case {})",
                        m.index
                    )),
                    None => s.set_message("no case of this form was drawn"),
                };
                s
            }
            None => TestCaseStatus::success(),
        };
        let mut c = TestCase::new(form.as_str(), status);
        c.set_classname(classname.as_str());
        c.set_assertions(*cases as usize);
        suite.add_test_case(c);
    }
    if merged && r.verdict() == Verdict::Partial {
        let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
        s.set_type("partial");
        s.set_message(format!(
            "the reports hold shards {} of {}: missing {}",
            shard_names(&r.shards),
            r.shards.first().map_or(0, |s| s.1),
            shard_names(&r.missing_shards())
        ));
        let mut c = TestCase::new("the whole run", s);
        c.set_classname(classname.as_str());
        suite.add_test_case(c);
    }
    let mut report = quick_junit::Report::new("pisa regress");
    report.set_time(std::time::Duration::from_secs_f64(r.seconds.max(0.0)));
    report.add_test_suite(suite);
    let xml = report.to_string().unwrap_or_default();
    // the mark after the declaration (the first line)
    match xml.split_once('\n') {
        Some((decl, rest)) if decl.starts_with("<?xml") => format!("{decl}\n{MARK}\n{rest}"),
        _ => format!("{MARK}\n{xml}"),
    }
}

/// `%`, CR, LF (and `:` `,` in properties) escaped as GitHub's workflow commands want them.
fn escape(s: &str, property: bool) -> String {
    let mut out = s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A");
    if property {
        out = out.replace(':', "%3A").replace(',', "%2C");
    }
    out
}

/// Under GitHub Actions (`GITHUB_ACTIONS=true`), one `::error` line per mismatch, which the
/// run's page shows as an annotation; nothing elsewhere.
pub fn annotations(r: &Report) -> Vec<String> {
    if std::env::var("GITHUB_ACTIONS").as_deref() != Ok("true") {
        return Vec::new();
    }
    r.mismatches
        .iter()
        .map(|m| {
            let title = format!("pisa regress: {} on {}", m.form(), r.config);
            let msg = format!(
                "case {} of seed {}: {}\nreplay (pisa exec [--backend rtl]):\n{}",
                m.index,
                r.seed,
                m.differences().join("; "),
                m.replay
            );
            format!("::error title={}::{}", escape(&title, true), escape(&msg, false))
        })
        .collect()
}

//! The README's examples run as written and print what the README shows: every `$ command` of
//! its `sh` blocks is run with bash (in a scratch folder that links the repository's `target/`,
//! `reference-model/` and `fpga/`), must exit 0, and every output line shown under it must appear
//! in its output (`...` stands for lines left out; a line ending in `...` is a prefix). The Rust
//! example is the doctest of `pisa_model::quadrants`, character for character.

use std::path::Path;
use std::process::Command;

const README: &str = include_str!("../README.md");

/// `(command, shown output lines)` of every `$ ` command in the README's `sh` blocks.
fn examples() -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    let mut in_sh = false;
    let mut lines = README.lines().peekable();
    while let Some(line) = lines.next() {
        if line.starts_with("```") {
            in_sh = line == "```sh";
            continue;
        }
        if !in_sh {
            continue;
        }
        if let Some(cmd) = line.strip_prefix("$ ") {
            let mut cmd = cmd.to_string();
            while cmd.ends_with('\\') {
                cmd.pop();
                cmd.push_str(lines.next().expect("a continued command").trim_start());
            }
            let mut shown = Vec::new();
            while let Some(next) = lines.peek() {
                if next.starts_with("$ ") || next.starts_with("```") {
                    break;
                }
                shown.push(lines.next().unwrap().to_string());
            }
            out.push((cmd, shown));
        }
    }
    out
}

#[test]
fn every_readme_command_runs_and_prints_what_the_readme_shows() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::temp_dir().join(format!("pisa-readme-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for link in ["target", "reference-model", "fpga"] {
        std::os::unix::fs::symlink(repo.join(link), dir.join(link)).unwrap();
    }
    let ex = examples();
    assert!(ex.len() >= 4, "the README's examples were not found: {ex:?}");
    for (cmd, shown) in ex {
        let o = Command::new("bash").arg("-c").arg(&cmd).current_dir(&dir).output().unwrap();
        let stdout = String::from_utf8_lossy(&o.stdout);
        assert!(
            o.status.success(),
            "`{cmd}` failed:\n{stdout}{}",
            String::from_utf8_lossy(&o.stderr)
        );
        for want in shown.iter().map(|l| l.trim_end()).filter(|l| !l.is_empty() && *l != "...") {
            let found = match want.strip_suffix("...") {
                Some(prefix) => stdout.lines().any(|l| l.starts_with(prefix.trim_end())),
                None => stdout.lines().any(|l| l.trim_end() == want),
            };
            assert!(found, "`{cmd}` did not print\n  {want}\nit printed:\n{stdout}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The `$ ` commands of `docs/spec-notes.md`'s examples run as written (with `pisa` on PATH).
#[test]
fn every_spec_notes_command_runs() {
    let notes = include_str!("../docs/spec-notes.md");
    let mut script = String::from("set -e\n");
    let mut n = 0;
    for line in notes.lines() {
        if let Some(cmd) = line.strip_prefix("$ ") {
            script.push_str(cmd);
            script.push_str(" >/dev/null\n");
            n += 1;
        } else if line.starts_with("pisa run ") {
            script.push_str(line);
            script.push_str(" >/dev/null\n");
            n += 1;
        }
    }
    assert!(n >= 4, "{script}");
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bin = Path::new(env!("CARGO_BIN_EXE_pisa")).parent().unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let o = Command::new("bash")
        .arg("-c")
        .arg(&script)
        .env("PATH", path)
        .current_dir(repo)
        .output()
        .unwrap();
    assert!(o.status.success(), "{script}\n{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn the_readme_rust_example_is_the_quadrants_doctest() {
    let block = |text: &str| -> String {
        let start = text.find("```rust\n").expect("a rust block") + "```rust\n".len();
        let end = start + text[start..].find("```").unwrap();
        text[start..end]
            .lines()
            .map(|l| l.trim_start_matches("//! ").trim_start_matches("//!"))
            .collect::<Vec<_>>()
            .join("\n")
            .trim_end()
            .to_string()
    };
    let doc = include_str!("../reference-model/src/quadrants/mod.rs");
    assert_eq!(block(README), block(doc), "README and pisa_model::quadrants' doctest differ");
}

//! The sharded run of `.github/workflows/regress.yml` and `scripts/regress-slurm.sh`, locally:
//! four shard processes at once (as the matrix jobs or the array tasks would run them), then the
//! merge. The merged report has the case count and the coverage of one unsharded run of the
//! same seed.

use std::path::Path;
use std::process::Command;

const ARGS: [&str; 6] =
    ["--count", "40000", "--seed", "0x5eed", "--config", "fpga/configs/l8_qor.toml"];

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn json(p: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// The unsharded run's report.
fn whole(dir: &Path) -> serde_json::Value {
    let r = dir.join("whole.json");
    let o = Command::new(env!("CARGO_BIN_EXE_pisa"))
        .arg("regress")
        .args(ARGS)
        .args(["--jobs", "1", "--report", r.to_str().unwrap()])
        .current_dir(repo())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    json(&r)
}

fn shards_then_merge(dir: &Path, env: impl Fn(u32) -> Vec<(String, String)>) -> serde_json::Value {
    let children: Vec<_> = (1..=4)
        .map(|k| {
            Command::new("bash")
                .arg("scripts/regress-shard.sh")
                .arg(dir)
                .args(ARGS)
                .args(["--jobs", "1"])
                .envs(env(k))
                .env("PISA", env!("CARGO_BIN_EXE_pisa"))
                .current_dir(repo())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let o = Command::new("bash")
        .arg("scripts/regress-merge.sh")
        .arg(dir)
        .env("PISA", env!("CARGO_BIN_EXE_pisa"))
        .current_dir(repo())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("PASS: 40000 cases"));
    let html = std::fs::read_to_string(dir.join("coverage.html")).unwrap();
    assert!(html.contains("<table>") && html.contains("Uncovered bins"));
    let junit = std::fs::read_to_string(dir.join("junit.xml")).unwrap();
    assert!(junit.contains("<testsuites") && junit.contains("failures=\"0\""), "{junit}");
    json(&dir.join("merged.json"))
}

fn same_run(a: &serde_json::Value, b: &serde_json::Value) {
    for k in ["cases", "coverage", "reserved_cases", "bins_hit", "seed", "count", "unit"] {
        assert_eq!(a[k], b[k], "{k}");
    }
    assert_eq!(b["complete"], true);
}

#[test]
fn github_matrix_shards_merge_to_the_whole_run() {
    let dir = std::env::temp_dir().join(format!("pisa-shards-gh-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let wf = std::fs::read_to_string(repo().join(".github/workflows/regress.yml")).unwrap();
    assert!(
        wf.contains("scripts/regress-shard.sh out") && wf.contains("scripts/regress-merge.sh out")
    );
    assert!(wf.contains("PISA_SHARD: ${{ matrix.shard }}/${{ env.SHARDS }}"));
    let w = whole(&dir);
    let out = dir.join("out");
    let m = shards_then_merge(&out, |k| vec![("PISA_SHARD".into(), format!("{k}/4"))]);
    same_run(&w, &m);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn slurm_array_tasks_merge_to_the_whole_run() {
    let dir = std::env::temp_dir().join(format!("pisa-shards-slurm-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let w = whole(&dir);
    let out = dir.join("out");
    // an array numbered 0..3, as `sbatch --array=0-3` numbers it
    let m = shards_then_merge(&out, |k| {
        vec![
            ("SLURM_ARRAY_TASK_ID".into(), (k - 1).to_string()),
            ("SLURM_ARRAY_TASK_MIN".into(), "0".into()),
            ("SLURM_ARRAY_TASK_COUNT".into(), "4".into()),
        ]
    });
    same_run(&w, &m);
    let _ = std::fs::remove_dir_all(&dir);
}

//! Fingerprints the generator: the sha256 of this crate's sources, so that a cache of anything
//! built from its output (the Verilator models of pisa-sim) can tell when the output may change.

use sha2::{Digest, Sha256};
use std::path::Path;

fn walk(dir: &Path, files: &mut Vec<std::path::PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, files);
        } else if p.extension().is_some_and(|x| x == "rs") {
            files.push(p);
        }
    }
}

fn main() {
    let mut files = vec![Path::new("Cargo.toml").to_path_buf()];
    walk(Path::new("src"), &mut files);
    files.sort();
    let mut h = Sha256::new();
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
        h.update(f.to_string_lossy().as_bytes());
        h.update(std::fs::read(f).unwrap_or_default());
    }
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rustc-env=PISA_RTL_SOURCE_SHA256={:x}", h.finalize());
}

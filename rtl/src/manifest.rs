//! `manifest.json`: what `pisa emit` wrote into a folder, for integrators and for the kit's own
//! readers (`pisa prove --rtl-dir`, the place-and-route harness, the co-simulation).
//!
//! ```json
//! {"format": "pisa-emit/1",
//!  "units": [{"prefix": "pisa_sg", "top": "pisa_sg_unit", "block": "unit", "lanes": 32,
//!             "latency_cycles": 0, "config": {...}, "ports": [{"name": "clk_i", "dir": "input", "width": 1}, ...],
//!             "files": [{"file": "pisa_sg_unit.v", "module": "pisa_sg_unit", "sha256": "..."}, ...], ...}]}
//! ```
//!
//! One folder may hold several emissions with different module prefixes; each is one entry of
//! `units`. The `format` field marks the file as the kit's: a `manifest.json` without it is
//! someone else's, and `pisa emit` does not touch that folder without `--force`.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::config::UnitConfig;

/// The value of the `format` field.
pub const FORMAT: &str = "pisa-emit/1";

/// The manifest of a folder.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub format: String,
    pub units: Vec<UnitRecord>,
}

/// One emission: a block under one module prefix.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UnitRecord {
    /// The module-name prefix (`pisa_sg`).
    pub prefix: String,
    /// The top module.
    pub top: String,
    /// `unit`, `xbar`, `reduce` or `lzc`.
    pub block: String,
    pub lanes: usize,
    pub latency_cycles: usize,
    pub config: UnitConfig,
    /// Stage boundaries (tree levels after which a register sits) and the extra registers.
    pub stage_after_levels: Vec<usize>,
    pub pipeline_extra: Vec<String>,
    /// Where the opcode encoding is defined.
    pub opcode_encoding: String,
    /// `pisa-rtl <version>`.
    pub generator: String,
    /// The top module's ports in declaration order.
    pub ports: Vec<Port>,
    /// Every file of the emission, with its sha256.
    pub files: Vec<FileRecord>,
}

/// A port of the top module.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Port {
    pub name: String,
    /// `input` or `output`.
    pub dir: String,
    pub width: usize,
}

/// One file written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileRecord {
    /// File name inside the folder.
    pub file: String,
    /// The module it defines, if it is a Verilog module.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub module: Option<String>,
    pub sha256: String,
}

/// Why a manifest could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    #[error("{0}: cannot read: {1}")]
    Io(String, std::io::Error),
    #[error("{path}:{line}:{column}: {message}")]
    Json { path: String, line: usize, column: usize, message: String },
    #[error(
        "{0}: not a manifest written by pisa emit (its \"format\" is {1}, expected \"{FORMAT}\")"
    )]
    Foreign(String, String),
    #[error("{0}: {1}")]
    Invalid(String, String),
}

impl Manifest {
    /// Reads `dir/manifest.json`: `Ok(None)` when there is none.
    pub fn read(dir: &Path) -> Result<Option<Manifest>, ManifestError> {
        let path = dir.join("manifest.json");
        let name = path.display().to_string();
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(ManifestError::Io(name, e)),
        };
        Self::parse(&text, &name).map(Some)
    }

    /// Parses a manifest's text; `name` names it in errors.
    pub fn parse(text: &str, name: &str) -> Result<Manifest, ManifestError> {
        let json = |e: serde_json::Error| ManifestError::Json {
            path: name.to_string(),
            line: e.line(),
            column: e.column(),
            message: e.to_string().split(" at line ").next().unwrap_or("").to_string(),
        };
        let v: serde_json::Value = serde_json::from_str(text).map_err(json)?;
        match v.get("format").and_then(|f| f.as_str()) {
            Some(FORMAT) => {}
            other => {
                let f = other.map(|f| format!("\"{f}\"")).unwrap_or_else(|| "missing".into());
                return Err(ManifestError::Foreign(name.to_string(), f));
            }
        }
        let m: Manifest = serde_json::from_value(v)
            .map_err(|e| ManifestError::Invalid(name.to_string(), e.to_string()))?;
        for u in &m.units {
            if let Err(e) = UnitConfig::new(u.lanes, 0) {
                return Err(ManifestError::Invalid(
                    name.to_string(),
                    format!("unit {}: {e}", u.prefix),
                ));
            }
            if u.config.lanes != u.lanes {
                return Err(ManifestError::Invalid(
                    name.to_string(),
                    format!(
                        "unit {}: lanes {} but its config says {}",
                        u.prefix, u.lanes, u.config.lanes
                    ),
                ));
            }
        }
        Ok(m)
    }

    /// The emission with `prefix`, or the only one when `prefix` is `None`.
    pub fn unit(&self, prefix: Option<&str>, name: &str) -> Result<&UnitRecord, ManifestError> {
        let all = || self.units.iter().map(|u| u.prefix.as_str()).collect::<Vec<_>>().join(", ");
        match prefix {
            Some(p) => self.units.iter().find(|u| u.prefix == p).ok_or_else(|| {
                ManifestError::Invalid(
                    name.to_string(),
                    format!("no unit with prefix {p} (it has: {})", all()),
                )
            }),
            None if self.units.len() == 1 => Ok(&self.units[0]),
            None => Err(ManifestError::Invalid(
                name.to_string(),
                format!(
                    "{} emissions in one folder (prefixes {}): choose one with --prefix",
                    self.units.len(),
                    all()
                ),
            )),
        }
    }
}

//! The Verilog under proof: a directory of `.v` files (freshly emitted, hand-edited or a
//! post-synthesis netlist) and the modules in it that play each role.

use std::path::{Path, PathBuf};

use crate::error::ProveError;

/// A directory of Verilog with the unit's modules located by name.
#[derive(Clone, Debug)]
pub struct RtlDir {
    pub dir: PathBuf,
    /// Every `.v`/`.sv` file, sorted.
    pub files: Vec<PathBuf>,
    /// Lanes (from `manifest.json` or the caller).
    pub lanes: usize,
    /// Latency of the unit in cycles (from `manifest.json`; 0 if absent).
    pub latency: usize,
    /// Module names defined in each file (parallel to `files`).
    pub defines: Vec<Vec<String>>,
    /// Module names found, by role.
    pub xbar: Option<String>,
    pub reduce: Option<String>,
    pub lzc: Option<String>,
    pub unit: Option<String>,
}

impl RtlDir {
    /// Scans `dir`. `lanes` is required when the directory has no `manifest.json` from
    /// `pisa emit`, and must agree with it when it has one; `prefix` picks one emission of a
    /// folder that holds several. The unit's `src0_i` must be `32 * lanes` bits wide.
    pub fn scan(
        dir: &Path,
        lanes: Option<usize>,
        prefix: Option<&str>,
    ) -> Result<RtlDir, ProveError> {
        // absolute, because the tools run in the work directory
        let dir = &std::fs::canonicalize(dir)
            .map_err(|e| ProveError::Input(format!("{}: {e}", dir.display())))?;
        let rd = std::fs::read_dir(dir)
            .map_err(|e| ProveError::Input(format!("{}: {e}", dir.display())))?;
        let mut files: Vec<PathBuf> = rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "v" || x == "sv"))
            .collect();
        files.sort();
        if files.is_empty() {
            return Err(ProveError::Input(format!("{}: no .v or .sv files", dir.display())));
        }
        let mut modules = Vec::new();
        let mut defines = Vec::new();
        let mut with_modules = Vec::new();
        for f in files {
            let text = std::fs::read_to_string(&f)
                .map_err(|e| ProveError::Input(format!("{}: {e}", f.display())))?;
            let names = module_names(&text);
            if names.is_empty() {
                continue; // a package or another file without modules (pisa_sg_pkg.sv)
            }
            modules.extend(names.iter().cloned());
            defines.push(names);
            with_modules.push(f);
        }
        let files = with_modules;
        let record = match pisa_rtl::manifest::Manifest::read(dir) {
            Ok(Some(m)) => Some(
                m.unit(prefix, &dir.join("manifest.json").display().to_string())
                    .map_err(|e| ProveError::Input(e.to_string()))?
                    .clone(),
            ),
            Ok(None) => None,
            Err(e) => return Err(ProveError::Input(e.to_string())),
        };
        let latency = record.as_ref().map_or(0, |u| u.latency_cycles);
        let lanes = match (lanes, record.as_ref().map(|u| u.lanes)) {
            (Some(a), Some(b)) if a != b => {
                return Err(ProveError::Input(format!(
                    "--lanes {a} disagrees with {} (lanes = {b})",
                    dir.join("manifest.json").display()
                )))
            }
            (Some(a), _) | (None, Some(a)) => a,
            (None, None) => {
                return Err(ProveError::Input(format!(
                    "{}: no manifest.json to tell the lane count; pass --lanes",
                    dir.display()
                )))
            }
        };
        if ![4, 8, 16, 32].contains(&lanes) {
            return Err(ProveError::Input(format!(
                "lanes = {lanes} is not supported (use 4, 8, 16 or 32)"
            )));
        }
        let find = |suffix: &str| -> Result<Option<String>, ProveError> {
            let hits: Vec<&String> = modules.iter().filter(|m| m.ends_with(suffix)).collect();
            match hits.as_slice() {
                [] => Ok(None),
                [one] => Ok(Some((*one).clone())),
                many => Err(ProveError::Input(format!(
                    "{}: several modules end in '{suffix}': {}",
                    dir.display(),
                    many.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
                ))),
            }
        };
        // with a manifest the modules are named by its prefix; without one, by their suffix
        let named = |suffix: &str| -> Result<Option<String>, ProveError> {
            match &record {
                Some(u) => {
                    let m = format!("{}{suffix}", u.prefix);
                    Ok(modules.contains(&m).then_some(m))
                }
                None => find(suffix),
            }
        };
        let rtl = RtlDir {
            dir: dir.to_path_buf(),
            files,
            defines,
            lanes,
            latency,
            xbar: named("_shfl_xbar")?,
            reduce: named("_reduce")?,
            lzc: named("_lzc")?,
            unit: named("_unit")?,
        };
        rtl.check_width()?;
        Ok(rtl)
    }
}

impl RtlDir {
    /// The unit's (or crossbar's, or reduction's) `src0_i` must be `32 * lanes` bits: a
    /// mismatch would make every proof fail for the wrong reason.
    fn check_width(&self) -> Result<(), ProveError> {
        for m in [&self.unit, &self.xbar, &self.reduce].into_iter().flatten() {
            for f in self.files_for(m) {
                let text = std::fs::read_to_string(&f)
                    .map_err(|e| ProveError::Input(format!("{}: {e}", f.display())))?;
                if let Some(w) = port_width(&text, m, "src0_i") {
                    if w != 32 * self.lanes {
                        return Err(ProveError::Input(format!(
                            "{}: module {m} has src0_i[{}:0], a {}-lane unit, not {} lanes",
                            f.display(),
                            w - 1,
                            w / 32,
                            self.lanes
                        )));
                    }
                    return Ok(());
                }
            }
        }
        Ok(())
    }

    /// The files to read for module `top`: those defining `top` or a module whose name extends
    /// it (`pisa_sg_reduce` → `pisa_sg_reduce_leaf`, ...), which is how `pisa emit` names
    /// submodules; every file when `top` is the unit or nothing matches.
    pub fn files_for(&self, top: &str) -> Vec<PathBuf> {
        let pick: Vec<PathBuf> = self
            .files
            .iter()
            .zip(&self.defines)
            .filter(|(_, d)| d.iter().any(|m| m.starts_with(top)))
            .map(|(f, _)| f.clone())
            .collect();
        if top.is_empty() || Some(top) == self.unit.as_deref() || pick.is_empty() {
            self.files.clone()
        } else {
            pick
        }
    }
}

/// The width of port `port` of module `module` in Verilog text (ANSI or Verilog-95 style
/// declarations), if it is declared there.
pub fn port_width(text: &str, module: &str, port: &str) -> Option<usize> {
    let start = text.find(&format!("module {module}"))?;
    let body = &text[start..];
    let body = &body[..body.find("endmodule").unwrap_or(body.len())];
    let re = decl_regex(port);
    let c = re.captures(body)?;
    Some(c.get(1).and_then(|m| m.as_str().parse::<usize>().ok()).map_or(1, |h| h + 1))
}

fn decl_regex(port: &str) -> regex::Regex {
    regex::Regex::new(&format!(
        r"(?:input|output)\s+(?:wire\s+|reg\s+|logic\s+)?(?:signed\s+)?(?:\[(\d+):0\]\s*)?{port}\b"
    ))
    .expect("regex")
}

/// Names declared by `module NAME` in Verilog text (comments skipped).
pub fn module_names(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_block = false;
    for line in text.lines() {
        let mut l = line;
        if in_block {
            match l.find("*/") {
                Some(i) => {
                    in_block = false;
                    l = &l[i + 2..];
                }
                None => continue,
            }
        }
        if let Some(i) = l.find("//") {
            l = &l[..i];
        }
        if let Some(i) = l.find("/*") {
            in_block = !l[i..].contains("*/");
            l = &l[..i];
        }
        let t = l.trim_start();
        if let Some(rest) = t.strip_prefix("module") {
            if rest.starts_with(|c: char| c.is_whitespace()) {
                let name: String = rest
                    .trim_start()
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '$')
                    .collect();
                if !name.is_empty() {
                    out.push(name);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_modules_outside_comments() {
        let t = "// module fake_a\n/* module fake_b\n*/ module real_c(a);\nmodule  real_d #(parameter N=1) (\nendmodule";
        assert_eq!(module_names(t), vec!["real_c", "real_d"]);
    }
}

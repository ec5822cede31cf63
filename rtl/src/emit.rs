//! Verilog emission: rust-hdl's generator, then a cleaning pass, then one file per module.
//!
//! rust-hdl writes one module per *instance*, names them by hierarchy path (`top$r1$0`), uses `$`
//! in identifiers, and writes offsets as sized literals (`o[(64'h20)+:(32)]`). [`Design::from_block`]
//! turns that into what an FPGA engineer expects:
//!
//! * modules with identical bodies are merged into one module *type*, named from the
//!   caller's table (`pisa_sg_pipe_reg_w32`); the top becomes the requested name — no `top`;
//! * `$` in identifiers becomes `_` (a collision is an error, never a silent rename);
//! * constant index and part-select expressions are folded to decimals (`src1_i[104+:5]`);
//! * every module gets a header (what it computes, its latency, the spec section); the lint
//!   waivers the caller lists go to the emission's waiver file (`<prefix>.vlt`), each with its
//!   reason;
//! * [`crate::style`] makes the port lists ANSI, packs per-lane ports into buses, gives
//!   registers of every width one parameterised module and folds lines at 100 columns.
//!
//! The cleaned text is what the lint, co-simulation and formal checks run on.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use regex::Regex;
use rust_hdl::prelude::*;

use crate::config::UnitConfig;
use crate::manifest::{FileRecord, Manifest, Port, UnitRecord, FORMAT};
use crate::outdir::{sha256_hex, Commit};

/// What went wrong while emitting.
#[derive(Debug, thiserror::Error)]
pub enum EmitError {
    #[error("the rust-hdl design failed its connectivity check: {0}")]
    Check(String),
    #[error("unexpected rust-hdl output: {0}")]
    Parse(String),
    #[error("renaming identifier '{from}' to '{to}' in module {module} would collide with an existing name")]
    Collision { module: String, from: String, to: String },
    #[error(transparent)]
    OutDir(#[from] crate::outdir::OutDirError),
    #[error("{0}")]
    Manifest(String),
    /// A module-name prefix that is not an identifier or is too long (`design::check_prefix`).
    #[error("--prefix {0}")]
    Prefix(String),
    /// A module instance whose block type the emitter does not know (a new field in a block
    /// needs its entry in `design::ModuleType::child`).
    #[error("no module type for the instance at {0} (add it to design::ModuleType::child)")]
    UnknownModule(String),
    /// A module's constant disagrees with the header's (`integration::use_header`).
    #[error("module {module}: {msg}")]
    Header { module: String, msg: String },
}

/// How to name and document one kind of module.
#[derive(Clone, Debug)]
pub struct ModuleKind {
    /// Verilog module name (a width suffix is added when one kind has several bodies).
    pub name: String,
    /// Header comment: what it computes, latency, spec section.
    pub doc: String,
    /// `(signal names, reason)`: Verilator `UNUSEDSIGNAL` waivers for this module, written to
    /// the emission's waiver file (`<prefix>.vlt`). Names are `|`-separated, with Verilator's
    /// `*` and `?` wildcards.
    pub waivers: Vec<(String, String)>,
    /// One module for all widths, with a `Width` parameter (the bits of `d_i` and `q_o`);
    /// each instance passes its width (`#(.Width(32))`).
    pub parameterised: bool,
    /// Vectors of per-lane signals renamed by where they sit (see [`LaneName`]).
    pub lane_names: Vec<LaneName>,
    /// Fields indexed by tree level first (`n: Vec<Vec<ReduceNode>>`, `n[b][j]`): rust-hdl
    /// names element `j` of level `b` `n$b$j`, emitted as `n<b>_<j>` (see [`level_names`]).
    pub level_vectors: Vec<&'static str>,
    /// Fields that are a vector of at most one element, there in one form of the block and
    /// not in another (`pickl: Vec<ReducePick>`): rust-hdl names the element `pickl$0`,
    /// emitted as `pickl`, the name the field would have as a plain member.
    pub singles: Vec<&'static str>,
}

/// A vector of signals `<base>_<x>` (and the instances and stub signals named after them)
/// laid out lane by lane: `per_lane` words per lane, `copies` copies of each word. Element `x`
/// is renamed `<base>_lane<i>[_w<j>][_b<s>]` (lane `i`, word `j` when `per_lane > 1`, copy `s`
/// when `copies > 1`), so a name in a timing report says where the signal sits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaneName {
    pub base: String,
    pub per_lane: usize,
    pub copies: usize,
}

/// One cleaned module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Module {
    pub name: String,
    pub text: String,
    /// Ports in declaration order.
    pub ports: Vec<Port>,
    /// Its lint waivers (see [`ModuleKind::waivers`]).
    pub waivers: Vec<(String, String)>,
}

/// A cleaned design: modules, top first, and what it was emitted from.
#[derive(Clone, Debug)]
pub struct Design {
    pub top: String,
    pub modules: Vec<Module>,
    /// The module-name prefix, the block and the configuration (for the manifest).
    pub prefix: String,
    pub block: String,
    pub cfg: UnitConfig,
}

struct RawModule {
    path: String,
    body: String,
}

/// A header text as paragraphs: the lines of a paragraph joined into one (the fold at 100
/// columns breaks them again), except lines that start with a space (diagrams, tables), which
/// stay as they are.
pub(crate) fn reflow(doc: &str) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut joining = false;
    for line in doc.lines() {
        let plain = !line.is_empty() && !line.starts_with(' ');
        match out.last_mut() {
            Some(last) if joining && plain => {
                last.push(' ');
                last.push_str(line);
            }
            _ => out.push(line.to_string()),
        }
        joining = plain;
    }
    out.join("\n")
}

fn split_modules(text: &str) -> Result<Vec<RawModule>, EmitError> {
    let head = Regex::new(r"(?m)^module ([^\s(]+)\(").expect("regex");
    let mut out = Vec::new();
    for m in head.captures_iter(text) {
        let path = m[1].to_string();
        let start = m.get(0).map(|x| x.start()).unwrap_or(0);
        let end_tag = format!("endmodule // {path}");
        let end = text[start..]
            .find(&end_tag)
            .ok_or_else(|| EmitError::Parse(format!("no `{end_tag}`")))?;
        out.push(RawModule { path, body: text[start..start + end].to_string() });
    }
    if out.is_empty() {
        return Err(EmitError::Parse("no module found".into()));
    }
    Ok(out)
}

/// Evaluates a constant integer expression of decimals, sized literals, `+ - *` and parentheses.
fn eval_const(text: &str) -> Option<i128> {
    let lit = Regex::new(r"^\d+'([hbd])([0-9a-fA-F_]+)").expect("regex");
    let mut toks: Vec<String> = Vec::new();
    let mut rest = text.trim();
    while !rest.is_empty() {
        let c = rest.chars().next()?;
        if c.is_whitespace() {
            rest = &rest[1..];
        } else if "+-*()".contains(c) {
            toks.push(c.to_string());
            rest = &rest[1..];
        } else if let Some(m) = lit.captures(rest) {
            let radix = match &m[1] {
                "h" => 16,
                "b" => 2,
                _ => 10,
            };
            toks.push(i128::from_str_radix(&m[2].replace('_', ""), radix).ok()?.to_string());
            rest = &rest[m.get(0)?.end()..];
        } else if c.is_ascii_digit() {
            let n = rest.find(|ch: char| !ch.is_ascii_digit()).unwrap_or(rest.len());
            toks.push(rest[..n].to_string());
            rest = &rest[n..];
        } else {
            return None;
        }
    }
    fn expr(t: &[String], i: &mut usize) -> Option<i128> {
        let mut v = term(t, i)?;
        while *i < t.len() && (t[*i] == "+" || t[*i] == "-") {
            let op = t[*i].clone();
            *i += 1;
            let r = term(t, i)?;
            v = if op == "+" { v + r } else { v - r };
        }
        Some(v)
    }
    fn term(t: &[String], i: &mut usize) -> Option<i128> {
        let mut v = atom(t, i)?;
        while *i < t.len() && t[*i] == "*" {
            *i += 1;
            v *= atom(t, i)?;
        }
        Some(v)
    }
    fn atom(t: &[String], i: &mut usize) -> Option<i128> {
        let tok = t.get(*i)?.clone();
        *i += 1;
        if tok == "(" {
            let v = expr(t, i)?;
            if t.get(*i)? != ")" {
                return None;
            }
            *i += 1;
            Some(v)
        } else {
            tok.parse().ok()
        }
    }
    let mut i = 0;
    let v = expr(&toks, &mut i)?;
    (i == toks.len()).then_some(v)
}

/// Folds constant expressions inside `[...]` (bit selects and `+:` part selects).
fn fold_indices(body: &str) -> String {
    let part = Regex::new(r"\[\(([^\[\]]*?)\)\+:\((\d+)\)\]").expect("regex");
    let body = part.replace_all(body, |c: &regex::Captures| match eval_const(&c[1]) {
        Some(v) => format!("[{v}+:{}]", &c[2]),
        None => c[0].to_string(),
    });
    let bit = Regex::new(r"\[([^\[\]:]*?)\]").expect("regex");
    let mut body = bit
        .replace_all(&body, |c: &regex::Captures| match eval_const(&c[1]) {
            Some(v) if c[1].contains('\'') || c[1].contains(['*', '+', '(']) => format!("[{v}]"),
            _ => c[0].to_string(),
        })
        .into_owned();
    // a select of a select (a struct field sliced again) is not Verilog-2005: fold the chain
    let chain = Regex::new(r"\[(\d+)\+:(\d+)\]\[(\d+)(?:\+:(\d+))?\]").expect("regex");
    loop {
        let next = chain
            .replace_all(&body, |c: &regex::Captures| {
                let base: usize = c[1].parse().unwrap_or(0);
                let inner: usize = c[3].parse().unwrap_or(0);
                match c.get(4) {
                    Some(w) => format!("[{}+:{}]", base + inner, w.as_str()),
                    None => format!("[{}]", base + inner),
                }
            })
            .into_owned();
        if next == body {
            return body;
        }
        body = next;
    }
}

/// rust-hdl writes `bit_cast::<W, N>(x[o+:n])` as `((x[o+:n]) & W'h<all ones>)`, an AND of
/// mismatched widths (Verilator WIDTH); a zero extension says the same exactly:
/// `{(W-n)'b0, x[o+:n]}`. `x` may still hold rust-hdl's `$` (renamed after this step).
fn zero_extend_casts(body: &str) -> String {
    let cast = Regex::new(r"\(\(([A-Za-z_][A-Za-z0-9_$]*\[\d+\+:(\d+)\])\) & (\d+)'h([0-9a-f]+)\)")
        .expect("regex");
    cast.replace_all(body, |c: &regex::Captures| {
        let n: u32 = c[2].parse().unwrap_or(0);
        let w: u32 = c[3].parse().unwrap_or(0);
        let all_ones = w < 128 && u128::from_str_radix(&c[4], 16).ok() == Some((1u128 << w) - 1);
        if all_ones && n < w {
            format!("{{{}'b0, {}}}", w - n, &c[1])
        } else {
            c[0].to_string()
        }
    })
    .into_owned()
}

/// Moves plain forwards of the clock and reset to submodules (`sub_clk_i = clk_i;` in the
/// combinational block) out to continuous assignments on wires: a clock must not pass through
/// an `always @(*)` block, which would also re-evaluate all of it at every clock edge.
fn forward_clock_and_reset(body: &str) -> String {
    let fwd = Regex::new(r"(?m)^\s+([A-Za-z_][A-Za-z0-9_]*) = (clk_i|rst_ni);\n").expect("regex");
    let mut moved: Vec<(String, String)> = Vec::new();
    for c in fwd.captures_iter(body) {
        let name = c[1].to_string();
        let assigned =
            Regex::new(&format!(r"(?m)^\s*{}\s*(<?=)", regex::escape(&name))).expect("regex");
        if assigned.find_iter(body).count() == 1 {
            moved.push((name, c[2].to_string()));
        }
    }
    let mut out = body.to_string();
    for (name, src) in &moved {
        let line =
            Regex::new(&format!(r"(?m)^\s+{} = {};\n", regex::escape(name), src)).expect("regex");
        out = line.replace(&out, "").into_owned();
        let decl =
            Regex::new(&format!(r"(?m)^(\s*)reg(\s+){};", regex::escape(name))).expect("regex");
        out = decl.replace(&out, format!("${{1}}wire${{2}}{name};").as_str()).into_owned();
    }
    if !moved.is_empty() {
        let assigns: String =
            moved.iter().map(|(n, s)| format!("    assign {n} = {s};\n")).collect();
        out = format!("{out}\n    // clock and reset of submodules\n{assigns}");
    }
    out
}

/// Width of the input port `d_i` (1 if scalar, 0 if absent).
fn d_width(body: &str) -> usize {
    let re = Regex::new(r"input wire\s+(?:\[(\d+):0\]\s*)?d_i;").expect("regex");
    match re.captures(body) {
        Some(c) => {
            c.get(1).and_then(|m| m.as_str().parse::<usize>().ok()).map(|h| h + 1).unwrap_or(1)
        }
        None => 0,
    }
}

/// Names the elements of vectors indexed by tree level first (`bases`) by their level:
/// rust-hdl's `n$2$5` (level 2, node 5) becomes `n2$5`, so the Verilog reads `n2_5` as it
/// would with one field per level.
fn level_names(body: &str, bases: &[&str]) -> String {
    if bases.is_empty() {
        return body.to_string();
    }
    let re = Regex::new(&format!(r"\b({})\$(\d+)\$", bases.join("|"))).expect("regex");
    re.replace_all(body, "${1}${2}$$").into_owned()
}

/// Drops the index of the one element of each vector field in `bases` ([`ModuleKind::singles`]):
/// `pickl$0$pair_i` becomes `pickl$pair_i`, `last$0` becomes `last`.
fn single_names(body: &str, bases: &[&str]) -> String {
    if bases.is_empty() {
        return body.to_string();
    }
    let re = Regex::new(&format!(r"\b({})\$0\b", bases.join("|"))).expect("regex");
    re.replace_all(body, "${1}").into_owned()
}

/// Replaces `$` inside identifiers by `_`, refusing collisions.
fn rename_dollars(module: &str, body: &str) -> Result<String, EmitError> {
    let ident = Regex::new(r"[A-Za-z_][A-Za-z0-9_$]*").expect("regex");
    let existing: std::collections::HashSet<&str> =
        ident.find_iter(body).map(|m| m.as_str()).collect();
    let mut map: HashMap<String, String> = HashMap::new();
    for id in existing.iter().filter(|i| i.contains('$')) {
        let to = id.replace('$', "_");
        if existing.contains(to.as_str()) {
            return Err(EmitError::Collision { module: module.into(), from: id.to_string(), to });
        }
        map.insert(id.to_string(), to);
    }
    let out = ident.replace_all(body, |c: &regex::Captures| {
        map.get(&c[0]).cloned().unwrap_or_else(|| c[0].to_string())
    });
    // two distinct `$` names must not become one
    let targets: std::collections::HashSet<&String> = map.values().collect();
    if targets.len() != map.len() {
        return Err(EmitError::Collision {
            module: module.into(),
            from: "<several>".into(),
            to: "<same>".into(),
        });
    }
    Ok(out.into_owned())
}

impl Design {
    /// Emits `block` and cleans the text. `kind(path, body)` names and documents the module
    /// instance at hierarchy path `path` (`top`, `top$reduce$n$1$0`) whose rust-hdl text is
    /// `body`, or refuses it with an error.
    pub fn from_block<B: Block>(
        block: &B,
        kind: &dyn Fn(&str, &str) -> Result<ModuleKind, EmitError>,
    ) -> Result<Design, EmitError> {
        rust_hdl::core::check_error::check_all(block)
            .map_err(|e| EmitError::Check(format!("{e:?}")))?;
        let raw = split_modules(&generate_verilog_unchecked(block))?;
        // leaves first: a module's body is final once its children are named
        let mut order: Vec<usize> = (0..raw.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(raw[i].path.matches('$').count()));
        let mut name_of: HashMap<String, String> = HashMap::new();
        let mut by_body: HashMap<String, String> = HashMap::new();
        let mut used: HashMap<String, usize> = HashMap::new();
        let mut modules: BTreeMap<String, (String, ModuleKind)> = BTreeMap::new();
        let inst = Regex::new(r"(?m)^(\s*)(\S+) (\S+)\(\s*$").expect("regex");
        // the data ports of a parameterised register, declared with their width
        let width_decl =
            Regex::new(r"(?m)^(\s*(?:input|output)\s+(?:wire|reg)\s+)(?:\[\d+:0\]\s*)?(d_i|q_o);")
                .expect("regex");
        for &i in &order {
            let RawModule { path, body } = &raw[i];
            let k = kind(path, body)?;
            // child references -> their final names
            let body = inst.replace_all(body, |c: &regex::Captures| match name_of.get(&c[2]) {
                Some(n) => format!("{}{} {}(", &c[1], n, &c[3]),
                None => c[0].to_string(),
            });
            let body = body.replacen(&format!("module {path}("), "module @NAME@(", 1);
            let body = zero_extend_casts(&fold_indices(&body));
            let body = level_names(&body, &k.level_vectors);
            let body = single_names(&body, &k.singles);
            let body = rename_dollars(&k.name, &body)?;
            let body = forward_clock_and_reset(&body);
            let (body, param) = if k.parameterised {
                let w = d_width(&body);
                (width_decl.replace_all(&body, "${1}[Width-1:0] $2;").into_owned(), Some(w))
            } else {
                (body, None)
            };
            let base = k.name.clone();
            let name = match by_body.get(&body) {
                Some(n) => n.clone(),
                None => {
                    let n = used.entry(base.clone()).or_insert(0);
                    *n += 1;
                    let name = if *n == 1 { base.clone() } else { format!("{base}_v{n}") };
                    by_body.insert(body.clone(), name.clone());
                    modules.insert(name.clone(), (body.clone(), k.clone()));
                    name
                }
            };
            let name = match param {
                Some(w) => format!("{name} #(.Width({w}))"),
                None => name,
            };
            name_of.insert(path.clone(), name);
        }
        let top =
            name_of.get("top").cloned().ok_or_else(|| EmitError::Parse("no top module".into()))?;
        let bodies: Vec<(String, String)> = modules
            .iter()
            .map(|(name, (body, _))| (name.clone(), body.replace("@NAME@", name)))
            .collect();
        let inputs: Vec<crate::style::Input<'_>> = bodies
            .iter()
            .map(|(name, body)| crate::style::Input {
                name,
                body,
                parameterised: modules[name].1.parameterised,
                lane_names: &modules[name].1.lane_names,
            })
            .collect();
        let styled = crate::style::restyle(&inputs)?;
        let mut out = Vec::new();
        for ((name, (_, k)), s) in modules.iter().zip(styled) {
            let mut header = String::new();
            for line in k.doc.lines() {
                let _ = writeln!(header, "// {line}").map(|_| ());
            }
            let text = format!("{header}{}endmodule // {name}\n", s.body.trim_start_matches('\n'));
            let text = crate::style::fold(&text, crate::style::MAX_COLUMNS);
            out.push(Module {
                name: name.clone(),
                text,
                ports: s.ports,
                waivers: k.waivers.clone(),
            });
        }
        out.sort_by_key(|m| (m.name != top, m.name.clone()));
        Ok(Design {
            top,
            modules: out,
            prefix: String::new(),
            block: String::new(),
            cfg: UnitConfig::default(),
        })
    }

    /// All modules in one text (top first).
    pub fn combined(&self) -> String {
        self.modules.iter().map(|m| m.text.as_str()).collect::<Vec<_>>().join("\n")
    }

    /// The manifest entry of this emission, for files with these sha256 sums.
    fn record(&self, files: Vec<FileRecord>) -> UnitRecord {
        UnitRecord {
            prefix: self.prefix.clone(),
            top: self.top.clone(),
            block: self.block.clone(),
            lanes: self.cfg.lanes,
            latency_cycles: self.cfg.latency(),
            config: self.cfg.clone(),
            stage_after_levels: self.cfg.boundaries(),
            pipeline_extra: self.cfg.pipeline_extra.iter().map(|e| e.name().to_string()).collect(),
            opcode_encoding: "pisa_model::op::SgOp::encode (op_i[7:6]: 00 shfl, 01 fred, 10 ired, 11 redfirstidx)".into(),
            generator: format!("pisa-rtl {}", env!("CARGO_PKG_VERSION")),
            ports: self.modules.iter().find(|m| m.name == self.top).map(|m| m.ports.clone()).unwrap_or_default(),
            files,
        }
    }

    /// Writes `<module>.v` per module, the integration files ([`crate::integration`]: package,
    /// header, filelist, core file) and `manifest.json` into `dir` (created when missing), as
    /// [`crate::outdir`] does: only files a previous `pisa emit` wrote there under the same
    /// prefix, and that are unchanged since (their sha256 in the manifest), are replaced or
    /// removed; other emissions in the folder (other prefixes) are kept in the manifest; a
    /// `manifest.json` that is not the kit's stops the write. `force` replaces anyway.
    /// Nothing is changed when an error occurs before the files are moved into place.
    pub fn write(&self, dir: &Path, force: bool) -> Result<Vec<PathBuf>, EmitError> {
        // what --force cannot help with, said before the record is read
        if dir.as_os_str().is_empty() {
            return Err(crate::outdir::OutDirError::Empty.into());
        }
        if std::fs::metadata(dir).is_ok_and(|m| !m.is_dir()) {
            return Err(crate::outdir::OutDirError::NotAFolder(dir.to_path_buf()).into());
        }
        let old = match Manifest::read(dir) {
            Ok(m) => m,
            Err(_) if force => None,
            Err(e) => {
                return Err(EmitError::Manifest(format!(
                    "{e}; refusing to write into {} (pass --force to replace it)",
                    dir.display()
                )))
            }
        };
        let mut units = old.as_ref().map(|m| m.units.clone()).unwrap_or_default();
        let mut owned = BTreeMap::new();
        if let Some(i) = units.iter().position(|u| u.prefix == self.prefix) {
            for f in &units.remove(i).files {
                owned.insert(f.file.clone(), f.sha256.clone());
            }
        }
        let manifest_path = dir.join("manifest.json");
        if old.is_some() || (force && manifest_path.is_file()) {
            // the manifest itself is the kit's (checked above) or forced
            let bytes = std::fs::read(&manifest_path).unwrap_or_default();
            owned.insert("manifest.json".into(), sha256_hex(&bytes));
        }
        let commit = Commit::begin(dir, owned, force)?;
        let mut files = Vec::new();
        for m in &self.modules {
            let f = format!("{}.v", m.name);
            if let Err(e) = commit.write(&f, m.text.as_bytes()) {
                commit.abandon();
                return Err(e.into());
            }
            files.push(FileRecord {
                file: f,
                module: Some(m.name.clone()),
                sha256: sha256_hex(m.text.as_bytes()),
            });
        }
        for (f, text) in crate::integration::files(self) {
            if let Err(e) = commit.write(&f, text.as_bytes()) {
                commit.abandon();
                return Err(e.into());
            }
            files.push(FileRecord { file: f, module: None, sha256: sha256_hex(text.as_bytes()) });
        }
        units.push(self.record(files.clone()));
        units.sort_by(|a, b| a.prefix.cmp(&b.prefix));
        let manifest = Manifest { format: FORMAT.to_string(), units };
        let text = serde_json::to_string_pretty(&manifest).unwrap_or_default() + "\n";
        if let Err(e) = commit.write("manifest.json", text.as_bytes()) {
            commit.abandon();
            return Err(e.into());
        }
        commit.finish()?;
        let mut paths: Vec<PathBuf> = files.iter().map(|f| dir.join(&f.file)).collect();
        paths.push(manifest_path);
        Ok(paths)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_folding() {
        assert_eq!(eval_const("3 * 32'h20 + 32'h8"), Some(104));
        assert_eq!(eval_const("(2 * 5 + 1) * 32'h20"), Some(352));
        assert_eq!(eval_const("64'h40"), Some(64));
        assert_eq!(eval_const("sel_i"), None);
        assert_eq!(
            fold_indices("a[(3 * 32'h20)+:(32)] b[32'h4] c[x] d[(64'h20)+:(32)] e[31:0]"),
            "a[96+:32] b[4] c[x] d[32+:32] e[31:0]"
        );
        assert_eq!(
            fold_indices("a_i[(64'h4)+:(32)][(16)+:(16)] b[(64'h4)+:(32)][32'h1f]"),
            "a_i[20+:16] b[35]"
        );
        // zero extensions: exact widths; a mask that is not all ones stays an AND
        assert_eq!(
            zero_extend_casts(
                "x = (((a_i[16+:16]) & 34'h3ffffffff) << 32'h11) | ((b[0+:16]) & 34'h3fffffff);"
            ),
            "x = ({18'b0, a_i[16+:16]} << 32'h11) | ((b[0+:16]) & 34'h3fffffff);"
        );
        // array members of submodules still carry rust-hdl's `$` at this point
        assert_eq!(
            zero_extend_casts("y = ((s$1_o[0+:8]) & 32'hffffffff) << 32'h8;"),
            "y = {24'b0, s$1_o[0+:8]} << 32'h8;"
        );
    }

    #[test]
    fn dollar_renames_and_collisions() {
        assert_eq!(
            rename_dollars("m", "reg a$0; x = a$0 + $signed(b);").unwrap(),
            "reg a_0; x = a_0 + $signed(b);"
        );
        assert!(rename_dollars("m", "reg a$0; reg a_0;").is_err());
    }
}

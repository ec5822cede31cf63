//! The integrator's form of an emitted module: ANSI port lists, per-lane ports packed into one
//! bus, and no line over [`MAX_COLUMNS`].
//!
//! rust-hdl writes Verilog-95 port lists (names in the header, declarations after it) and one
//! port per element of a `Vec` of signals (`dst_o_0` … `dst_o_31`). [`restyle`] rewrites every
//! module of a design, after the modules are named:
//!
//! * ports `<base>_0` … `<base>_<n-1>` (`n >= 2`, one direction, one width `w`, `<base>` ending in
//!   `_i` or `_o`) become one port `<base>` of `n * w` bits, element `k` in bits
//!   `[k*w + w-1 : k*w]`. Inside the module the element is a signal `<stem>_lane<k>` (`<stem>` is
//!   `<base>` without `_i`/`_o`), driven from or driving its slice of the bus; in every module
//!   that instantiates it, the connections become one concatenation and the stub signals
//!   `<inst>_<base>_<k>` are renamed `<inst>_<stem>_lane<k>`.
//! * the header becomes an ANSI list, one port per line, columns aligned; a module built with a
//!   `Width` parameter gets `#(parameter integer Width = 1)`.
//! * an `if (c) begin x = a; end else begin x = b; end` that assigns one signal in both arms
//!   (rust-hdl's form of a 2:1 mux, five lines) becomes `x = c ? a : b;` (the same `$mux` for
//!   synthesis and the same function);
//! * lines longer than [`MAX_COLUMNS`] are folded at a space (code: the continuation indented
//!   four more; comments: continued as comments).
//!
//! A rename that would collide with an existing name is an error, never a silent change.

use std::collections::HashMap;

use regex::Regex;

use crate::emit::EmitError;
use crate::manifest::Port;

/// The longest line the emitter writes (the lowRISC Verilog style guide's limit).
pub const MAX_COLUMNS: usize = 100;

/// One port declaration as rust-hdl writes it (`input wire  [31:0] x_i;`).
#[derive(Clone, Debug)]
struct Decl {
    dir: String,
    kind: String,
    signed: bool,
    /// `[31:0]`, `[Width-1:0]` or empty.
    range: String,
    /// Bits, when the range is numeric.
    width: Option<usize>,
    name: String,
}

/// Ports `<base>_0 .. <base>_<n-1>` packed into `<base>`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Group {
    base: String,
    stem: String,
    n: usize,
    /// Bits per element.
    w: usize,
}

impl Group {
    /// `k` when `name` is `<prefix>_<k>` with `k < n` (`prefix`: the base or the lane stem).
    fn member(&self, name: &str, prefix: &str, sep: &str) -> Option<usize> {
        let k = name.strip_prefix(prefix)?.strip_prefix(sep)?.parse::<usize>().ok()?;
        (k < self.n).then_some(k)
    }
}

fn decl_re() -> Regex {
    Regex::new(
        r"^\s*(input|output)\s+(wire|reg)\s+(signed\s+)?(\[[^\]]+\]\s*)?([A-Za-z_][A-Za-z0-9_]*);\s*$",
    )
    .expect("regex")
}

fn range_width(range: &str) -> Option<usize> {
    let r = range.trim().strip_prefix('[')?.strip_suffix(']')?;
    let (h, l) = r.split_once(':')?;
    let (h, l): (usize, usize) = (h.trim().parse().ok()?, l.trim().parse().ok()?);
    (h >= l).then(|| h - l + 1)
}

fn parse_decls(body: &str) -> Vec<Decl> {
    let re = decl_re();
    body.lines()
        .filter_map(|l| re.captures(l))
        .map(|c| {
            let range = c.get(4).map_or(String::new(), |m| m.as_str().trim().to_string());
            Decl {
                dir: c[1].to_string(),
                kind: c[2].to_string(),
                signed: c.get(3).is_some(),
                width: if range.is_empty() { Some(1) } else { range_width(&range) },
                range,
                name: c[5].to_string(),
            }
        })
        .collect()
}

/// The packed groups among `decls`.
fn groups(decls: &[Decl]) -> Vec<Group> {
    let elem = Regex::new(r"^(.+_[io])_(\d+)$").expect("regex");
    let mut by_base: HashMap<String, Vec<(usize, &Decl)>> = HashMap::new();
    let mut order = Vec::new();
    for d in decls {
        if let Some(c) = elem.captures(&d.name) {
            let Ok(k) = c[2].parse::<usize>() else { continue };
            let base = c[1].to_string();
            if !by_base.contains_key(&base) {
                order.push(base.clone());
            }
            by_base.entry(base).or_default().push((k, d));
        }
    }
    let mut out = Vec::new();
    for base in order {
        let members = &by_base[&base];
        let n = members.len();
        let first = members[0].1;
        let complete = n >= 2
            && members.iter().enumerate().all(|(i, (k, _))| *k == i)
            && members.iter().all(|(_, d)| {
                d.dir == first.dir && d.range == first.range && d.signed == first.signed
            })
            && !decls.iter().any(|d| d.name == base);
        if let (true, Some(w)) = (complete, first.width) {
            let stem = base[..base.len() - 2].to_string();
            out.push(Group { base, stem, n, w });
        }
    }
    out
}

/// Renames every whole-word `from_<k>` to `to_lane<k>` in `text`; an error when a name
/// `to_lane<k>` is already there.
fn rename_lanes(module: &str, text: &str, from: &str, to: &str) -> Result<String, EmitError> {
    let taken = Regex::new(&format!(r"\b{to}_lane\d+\b")).expect("regex");
    if let Some(m) = taken.find(text) {
        return Err(EmitError::Collision {
            module: module.to_string(),
            from: format!("{from}_<k>"),
            to: m.as_str().to_string(),
        });
    }
    let re = Regex::new(&format!(r"\b{from}_(\d+)\b")).expect("regex");
    Ok(re.replace_all(text, format!("{to}_lane${{1}}")).into_owned())
}

/// What [`restyle`] needs to know of one module.
pub struct Input<'a> {
    pub name: &'a str,
    /// The module's text from `module NAME(...)` to just before `endmodule`.
    pub body: &'a str,
    /// Built with a `Width` parameter (its `d_i`/`q_o` declared `[Width-1:0]`).
    pub parameterised: bool,
    /// Its per-lane signal vectors, renamed by lane, word and copy.
    pub lane_names: &'a [crate::emit::LaneName],
}

/// The restyled body (still without header comment and `endmodule`) and its ports.
pub struct Output {
    pub body: String,
    pub ports: Vec<Port>,
}

/// Restyles all modules of one design (see the module documentation).
pub fn restyle(modules: &[Input<'_>]) -> Result<Vec<Output>, EmitError> {
    let packed: HashMap<&str, Vec<Group>> =
        modules.iter().map(|m| (m.name, groups(&parse_decls(m.body)))).collect();
    modules.iter().map(|m| one(m, &packed)).collect()
}

fn one(m: &Input<'_>, packed: &HashMap<&str, Vec<Group>>) -> Result<Output, EmitError> {
    let decls = parse_decls(m.body);
    let own = &packed[m.name];
    let header_re =
        Regex::new(r"(?m)^module\s+[A-Za-z0-9_]+\s*\(([^)]*)\);[ \t]*\n").expect("regex");
    let header = header_re
        .captures(m.body)
        .ok_or_else(|| EmitError::Parse(format!("module {}: no port list", m.name)))?;
    let order: Vec<String> =
        header[1].split(',').map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect();
    let whole = header.get(0).map_or(0..0, |g| g.range());
    let mut body = m.body[whole.end..].to_string();

    // instantiations of children with packed ports: one concatenation per group
    body = pack_connections(m.name, &body, packed)?;

    // own lane ports: renamed `<stem>_lane<k>` in the body (their declarations included)
    for g in own {
        body = rename_lanes(m.name, &body, &g.base, &g.stem)?;
    }
    // own declarations: packed members become lane signals, the others move to the header
    let re = decl_re();
    let mut kept = Vec::new();
    let mut assigns = Vec::new();
    for line in body.lines() {
        let Some(c) = re.captures(line) else {
            if line.trim() != "// Module arguments" {
                kept.push(line.to_string());
            }
            continue;
        };
        let name = &c[5];
        let member = own.iter().find_map(|g| Some((g, g.member(name, &g.stem, "_lane")?)));
        let Some((g, k)) = member else { continue };
        let indent = &line[..line.len() - line.trim_start().len()];
        let range = c.get(4).map_or(String::new(), |r| format!("{} ", r.as_str().trim()));
        let slice = if g.w == 1 {
            format!("{}[{k}]", g.base)
        } else {
            format!("{}[{}:{}]", g.base, k * g.w + g.w - 1, k * g.w)
        };
        if &c[1] == "input" {
            kept.push(format!("{indent}wire {range}{name} = {slice};"));
        } else {
            kept.push(format!("{indent}{} {range}{name};", &c[2]));
            assigns.push(format!("{indent}assign {slice} = {name};"));
        }
    }
    let mut joined = ternaries(&kept.join("\n"));
    for n in m.lane_names {
        joined = lane_rename(m.name, &joined, n)?;
    }
    let kept: Vec<String> = joined.lines().map(String::from).collect();
    // one blank line between the header and the first declaration
    let first = kept.iter().position(|l| !l.trim().is_empty()).unwrap_or(kept.len());
    let mut body = String::from("\n");
    body.push_str(&kept[first..].join("\n"));
    if !assigns.is_empty() {
        body.push_str("\n    // the lanes onto the packed output bus\n");
        body.push_str(&assigns.join("\n"));
    }
    body.push('\n');

    // the ANSI header
    let mut ports = Vec::new();
    let mut rows: Vec<(String, String, String, String)> = Vec::new();
    for p in &order {
        if let Some(g) = own.iter().find(|g| p.strip_prefix(&g.base).is_some_and(|r| r == "_0")) {
            let d = decls.iter().find(|d| &d.name == p).expect("declared");
            let bits = g.n * g.w;
            ports.push(Port { name: g.base.clone(), dir: d.dir.clone(), width: bits });
            rows.push((
                d.dir.clone(),
                "wire".into(),
                format!("{}[{}:0]", if d.signed { "signed " } else { "" }, bits - 1),
                g.base.clone(),
            ));
            continue;
        }
        if own.iter().any(|g| g.member(p, &g.base, "_").is_some()) {
            continue;
        }
        let d = decls
            .iter()
            .find(|d| &d.name == p)
            .ok_or_else(|| EmitError::Parse(format!("module {}: port {p} not declared", m.name)))?;
        ports.push(Port { name: d.name.clone(), dir: d.dir.clone(), width: d.width.unwrap_or(0) });
        let range = format!("{}{}", if d.signed { "signed " } else { "" }, d.range);
        rows.push((d.dir.clone(), d.kind.clone(), range, d.name.clone()));
    }
    let mut head = String::new();
    if m.parameterised {
        head.push_str(&format!(
            "module {} #(\n    parameter integer Width = 1  // bits of d_i and q_o\n) (\n",
            m.name
        ));
    } else {
        head.push_str(&format!("module {} (\n", m.name));
    }
    for (i, (dir, kind, range, name)) in rows.iter().enumerate() {
        let sep = if i + 1 < rows.len() { "," } else { "" };
        head.push_str(&format!("    {dir} {kind} {range} {name}{sep}\n"));
    }
    head.push_str(");\n");
    let head = align(&head);
    Ok(Output { body: format!("{}{}", &m.body[..whole.start], head) + &body, ports })
}

/// Renames `<base>_<x>` and every name that extends it (`<base>_<x>_d_i`) by lane, word and
/// copy ([`crate::emit::LaneName`]); an error when a new name is already taken.
fn lane_rename(module: &str, text: &str, n: &crate::emit::LaneName) -> Result<String, EmitError> {
    let taken = Regex::new(&format!(r"\b{}_lane\d", n.base)).expect("regex");
    if let Some(m) = taken.find(text) {
        return Err(EmitError::Collision {
            module: module.to_string(),
            from: format!("{}_<x>", n.base),
            to: m.as_str().to_string(),
        });
    }
    let re = Regex::new(&format!(r"\b{}_(\d+)(\w*)", n.base)).expect("regex");
    let mut bad = None;
    let out = re.replace_all(text, |c: &regex::Captures| {
        let rest = &c[2];
        let Ok(x) = c[1].parse::<usize>() else { return c[0].to_string() };
        if !(rest.is_empty() || rest.starts_with('_')) {
            return c[0].to_string();
        }
        let (per_lane, copies) = (n.per_lane.max(1), n.copies.max(1));
        let (lane, within) = (x / (per_lane * copies), x % (per_lane * copies));
        let mut name = format!("{}_lane{lane}", n.base);
        if per_lane > 1 {
            name.push_str(&format!("_w{}", within / copies));
        }
        if copies > 1 {
            name.push_str(&format!("_b{}", within % copies));
        }
        if rest.starts_with("_lane") {
            bad = Some(c[0].to_string());
        }
        name + rest
    });
    match bad {
        Some(b) => {
            Err(EmitError::Collision { module: module.to_string(), from: b, to: "<lane>".into() })
        }
        None => Ok(out.into_owned()),
    }
}

/// Rewrites every five-line `if (c) begin x = a; end else begin x = b; end` (one blocking
/// assignment to the same signal in each arm) as `x = c ? a : b;`.
pub fn ternaries(text: &str) -> String {
    let re = Regex::new(concat!(
        r"(?m)^([ \t]*)if \((.+)\) begin\n[ \t]*([A-Za-z_][A-Za-z0-9_]*) = ([^;\n]+);\n",
        r"[ \t]*end\n[ \t]*else begin\n[ \t]*([A-Za-z_][A-Za-z0-9_]*) = ([^;\n]+);\n[ \t]*end$"
    ))
    .expect("regex");
    let wrap = |e: &str| if e.contains('?') { format!("({e})") } else { e.to_string() };
    re.replace_all(text, |c: &regex::Captures| {
        if c[3] != c[5] {
            return c[0].to_string();
        }
        let cond = if c[2].contains(' ') { format!("({})", &c[2]) } else { c[2].to_string() };
        format!("{}{} = {cond} ? {} : {};", &c[1], &c[3], wrap(&c[4]), wrap(&c[6]))
    })
    .into_owned()
}

/// Aligns the port rows of an ANSI header: direction, kind, range, name in columns.
fn align(head: &str) -> String {
    let row =
        Regex::new(r"^    (input|output)\s+(wire|reg)\s+(.*?)\s*([A-Za-z_][A-Za-z0-9_]*)(,?)$")
            .expect("regex");
    let rows: Vec<Option<regex::Captures>> = head.lines().map(|l| row.captures(l)).collect();
    let rw = rows.iter().flatten().map(|c| c[3].len()).max().unwrap_or(0);
    let mut out = String::new();
    for (line, c) in head.lines().zip(&rows) {
        match c {
            Some(c) => {
                let range = if rw == 0 { String::new() } else { format!("{:<rw$} ", &c[3]) };
                out.push_str(&format!("    {:<6} {:<4} {range}{}{}\n", &c[1], &c[2], &c[4], &c[5]));
            }
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

/// Rewrites the instantiations in `body` of modules with packed ports.
fn pack_connections(
    module: &str,
    body: &str,
    packed: &HashMap<&str, Vec<Group>>,
) -> Result<String, EmitError> {
    let open = Regex::new(r"^(\s*)([A-Za-z0-9_]+)((?:\s+#\(.*\))?)\s+([A-Za-z0-9_]+)\(\s*$")
        .expect("regex");
    let conn = Regex::new(r"^(\s*)\.([A-Za-z0-9_]+)\((.*)\),?\s*$").expect("regex");
    let lines: Vec<&str> = body.lines().collect();
    let mut out: Vec<String> = Vec::new();
    let mut renames: Vec<(String, String)> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let Some(c) = open.captures(line) else {
            out.push(line.to_string());
            i += 1;
            continue;
        };
        let gs = match packed.get(&c[2]) {
            Some(g) if !g.is_empty() => g,
            _ => {
                out.push(line.to_string());
                i += 1;
                continue;
            }
        };
        let inst = c[4].to_string();
        out.push(line.to_string());
        i += 1;
        // the connections, up to the closing `);`
        let mut conns: Vec<(String, String, String)> = Vec::new();
        while i < lines.len() && lines[i].trim() != ");" {
            let cc = conn.captures(lines[i]).ok_or_else(|| {
                EmitError::Parse(format!("module {module}: connection '{}'", lines[i].trim()))
            })?;
            conns.push((cc[1].to_string(), cc[2].to_string(), cc[3].to_string()));
            i += 1;
        }
        let mut rows: Vec<(String, String, String)> = Vec::new();
        for (indent, port, expr) in &conns {
            let member = gs.iter().find_map(|g| Some((g, g.member(port, &g.base, "_")?)));
            match member {
                None => rows.push((indent.clone(), port.clone(), expr.clone())),
                Some((g, 0)) => {
                    let mut parts = Vec::new();
                    for k in (0..g.n).rev() {
                        let name = format!("{}_{k}", g.base);
                        let e =
                            conns.iter().find(|c| c.1 == name).map(|c| c.2.clone()).ok_or_else(
                                || {
                                    EmitError::Parse(format!(
                                    "module {module}: instance {inst} leaves {name} unconnected"
                                ))
                                },
                            )?;
                        parts.push(e);
                    }
                    rows.push((
                        indent.clone(),
                        g.base.clone(),
                        format!("{{{}}}", parts.join(", ")),
                    ));
                    renames.push((format!("{inst}_{}", g.base), format!("{inst}_{}", g.stem)));
                }
                Some(_) => {}
            }
        }
        for (j, (indent, port, expr)) in rows.iter().enumerate() {
            let sep = if j + 1 < rows.len() { "," } else { "" };
            out.push(format!("{indent}.{port}({expr}){sep}"));
        }
    }
    let mut text = out.join("\n");
    if body.ends_with('\n') {
        text.push('\n');
    }
    for (from, to) in renames {
        text = rename_lanes(module, &text, &from, &to)?;
    }
    Ok(text)
}

/// Folds every line longer than `max` columns at a space: a comment continues as a comment
/// with the same indentation, code continues indented four more. A line with no space to fold
/// at stays as it is.
pub fn fold(text: &str, max: usize) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    for line in text.lines() {
        fold_line(line, max, &mut out);
    }
    out
}

fn fold_line(line: &str, max: usize, out: &mut String) {
    if line.len() <= max {
        out.push_str(line.trim_end());
        out.push('\n');
        return;
    }
    let indent = &line[..line.len() - line.trim_start().len()];
    let t = line.trim_start();
    if let Some(rest) = t.strip_prefix("//") {
        let lead = format!("{indent}// ");
        let mut cur = lead.clone();
        for word in rest.split(' ').filter(|w| !w.is_empty()) {
            if cur.len() > lead.len() && cur.len() + 1 + word.len() > max {
                out.push_str(cur.trim_end());
                out.push('\n');
                cur = lead.clone();
            }
            if cur.len() > lead.len() {
                cur.push(' ');
            }
            cur.push_str(word);
        }
        out.push_str(cur.trim_end());
        out.push('\n');
        return;
    }
    // code with a trailing comment: the comment goes on its own line above
    if let Some(at) = t.find("//") {
        fold_line(&format!("{indent}{}", &t[at..]), max, out);
        fold_line(&format!("{indent}{}", t[..at].trim_end()), max, out);
        return;
    }
    let cont = format!("{indent}    ");
    let mut rest = t.to_string();
    let mut lead = indent.to_string();
    loop {
        if lead.len() + rest.len() <= max {
            out.push_str(&lead);
            out.push_str(&rest);
            out.push('\n');
            return;
        }
        let budget = max - lead.len();
        let cut = rest[..budget.min(rest.len())].rfind(' ').filter(|&c| c > 0);
        let cut = match cut.or_else(|| rest[budget.min(rest.len())..].find(' ').map(|c| c + budget))
        {
            Some(c) => c,
            None => {
                out.push_str(&lead);
                out.push_str(&rest);
                out.push('\n');
                return;
            }
        };
        out.push_str(&lead);
        out.push_str(rest[..cut].trim_end());
        out.push('\n');
        rest = rest[cut..].trim_start().to_string();
        lead = cont.clone();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHILD: &str = "module child(clk_i,sel_i_0,sel_i_1,dst_o_0,dst_o_1);\n    \n    // Module arguments\n    input wire  clk_i;\n    input wire  [2:0] sel_i_0;\n    input wire  [2:0] sel_i_1;\n    output reg  [7:0] dst_o_0;\n    output reg  [7:0] dst_o_1;\n    always @(*) begin\n        dst_o_0 = {5'b0, sel_i_1};\n        dst_o_1 = {5'b0, sel_i_0};\n    end\n";
    const PARENT: &str = "module parent(a_i,y_o);\n    input wire  [5:0] a_i;\n    output reg  [15:0] y_o;\n    reg  [2:0] c_sel_i_0;\n    reg  [2:0] c_sel_i_1;\n    wire  [7:0] c_dst_o_0;\n    wire  [7:0] c_dst_o_1;\n    child c(\n        .clk_i(1'b0),\n        .sel_i_0(c_sel_i_0),\n        .sel_i_1(c_sel_i_1),\n        .dst_o_0(c_dst_o_0),\n        .dst_o_1(c_dst_o_1)\n    );\n    always @(*) begin\n        c_sel_i_0 = a_i[2:0];\n        c_sel_i_1 = a_i[5:3];\n        y_o = {c_dst_o_1, c_dst_o_0};\n    end\n";

    #[test]
    fn packs_lane_ports_and_their_connections() {
        let out = restyle(&[
            Input { name: "child", body: CHILD, parameterised: false, lane_names: &[] },
            Input { name: "parent", body: PARENT, parameterised: false, lane_names: &[] },
        ])
        .unwrap();
        let child = &out[0].body;
        assert!(
            child.starts_with(
                "module child (\n    input  wire        clk_i,\n    input  wire [5:0]  sel_i,\n    output wire [15:0] dst_o\n);\n"
            ),
            "{child}"
        );
        assert!(child.contains("wire [2:0] sel_lane1 = sel_i[5:3];"), "{child}");
        assert!(child.contains("reg [7:0] dst_lane0;"), "{child}");
        assert!(child.contains("assign dst_o[15:8] = dst_lane1;"), "{child}");
        assert!(child.contains("dst_lane0 = {5'b0, sel_lane1};"), "{child}");
        assert!(!child.contains("_i_0") && !child.contains("_o_1"), "{child}");
        assert_eq!(
            out[0].ports.iter().map(|p| (p.name.as_str(), p.width)).collect::<Vec<_>>(),
            [("clk_i", 1), ("sel_i", 6), ("dst_o", 16)]
        );
        let parent = &out[1].body;
        assert!(parent.contains(".sel_i({c_sel_lane1, c_sel_lane0}),"), "{parent}");
        assert!(parent.contains(".dst_o({c_dst_lane1, c_dst_lane0})\n    );"), "{parent}");
        assert!(parent.contains("c_sel_lane0 = a_i[2:0];"), "{parent}");
        assert!(
            parent.contains(
                "module parent (\n    input  wire [5:0]  a_i,\n    output reg  [15:0] y_o\n);"
            ),
            "{parent}"
        );
    }

    #[test]
    fn a_lane_rename_that_collides_is_an_error() {
        let body = CHILD.replace("    always", "    reg dst_lane7;\n    always");
        let e =
            restyle(&[Input { name: "child", body: &body, parameterised: false, lane_names: &[] }]);
        assert!(matches!(e, Err(EmitError::Collision { .. })));
    }

    #[test]
    fn one_signal_if_else_becomes_a_ternary() {
        let t = "    always @(*) begin\n        if (s_i[0]) begin\n            x = a_i;\n        end\n        else begin\n            x = b_i | c;\n        end\n        if (k) begin\n            y = 1;\n        end\n        else begin\n            z = 0;\n        end\n    end";
        let r = ternaries(t);
        assert!(r.contains("        x = s_i[0] ? a_i : b_i | c;\n"), "{r}");
        // two different signals: left as it is
        assert!(r.contains("        if (k) begin\n            y = 1;"), "{r}");
    }

    #[test]
    fn folds_code_and_comments() {
        let long = format!(
            "        x = {};",
            (0..40).map(|i| format!("a{i}")).collect::<Vec<_>>().join(" | ")
        );
        let f = fold(&long, 100);
        assert!(f.lines().count() > 1 && f.lines().all(|l| l.len() <= 100), "{f}");
        assert_eq!(
            f.split_whitespace().collect::<String>(),
            long.split_whitespace().collect::<String>()
        );
        assert!(f.lines().skip(1).all(|l| l.starts_with("            ")), "{f}");
        let c = format!("// {}", "word ".repeat(40));
        let f = fold(&c, 100);
        assert!(f.lines().all(|l| l.starts_with("// ") && l.len() <= 100), "{f}");
    }
}

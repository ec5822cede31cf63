//! Coverage points the unit cannot hit by design, found in its netlist rather than listed by
//! hand: the waivers of `--code-coverage` (`waivers.txt`, one line per point with its reason).
//!
//! yosys elaborates the emitted Verilog, flattens it and optimises it with every wire kept at
//! its declared width (`proc; flatten; setattr -set keep 1 w:*; opt -full`); its JSON netlist
//! then names, for every wire of every instance, which bits are
//! driven by a constant, and which cells read each bit. A toggle point is waived when its bit
//! is constant there (a leaf's lane index, the high bits of a zero-extended 16-bit result: no
//! input sequence can toggle it), or when it is a bit of a top-level input that no logic reads
//! (`clk_i` and `rst_ni` of a combinational unit). Every other point counts.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use serde_json::Value;

use super::code_coverage::field;

/// Why a bit cannot toggle.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Why {
    Constant(char),
    Unread,
}

/// The bits of the flattened unit that cannot toggle: `instance.path.signal` -> bit -> why.
#[derive(Clone, Debug, Default)]
pub struct Constants {
    /// Every public wire, with its bits that cannot toggle (none for most).
    bits: BTreeMap<String, BTreeMap<u32, Why>>,
}

impl Constants {
    /// Reads yosys' JSON netlist of the flattened top module (the one marked `top`, or the only
    /// one).
    pub fn from_yosys_json(text: &str) -> Result<Constants, String> {
        let v: Value = serde_json::from_str(text).map_err(|e| format!("yosys JSON: {e}"))?;
        let modules = v["modules"].as_object().ok_or("yosys JSON: no modules")?;
        let top = modules
            .iter()
            .find(|(_, m)| {
                m["attributes"]["top"].as_str().is_some_and(|t| t.trim_start_matches('0') == "1")
            })
            .or_else(|| (modules.len() == 1).then(|| modules.iter().next()).flatten())
            .map(|(n, _)| n.clone())
            .ok_or("yosys JSON: no top module")?;
        let m = &v["modules"][&top];
        let nets = m["netnames"].as_object().ok_or(format!("yosys JSON: no module {top}"))?;
        // every bit some cell reads, and every bit of an output port
        let mut read: BTreeSet<u64> = BTreeSet::new();
        for c in m["cells"].as_object().into_iter().flat_map(|c| c.values()) {
            let dirs = &c["port_directions"];
            for (port, bits) in c["connections"].as_object().into_iter().flatten() {
                if dirs[port] != "output" {
                    read.extend(bits.as_array().into_iter().flatten().filter_map(Value::as_u64));
                }
            }
        }
        let mut inputs = BTreeSet::new();
        for (name, p) in m["ports"].as_object().into_iter().flatten() {
            match p["direction"].as_str() {
                Some("input") => {
                    inputs.insert(name.clone());
                }
                _ => read
                    .extend(p["bits"].as_array().into_iter().flatten().filter_map(Value::as_u64)),
            }
        }
        let mut bits: BTreeMap<String, BTreeMap<u32, Why>> = BTreeMap::new();
        for (name, n) in nets {
            if name.starts_with('$') {
                continue;
            }
            let entry = bits.entry(name.clone()).or_default();
            for (i, b) in n["bits"].as_array().into_iter().flatten().enumerate() {
                let why = match (b.as_str(), b.as_u64()) {
                    (Some(s @ ("0" | "1")), _) => Why::Constant(s.chars().next().unwrap_or('0')),
                    (_, Some(id)) if inputs.contains(name) && !read.contains(&id) => Why::Unread,
                    _ => continue,
                };
                entry.insert(i as u32, why);
            }
        }
        Ok(Constants { bits })
    }

    /// Runs yosys (`$PISA_YOSYS`, else `yosys`) on the unit's Verilog `sources` (file name,
    /// bytes; the top module is the one no other instantiates), in a fresh folder under `tmp`.
    pub fn derive(sources: &[(String, Vec<u8>)], tmp: &Path) -> Result<Constants, String> {
        let dir = pisa_rtl::outdir::fresh_dir(tmp, "pisa-waivers").map_err(|e| e.to_string())?;
        let r = (|| {
            let mut files = Vec::new();
            for (name, bytes) in sources {
                let file =
                    Path::new(name).file_name().unwrap_or_default().to_string_lossy().into_owned();
                std::fs::write(dir.join(&file), bytes)
                    .map_err(|e| format!("{}: {e}", dir.display()))?;
                if file.ends_with(".v") {
                    files.push(file);
                }
            }
            files.sort();
            let script = format!(
                "read_verilog -I. {}\nhierarchy -auto-top\nproc\nflatten\n\
                 setattr -set keep 1 w:*\nopt -full\nopt_clean\nwrite_json flat.json\n",
                files.join(" ")
            );
            std::fs::write(dir.join("waivers.ys"), script).map_err(|e| e.to_string())?;
            let y = crate::mutate::yosys();
            let o = Command::new(&y)
                .current_dir(&dir)
                .args(["-q", "-l", "waivers.log", "waivers.ys"])
                .output()
                .map_err(|e| {
                    format!("the coverage waivers need yosys: `{}` did not run ({e})", y.display())
                })?;
            if !o.status.success() {
                return Err(format!(
                    "yosys failed on the unit: {}",
                    String::from_utf8_lossy(&o.stderr)
                ));
            }
            let text = std::fs::read_to_string(dir.join("flat.json")).map_err(|e| e.to_string())?;
            Constants::from_yosys_json(&text)
        })();
        let _ = std::fs::remove_dir_all(&dir);
        r
    }

    /// Why a coverage point (a `coverage.dat` key) may be waived, if it may: toggle points of
    /// bits that cannot toggle, in every instance the point stands for (Verilator merges
    /// instances of one module into one point with `*` in its hierarchy): `(true, why)` for a
    /// constant bit, `(false, why)` for an input bit no logic reads (it can toggle, but to no
    /// effect).
    pub fn reason(&self, key: &str) -> Option<(bool, String)> {
        if field(key, "t")? != "toggle" {
            return None;
        }
        let (signal, bit) = parse_toggle(field(key, "o")?)?;
        // `h`: the model's instance name, the top module, then the instance path
        let h = field(key, "h")?;
        let path: Vec<&str> = h.split('.').skip(2).collect();
        // the signal in every instance the point stands for: each must have the bit waivable
        let mut whys = Vec::new();
        for (name, bits) in &self.bits {
            let parts: Vec<&str> = name.split('.').collect();
            let (inst, sig) = parts.split_at(parts.len() - 1);
            if sig[0] != signal
                || inst.len() != path.len()
                || !inst.iter().zip(&path).all(|(a, p)| glob(p, a))
            {
                continue;
            }
            whys.push(bits.get(&bit)?);
        }
        if whys.is_empty() {
            return None;
        }
        if whys.iter().any(|w| **w == Why::Unread) {
            return whys
                .iter()
                .all(|w| **w == Why::Unread)
                .then(|| (false, "an input of the unit that no logic reads".to_string()));
        }
        Some((
            true,
            match whys[0] {
                Why::Constant(v) if whys.iter().all(|w| **w == Why::Constant(*v)) => {
                    format!(
                        "constant {v} in the flattened netlist (yosys proc; flatten; opt -full)"
                    )
                }
                _ => "constant in every instance of the flattened netlist".to_string(),
            },
        ))
    }
}

/// `x_0[3]:0->1` -> (`x_0`, 3); `e_46:1->0` -> (`e_46`, 0).
fn parse_toggle(o: &str) -> Option<(&str, u32)> {
    let (sig, _) = o.rsplit_once(':')?;
    match sig.split_once('[') {
        Some((name, rest)) if !rest.contains('[') => {
            Some((name, rest.strip_suffix(']')?.parse().ok()?))
        }
        Some(_) => None,
        None => Some((sig, 0)),
    }
}

/// `pattern` (with `*` for any run of characters) matches `s`.
fn glob(pattern: &str, s: &str) -> bool {
    fn go(p: &[u8], s: &[u8]) -> bool {
        match p.split_first() {
            None => s.is_empty(),
            Some((b'*', rest)) => (0..=s.len()).any(|i| go(rest, &s[i..])),
            Some((c, rest)) => s.first() == Some(c) && go(rest, &s[1..]),
        }
    }
    go(pattern.as_bytes(), s.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(h: &str, o: &str) -> String {
        format!("\x01t\x02toggle\x01page\x02v_toggle/m\x01o\x02{o}\x01h\x02{h}")
    }

    #[test]
    fn waives_constant_and_unread_bits_only() {
        let json = r#"{"modules": {"top": {
            "ports": {"clk_i": {"direction": "input", "bits": [2]}, "a_i": {"direction": "input", "bits": [3, 4]},
                      "y_o": {"direction": "output", "bits": [5, "0"]}},
            "cells": {"$and$1": {"port_directions": {"A": "input", "B": "input", "Y": "output"},
                                 "connections": {"A": [3], "B": [4], "Y": [5]}}},
            "netnames": {"clk_i": {"bits": [2]}, "a_i": {"bits": [3, 4]}, "y_o": {"bits": [5, "0"]},
                         "u.x": {"bits": ["1", 3]}, "v_0.k": {"bits": ["0"]}, "v_1.k": {"bits": [4]},
                         "$auto$1": {"bits": ["0"]}}}}}"#;
        let c = Constants::from_yosys_json(json).unwrap();
        let r = |h: &str, o: &str| c.reason(&key(h, o));
        assert!(r("m.top", "y_o[1]:0->1").unwrap().1.starts_with("constant 0"));
        assert!(r("m.top", "y_o[0]:0->1").is_none());
        assert!(!r("m.top", "clk_i:0->1").unwrap().0);
        assert!(r("m.top", "a_i[0]:0->1").is_none());
        assert!(r("m.top.u", "x[0]:1->0").unwrap().1.starts_with("constant 1"));
        assert!(r("m.top.u", "x[1]:1->0").is_none());
        // a point of two instances: waived only if the bit is constant in both
        assert!(r("m.top.v_*", "k:0->1").is_none());
        assert!(r("m.top.v_0", "k:0->1").is_some());
        assert_eq!(parse_toggle("x_0[12]:1->0"), Some(("x_0", 12)));
        assert!(glob("leaves_*", "leaves_12") && !glob("leaves_*", "nodes_1"));
    }
}

//! Counterexamples: ABC's `write_cex -n` values of the AIG inputs, mapped back to the miter's
//! ports through yosys' `write_aiger -map` file, and turned into a `pisa exec` line.

use std::collections::BTreeMap;

use pisa_model::exec::replay_line;
use pisa_model::op::ShflMode;
use pisa_model::SgOp;

use crate::property::Property;

/// Port values of one counterexample: port name → bits (LSB first).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ports(pub BTreeMap<String, Vec<bool>>);

impl Ports {
    /// Parses the yosys map (`input <aig index> <bit> <port>`) and ABC's cex (`pi<index>=<0|1>`
    /// for a combinational miter; `pi<index>@<frame>=<0|1>` for a sequential one, of which
    /// `frame` is taken).
    pub fn parse(map: &str, cex: &str, frame: usize) -> Result<Ports, String> {
        let mut by_index: BTreeMap<usize, (String, usize)> = BTreeMap::new();
        for line in map.lines() {
            let f: Vec<&str> = line.split_whitespace().collect();
            if f.len() == 4 && f[0] == "input" {
                let idx = f[1].parse::<usize>().map_err(|e| format!("map line '{line}': {e}"))?;
                let bit = f[2].parse::<usize>().map_err(|e| format!("map line '{line}': {e}"))?;
                by_index.insert(idx, (f[3].trim_start_matches('\\').to_string(), bit));
            }
        }
        let mut ports = BTreeMap::<String, Vec<bool>>::new();
        for (name, bit) in by_index.values() {
            let v = ports.entry(name.clone()).or_default();
            if v.len() <= *bit {
                v.resize(bit + 1, false);
            }
        }
        for tok in cex.split_whitespace() {
            let Some((pi, val)) = tok.split_once('=') else { continue };
            let Some(pi) = pi.strip_prefix("pi") else { continue };
            let (idx, f) = match pi.split_once('@') {
                Some((i, f)) => (i, f.parse::<usize>().ok()),
                None => (pi, Some(0)),
            };
            let Some(idx) = idx.parse::<usize>().ok() else { continue };
            if f != Some(frame) {
                continue;
            }
            if let Some((name, bit)) = by_index.get(&idx) {
                if let Some(v) = ports.get_mut(name) {
                    v[*bit] = val == "1";
                }
            }
        }
        if ports.is_empty() {
            return Err("counterexample has no inputs".into());
        }
        Ok(Ports(ports))
    }

    /// Bits `[lo, lo + width)` of a port as an integer (missing bits are 0).
    pub fn word(&self, port: &str, lo: usize, width: usize) -> u32 {
        let bits = self.0.get(port).map(|v| v.as_slice()).unwrap_or(&[]);
        (0..width.min(32))
            .fold(0u32, |acc, i| acc | (u32::from(bits.get(lo + i).copied().unwrap_or(false)) << i))
    }

    /// A port of `lanes` 32-bit lanes.
    pub fn lanes(&self, port: &str, lanes: usize) -> Vec<u32> {
        (0..lanes).map(|l| self.word(port, 32 * l, 32)).collect()
    }
}

/// The counterexample of a combinational property as a `pisa exec` line (32 lanes) or a JSON
/// description of the block's port values (fewer lanes).
pub fn replay(property: &Property, ports: &Ports, lanes: usize) -> String {
    let all = if lanes == 32 { u32::MAX } else { (1u32 << lanes) - 1 };
    match property {
        Property::Xbar => {
            let mode = ShflMode::ALL[ports.word("mode", 0, 2) as usize];
            let sg = ports.word("sg", 0, 1) == 1;
            let op = SgOp::Shfl { mode, sg };
            replay_line(
                Some(op),
                op.encode(),
                &ports.lanes("src0", lanes),
                &ports.lanes("src1", lanes),
                u32::MAX,
                ports.word("part", 0, lanes),
            )
        }
        Property::Reduce(op) => replay_line(
            Some(*op),
            op.encode(),
            &ports.lanes("src0", lanes),
            &vec![0; lanes],
            u32::MAX,
            ports.word("part", 0, lanes),
        ),
        Property::Lzc => {
            let op = SgOp::RedFirstIdx;
            replay_line(
                Some(op),
                op.encode(),
                &vec![0; lanes],
                &vec![0; lanes],
                ports.word("bits", 0, lanes),
                all,
            )
        }
        Property::Pipeline { .. } | Property::Mutant { .. } => {
            // one cycle's port values; [`sequence`] joins the cycles
            let v: serde_json::Map<String, serde_json::Value> = ports
                .0
                .iter()
                .map(|(k, bits)| {
                    let hex: String = bits
                        .chunks(4)
                        .rev()
                        .map(|c| {
                            let d = c
                                .iter()
                                .enumerate()
                                .fold(0u32, |a, (i, &b)| a | (u32::from(b) << i));
                            char::from_digit(d, 16).unwrap_or('?')
                        })
                        .collect();
                    (k.clone(), serde_json::Value::String(format!("0x{hex}")))
                })
                .collect();
            serde_json::Value::Object(v).to_string()
        }
    }
}

/// A sequential counterexample: the miter's input ports in each cycle from reset, as a JSON
/// array (cycle 0 is the forced reset cycle).
pub fn sequence(property: &Property, map: &str, cex: &str, lanes: usize) -> Result<String, String> {
    let frames = cex
        .split_whitespace()
        .filter_map(|t| {
            t.split_once('@')
                .and_then(|(_, r)| r.split_once('='))
                .and_then(|(f, _)| f.parse::<usize>().ok())
        })
        .max()
        .ok_or("counterexample has no frames")?;
    let mut cycles = Vec::new();
    for f in 0..=frames {
        let p = Ports::parse(map, cex, f)?;
        let v: serde_json::Value =
            serde_json::from_str(&replay(property, &p, lanes)).map_err(|e| e.to_string())?;
        cycles.push(v);
    }
    Ok(serde_json::Value::Array(cycles).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn takes_one_frame_of_a_sequential_cex() {
        let map = "input 0 0 valid\ninput 1 0 op\ninput 2 1 op\n";
        let cex = "lo0000@0=0\npi000@0=1\npi001@0=0\npi002@0=0\npi000@1=0\npi001@1=1\npi002@1=1\n";
        let p = Ports::parse(map, cex, 1).unwrap();
        assert_eq!((p.word("valid", 0, 1), p.word("op", 0, 2)), (0, 3));
    }

    #[test]
    fn maps_cex_bits_to_ports() {
        let map = "input 0 0 mode\ninput 1 1 mode\ninput 2 0 sg\ninput 3 0 bits\ninput 4 3 bits\noutput 0 0 trigger\n";
        let cex = "pi000=0\npi001=1\npi002=1\npi003=1\npi004=1\n";
        let p = Ports::parse(map, cex, 0).unwrap();
        assert_eq!(p.word("mode", 0, 2), 2);
        assert_eq!(p.word("sg", 0, 1), 1);
        assert_eq!(p.word("bits", 0, 4), 0b1001);
    }
}

//! Parsing yosys `stat -json` / `ltp` and nextpnr `--report` output into QoR numbers.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Serialize;

use crate::target::Target;

/// Synthesis result of one module.
#[derive(Clone, Debug, Serialize)]
pub struct SynthResult {
    pub target: String,
    pub top: String,
    /// Cells by type (the whole flattened design).
    pub cells: BTreeMap<String, u64>,
    pub luts: u64,
    pub wide_muxes: u64,
    pub ffs: u64,
    /// Longest path in cells between flip-flops / ports (yosys `ltp -noff`).
    pub logic_levels: Option<u64>,
    pub seconds: f64,
    #[serde(skip)]
    pub netlist: PathBuf,
}

impl SynthResult {
    pub fn parse(
        target: Target,
        top: &str,
        stat_json: &str,
        ltp: &str,
    ) -> Result<SynthResult, String> {
        // `tee -o` may leave yosys' log lines before the JSON object, and yosys 0.23's `stat -json`
        // prints the hierarchy's "  submodule  count" lines inside it: keep only JSON lines
        let start = stat_json.find('{').ok_or("no JSON object")?;
        let clean: String = stat_json[start..]
            .lines()
            .filter(|l| {
                let t = l.trim_start();
                t.is_empty() || t.starts_with(['"', '{', '}', '[', ']'])
            })
            .collect::<Vec<_>>()
            .join("\n");
        let v: serde_json::Value = serde_json::from_str(&clean)
            .map_err(|e| format!("{}:{}: {e}", e.line(), e.column()))?;
        let by_type = v
            .pointer("/design/num_cells_by_type")
            .or_else(|| v.pointer(&format!("/modules/\\{top}/num_cells_by_type")))
            .and_then(|x| x.as_object())
            .ok_or("no design.num_cells_by_type")?;
        let cells: BTreeMap<String, u64> =
            by_type.iter().map(|(k, n)| (k.clone(), n.as_u64().unwrap_or(0))).collect();
        let sum =
            |names: &[&str]| names.iter().map(|n| cells.get(*n).copied().unwrap_or(0)).sum::<u64>();
        let luts = sum(target.lut_cells());
        let wide_muxes = sum(target.mux_cells());
        let ffs = cells.iter().filter(|(k, _)| target.is_ff(k)).map(|(_, n)| n).sum();
        let logic_levels = ltp
            .split("length=")
            .nth(1)
            .and_then(|t| t.split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|d| d.parse().ok());
        Ok(SynthResult {
            target: target.name().into(),
            top: top.into(),
            cells,
            luts,
            wide_muxes,
            ffs,
            logic_levels,
            seconds: 0.0,
            netlist: PathBuf::new(),
        })
    }
}

/// Place-and-route result.
#[derive(Clone, Debug, Serialize)]
pub struct PnrResult {
    /// Achieved Fmax of the clock, MHz.
    pub fmax_mhz: f64,
    pub constraint_mhz: f64,
    /// Critical path: `from -> to` and the delay budget in ns.
    pub critical_path: Vec<String>,
    pub utilization: BTreeMap<String, (u64, u64)>,
    pub seconds: f64,
    /// The placer seed of this run.
    pub seed: u32,
}

impl PnrResult {
    /// Reads nextpnr's `report.json` of a run with placer seed `seed`.
    pub fn parse(text: &str, seed: u32) -> Result<PnrResult, String> {
        let v: serde_json::Value =
            serde_json::from_str(text).map_err(|e| format!("{}:{}: {e}", e.line(), e.column()))?;
        let fmax = v.get("fmax").and_then(|f| f.as_object()).ok_or("no fmax in report")?;
        let (_, clk) = fmax.iter().next().ok_or("no clock in report")?;
        let fmax_mhz = clk.get("achieved").and_then(|x| x.as_f64()).ok_or("no achieved fmax")?;
        let constraint_mhz = clk.get("constraint").and_then(|x| x.as_f64()).unwrap_or(0.0);
        let mut critical_path = Vec::new();
        if let Some(p) = v.pointer("/critical_paths/0/path").and_then(|p| p.as_array()) {
            for seg in p {
                let from = seg.pointer("/from/cell").and_then(|x| x.as_str()).unwrap_or("?");
                let to = seg.pointer("/to/cell").and_then(|x| x.as_str()).unwrap_or("?");
                let delay = seg.get("delay").and_then(|x| x.as_f64()).unwrap_or(0.0);
                let kind = seg.get("type").and_then(|x| x.as_str()).unwrap_or("");
                critical_path.push(format!("{kind} {from} -> {to} {delay:.2} ns"));
            }
        }
        let utilization = v
            .get("utilization")
            .and_then(|u| u.as_object())
            .map(|u| {
                u.iter()
                    .map(|(k, x)| {
                        let used = x.get("used").and_then(|n| n.as_u64()).unwrap_or(0);
                        let avail = x.get("available").and_then(|n| n.as_u64()).unwrap_or(0);
                        (k.clone(), (used, avail))
                    })
                    .filter(|(_, (u, _))| *u > 0)
                    .collect()
            })
            .unwrap_or_default();
        Ok(PnrResult { fmax_mhz, constraint_mhz, critical_path, utilization, seconds: 0.0, seed })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_stat_and_ltp() {
        let stat = "junk\n{\"design\": {\"num_cells_by_type\": {\"LUT4\": 10, \"PFUMX\": 3, \"L6MUX21\": 1, \"TRELLIS_FF\": 7}}}";
        let r = SynthResult::parse(
            Target::Ecp5,
            "t",
            stat,
            "Longest topological path in t (length=12):\n",
        )
        .unwrap();
        assert_eq!((r.luts, r.wide_muxes, r.ffs, r.logic_levels), (10, 4, 7, Some(12)));
        let r = SynthResult::parse(Target::Xc7, "t", "{\"design\": {\"num_cells_by_type\": {\"LUT6\": 5, \"LUT3\": 2, \"MUXF7\": 1, \"FDRE\": 4}}}", "").unwrap();
        assert_eq!((r.luts, r.wide_muxes, r.ffs, r.logic_levels), (7, 1, 4, None));
        assert!(SynthResult::parse(Target::Xc7, "t", "{\"x\": 1}", "").is_err());
        // yosys 0.23 writes the hierarchy inside the JSON of a design with submodules
        let stat = "{\n \"modules\": {\n },\n       sub_w2           4\n \"design\": {\"num_cells_by_type\": {\"SB_LUT4\": 3}}\n}";
        assert_eq!(SynthResult::parse(Target::Ice40, "t", stat, "").unwrap().luts, 3);
    }

    #[test]
    fn parses_nextpnr_report() {
        let rep = r#"{"fmax": {"clk": {"achieved": 163.2, "constraint": 150.0}},
            "critical_paths": [{"path": [{"type": "clk-to-q", "from": {"cell": "a"}, "to": {"cell": "b"}, "delay": 0.5}]}],
            "utilization": {"TRELLIS_SLICE": {"used": 10, "available": 41820}, "DCU": {"used": 0, "available": 4}}}"#;
        let p = PnrResult::parse(rep, 3).unwrap();
        assert_eq!(p.fmax_mhz, 163.2);
        assert_eq!(p.critical_path, vec!["clk-to-q a -> b 0.50 ns"]);
        assert_eq!(p.utilization.len(), 1);
        assert_eq!(p.seed, 3);
    }
}

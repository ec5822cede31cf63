//! The FPGA families of the flows and how their cells are counted.

/// An FPGA family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    Ecp5,
    Ice40,
    Xc7,
}

impl Target {
    pub const ALL: [Target; 3] = [Target::Ecp5, Target::Ice40, Target::Xc7];
    pub fn name(self) -> &'static str {
        match self {
            Target::Ecp5 => "ecp5",
            Target::Ice40 => "ice40",
            Target::Xc7 => "xc7",
        }
    }
    /// The LUT cell types counted as "LUTs".
    pub fn lut_cells(self) -> &'static [&'static str] {
        match self {
            Target::Ecp5 => &["LUT4"],
            Target::Ice40 => &["SB_LUT4"],
            Target::Xc7 => &["LUT1", "LUT2", "LUT3", "LUT4", "LUT5", "LUT6"],
        }
    }
    /// Wide-mux cells (ECP5 PFUMX/L6MUX21, 7-series MUXF7/MUXF8).
    pub fn mux_cells(self) -> &'static [&'static str] {
        match self {
            Target::Ecp5 => &["PFUMX", "L6MUX21"],
            Target::Ice40 => &[],
            Target::Xc7 => &["MUXF7", "MUXF8"],
        }
    }
    /// Whether a cell type is a flip-flop.
    pub fn is_ff(self, cell: &str) -> bool {
        match self {
            Target::Ecp5 => cell == "TRELLIS_FF",
            Target::Ice40 => cell.starts_with("SB_DFF"),
            Target::Xc7 => matches!(cell, "FDRE" | "FDSE" | "FDCE" | "FDPE" | "FDRE_1" | "FDSE_1"),
        }
    }
    pub fn lut_name(self) -> &'static str {
        match self {
            Target::Xc7 => "LUT6",
            _ => "LUT4",
        }
    }
}

impl std::str::FromStr for Target {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Target::ALL
            .into_iter()
            .find(|t| t.name() == s)
            .ok_or_else(|| format!("unknown target '{s}' (ecp5, ice40, xc7)"))
    }
}

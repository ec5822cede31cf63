//! One module per subcommand.

pub mod bench;
pub mod emit;
pub mod exec;
pub mod prove;
pub mod regress;
pub mod run;
pub mod synth;

use clap::ValueEnum;
use pisa_model::{RefBackend, SubgroupBackend};

use crate::Failure;

/// Which implementation executes the sub-group instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Backend {
    /// The reference model.
    Ref,
    /// The emitted Verilog, Verilated (a prebuilt 32-lane configuration; see --config).
    Rtl,
}

impl Backend {
    /// Opens the backend; `config` selects the RTL configuration (default: 32 lanes, combinational).
    pub fn open(
        self,
        config: Option<&std::path::Path>,
    ) -> Result<Box<dyn SubgroupBackend>, Failure> {
        match self {
            Backend::Ref => {
                if config.is_some() {
                    return Err(Failure::input(
                        "--config selects an RTL configuration; it needs --backend rtl",
                    ));
                }
                Ok(Box::new(RefBackend))
            }
            Backend::Rtl => {
                let cfg = load_config(config)?;
                let b =
                    pisa_sim::RtlBackend::open(&cfg).map_err(|e| Failure::input(e.to_string()))?;
                Ok(Box::new(b))
            }
        }
    }
}

/// Reads a unit configuration: the TOML file, or the default (32 lanes, combinational).
pub fn load_config(path: Option<&std::path::Path>) -> Result<pisa_rtl::UnitConfig, Failure> {
    match path {
        None => Ok(pisa_rtl::UnitConfig::default()),
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .map_err(|e| Failure::input(format!("{}: cannot read: {e}", p.display())))?;
            pisa_rtl::UnitConfig::from_toml(&text, &p.display().to_string())
                .map_err(|e| Failure::input(e.to_string()))
        }
    }
}

//! One module per subcommand.

pub mod bench;
pub mod emit;
pub mod exec;
pub mod run;

use clap::ValueEnum;
use pisa_model::{RefBackend, SubgroupBackend};

use crate::Failure;

/// Which implementation executes the sub-group instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Backend {
    /// The reference model.
    Ref,
}

impl Backend {
    pub fn open(self) -> Result<Box<dyn SubgroupBackend>, Failure> {
        match self {
            Backend::Ref => Ok(Box::new(RefBackend)),
        }
    }
}

/// Reads a unit configuration: the TOML file, or the default (32 lanes, combinational).
pub fn load_config(path: Option<&std::path::Path>) -> Result<pisa_rtl::UnitConfig, Failure> {
    match path {
        None => Ok(pisa_rtl::UnitConfig::default()),
        Some(p) => {
            let text = std::fs::read_to_string(p).map_err(|e| Failure::input(format!("{}: cannot read: {e}", p.display())))?;
            pisa_rtl::UnitConfig::from_toml(&text, &p.display().to_string()).map_err(|e| Failure::input(e.to_string()))
        }
    }
}

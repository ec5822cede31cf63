//! One module per subcommand.

pub mod bench;
pub mod emit;
pub mod exec;
#[cfg(feature = "cosim")]
pub mod mutate;
/// `pisa mutate` in a build without co-simulation: takes any arguments and says what is missing.
#[cfg(not(feature = "cosim"))]
pub mod mutate {
    #[derive(clap::Args)]
    pub struct Args {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
        _rest: Vec<String>,
    }
    pub fn main(_: Args) -> Result<std::process::ExitCode, crate::Failure> {
        Err(super::no_cosim("pisa mutate"))
    }
}
pub mod preset;
pub mod prove;
#[cfg(feature = "cosim")]
pub mod regress;
/// `pisa regress` in a build without co-simulation: takes any arguments and says what is missing.
#[cfg(not(feature = "cosim"))]
pub mod regress {
    #[derive(clap::Args)]
    pub struct Args {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
        _rest: Vec<String>,
    }
    pub fn main(_: Args) -> Result<std::process::ExitCode, crate::Failure> {
        Err(super::no_cosim("pisa regress"))
    }
}
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
    /// The emitted Verilog, Verilated (any 32-lane configuration, see --config; its model is built
    /// on first use and cached).
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
                open_rtl(&cfg)
            }
        }
    }
}

/// The unit of `--config FILE` or `--preset NAME` (clap refuses both), else the default.
pub fn load_unit(
    path: Option<&std::path::Path>,
    preset: Option<&str>,
) -> Result<pisa_rtl::UnitConfig, Failure> {
    match preset {
        Some(name) => preset::config(name),
        None => load_config(path),
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

#[cfg(feature = "cosim")]
fn open_rtl(cfg: &pisa_rtl::UnitConfig) -> Result<Box<dyn SubgroupBackend>, Failure> {
    let b = pisa_sim::RtlBackend::open(cfg).map_err(|e| Failure::input(e.to_string()))?;
    Ok(Box::new(b))
}

#[cfg(not(feature = "cosim"))]
fn open_rtl(_: &pisa_rtl::UnitConfig) -> Result<Box<dyn SubgroupBackend>, Failure> {
    Err(no_cosim("--backend rtl"))
}

/// The error of a co-simulation command in a build without the `cosim` feature.
#[cfg(not(feature = "cosim"))]
pub fn no_cosim(what: &str) -> Failure {
    Failure::input(format!(
        "{what} needs co-simulation, and this pisa was built without it (cargo feature `cosim`, \
         which needs Verilator): rebuild with `cargo build --release --bin pisa` after \
         scripts/install-deps.sh"
    ))
}

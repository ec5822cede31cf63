//! One module per subcommand.

pub mod bench;
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

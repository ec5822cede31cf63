//! `pisa emit [--config unit.toml] --out DIR [--block NAME] [--prefix P]`: writes one Verilog file
//! per module and `manifest.json` (top, files, ports, sha256, configuration, latency).

use std::path::PathBuf;
use std::process::ExitCode;

use pisa_rtl::design::{design, BlockName};

use super::load_unit;
use crate::Failure;

#[derive(clap::Args)]
pub struct Args {
    /// Unit configuration (TOML: lanes, pipeline, pipeline_at, pipeline_extra, crossbar, reduction; docs/configuration.md); default 32 lanes, combinational.
    #[arg(long)]
    config: Option<PathBuf>,
    /// A named 32-lane unit instead of --config: small, balanced or fast (fpga/configs/NAME.toml;
    /// sizes and speeds in docs/qor.md).
    #[arg(long, conflicts_with = "config", value_parser = clap::builder::PossibleValuesParser::new(super::preset::NAMES))]
    preset: Option<String>,
    /// Output directory (created when missing). Only files a previous `pisa emit` wrote there
    /// under the same prefix, unchanged since, are replaced; everything else is kept.
    #[arg(long)]
    out: PathBuf,
    /// Replace files in --out even if pisa did not write them or they changed since.
    #[arg(long)]
    force: bool,
    /// What to emit: unit, xbar, reduce or lzc.
    #[arg(long, default_value = "unit", value_parser = |s: &str| s.parse::<BlockName>())]
    block: BlockName,
    /// Module-name prefix (e.g. to put two configurations in one project).
    #[arg(long, default_value = "pisa_sg", value_parser = check_prefix)]
    prefix: String,
}

fn check_prefix(s: &str) -> Result<String, String> {
    pisa_rtl::design::check_prefix(s).map(|()| s.to_string())
}

pub fn main(a: Args) -> Result<ExitCode, Failure> {
    let cfg = load_unit(a.config.as_deref(), a.preset.as_deref())?;
    let d = design(&cfg, a.block, &a.prefix)
        .map_err(|e| Failure { message: format!("emit failed: {e}"), code: 1 })?;
    let files =
        d.write(&a.out, a.force).map_err(|e| Failure { message: e.to_string(), code: 2 })?;
    outln!(
        "wrote {} files to {} (top {}, {} lanes, latency {} cycles)",
        files.len(),
        a.out.display(),
        d.top,
        cfg.lanes,
        cfg.latency()
    );
    Ok(ExitCode::SUCCESS)
}

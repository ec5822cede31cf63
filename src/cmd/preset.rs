//! Named units (`--preset NAME`): the 32-lane configurations of `fpga/configs/` that trade size
//! for speed, compiled into `pisa` so the name works from any folder. Their measured LUTs, FFs
//! and Fmax per placer seed are in `docs/qor.md` ("Presets").

use pisa_rtl::UnitConfig;

use crate::Failure;

/// One preset: its name, the file it is read from and that file's text.
pub struct Preset {
    pub name: &'static str,
    pub file: &'static str,
    pub toml: &'static str,
}

/// The presets, smallest first.
pub const PRESETS: [Preset; 3] = [
    Preset {
        name: "small",
        file: "fpga/configs/small.toml",
        toml: include_str!("../../fpga/configs/small.toml"),
    },
    Preset {
        name: "balanced",
        file: "fpga/configs/balanced.toml",
        toml: include_str!("../../fpga/configs/balanced.toml"),
    },
    Preset {
        name: "fast",
        file: "fpga/configs/fast.toml",
        toml: include_str!("../../fpga/configs/fast.toml"),
    },
];

/// The names, for clap's list of possible values.
pub const NAMES: [&str; 3] = [PRESETS[0].name, PRESETS[1].name, PRESETS[2].name];

/// The configuration of preset `name`.
pub fn config(name: &str) -> Result<UnitConfig, Failure> {
    let p = PRESETS.iter().find(|p| p.name == name).ok_or_else(|| {
        Failure::input(format!("--preset {name}: no such preset (one of {})", NAMES.join(", ")))
    })?;
    UnitConfig::from_toml(p.toml, p.file).map_err(|e| Failure::input(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_parses_and_grows_in_latency() {
        let lat: Vec<usize> =
            NAMES.iter().map(|n| config(n).map(|c| c.latency()).unwrap_or(0)).collect();
        assert!(lat.iter().all(|&l| l > 0), "{lat:?}");
        assert!(lat.windows(2).all(|w| w[0] < w[1]), "{lat:?}");
        for p in &PRESETS {
            assert_eq!(config(p.name).map(|c| c.lanes).unwrap_or(0), 32, "{}", p.name);
            assert!(p.file.ends_with(&format!("/{}.toml", p.name)));
        }
    }

    #[test]
    fn an_unknown_preset_names_the_choices() {
        let e = config("turbo").err().map(|f| f.message).unwrap_or_default();
        assert!(e.contains("turbo") && e.contains("small, balanced, fast"), "{e}");
    }
}

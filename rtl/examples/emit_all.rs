//! Emits every block of one configuration into a directory: `emit_all LANES PIPELINE DIR`.
use pisa_rtl::design::{design, BlockName};
use pisa_rtl::UnitConfig;
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let cfg = UnitConfig::new(a[1].parse().unwrap(), a[2].parse().unwrap()).unwrap();
    let d = design(&cfg, BlockName::Unit, "pisa_sg").unwrap();
    d.write(std::path::Path::new(&a[3]), serde_json::json!({})).unwrap();
    for m in &d.modules {
        println!("{} ({} lines)", m.name, m.text.lines().count());
    }
}

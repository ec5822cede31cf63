//! `pisa_sgu._native`: the kit's Rust core for Python (PyO3). The public, typed API is the
//! Python package `pisa_sgu` (`python/pisa_sgu/__init__.py`), which checks and converts its
//! arguments and calls the functions here with C-contiguous `uint32` arrays (or the API's dtype).
//!
//! - [`execute_batch`]: one instruction form over `W` warps of `N` lanes (`pisa_model::unit`),
//!   with the GIL released on the reference model; on the Verilated RTL of any configuration.
//! - [`run`]: the PISA interpreter, as `pisa exec` runs a case (`pisa_model::exec`).
//! - [`Subgroup`]: the quadrants `qd.simt.subgroup` API (`pisa_model::quadrants`).
//! - [`emit`]: the unit's Verilog into a folder (`pisa emit`).

mod subgroup;

use std::collections::BTreeMap;
use std::path::Path;

use numpy::{
    IntoPyArray, PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2,
    PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use pisa_model::exec::{run_source, InitialState};
use pisa_model::interp::RunOptions;
use pisa_model::unit::execute_lanes;
use pisa_model::{
    execute_lane_arrays, LaneArrays, LaneArraysMut, RefBackend, SgInputs, SgOp, SubgroupBackend,
    LANES,
};
use pisa_rtl::design::{design, BlockName};
use pisa_rtl::UnitConfig;
use pisa_sim::unit::{Batch, PortIn, RtlUnit};
use pisa_sim::RtlBackend;

pub(crate) fn value_error(msg: impl Into<String>) -> PyErr {
    PyValueError::new_err(msg.into())
}

/// The unit configuration: a TOML file, or the default (32 lanes, combinational).
pub(crate) fn load_config(config: Option<&str>) -> PyResult<UnitConfig> {
    match config {
        None => Ok(UnitConfig::default()),
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| value_error(format!("config {path}: {e}")))?;
            UnitConfig::from_toml(&text, path).map_err(|e| value_error(e.to_string()))
        }
    }
}

/// A backend for the interpreter and the subgroup API: `ref`, or `rtl` with a 32-lane config.
pub(crate) fn open_backend(
    backend: &str,
    config: Option<&str>,
) -> PyResult<Box<dyn SubgroupBackend + Send>> {
    match backend {
        "ref" => {
            if config.is_some() {
                return Err(value_error("config is for backend=\"rtl\" only"));
            }
            Ok(Box::new(RefBackend))
        }
        "rtl" => {
            let cfg = load_config(config)?;
            if cfg.lanes != LANES {
                return Err(value_error(format!(
                    "PISA programs and the subgroup API have 32 lanes; this configuration has {} \
                     (use execute() for smaller units)",
                    cfg.lanes
                )));
            }
            let b = RtlBackend::open(&cfg).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
            Ok(Box::new(b))
        }
        other => Err(value_error(format!("backend {other:?}: use \"ref\" or \"rtl\""))),
    }
}

fn parse_form(form: &str) -> PyResult<SgOp> {
    form.parse::<SgOp>().map_err(|e| value_error(format!("form {form:?}: {e}")))
}

/// `W` warps of `N` lanes on the reference model.
fn run_ref<const N: usize>(
    op: SgOp,
    src0: &[u32],
    src1: &[u32],
    mask: &[u32],
    act: &[u32],
    dst: &mut [u32],
    wen: &mut [u32],
) {
    let warps = src0.chunks_exact(N).zip(src1.chunks_exact(N)).zip(dst.chunks_exact_mut(N));
    for (w, ((s0, s1), d)) in warps.enumerate() {
        let inp = SgInputs::<N> {
            src0: s0.try_into().expect("N lanes"),
            src1: s1.try_into().expect("N lanes"),
            mask: mask[w],
            activemask: act[w],
        };
        let o = execute_lanes::<N>(op, &inp);
        d.copy_from_slice(&o.dst);
        wen[w] = o.wen;
    }
}

/// `W` warps of 32 lanes on the model's batch path (the form decoded once per call, the best
/// kernel of this CPU), reading and writing the numpy arrays in place.
fn run_ref32(
    op: SgOp,
    src0: &[u32],
    src1: &[u32],
    mask: &[u32],
    act: &[u32],
    dst: &mut [u32],
    wen: &mut [u32],
) {
    let (src0, _) = src0.as_chunks::<LANES>();
    let (src1, _) = src1.as_chunks::<LANES>();
    let (dst, _) = dst.as_chunks_mut::<LANES>();
    execute_lane_arrays(
        op,
        LaneArrays { src0, src1, mask, activemask: act },
        LaneArraysMut { dst, wen },
    );
}

/// One instruction form over `W` warps: `src0`, `src1` of shape `(W, N)`, `mask` and
/// `activemask` of shape `(W,)`; returns `dst` `(W, N)` (0 where a lane is not written) and `wen`
/// `(W,)`. `backend="rtl"` runs the Verilated unit of `config` (its lane count must be `N`).
#[pyfunction]
#[pyo3(signature = (form, src0, src1, mask, activemask, backend = "ref", config = None))]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
fn execute_batch<'py>(
    py: Python<'py>,
    form: &str,
    src0: PyReadonlyArray2<'py, u32>,
    src1: PyReadonlyArray2<'py, u32>,
    mask: PyReadonlyArray1<'py, u32>,
    activemask: PyReadonlyArray1<'py, u32>,
    backend: &str,
    config: Option<&str>,
) -> PyResult<(Bound<'py, PyArray2<u32>>, Bound<'py, PyArray1<u32>>)> {
    let op = parse_form(form)?;
    let (w, n) = (src0.shape()[0], src0.shape()[1]);
    if src1.shape() != src0.shape() {
        return Err(value_error(format!(
            "src1 has shape {:?}, src0 {:?}: they must be equal",
            src1.shape(),
            src0.shape()
        )));
    }
    if mask.len() != w || activemask.len() != w {
        return Err(value_error("mask and activemask need one value per warp"));
    }
    let (s0, s1, m, a) =
        (src0.as_slice()?, src1.as_slice()?, mask.as_slice()?, activemask.as_slice()?);
    // numpy's allocator (it advises huge pages for large arrays: far fewer page faults than a
    // fresh Rust allocation of the same size)
    let dst_array = PyArray2::<u32>::zeros(py, [w, n], false);
    let wen_array = PyArray1::<u32>::zeros(py, w, false);
    let mut dst_rw = dst_array.readwrite();
    let mut wen_rw = wen_array.readwrite();
    let (dst, wen) = (dst_rw.as_slice_mut()?, wen_rw.as_slice_mut()?);
    match backend {
        "ref" => {
            if config.is_some() {
                return Err(value_error("config is for backend=\"rtl\" only"));
            }
            py.detach(|| match n {
                4 => run_ref::<4>(op, s0, s1, m, a, dst, wen),
                8 => run_ref::<8>(op, s0, s1, m, a, dst, wen),
                16 => run_ref::<16>(op, s0, s1, m, a, dst, wen),
                32 => run_ref32(op, s0, s1, m, a, dst, wen),
                _ => unreachable!("the lane count is checked by the Python layer"),
            });
        }
        "rtl" => {
            let cfg = load_config(config)?;
            if cfg.lanes != n {
                return Err(value_error(format!(
                    "the configuration has {} lanes; src0 has {n} lanes per warp",
                    cfg.lanes
                )));
            }
            let mut unit =
                RtlUnit::open(&cfg).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
            let mut batch = Batch::default();
            for i in 0..w {
                batch.push(&PortIn {
                    op: op.encode(),
                    src0: &s0[i * n..(i + 1) * n],
                    src1: &s1[i * n..(i + 1) * n],
                    mask: m[i],
                    activemask: a[i],
                });
            }
            unit.reset();
            let out = unit.run_batch(&batch, &mut || false);
            for i in 0..w {
                wen[i] = out.wen[i];
                for l in 0..n {
                    // the RTL leaves lanes that do not write unspecified; the API gives 0
                    if out.wen[i] >> l & 1 != 0 {
                        dst[i * n + l] = out.dst[i * n + l];
                    }
                }
            }
        }
        other => return Err(value_error(format!("backend {other:?}: use \"ref\" or \"rtl\""))),
    }
    drop((dst_rw, wen_rw));
    Ok((dst_array, wen_array))
}

/// Assembles and runs `program` as `pisa exec` runs a case: `regs` maps register names (with
/// or without `%`) to 32 lane values; returns every register of the program by its `%` name.
#[pyfunction]
#[pyo3(signature = (program, regs, activemask = 0xFFFF_FFFF, backend = "ref", config = None))]
fn run<'py>(
    py: Python<'py>,
    program: &str,
    regs: Vec<(String, PyReadonlyArray1<'py, u32>)>,
    activemask: u32,
    backend: &str,
    config: Option<&str>,
) -> PyResult<Bound<'py, PyDict>> {
    let mut st = InitialState { activemask, regs: BTreeMap::new() };
    for (name, vals) in &regs {
        // the check `pisa exec` makes; the `%` may be left out here
        let full = if name.starts_with('%') { name.clone() } else { format!("%{name}") };
        let bare = pisa_model::exec::register_name(&full, &format!("regs[{name:?}]"))
            .map_err(value_error)?;
        let vals = vals.as_slice()?;
        let lanes: [u32; LANES] = vals.try_into().map_err(|_| {
            value_error(format!("regs[{name:?}]: {} values, a register has 32 lanes", vals.len()))
        })?;
        if st.regs.insert(bare.to_string(), lanes).is_some() {
            return Err(value_error(format!("regs: register %{bare} given twice")));
        }
    }
    let mut b = open_backend(backend, config)?;
    let r = run_source(program, &st, &mut b, &RunOptions::default(), &mut |_| {})
        .map_err(|e| value_error(e.to_string()))?;
    let out = PyDict::new(py);
    for (reg, vals) in r.program.regs.iter().zip(&r.regs) {
        out.set_item(format!("%{}", reg.name), vals.to_vec().into_pyarray(py))?;
    }
    Ok(out)
}

/// Writes the unit's Verilog (`pisa emit`) into `out`: returns the top module's name, the lane
/// count, the latency and the files written.
#[pyfunction]
#[pyo3(signature = (out, config = None, force = false))]
fn emit(
    out: &str,
    config: Option<&str>,
    force: bool,
) -> PyResult<(String, usize, usize, Vec<String>)> {
    let cfg = load_config(config)?;
    let d = design(&cfg, BlockName::Unit, "pisa_sg").map_err(|e| value_error(e.to_string()))?;
    let files = d.write(Path::new(out), force).map_err(|e| value_error(e.to_string()))?;
    Ok((
        "pisa_sg_unit".to_string(),
        cfg.lanes,
        cfg.latency(),
        files.iter().map(|p| p.display().to_string()).collect(),
    ))
}

/// Every instruction form the unit executes, in the spec's syntax.
#[pyfunction]
fn forms() -> Vec<String> {
    SgOp::all().iter().map(|f| f.to_string()).collect()
}

/// The 8-bit opcode of a form (the unit's `op_i`).
#[pyfunction]
fn encode(form: &str) -> PyResult<u8> {
    Ok(parse_form(form)?.encode())
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(execute_batch, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(emit, m)?)?;
    m.add_function(wrap_pyfunction!(forms, m)?)?;
    m.add_function(wrap_pyfunction!(encode, m)?)?;
    m.add_class::<subgroup::Subgroup>()?;
    Ok(())
}

//! The quadrants `qd.simt.subgroup` API on numpy arrays: [`Subgroup`] wraps
//! `pisa_model::quadrants::Subgroup` on the reference model or the Verilated RTL. Every value is
//! a 1-D numpy array of 32 lanes in one of the doc's dtypes (`int32`, `uint32`, `float32`,
//! `float64`, `int64`, `uint64`; predicates and head flags also `bool`); results come back in the
//! argument's dtype. Semantics and costs: `docs/spec-notes.md` §E.

use numpy::{Element, PyArray1, PyReadonlyArray1, PyUntypedArrayMethods};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use pisa_model::quadrants::{ApiError, Counts, LaneArg, Lanes, Subgroup as Api};
use pisa_model::SubgroupBackend;

use crate::{open_backend, value_error};

type Sg = Api<Box<dyn SubgroupBackend + Send>>;

fn api_error(e: ApiError) -> PyErr {
    match e {
        ApiError::Backend(b) => PyRuntimeError::new_err(b.to_string()),
        other => value_error(other.to_string()),
    }
}

/// The 32 lanes of a 1-D array.
fn lanes<T: Element + Copy>(what: &str, a: &PyReadonlyArray1<'_, T>) -> PyResult<Lanes<T>> {
    let v = a.as_array();
    if v.len() != 32 {
        return Err(value_error(format!("{what}: {} values; a subgroup has 32 lanes", v.len())));
    }
    Ok(std::array::from_fn(|i| v[i]))
}

/// `log2_size` of a `_tiled` call: a tile of `2**log2_size` lanes, 0 to 5.
fn log2(v: i64) -> PyResult<u32> {
    // a value that fits is checked by the API, whose message names the call
    u32::try_from(v).map_err(|_| {
        value_error(format!(
            "log2_size: {v} is out of range 0..=5 (a tile of 2**log2_size lanes of the 32-lane subgroup)"
        ))
    })
}

fn dtype_error(what: &str, a: &Bound<'_, PyAny>, allowed: &str) -> PyErr {
    let got = match a.cast::<numpy::PyUntypedArray>() {
        Ok(arr) if arr.ndim() != 1 => {
            return value_error(format!(
                "{what}: expected a 1-D numpy array of 32 lanes; got shape {:?} (dtype {}): pass one subgroup's lanes",
                arr.shape(),
                arr.dtype()
            ))
        }
        Ok(arr) => format!("a numpy array of dtype {}", arr.dtype()),
        Err(_) => format!("a {}", a.get_type().name().map(|n| n.to_string()).unwrap_or_default()),
    };
    value_error(format!("{what}: expected a numpy array of 32 lanes of {allowed}; got {got}"))
}

fn out<'py, T: Element + Copy>(py: Python<'py>, v: &Lanes<T>) -> Py<PyAny> {
    PyArray1::from_slice(py, v).into_any().unbind()
}

/// `$v` bound to the lanes of `$arr` in whichever of the types `$T` its dtype is; `$body` is
/// evaluated with it (monomorphised per type).
macro_rules! by_dtype {
    ($what:expr, $arr:expr, $names:expr, [$($T:ty),*], |$v:ident| $body:expr) => {{
        let a: &Bound<'_, PyAny> = $arr;
        $(
            if let Ok(x) = a.extract::<PyReadonlyArray1<'_, $T>>() {
                let $v: Lanes<$T> = lanes($what, &x)?;
                $body
            } else
        )* {
            Err(dtype_error($what, a, $names))
        }
    }};
}

macro_rules! values {
    ($what:expr, $arr:expr, |$v:ident| $body:expr) => {
        by_dtype!(
            $what,
            $arr,
            "int32, uint32, float32, float64, int64 or uint64",
            [i32, u32, f32, f64, i64, u64],
            |$v| $body
        )
    };
}
macro_rules! ints {
    ($what:expr, $arr:expr, |$v:ident| $body:expr) => {
        by_dtype!($what, $arr, "int32, uint32, int64 or uint64", [i32, u32, i64, u64], |$v| $body)
    };
}
macro_rules! flags {
    ($what:expr, $arr:expr, |$v:ident| $body:expr) => {
        by_dtype!(
            $what,
            $arr,
            "int32, uint32, int64, uint64 or bool",
            [i32, u32, i64, u64, bool],
            |$v| $body
        )
    };
}

/// A lane argument (index, offset, xor mask): an int for every lane, or 32 per-lane ints.
fn lane_arg(what: &str, a: &Bound<'_, PyAny>) -> PyResult<LaneArg> {
    if let Ok(v) = a.extract::<i64>() {
        return u32::try_from(v)
            .map(LaneArg::Uniform)
            .map_err(|_| value_error(format!("{what}: {v} is not in 0..2**32")));
    }
    let v: Vec<i64> = a
        .extract()
        .map_err(|_| value_error(format!("{what}: expected an int or 32 per-lane ints")))?;
    if v.len() != 32 {
        return Err(value_error(format!("{what}: {} values; a subgroup has 32 lanes", v.len())));
    }
    let mut lanes = [0u32; 32];
    for (l, x) in v.iter().enumerate() {
        lanes[l] = u32::try_from(*x)
            .map_err(|_| value_error(format!("{what}[{l}]: {x} is not in 0..2**32")))?;
    }
    Ok(LaneArg::PerLane(lanes))
}

/// One wave32 subgroup (quadrants `qd.simt.subgroup`) on a backend: `"ref"` (the reference
/// model) or `"rtl"` (the Verilated unit of `config`, a 32-lane TOML file; default the
/// combinational unit). Counts the PISA instructions each call issues.
///
/// It may be made in one thread and used in another (one call at a time: Python serialises the
/// calls on one object, a second thread's call while one runs raises `RuntimeError`).
#[pyclass(subclass, module = "pisa_sgu._native")]
pub struct Subgroup {
    /// In a mutex only to be `Sync`: every call that changes it has `&mut self`, so it is
    /// reached through `get_mut`, without locking.
    sg: std::sync::Mutex<Sg>,
    last: Counts,
}

fn counts_dict<'py>(py: Python<'py>, c: &Counts) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("shfl", c.shfl)?;
    d.set_item("fred", c.fred)?;
    d.set_item("ired", c.ired)?;
    d.set_item("redfirstidx", c.redfirstidx)?;
    d.set_item("subgroup", c.subgroup())?;
    d.set_item("lane_ops", c.lane_ops)?;
    Ok(d)
}

fn minus(a: Counts, b: Counts) -> Counts {
    Counts {
        shfl: a.shfl - b.shfl,
        fred: a.fred - b.fred,
        ired: a.ired - b.ired,
        redfirstidx: a.redfirstidx - b.redfirstidx,
        lane_ops: a.lane_ops - b.lane_ops,
    }
}

impl Subgroup {
    /// The API for a call that only reads it (`&self`).
    fn shared(&self) -> std::sync::MutexGuard<'_, Sg> {
        self.sg.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs one API call, recording what it issued in `last`.
    fn call<R>(
        &mut self,
        f: impl FnOnce(&mut Sg) -> pisa_model::quadrants::Result<R>,
    ) -> PyResult<R> {
        let sg = self.sg.get_mut().unwrap_or_else(|e| e.into_inner());
        let before = sg.counts();
        let r = f(sg);
        self.last = minus(sg.counts(), before);
        r.map_err(api_error)
    }
}

/// Unary value ops on `Num` dtypes, with and without `_tiled`.
macro_rules! num_ops {
    ($($name:ident / $tiled:ident),* $(,)?) => {
        #[pymethods]
        impl Subgroup {
            $(
                fn $name(&mut self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                    values!("value", value, |v| self.call(|sg| sg.$name(&v)).map(|r| out(py, &r)))
                }
                fn $tiled(&mut self, py: Python<'_>, value: &Bound<'_, PyAny>, log2_size: i64) -> PyResult<Py<PyAny>> {
                    let log2_size = log2(log2_size)?;
                    values!("value", value, |v| self.call(|sg| sg.$tiled(&v, log2_size)).map(|r| out(py, &r)))
                }
            )*
        }
    };
}

num_ops! {
    reduce_add / reduce_add_tiled,
    reduce_min / reduce_min_tiled,
    reduce_max / reduce_max_tiled,
    reduce_all_add / reduce_all_add_tiled,
    reduce_all_min / reduce_all_min_tiled,
    reduce_all_max / reduce_all_max_tiled,
    inclusive_add / inclusive_add_tiled,
    inclusive_mul / inclusive_mul_tiled,
    inclusive_min / inclusive_min_tiled,
    inclusive_max / inclusive_max_tiled,
    exclusive_add / exclusive_add_tiled,
    exclusive_mul / exclusive_mul_tiled,
    exclusive_min / exclusive_min_tiled,
    exclusive_max / exclusive_max_tiled,
}

/// Bitwise scans on integer dtypes.
macro_rules! int_ops {
    ($($name:ident / $tiled:ident),* $(,)?) => {
        #[pymethods]
        impl Subgroup {
            $(
                fn $name(&mut self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                    ints!("value", value, |v| self.call(|sg| sg.$name(&v)).map(|r| out(py, &r)))
                }
                fn $tiled(&mut self, py: Python<'_>, value: &Bound<'_, PyAny>, log2_size: i64) -> PyResult<Py<PyAny>> {
                    let log2_size = log2(log2_size)?;
                    ints!("value", value, |v| self.call(|sg| sg.$tiled(&v, log2_size)).map(|r| out(py, &r)))
                }
            )*
        }
    };
}

int_ops! {
    inclusive_and / inclusive_and_tiled,
    inclusive_or / inclusive_or_tiled,
    inclusive_xor / inclusive_xor_tiled,
    exclusive_and / exclusive_and_tiled,
    exclusive_or / exclusive_or_tiled,
    exclusive_xor / exclusive_xor_tiled,
}

/// Data movement: a value and a lane argument.
macro_rules! movement_ops {
    ($($name:ident: $arg:ident),* $(,)?) => {
        #[pymethods]
        impl Subgroup {
            $(
                fn $name(&mut self, py: Python<'_>, value: &Bound<'_, PyAny>, $arg: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                    let a = lane_arg(stringify!($arg), $arg)?;
                    values!("value", value, |v| self.call(|sg| sg.$name(&v, a)).map(|r| out(py, &r)))
                }
            )*
        }
    };
}

movement_ops! {
    shuffle: index,
    shuffle_up: offset,
    shuffle_down: offset,
    shuffle_xor: mask,
    broadcast: index,
}

/// Votes on predicates, with and without `_tiled`: one i32 per lane.
macro_rules! vote_ops {
    ($($name:ident / $tiled:ident),* $(,)?) => {
        #[pymethods]
        impl Subgroup {
            $(
                fn $name(&mut self, py: Python<'_>, predicate: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                    flags!("predicate", predicate, |p| self.call(|sg| sg.$name(&p)).map(|r| out(py, &r)))
                }
                fn $tiled(&mut self, py: Python<'_>, predicate: &Bound<'_, PyAny>, log2_size: i64) -> PyResult<Py<PyAny>> {
                    let log2_size = log2(log2_size)?;
                    flags!("predicate", predicate, |p| self.call(|sg| sg.$tiled(&p, log2_size)).map(|r| out(py, &r)))
                }
            )*
        }
    };
}

vote_ops! {
    all_true / all_true_tiled,
    any_true / any_true_tiled,
}

/// Segmented reductions: a value and a head flag per lane.
macro_rules! segmented_ops {
    ($($name:ident / $tiled:ident),* $(,)?) => {
        #[pymethods]
        impl Subgroup {
            $(
                fn $name(&mut self, py: Python<'_>, value: &Bound<'_, PyAny>, head_flag: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                    values!("value", value, |v| flags!("head_flag", head_flag, |h| {
                        self.call(|sg| sg.$name(&v, &h)).map(|r| out(py, &r))
                    }))
                }
                fn $tiled(&mut self, py: Python<'_>, value: &Bound<'_, PyAny>, head_flag: &Bound<'_, PyAny>, log2_size: i64) -> PyResult<Py<PyAny>> {
                    let log2_size = log2(log2_size)?;
                    values!("value", value, |v| flags!("head_flag", head_flag, |h| {
                        self.call(|sg| sg.$tiled(&v, &h, log2_size)).map(|r| out(py, &r))
                    }))
                }
            )*
        }
    };
}

segmented_ops! {
    segmented_reduce_add / segmented_reduce_add_tiled,
    segmented_reduce_min / segmented_reduce_min_tiled,
    segmented_reduce_max / segmented_reduce_max_tiled,
}

#[pymethods]
impl Subgroup {
    #[new]
    #[pyo3(signature = (backend = "ref", config = None))]
    fn new(backend: &str, config: Option<&str>) -> PyResult<Self> {
        let sg = std::sync::Mutex::new(Api::new(open_backend(backend, config)?));
        Ok(Subgroup { sg, last: Counts::default() })
    }

    /// The instructions issued since the last `reset_counts()` (or since creation).
    fn counts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        counts_dict(py, &self.shared().counts())
    }

    /// The instructions the most recent call issued.
    #[getter]
    fn last_counts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        counts_dict(py, &self.last)
    }

    fn reset_counts(&mut self) {
        self.sg.get_mut().unwrap_or_else(|e| e.into_inner()).reset_counts();
        self.last = Counts::default();
    }

    fn invocation_id<'py>(&mut self, py: Python<'py>) -> Py<PyAny> {
        self.last = Counts::default();
        out(py, &self.shared().invocation_id())
    }

    fn group_size(&self) -> usize {
        self.shared().group_size()
    }

    fn log2_group_size(&self) -> u32 {
        self.shared().log2_group_size()
    }

    fn elect(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.call(|sg| sg.elect()).map(|r| out(py, &r))
    }

    fn sync(&mut self) -> PyResult<()> {
        self.call(|sg| sg.sync())
    }

    fn mem_fence(&mut self) -> PyResult<()> {
        self.call(|sg| sg.mem_fence())
    }

    fn broadcast_first(&mut self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        values!("value", value, |v| self.call(|sg| sg.broadcast_first(&v)).map(|r| out(py, &r)))
    }

    fn ballot(&mut self, py: Python<'_>, predicate: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        flags!("predicate", predicate, |p| self.call(|sg| sg.ballot(&p)).map(|r| out(py, &r)))
    }

    fn ballot_first_n(
        &mut self,
        py: Python<'_>,
        predicate: &Bound<'_, PyAny>,
        n: u32,
    ) -> PyResult<Py<PyAny>> {
        flags!("predicate", predicate, |p| self
            .call(|sg| sg.ballot_first_n(&p, n))
            .map(|r| out(py, &r)))
    }

    fn all_equal(&mut self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        values!("value", value, |v| self.call(|sg| sg.all_equal(&v)).map(|r| out(py, &r)))
    }

    fn all_equal_tiled(
        &mut self,
        py: Python<'_>,
        value: &Bound<'_, PyAny>,
        log2_size: i64,
    ) -> PyResult<Py<PyAny>> {
        let log2_size = log2(log2_size)?;
        values!("value", value, |v| self
            .call(|sg| sg.all_equal_tiled(&v, log2_size))
            .map(|r| out(py, &r)))
    }

    fn lanemask_lt(&mut self, lane_id: u32) -> PyResult<u32> {
        self.call(|sg| sg.lanemask_lt(lane_id))
    }
    fn lanemask_le(&mut self, lane_id: u32) -> PyResult<u32> {
        self.call(|sg| sg.lanemask_le(lane_id))
    }
    fn lanemask_eq(&mut self, lane_id: u32) -> PyResult<u32> {
        self.call(|sg| sg.lanemask_eq(lane_id))
    }
    fn lanemask_gt(&mut self, lane_id: u32) -> PyResult<u32> {
        self.call(|sg| sg.lanemask_gt(lane_id))
    }
    fn lanemask_ge(&mut self, lane_id: u32) -> PyResult<u32> {
        self.call(|sg| sg.lanemask_ge(lane_id))
    }

    #[pyo3(signature = (key, value, log2_size = 5))]
    fn bitonic_sort_kv_tiled(
        &mut self,
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
        value: &Bound<'_, PyAny>,
        log2_size: i64,
    ) -> PyResult<(Py<PyAny>, Py<PyAny>)> {
        let log2_size = log2(log2_size)?;
        values!("key", key, |k| values!("value", value, |v| {
            self.call(|sg| sg.bitonic_sort_kv_tiled(&k, &v, log2_size))
                .map(|(a, b)| (out(py, &a), out(py, &b)))
        }))
    }

    fn bitonic_sort_kv(
        &mut self,
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<(Py<PyAny>, Py<PyAny>)> {
        self.bitonic_sort_kv_tiled(py, key, value, 5)
    }
}

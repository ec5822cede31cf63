"""pisa_sgu: the PISA sub-group communication unit from Python.

- :func:`execute`: one instruction (``"shfl.idx.32b"``, ``"fred.max.nanp.bfx2"``,
  ``"ired.absmax.16b"``, ``"redfirstidx.32b"``) on one warp or a batch of warps, bit-exact with
  the spec's pseudocode (the kit's reference model), or on the Verilated RTL of any unit.
- :func:`run`: a PISA assembly program, as ``pisa exec`` runs a case.
- :class:`Subgroup`: the quadrants ``qd.simt.subgroup`` API on 32-lane numpy arrays, lowered to
  PISA instructions, with the count of instructions each call issued.
- :func:`emit`: the unit's Verilog (``pisa emit``), e.g. for a cocotb testbench.

Operands are bit patterns: ``uint32`` arrays (other integer arrays are taken modulo 2**32 when
their values lie in ``-2**31 .. 2**32-1``; ``float32`` arrays as their IEEE bits). Every error is
a ``ValueError`` (bad arguments, programs with their ``line:col``) or a ``RuntimeError`` (the RTL
backend could not be built or run) that names the problem.
"""

from __future__ import annotations

import os
import warnings
from typing import Dict, List, Mapping, Optional, Tuple, Union

import numpy as np

from . import _native

__all__ = [
    "LANE_COUNTS",
    "Subgroup",
    "emit",
    "encode",
    "execute",
    "forms",
    "run",
]

#: Lane counts of the unit (PISA itself has 32; smaller ones are scaled-down hardware).
LANE_COUNTS = (4, 8, 16, 32)

ArrayLike = Union[np.ndarray, List[int], Tuple[int, ...]]
Scalar = Union[int, np.integer]


def forms() -> List[str]:
    """Every instruction form of the unit, in the spec's syntax."""
    return _native.forms()


def encode(form: str) -> int:
    """The 8-bit opcode of ``form`` on the unit's ``op_i`` port."""
    return _native.encode(form)


def _u32(x: object, what: str) -> np.ndarray:
    """``x`` as a C-contiguous uint32 array of bit patterns."""
    if type(x) is int:  # the common scalar (a mask), without numpy's array round trip
        if not -(2**31) <= x < 2**32:
            raise ValueError(f"{what}: {x} does not fit 32 bits (-2**31 .. 2**32-1)")
        return np.array(x & 0xFFFFFFFF, dtype=np.uint32)
    a = np.asarray(x)
    if a.dtype == np.uint32:
        return np.ascontiguousarray(a)
    if a.dtype == np.float32:
        return np.ascontiguousarray(a).view(np.uint32)
    if a.dtype == np.bool_:
        return a.astype(np.uint32)
    if a.dtype.kind not in "iu":
        raise ValueError(
            f"{what}: dtype {a.dtype} is not an integer type "
            "(pass bit patterns as uint32; float32 arrays are taken as their bits)"
        )
    if a.size:
        lo, hi = int(a.min()), int(a.max())
        if lo < -(2**31) or hi >= 2**32:
            bad = lo if lo < -(2**31) else hi
            raise ValueError(f"{what}: {bad} does not fit 32 bits (-2**31 .. 2**32-1)")
    return (a.astype(np.int64) & 0xFFFFFFFF).astype(np.uint32)


def _per_warp(x: object, warps: int, what: str) -> np.ndarray:
    a = _u32(x, what)
    if a.ndim == 0:
        return np.full(warps, a, dtype=np.uint32)
    if a.shape != (warps,):
        raise ValueError(f"{what}: shape {a.shape}; give a scalar or one value per warp ({warps},)")
    return np.ascontiguousarray(a)


def execute(
    form: str,
    src0: ArrayLike,
    src1: Optional[ArrayLike] = None,
    mask: Union[Scalar, ArrayLike] = 0xFFFFFFFF,
    activemask: Union[Scalar, ArrayLike] = 0xFFFFFFFF,
    *,
    backend: str = "ref",
    config: Optional[str] = None,
) -> Tuple[np.ndarray, Union[np.uint32, np.ndarray]]:
    """Executes one instruction.

    ``src0``/``src1``: shape ``(N,)`` for one warp or ``(W, N)`` for ``W`` warps, ``N`` lanes (32
    for PISA; 4, 8, 16 for the scaled-down units). ``mask`` is the sub-group-uniform mask operand
    (``src1`` of ``fred``/``ired``, ``src2`` of ``shfl``, ``src0`` of ``redfirstidx``);
    ``mask``/``activemask`` a scalar or one value per warp. Returns ``(dst, wen)``: ``dst`` of
    ``src0``'s shape (0 in lanes not written), ``wen`` the write-enable bits, a ``uint32`` per
    warp. ``backend="rtl"`` runs the Verilated unit of ``config`` (a TOML file; default the
    32-lane combinational unit), built on first use.
    """
    s0 = _u32(src0, "src0")
    single = s0.ndim == 1
    if single:
        s0 = s0[None, :]
    if s0.ndim != 2:
        raise ValueError(f"src0: shape {s0.shape}; give (N,) for one warp or (W, N) for W warps")
    warps, lanes = s0.shape
    if lanes not in LANE_COUNTS:
        raise ValueError(f"src0: {lanes} lanes per warp; the unit has 4, 8, 16 or 32 lanes")
    if src1 is None:
        s1 = np.zeros_like(s0)
    else:
        s1 = _u32(src1, "src1")
        if single and s1.ndim == 1:
            s1 = s1[None, :]
        if s1.shape != s0.shape:
            raise ValueError(f"src1: shape {s1.shape}; it must have src0's shape {s0.shape}")
    m = _per_warp(mask, warps, "mask")
    a = _per_warp(activemask, warps, "activemask")
    dst, wen = _native.execute_batch(
        form,
        np.ascontiguousarray(s0),
        np.ascontiguousarray(s1),
        m,
        a,
        backend=backend,
        config=config,
    )
    if single:
        return dst[0], np.uint32(wen[0])
    return dst, wen


def run(
    program: str,
    regs: Optional[Mapping[str, ArrayLike]] = None,
    activemask: Scalar = 0xFFFFFFFF,
    *,
    backend: str = "ref",
    config: Optional[str] = None,
) -> Dict[str, np.ndarray]:
    """Assembles and runs a PISA program as ``pisa exec`` runs a case.

    ``regs`` gives initial register values (names with or without ``%``; 32 lanes each);
    registers given there need no ``.reg``. Returns every register of the program by its ``%``
    name as a ``uint32`` array of 32 lanes. An assembly or run error is a ``ValueError`` whose
    message starts ``program:LINE:COL:``.
    """
    items = []
    for name, vals in (regs or {}).items():
        if not isinstance(name, str):
            raise ValueError(f"regs: register names are strings, got {name!r}")
        v = _u32(vals, f"regs[{name!r}]")
        if v.shape != (32,):
            raise ValueError(f"regs[{name!r}]: shape {v.shape}; a register has 32 lanes")
        items.append((name, v))
    act = _u32(activemask, "activemask")
    if act.ndim != 0:
        raise ValueError("activemask: one value for the warp")
    return _native.run(program, items, int(act), backend=backend, config=config)


def _path(p: object, what: str) -> str:
    """``p`` (a ``str``, ``bytes`` or ``os.PathLike`` path) as a ``str``; anything else, or an
    empty path, is a ``ValueError`` naming ``what``."""
    if isinstance(p, (str, bytes, os.PathLike)):
        s = os.fsdecode(p)
        if s:
            return s
        raise ValueError(f"{what}: an empty path; give a folder")
    raise ValueError(f"{what}: expected a path (str or os.PathLike), got {type(p).__name__}")


def emit(
    out: Union[str, "os.PathLike[str]"],
    config: Optional[Union[str, "os.PathLike[str]"]] = None,
    force: bool = False,
) -> dict:
    """Writes the unit's Verilog into the folder ``out`` (as ``pisa emit --out``; files the kit
    did not write are never replaced unless ``force``, and no symbolic link inside ``out`` is
    followed). Returns ``top``, ``lanes``, ``latency`` (cycles) and ``files``."""
    folder = _path(out, "out")
    cfg = None if config is None else _path(config, "config")
    top, lanes, latency, files = _native.emit(folder, cfg, bool(force))
    return {"top": top, "lanes": lanes, "latency": latency, "files": files}


_warned: set = set()


def _deprecated(old: str, new: str) -> None:
    if old not in _warned:
        _warned.add(old)
        warnings.warn(
            f"subgroup.{old}() is deprecated; use {new}", DeprecationWarning, stacklevel=3
        )


class Subgroup(_native.Subgroup):
    """One wave32 subgroup with the quadrants ``qd.simt.subgroup`` API.

    ``Subgroup()`` runs on the reference model; ``Subgroup(backend="rtl", config=None)`` on the
    Verilated unit. Values are numpy arrays of 32 lanes in ``int32``, ``uint32``, ``float32``,
    ``float64``, ``int64`` or ``uint64`` (predicates and head flags: any of the integer ones or
    ``bool``); results keep the argument's dtype. ``counts()`` gives the PISA instructions
    issued so far, ``last_counts`` those of the latest call.
    """

    def barrier(self) -> None:
        """Deprecated: renamed to ``sync()``."""
        _deprecated("barrier", "sync()")
        self.sync()

    def memory_barrier(self) -> None:
        """Deprecated: renamed to ``mem_fence()``."""
        _deprecated("memory_barrier", "mem_fence()")
        self.mem_fence()

    def ballot_full_subgroup(self, predicate: np.ndarray) -> np.ndarray:
        """Deprecated: renamed to ``ballot(predicate)``."""
        _deprecated("ballot_full_subgroup", "ballot(predicate)")
        return self.ballot(predicate)

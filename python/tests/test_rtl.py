"""The Verilated RTL behind the same Python API: the same answers as the reference model (the
model of a configuration is built on first use, so these need Verilator)."""

import numpy as np
import pytest

import pisa_sgu
from conftest import REPO

RNG = np.random.default_rng(5)


def random_batch(w, n):
    src0 = RNG.integers(0, 2**32, (w, n), dtype=np.uint64).astype(np.uint32)
    src0[:, ::3] = RNG.choice(np.array([0, 0x7F800000, 0xFFC00000, 0x80000000], np.uint32), (w, (n + 2) // 3))
    src1 = RNG.integers(0, 2**21, (w, n), dtype=np.uint32)
    mask = RNG.integers(0, 2**32, w, dtype=np.uint64).astype(np.uint32)
    act = RNG.integers(0, 2**32, w, dtype=np.uint64).astype(np.uint32)
    mask[::4] = 0xFFFFFFFF
    act[::3] = 0xFFFFFFFF
    return src0, src1, mask, act


@pytest.mark.parametrize("config, lanes", [(None, 32), (str(REPO / "fpga/configs/l8_qor.toml"), 8)])
def test_execute_on_the_rtl_equals_the_model(config, lanes):
    src0, src1, mask, act = random_batch(300, lanes)
    for form in pisa_sgu.forms():
        want = pisa_sgu.execute(form, src0, src1, mask, act)
        got = pisa_sgu.execute(form, src0, src1, mask, act, backend="rtl", config=config)
        assert np.array_equal(got[1], want[1]), form
        assert np.array_equal(got[0], want[0]), form


def test_subgroup_on_the_rtl():
    ref, rtl = pisa_sgu.Subgroup(), pisa_sgu.Subgroup(backend="rtl")
    v = RNG.standard_normal(32).astype(np.float32)
    heads = (RNG.integers(0, 4, 32) == 0).astype(np.int32)
    for name, args in [("reduce_all_max", (v,)), ("segmented_reduce_add", (v, heads)),
                       ("inclusive_add_tiled", (v, 3)), ("bitonic_sort_kv", (v, np.arange(32)))]:
        a, b = getattr(ref, name)(*args), getattr(rtl, name)(*args)
        assert np.array_equal(np.asarray(a), np.asarray(b)), name
        assert ref.last_counts == rtl.last_counts, name


def test_a_wrong_lane_count_is_named():
    with pytest.raises(ValueError, match="8 lanes; src0 has 32"):
        pisa_sgu.execute("ired.sum.32b", np.zeros(32, np.uint32), backend="rtl",
                         config=str(REPO / "fpga/configs/l8_qor.toml"))


def test_the_subgroup_api_needs_a_32_lane_unit():
    with pytest.raises(ValueError, match="this configuration has 8"):
        pisa_sgu.Subgroup(backend="rtl", config=str(REPO / "fpga/configs/l8_qor.toml"))

"""pisa_sgu.execute against straightforward ports of the spec's pseudocode (conftest.py)."""

import numpy as np
import pytest

import pisa_sgu
from conftest import ired_ref, redfirstidx_ref, shfl_ref

RNG = np.random.default_rng(2024)


def masks(n):
    return [0xFFFFFFFF, 0, 1 << 7, 0x0000FFFF, int(RNG.integers(0, 2**32)), 0x80000001][:n]


@pytest.mark.parametrize("mode", ["up", "dn", "xor", "idx"])
@pytest.mark.parametrize("sg", [False, True])
def test_shfl_matches_the_pseudocode(mode, sg):
    form = f"shfl.{mode}{'.sg' if sg else ''}.32b"
    for trial in range(40):
        src0 = RNG.integers(0, 2**32, 32, dtype=np.uint64).astype(np.uint32)
        if trial % 2:
            src1 = RNG.integers(0, 2**21, 32, dtype=np.uint32)
        else:  # a uniform operand, as most programs use
            src1 = np.full(32, RNG.integers(0, 2**21), np.uint32)
        mask, act = masks(6)[trial % 6], masks(6)[(trial // 6) % 6]
        dst, wen = pisa_sgu.execute(form, src0, src1, mask=mask, activemask=act)
        want, want_wen = shfl_ref(mode, sg, src0.tolist(), src1.tolist(), mask, act)
        assert int(wen) == want_wen, (form, trial)
        assert dst.tolist() == want, (form, trial)
        assert dst.dtype == np.uint32 and dst.shape == (32,)


@pytest.mark.parametrize("op", ["sum", "umin", "umax", "smin", "smax", "and", "or", "xor", "absmax"])
def test_ired_32b_matches_a_fold(op):
    edges = np.array([0, 1, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF], np.uint32)
    for trial in range(30):
        src0 = RNG.integers(0, 2**32, 32, dtype=np.uint64).astype(np.uint32)
        src0[RNG.integers(0, 32, 4)] = RNG.choice(edges, 4)
        mask, act = masks(6)[trial % 6], masks(6)[(trial + 1) % 6]
        dst, wen = pisa_sgu.execute(f"ired.{op}.32b", src0, mask=mask, activemask=act)
        want, want_wen = ired_ref(op, src0.tolist(), mask, act)
        assert int(wen) == want_wen and dst.tolist() == want, (op, trial)


def test_redfirstidx():
    for mask in masks(6):
        for act in masks(6):
            dst, wen = pisa_sgu.execute("redfirstidx.32b", np.zeros(32, np.uint32), mask=mask,
                                        activemask=act)
            want, want_wen = redfirstidx_ref(mask, act)
            assert (dst.tolist(), int(wen)) == (want, want_wen), (hex(mask), hex(act))


def test_fred_max_of_floats():
    x = RNG.standard_normal(32).astype(np.float32)
    dst, wen = pisa_sgu.execute("fred.max.f", x)  # float32 arrays are taken as their bits
    assert int(wen) == 0xFFFFFFFF
    assert np.all(dst.view(np.float32) == x.max())
    # a NaN is suppressed unless every participant is NaN (fred's rule)
    x[3] = np.nan
    dst, _ = pisa_sgu.execute("fred.min.f", x)
    assert np.all(dst.view(np.float32) == np.nanmin(x))


def test_batches_equal_single_warps():
    w = 257
    src0 = RNG.integers(0, 2**32, (w, 32), dtype=np.uint64).astype(np.uint32)
    src1 = RNG.integers(0, 2**21, (w, 32), dtype=np.uint32)
    mask = RNG.integers(0, 2**32, w, dtype=np.uint64).astype(np.uint32)
    act = RNG.integers(0, 2**32, w, dtype=np.uint64).astype(np.uint32)
    for form in ["shfl.dn.sg.32b", "ired.smax.32b", "fred.max.nanp.bfx2", "redfirstidx.32b"]:
        dst, wen = pisa_sgu.execute(form, src0, src1, mask=mask, activemask=act)
        assert dst.shape == (w, 32) and wen.shape == (w,) and wen.dtype == np.uint32
        for i in range(0, w, 37):
            d1, w1 = pisa_sgu.execute(form, src0[i], src1[i], mask=mask[i], activemask=act[i])
            assert (d1.tolist(), int(w1)) == (dst[i].tolist(), int(wen[i])), (form, i)


def test_small_lane_counts():
    """The scaled-down units: every 5-bit lane field narrowed to log2(N) bits."""
    for n in (4, 8, 16):
        src0 = np.arange(100, 100 + n, dtype=np.uint32)
        dst, wen = pisa_sgu.execute("ired.sum.32b", src0)
        assert int(wen) == (1 << n) - 1 and np.all(dst == src0.sum())
        dst, wen = pisa_sgu.execute("shfl.xor.32b", src0, np.full(n, 1, np.uint32))
        assert dst.tolist() == [int(src0[i ^ 1]) for i in range(n)]


def test_scalar_masks_as_bit_patterns():
    # a Python int mask takes the scalar fast path; the same value as a numpy array must agree
    src0 = np.arange(32, dtype=np.uint32)
    for mask in [0, 1, 0xFFFF0000, 2**32 - 1, -1, -(2**31), True]:
        want = pisa_sgu.execute("ired.sum.32b", src0, mask=np.array([mask], np.int64))
        got = pisa_sgu.execute("ired.sum.32b", src0, mask=mask)
        assert got[1] == want[1] == (int(mask) & 0xFFFFFFFF) and (got[0] == want[0]).all()


def test_operand_conversions():
    ids = list(range(32))
    a, _ = pisa_sgu.execute("ired.sum.32b", ids)  # a list of ints
    b, _ = pisa_sgu.execute("ired.sum.32b", np.arange(32, dtype=np.int64))
    c, _ = pisa_sgu.execute("ired.sum.32b", np.full(32, -1, np.int32))  # two's complement
    assert a[0] == b[0] == 496 and c[0] == (-32) & 0xFFFFFFFF


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(form="shfl.sideways.32b", src0=np.zeros(32, np.uint32)), "not a sub-group instruction form"),
        (dict(form="ired.sum.32b", src0=np.zeros(31, np.uint32)), "31 lanes per warp"),
        (dict(form="ired.sum.32b", src0=np.zeros((2, 3, 32), np.uint32)), "shape (2, 3, 32)"),
        (dict(form="ired.sum.32b", src0=np.zeros(32, np.float64)), "dtype float64 is not an integer"),
        (dict(form="ired.sum.32b", src0=np.full(32, 2**33)), "does not fit 32 bits"),
        (dict(form="ired.sum.32b", src0=np.zeros(32, np.uint32), mask=2**32), "mask: 4294967296 does not fit"),
        (dict(form="ired.sum.32b", src0=np.zeros(32, np.uint32), activemask=-(2**31) - 1), "activemask: -2147483649"),
        (dict(form="ired.sum.32b", src0=np.zeros(32, np.uint32), mask=2**70), "does not fit 32 bits"),
        (dict(form="ired.sum.32b", src0=np.zeros((4, 32), np.uint32), mask=[1, 2]), "one value per warp"),
        (dict(form="shfl.up.32b", src0=np.zeros(32, np.uint32), src1=np.zeros(16, np.uint32)), "src0's shape"),
        (dict(form="ired.sum.32b", src0=np.zeros(32, np.uint32), backend="gpu"), 'backend "gpu"'),
        (dict(form="ired.sum.32b", src0=np.zeros(32, np.uint32), config="x.toml"), "backend=\"rtl\" only"),
    ],
)
def test_errors_name_the_problem(kwargs, message):
    with pytest.raises(ValueError) as e:
        pisa_sgu.execute(**kwargs)
    assert message in str(e.value)


def test_forms_and_encodings():
    fs = pisa_sgu.forms()
    assert len(fs) == 57 and "shfl.idx.32b" in fs and "redfirstidx.32b" in fs
    codes = {pisa_sgu.encode(f) for f in fs}
    assert len(codes) == 57 and all(0 <= c < 256 for c in codes)

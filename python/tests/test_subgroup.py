"""pisa_sgu.Subgroup: the quadrants subgroup API against numpy folds written from the quadrants
docstrings (docs/spec/quadrants-subgroup.md, docs/spec-notes.md §E) and the doc's examples."""

import warnings

import numpy as np
import pytest

import pisa_sgu

DTYPES = [np.int32, np.uint32, np.float32, np.float64, np.int64, np.uint64]
LANE = np.arange(32)
RNG = np.random.default_rng(11)


@pytest.fixture
def sg():
    return pisa_sgu.Subgroup()


def tiles(log2_size):
    size = 1 << log2_size
    return [slice(t, t + size) for t in range(0, 32, size)]


@pytest.mark.parametrize("dtype", DTYPES)
def test_data_movement(sg, dtype):
    v = (LANE * 3 + 1).astype(dtype)
    idx = RNG.integers(0, 64, 32)
    assert np.array_equal(sg.shuffle(v, idx), v[idx % 32])
    for d in (1, 5, 31):
        up = sg.shuffle_up(v, d)
        assert np.array_equal(up, np.where(LANE >= d, v[(LANE - d) % 32], v)), d
        dn = sg.shuffle_down(v, d)
        assert np.array_equal(dn, np.where(LANE + d < 32, v[(LANE + d) % 32], v)), d
    for m in (1, 6, 31):
        assert np.array_equal(sg.shuffle_xor(v, m), v[LANE ^ m])
    assert np.array_equal(sg.broadcast(v, 7), np.full(32, v[7]))
    assert np.array_equal(sg.broadcast_first(v), np.full(32, v[0]))
    out = sg.shuffle(v, 3)
    assert out.dtype == np.dtype(dtype)
    # a shuffle is one shfl per 32-bit word (E21)
    assert sg.last_counts["shfl"] == (2 if np.dtype(dtype).itemsize == 8 else 1)


def test_identification(sg):
    assert np.array_equal(sg.invocation_id(), LANE.astype(np.int32))
    assert sg.invocation_id().dtype == np.int32
    assert (sg.group_size(), sg.log2_group_size()) == (32, 5)
    assert sg.elect().tolist() == [1] + [0] * 31
    assert sg.last_counts["subgroup"] == 0
    sg.sync()
    sg.mem_fence()


@pytest.mark.parametrize("pdtype", [np.int32, np.uint32, np.int64, np.uint64, np.bool_])
def test_votes(sg, pdtype):
    p = (RNG.integers(0, 2, 32) * (1 if pdtype == np.bool_ else 5)).astype(pdtype)
    bits = sum(1 << i for i in range(32) if p[i])
    b = sg.ballot(p)
    assert b.dtype == np.uint64 and np.all(b == bits)
    for n in (1, 7, 32):
        assert np.all(sg.ballot_first_n(p, n) == bits & ((1 << n) - 1))
    assert np.all(sg.all_true(p) == int(all(p))) and np.all(sg.any_true(p) == int(any(p)))
    for k in range(6):
        at, an = sg.all_true_tiled(p, k), sg.any_true_tiled(p, k)
        for t in tiles(k):
            assert np.all(at[t] == int(all(p[t]))) and np.all(an[t] == int(any(p[t])))


def test_all_equal_native_equality(sg):
    v = np.zeros(32, np.float32)
    v[5] = -0.0
    assert np.all(sg.all_equal(v) == 1)  # +0.0 == -0.0
    v[9] = np.nan
    assert np.all(sg.all_equal(v) == 0)  # NaN != NaN
    w = np.repeat(np.arange(8), 4).astype(np.int64)
    assert np.all(sg.all_equal_tiled(w, 2) == 1) and np.all(sg.all_equal_tiled(w, 3) == 0)


@pytest.mark.parametrize("dtype", DTYPES)
def test_reductions(sg, dtype):
    v = RNG.integers(0, 50, 32).astype(dtype)
    for k in range(6):
        s = sg.reduce_add_tiled(v, k)
        mn, mx = sg.reduce_min_tiled(v, k), sg.reduce_max_tiled(v, k)
        for t in tiles(k):
            # the result is defined in each tile's lane 0
            assert s[t][0] == v[t].sum() and mn[t][0] == v[t].min() and mx[t][0] == v[t].max()
        a = sg.reduce_all_add_tiled(v, k)
        for t in tiles(k):
            assert np.all(a[t] == v[t].sum()) and a.dtype == np.dtype(dtype)
        assert np.all(sg.reduce_all_min_tiled(v, k)[tiles(k)[0]] == v[tiles(k)[0]].min())
    assert sg.reduce_add(v)[0] == v.sum() and np.all(sg.reduce_all_max(v) == v.max())


def test_the_docs_example(sg):
    # the quadrants doc: reduce_all_add over a subgroup, 5 shuffles
    v = np.arange(32, dtype=np.float32)
    assert np.all(sg.reduce_all_add(v) == 496.0)
    assert sg.last_counts["shfl"] == 5


def seg_scan(v, heads, k, f):
    out = v.copy()
    for t in tiles(k):
        acc = None
        for i in range(t.start, t.stop):
            acc = v[i] if (heads[i] or acc is None) else f(acc, v[i])
            out[i] = acc
    return out


@pytest.mark.parametrize("dtype", DTYPES)
def test_segmented_reductions_are_per_lane(sg, dtype):
    # quadrants' test: value = i + 1 and no heads gives lane k (k+1)(k+2)/2, not the total
    v = (LANE + 1).astype(dtype)
    none = np.zeros(32, np.uint32)
    got = sg.segmented_reduce_add(v, none)
    assert got.tolist() == [(k + 1) * (k + 2) // 2 for k in range(32)]
    assert sg.last_counts["ired"] == 1
    heads = np.zeros(32, np.int64)
    heads[[0, 5, 12, 13, 30]] = [1, 3, 1, -1, 9]  # any non-zero value is a head
    for k in range(6):
        for name, f in [("add", lambda a, b: a + b), ("min", min), ("max", max)]:
            w = RNG.integers(0, 40, 32).astype(dtype)
            got = getattr(sg, f"segmented_reduce_{name}_tiled")(w, heads, k)
            assert np.array_equal(got, seg_scan(w, heads != 0, k, f)), (name, k)


def scan(v, k, f, identity=None):
    out = v.copy()
    for t in tiles(k):
        acc = identity
        for i in range(t.start, t.stop):
            if identity is None:
                acc = v[i] if i == t.start else f(acc, v[i])
                out[i] = acc
            else:
                out[i] = acc
                acc = f(acc, v[i])
    return out


@pytest.mark.parametrize("dtype", DTYPES)
def test_scans(sg, dtype):
    v = RNG.integers(1, 3, 32).astype(dtype)  # products of 1s and 2s are exact in floats
    ops = [("add", lambda a, b: a + b, 0), ("mul", lambda a, b: a * b, 1),
           ("min", min, None), ("max", max, None)]
    for k in (0, 2, 5):
        for name, f, ident in ops:
            inc = getattr(sg, f"inclusive_{name}_tiled")(v, k)
            assert np.array_equal(inc, scan(v, k, f)), (name, k)
        exc = sg.exclusive_add_tiled(v, k)
        assert np.array_equal(exc, scan(v, k, lambda a, b: a + b, dtype(0))), k
    if np.dtype(dtype).kind in "iu":
        w = RNG.integers(0, 2**16, 32).astype(dtype)
        assert np.array_equal(sg.inclusive_xor(w), np.bitwise_xor.accumulate(w))
        assert np.array_equal(sg.inclusive_or(w), np.bitwise_or.accumulate(w))
        assert sg.exclusive_and(w)[0] == dtype(-1 if np.dtype(dtype).kind == "i" else np.iinfo(dtype).max)


@pytest.mark.parametrize("kdtype", [np.int32, np.float32, np.uint64])
@pytest.mark.parametrize("vdtype", [np.int32, np.float64])
def test_bitonic_sort(sg, kdtype, vdtype):
    keys = RNG.integers(0, 8, 32).astype(kdtype)
    vals = RNG.permutation(32).astype(vdtype)
    for k in (1, 3, 5):
        ks, vs = sg.bitonic_sort_kv_tiled(keys, vals, k)
        for t in tiles(k):
            want = sorted(zip(keys[t].tolist(), vals[t].tolist()))
            assert list(zip(ks[t].tolist(), vs[t].tolist())) == want
        assert ks.dtype == np.dtype(kdtype) and vs.dtype == np.dtype(vdtype)
    ks, vs = sg.bitonic_sort_kv(keys, vals)
    assert ks.tolist() == sorted(keys.tolist())


def test_lanemasks(sg):
    for l in (0, 1, 17, 31):
        assert sg.lanemask_lt(l) == (1 << l) - 1
        assert sg.lanemask_le(l) == (1 << (l + 1)) - 1
        assert sg.lanemask_eq(l) == 1 << l
        assert sg.lanemask_gt(l) == 0xFFFFFFFF & ~((1 << (l + 1)) - 1)
        assert sg.lanemask_ge(l) == 0xFFFFFFFF & ~((1 << l) - 1)


def test_deprecated_aliases_warn_once():
    sg = pisa_sgu.Subgroup()
    p = np.ones(32, np.int32)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        first = sg.ballot_full_subgroup(p)
        sg.ballot_full_subgroup(p)
        sg.memory_barrier()
    msgs = [str(x.message) for x in w if x.category is DeprecationWarning]
    assert msgs.count("subgroup.ballot_full_subgroup() is deprecated; use ballot(predicate)") == 1
    assert any("memory_barrier" in m for m in msgs)
    assert np.all(first == 0xFFFFFFFF)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda sg: sg.reduce_add(np.zeros(32, np.int8)), "dtype int8"),
        (lambda sg: sg.reduce_add([1] * 32), "got a list"),
        (lambda sg: sg.reduce_add(np.zeros(16, np.int32)), "16 values"),
        (lambda sg: sg.reduce_add_tiled(np.zeros(32, np.int32), 6), "log2_size 6 is out of range"),
        (lambda sg: sg.ballot_first_n(np.zeros(32, np.int32), 0), "n = 0 is out of range 1..=32"),
        (lambda sg: sg.lanemask_lt(32), "lane id 32 is out of range"),
        (lambda sg: sg.inclusive_xor(np.zeros(32, np.float32)), "dtype float32"),
        (lambda sg: sg.shuffle(np.zeros(32, np.int32), -1), "not in 0..2**32"),
    ],
)
def test_errors_name_the_problem(sg, call, message):
    with pytest.raises(ValueError) as e:
        call(sg)
    assert message in str(e.value)


def test_backend_errors():
    with pytest.raises(ValueError, match='backend "gpu"'):
        pisa_sgu.Subgroup(backend="gpu")

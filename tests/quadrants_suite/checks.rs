//! The checks, each generic over the backend constructor.

use pisa_model::gen::Rng;
use pisa_model::quadrants::{ApiError, Counts, Int, Lanes, Subgroup, Value};
use pisa_model::SubgroupBackend;

use super::reference::{
    butterfly, fold, hillis_steele, scan, segmented, segmented_hillis_steele, tiles, tree,
};
use super::values::{lanes, Pattern, TestValue, PATTERNS};

fn ids() -> Lanes<i32> {
    std::array::from_fn(|i| i as i32)
}

fn assert_same<T: TestValue>(got: &[T], want: &[T], what: &str) {
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            T::same(*g, *w),
            "{what} ({}): lane {i}: got {g:?}, want {w:?}\n got  {got:?}\n want {want:?}",
            T::NAME
        );
    }
}

fn is_float<T: Value>() -> bool {
    T::NAME.starts_with('f')
}

macro_rules! each_type {
    ($f:ident, $mk:expr) => {
        $f::<i32, _, _>($mk);
        $f::<u32, _, _>($mk);
        $f::<f32, _, _>($mk);
        $f::<f64, _, _>($mk);
        $f::<i64, _, _>($mk);
        $f::<u64, _, _>($mk);
    };
}

macro_rules! each_int {
    ($f:ident, $mk:expr) => {
        $f::<i32, _, _>($mk);
        $f::<u32, _, _>($mk);
        $f::<i64, _, _>($mk);
        $f::<u64, _, _>($mk);
    };
}

// ---------------------------------------------------------------- doc examples

/// Every example of `quadrants-subgroup.md`, with its stated outcome.
pub fn doc_examples<B: SubgroupBackend, F: Fn() -> B>(mk: &F) {
    let mut sg = Subgroup::new(mk());
    let a: Lanes<f32> = std::array::from_fn(|i| i as f32 * 1.5 - 7.0);
    let lane = sg.invocation_id().map(|l| l as u32); // qd.cast(lane, qd.u32)

    // Broadcast lane 0 to all lanes: every lane holds lane 0's value; broadcast is interchangeable.
    let s = sg.shuffle(&a, 0).unwrap();
    assert!(s.iter().all(|&x| x == a[0]));
    assert_eq!(sg.broadcast(&a, 0).unwrap(), s);

    // Ballot: bitmask of the lanes with positive values.
    let pos: Lanes<i32> = a.map(|x| (x > 0.0) as i32);
    let mask = sg.ballot_first_n(&pos, 32).unwrap();
    let want = (0..32).filter(|&i| a[i] > 0.0).fold(0u32, |m, i| m | 1 << i);
    assert!(mask.iter().all(|&m| m == want));
    assert_eq!(want.count_ones(), (0..32).filter(|&i| a[i] > 0.0).count() as u32);

    // Identity shuffle: dst[i] == src[i].
    assert_eq!(sg.shuffle(&a, lane).unwrap(), a);

    // Swap neighbours: pairs (0,1), (2,3), ... swap.
    let sw = sg.shuffle(&a, lane.map(|l| l ^ 1)).unwrap();
    for i in 0..32 {
        assert_eq!(sw[i], a[i ^ 1]);
    }

    // Arbitrary per-lane gather: reverse within groups of 4.
    let rev = sg.shuffle(&a, lane.map(|l| (l / 4) * 4 + 3 - l % 4)).unwrap();
    for g in 0..8 {
        for j in 0..4 {
            assert_eq!(rev[4 * g + j], a[4 * g + 3 - j]);
        }
    }

    // Tree reduction with shuffle_down: lane 0 of each group of 4 holds the group's total.
    let mut val = a;
    let d2 = sg.shuffle_down(&val, 2).unwrap();
    val = std::array::from_fn(|i| val[i] + d2[i]);
    let d1 = sg.shuffle_down(&val, 1).unwrap();
    val = std::array::from_fn(|i| val[i] + d1[i]);
    for g in 0..8 {
        let b = 4 * g;
        assert_eq!(val[b], (a[b] + a[b + 2]) + (a[b + 1] + a[b + 3]));
    }

    // Sum 32 lanes with reduce_add_tiled(v, 5): lane 0 holds the total.
    let small: Lanes<f32> = std::array::from_fn(|i| (i % 7) as f32);
    let total: f32 = small.iter().sum();
    assert_eq!(sg.reduce_add_tiled(&small, 5).unwrap()[0], total);

    // reduce_all_add_tiled: every lane sees the same total; normalising by it.
    let all = sg.reduce_all_add_tiled(&small, 5).unwrap();
    assert!(all.iter().all(|&t| t == total));

    // Partial-subgroup reductions: groups of 8 (lane 0 of each) and of 16 (every lane).
    let r8 = sg.reduce_add_tiled(&small, 3).unwrap();
    for t in tiles(3) {
        assert_eq!(r8[t.start], small[t.clone()].iter().sum::<f32>());
    }
    let r16 = sg.reduce_all_add_tiled(&small, 4).unwrap();
    for t in tiles(4) {
        let s: f32 = small[t.clone()].iter().sum();
        assert!(t.clone().all(|i| r16[i] == s));
    }
    assert_eq!(
        sg.reduce_add(&small).unwrap()[0],
        total,
        "bare form = tiled with log2_group_size()"
    );

    // Bitonic key/value sort with sentinel padding (the contact-pruning example).
    let n_con = 11;
    let keys_in: Vec<f32> = (0..n_con).map(|i| ((i * 37) % 17) as f32 - 3.5).collect();
    let idxs_in: Vec<i32> = (0..n_con as i32).collect();
    let my_key: Lanes<f32> = std::array::from_fn(|t| if t < n_con { keys_in[t] } else { 1.0e30 });
    let my_idx: Lanes<i32> = std::array::from_fn(|t| if t < n_con { idxs_in[t] } else { -1 });
    let (k, v) = sg.bitonic_sort_kv(&my_key, &my_idx).unwrap();
    let mut pairs: Vec<(f32, i32)> = keys_in.iter().copied().zip(idxs_in.iter().copied()).collect();
    pairs.sort_by(|x, y| x.partial_cmp(y).unwrap());
    for t in 0..n_con {
        assert_eq!((k[t], v[t]), pairs[t], "keys[0..n_con] sorted with the matching permutation");
    }
    assert!((n_con..32).all(|t| k[t] == 1.0e30 && v[t] == -1), "sentinels at the tail");

    // Inclusive scan: lane k holds a[0] + ... + a[k]; tiled 3 = prefix sums in groups of 8.
    let ints: Lanes<i32> = std::array::from_fn(|i| (i as i32 * 5) % 11 - 4);
    let cs = sg.inclusive_add_tiled(&ints, 5).unwrap();
    for k in 0..32 {
        assert_eq!(cs[k], ints[..=k].iter().sum::<i32>());
    }
    let cs8 = sg.inclusive_add_tiled(&ints, 3).unwrap();
    for k in 0..32 {
        assert_eq!(cs8[k], ints[k & !7..=k].iter().sum::<i32>());
    }

    // shuffle_xor(v, m) == shuffle(v, lane ^ m); broadcast_first(v) == broadcast(v, 0).
    for m in [0u32, 1, 5, 16, 31, 33] {
        assert_eq!(sg.shuffle_xor(&a, m).unwrap(), sg.shuffle(&a, lane.map(|l| l ^ m)).unwrap());
    }
    assert_eq!(sg.broadcast_first(&a).unwrap(), sg.broadcast(&a, 0).unwrap());

    // all_equal uses native ==: NaN != NaN, +0.0 == -0.0.
    let mut z = [0.0f32; 32];
    z[3] = -0.0;
    assert_eq!(sg.all_equal(&z).unwrap(), [1; 32]);
    assert_eq!(sg.all_equal(&[f32::NAN; 32]).unwrap(), [0; 32]);
    assert_eq!(
        sg.all_equal(&z.map(|x| x.to_bits())).unwrap(),
        [0; 32],
        "bit-cast for bit-equality"
    );
}

// ---------------------------------------------------------------- data movement

fn movement_for<T: TestValue, B: SubgroupBackend, F: Fn() -> B>(mk: &F) {
    let mut sg = Subgroup::new(mk());
    let mut rng = Rng::new(11);
    for p in PATTERNS {
        let v: Lanes<T> = lanes(&mut rng, p);
        let idx: Lanes<u32> = std::array::from_fn(|_| rng.u32());
        let got = sg.shuffle(&v, idx).unwrap();
        assert_same(&got, &idx.map(|j| v[(j % 32) as usize]), "shuffle");
        // broadcast with a per-lane index is shuffle (CUDA / AMDGPU; SPIR-V needs it uniform)
        assert_same(&sg.broadcast(&v, idx).unwrap(), &got, "broadcast, per-lane index");
        for off in [0u32, 1, 3, 16, 31] {
            let up = sg.shuffle_up(&v, off).unwrap();
            let want: Vec<T> = (0..32)
                .map(|i| if i >= off as usize { v[i - off as usize] } else { v[i] })
                .collect();
            assert_same(&up, &want, "shuffle_up");
            let dn = sg.shuffle_down(&v, off).unwrap();
            let want: Vec<T> = (0..32)
                .map(|i| if i + (off as usize) < 32 { v[i + off as usize] } else { v[i] })
                .collect();
            assert_same(&dn, &want, "shuffle_down");
            let x = sg.shuffle_xor(&v, off).unwrap();
            let want: Vec<T> = (0..32).map(|i| v[i ^ off as usize]).collect();
            assert_same(&x, &want, "shuffle_xor");
            let b = sg.broadcast(&v, off).unwrap();
            assert_same(&b, &[v[off as usize]; 32], "broadcast");
        }
        // per-lane offsets
        let offs: Lanes<u32> = std::array::from_fn(|_| rng.below(32));
        let dn = sg.shuffle_down(&v, offs).unwrap();
        let want: Vec<T> = (0..32)
            .map(|i| if i + (offs[i] as usize) < 32 { v[i + offs[i] as usize] } else { v[i] })
            .collect();
        assert_same(&dn, &want, "shuffle_down per-lane offsets");
    }
    // 64-bit values move as two 32-bit instructions
    sg.reset_counts();
    sg.shuffle(&[T::ZERO; 32], 0).unwrap();
    assert_eq!(sg.counts().shfl, T::WORDS as u64, "{}: one shfl per 32-bit word", T::NAME);
}

pub fn data_movement<B: SubgroupBackend, F: Fn() -> B>(mk: &F) {
    each_type!(movement_for, mk);
}

/// CUDA semantics the doc leaves implementation-defined: indices modulo 32, offsets past the end
/// keep the lane's own value (also offsets >= 32, which `shfl` alone would wrap).
pub fn shuffle_offsets_and_indices<B: SubgroupBackend, F: Fn() -> B>(mk: &F) {
    let mut sg = Subgroup::new(mk());
    let v: Lanes<u32> = std::array::from_fn(|i| 100 + i as u32);
    for off in [32u32, 33, 63, 1000] {
        assert_eq!(sg.shuffle_down(&v, off).unwrap(), v, "shuffle_down by {off}");
        assert_eq!(sg.shuffle_up(&v, off).unwrap(), v, "shuffle_up by {off}");
    }
    assert_eq!(sg.shuffle(&v, 35).unwrap(), [103; 32], "index 35 reads lane 3");
    assert_eq!(sg.broadcast(&v, 64 + 7).unwrap(), [107; 32]);
}

// ---------------------------------------------------------------- identification

pub fn identification<B: SubgroupBackend, F: Fn() -> B>(mk: &F) {
    let mut sg = Subgroup::new(mk());
    assert_eq!(sg.invocation_id(), ids());
    assert_eq!(sg.group_size(), 32);
    assert_eq!(sg.log2_group_size(), 5);
    assert_eq!(1usize << sg.log2_group_size(), sg.group_size());
    sg.reset_counts();
    let e = sg.elect().unwrap();
    assert_eq!(e, std::array::from_fn(|i| (i == 0) as i32), "1 on lane 0, 0 elsewhere");
    assert_eq!(sg.counts(), Counts { lane_ops: 1, ..Counts::default() }, "invocation_id() == 0");
    sg.reset_counts();
    sg.sync().unwrap();
    sg.mem_fence().unwrap();
    assert_eq!(sg.counts(), Counts::default(), "sync and mem_fence issue nothing");
}

// ---------------------------------------------------------------- votes

pub fn ballots<B: SubgroupBackend, F: Fn() -> B>(mk: &F) {
    let mut sg = Subgroup::new(mk());
    let mut rng = Rng::new(5);
    for _ in 0..50 {
        let pred: Lanes<i32> =
            std::array::from_fn(|_| if rng.chance(50) { rng.u32() as i32 } else { 0 });
        let want = (0..32).filter(|&i| pred[i] != 0).fold(0u64, |m, i| m | 1 << i);
        sg.reset_counts();
        assert_eq!(sg.ballot(&pred).unwrap(), [want; 32]);
        assert_eq!(sg.counts().ired, 1, "one ired.or of lane bits");
        assert_eq!(sg.counts().subgroup(), 1);
        for n in [1u32, 7, 31, 32] {
            let m = if n == 32 { u32::MAX } else { (1u32 << n) - 1 };
            assert_eq!(sg.ballot_first_n(&pred, n).unwrap(), [want as u32 & m; 32], "n = {n}");
        }
        let all = (pred.iter().all(|&p| p != 0)) as i32;
        let any = (pred.iter().any(|&p| p != 0)) as i32;
        assert_eq!(sg.all_true(&pred).unwrap(), [all; 32]);
        assert_eq!(sg.any_true(&pred).unwrap(), [any; 32]);
    }
    assert_eq!(sg.all_true(&[3; 32]).unwrap(), [1; 32]);
    assert_eq!(sg.any_true(&[0; 32]).unwrap(), [0; 32]);
}

pub fn votes_tiled<B: SubgroupBackend, F: Fn() -> B>(mk: &F) {
    let mut sg = Subgroup::new(mk());
    let mut rng = Rng::new(6);
    for k in 0..=5 {
        for _ in 0..20 {
            let dense = rng.below(3);
            let pred: Lanes<i32> = std::array::from_fn(|_| match dense {
                0 => rng.chance(10) as i32,
                1 => rng.chance(50) as i32,
                _ => rng.chance(95) as i32 * -7,
            });
            sg.reset_counts();
            let all = sg.all_true_tiled(&pred, k).unwrap();
            let any = sg.any_true_tiled(&pred, k).unwrap();
            assert_eq!(sg.counts().subgroup(), 2, "one ired per vote at log2_size {k}");
            for t in tiles(k) {
                let a = pred[t.clone()].iter().all(|&p| p != 0) as i32;
                let y = pred[t.clone()].iter().any(|&p| p != 0) as i32;
                assert!(t.clone().all(|i| all[i] == a && any[i] == y), "k={k} tile {t:?}");
            }
            let vals: Lanes<u32> =
                std::array::from_fn(|i| if rng.chance(90) { (i as u32) >> 3 } else { 99 });
            let eq = sg.all_equal_tiled(&vals, k).unwrap();
            for t in tiles(k) {
                let e = vals[t.clone()].iter().all(|&x| x == vals[t.start]) as i32;
                assert!(t.clone().all(|i| eq[i] == e), "all_equal k={k} tile {t:?}");
            }
        }
    }
}

fn all_equal_for<T: TestValue, B: SubgroupBackend, F: Fn() -> B>(mk: &F) {
    let mut sg = Subgroup::new(mk());
    let mut rng = Rng::new(8);
    for p in PATTERNS {
        for k in 0..=5 {
            let base: Lanes<T> = lanes(&mut rng, p);
            // tiles that are uniform, except some lanes changed
            let v: Lanes<T> = std::array::from_fn(|i| {
                if rng.chance(97) {
                    base[i & !((1 << k) - 1)]
                } else {
                    base[i]
                }
            });
            let got = sg.all_equal_tiled(&v, k).unwrap();
            for t in tiles(k) {
                let e = v[t.clone()].iter().all(|&x| x == v[t.start]) as i32; // native ==
                assert!(t.clone().all(|i| got[i] == e), "{} k={k} {p:?}", T::NAME);
            }
        }
    }
}

pub fn all_equal_semantics<B: SubgroupBackend, F: Fn() -> B>(mk: &F) {
    each_type!(all_equal_for, mk);
}

pub fn lanemasks<B: SubgroupBackend, F: Fn() -> B>(mk: &F) {
    let sg = Subgroup::new(mk());
    for l in 0..32u32 {
        let bits =
            |f: &dyn Fn(u32) -> bool| (0..32).filter(|&i| f(i)).fold(0u32, |m, i| m | 1 << i);
        assert_eq!(sg.lanemask_lt(l).unwrap(), bits(&|i| i < l));
        assert_eq!(sg.lanemask_le(l).unwrap(), bits(&|i| i <= l));
        assert_eq!(sg.lanemask_eq(l).unwrap(), bits(&|i| i == l));
        assert_eq!(sg.lanemask_gt(l).unwrap(), bits(&|i| i > l));
        assert_eq!(sg.lanemask_ge(l).unwrap(), bits(&|i| i >= l));
    }
}

// ---------------------------------------------------------------- reductions

fn reductions_for<T: TestValue, B: SubgroupBackend, F: Fn() -> B>(mk: &F) {
    let mut sg = Subgroup::new(mk());
    let mut rng = Rng::new(21);
    for p in PATTERNS {
        for k in 0..=5 {
            let v: Lanes<T> = lanes(&mut rng, p);
            let add = sg.reduce_add_tiled(&v, k).unwrap();
            let all_add = sg.reduce_all_add_tiled(&v, k).unwrap();
            let mins =
                [sg.reduce_min_tiled(&v, k).unwrap(), sg.reduce_all_min_tiled(&v, k).unwrap()];
            let maxs =
                [sg.reduce_max_tiled(&v, k).unwrap(), sg.reduce_all_max_tiled(&v, k).unwrap()];
            for t in tiles(k) {
                let vals = &v[t.clone()];
                // float add is not associative: quadrants' orders, the shuffle_down tree for
                // reduce_add and the xor butterfly (adjacent pairs first) for reduce_all_add
                let (sum, all_sum) = if is_float::<T>() {
                    (tree(vals, T::add), butterfly(vals, T::add))
                } else {
                    (fold(vals, T::add), fold(vals, T::add))
                };
                let what = format!("{} k={k} {p:?} tile {t:?}", T::NAME);
                assert_same(&add[t.start..t.start + 1], &[sum], &format!("reduce_add {what}"));
                assert_same(
                    &all_add[t.clone()],
                    &vec![all_sum; t.len()],
                    &format!("reduce_all_add {what}"),
                );
                let mn = fold(vals, T::min);
                let mx = fold(vals, T::max);
                assert_same(&mins[0][t.start..t.start + 1], &[mn], &format!("reduce_min {what}"));
                assert_same(
                    &mins[1][t.clone()],
                    &vec![mn; t.len()],
                    &format!("reduce_all_min {what}"),
                );
                assert_same(&maxs[0][t.start..t.start + 1], &[mx], &format!("reduce_max {what}"));
                assert_same(
                    &maxs[1][t.clone()],
                    &vec![mx; t.len()],
                    &format!("reduce_all_max {what}"),
                );
            }
        }
    }
}

pub fn reductions<B: SubgroupBackend, F: Fn() -> B>(mk: &F) {
    each_type!(reductions_for, mk);
    // float min/max: NaN suppressed unless all NaN, -0 < +0 (fred's rules, also on the tree path)
    let mut sg = Subgroup::new(mk());
    let mut v = [f32::NAN; 32];
    v[9] = -0.0;
    v[20] = 0.0;
    for k in [5, 2] {
        let mn = sg.reduce_all_min_tiled(&v, k).unwrap();
        let mx = sg.reduce_all_max_tiled(&v, k).unwrap();
        if k == 5 {
            assert_eq!(mn[0].to_bits(), 0x8000_0000);
            assert_eq!(mx[0].to_bits(), 0);
        } else {
            assert!(
                mn[0].is_nan() && mn[0].to_bits() == 0x7FFF_FFFF,
                "an all-NaN tile gives the canonical NaN"
            );
            assert_eq!(mn[8].to_bits(), 0x8000_0000);
            assert_eq!(mx[20].to_bits(), 0);
        }
    }
}

/// The costs the doc states, and where the unit's one-instruction forms replace them.
pub fn reduction_costs<B: SubgroupBackend, F: Fn() -> B>(mk: &F) {
    let mut sg = Subgroup::new(mk());
    let f = [1.0f32; 32];
    let d = [1.0f64; 32];
    let i = [1i32; 32];
    let l = [1i64; 32];
    let c = |sg: &mut Subgroup<B>, run: &mut dyn FnMut(&mut Subgroup<B>)| {
        sg.reset_counts();
        run(sg);
        sg.counts()
    };
    for k in 1..=5u32 {
        // f32 add: the doc's k shuffles + k adds (no float sum instruction)
        let n = c(&mut sg, &mut |s| {
            s.reduce_add_tiled(&f, k).unwrap();
        });
        assert_eq!(
            (n.shfl, n.lane_ops, n.subgroup()),
            (k as u64, k as u64, k as u64),
            "f32 reduce_add k={k}"
        );
        let n = c(&mut sg, &mut |s| {
            s.reduce_all_add_tiled(&f, k).unwrap();
        });
        assert_eq!((n.shfl, n.lane_ops), (k as u64, k as u64), "f32 reduce_all_add k={k}");
        // 64-bit: two 32-bit shuffles per step
        let n = c(&mut sg, &mut |s| {
            s.reduce_add_tiled(&d, k).unwrap();
        });
        assert_eq!((n.shfl, n.lane_ops), (2 * k as u64, k as u64), "f64 reduce_add k={k}");
        let n = c(&mut sg, &mut |s| {
            s.reduce_max_tiled(&l, k).unwrap();
        });
        assert_eq!(n.shfl, 2 * k as u64, "i64 reduce_max k={k}");
        // i32 add / f32 min: one ired/fred per tile when that is at most k instructions
        let tiles = 1u64 << (5 - k);
        let n = c(&mut sg, &mut |s| {
            s.reduce_add_tiled(&i, k).unwrap();
        });
        let m = c(&mut sg, &mut |s| {
            s.reduce_all_min_tiled(&f, k).unwrap();
        });
        if tiles <= k as u64 {
            assert_eq!((n.ired, n.shfl), (tiles, 0), "i32 reduce_add k={k}: ired.sum per tile");
            assert_eq!((m.fred, m.shfl), (tiles, 0), "f32 reduce_all_min k={k}: fred.min per tile");
        } else {
            assert_eq!((n.ired, n.shfl), (0, k as u64), "i32 reduce_add k={k}: tree");
            assert_eq!((m.fred, m.shfl), (0, k as u64), "f32 reduce_all_min k={k}: tree");
        }
    }
    let n = c(&mut sg, &mut |s| {
        s.reduce_add(&f).unwrap();
    });
    assert_eq!(n.shfl, 5, "reduce_add = log2_group_size() shuffles");
    let n = c(&mut sg, &mut |s| {
        s.reduce_add_tiled(&f, 0).unwrap();
    });
    assert_eq!(n, Counts::default(), "log2_size 0 is a no-op");
}

fn segmented_for<T: TestValue, B: SubgroupBackend, F: Fn() -> B>(mk: &F) {
    let mut sg = Subgroup::new(mk());
    let mut rng = Rng::new(31);
    for p in PATTERNS {
        for k in 0..=5 {
            for density in [0u32, 10, 40, 100] {
                let v: Lanes<T> = lanes(&mut rng, p);
                // arbitrary non-zero head flags (any value counts, not only 1)
                let head: Lanes<i32> =
                    std::array::from_fn(
                        |_| if rng.chance(density) { rng.u32() as i32 | 1 } else { 0 },
                    );
                sg.reset_counts();
                let got = [
                    sg.segmented_reduce_add_tiled(&v, &head, k).unwrap(),
                    sg.segmented_reduce_min_tiled(&v, &head, k).unwrap(),
                    sg.segmented_reduce_max_tiled(&v, &head, k).unwrap(),
                ];
                if k > 0 {
                    let per = 1 + k as u64 * T::WORDS as u64;
                    assert_eq!(sg.counts().subgroup(), 3 * per, "one ballot + k scan steps");
                }
                for t in tiles(k) {
                    let vals = &v[t.clone()];
                    let heads: Vec<bool> = t.clone().map(|i| head[i] != 0).collect();
                    let add = if is_float::<T>() {
                        segmented_hillis_steele(vals, &heads, T::add)
                    } else {
                        segmented(vals, &heads, T::add)
                    };
                    let what = format!("{} k={k} {p:?} tile {t:?}", T::NAME);
                    assert_same(&got[0][t.clone()], &add, &format!("segmented add {what}"));
                    let mn = segmented(vals, &heads, T::min);
                    assert_same(&got[1][t.clone()], &mn, &format!("segmented min {what}"));
                    let mx = segmented(vals, &heads, T::max);
                    assert_same(&got[2][t.clone()], &mx, &format!("segmented max {what}"));
                }
            }
        }
    }
}

pub fn segmented_reductions<B: SubgroupBackend, F: Fn() -> B>(mk: &F) {
    each_type!(segmented_for, mk);
}

// ---------------------------------------------------------------- scans

/// One scan under test: its operator, its identity, and whether any association gives the same
/// result (integers, min, max) or only the library's order does (float add and mul).
struct ScanOp<T> {
    f: fn(T, T) -> T,
    id: T,
    exact: bool,
}

/// The scan of every tile: a sequential fold where the order cannot matter, else quadrants'
/// order (Hillis-Steele; exclusive scans run it on the input shifted up by one lane with the
/// identity in front).
fn check_scan<T: TestValue>(
    what: &str,
    got: &Lanes<T>,
    v: &Lanes<T>,
    k: u32,
    exclusive: bool,
    op: &ScanOp<T>,
) {
    for t in tiles(k) {
        let input: Vec<T> = if exclusive {
            std::iter::once(op.id).chain(v[t.start..t.end - 1].iter().copied()).collect()
        } else {
            v[t.clone()].to_vec()
        };
        let want = if op.exact { scan(&input, op.f) } else { hillis_steele(&input, op.f) };
        assert_same(&got[t.clone()], &want, &format!("{what} {} k={k} tile {t:?}", T::NAME));
    }
}

fn scans_num<T: TestValue, B: SubgroupBackend, F: Fn() -> B>(mk: &F) {
    let mut sg = Subgroup::new(mk());
    let mut rng = Rng::new(41);
    let exact = !is_float::<T>();
    let add = ScanOp { f: T::add, id: T::ZERO, exact };
    let mul = ScanOp { f: T::mul, id: T::ONE, exact };
    let min = ScanOp { f: T::min, id: T::MIN_IDENTITY, exact: true };
    let max = ScanOp { f: T::max, id: T::MAX_IDENTITY, exact: true };
    for p in PATTERNS {
        for k in 0..=5 {
            let v: Lanes<T> = lanes(&mut rng, p);
            check_scan(
                "inclusive_add",
                &sg.inclusive_add_tiled(&v, k).unwrap(),
                &v,
                k,
                false,
                &add,
            );
            check_scan("exclusive_add", &sg.exclusive_add_tiled(&v, k).unwrap(), &v, k, true, &add);
            check_scan(
                "inclusive_mul",
                &sg.inclusive_mul_tiled(&v, k).unwrap(),
                &v,
                k,
                false,
                &mul,
            );
            check_scan("exclusive_mul", &sg.exclusive_mul_tiled(&v, k).unwrap(), &v, k, true, &mul);
            check_scan(
                "inclusive_min",
                &sg.inclusive_min_tiled(&v, k).unwrap(),
                &v,
                k,
                false,
                &min,
            );
            check_scan("exclusive_min", &sg.exclusive_min_tiled(&v, k).unwrap(), &v, k, true, &min);
            check_scan(
                "inclusive_max",
                &sg.inclusive_max_tiled(&v, k).unwrap(),
                &v,
                k,
                false,
                &max,
            );
            check_scan("exclusive_max", &sg.exclusive_max_tiled(&v, k).unwrap(), &v, k, true, &max);
        }
        let v: Lanes<T> = lanes(&mut rng, p);
        check_scan("inclusive_add (bare)", &sg.inclusive_add(&v).unwrap(), &v, 5, false, &add);
        check_scan("exclusive_max (bare)", &sg.exclusive_max(&v).unwrap(), &v, 5, true, &max);
    }
}

fn scans_int<T: TestValue + Int, B: SubgroupBackend, F: Fn() -> B>(mk: &F) {
    let mut sg = Subgroup::new(mk());
    let mut rng = Rng::new(43);
    let and = ScanOp { f: T::and, id: T::ALL_ONES, exact: true };
    let or = ScanOp { f: T::or, id: T::ZERO, exact: true };
    let xor = ScanOp { f: T::xor, id: T::ZERO, exact: true };
    for p in PATTERNS {
        for k in 0..=5 {
            let v: Lanes<T> = lanes(&mut rng, p);
            check_scan(
                "inclusive_and",
                &sg.inclusive_and_tiled(&v, k).unwrap(),
                &v,
                k,
                false,
                &and,
            );
            check_scan("exclusive_and", &sg.exclusive_and_tiled(&v, k).unwrap(), &v, k, true, &and);
            check_scan("inclusive_or", &sg.inclusive_or_tiled(&v, k).unwrap(), &v, k, false, &or);
            check_scan("exclusive_or", &sg.exclusive_or_tiled(&v, k).unwrap(), &v, k, true, &or);
            check_scan(
                "inclusive_xor",
                &sg.inclusive_xor_tiled(&v, k).unwrap(),
                &v,
                k,
                false,
                &xor,
            );
            check_scan("exclusive_xor", &sg.exclusive_xor_tiled(&v, k).unwrap(), &v, k, true, &xor);
        }
        let v: Lanes<T> = lanes(&mut rng, p);
        check_scan("inclusive_xor (bare)", &sg.inclusive_xor(&v).unwrap(), &v, 5, false, &xor);
        check_scan("exclusive_and (bare)", &sg.exclusive_and(&v).unwrap(), &v, 5, true, &and);
    }
}

pub fn scans<B: SubgroupBackend, F: Fn() -> B>(mk: &F) {
    each_type!(scans_num, mk);
    each_int!(scans_int, mk);
}

/// Lane order of the scan, with a non-commutative operator: composition of affine maps
/// `x -> a*x + b (mod 2^16)` packed as `a << 16 | b`, applied lane 0 first.
pub fn scan_order_non_commutative<B: SubgroupBackend, F: Fn() -> B>(mk: &F) {
    fn then(f: u32, g: u32) -> u32 {
        // g after f: g(f(x)) = ga*(fa*x + fb) + gb
        let (fa, fb, ga, gb) = (f >> 16, f & 0xFFFF, g >> 16, g & 0xFFFF);
        (ga.wrapping_mul(fa) & 0xFFFF) << 16 | (ga.wrapping_mul(fb).wrapping_add(gb) & 0xFFFF)
    }
    assert_ne!(
        then(0x0002_0001, 0x0003_0000),
        then(0x0003_0000, 0x0002_0001),
        "the operator is not commutative"
    );
    let mut sg = Subgroup::new(mk());
    let mut rng = Rng::new(51);
    for k in 0..=5 {
        let v: Lanes<u32> = std::array::from_fn(|_| rng.u32());
        let got = sg.inclusive_scan_tiled_with(&v, k, then).unwrap();
        let ex = sg.exclusive_scan_tiled_with(&v, k, 0x0001_0000, then).unwrap();
        for t in tiles(k) {
            let want = scan(&v[t.clone()], then);
            assert_eq!(&got[t.clone()], &want[..], "inclusive k={k}");
            assert_eq!(ex[t.start], 0x0001_0000, "identity map in the tile's lane 0");
            assert_eq!(&ex[t.start + 1..t.end], &want[..want.len() - 1], "exclusive k={k}");
        }
    }
}

pub fn scan_costs<B: SubgroupBackend, F: Fn() -> B>(mk: &F) {
    let mut sg = Subgroup::new(mk());
    let v = [3u32; 32];
    let d = [3u64; 32];
    for k in 1..=5u32 {
        sg.reset_counts();
        sg.inclusive_add_tiled(&v, k).unwrap();
        assert_eq!(sg.counts().shfl, k as u64, "inclusive: log2_size shuffle+op pairs");
        sg.reset_counts();
        sg.exclusive_or_tiled(&v, k).unwrap();
        assert_eq!(sg.counts().shfl, k as u64 + 1, "exclusive: one extra shuffle + select");
        sg.reset_counts();
        sg.inclusive_max_tiled(&d, k).unwrap();
        assert_eq!(sg.counts().shfl, 2 * k as u64, "64-bit: two shuffles per step");
    }
}

// ---------------------------------------------------------------- sort

fn sort_for<K: TestValue, V: TestValue, B: SubgroupBackend, F: Fn() -> B>(mk: &F, rng: &mut Rng) {
    let mut sg = Subgroup::new(mk());
    for p in [Pattern::Varied, Pattern::Small, Pattern::Special, Pattern::Bitwise] {
        for k in 0..=5 {
            let key: Lanes<K> = lanes(rng, p);
            let val: Lanes<V> = lanes(rng, if p == Pattern::Bitwise { Pattern::Small } else { p });
            sg.reset_counts();
            let (sk, sv) = sg.bitonic_sort_kv_tiled(&key, &val, k).unwrap();
            let steps = (k * (k + 1) / 2) as u64;
            assert_eq!(
                sg.counts().shfl,
                steps * (K::WORDS + V::WORDS) as u64,
                "k={k}: k(k+1)/2 exchange steps"
            );
            for t in tiles(k) {
                let mut pairs: Vec<(K, V)> = t.clone().map(|i| (key[i], val[i])).collect();
                let has_nan = pairs
                    .iter()
                    .any(|(a, b)| a.partial_cmp(a).is_none() || b.partial_cmp(b).is_none());
                let got: Vec<(K, V)> = t.clone().map(|i| (sk[i], sv[i])).collect();
                let what = format!("{}/{} k={k} {p:?} tile {t:?}", K::NAME, V::NAME);
                if has_nan {
                    // NaN compares false both ways: only a permutation is promised
                    let bits = |v: &[(K, V)]| {
                        let mut b: Vec<(u32, u32, u32, u32)> =
                            v.iter().map(|(a, c)| (a.lo(), a.hi(), c.lo(), c.hi())).collect();
                        b.sort();
                        b
                    };
                    assert_eq!(bits(&got), bits(&pairs), "permutation {what}");
                } else {
                    pairs.sort_by(|a, b| a.partial_cmp(b).unwrap());
                    for (g, w) in got.iter().zip(&pairs) {
                        assert!(
                            g.0 == w.0 && g.1 == w.1,
                            "sorted {what}: got {got:?}\nwant {pairs:?}"
                        );
                    }
                }
            }
        }
    }
}

pub fn bitonic_sort<B: SubgroupBackend, F: Fn() -> B>(mk: &F) {
    let mut rng = Rng::new(61);
    sort_for::<f32, i32, _, _>(mk, &mut rng);
    sort_for::<i32, u32, _, _>(mk, &mut rng);
    sort_for::<u32, f32, _, _>(mk, &mut rng);
    sort_for::<f64, i64, _, _>(mk, &mut rng);
    sort_for::<u64, f64, _, _>(mk, &mut rng);
    sort_for::<i64, u32, _, _>(mk, &mut rng);
    let mut sg = Subgroup::new(mk());
    sg.reset_counts();
    sg.bitonic_sort_kv(&[0.0f32; 32], &[0i32; 32]).unwrap();
    assert_eq!(sg.counts().shfl, 30, "the doc's 30 shuffles at log2_size 5");
}

pub fn bitonic_sort_sentinels_and_duplicates<B: SubgroupBackend, F: Fn() -> B>(mk: &F) {
    let mut sg = Subgroup::new(mk());
    // many duplicate keys: ties break on ascending value, not on lane order
    let key: Lanes<u32> = std::array::from_fn(|i| (i % 3) as u32);
    let val: Lanes<i32> = std::array::from_fn(|i| 100 - i as i32);
    let (k, v) = sg.bitonic_sort_kv(&key, &val).unwrap();
    let mut want: Vec<(u32, i32)> = key.iter().copied().zip(val.iter().copied()).collect();
    want.sort();
    assert_eq!(k.iter().copied().zip(v.iter().copied()).collect::<Vec<_>>(), want);
    // tiled, sentinel-padded short inputs in every tile of 8
    let key: Lanes<f32> =
        std::array::from_fn(|i| if i % 8 < 5 { ((i * 7) % 5) as f32 } else { f32::INFINITY });
    let val: Lanes<i32> = std::array::from_fn(|i| if i % 8 < 5 { i as i32 } else { -1 });
    let (k, v) = sg.bitonic_sort_kv_tiled(&key, &val, 3).unwrap();
    for t in tiles(3) {
        let mut want: Vec<(f32, i32)> = t.clone().map(|i| (key[i], val[i])).collect();
        want.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let got: Vec<(f32, i32)> = t.clone().map(|i| (k[i], v[i])).collect();
        assert_eq!(got, want, "tile {t:?}");
        assert!(t.clone().skip(5).all(|i| k[i] == f32::INFINITY && v[i] == -1));
    }
}

// ---------------------------------------------------------------- bad use

pub fn bad_use_is_rejected<B: SubgroupBackend, F: Fn() -> B>(mk: &F) {
    let mut sg = Subgroup::new(mk());
    let v = [1u32; 32];
    let p = [1i32; 32];
    sg.reset_counts();
    let e = sg.reduce_add_tiled(&v, 6).unwrap_err();
    assert_eq!(e, ApiError::Log2Size { op: "reduce_add_tiled", log2_size: 6 });
    assert_eq!(
        e.to_string(),
        "reduce_add_tiled: log2_size 6 is out of range 0..=5 (the subgroup has 32 lanes)"
    );
    assert!(matches!(
        sg.inclusive_xor_tiled(&v, 7),
        Err(ApiError::Log2Size { op: "inclusive_xor_tiled", .. })
    ));
    assert!(matches!(
        sg.exclusive_mul_tiled(&v, 9),
        Err(ApiError::Log2Size { op: "exclusive_mul_tiled", .. })
    ));
    assert!(matches!(sg.all_true_tiled(&p, 6), Err(ApiError::Log2Size { .. })));
    assert!(matches!(sg.bitonic_sort_kv_tiled(&v, &v, 6), Err(ApiError::Log2Size { .. })));
    assert!(matches!(sg.segmented_reduce_max_tiled(&v, &p, 32), Err(ApiError::Log2Size { .. })));
    assert_eq!(sg.ballot_first_n(&p, 33).unwrap_err(), ApiError::BallotN(33));
    assert_eq!(
        sg.ballot_first_n(&p, 0).unwrap_err().to_string(),
        "ballot_first_n: n = 0 is out of range 1..=32 (the result is a u32 covering lanes [0, n))"
    );
    assert_eq!(sg.lanemask_ge(32).unwrap_err(), ApiError::LaneId { op: "lanemask_ge", lane: 32 });
    assert_eq!(
        sg.lanemask_eq(u32::MAX).unwrap_err().to_string(),
        "lanemask_eq: lane id 4294967295 is out of range 0..=31"
    );
    assert_eq!(sg.counts(), Counts::default(), "rejected before anything is issued");
}

#[allow(deprecated)]
pub fn deprecated_aliases<B: SubgroupBackend, F: Fn() -> B>(mk: &F) {
    let mut sg = Subgroup::new(mk());
    sg.barrier().unwrap();
    sg.memory_barrier().unwrap();
    let p: Lanes<i32> = std::array::from_fn(|i| (i % 2) as i32);
    assert_eq!(sg.ballot_full_subgroup(&p).unwrap(), sg.ballot(&p).unwrap());
}

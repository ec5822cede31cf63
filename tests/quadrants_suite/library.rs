//! The quadrants library's own subgroup tests (`tests/python/test_simt.py` of
//! Genesis-Embodied-AI/quadrants), ported for wave32: the same `_init_*` inputs, the same head
//! patterns, the same values asserted, computed here by the library's own host references
//! (closed forms and straightforward folds over the inputs) and with its float tolerances.
//! Its kernels run 64 lanes, two wave32 subgroups: here each half is one `Subgroup` call.

use pisa_model::quadrants::{Lanes, Subgroup, Value};
use pisa_model::SubgroupBackend;

/// A dtype of the library's scenario tables.
pub trait Dtype: Value + PartialOrd {
    const INT: bool;
    fn of_i64(v: i64) -> Self;
    fn of_f64(v: f64) -> Self;
    fn f64(self) -> f64;
    fn i128(self) -> i128;
}

macro_rules! int_dtype {
    ($($t:ty),*) => {$(
        impl Dtype for $t {
            const INT: bool = true;
            fn of_i64(v: i64) -> Self { v as $t }
            fn of_f64(v: f64) -> Self { v as $t }
            fn f64(self) -> f64 { self as f64 }
            fn i128(self) -> i128 { self as i128 }
        }
    )*};
}
int_dtype!(i32, u32, i64, u64);

macro_rules! float_dtype {
    ($($t:ty),*) => {$(
        impl Dtype for $t {
            const INT: bool = false;
            fn of_i64(v: i64) -> Self { v as $t }
            fn of_f64(v: f64) -> Self { v as $t }
            fn f64(self) -> f64 { self as f64 }
            fn i128(self) -> i128 { self as i128 }
        }
    )*};
}
float_dtype!(f32, f64);

/// `_init_field`: `i + 1`, floats `1.0000000000001 * (i + 1)`.
fn init_field<T: Dtype>(i: usize) -> T {
    if T::INT {
        T::of_i64(i as i64 + 1)
    } else {
        T::of_f64(1.0000000000001 * (i as f64 + 1.0))
    }
}
/// `_init_varied_int_or_float`: `((i * 7 + 11) % 23) + 1`.
fn init_varied<T: Dtype>(i: usize) -> T {
    T::of_i64(((i as i64 * 7 + 11) % 23) + 1)
}
/// `_init_small_int_or_float`: 2 on every fourth lane, else 1.
fn init_small<T: Dtype>(i: usize) -> T {
    T::of_i64(if i.is_multiple_of(4) { 2 } else { 1 })
}
/// `_init_bitwise_int`: `(i * 5 + 0x37) & 0xFF`.
fn init_bitwise<T: Dtype>(i: usize) -> T {
    T::of_i64((i as i64 * 5 + 0x37) & 0xFF)
}

/// The two wave32 subgroups of the library's 64-lane launch.
fn halves<T: Copy>(f: impl Fn(usize) -> T) -> [Lanes<T>; 2] {
    [std::array::from_fn(&f), std::array::from_fn(|l| f(32 + l))]
}

/// The library's comparison: exact for integers, `|got - want| < tol * max(|want|, 1)` for floats.
fn check<T: Dtype>(got: T, want: T, tol: f64, what: &str) {
    if T::INT {
        assert_eq!(got.i128(), want.i128(), "{what} ({}): got {got:?}, want {want:?}", T::NAME);
    } else {
        let (g, w) = (got.f64(), want.f64());
        let ok = if w.is_infinite() || w.is_nan() {
            g == w
        } else {
            (g - w).abs() < tol * w.abs().max(1.0)
        };
        assert!(ok, "{what} ({}): got {g}, want {w}", T::NAME);
    }
}

fn add<T: pisa_model::quadrants::Num>(a: T, b: T) -> T {
    <T as pisa_model::quadrants::Num>::add(a, b)
}

// The scenario tables (dtype, log2_size) of test_simt.py.
macro_rules! full_dtype {
    ($f:ident, $mk:expr) => {
        $f::<i32, _, _>($mk, 1);
        $f::<i32, _, _>($mk, 5);
        $f::<i64, _, _>($mk, 5);
        $f::<u64, _, _>($mk, 5);
        $f::<f32, _, _>($mk, 5);
        $f::<f64, _, _>($mk, 5);
    };
}

// ------------------------------------------------------------------ data movement

fn movement_for<T: Dtype + pisa_model::quadrants::Num, B: SubgroupBackend, F: Fn() -> B>(mk: &F) {
    let mut sg = Subgroup::new(mk());
    for a in halves(init_field::<T>) {
        let lane = sg.invocation_id().map(|l| l as u32);
        // test_subgroup_shuffle_broadcast, test_subgroup_broadcast_first
        assert_eq!(sg.shuffle(&a, 0u32).unwrap(), [a[0]; 32]);
        assert_eq!(sg.broadcast_first(&a).unwrap(), [a[0]; 32]);
        // test_subgroup_shuffle_roundtrip: shuffle(a, lane) - a == 0
        assert_eq!(sg.shuffle(&a, lane).unwrap(), a);
        // test_subgroup_shuffle_cross_lane: each group of 4 reversed
        let rev = sg.shuffle(&a, lane.map(|l| (l / 4) * 4 + 3 - l % 4)).unwrap();
        assert_eq!(rev[..4], [a[3], a[2], a[1], a[0]]);
        // test_subgroup_shuffle_xor_pattern, test_subgroup_shuffle_xor
        let swap = [a[1], a[0], a[3], a[2]];
        assert_eq!(sg.shuffle(&a, lane.map(|l| l ^ 1)).unwrap()[..4], swap);
        assert_eq!(sg.shuffle_xor(&a, 1u32).unwrap()[..4], swap);
        // test_subgroup_shuffle_down / _up by 1
        assert_eq!(sg.shuffle_down(&a, 1u32).unwrap()[..3], a[1..4]);
        assert_eq!(sg.shuffle_up(&a, 1u32).unwrap()[1..4], a[..3]);
        // test_subgroup_shuffle_down_reduction: lane 0 holds the sum of lanes 0-3
        let mut val = a;
        for off in [2u32, 1] {
            let d = sg.shuffle_down(&val, off).unwrap();
            val = std::array::from_fn(|i| add(val[i], d[i]));
        }
        let want = a[..4].iter().fold(T::ZERO, |s, &x| add(s, x));
        check(val[0], want, 1e-5, "shuffle_down reduction of 4");
    }
}

pub fn library_data_movement<B: SubgroupBackend, F: Fn() -> B>(mk: &F) {
    movement_for::<i32, _, _>(mk);
    movement_for::<f32, _, _>(mk);
    movement_for::<f64, _, _>(mk);
}

// ------------------------------------------------------------------ reductions

fn reduce_for<T: Dtype + pisa_model::quadrants::Num, B: SubgroupBackend, F: Fn() -> B>(
    mk: &F,
    k: u32,
) {
    let mut sg = Subgroup::new(mk());
    let size = 1usize << k;
    // test_subgroup_reduce_add_tiled / reduce_all_add_tiled: the first group's sum
    let [a, _] = halves(init_field::<T>);
    let want = a[..size].iter().fold(T::ZERO, |s, &x| add(s, x));
    check(sg.reduce_add_tiled(&a, k).unwrap()[0], want, 1e-4, "reduce_add_tiled lane 0");
    let all = sg.reduce_all_add_tiled(&a, k).unwrap();
    for (i, &got) in all[..size].iter().enumerate() {
        check(got, want, 1e-4, &format!("reduce_all_add_tiled k={k} lane {i}"));
    }
    // _check_reduce_lane0 / _check_reduce_all with the varied input, every group of 64 lanes
    for (h, v) in halves(init_varied::<T>).iter().enumerate() {
        let mins = [sg.reduce_min_tiled(v, k).unwrap(), sg.reduce_all_min_tiled(v, k).unwrap()];
        let maxs = [sg.reduce_max_tiled(v, k).unwrap(), sg.reduce_all_max_tiled(v, k).unwrap()];
        for base in (0..32).step_by(size) {
            let g = &v[base..base + size];
            let mn = g[1..].iter().fold(g[0], |m, &x| if x < m { x } else { m });
            let mx = g[1..].iter().fold(g[0], |m, &x| if x > m { x } else { m });
            let what = |op: &str| format!("{op} k={k} half {h} group at {base}");
            check(mins[0][base], mn, 1e-5, &what("reduce_min_tiled"));
            check(maxs[0][base], mx, 1e-5, &what("reduce_max_tiled"));
            for l in base..base + size {
                check(mins[1][l], mn, 1e-5, &what("reduce_all_min_tiled"));
                check(maxs[1][l], mx, 1e-5, &what("reduce_all_max_tiled"));
            }
        }
    }
}

pub fn library_reductions<B: SubgroupBackend, F: Fn() -> B>(mk: &F) {
    full_dtype!(reduce_for, mk);
}

// ------------------------------------------------------------------ segmented reductions

/// `_python_segmented_reduce`: lane `i` folds `values[head..=i]`, `head` the highest lane `<= i`
/// of its group with a non-zero head flag, the group's base if none.
fn python_segmented<T: Copy>(
    values: &[T],
    heads: &[i32],
    group: usize,
    op: fn(T, T) -> T,
) -> Vec<T> {
    (0..values.len())
        .map(|i| {
            let base = i / group * group;
            let head = (base..=i).rev().find(|&h| heads[h] != 0).unwrap_or(base);
            values[head + 1..=i].iter().fold(values[head], |a, &b| op(a, b))
        })
        .collect()
}

const HEAD_LANES: [usize; 6] = [0, 3, 7, 12, 19, 25];

fn segmented_for<T: Dtype + pisa_model::quadrants::Num, B: SubgroupBackend, F: Fn() -> B>(
    mk: &F,
    k: u32,
) {
    let mut sg = Subgroup::new(mk());
    let src: Lanes<T> = std::array::from_fn(init_varied::<T>);
    let head: Lanes<i32> = std::array::from_fn(|i| HEAD_LANES.contains(&i) as i32);
    let size = 1 << k;
    let min = |a: T, b: T| if b < a { b } else { a };
    let max = |a: T, b: T| if b > a { b } else { a };
    for (name, got, want) in [
        (
            "add",
            sg.segmented_reduce_add_tiled(&src, &head, k).unwrap(),
            python_segmented(&src, &head, size, add::<T>),
        ),
        (
            "min",
            sg.segmented_reduce_min_tiled(&src, &head, k).unwrap(),
            python_segmented(&src, &head, size, min),
        ),
        (
            "max",
            sg.segmented_reduce_max_tiled(&src, &head, k).unwrap(),
            python_segmented(&src, &head, size, max),
        ),
    ] {
        for i in 0..32 {
            check(got[i], want[i], 1e-5, &format!("segmented_reduce_{name}_tiled k={k} lane {i}"));
        }
    }
}

pub fn library_segmented<B: SubgroupBackend, F: Fn() -> B>(mk: &F) {
    // _SCENARIOS_SEGMENTED
    segmented_for::<i32, _, _>(mk, 0);
    segmented_for::<i32, _, _>(mk, 5);
    segmented_for::<i64, _, _>(mk, 5);
    segmented_for::<u64, _, _>(mk, 5);
    segmented_for::<f32, _, _>(mk, 5);
    segmented_for::<f64, _, _>(mk, 5);
    let mut sg = Subgroup::new(mk());
    let ones = |i: usize| (i + 1) as i32;
    // no heads: the inclusive prefix sum of 1..32, lane k holds (k+1)(k+2)/2 (not the total 528)
    let got = sg.segmented_reduce_add_tiled(&std::array::from_fn(ones), &[0i32; 32], 5).unwrap();
    assert_eq!(got, std::array::from_fn(|k| ((k + 1) * (k + 2) / 2) as i32), "no heads");
    // every lane a head: output equals input
    let v: Lanes<i32> = std::array::from_fn(|i| ((i * 7 + 11) % 23 + 1) as i32);
    assert_eq!(sg.segmented_reduce_add_tiled(&v, &[1i32; 32], 5).unwrap(), v, "every lane a head");
    let w: Lanes<i32> = std::array::from_fn(|i| (i as i32 * 13 + 5) % 29 - 7);
    assert_eq!(sg.segmented_reduce_max_tiled(&w, &[1i32; 32], 5).unwrap(), w);
    // segmented_reduce_min, no heads: the running minimum
    let mut run = v[0];
    let want: Lanes<i32> = std::array::from_fn(|i| {
        run = run.min(v[i]);
        run
    });
    assert_eq!(sg.segmented_reduce_min_tiled(&v, &[0i32; 32], 5).unwrap(), want);
    // truthy head flags (head * 42, head * 7) give what 0/1 flags give
    let h: Lanes<i32> = std::array::from_fn(|i| [0, 5, 13, 22].contains(&i) as i32);
    let a: Lanes<i32> = std::array::from_fn(ones);
    assert_eq!(
        sg.segmented_reduce_add_tiled(&a, &h.map(|x| x * 42), 5).unwrap(),
        sg.segmented_reduce_add_tiled(&a, &h, 5).unwrap()
    );
    let h: Lanes<i32> = std::array::from_fn(|i| [0, 4, 9, 18, 27].contains(&i) as i32);
    let b: Lanes<i32> = std::array::from_fn(|i| ((i * 11 + 3) % 17 + 1) as i32);
    assert_eq!(
        sg.segmented_reduce_min_tiled(&b, &h.map(|x| x * 7), 5).unwrap(),
        sg.segmented_reduce_min_tiled(&b, &h, 5).unwrap()
    );
    // head flags of other integer dtypes (u32, i64, u64, bool): `head_flag != 0`
    let r = sg.segmented_reduce_add_tiled(&a, &h, 5).unwrap();
    assert_eq!(
        sg.segmented_reduce_add_tiled(&a, &h.map(|x| x as u32 * 0x8000_0000), 5).unwrap(),
        r
    );
    assert_eq!(sg.segmented_reduce_add_tiled(&a, &h.map(|x| x as i64 * -3), 5).unwrap(), r);
    assert_eq!(sg.segmented_reduce_add_tiled(&a, &h.map(|x| (x as u64) << 40), 5).unwrap(), r);
    assert_eq!(sg.segmented_reduce_add_tiled(&a, &h.map(|x| x != 0), 5).unwrap(), r);
    // test_subgroup_segmented_reduce_add_tiled_block64, each half the same pattern
    for k in 0..=5 {
        let half: Lanes<i32> = std::array::from_fn(|j| (j + 1) as i32);
        let heads: Lanes<i32> = std::array::from_fn(|j| HEAD_LANES.contains(&j) as i32);
        let want = python_segmented(&half, &heads, 1 << k, |x, y| x + y);
        for _ in 0..2 {
            assert_eq!(
                sg.segmented_reduce_add_tiled(&half, &heads, k).unwrap()[..],
                want[..],
                "k={k}"
            );
        }
    }
}

// ------------------------------------------------------------------ scans

fn check_scan_groups<T: Dtype>(
    got: &[Lanes<T>; 2],
    src: &[Lanes<T>; 2],
    k: u32,
    identity: Option<T>,
    op: impl Fn(T, T) -> T,
    what: &str,
) {
    let size = 1usize << k;
    for (h, (g, s)) in got.iter().zip(src).enumerate() {
        for base in (0..32).step_by(size) {
            let mut running = s[base];
            for j in 0..size {
                let want = match identity {
                    // _check_exclusive_scan: lane 0 the identity, lane j the fold of j lanes
                    Some(id) if j == 0 => id,
                    Some(_) => {
                        let w = running;
                        running = op(running, s[base + j]);
                        w
                    }
                    // _check_inclusive_scan
                    None => {
                        if j > 0 {
                            running = op(running, s[base + j]);
                        }
                        running
                    }
                };
                check(g[base + j], want, 1e-4, &format!("{what} k={k} half {h} lane {}", base + j));
            }
        }
    }
}

macro_rules! scan_case {
    ($sg:expr, $f:ident, $init:ident, $k:expr, $id:expr, $op:expr) => {{
        let src = halves($init::<T>);
        let got = [$sg.$f(&src[0], $k).unwrap(), $sg.$f(&src[1], $k).unwrap()];
        check_scan_groups(&got, &src, $k, $id, $op, stringify!($f));
    }};
}

fn scans_num<T: Dtype + pisa_model::quadrants::Num, B: SubgroupBackend, F: Fn() -> B>(
    mk: &F,
    k: u32,
) {
    let mut sg = Subgroup::new(mk());
    let min = |a: T, b: T| if b < a { b } else { a };
    let max = |a: T, b: T| if b > a { b } else { a };
    scan_case!(sg, inclusive_add_tiled, init_field, k, None, add::<T>);
    scan_case!(sg, exclusive_add_tiled, init_field, k, Some(T::ZERO), add::<T>);
    if T::INT && T::WORDS == 2 {
        return; // the library runs mul, min and max scans on i32 and floats only
    }
    let mul = <T as pisa_model::quadrants::Num>::mul;
    scan_case!(sg, inclusive_mul_tiled, init_small, k, None, mul);
    scan_case!(sg, exclusive_mul_tiled, init_small, k, Some(T::ONE), mul);
    scan_case!(sg, inclusive_min_tiled, init_varied, k, None, min);
    scan_case!(sg, inclusive_max_tiled, init_varied, k, None, max);
}

/// exclusive_min / exclusive_max: the dtype's identity in lane 0 (`np.iinfo(dtype).max` / `.min`,
/// ±inf for floats; 0 for unsigned max).
fn scans_minmax<T: Dtype + pisa_model::quadrants::Num, B: SubgroupBackend, F: Fn() -> B>(
    mk: &F,
    k: u32,
    min_id: T,
    max_id: T,
) {
    let mut sg = Subgroup::new(mk());
    let min = |a: T, b: T| if b < a { b } else { a };
    let max = |a: T, b: T| if b > a { b } else { a };
    scan_case!(sg, exclusive_min_tiled, init_varied, k, Some(min_id), min);
    scan_case!(sg, exclusive_max_tiled, init_varied, k, Some(max_id), max);
}

fn scans_int<T: Dtype + pisa_model::quadrants::Int, B: SubgroupBackend, F: Fn() -> B>(
    mk: &F,
    k: u32,
    all_ones: T,
) {
    let mut sg = Subgroup::new(mk());
    let (and, or, xor) = (T::and, T::or, T::xor);
    scan_case!(sg, inclusive_and_tiled, init_bitwise, k, None, and);
    scan_case!(sg, inclusive_or_tiled, init_bitwise, k, None, or);
    scan_case!(sg, inclusive_xor_tiled, init_bitwise, k, None, xor);
    scan_case!(sg, exclusive_and_tiled, init_bitwise, k, Some(all_ones), and);
    scan_case!(sg, exclusive_or_tiled, init_bitwise, k, Some(T::ZERO), or);
    scan_case!(sg, exclusive_xor_tiled, init_bitwise, k, Some(T::ZERO), xor);
}

pub fn library_scans<B: SubgroupBackend, F: Fn() -> B>(mk: &F) {
    for k in [1, 5] {
        scans_num::<i32, _, _>(mk, k);
        scans_int::<i32, _, _>(mk, k, -1);
    }
    scans_num::<i64, _, _>(mk, 5);
    scans_num::<u64, _, _>(mk, 5);
    scans_num::<f32, _, _>(mk, 5);
    scans_num::<f64, _, _>(mk, 5);
    scans_int::<i64, _, _>(mk, 5, -1);
    scans_int::<u64, _, _>(mk, 5, u64::MAX);
    // _SCENARIOS_EXCLUSIVE_MINMAX
    for k in [1, 5] {
        scans_minmax::<i32, _, _>(mk, k, i32::MAX, i32::MIN);
    }
    scans_minmax::<f32, _, _>(mk, 5, f32::INFINITY, f32::NEG_INFINITY);
    scans_minmax::<f64, _, _>(mk, 5, f64::INFINITY, f64::NEG_INFINITY);
    scans_minmax::<i64, _, _>(mk, 5, i64::MAX, i64::MIN);
    scans_minmax::<u32, _, _>(mk, 5, u32::MAX, 0);
    scans_minmax::<u64, _, _>(mk, 5, u64::MAX, 0);
}

/// test_subgroup_inclusive_scan_tiled_noncommutative: affine maps `(m, c)` packed `m << 16 | c`,
/// `compose(a, b) = (m_a * m_b, m_a * c_b + c_a) mod 2^16`, folded left in lane order.
pub fn library_noncommutative_scan<B: SubgroupBackend, F: Fn() -> B>(mk: &F) {
    fn compose(a: u32, b: u32) -> u32 {
        let (ma, ca, mb, cb) = (a >> 16, a & 0xFFFF, b >> 16, b & 0xFFFF);
        ((ma * mb) & 0xFFFF) << 16 | ((ma * cb + ca) & 0xFFFF)
    }
    let mut sg = Subgroup::new(mk());
    for k in [1, 2, 5] {
        let src = halves(|i| (((i % 7) + 2) as u32) << 16 | ((i as u32 * 5 + 3) & 0xFF));
        let got = [
            sg.inclusive_scan_tiled_with(&src[0], k, compose).unwrap(),
            sg.inclusive_scan_tiled_with(&src[1], k, compose).unwrap(),
        ];
        check_scan_groups(&got, &src, k, None, compose, "affine scan");
    }
}

// ------------------------------------------------------------------ votes

fn vote_patterns() -> Vec<(&'static str, Vec<i32>)> {
    let mut zero_at_3 = vec![1; 64];
    zero_at_3[3] = 0;
    let mut one_at_3 = vec![0; 64];
    one_at_3[3] = 1;
    vec![
        ("all-1", vec![1; 64]),
        ("all-0", vec![0; 64]),
        ("zero-at-3", zero_at_3),
        ("one-at-3", one_at_3),
        ("sparse-zeros", (0..64).map(|i| (i % 7 != 0) as i32).collect()),
        ("sparse-ones", (0..64).map(|i| (i % 7 == 0) as i32).collect()),
        ("nonbinary-mixed", (0..64).map(|i| ((i * 17) % 13) - 6).collect()),
    ]
}

fn all_equal_for<T: Dtype, B: SubgroupBackend, F: Fn() -> B>(mk: &F, k: u32) {
    let mut sg = Subgroup::new(mk());
    let size = 1usize << k;
    let of = |v: i64| T::of_i64(v);
    let patterns: Vec<(&str, Vec<T>)> = vec![
        ("all-same", vec![of(42); 64]),
        ("all-distinct", (0..64).map(of).collect()),
        ("same-per-group", (0..64).map(|i| of((i as usize / size) as i64)).collect()),
        (
            "one-outlier-per-group",
            (0..64).map(|i| of(if i as usize % size == size - 1 { 99 } else { 7 })).collect(),
        ),
    ];
    for (label, src) in patterns {
        for h in 0..2 {
            let v: Lanes<T> = std::array::from_fn(|l| src[32 * h + l]);
            let got = sg.all_equal_tiled(&v, k).unwrap();
            for base in (0..32).step_by(size) {
                let want = v[base..base + size].iter().all(|&x| x == v[base]) as i32;
                assert!(
                    got[base..base + size].iter().all(|&g| g == want),
                    "{label} {} k={k}",
                    T::NAME
                );
            }
        }
    }
}

fn all_equal_float_contract<T: Dtype, B: SubgroupBackend, F: Fn() -> B>(mk: &F, k: u32) {
    let mut sg = Subgroup::new(mk());
    let size = 1usize << k;
    let f = |v: f64| T::of_f64(v);
    let mut one_nan = vec![f(1.0); 64];
    one_nan[17] = f(f64::NAN);
    // (label, values, expected per group of the 64 lanes)
    type Expected = Box<dyn Fn(usize) -> i32>;
    let cases: Vec<(&str, Vec<T>, Expected)> = vec![
        (
            "plus_minus_zero",
            (0..64).map(|i| f(if i & 1 == 1 { -0.0 } else { 0.0 })).collect(),
            Box::new(|_| 1),
        ),
        (
            "nan_at_group_start",
            (0..64).map(|i| f(if i % size == 0 { f64::NAN } else { 1.0 })).collect(),
            Box::new(|_| 0),
        ),
        ("one_nan_at_17", one_nan, Box::new(move |g| (g != 17 / size) as i32)),
        ("all_nan", vec![f(f64::NAN); 64], Box::new(|_| 0)),
    ];
    for (label, src, want) in cases {
        for h in 0..2 {
            let v: Lanes<T> = std::array::from_fn(|l| src[32 * h + l]);
            let got = sg.all_equal_tiled(&v, k).unwrap();
            for base in (0..32).step_by(size) {
                let w = want((32 * h + base) / size);
                assert!(
                    got[base..base + size].iter().all(|&g| g == w),
                    "{label} {} k={k} group {base}",
                    T::NAME
                );
            }
        }
    }
}

pub fn library_votes<B: SubgroupBackend, F: Fn() -> B>(mk: &F) {
    let mut sg = Subgroup::new(mk());
    for k in [1u32, 5] {
        let size = 1usize << k;
        for (label, src) in vote_patterns() {
            for h in 0..2 {
                let p: Lanes<i32> = std::array::from_fn(|l| src[32 * h + l]);
                let all = sg.all_true_tiled(&p, k).unwrap();
                let any = sg.any_true_tiled(&p, k).unwrap();
                for base in (0..32).step_by(size) {
                    let a = p[base..base + size].iter().all(|&x| x != 0) as i32;
                    let y = p[base..base + size].iter().any(|&x| x != 0) as i32;
                    assert!(
                        all[base..base + size].iter().all(|&g| g == a),
                        "all_true {label} k={k}"
                    );
                    assert!(
                        any[base..base + size].iter().all(|&g| g == y),
                        "any_true {label} k={k}"
                    );
                }
            }
        }
    }
    full_dtype!(all_equal_for, mk);
    all_equal_float_contract::<f32, _, _>(mk, 1);
    all_equal_float_contract::<f32, _, _>(mk, 5);
    all_equal_float_contract::<f64, _, _>(mk, 5);
    // the bare forms: all_true / any_true / all_equal over the whole subgroup
    let mut flag = [1i32; 32];
    assert_eq!(sg.all_true(&flag).unwrap(), [1; 32]);
    flag[16] = 0;
    assert_eq!(sg.all_true(&flag).unwrap(), [0; 32]);
    let mut flag = [0i32; 32];
    assert_eq!(sg.any_true(&flag).unwrap(), [0; 32]);
    flag[16] = 1;
    assert_eq!(sg.any_true(&flag).unwrap(), [1; 32]);
    let mut v = [7i32; 32];
    assert_eq!(sg.all_equal(&v).unwrap(), [1; 32]);
    v[10] = 8;
    assert_eq!(sg.all_equal(&v).unwrap(), [0; 32]);
}

pub fn library_ballots_and_lanemasks<B: SubgroupBackend, F: Fn() -> B>(mk: &F) {
    let mut sg = Subgroup::new(mk());
    let lane = sg.invocation_id();
    assert_eq!(sg.ballot_first_n(&[1i32; 32], 32).unwrap(), [0xFFFF_FFFF; 32]);
    assert_eq!(sg.ballot_first_n(&[0i32; 32], 32).unwrap(), [0; 32]);
    let even = sg.ballot_first_n(&lane.map(|l| 1 - l % 2), 32).unwrap();
    assert_eq!(even[0], 0x5555_5555);
    assert_eq!(sg.ballot_first_n(&[1i32; 32], 32).unwrap()[0].count_ones(), 32);
    for n in [1u32, 4, 8, 16, 24, 31, 32] {
        let want = if n == 32 { u32::MAX } else { (1 << n) - 1 };
        assert_eq!(sg.ballot_first_n(&[1i32; 32], n).unwrap(), [want; 32], "n={n}");
    }
    assert_eq!(sg.ballot_first_n(&lane.map(|l| l % 2), 16).unwrap(), [0xAAAA_AAAA & 0xFFFF; 32]);
    assert_eq!(sg.ballot(&[1i32; 32]).unwrap(), [0xFFFF_FFFFu64; 32], "wave32: high half 0");
    assert_eq!(sg.ballot(&[0i32; 32]).unwrap(), [0u64; 32]);
    assert_eq!(sg.ballot(&lane.map(|l| 1 - l % 2)).unwrap(), [0x5555_5555u64; 32]);
    assert_eq!(sg.ballot(&lane.map(|l| (l >= 32) as i32)).unwrap(), [0u64; 32], "no lane >= 32");
    // predicates of every integer dtype, and u32 values that are non-zero only in the top bit
    let odd = lane.map(|l| l % 2);
    assert_eq!(sg.ballot(&odd.map(|x| x as u32 * 0x8000_0000)).unwrap(), [0xAAAA_AAAAu64; 32]);
    assert_eq!(sg.ballot(&odd.map(|x| x as i64 * -(1 << 40))).unwrap(), [0xAAAA_AAAAu64; 32]);
    assert_eq!(sg.ballot_first_n(&odd.map(|x| x as u64), 8).unwrap(), [0xAA; 32]);
    assert_eq!(sg.all_true(&[u32::MAX; 32]).unwrap(), [1; 32]);
    assert_eq!(sg.any_true(&odd.map(|x| x == 1)).unwrap(), [1; 32]);
    // lane masks, for the lane itself and for (lane * 3 + 1) % 32
    for i in 0..32u32 {
        let lt = sg.lanemask_lt(i).unwrap();
        let le = sg.lanemask_le(i).unwrap();
        let eq = sg.lanemask_eq(i).unwrap();
        let gt = sg.lanemask_gt(i).unwrap();
        let ge = sg.lanemask_ge(i).unwrap();
        assert_eq!(lt as u64, (1u64 << i) - 1);
        assert_eq!(le as u64, ((1u64 << i) | ((1u64 << i) - 1)) & 0xFFFF_FFFF);
        assert_eq!(eq, 1 << i);
        assert_eq!(gt as u64, !((1u64 << i) | ((1u64 << i) - 1)) & 0xFFFF_FFFF);
        assert_eq!(ge as u64, !((1u64 << i) - 1) & 0xFFFF_FFFF);
        assert!(lt | eq == le && ge | lt == u32::MAX && gt & le == 0 && ge == gt | eq);
        let t = (i * 3 + 1) % 32;
        assert_eq!(sg.lanemask_lt(t).unwrap() as u64, (1u64 << t) - 1);
        assert_eq!(sg.lanemask_eq(t).unwrap(), 1 << t);
        assert_eq!(sg.lanemask_ge(t).unwrap() as u64, !((1u64 << t) - 1) & 0xFFFF_FFFF);
    }
}

pub fn library_identification<B: SubgroupBackend, F: Fn() -> B>(mk: &F) {
    let mut sg = Subgroup::new(mk());
    // test_subgroup_elect over two subgroups of a 64-lane launch: lane 0 of each, nothing else
    let mut elected = 0;
    for _ in 0..2 {
        let e = sg.elect().unwrap();
        let id = sg.invocation_id();
        for (l, &x) in e.iter().enumerate() {
            assert!(x == 0 || x == 1, "elect() returned {x}");
            assert_eq!(x == 1, id[l] == 0, "lane {l}: elected iff invocation_id() == 0");
        }
        elected += e.iter().sum::<i32>();
    }
    assert_eq!(elected, 64 / sg.group_size() as i32);
    assert!(sg.invocation_id().iter().all(|&l| (0..32).contains(&l)));
    assert_eq!((sg.group_size(), sg.log2_group_size()), (32, 5));
}

// ------------------------------------------------------------------ full-subgroup forms

/// `_check_full_matches_tiled`: `X(v)` equals `X_tiled(v, log2_group_size())` lane by lane.
pub fn library_full_matches_tiled<B: SubgroupBackend, F: Fn() -> B>(mk: &F) {
    let mut sg = Subgroup::new(mk());
    let l2 = sg.log2_group_size();
    let seq: Lanes<i32> = std::array::from_fn(|i| i as i32 + 1);
    let small: Lanes<i32> = std::array::from_fn(|i| if i % 4 == 0 { 2 } else { 1 });
    let bits: Lanes<i32> = std::array::from_fn(|i| 1 << (i % 7));
    macro_rules! same {
        ($full:ident, $tiled:ident, $v:expr) => {
            assert_eq!(sg.$full(&$v).unwrap(), sg.$tiled(&$v, l2).unwrap(), stringify!($full));
        };
    }
    same!(reduce_add, reduce_add_tiled, seq);
    same!(reduce_all_add, reduce_all_add_tiled, seq);
    same!(reduce_min, reduce_min_tiled, seq);
    same!(reduce_max, reduce_max_tiled, seq);
    same!(reduce_all_min, reduce_all_min_tiled, seq);
    same!(reduce_all_max, reduce_all_max_tiled, seq);
    same!(inclusive_add, inclusive_add_tiled, seq);
    same!(inclusive_min, inclusive_min_tiled, seq);
    same!(inclusive_max, inclusive_max_tiled, seq);
    same!(inclusive_mul, inclusive_mul_tiled, small);
    same!(inclusive_and, inclusive_and_tiled, bits);
    same!(inclusive_or, inclusive_or_tiled, bits);
    same!(inclusive_xor, inclusive_xor_tiled, bits);
    same!(exclusive_add, exclusive_add_tiled, seq);
    same!(exclusive_mul, exclusive_mul_tiled, small);
    same!(exclusive_and, exclusive_and_tiled, bits);
    same!(exclusive_or, exclusive_or_tiled, bits);
    same!(exclusive_xor, exclusive_xor_tiled, bits);
    let varied: Lanes<i32> = std::array::from_fn(|i| ((i as i32 * 7 + 11) % 23) + 1);
    let emin = sg.exclusive_min(&varied).unwrap();
    assert_eq!(emin, sg.exclusive_min_tiled(&varied, l2).unwrap());
    assert_eq!(emin[0], i32::MAX, "the dtype's max in lane 0");
    let emax = sg.exclusive_max(&varied).unwrap();
    assert_eq!(emax, sg.exclusive_max_tiled(&varied, l2).unwrap());
    assert_eq!(emax[0], i32::MIN, "the dtype's min in lane 0");
    let v: Lanes<i32> = std::array::from_fn(|i| ((i as i32 * 11 + 5) % 31) + 1);
    let h5: Lanes<i32> = std::array::from_fn(|i| (i % 5 == 0) as i32);
    let h7: Lanes<i32> = std::array::from_fn(|i| (i % 7 == 0) as i32);
    assert_eq!(
        sg.segmented_reduce_min(&v, &h5).unwrap(),
        sg.segmented_reduce_min_tiled(&v, &h5, l2).unwrap()
    );
    assert_eq!(
        sg.segmented_reduce_max(&v, &h5).unwrap(),
        sg.segmented_reduce_max_tiled(&v, &h5, l2).unwrap()
    );
    assert_eq!(
        sg.segmented_reduce_add(&seq, &h7).unwrap(),
        sg.segmented_reduce_add_tiled(&seq, &h7, l2).unwrap()
    );
    // float coverage of the wrappers (f32 and f64): reduce_add, inclusive_add, segmented add
    let f: Lanes<f32> = std::array::from_fn(|i| i as f32 + 1.0);
    assert_eq!(sg.reduce_add(&f).unwrap(), sg.reduce_add_tiled(&f, l2).unwrap());
    assert_eq!(sg.inclusive_add(&f).unwrap(), sg.inclusive_add_tiled(&f, l2).unwrap());
    let d: Lanes<f64> = std::array::from_fn(|i| (i as f64 + 1.0) * 1.5);
    assert_eq!(sg.reduce_add(&d).unwrap(), sg.reduce_add_tiled(&d, l2).unwrap());
    assert_eq!(sg.inclusive_add(&d).unwrap(), sg.inclusive_add_tiled(&d, l2).unwrap());
    assert_eq!(
        sg.segmented_reduce_add(&d, &h7).unwrap(),
        sg.segmented_reduce_add_tiled(&d, &h7, l2).unwrap()
    );
}

// ------------------------------------------------------------------ sort

/// `_check_sort_kv`: each tile sorted lex-ascending on `(key, value)`.
fn check_sort<K: Value + PartialOrd, V: Value + PartialOrd, B: SubgroupBackend>(
    sg: &mut Subgroup<B>,
    k: u32,
    keys: &[K],
    vals: &[V],
) -> Vec<(K, V)> {
    let mut out = Vec::new();
    for h in 0..keys.len() / 32 {
        let key: Lanes<K> = std::array::from_fn(|l| keys[32 * h + l]);
        let val: Lanes<V> = std::array::from_fn(|l| vals[32 * h + l]);
        let (sk, sv) = sg.bitonic_sort_kv_tiled(&key, &val, k).unwrap();
        let tile = 1 << k;
        for base in (0..32).step_by(tile) {
            let mut want: Vec<(K, V)> = (base..base + tile).map(|i| (key[i], val[i])).collect();
            want.sort_by(|a, b| a.partial_cmp(b).expect("no NaN in these inputs"));
            for (i, w) in want.iter().enumerate() {
                assert!(
                    (sk[base + i], sv[base + i]) == *w,
                    "tile at {base} lane {i}: {:?} != {w:?}",
                    (sk[base + i], sv[base + i])
                );
            }
        }
        out.extend(sk.iter().copied().zip(sv.iter().copied()));
    }
    out
}

pub fn library_sort<B: SubgroupBackend, F: Fn() -> B>(mk: &F) {
    let mut sg = Subgroup::new(mk());
    // log2_size 5, i32 keys and values, two subgroups with the same key set in other orders
    let keys: Vec<i32> = (0..64).map(|i| (i * 13 + 7) % 32).collect();
    let vals: Vec<i32> = (0..64).collect();
    check_sort(&mut sg, 5, &keys, &vals);
    // lex tiebreak: every key twice, values key*2 and key*2+1, scrambled
    let pairs: Vec<(i32, i32)> = (0..16).flat_map(|k| [(k, 2 * k), (k, 2 * k + 1)]).collect();
    let order: Vec<usize> = (0..32).map(|i| (i * 11 + 5) % 32).collect();
    let keys: Vec<i32> = order.iter().map(|&o| pairs[o].0).collect();
    let vals: Vec<i32> = order.iter().map(|&o| pairs[o].1).collect();
    check_sort(&mut sg, 5, &keys, &vals);
    // the sentinel-padded short input: 11 real pairs, INT_MAX keys after them
    let n = 11;
    let keys: Vec<i32> =
        (0..32).map(|i| if i < n { (i as i32 * 7 + 13) % 100 } else { i32::MAX }).collect();
    let vals: Vec<i32> = (0..32).map(|i| if i < n { i as i32 + 1000 } else { -1 }).collect();
    let out = check_sort(&mut sg, 5, &keys, &vals);
    assert!(out[..n].iter().all(|&(k, v)| k != i32::MAX && v >= 1000), "the real data first");
    assert!(out[n..].iter().all(|&(k, _)| k == i32::MAX), "the sentinels at the tail");
    // log2_size 3: four independent 8-lane sorts
    let keys: Vec<i32> = (0..32).map(|i| (i * 17 + (i / 8) * 3) % 64).collect();
    let vals: Vec<i32> = (0..32).collect();
    check_sort(&mut sg, 3, &keys, &vals);
    // f32 keys and i32 values (Genesis's contact sort), one duplicate key
    let mut keys: Vec<f32> = (0..32).map(|i| ((i * 11 + 5) % 64) as f32 - 32.0).collect();
    keys[5] = 7.5;
    keys[19] = 7.5;
    check_sort(&mut sg, 5, &keys, &(0..32).collect::<Vec<i32>>());
    // the bare form equals the tiled form at log2_group_size()
    let key: Lanes<i32> = std::array::from_fn(|i| (i as i32 * 13 + 7) % 128);
    let val: Lanes<i32> = std::array::from_fn(|i| i as i32);
    let full = sg.bitonic_sort_kv(&key, &val).unwrap();
    assert_eq!(full, sg.bitonic_sort_kv_tiled(&key, &val, sg.log2_group_size()).unwrap());
    let mut want: Vec<(i32, i32)> = key.iter().copied().zip(val.iter().copied()).collect();
    want.sort();
    assert_eq!(full.0.iter().copied().zip(full.1.iter().copied()).collect::<Vec<_>>(), want);
}

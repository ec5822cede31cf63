//! Straightforward implementations of what each API call must return, on plain arrays.

use std::ops::Range;

/// The `2^k`-lane tiles of the subgroup.
pub fn tiles(k: u32) -> impl Iterator<Item = Range<usize>> {
    let size = 1usize << k;
    (0..32).step_by(size).map(move |b| b..b + size)
}

/// Left-to-right fold.
pub fn fold<T: Copy>(v: &[T], f: impl Fn(T, T) -> T) -> T {
    v[1..].iter().fold(v[0], |a, &b| f(a, b))
}

/// The doc's shuffle-down tree order: pair element `i` with `i + n/2`, halve, repeat.
pub fn tree<T: Copy>(v: &[T], f: impl Fn(T, T) -> T + Copy) -> T {
    if v.len() == 1 {
        return v[0];
    }
    let h = v.len() / 2;
    let pairs: Vec<T> = (0..h).map(|i| f(v[i], v[i + h])).collect();
    tree(&pairs, f)
}

/// Sequential inclusive scan.
pub fn scan<T: Copy>(v: &[T], f: impl Fn(T, T) -> T) -> Vec<T> {
    let mut out = Vec::with_capacity(v.len());
    for (i, &x) in v.iter().enumerate() {
        out.push(if i == 0 { x } else { f(out[i - 1], x) });
    }
    out
}

/// Hillis–Steele inclusive scan order: at distance d, `x[i] = f(x[i-d], x[i])` for `i >= d`.
pub fn hillis_steele<T: Copy>(v: &[T], f: impl Fn(T, T) -> T) -> Vec<T> {
    let mut x = v.to_vec();
    let mut d = 1;
    while d < x.len() {
        let prev = x.clone();
        for i in d..x.len() {
            x[i] = f(prev[i - d], prev[i]);
        }
        d *= 2;
    }
    x
}

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

/// The butterfly order of `reduce_all_*` (masks 1, 2, 4, ...): adjacent pairs first, then pairs
/// of pairs.
pub fn butterfly<T: Copy>(v: &[T], f: impl Fn(T, T) -> T + Copy) -> T {
    if v.len() == 1 {
        return v[0];
    }
    let pairs: Vec<T> = v.chunks(2).map(|p| f(p[0], p[1])).collect();
    butterfly(&pairs, f)
}

/// quadrants' segmented reduction, straight from its docstring: lane `i` gets the fold of
/// `v[head_below ..= i]`, `head_below` the last lane `<= i` of the tile with a set head (the
/// tile's first lane if none).
pub fn segmented<T: Copy>(v: &[T], head: &[bool], f: impl Fn(T, T) -> T) -> Vec<T> {
    (0..v.len())
        .map(|i| {
            let h = (0..=i).rev().find(|&j| head[j]).unwrap_or(0);
            fold(&v[h..=i], &f)
        })
        .collect()
}

/// The same association as quadrants' Hillis-Steele loop for floats: at distance `d`, a lane at
/// least `d` past its head takes `f(own, value d lanes below)`.
pub fn segmented_hillis_steele<T: Copy>(v: &[T], head: &[bool], f: impl Fn(T, T) -> T) -> Vec<T> {
    let dist: Vec<usize> =
        (0..v.len()).map(|i| i - (0..=i).rev().find(|&j| head[j]).unwrap_or(0)).collect();
    let mut x = v.to_vec();
    let mut d = 1;
    while d < x.len() {
        let prev = x.clone();
        for i in d..x.len() {
            if dist[i] >= d {
                x[i] = f(prev[i], prev[i - d]);
            }
        }
        d *= 2;
    }
    x
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

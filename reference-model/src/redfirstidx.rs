//! `redfirstidx` — index of the first participating lane (PISA §7.3).
//!
//! Every active lane receives the index of the lowest set bit of `src0 & %activemask`. The spec's
//! loop does not terminate when that mask is empty; the model returns `N` (32 for PISA), the value
//! a count-trailing-zeros unit with an empty flag produces (`docs/spec-notes.md`).

/// The index every active lane receives, for an `N`-lane unit (`p` = participating lanes).
#[inline(always)]
pub(crate) fn first<const N: usize>(p: u32) -> u32 {
    if p == 0 {
        N as u32
    } else {
        p.trailing_zeros()
    }
}

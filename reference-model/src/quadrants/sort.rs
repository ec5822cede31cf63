//! `bitonic_sort_kv` / `bitonic_sort_kv_tiled`: an in-register key/value sort, one pair per lane,
//! ascending on the `(key, value)` lexicographic order (ties on `key` in ascending `value`).
//!
//! The classic bitonic network on `shfl.xor`: for stage size `2^s` (s = 1..=log2_size) and
//! stride `2^j` (j = s-1..=0) every lane exchanges with `lane ^ stride` and keeps the smaller or
//! the larger pair. Each step shuffles the key and the value: `log2_size * (log2_size + 1)`
//! shuffles for 32-bit types (30 at `log2_size = 5`), twice that for each 64-bit operand.
//! Comparisons are native `<` / `==`, so a NaN key compares false both ways and stays where the
//! network leaves it; the output is still a permutation of the input.

use super::{check_log2, Lanes, Result, Subgroup, Value, LOG2_GROUP_SIZE};
use crate::backend::SubgroupBackend;
use crate::op::{ShflMode, LANES};

/// `(ka, va) < (kb, vb)` lexicographically, with native comparisons.
fn less<K: PartialOrd, V: PartialOrd>(ka: K, va: V, kb: K, vb: V) -> bool {
    ka < kb || (ka == kb && va < vb)
}

impl<B: SubgroupBackend> Subgroup<B> {
    /// Sorts the subgroup's 32 `(key, value)` pairs.
    pub fn bitonic_sort_kv<K: Value + PartialOrd, V: Value + PartialOrd>(
        &mut self,
        key: &Lanes<K>,
        value: &Lanes<V>,
    ) -> Result<(Lanes<K>, Lanes<V>)> {
        self.bitonic_sort_kv_tiled(key, value, LOG2_GROUP_SIZE)
    }

    /// Sorts each `2^log2_size`-lane tile independently.
    pub fn bitonic_sort_kv_tiled<K: Value + PartialOrd, V: Value + PartialOrd>(
        &mut self,
        key: &Lanes<K>,
        value: &Lanes<V>,
        log2_size: u32,
    ) -> Result<(Lanes<K>, Lanes<V>)> {
        check_log2("bitonic_sort_kv_tiled", log2_size)?;
        let (mut k, mut v) = (*key, *value);
        for s in 1..=log2_size {
            let size = 1usize << s;
            for j in (0..s).rev() {
                let stride = 1usize << j;
                let pk = self.shfl(ShflMode::Xor, false, &k, [stride as u32; LANES])?;
                let pv = self.shfl(ShflMode::Xor, false, &v, [stride as u32; LANES])?;
                self.lane_ops(2); // compare, select
                for i in 0..LANES {
                    // the last stage merges the whole tile ascending; earlier ones alternate by bit s
                    let ascending = s == log2_size || i & size == 0;
                    let lower = i & stride == 0;
                    // exchange only on a strict lex `<` either way: with NaN both tests are
                    // false and the pair stays, so the output is a permutation of the input
                    // (docs/spec-notes.md E13: quadrants' docstring, not its code, decides)
                    let partner_less = less(pk[i], pv[i], k[i], v[i]);
                    let mine_less = less(k[i], v[i], pk[i], pv[i]);
                    let take = if lower == ascending { partner_less } else { mine_less };
                    if take {
                        k[i] = pk[i];
                        v[i] = pv[i];
                    }
                }
            }
        }
        Ok((k, v))
    }
}

//! The quadrants `qd.simt.subgroup` API (`docs/spec/quadrants-subgroup.md`) implemented on the
//! PISA sub-group instructions, on any [`SubgroupBackend`] (the reference model, or the Verilated
//! RTL in `pisa-sim`).
//!
//! A [`Subgroup`] holds one wave32 subgroup's backend. Every API call takes per-lane values
//! (`[T; 32]`, lane `i` = invocation `i`) and lowers to sub-group instructions the way hardware
//! would issue them; lane-local arithmetic (adds, compares, selects) runs on the host and is
//! counted as `lane_ops`. [`Counts`] shows what each call issued, so the costs the quadrants doc
//! states can be checked (see `docs/spec-notes.md` §E for where they differ and why).
//!
//! | API | lowering |
//! |---|---|
//! | `shuffle`, `shuffle_{up,down,xor}`, `broadcast[_first]` | one `shfl.{idx,up,dn,xor}` per 32-bit word |
//! | `elect` | `invocation_id() == 0`, no instruction |
//! | `ballot*`, `{all,any}_true*` | one `ired.or`/`ired.and` of lane bits; tiles extracted lane-locally |
//! | `all_equal*` | `shfl.idx.sg` of the tile's lane 0, native `==`, one `ired` vote |
//! | `reduce*_add/min/max` | `ired.sum/smin/smax/umin/umax` (i32, u32) or `fred.min/max` (f32) when a tile needs at most `log2_size` of them; otherwise the library's `shfl.dn` tree (`reduce_*`) or `shfl.xor` butterfly of masks 1, 2, 4, ... (`reduce_all_*`) |
//! | `segmented_reduce_*` | a ballot of head flags, then a `shfl.up.sg` scan guarded by each lane's distance from its head |
//! | `inclusive_*` / `exclusive_*` | `shfl.up.sg` Hillis–Steele scan (+1 `shfl.up` and a select for exclusive) |
//! | `bitonic_sort_kv*` | `shfl.xor` compare-exchange network, key and value per step |
//!
//! ```rust
//! use pisa_model::quadrants::Subgroup;
//! let mut sg = Subgroup::new(pisa_model::RefBackend);
//! let v: [f32; 32] = std::array::from_fn(|i| i as f32);
//! let total = sg.reduce_all_add(&v).unwrap(); // 5 shfl.xor + 5 adds
//! assert_eq!(total, [496.0; 32]);
//! let ids: [i32; 32] = std::array::from_fn(|i| i as i32);
//! let (k, idx) = sg.bitonic_sort_kv(&v, &ids).unwrap(); // 30 shfl
//! assert_eq!((k, idx), (v, ids));
//! assert_eq!(sg.counts().shfl, 35);
//! ```

mod ident;
mod movement;
mod reduce;
mod scan;
mod sort;
pub mod value;
mod vote;

pub use movement::LaneArg;
pub use value::{Flag, Int, Num, Value};

use crate::backend::{BackendError, SubgroupBackend};
use crate::op::{SgOp, ShflMode, LANES};
use crate::unit::SgInputs;

/// Lanes in the subgroup (wave32).
pub const GROUP_SIZE: usize = LANES;
/// `log2(GROUP_SIZE)`.
pub const LOG2_GROUP_SIZE: u32 = 5;
const FULL: u32 = u32::MAX;

/// One value per lane.
pub type Lanes<T> = [T; LANES];

/// Instructions issued since the last [`Subgroup::reset_counts`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub shfl: u64,
    pub fred: u64,
    pub ired: u64,
    pub redfirstidx: u64,
    /// Lane-local vector operations done on the host (add, compare, select, ...).
    pub lane_ops: u64,
}

impl Counts {
    /// Sub-group instructions of every kind.
    pub fn subgroup(&self) -> u64 {
        self.shfl + self.fred + self.ired + self.redfirstidx
    }
}

/// A bad API call (rejected before anything is issued) or a backend failure.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ApiError {
    #[error("{op}: log2_size {log2_size} is out of range 0..=5 (the subgroup has 32 lanes)")]
    Log2Size { op: &'static str, log2_size: u32 },
    #[error(
        "ballot_first_n: n = {0} is out of range 1..=32 (the result is a u32 covering lanes [0, n))"
    )]
    BallotN(u32),
    #[error("{op}: lane id {lane} is out of range 0..=31")]
    LaneId { op: &'static str, lane: u32 },
    #[error(transparent)]
    Backend(#[from] BackendError),
}

pub type Result<T> = std::result::Result<T, ApiError>;

/// One subgroup of 32 invocations executing on a backend.
pub struct Subgroup<B: SubgroupBackend> {
    backend: B,
    counts: Counts,
}

/// The lane id of every lane.
pub(crate) fn lane_ids() -> Lanes<i32> {
    std::array::from_fn(|i| i as i32)
}

pub(crate) fn check_log2(op: &'static str, log2_size: u32) -> Result<()> {
    if log2_size > LOG2_GROUP_SIZE {
        return Err(ApiError::Log2Size { op, log2_size });
    }
    Ok(())
}

/// The segmask field of a `2^k`-lane tile (`11000` for 8 lanes).
pub(crate) fn segmask(k: u32) -> u32 {
    0x1F & !((1u32 << k) - 1)
}

/// `src1` of a `.sg` shuffle confined to `2^k`-lane tiles: `.up` clamps at the tile's first lane,
/// every other mode at its last lane.
pub(crate) fn tile_src1(mode: ShflMode, k: u32, offset: u32) -> u32 {
    let cval = if mode == ShflMode::Up { 0 } else { 0x1F };
    offset | cval << 8 | segmask(k) << 16
}

impl<B: SubgroupBackend> Subgroup<B> {
    pub fn new(backend: B) -> Self {
        Subgroup { backend, counts: Counts::default() }
    }

    /// Instructions issued since creation or the last reset.
    pub fn counts(&self) -> Counts {
        self.counts
    }

    pub fn reset_counts(&mut self) {
        self.counts = Counts::default();
    }

    pub fn backend(&mut self) -> &mut B {
        &mut self.backend
    }

    /// Counts `n` lane-local vector operations done on the host.
    pub(crate) fn lane_ops(&mut self, n: u64) {
        self.counts.lane_ops += n;
    }

    /// Issues one instruction with every lane active; returns `dst` and the write enables.
    pub(crate) fn issue(
        &mut self,
        op: SgOp,
        src0: Lanes<u32>,
        src1: Lanes<u32>,
        mask: u32,
    ) -> Result<(Lanes<u32>, u32)> {
        match op {
            SgOp::Shfl { .. } => self.counts.shfl += 1,
            SgOp::Fred { .. } => self.counts.fred += 1,
            SgOp::Ired { .. } => self.counts.ired += 1,
            SgOp::RedFirstIdx => self.counts.redfirstidx += 1,
        }
        let out = self.backend.issue(op, &SgInputs { src0, src1, mask, activemask: FULL })?;
        Ok((out.dst, out.wen))
    }

    /// A shuffle of every word of `v` (two instructions for 64-bit types), all lanes participating.
    pub(crate) fn shfl<T: Value>(
        &mut self,
        mode: ShflMode,
        sg: bool,
        v: &Lanes<T>,
        src1: Lanes<u32>,
    ) -> Result<Lanes<T>> {
        let op = SgOp::Shfl { mode, sg };
        let (lo, _) = self.issue(op, v.map(Value::lo), src1, FULL)?;
        let hi = if T::WORDS == 2 {
            self.issue(op, v.map(Value::hi), src1, FULL)?.0
        } else {
            [0; LANES]
        };
        Ok(std::array::from_fn(|i| T::from_words(lo[i], hi[i])))
    }

    /// One reduction instruction `op` per `2^k`-lane tile (32-bit values); every lane gets its
    /// tile's result.
    pub(crate) fn per_tile<T: Value>(
        &mut self,
        op: SgOp,
        v: &Lanes<T>,
        k: u32,
    ) -> Result<Lanes<T>> {
        let src0 = v.map(Value::lo);
        let size = 1u32 << k;
        let mut out = [0u32; LANES];
        for base in (0..LANES as u32).step_by(size as usize) {
            let tile = (((1u64 << size) - 1) << base) as u32;
            let (dst, wen) = self.issue(op, src0, [0; LANES], tile)?;
            for (i, o) in out.iter_mut().enumerate() {
                if wen >> i & 1 != 0 {
                    *o = dst[i];
                }
            }
        }
        Ok(out.map(|w| T::from_words(w, 0)))
    }
}

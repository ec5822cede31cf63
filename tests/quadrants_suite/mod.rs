//! The quadrants subgroup API test bodies, generic over the backend. `quadrants_suite!(name, ctor)`
//! expands to one `#[test]` per check, so every backend runs the same tests unchanged.
//!
//! Expected values come from independent straightforward implementations on plain arrays
//! (`reference`): a sequential fold per tile for exact operations, and for float add/mul the
//! association order the doc specifies (the shuffle tree for reductions, Hillis–Steele for
//! scans), written directly over array halves and prefixes.

#![allow(dead_code)]

pub mod checks;
pub mod library;
pub mod reference;
pub mod values;

#[macro_export]
macro_rules! quadrants_suite {
    ($ctor:expr) => {
        quadrants_suite!(@tests $ctor;
            doc_examples, data_movement, shuffle_offsets_and_indices, identification, ballots,
            votes_tiled, all_equal_semantics, lanemasks, reductions, reduction_costs,
            segmented_reductions, scans, scan_order_non_commutative, scan_costs, bitonic_sort,
            bitonic_sort_sentinels_and_duplicates, bad_use_is_rejected, deprecated_aliases);
        quadrants_suite!(@library $ctor;
            library_data_movement, library_reductions, library_segmented, library_scans,
            library_noncommutative_scan, library_votes, library_ballots_and_lanemasks,
            library_identification, library_full_matches_tiled, library_sort);
    };
    (@library $ctor:expr; $($name:ident),*) => {
        $(
            #[test]
            fn $name() {
                $crate::quadrants_suite::library::$name(&$ctor);
            }
        )*
    };
    (@tests $ctor:expr; $($name:ident),*) => {
        $(
            #[test]
            fn $name() {
                $crate::quadrants_suite::checks::$name(&$ctor);
            }
        )*
    };
}

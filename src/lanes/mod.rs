//! Lanes: examples packed 64 to a `u64` word ([`BitMatrix`]) and the bit-parallel,
//! tiled, multi-core evaluator ([`eval_lanes`]) used for both `f` and `R[f]`.

mod eval;
pub mod matrix;
mod reverse;
mod simd;
mod words;

pub(crate) use eval::run_tiles;
pub use eval::{EvalParams, MAX_TILE_WORDS, Program, TILE_BYTES, WordKernel, eval_lanes};
pub use matrix::{BitMatrix, LANES, all_patterns, tail_mask, words_for};
pub use reverse::{ReverseProgram, WordReverse};
pub(crate) use simd::best as best_simd;
pub use simd::{SIMD_ENV, SimdLevel};
pub use words::WordMatrix;

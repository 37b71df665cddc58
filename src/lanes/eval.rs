//! Bit-parallel, tiled evaluation: 64 examples per `u64` word, gate-major over a tile of
//! words small enough to stay in cache, tiles spread over cores with rayon.

use super::matrix::BitMatrix;
use crate::circuit::{Circuit, Signature, WireId};
use rayon::prelude::*;

/// A gate type that can be evaluated on lane words.
pub trait WordKernel: Signature {
    /// Writes the gate's output for one tile. `vals` holds the tile of every wire defined
    /// so far (`tw` words per wire, wire-major); `fanins` index into it.
    fn eval_words(&self, vals: &[u64], fanins: &[WireId], tw: usize, out: &mut [u64], scratch: &mut Vec<u64>);
}

/// Bytes of per-tile working set the evaluator aims for (about an L2 cache).
pub const TILE_BYTES: usize = 1 << 20;

/// Options for [`eval_lanes`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EvalParams {
    /// Words per tile; `0` picks one from [`TILE_BYTES`].
    pub tile_words: usize,
    /// Spread tiles over the rayon pool.
    pub parallel: bool,
}

impl Default for EvalParams {
    fn default() -> Self {
        Self { tile_words: 0, parallel: true }
    }
}

/// The tile width used for `c` under `params`.
#[must_use]
pub fn tile_words_for<S: Signature>(c: &Circuit<S>, params: &EvalParams, words: usize) -> usize {
    let tw = if params.tile_words > 0 {
        params.tile_words
    } else {
        (TILE_BYTES / 8 / c.n_wires().max(1)).clamp(1, 64)
    };
    tw.min(words.max(1))
}

/// Evaluates `c` on every example: `inputs` has one row per circuit input (parameters
/// first, usually [`BitMatrix::broadcast`]); the result has one row per output.
///
/// # Panics
/// If `inputs` does not have one row per circuit input.
#[must_use]
pub fn eval_lanes<S: WordKernel>(c: &Circuit<S>, inputs: &BitMatrix, params: &EvalParams) -> BitMatrix {
    assert_eq!(inputs.rows(), c.n_inputs(), "one input row per circuit input");
    let words = inputs.words();
    let mut out = BitMatrix::zeros(c.n_outputs(), inputs.examples());
    if words == 0 {
        return out;
    }
    let tw = tile_words_for(c, params, words);
    let n_tiles = words.div_ceil(tw);
    let run = |scratch: &mut (Vec<u64>, Vec<u64>), t: usize| {
        let w0 = t * tw;
        let w1 = (w0 + tw).min(words);
        eval_tile(c, inputs, w0, w1, tw, scratch)
    };
    let tiles: Vec<Vec<u64>> = if params.parallel && n_tiles > 1 {
        (0..n_tiles).into_par_iter().map_init(|| (Vec::new(), Vec::new()), run).collect()
    } else {
        let mut scratch = (Vec::new(), Vec::new());
        (0..n_tiles).map(|t| run(&mut scratch, t)).collect()
    };
    for (t, tile) in tiles.iter().enumerate() {
        let w0 = t * tw;
        let w1 = (w0 + tw).min(words);
        for r in 0..c.n_outputs() {
            out.row_mut(r)[w0..w1].copy_from_slice(&tile[r * tw..r * tw + (w1 - w0)]);
        }
    }
    for r in 0..c.n_outputs() {
        out.clear_tail(r);
    }
    out
}

/// Evaluates one tile (words `w0..w1`, padded to `tw`); returns `tw` words per output.
fn eval_tile<S: WordKernel>(
    c: &Circuit<S>,
    inputs: &BitMatrix,
    w0: usize,
    w1: usize,
    tw: usize,
    (vals, scratch): &mut (Vec<u64>, Vec<u64>),
) -> Vec<u64> {
    vals.clear();
    vals.resize(c.n_wires() * tw, 0);
    for r in 0..c.n_inputs() {
        vals[r * tw..r * tw + (w1 - w0)].copy_from_slice(&inputs.row(r)[w0..w1]);
    }
    let base = c.n_inputs();
    for (g, op, fanins) in c.gates() {
        let at = (base + g.index()) * tw;
        let (before, rest) = vals.split_at_mut(at);
        op.eval_words(before, fanins, tw, &mut rest[..tw], scratch);
    }
    let mut out = Vec::with_capacity(c.n_outputs() * tw);
    for w in c.outputs() {
        out.extend_from_slice(&vals[w.index() * tw..w.index() * tw + tw]);
    }
    out
}

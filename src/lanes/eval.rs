//! Bit-parallel, tiled evaluation: 64 examples per `u64` word, gate-major over a tile of
//! words small enough to stay in cache, tiles spread over cores with rayon.
//!
//! A circuit is first compiled into a [`Program`]: every wire gets a row slot, and a slot
//! is reused once the last gate reading its wire has run, so the working set is the
//! number of wires live at once rather than the circuit size, and tiles can be wide. The
//! tile loop is compiled three times (AVX-512, AVX2, portable) and picked at run time.

use super::matrix::BitMatrix;
use super::words::WordMatrix;
use crate::circuit::{Circuit, Signature};
use rayon::prelude::*;

/// A gate type that can be evaluated on lane words.
pub trait WordKernel: Signature {
    /// Writes the gate's output for one tile into `out` (`tw` words). `rows(i)` is the
    /// tile of the gate's `i`-th fan-in.
    fn eval_words<'a>(
        &self,
        rows: &impl Fn(usize) -> &'a [u64],
        tw: usize,
        out: &mut [u64],
        scratch: &mut Vec<u64>,
    );
}

/// Bytes of per-tile working set the evaluator aims for. Circuits with few live wires
/// hit [`MAX_TILE_WORDS`] first and stay in L2; wide ones (reverse derivatives, whose
/// forward values stay live) get tiles of at least a few dozen words from L3, which
/// measured faster than L2-sized tiles of a handful of words.
pub const TILE_BYTES: usize = 1 << 22;

/// Largest tile, in words.
pub const MAX_TILE_WORDS: usize = 256;

/// Options for evaluation.
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

/// A circuit compiled for lane evaluation: gates with slot-numbered fan-ins.
#[derive(Clone, Debug)]
pub struct Program<S> {
    ops: Vec<S>,
    /// Per gate: output slot, then the slots of up to three fan-ins (the common case).
    slots: Vec<[u32; 4]>,
    /// Per gate: start of its fan-in slots in `fanin_slots` (read for fan-ins past three).
    fanin_start: Vec<u32>,
    fanin_slots: Vec<u32>,
    input_slots: Vec<u32>,
    output_slots: Vec<u32>,
    n_slots: usize,
}

impl<S: WordKernel> Program<S> {
    /// Compiles `c`, assigning slots by liveness.
    #[must_use]
    pub fn new(c: &Circuit<S>) -> Self {
        const FOREVER: usize = usize::MAX;
        let n_in = c.n_inputs();
        // Last reader of each wire (gate index), or FOREVER for outputs.
        let mut last = vec![None::<usize>; c.n_wires()];
        for (g, _, fanins) in c.gates() {
            for w in fanins {
                last[w.index()] = Some(g.index());
            }
        }
        for w in c.outputs() {
            last[w.index()] = Some(FOREVER);
        }
        let mut free: Vec<u32> = Vec::new();
        let mut n_slots = 0u32;
        let mut alloc = |free: &mut Vec<u32>| {
            free.pop().unwrap_or_else(|| {
                n_slots += 1;
                n_slots - 1
            })
        };
        let mut slot = vec![u32::MAX; c.n_wires()];
        let input_slots: Vec<u32> = (0..n_in)
            .map(|i| {
                let s = alloc(&mut free);
                slot[i] = s;
                s
            })
            .collect();
        // Inputs nobody reads give their slot back at once.
        for i in 0..n_in {
            if last[i].is_none() {
                free.push(slot[i]);
            }
        }
        let mut ops = Vec::with_capacity(c.n_gates());
        let mut fanin_start = vec![0u32];
        let mut fanin_slots = Vec::new();
        let mut slots = Vec::with_capacity(c.n_gates());
        for (g, op, fanins) in c.gates() {
            ops.push(op.clone());
            let mut quad = [0u32; 4];
            for (q, w) in quad[1..].iter_mut().zip(fanins) {
                *q = slot[w.index()];
            }
            fanin_slots.extend(fanins.iter().map(|w| slot[w.index()]));
            fanin_start.push(fanin_slots.len() as u32);
            // The output slot is taken before the fan-ins die, so it never aliases them.
            let w = c.gate_wire(g).index();
            let s = alloc(&mut free);
            slot[w] = s;
            quad[0] = s;
            slots.push(quad);
            for f in fanins {
                if last[f.index()] == Some(g.index()) {
                    free.push(slot[f.index()]);
                    last[f.index()] = None;
                }
            }
            if last[w].is_none() {
                free.push(s);
            }
        }
        let output_slots = c.outputs().iter().map(|w| slot[w.index()]).collect();
        Self { ops, slots, fanin_start, fanin_slots, input_slots, output_slots, n_slots: n_slots as usize }
    }

    /// Row slots the program needs per tile.
    #[must_use]
    pub fn n_slots(&self) -> usize {
        self.n_slots
    }

    /// Number of circuit inputs.
    #[must_use]
    pub fn n_inputs(&self) -> usize {
        self.input_slots.len()
    }

    /// Number of circuit outputs.
    #[must_use]
    pub fn n_outputs(&self) -> usize {
        self.output_slots.len()
    }

    /// The tile width used under `params` for `words` words of data.
    #[must_use]
    pub fn tile_words(&self, params: &EvalParams, words: usize) -> usize {
        let tw = if params.tile_words > 0 {
            params.tile_words
        } else {
            (TILE_BYTES / 8 / self.n_slots.max(1)).clamp(1, MAX_TILE_WORDS)
        };
        tw.min(words.max(1))
    }

    /// Evaluates on every example: `inputs` has one row per circuit input (parameters
    /// first, usually [`BitMatrix::broadcast`]); the result has one row per output.
    ///
    /// # Panics
    /// If `inputs` does not have one row per circuit input.
    #[must_use]
    pub fn eval(&self, inputs: &BitMatrix, params: &EvalParams) -> BitMatrix {
        assert_eq!(inputs.rows(), self.n_inputs(), "one input row per circuit input");
        let tw = self.tile_words(params, inputs.words());
        let rows: Vec<&[u64]> = (0..inputs.rows()).map(|r| inputs.row(r)).collect();
        run_tiles(
            self.n_outputs(),
            inputs.examples(),
            tw,
            params.parallel,
            |scratch: &mut (Vec<u64>, Vec<u64>), w0, w1| self.tile(&rows, w0, w1, tw, scratch),
        )
    }

    /// Evaluates on word data (one value per example, for ring circuits): `inputs` has
    /// one row per circuit input; the result one row per output.
    ///
    /// # Panics
    /// If `inputs` does not have one row per circuit input.
    #[must_use]
    pub fn eval_words(&self, inputs: &WordMatrix, params: &EvalParams) -> WordMatrix {
        assert_eq!(inputs.rows(), self.n_inputs(), "one input row per circuit input");
        let tw = self.tile_words(params, inputs.examples());
        let rows: Vec<&[u64]> = (0..inputs.rows()).map(|r| inputs.row(r)).collect();
        let data = tile_rows(
            self.n_outputs(),
            inputs.examples(),
            tw,
            params.parallel,
            |scratch: &mut (Vec<u64>, Vec<u64>), w0, w1| self.tile(&rows, w0, w1, tw, scratch),
        );
        WordMatrix::from_raw(self.n_outputs(), inputs.examples(), data)
    }

    /// Evaluates one tile (words `w0..w1`, padded to `tw`); returns `tw` words per output.
    fn tile(
        &self,
        inputs: &[&[u64]],
        w0: usize,
        w1: usize,
        tw: usize,
        (vals, scratch): &mut (Vec<u64>, Vec<u64>),
    ) -> Vec<u64> {
        // Every slot is written before it is read (stale words past `w1` in a partial
        // tile only feed lanes that are never copied out), so no clearing between tiles.
        vals.resize(self.n_slots * tw, 0);
        for (r, &s) in self.input_slots.iter().enumerate() {
            let s = s as usize;
            vals[s * tw..s * tw + (w1 - w0)].copy_from_slice(&inputs[r][w0..w1]);
        }
        super::simd::best(
            #[inline(always)]
            || self.gates(vals, tw, scratch),
        );
        let mut out = Vec::with_capacity(self.n_outputs() * tw);
        for &s in &self.output_slots {
            let s = s as usize;
            out.extend_from_slice(&vals[s * tw..s * tw + tw]);
        }
        out
    }

    /// Runs every gate over one tile held in `vals` (`tw` words per slot).
    #[inline(always)]
    fn gates(&self, vals: &mut [u64], tw: usize, scratch: &mut Vec<u64>) {
        let base = vals.as_mut_ptr();
        let len = vals.len();
        for (g, (op, quad)) in self.ops.iter().zip(&self.slots).enumerate() {
            let o = quad[0] as usize * tw;
            debug_assert!(o + tw <= len);
            let start = self.fanin_start[g] as usize;
            // SAFETY: slots are disjoint `tw`-word rows inside `vals`, and a gate's output
            // slot differs from each of its fan-in slots (allocated before they are freed),
            // so the mutable output row never overlaps a fan-in row being read.
            let out = unsafe { std::slice::from_raw_parts_mut(base.add(o), tw) };
            let rows = |i: usize| {
                let s = if i < 3 { quad[i + 1] } else { self.fanin_slots[start + i] } as usize * tw;
                debug_assert!(s + tw <= len && s != o);
                unsafe { std::slice::from_raw_parts(base.add(s).cast_const(), tw) }
            };
            op.eval_words(&rows, tw, out, scratch);
        }
    }
}

/// Runs `tile(scratch, w0, w1)` over the word ranges of `examples` lanes in tiles of
/// `tw` words (on the rayon pool when `parallel`), each returning `tw` words for each of
/// `rows` output rows, and assembles the rows into a bit matrix. Scratch state is reused
/// per thread.
pub(crate) fn run_tiles<B: Default + Send>(
    rows: usize,
    examples: usize,
    tw: usize,
    parallel: bool,
    tile: impl Fn(&mut B, usize, usize) -> Vec<u64> + Sync,
) -> BitMatrix {
    let words = super::matrix::words_for(examples);
    let data = tile_rows(rows, words, tw, parallel, tile);
    let mut out = BitMatrix::zeros(rows, examples);
    for r in 0..rows {
        out.row_mut(r).copy_from_slice(&data[r * words..(r + 1) * words]);
        out.clear_tail(r);
    }
    out
}

/// The tile loop behind [`run_tiles`] and word evaluation: `rows x words` row-major.
fn tile_rows<B: Default + Send>(
    rows: usize,
    words: usize,
    tw: usize,
    parallel: bool,
    tile: impl Fn(&mut B, usize, usize) -> Vec<u64> + Sync,
) -> Vec<u64> {
    let mut out = vec![0u64; rows * words];
    if words == 0 {
        return out;
    }
    let n_tiles = words.div_ceil(tw);
    let run = |scratch: &mut B, t: usize| tile(scratch, t * tw, ((t + 1) * tw).min(words));
    let tiles: Vec<Vec<u64>> = if parallel && n_tiles > 1 {
        (0..n_tiles).into_par_iter().map_init(B::default, run).collect()
    } else {
        let mut scratch = B::default();
        (0..n_tiles).map(|t| run(&mut scratch, t)).collect()
    };
    for (t, tile) in tiles.iter().enumerate() {
        let (w0, w1) = (t * tw, ((t + 1) * tw).min(words));
        for r in 0..rows {
            out[r * words + w0..r * words + w1].copy_from_slice(&tile[r * tw..r * tw + (w1 - w0)]);
        }
    }
    out
}

/// Evaluates `c` on every example (compiles a [`Program`] and runs it once).
///
/// # Panics
/// If `inputs` does not have one row per circuit input.
#[must_use]
pub fn eval_lanes<S: WordKernel>(c: &Circuit<S>, inputs: &BitMatrix, params: &EvalParams) -> BitMatrix {
    Program::new(c).eval(inputs, params)
}

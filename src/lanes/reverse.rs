//! Fused forward + reverse evaluation: `R[f]` evaluated directly from `f`, one dispatch
//! per gate in each direction, adjoints accumulated in place. It computes exactly what
//! evaluating the circuit [`rdiff`](crate::cat::rdiff)`(f)` computes (property-tested),
//! with a third of the dispatches and no forward copy.
//!
//! Forward values of every wire stay in the tile (the reverse rules read them); adjoint
//! rows are allocated when a wire's last reader contributes and freed at its driver.

use super::eval::{EvalParams, MAX_TILE_WORDS, TILE_BYTES, WordKernel, run_tiles};
use super::matrix::BitMatrix;
use crate::circuit::{Circuit, GateId};

/// A gate type with a fused reverse kernel (the lane form of its reverse rule).
pub trait WordReverse: WordKernel {
    /// Adds this gate's contribution to the adjoint of each fan-in: `adj(i)` is fan-in
    /// `i`'s adjoint row (`tw` words), to be XOR-ed (summed) into, or `None` when nobody
    /// needs that adjoint (skip the work); `rows(i)` its forward
    /// value; `y` the gate's own forward value; `dy` its adjoint.
    #[allow(clippy::too_many_arguments)]
    fn reverse_words<'a>(
        &self,
        rows: &impl Fn(usize) -> &'a [u64],
        adj: &mut impl FnMut(usize) -> Option<&'a mut [u64]>,
        y: &[u64],
        dy: &[u64],
        tw: usize,
        scratch: &mut Vec<u64>,
    );
}

/// `f` prepared for fused reverse evaluation.
#[derive(Clone, Debug)]
pub struct ReverseProgram<S> {
    circuit: Circuit<S>,
    /// Adjoint slot of each wire (`u32::MAX` if it never receives one).
    adj_slot: Vec<u32>,
    n_adj: usize,
}

impl<S: WordReverse> ReverseProgram<S> {
    /// Prepares `f` for the adjoints of all its inputs.
    #[must_use]
    pub fn new(f: &Circuit<S>) -> Self {
        Self::with_targets(f, f.n_inputs())
    }

    /// Prepares `f` for the adjoints of its parameters only (the rows of the other inputs
    /// come out zero): work on wires that no parameter feeds is skipped, such as the
    /// address-bit adjoints of a first LUT layer.
    #[must_use]
    pub fn params_only(f: &Circuit<S>) -> Self {
        Self::with_targets(f, f.n_params())
    }

    /// Adjoints wanted for inputs `0..targets`: a wire gets an adjoint row only if one of
    /// them feeds it.
    fn with_targets(f: &Circuit<S>, targets: usize) -> Self {
        let mut fed = vec![false; f.n_wires()];
        fed[..targets].fill(true);
        for (g, _, fanins) in f.gates() {
            fed[f.gate_wire(g).index()] = fanins.iter().any(|w| fed[w.index()]);
        }
        // Reverse sweep order: outputs first, then gates from last to first. A wire's
        // adjoint is born at its first contribution and dies at its driver gate.
        let n = f.n_wires();
        let mut slot = vec![u32::MAX; n];
        let mut free: Vec<u32> = Vec::new();
        let mut n_adj = 0u32;
        let mut take = |w: usize, slot: &mut Vec<u32>, free: &mut Vec<u32>| {
            if slot[w] == u32::MAX {
                slot[w] = free.pop().unwrap_or_else(|| {
                    n_adj += 1;
                    n_adj - 1
                });
            }
        };
        for w in f.outputs() {
            if fed[w.index()] {
                take(w.index(), &mut slot, &mut free);
            }
        }
        // Fan-ins take their slots before the gate's own slot is freed, so a gate's
        // adjoint row never aliases a fan-in's; a freed slot serves later-born adjoints.
        for g in (0..f.n_gates()).rev() {
            let g = GateId(g as u32);
            let out = f.gate_wire(g).index();
            if slot[out] == u32::MAX {
                continue;
            }
            for w in f.fanins(g) {
                if fed[w.index()] {
                    take(w.index(), &mut slot, &mut free);
                }
            }
            free.push(slot[out]);
        }
        Self { circuit: f.clone(), adj_slot: slot, n_adj: n_adj as usize }
    }

    /// Adjoint rows per tile.
    #[must_use]
    pub fn n_adjoint_slots(&self) -> usize {
        self.n_adj
    }

    /// `R[f](x, dy)`: one row per input of `f` (parameters included), given `inputs` (one
    /// row per input) and `dy` (one row per output).
    ///
    /// # Panics
    /// If the row counts or example counts do not match `f`.
    #[must_use]
    pub fn eval(&self, inputs: &BitMatrix, dy: &BitMatrix, params: &EvalParams) -> BitMatrix {
        let c = &self.circuit;
        assert_eq!(inputs.rows(), c.n_inputs(), "one input row per circuit input");
        assert_eq!(dy.rows(), c.n_outputs(), "one adjoint row per circuit output");
        assert_eq!(inputs.examples(), dy.examples(), "inputs and adjoints cover the same examples");
        let rows_per_tile = c.n_wires() + self.n_adj;
        let tw = if params.tile_words > 0 {
            params.tile_words
        } else {
            (TILE_BYTES / 8 / rows_per_tile.max(1)).clamp(1, MAX_TILE_WORDS)
        }
        .min(inputs.words().max(1));
        run_tiles(
            c.n_inputs(),
            inputs.examples(),
            tw,
            params.parallel,
            |buf: &mut (Vec<u64>, Vec<u64>, Vec<u64>), w0, w1| self.tile(inputs, dy, w0, w1, tw, buf),
        )
    }

    fn tile(
        &self,
        inputs: &BitMatrix,
        dy: &BitMatrix,
        w0: usize,
        w1: usize,
        tw: usize,
        (vals, adjs, scratch): &mut (Vec<u64>, Vec<u64>, Vec<u64>),
    ) -> Vec<u64> {
        let c = &self.circuit;
        // Forward rows are written before they are read; adjoint rows are zero between
        // tiles (each is cleared when its wire's driver is done, the inputs' below).
        vals.resize(c.n_wires() * tw, 0);
        adjs.resize(self.n_adj * tw, 0);
        for r in 0..c.n_inputs() {
            vals[r * tw..r * tw + (w1 - w0)].copy_from_slice(&inputs.row(r)[w0..w1]);
        }
        super::simd::best(
            #[inline(always)]
            || self.sweep(vals, adjs, dy, w0, w1, tw, scratch),
        );
        let mut out = vec![0u64; c.n_inputs() * tw];
        for i in 0..c.n_inputs() {
            let s = self.adj_slot[i];
            if s != u32::MAX {
                let s = s as usize * tw;
                out[i * tw..(i + 1) * tw].copy_from_slice(&adjs[s..s + tw]);
                adjs[s..s + tw].fill(0);
            }
        }
        out
    }

    /// Forward over all gates, then the output adjoints, then the reverse sweep.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn sweep(
        &self,
        vals: &mut [u64],
        adjs: &mut [u64],
        dy: &BitMatrix,
        w0: usize,
        w1: usize,
        tw: usize,
        scratch: &mut Vec<u64>,
    ) {
        let c = &self.circuit;
        let base = vals.as_mut_ptr();
        for (g, op, fanins) in c.gates() {
            let o = c.gate_wire(g).index() * tw;
            // SAFETY: wire rows are disjoint and a gate only reads wires defined before it.
            let out = unsafe { std::slice::from_raw_parts_mut(base.add(o), tw) };
            let rows = |i: usize| unsafe {
                std::slice::from_raw_parts(base.add(fanins[i].index() * tw).cast_const(), tw)
            };
            op.eval_words(&rows, tw, out, scratch);
        }
        for (j, w) in c.outputs().iter().enumerate() {
            if self.adj_slot[w.index()] == u32::MAX {
                continue;
            }
            let s = self.adj_slot[w.index()] as usize * tw;
            for (a, d) in adjs[s..s + (w1 - w0)].iter_mut().zip(&dy.row(j)[w0..w1]) {
                *a ^= d;
            }
        }
        let vals: &[u64] = vals;
        let abase = adjs.as_mut_ptr();
        for g in (0..c.n_gates()).rev() {
            let g = GateId(g as u32);
            let out = c.gate_wire(g).index();
            let s = self.adj_slot[out];
            if s == u32::MAX {
                continue;
            }
            let s = s as usize * tw;
            // SAFETY: the gate's adjoint row differs from every fan-in's (see `new`).
            let dy = unsafe { std::slice::from_raw_parts_mut(abase.add(s), tw) };
            let fanins = c.fanins(g);
            let rows = |i: usize| &vals[fanins[i].index() * tw..fanins[i].index() * tw + tw];
            let adj_slot = &self.adj_slot;
            let mut adj = |i: usize| {
                let a = adj_slot[fanins[i].index()];
                // SAFETY: each call hands out one adjoint row, used before the next call.
                (a != u32::MAX)
                    .then(|| unsafe { std::slice::from_raw_parts_mut(abase.add(a as usize * tw), tw) })
            };
            let y = &vals[out * tw..out * tw + tw];
            c.op(g).reverse_words(&rows, &mut adj, y, dy, tw, scratch);
            // The slot is free from here on and the next wire born in it starts at zero.
            dy.fill(0);
        }
    }
}

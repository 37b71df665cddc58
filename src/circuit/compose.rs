//! Sequential composition `;`, parallel composition `⊗`, wirings and reparametrisation.
//!
//! Composition is parameter-aware (the `Para` construction): for `f : P x A -> B` and
//! `g : Q x B -> C`, `f.then(g) : (P, Q) x A -> C`; for `f ⊗ g` the parameter blocks and
//! the argument blocks are each concatenated. With empty parameter blocks these are the
//! plain categorical operations, and the laws hold strictly (not just up to iso).

use super::{Circuit, CircuitBuilder, Signature, WireId};
use crate::error::ArityMismatch;

impl<S: Signature> Circuit<S> {
    /// The identity on `n` wires.
    #[must_use]
    pub fn identity(n: usize) -> Self {
        Self::wiring(n, &(0..n).collect::<Vec<_>>())
    }

    /// A gate-free map from `n_inputs` wires: output `j` is input `outputs[j]`. Copy,
    /// discard, projections and swaps are all wirings.
    ///
    /// # Panics
    /// If an output index is not below `n_inputs`.
    #[must_use]
    pub fn wiring(n_inputs: usize, outputs: &[usize]) -> Self {
        let b = CircuitBuilder::new(0, n_inputs);
        let outs = outputs.iter().map(|&i| b.arg(i)).collect();
        b.finish(outs).expect("wiring outputs must name inputs")
    }

    /// Copy `Δ : n -> 2n`, `x |-> (x, x)`.
    #[must_use]
    pub fn copy(n: usize) -> Self {
        Self::wiring(n, &(0..n).chain(0..n).collect::<Vec<_>>())
    }

    /// Discard `! : n -> 0`.
    #[must_use]
    pub fn discard(n: usize) -> Self {
        Self::wiring(n, &[])
    }

    /// Sequential composition `self ; g` (first `self`, then `g`).
    ///
    /// # Errors
    /// [`ArityMismatch`] unless `self` has as many outputs as `g` has arguments.
    pub fn then(&self, g: &Self) -> Result<Self, ArityMismatch> {
        if self.n_outputs() != g.n_args() {
            return Err(ArityMismatch { left: self.n_outputs(), right: g.n_args() });
        }
        let mut b = CircuitBuilder::new(self.n_params() + g.n_params(), self.n_args());
        let (p, q): (Vec<_>, Vec<_>) = {
            let all = b.params();
            let (p, q) = all.split_at(self.n_params());
            (p.to_vec(), q.to_vec())
        };
        let f_in: Vec<WireId> = p.into_iter().chain(b.args()).collect();
        let mid = b.instantiate(self, &f_in)?;
        let g_in: Vec<WireId> = q.into_iter().chain(mid).collect();
        let out = b.instantiate(g, &g_in)?;
        Ok(b.finish(out).expect("composite of valid circuits is valid"))
    }

    /// Parallel composition `self ⊗ g`.
    #[must_use]
    pub fn tensor(&self, g: &Self) -> Self {
        let mut b = CircuitBuilder::new(self.n_params() + g.n_params(), self.n_args() + g.n_args());
        let params = b.params();
        let args = b.args();
        let (pf, pg) = params.split_at(self.n_params());
        let (af, ag) = args.split_at(self.n_args());
        let f_in: Vec<WireId> = pf.iter().chain(af).copied().collect();
        let g_in: Vec<WireId> = pg.iter().chain(ag).copied().collect();
        let mut out = b.instantiate(self, &f_in).expect("arity by construction");
        out.extend(b.instantiate(g, &g_in).expect("arity by construction"));
        b.finish(out).expect("tensor of valid circuits is valid")
    }

    /// Re-marks the first `n_params` inputs as the parameter block (all inputs stay).
    ///
    /// # Errors
    /// [`ArityMismatch`] if `n_params` exceeds the number of inputs.
    pub fn with_params(mut self, n_params: usize) -> Result<Self, ArityMismatch> {
        if n_params > self.n_inputs() {
            return Err(ArityMismatch { left: n_params, right: self.n_inputs() });
        }
        self.n_params = n_params as u32;
        Ok(self)
    }

    /// Reparametrisation along `r : Q -> P`: the result is `Q x A -> B`, computing
    /// `self(r(q), a)`. All inputs of `r` become the new parameter block.
    ///
    /// # Errors
    /// [`ArityMismatch`] unless `r` has one output per parameter of `self`.
    pub fn reparam(&self, r: &Self) -> Result<Self, ArityMismatch> {
        if r.n_outputs() != self.n_params() {
            return Err(ArityMismatch { left: r.n_outputs(), right: self.n_params() });
        }
        let mut b = CircuitBuilder::new(r.n_inputs(), self.n_args());
        let p = b.instantiate(r, &b.params())?;
        let inputs: Vec<WireId> = p.into_iter().chain(b.args()).collect();
        let out = b.instantiate(self, &inputs)?;
        Ok(b.finish(out).expect("reparametrisation of valid circuits is valid"))
    }

    /// Removes gates that no output depends on; inputs are kept.
    #[must_use]
    pub fn pruned(&self) -> Self {
        let mut live = vec![false; self.n_wires()];
        for w in &self.outputs {
            live[w.index()] = true;
        }
        for g in (0..self.n_gates()).rev() {
            let g = super::GateId(g as u32);
            if live[self.gate_wire(g).index()] {
                for w in self.fanins(g) {
                    live[w.index()] = true;
                }
            }
        }
        let mut b = CircuitBuilder::new(self.n_params(), self.n_args());
        let mut map: Vec<WireId> = (0..self.n_inputs() as u32).map(WireId).collect();
        map.resize(self.n_wires(), WireId(u32::MAX));
        let mut buf = Vec::new();
        for (g, op, fanins) in self.gates() {
            let w = self.gate_wire(g);
            if live[w.index()] {
                buf.clear();
                buf.extend(fanins.iter().map(|f| map[f.index()]));
                map[w.index()] = b.gate(op.clone(), &buf);
            }
        }
        let out = self.outputs.iter().map(|w| map[w.index()]).collect();
        b.finish(out).expect("pruning keeps a valid circuit valid")
    }
}

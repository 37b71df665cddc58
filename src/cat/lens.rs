//! Lenses `(f, R[f])` over circuits of any domain, with sequential and parallel
//! composition. A learner is the composite of a model lens, a loss lens and a
//! learning-rate lens; its reverse map, restricted to the parameters, is the update
//! direction, and an optimiser combines it with the current parameters.

use super::rdc::{ReverseRules, rdiff};
use crate::circuit::{Circuit, CircuitBuilder, WireId};
use crate::error::ArityMismatch;

/// A lens `(fwd, rev)`. `fwd : P x A -> B`; `rev : P x A x B' -> P' x A'` where the primed
/// objects carry changes (adjoints). `rev` is a plain map (no parameter block) whose
/// inputs are `fwd`'s inputs followed by one adjoint per output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lens<S> {
    /// The forward map.
    pub fwd: Circuit<S>,
    /// The backward map.
    pub rev: Circuit<S>,
}

impl<S: ReverseRules> Lens<S> {
    /// The lens of a map: `(f, R[f])`.
    #[must_use]
    pub fn of(f: Circuit<S>) -> Self {
        let rev = rdiff(&f);
        Self { fwd: f, rev }
    }

    /// A lens from explicitly given maps (losses and learning rates whose backward part is
    /// chosen rather than derived).
    ///
    /// # Errors
    /// [`ArityMismatch`] unless `rev` reads `fwd`'s inputs and outputs and returns one
    /// change per input of `fwd`.
    pub fn new(fwd: Circuit<S>, rev: Circuit<S>) -> Result<Self, ArityMismatch> {
        let want = fwd.n_inputs() + fwd.n_outputs();
        if rev.n_inputs() != want {
            return Err(ArityMismatch { left: want, right: rev.n_inputs() });
        }
        if rev.n_outputs() != fwd.n_inputs() {
            return Err(ArityMismatch { left: rev.n_outputs(), right: fwd.n_inputs() });
        }
        Ok(Self { fwd, rev })
    }

    /// The identity lens on `n` wires: `(id, (x, dy) |-> dy)`.
    #[must_use]
    pub fn identity(n: usize) -> Self {
        Self { fwd: Circuit::identity(n), rev: Circuit::wiring(2 * n, &(n..2 * n).collect::<Vec<_>>()) }
    }

    /// Sequential composition: `(f ; g, (p, q, a, dc) |-> (dp, dq, da))` where
    /// `(dq, db) = rev_g(q, f(p, a), dc)` and `(dp, da) = rev_f(p, a, db)`.
    ///
    /// # Errors
    /// [`ArityMismatch`] unless `self` has one output per argument of `g`.
    pub fn then(&self, g: &Self) -> Result<Self, ArityMismatch> {
        let fwd = self.fwd.then(&g.fwd)?;
        let (np, nq, na) = (self.fwd.n_params(), g.fwd.n_params(), self.fwd.n_args());
        let nc = g.fwd.n_outputs();
        let mut b = CircuitBuilder::<S>::new(0, np + nq + na + nc);
        let ins = b.args();
        let (p, rest) = ins.split_at(np);
        let (q, rest) = rest.split_at(nq);
        let (a, dc) = rest.split_at(na);
        let pa: Vec<WireId> = p.iter().chain(a).copied().collect();
        let bv = b.instantiate(&self.fwd, &pa)?;
        let g_in: Vec<WireId> = q.iter().chain(&bv).chain(dc).copied().collect();
        let dg = b.instantiate(&g.rev, &g_in)?;
        let (dq, db) = dg.split_at(nq);
        let f_in: Vec<WireId> = pa.iter().chain(db).copied().collect();
        let df = b.instantiate(&self.rev, &f_in)?;
        let (dp, da) = df.split_at(np);
        let out = dp.iter().chain(dq).chain(da).copied().collect();
        let rev = b.finish(out).expect("composite lens is valid").pruned();
        Ok(Self { fwd, rev })
    }

    /// Parallel composition: parameters and arguments of both sides concatenated.
    #[must_use]
    pub fn tensor(&self, g: &Self) -> Self {
        let fwd = self.fwd.tensor(&g.fwd);
        let f = &self.fwd;
        let (np, nq, na, nb) = (f.n_params(), g.fwd.n_params(), f.n_args(), g.fwd.n_args());
        let (nc, nd) = (f.n_outputs(), g.fwd.n_outputs());
        let mut b = CircuitBuilder::<S>::new(0, np + nq + na + nb + nc + nd);
        let ins = b.args();
        let (p, rest) = ins.split_at(np);
        let (q, rest) = rest.split_at(nq);
        let (a, rest) = rest.split_at(na);
        let (bb, rest) = rest.split_at(nb);
        let (dc, dd) = rest.split_at(nc);
        let f_in: Vec<WireId> = p.iter().chain(a).chain(dc).copied().collect();
        let g_in: Vec<WireId> = q.iter().chain(bb).chain(dd).copied().collect();
        let df = b.instantiate(&self.rev, &f_in).expect("arity by construction");
        let dg = b.instantiate(&g.rev, &g_in).expect("arity by construction");
        let (dp, da) = df.split_at(np);
        let (dq, db) = dg.split_at(nq);
        let out = dp.iter().chain(dq).chain(da).chain(db).copied().collect();
        Self { fwd, rev: b.finish(out).expect("tensor lens is valid") }
    }

    /// Closes a lens whose forward map ends in nothing (`P x A -> 0`, e.g. a learner
    /// ending in a learning-rate lens): the change it proposes to every input.
    #[must_use]
    pub fn changes(&self) -> &Circuit<S> {
        &self.rev
    }
}

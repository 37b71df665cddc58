//! Tseitin encoding of AIGs into CNF for rustsat solvers.

use crate::aig::{Aig, Lit as AigLit};
use rustsat::types::{Clause, Lit, Var};

/// Allocates solver variables in order.
#[derive(Debug, Default)]
pub struct VarPool {
    next: u32,
}

impl VarPool {
    /// A fresh variable.
    pub fn fresh(&mut self) -> Var {
        self.next += 1;
        Var::new(self.next - 1)
    }
}

/// A clause of the given literals.
#[must_use]
pub fn clause(lits: &[Lit]) -> Clause {
    let mut c = Clause::new();
    for &l in lits {
        c.add(l);
    }
    c
}

/// An AIG's CNF added to a [`SatSolver`](super::solver::SatSolver) on demand: a node's
/// clauses (and those of its fan-in cone) are added the first time a query names it, so
/// a query costs what its cones cost, not what the whole AIG costs. The AIG may grow
/// between queries (nodes are only appended).
#[derive(Debug)]
pub struct LazyCnf {
    pool: VarPool,
    /// Solver variable of each AIG node, once encoded.
    var: Vec<Option<Var>>,
    stack: Vec<usize>,
}

impl LazyCnf {
    /// An encoder whose node 0 (constant false) and inputs are encoded at once.
    ///
    /// # Errors
    /// Whatever the solver reports when adding clauses.
    pub fn new(aig: &Aig, solver: &mut super::solver::SatSolver) -> Result<Self, super::solver::SolverError> {
        let mut pool = VarPool::default();
        let mut var = vec![None; aig.n_inputs() + 1 + aig.n_ands()];
        for v in var.iter_mut().take(aig.n_inputs() + 1) {
            *v = Some(pool.fresh());
        }
        if let Some(zero) = var[0] {
            solver.add(&[zero.neg_lit()])?;
        }
        Ok(Self { pool, var, stack: Vec::new() })
    }

    /// The solver variable of input `i`.
    #[must_use]
    pub fn input(&self, i: usize) -> Option<Var> {
        self.var.get(i + 1).copied().flatten()
    }

    /// The solver literal of `l`, encoding its cone first if needed.
    ///
    /// # Errors
    /// Whatever the solver reports when adding clauses.
    pub fn lit(
        &mut self,
        aig: &Aig,
        l: AigLit,
        solver: &mut super::solver::SatSolver,
    ) -> Result<Lit, super::solver::SolverError> {
        let base = aig.n_inputs() + 1;
        if self.var.len() < base + aig.n_ands() {
            self.var.resize(base + aig.n_ands(), None);
        }
        self.stack.push(l.node());
        while let Some(&n) = self.stack.last() {
            if self.var[n].is_some() {
                self.stack.pop();
                continue;
            }
            let (a, b) = aig.ands()[n - base];
            let (va, vb) = (self.var[a.node()], self.var[b.node()]);
            match (va, vb) {
                (Some(va), Some(vb)) => {
                    let pol = |v: Var, l: AigLit| if l.is_complement() { v.neg_lit() } else { v.pos_lit() };
                    let (x, y) = (pol(va, a), pol(vb, b));
                    let c = self.pool.fresh();
                    let cl = c.pos_lit();
                    solver.add(&[!cl, x])?;
                    solver.add(&[!cl, y])?;
                    solver.add(&[cl, !x, !y])?;
                    self.var[n] = Some(c);
                    self.stack.pop();
                }
                _ => {
                    if va.is_none() {
                        self.stack.push(a.node());
                    }
                    if vb.is_none() {
                        self.stack.push(b.node());
                    }
                }
            }
        }
        let v = self.var[l.node()].unwrap_or_else(|| unreachable!("encoded above"));
        Ok(if l.is_complement() { v.neg_lit() } else { v.pos_lit() })
    }
}

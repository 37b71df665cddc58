//! Tseitin encoding of AIGs into CNF for rustsat solvers.

use crate::aig::{Aig, Lit as AigLit};
use rustsat::solvers::Solve;
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

/// Adds the clauses of `aig` to `solver`: node 0 is tied to `zero` (a variable forced
/// false), inputs to `inputs`, and each AND node gets a fresh variable. Returns the
/// solver literal of every AIG node.
///
/// # Errors
/// Whatever the solver reports when adding clauses (out of memory).
pub fn encode<S: Solve>(
    aig: &Aig,
    zero: Var,
    inputs: &[Var],
    pool: &mut VarPool,
    solver: &mut S,
) -> anyhow::Result<Vec<Lit>> {
    let mut node: Vec<Lit> = Vec::with_capacity(aig.n_inputs() + 1 + aig.n_ands());
    node.push(zero.pos_lit());
    node.extend(inputs.iter().map(|v| v.pos_lit()));
    for &(a, b) in aig.ands() {
        let (x, y) = (lit(&node, a), lit(&node, b));
        let c = pool.fresh().pos_lit();
        solver.add_clause(clause(&[!c, x]))?;
        solver.add_clause(clause(&[!c, y]))?;
        solver.add_clause(clause(&[c, !x, !y]))?;
        node.push(c);
    }
    Ok(node)
}

/// The solver literal of AIG literal `l`, given the node literals.
#[must_use]
pub fn lit(node: &[Lit], l: AigLit) -> Lit {
    let n = node[l.node()];
    if l.is_complement() { !n } else { n }
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

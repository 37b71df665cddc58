//! SAT sweeping (`fraig`): nodes whose random-simulation signatures agree (up to
//! complement) are candidates; a candidate is merged into the earlier node of its class
//! only once an incremental SAT solver proves them equal.

use super::Pass;
use crate::aig::{Aig, Lit};
use crate::lanes::BitMatrix;
use crate::verify::cnf::{VarPool, clause, encode};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rustsat::solvers::{Solve, SolveIncremental, SolverResult};
use std::collections::HashMap;

/// SAT sweeping with `words * 64` random simulation patterns.
#[derive(Clone, Copy, Debug)]
pub struct Fraig {
    /// Words of random patterns for the signatures.
    pub words: usize,
    /// Seed of the patterns.
    pub seed: u64,
}

impl Default for Fraig {
    fn default() -> Self {
        Self { words: 32, seed: 1 }
    }
}

impl Pass for Fraig {
    fn name(&self) -> &'static str {
        "fraig"
    }

    fn run(&self, aig: &Aig) -> Aig {
        let merges = self.find_merges(aig);
        let mut out = Aig::new(aig.n_inputs());
        let base = aig.n_inputs() + 1;
        aig.rebuild_into(&mut out, |k, map| {
            merges.get(&(base + k)).map(|&(rep, phase)| Lit(map[rep].0 ^ u32::from(phase)))
        });
        out.swept()
    }
}

impl Fraig {
    /// For each mergeable node: its representative node and whether it is the complement.
    fn find_merges(&self, aig: &Aig) -> HashMap<usize, (usize, bool)> {
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
        let mut x = BitMatrix::zeros(aig.n_inputs(), self.words * 64);
        for i in 0..aig.n_inputs() {
            for w in x.row_mut(i) {
                *w = rng.random();
            }
        }
        let w = x.words();
        let v = aig.node_words(&x);
        let mut solver = crate::verify::solver::new_solver();
        let mut pool = VarPool::default();
        let zero = pool.fresh();
        let inputs: Vec<_> = (0..aig.n_inputs()).map(|_| pool.fresh()).collect();
        let mut merges = HashMap::new();
        let Ok(()) = solver.add_clause(clause(&[zero.neg_lit()])) else { return merges };
        let Ok(node) = encode(aig, zero, &inputs, &mut pool, &mut solver) else { return merges };
        // Class key: the signature with its first bit normalised to 0.
        let mut classes: HashMap<Vec<u64>, (usize, bool)> = HashMap::new();
        let base = aig.n_inputs() + 1;
        for n in 0..base + aig.n_ands() {
            let sig = &v[n * w..(n + 1) * w];
            let phase = sig[0] & 1 == 1;
            let key: Vec<u64> = if phase { sig.iter().map(|x| !x).collect() } else { sig.to_vec() };
            match classes.get(&key) {
                Some(&(rep, rep_phase)) if n >= base => {
                    let phase = phase ^ rep_phase;
                    let (a, b) = (node[n], if phase { !node[rep] } else { node[rep] });
                    // Equal iff both a & !b and !a & b are unsatisfiable.
                    let differs = |s: &mut crate::verify::solver::Solver, p, q| {
                        !matches!(s.solve_assumps(&[p, q]), Ok(SolverResult::Unsat))
                    };
                    if !differs(&mut solver, a, !b) && !differs(&mut solver, !a, b) {
                        merges.insert(n, (rep, phase));
                    }
                }
                Some(_) => {}
                None => {
                    classes.insert(key, (n, phase));
                }
            }
        }
        merges
    }
}

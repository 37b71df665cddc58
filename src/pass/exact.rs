//! Exact synthesis: the smallest AIG (fewest AND nodes) for a function of at most six
//! inputs, found by SAT, trying 1, 2, 3, ... nodes until one suffices.
//!
//! Encoding (after Kojevnikov, Kulikov and Yaroslavtsev; Knuth TAOCP 7.1.2): node `i`
//! reads a pair of earlier signals chosen by one-hot selection variables, its value on
//! every minterm is a variable, and its two-input function is given by variables `f_pq`
//! restricted to the AND family (exactly one or exactly three of `f_01, f_10, f_11` set,
//! `f_00 = 0`): that is an AIG node with any input complements and an optional output
//! complement. Functions with `f(0) = 1` are synthesised complemented.
//!
//! Each function's search is bounded by [`ExactSynthesis::limits`] (conflicts per query,
//! conflicts and seconds per function): a search that runs out is
//! [`ExactOutcome::Undecided`], and the caller keeps its own construction.

use crate::aig::{Aig, Lit};
use crate::sat::cnf::VarPool;
use crate::sat::solver::{Answer, Budget, SatLimits, SatSolver, SatStats};
use rustsat::types::{Lit as SatLit, Var};
use serde::Serialize;
use std::collections::HashMap;

/// Largest input count handled.
pub const MAX_EXACT_INPUTS: usize = 6;

/// A truth table of `n <= 6` inputs: bit `t` is the value on minterm `t` (input `i` = bit
/// `i` of `t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TruthTable {
    /// Inputs.
    pub n: usize,
    /// Values, low `2^n` bits used.
    pub bits: u64,
}

impl TruthTable {
    fn mask(self) -> u64 {
        if self.n == 6 { u64::MAX } else { (1u64 << (1 << self.n)) - 1 }
    }

    fn get(self, t: usize) -> bool {
        self.bits >> t & 1 == 1
    }

    /// The truth table of input `i`.
    #[must_use]
    pub fn var(n: usize, i: usize) -> Self {
        let bits = (0..1usize << n).filter(|t| t >> i & 1 == 1).fold(0u64, |a, t| a | 1 << t);
        Self { n, bits }
    }
}

/// The default limits of one function's search: 20,000 conflicts per query, 100,000 in
/// all, 30 seconds (conflicts decide first, so results do not depend on the machine).
pub const EXACT_LIMITS: SatLimits =
    SatLimits { conflicts_per_call: 20_000, conflicts: 100_000, seconds: 30.0 };

/// What one search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExactOutcome {
    /// A minimum AIG.
    Found(Aig),
    /// More than `max_nodes` nodes (or more than [`MAX_EXACT_INPUTS`] inputs) needed.
    TooLarge,
    /// The SAT limits ran out before a size was proven minimum.
    Undecided,
}

/// What a synthesiser has done so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct ExactStats {
    /// Functions searched (cache misses).
    pub searches: u64,
    /// Searches that found a minimum AIG.
    pub found: u64,
    /// Searches left undecided by the limits.
    pub undecided: u64,
    /// SAT calls over all searches.
    pub sat: SatStats,
}

/// Finds minimum AIGs, caching results per truth table.
#[derive(Debug)]
pub struct ExactSynthesis {
    cache: HashMap<TruthTable, ExactOutcome>,
    /// Give up (return `None`) beyond this many AND nodes.
    pub max_nodes: usize,
    /// SAT limits of one function's search.
    pub limits: SatLimits,
    stats: ExactStats,
}

impl Default for ExactSynthesis {
    /// No nodes allowed (only constants and literals), [`EXACT_LIMITS`].
    fn default() -> Self {
        Self::new(0)
    }
}

impl ExactSynthesis {
    /// A synthesiser that tries up to `max_nodes` AND nodes, within [`EXACT_LIMITS`].
    #[must_use]
    pub fn new(max_nodes: usize) -> Self {
        Self { cache: HashMap::new(), max_nodes, limits: EXACT_LIMITS, stats: ExactStats::default() }
    }

    /// What the searches so far did.
    #[must_use]
    pub fn stats(&self) -> ExactStats {
        self.stats
    }

    /// The minimum AIG for `f` (one output), or `None` if it needs more than
    /// `max_nodes` nodes, has more than [`MAX_EXACT_INPUTS`] inputs, or the search was
    /// undecided ([`outcome`](Self::outcome) tells these apart).
    pub fn synthesize(&mut self, f: TruthTable) -> Option<Aig> {
        match self.outcome(f) {
            ExactOutcome::Found(a) => Some(a),
            ExactOutcome::TooLarge | ExactOutcome::Undecided => None,
        }
    }

    /// What the search for `f` finds (cached per truth table).
    pub fn outcome(&mut self, f: TruthTable) -> ExactOutcome {
        if f.n > MAX_EXACT_INPUTS {
            return ExactOutcome::TooLarge;
        }
        let f = TruthTable { n: f.n, bits: f.bits & f.mask() };
        if let Some(hit) = self.cache.get(&f) {
            return hit.clone();
        }
        let mut budget = Budget::new(self.limits);
        let found = self.search(f, &mut budget);
        let s = &mut self.stats;
        s.searches += 1;
        match found {
            ExactOutcome::Found(_) => s.found += 1,
            ExactOutcome::Undecided => s.undecided += 1,
            ExactOutcome::TooLarge => {}
        }
        let b = budget.stats;
        s.sat.calls += b.calls;
        s.sat.sat += b.sat;
        s.sat.unsat += b.unsat;
        s.sat.undecided += b.undecided;
        s.sat.conflicts += b.conflicts;
        s.sat.seconds += b.seconds;
        s.sat.budget_exhausted |= b.budget_exhausted;
        self.cache.insert(f, found.clone());
        found
    }

    fn search(&self, f: TruthTable, budget: &mut Budget) -> ExactOutcome {
        let neg = f.get(0);
        let g = if neg { TruthTable { n: f.n, bits: !f.bits & f.mask() } } else { f };
        let mut aig = Aig::new(f.n);
        // Zero nodes: a constant or a literal.
        if g.bits == 0 {
            aig.add_output(if neg { Lit::TRUE } else { Lit::FALSE });
            return ExactOutcome::Found(aig);
        }
        for i in 0..f.n {
            let v = TruthTable::var(f.n, i);
            if v.bits == g.bits || v.bits == !g.bits & g.mask() {
                let l = if v.bits == g.bits { aig.input(i) } else { !aig.input(i) };
                aig.add_output(if neg { !l } else { l });
                return ExactOutcome::Found(aig);
            }
        }
        for r in 1..=self.max_nodes {
            match solve(g, r, budget) {
                Step::Found(mut a) => {
                    if neg {
                        let o = a.outputs()[0];
                        a.set_output(0, !o);
                    }
                    return ExactOutcome::Found(a);
                }
                Step::Impossible => {}
                Step::Undecided => return ExactOutcome::Undecided,
            }
        }
        ExactOutcome::TooLarge
    }
}

/// One size tried.
enum Step {
    Found(Aig),
    Impossible,
    Undecided,
}

/// One SAT query: can `f` (with `f(0) = 0`) be built from exactly `r` normal AND nodes?
fn solve(f: TruthTable, r: usize, budget: &mut Budget) -> Step {
    let mut s = SatSolver::new();
    let Some((fv, sel)) = encode(f, r, &mut s) else { return Step::Undecided };
    match s.solve(&[], budget) {
        Ok(Answer::Sat) => {}
        Ok(Answer::Unsat) => return Step::Impossible,
        Ok(Answer::Undecided) | Err(_) => return Step::Undecided,
    }
    decode(f.n, r, &s, &fv, &sel).map_or(Step::Undecided, Step::Found)
}

/// Function and selection variables of the query for `r` nodes.
type Encoding = (Vec<[Var; 3]>, Vec<Vec<(usize, usize, Var)>>);

/// Adds the clauses of the query to `s` (`None` if the solver refuses a clause).
#[allow(clippy::needless_range_loop)] // minterm indices address several tables at once
fn encode(f: TruthTable, r: usize, s: &mut SatSolver) -> Option<Encoding> {
    let n = f.n;
    let rows = 1usize << n;
    let mut pool = VarPool::default();
    // x[i][t]: value of node i on minterm t (t = 0 is always 0 and not encoded).
    let x: Vec<Vec<Var>> = (0..r).map(|_| (0..rows).map(|_| pool.fresh()).collect()).collect();
    // f[i][pq] for pq in 1..4 (f_00 = 0).
    let fv: Vec<[Var; 3]> = (0..r).map(|_| [pool.fresh(), pool.fresh(), pool.fresh()]).collect();
    let mut sel: Vec<Vec<(usize, usize, Var)>> = Vec::with_capacity(r);
    let add = |s: &mut SatSolver, c: &[SatLit]| s.add(c).is_ok();
    // Value of signal j (input or earlier node) on minterm t: a constant or a literal.
    let val = |j: usize, t: usize| -> Result<bool, SatLit> {
        if j < n { Ok(t >> j & 1 == 1) } else { Err(x[j - n][t].pos_lit()) }
    };
    for i in 0..r {
        let mut pairs = Vec::new();
        for k in 1..n + i {
            for j in 0..k {
                pairs.push((j, k, pool.fresh()));
            }
        }
        // Exactly one pair.
        let all: Vec<SatLit> = pairs.iter().map(|p| p.2.pos_lit()).collect();
        if !add(s, &all) {
            return None;
        }
        for a in 0..pairs.len() {
            for b in a + 1..pairs.len() {
                if !add(s, &[pairs[a].2.neg_lit(), pairs[b].2.neg_lit()]) {
                    return None;
                }
            }
        }
        // AND family: weight of (f01, f10, f11) is 1 or 3.
        let [f1, f2, f3] = fv[i].map(Var::pos_lit);
        for c in [[f1, f2, f3].to_vec(), vec![!f1, !f2, f3], vec![!f1, f2, !f3], vec![f1, !f2, !f3]] {
            if !add(s, &c) {
                return None;
            }
        }
        // sel(j,k) & v_j = p & v_k = q -> (x_i <-> f_pq), for every minterm t >= 1.
        for &(j, k, sv) in &pairs {
            for t in 1..rows {
                for p in 0..2usize {
                    for q in 0..2usize {
                        let mut c = vec![sv.neg_lit()];
                        let mut satisfied = false;
                        for (sig, want) in [(j, p == 1), (k, q == 1)] {
                            match val(sig, t) {
                                Ok(v) => satisfied |= v != want,
                                Err(l) => c.push(if want { !l } else { l }),
                            }
                        }
                        if satisfied {
                            continue;
                        }
                        let xi = x[i][t].pos_lit();
                        if p == 0 && q == 0 {
                            c.push(!xi);
                            if !add(s, &c) {
                                return None;
                            }
                        } else {
                            let fl = fv[i][p * 2 + q - 1].pos_lit();
                            let (mut c1, mut c2) = (c.clone(), c);
                            c1.extend([!xi, fl]);
                            c2.extend([xi, !fl]);
                            if !add(s, &c1) || !add(s, &c2) {
                                return None;
                            }
                        }
                    }
                }
            }
        }
        sel.push(pairs);
    }
    // The last node is the function.
    for t in 1..rows {
        let l = x[r - 1][t].pos_lit();
        if !add(s, &[if f.get(t) { l } else { !l }]) {
            return None;
        }
    }
    Some((fv, sel))
}

/// The AIG a model of the query describes.
fn decode(
    n: usize,
    r: usize,
    s: &SatSolver,
    fv: &[[Var; 3]],
    sel: &[Vec<(usize, usize, Var)>],
) -> Option<Aig> {
    let is_true = |v: Var| s.value(v);
    let mut aig = Aig::unhashed(n);
    let mut sig: Vec<Lit> = (0..n).map(|i| aig.input(i)).collect();
    for i in 0..r {
        let &(j, k, _) = sel[i].iter().find(|p| is_true(p.2))?;
        let [f01, f10, f11] = fv[i].map(is_true);
        let (a, b) = (sig[j], sig[k]);
        // Weight 1: the single minterm (p, q) with f_pq = 1 is (a^!p) & (b^!q).
        // Weight 3: the complement of the single zero minterm's AND, complemented.
        let ones = [(false, true, f01), (true, false, f10), (true, true, f11)];
        let weight = ones.iter().filter(|o| o.2).count();
        let lit_for = |p: bool, q: bool, aig: &mut Aig| {
            let la = if p { a } else { !a };
            let lb = if q { b } else { !b };
            aig.and(la, lb)
        };
        let node = if weight == 1 {
            let &(p, q, _) = ones.iter().find(|o| o.2)?;
            lit_for(p, q, &mut aig)
        } else {
            // Only (0,0) is 0: the node is !( !a & !b ).
            !lit_for(false, false, &mut aig)
        };
        sig.push(node);
    }
    aig.add_output(sig[n + r - 1]);
    Some(aig)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table_of(aig: &Aig) -> u64 {
        (0..1usize << aig.n_inputs()).fold(0u64, |acc, t| {
            let x: Vec<bool> = (0..aig.n_inputs()).map(|i| t >> i & 1 == 1).collect();
            acc | u64::from(aig.eval_one(&x)[0]) << t
        })
    }

    #[test]
    fn known_minimum_sizes() {
        let mut ex = ExactSynthesis::new(8);
        let xor2 = TruthTable { n: 2, bits: 0b0110 };
        let maj3 = TruthTable { n: 3, bits: 0b1110_1000 };
        let xor3 = TruthTable { n: 3, bits: 0b1001_0110 };
        let and4 = TruthTable { n: 4, bits: 1 << 15 };
        let mux = TruthTable { n: 3, bits: 0b1101_1000 }; // x2 ? x1 : x0
        for (f, size) in [(xor2, 3), (maj3, 4), (xor3, 6), (and4, 3), (mux, 3)] {
            let a = ex.synthesize(f).unwrap();
            assert_eq!(a.n_ands(), size, "{f:?}");
            assert_eq!(table_of(&a), f.bits, "{f:?}");
        }
    }

    #[test]
    fn every_three_input_function_is_synthesised_correctly() {
        let mut ex = ExactSynthesis::new(8);
        for bits in 0..256u64 {
            let f = TruthTable { n: 3, bits };
            let a = ex.synthesize(f).unwrap();
            assert_eq!(table_of(&a), bits);
            // The strashed Shannon expansion is never smaller than the exact minimum.
            let mut s = Aig::new(3);
            let table: Vec<Lit> =
                (0..8).map(|t| if bits >> t & 1 == 1 { Lit::TRUE } else { Lit::FALSE }).collect();
            let addr: Vec<Lit> = (0..3).map(|i| s.input(i)).collect();
            let o = s.lut(&table, &addr);
            s.add_output(o);
            assert!(a.n_ands() <= s.swept().n_ands(), "{bits:08b}");
        }
    }

    #[test]
    fn a_tiny_budget_is_undecided_not_a_wrong_size() {
        let xor4 = TruthTable { n: 4, bits: 0x6996 };
        let mut ex = ExactSynthesis::new(12);
        ex.limits = SatLimits::new(5, 20, 60.0);
        assert_eq!(ex.outcome(xor4), ExactOutcome::Undecided);
        assert_eq!(ex.synthesize(xor4), None);
        let st = ex.stats();
        assert_eq!((st.searches, st.found, st.undecided), (1, 0, 1));
        assert!(st.sat.budget_exhausted || st.sat.undecided > 0, "{st:?}");
        // The same budget-limited synthesiser still decides easy functions.
        let xor3 = TruthTable { n: 3, bits: 0x96 };
        ex.limits = EXACT_LIMITS;
        let a = ex.synthesize(xor3).unwrap();
        assert_eq!((a.n_ands(), table_of(&a)), (6, 0x96));
    }
}

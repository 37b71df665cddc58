//! The SAT backend, with resource limits: rustsat's pure-Rust batsat by default,
//! CaDiCaL with the `cadical` cargo feature. Every SAT user in the crate (cec, fraig,
//! exact synthesis) goes through [`SatSolver`], so switching the feature switches them
//! all, and every call is bounded: a call that runs out of conflicts or time answers
//! [`Answer::Undecided`], never a guess.

use rustsat::solvers::{Solve, SolveIncremental, SolverResult};
use rustsat::types::{Lit, TernaryVal, Var};
use serde::Serialize;
use std::time::{Duration, Instant};
use thiserror::Error;

/// Name of the backend, for reports.
pub const BACKEND: &str = if cfg!(feature = "cadical") { "cadical" } else { "batsat" };

/// Resource limits of one run of a SAT user (a `fraig` pass, one `cec`, one exact
/// synthesis query). `u64::MAX` conflicts or an infinite time means no limit.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SatLimits {
    /// Conflicts one SAT call may spend before it is undecided.
    pub conflicts_per_call: u64,
    /// Conflicts all calls of the run may spend together.
    pub conflicts: u64,
    /// Wall-clock seconds for the whole run.
    pub seconds: f64,
}

impl SatLimits {
    /// Per-call and total conflicts, and seconds.
    #[must_use]
    pub fn new(conflicts_per_call: u64, conflicts: u64, seconds: f64) -> Self {
        Self { conflicts_per_call, conflicts, seconds }
    }

    /// No limit at all (for tests that want a complete answer on tiny instances).
    #[must_use]
    pub fn unlimited() -> Self {
        Self { conflicts_per_call: u64::MAX, conflicts: u64::MAX, seconds: f64::INFINITY }
    }

    /// "N conflicts / T s", as printed next to an undecided outcome.
    #[must_use]
    pub fn describe(&self) -> String {
        let c = if self.conflicts_per_call == u64::MAX {
            "no conflict limit".to_string()
        } else {
            format!("{} conflicts", self.conflicts_per_call)
        };
        let t = if self.seconds.is_finite() { format!("{} s", self.seconds) } else { "no time limit".into() };
        format!("{c} / {t}")
    }
}

/// Counts of one run's SAT calls.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct SatStats {
    /// Calls made.
    pub calls: u64,
    /// Calls answered satisfiable.
    pub sat: u64,
    /// Calls answered unsatisfiable.
    pub unsat: u64,
    /// Calls (or questions skipped once the budget was spent) left undecided.
    pub undecided: u64,
    /// Conflicts spent over all calls.
    pub conflicts: u64,
    /// Seconds spent inside the solver.
    pub seconds: f64,
    /// Whether the run's total budget (conflicts or time) ran out.
    pub budget_exhausted: bool,
}

impl std::fmt::Display for SatStats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} SAT calls ({} sat, {} unsat, {} undecided), {} conflicts, {:.3}s{}",
            self.calls,
            self.sat,
            self.unsat,
            self.undecided,
            self.conflicts,
            self.seconds,
            if self.budget_exhausted { ", budget exhausted" } else { "" }
        )
    }
}

/// A run's budget: the limits, when it started, and what has been spent.
#[derive(Clone, Debug)]
pub struct Budget {
    /// The limits.
    pub limits: SatLimits,
    deadline: Option<Instant>,
    /// What has been spent so far.
    pub stats: SatStats,
}

impl Budget {
    /// A budget starting now.
    #[must_use]
    pub fn new(limits: SatLimits) -> Self {
        let deadline = (limits.seconds.is_finite() && limits.seconds >= 0.0)
            .then(|| Instant::now().checked_add(Duration::from_secs_f64(limits.seconds.min(1e9))))
            .flatten();
        Self { limits, deadline, stats: SatStats::default() }
    }

    /// Whether the total conflicts or the time are spent (and records it).
    pub fn exhausted(&mut self) -> bool {
        let out = self.stats.conflicts >= self.limits.conflicts
            || self.deadline.is_some_and(|d| Instant::now() >= d);
        self.stats.budget_exhausted |= out;
        out
    }

    /// Records a question not asked because the budget was spent.
    pub fn skip(&mut self) {
        self.stats.undecided += 1;
        self.stats.budget_exhausted = true;
    }

    fn call_conflicts(&self) -> u64 {
        self.limits.conflicts_per_call.min(self.limits.conflicts.saturating_sub(self.stats.conflicts))
    }
}

/// The answer of one bounded SAT call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    /// A model exists (read it with [`SatSolver::value`]).
    Sat,
    /// No model under the assumptions.
    Unsat,
    /// The call ran out of conflicts or time.
    Undecided,
}

/// The solver failed (out of memory, or a state error).
#[derive(Debug, Error)]
#[error("SAT solver: {0}")]
pub struct SolverError(pub String);

fn err(e: impl std::fmt::Display) -> SolverError {
    SolverError(e.to_string())
}

/// Stops a batsat search when its conflict allowance or the deadline is spent (by
/// default neither is set: [`SatSolver::solve`] sets both before each call).
#[cfg(not(feature = "cadical"))]
#[derive(Debug)]
pub struct StopCallbacks {
    left: u64,
    deadline: Option<Instant>,
}

#[cfg(not(feature = "cadical"))]
impl Default for StopCallbacks {
    fn default() -> Self {
        Self { left: u64::MAX, deadline: None }
    }
}

#[cfg(not(feature = "cadical"))]
impl batsat::Callbacks for StopCallbacks {
    fn on_new_clause(&mut self, _c: &[batsat::Lit], kind: batsat::clause::Kind) {
        if kind == batsat::clause::Kind::Learnt {
            self.left = self.left.saturating_sub(1);
        }
    }

    fn stop(&self) -> bool {
        self.left == 0 || self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

/// The SAT solver in use.
#[cfg(not(feature = "cadical"))]
pub type Solver = rustsat_batsat::Solver<StopCallbacks>;

/// The SAT solver in use.
#[cfg(feature = "cadical")]
pub type Solver = rustsat_cadical::CaDiCaL<'static, 'static>;

/// An incremental solver whose every call is bounded by a [`Budget`].
#[derive(Default)]
pub struct SatSolver {
    inner: Solver,
}

impl std::fmt::Debug for SatSolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SatSolver")
    }
}

impl SatSolver {
    /// An empty solver.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a clause.
    ///
    /// # Errors
    /// [`SolverError`] if the solver cannot take it (out of memory).
    pub fn add(&mut self, lits: &[Lit]) -> Result<(), SolverError> {
        self.inner.add_clause(super::cnf::clause(lits)).map_err(err)
    }

    /// Solves under `assumps` within what is left of `budget` (and its per-call limit),
    /// recording the call in `budget.stats`. With the budget already spent, answers
    /// [`Answer::Undecided`] without calling the solver.
    ///
    /// # Errors
    /// [`SolverError`] if the solver fails.
    pub fn solve(&mut self, assumps: &[Lit], budget: &mut Budget) -> Result<Answer, SolverError> {
        if budget.exhausted() {
            budget.skip();
            return Ok(Answer::Undecided);
        }
        let allowance = budget.call_conflicts();
        let t0 = Instant::now();
        let before = self.conflicts();
        let r = self.solve_bounded(assumps, allowance, budget.deadline)?;
        let s = &mut budget.stats;
        s.calls += 1;
        s.conflicts += self.conflicts().saturating_sub(before).max(u64::from(r == Answer::Undecided));
        s.seconds += t0.elapsed().as_secs_f64();
        match r {
            Answer::Sat => s.sat += 1,
            Answer::Unsat => s.unsat += 1,
            Answer::Undecided => s.undecided += 1,
        }
        Ok(r)
    }

    #[cfg(not(feature = "cadical"))]
    fn conflicts(&self) -> u64 {
        use batsat::SolverInterface;
        self.inner.batsat_ref().num_conflicts()
    }

    #[cfg(not(feature = "cadical"))]
    fn solve_bounded(
        &mut self,
        assumps: &[Lit],
        conflicts: u64,
        deadline: Option<Instant>,
    ) -> Result<Answer, SolverError> {
        let cb = self.inner.batsat_mut().cb_mut();
        cb.left = conflicts.max(1);
        cb.deadline = deadline;
        let r = self.inner.solve_assumps(assumps).map_err(err)?;
        Ok(match r {
            SolverResult::Sat => Answer::Sat,
            SolverResult::Unsat => Answer::Unsat,
            SolverResult::Interrupted => Answer::Undecided,
        })
    }

    #[cfg(feature = "cadical")]
    fn conflicts(&self) -> u64 {
        // CaDiCaL's wrapper reports no conflict count: charge each call its allowance
        // only when it is interrupted (see `solve`), so totals are a lower bound.
        0
    }

    #[cfg(feature = "cadical")]
    fn solve_bounded(
        &mut self,
        assumps: &[Lit],
        conflicts: u64,
        deadline: Option<Instant>,
    ) -> Result<Answer, SolverError> {
        use rustsat::solvers::{ControlSignal, LimitConflicts, Terminate};
        let limit = u32::try_from(conflicts.max(1)).unwrap_or(u32::MAX);
        self.inner.limit_conflicts(Some(limit)).map_err(err)?;
        self.inner.attach_terminator(move || {
            if deadline.is_some_and(|d| Instant::now() >= d) {
                ControlSignal::Terminate
            } else {
                ControlSignal::Continue
            }
        });
        let r = self.inner.solve_assumps(assumps).map_err(err)?;
        Ok(match r {
            SolverResult::Sat => Answer::Sat,
            SolverResult::Unsat => Answer::Unsat,
            SolverResult::Interrupted => Answer::Undecided,
        })
    }

    /// The value of `v` in the last model (`false` when unassigned).
    #[must_use]
    pub fn value(&self, v: Var) -> bool {
        matches!(self.inner.var_val(v), Ok(TernaryVal::True))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pigeonhole: `n + 1` pigeons in `n` holes (unsatisfiable, hard for resolution).
    #[allow(clippy::needless_range_loop)] // (pigeon, hole) index pairs
    fn pigeonhole(s: &mut SatSolver, n: usize) {
        let v: Vec<Vec<Var>> =
            (0..=n).map(|p| (0..n).map(|h| Var::new((p * n + h) as u32)).collect()).collect();
        for row in &v {
            s.add(&row.iter().map(|x| x.pos_lit()).collect::<Vec<_>>()).unwrap();
        }
        for h in 0..n {
            for p in 0..=n {
                for q in p + 1..=n {
                    s.add(&[v[p][h].neg_lit(), v[q][h].neg_lit()]).unwrap();
                }
            }
        }
    }

    #[test]
    fn a_tiny_conflict_budget_is_undecided_and_a_large_one_decides() {
        let mut s = SatSolver::new();
        pigeonhole(&mut s, 7);
        let mut b = Budget::new(SatLimits::new(10, 1_000_000, 60.0));
        assert_eq!(s.solve(&[], &mut b).unwrap(), Answer::Undecided);
        assert_eq!((b.stats.calls, b.stats.undecided), (1, 1));
        assert!(b.stats.conflicts >= 10, "{:?}", b.stats);
        let mut s = SatSolver::new();
        pigeonhole(&mut s, 4);
        let mut b = Budget::new(SatLimits::unlimited());
        assert_eq!(s.solve(&[], &mut b).unwrap(), Answer::Unsat);
    }

    #[test]
    fn a_spent_total_budget_skips_the_call() {
        let mut s = SatSolver::new();
        s.add(&[Var::new(0).pos_lit()]).unwrap();
        let mut b = Budget::new(SatLimits::new(100, 0, 60.0));
        assert_eq!(s.solve(&[], &mut b).unwrap(), Answer::Undecided);
        assert_eq!((b.stats.calls, b.stats.undecided, b.stats.budget_exhausted), (0, 1, true));
        let mut b = Budget::new(SatLimits::new(100, 100, 0.0));
        assert_eq!(s.solve(&[], &mut b).unwrap(), Answer::Undecided);
        let mut b = Budget::new(SatLimits::new(100, 100, 60.0));
        assert_eq!(s.solve(&[], &mut b).unwrap(), Answer::Sat);
        assert!(s.value(Var::new(0)));
    }
}

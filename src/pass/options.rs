//! How a script runs: whether each pass is proven equivalent, SAT limits that override
//! the passes' own, a time budget for the whole script, and a progress hook for long
//! passes; and what one pass run returns beyond the AIG.

use crate::aig::Aig;
use crate::sat::solver::{SatLimits, SatStats};
use std::sync::Arc;
use std::time::Duration;

/// The function behind a [`ProgressHook`].
type ProgressFn = dyn Fn(&str, usize, usize) + Send + Sync;

/// Receives progress of long work: `(what, done, total)`, at most a few times a second.
#[derive(Clone)]
pub struct ProgressHook(Arc<ProgressFn>);

impl ProgressHook {
    /// A hook calling `f`.
    pub fn new(f: impl Fn(&str, usize, usize) + Send + Sync + 'static) -> Self {
        Self(Arc::new(f))
    }

    /// Reports `done` of `total` steps of `what`.
    pub fn report(&self, what: &str, done: usize, total: usize) {
        (self.0)(what, done, total);
    }
}

impl std::fmt::Debug for ProgressHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ProgressHook")
    }
}

/// Options of [`run_script_with`](super::run_script_with).
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Prove every function-preserving pass equivalent to its input.
    pub check: bool,
    /// SAT limits for every SAT-using pass and for the checks, instead of their defaults.
    pub limits: Option<SatLimits>,
    /// Progress of long passes.
    pub progress: Option<ProgressHook>,
    /// Time budget of the whole script ([`run_budgeted`](super::run_budgeted)): passes
    /// whose estimated cost would pass it are skipped (the same on every machine), and
    /// a wall-clock guard of a few times the budget stops a pass running far over. The
    /// equivalence checks (`check`) are not counted.
    pub budget: Option<Duration>,
    /// Time limit of one pass (set by the script runner from `budget`): local passes
    /// (`rewrite`, `refactor`, `resub`) stop between two nodes when it has passed,
    /// `fraig` takes it as its SAT time limit when shorter; the linear passes
    /// (`strash`, `sweep`, `constprop`, `balance`) always finish.
    pub time_limit: Option<Duration>,
}

/// One pass's result with what it can say about its work.
#[derive(Clone, Debug)]
pub struct PassRun {
    /// The rebuilt AIG.
    pub aig: Aig,
    /// SAT calls, for passes that make them.
    pub sat: Option<SatStats>,
    /// A one-line report of the pass's own counts.
    pub detail: Option<String>,
    /// The counts of a local pass (`rewrite`, `refactor`, `resub`).
    pub local: Option<super::LocalStats>,
}

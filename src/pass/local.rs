//! The frame shared by the local passes (`rewrite`, `refactor`, `resub`): each visits
//! the input's AND nodes in topological order on a mutable [`Graph`], replaces some of
//! them by smaller structures proven equal inside their window (exhaustive simulation
//! over at most 16 leaves, so no candidate is ever left undecided), and reports the
//! same counts ([`LocalStats`]). [`LocalPass`] turns such an optimiser into a [`Pass`]:
//! a gain-only run whose result would be larger keeps its input, and the counts reach
//! the script's per-pass statistics (`opt --json`). A time limit stops the visit
//! between two nodes: every replacement made so far is kept (each was proven on its
//! window), so a pass cut short still returns an equivalent, never larger, circuit.

use super::graph::Graph;
use super::{Pass, PassRun, RunOptions};
use crate::aig::Aig;
use serde::Serialize;
use std::time::{Duration, Instant};

/// What a local pass did.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LocalStats {
    /// AND nodes visited (those still live when their turn came).
    pub nodes: usize,
    /// Candidates costed: cuts (`rewrite`), collapsed cones (`refactor`), simulated
    /// windows (`resub`).
    pub tried: usize,
    /// Nodes replaced.
    pub replaced: usize,
    /// Sum of the estimated gains of the replacements (AND nodes freed minus added,
    /// counting sharing).
    pub estimated_gain: usize,
    /// Replacements adding 0, 1 and 2 AND nodes (`resub` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub by_added: Option<[usize; 3]>,
    /// The run's result was larger than its input, which was kept instead (gain-only
    /// passes never grow a circuit).
    pub kept_input: bool,
    /// The pass's time limit ran out before every node was visited: the nodes after
    /// the last visited one were left as they were.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub out_of_time: bool,
}

impl std::fmt::Display for LocalStats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} nodes visited, {} candidates tried, {} replaced, estimated gain {}",
            self.nodes, self.tried, self.replaced, self.estimated_gain
        )?;
        if let Some([a, b, c]) = self.by_added {
            write!(f, " ({a} by a divisor, {b} by one AND, {c} by two)")?;
        }
        if self.kept_input {
            f.write_str("; result larger, input kept")?;
        }
        if self.out_of_time {
            f.write_str("; time limit reached, the remaining nodes not visited")?;
        }
        Ok(())
    }
}

/// Calls `visit(g, n)` for every AND node `n` of the input (the first `n_ands` after
/// the inputs) that is live once re-hashed on its current fan-ins, until `limit` (from
/// the call) has passed; returns how many were visited and whether the limit stopped
/// the visit early.
pub(crate) fn visit_nodes(
    g: &mut Graph,
    aig: &Aig,
    limit: Option<Duration>,
    mut visit: impl FnMut(&mut Graph, usize),
) -> (usize, bool) {
    let base = aig.n_inputs() + 1;
    let deadline = limit.map(|l| Instant::now() + l);
    let mut visited = 0;
    for n in base..base + aig.n_ands() {
        // The clock is read every 32 nodes (a node costs microseconds).
        if (n - base).is_multiple_of(32) && deadline.is_some_and(|d| Instant::now() >= d) {
            return (visited, true);
        }
        if g.is_dead(n) {
            continue;
        }
        g.normalize(n);
        if g.is_dead(n) {
            continue;
        }
        visited += 1;
        visit(g, n);
    }
    (visited, false)
}

/// The shorter of two optional time limits.
pub(crate) fn shorter(a: Option<Duration>, b: Option<Duration>) -> Option<Duration> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// A local optimiser, made a [`Pass`] by the blanket implementation.
pub trait LocalPass: Send + Sync {
    /// The name used in scripts (`rewrite -z`).
    fn script_name(&self) -> &'static str;
    /// Whether zero-gain replacements are accepted (then the result is kept even when
    /// larger: the passes after it are expected to recover).
    fn zero_gain(&self) -> bool;
    /// Runs the optimiser, stopping between two nodes once `limit` has passed (on top
    /// of the pass's own `time_limit`, the shorter wins).
    fn optimise(&self, aig: &Aig, limit: Option<Duration>) -> (Aig, LocalStats);
}

impl<T: LocalPass> Pass for T {
    fn name(&self) -> &'static str {
        self.script_name()
    }
    fn run(&self, aig: &Aig) -> Aig {
        self.run_observed(aig, &RunOptions::default()).aig
    }
    fn run_observed(&self, aig: &Aig, opts: &RunOptions) -> PassRun {
        let (mut out, mut stats) = self.optimise(aig, opts.time_limit);
        if out.n_ands() > aig.n_ands() && !self.zero_gain() {
            out = aig.clone();
            stats.kept_input = true;
        }
        PassRun { aig: out, sat: None, detail: Some(stats.to_string()), local: Some(stats) }
    }
}

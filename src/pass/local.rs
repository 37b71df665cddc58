//! The frame shared by the local passes (`rewrite`, `refactor`, `resub`): each visits
//! the input's AND nodes in topological order on a mutable [`Graph`], replaces some of
//! them by smaller structures proven equal inside their window (exhaustive simulation
//! over at most 16 leaves, so no candidate is ever left undecided), and reports the
//! same counts ([`LocalStats`]). [`LocalPass`] turns such an optimiser into a [`Pass`]:
//! a gain-only run whose result would be larger keeps its input, and the counts reach
//! the script's per-pass statistics (`opt --json`).

use super::graph::Graph;
use super::{Pass, PassRun, RunOptions};
use crate::aig::Aig;
use serde::Serialize;

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
        Ok(())
    }
}

/// Calls `visit(g, n)` for every AND node `n` of the input (the first `n_ands` after
/// the inputs) that is live once re-hashed on its current fan-ins; returns how many.
pub(crate) fn visit_nodes(g: &mut Graph, aig: &Aig, mut visit: impl FnMut(&mut Graph, usize)) -> usize {
    let base = aig.n_inputs() + 1;
    let mut visited = 0;
    for n in base..base + aig.n_ands() {
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
    visited
}

/// A local optimiser, made a [`Pass`] by the blanket implementation.
pub trait LocalPass: Send + Sync {
    /// The name used in scripts (`rewrite -z`).
    fn script_name(&self) -> &'static str;
    /// Whether zero-gain replacements are accepted (then the result is kept even when
    /// larger: the passes after it are expected to recover).
    fn zero_gain(&self) -> bool;
    /// Runs the optimiser.
    fn optimise(&self, aig: &Aig) -> (Aig, LocalStats);
}

impl<T: LocalPass> Pass for T {
    fn name(&self) -> &'static str {
        self.script_name()
    }
    fn run(&self, aig: &Aig) -> Aig {
        self.run_observed(aig, &RunOptions::default()).aig
    }
    fn run_observed(&self, aig: &Aig, _opts: &RunOptions) -> PassRun {
        let (mut out, mut stats) = self.optimise(aig);
        if out.n_ands() > aig.n_ands() && !self.zero_gain() {
            out = aig.clone();
            stats.kept_input = true;
        }
        PassRun { aig: out, sat: None, detail: Some(stats.to_string()), local: Some(stats) }
    }
}

//! `refactor`: for every AND node, a reconvergence-driven cut (at most `max_leaves`
//! leaves, grown from the fan-ins by expanding the leaf that adds the fewest new
//! leaves), the cone above it collapsed to a truth table, and the function
//! re-synthesised ([`factor::synthesize`]: factored ISOP of either polarity, XOR and
//! Shannon splits, NPN minimum for four leaves). The new structure replaces the cone
//! when it saves nodes (or saves none, with `zero_gain`), counting structural sharing.

use super::LocalStats;
use super::factor;
use super::graph::Graph;
use super::local::{LocalPass, shorter, visit_nodes};
use crate::aig::{Aig, Lit};
use crate::io::cover::TruthTable;
use std::time::Duration;

/// Node limit of the unrestricted window.
const WIDE_CONE: usize = 120;

/// Parameters of [`refactor`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RefactorParams {
    /// Accept replacements that save no node (ABC's `-z`).
    pub zero_gain: bool,
    /// Most leaves of a cut (at most 16).
    pub max_leaves: usize,
    /// A window stops growing at this many nodes.
    pub max_cone: usize,
    /// Also try a window that expands shared leaves (ABC's does not), keeping the better.
    pub wide: bool,
    /// Wall-clock limit: the pass stops between two nodes once it has passed, keeping
    /// the replacements made so far (`None`: no limit).
    pub time_limit: Option<Duration>,
}

impl Default for RefactorParams {
    fn default() -> Self {
        Self { zero_gain: false, max_leaves: 10, max_cone: 16, wide: true, time_limit: None }
    }
}

/// Reusable buffers for one cone.
#[derive(Default)]
pub(crate) struct Window {
    /// The cut's leaves, ascending.
    pub(crate) leaves: Vec<usize>,
    /// The cone above them, root last, in topological order.
    pub(crate) cone: Vec<usize>,
    mark: Vec<u32>,
    trav: u32,
}

impl Window {
    /// Grows the cut of `root`; the cone (root included) is left in `cone` in
    /// topological order.
    pub(crate) fn cut(
        &mut self,
        g: &mut Graph,
        root: usize,
        max_leaves: usize,
        max_cone: usize,
        fanout_stop: bool,
        deep_ties: bool,
    ) -> bool {
        if self.mark.len() < g.len() {
            self.mark.resize(g.len(), 0);
        }
        // Marks: trav + 1 = leaf, trav + 2 = inside the cone.
        self.trav += 2;
        let (leaf, inside) = (self.trav - 1, self.trav);
        self.leaves.clear();
        self.mark[root] = inside;
        for f in g.fanins(root) {
            let f = f.node();
            if self.mark[f] != leaf {
                self.mark[f] = leaf;
                self.leaves.push(f);
            }
        }
        let mut inner = 1;
        loop {
            let mut best: Option<(usize, usize)> = None;
            for (i, &l) in self.leaves.iter().enumerate() {
                if !g.is_and(l) {
                    continue;
                }
                let fresh = g
                    .fanins(l)
                    .iter()
                    .filter(|f| self.mark[f.node()] != leaf && self.mark[f.node()] != inside)
                    .count();
                // A shared leaf is expanded only if that does not add leaves (as ABC's
                // reconvergence-driven cuts do).
                if fanout_stop && fresh == 2 && g.refs(l) > 2 {
                    continue;
                }
                // With `deep_ties`, ties go to the deepest leaf (as ABC's), else to the first.
                if self.leaves.len() - 1 + fresh <= max_leaves
                    && best.is_none_or(|(j, c)| {
                        fresh < c || (deep_ties && fresh == c && g.level(l) > g.level(self.leaves[j]))
                    })
                {
                    best = Some((i, fresh));
                }
            }
            let Some((i, _)) = best else { break };
            if inner >= max_cone {
                break;
            }
            let l = self.leaves.swap_remove(i);
            self.mark[l] = inside;
            inner += 1;
            for f in g.fanins(l) {
                let f = f.node();
                if self.mark[f] != leaf && self.mark[f] != inside {
                    self.mark[f] = leaf;
                    self.leaves.push(f);
                }
            }
        }
        self.leaves.sort_unstable();
        // The cone in topological order: post-order DFS from the root over inside nodes.
        self.cone.clear();
        let mut stack = vec![(root, false)];
        let done = inside + 1;
        self.trav += 1;
        while let Some((n, expanded)) = stack.pop() {
            if self.mark[n] == done {
                continue;
            }
            if expanded {
                self.mark[n] = done;
                self.cone.push(n);
                continue;
            }
            stack.push((n, true));
            for f in g.fanins(n) {
                if self.mark[f.node()] == inside {
                    stack.push((f.node(), false));
                }
            }
        }
        true
    }
}

/// The root's function over the window's leaves.
fn collapse(g: &mut Graph, w: &Window, root: usize) -> TruthTable {
    let k = w.leaves.len();
    let words = (1usize << k).div_ceil(64);
    let mut val: std::collections::HashMap<usize, Vec<u64>> = std::collections::HashMap::new();
    for (i, &l) in w.leaves.iter().enumerate() {
        let t: Vec<u64> = (0..words)
            .map(|wi| (0..64).fold(0u64, |a, b| a | u64::from(((wi * 64 + b) >> i) & 1 == 1) << b))
            .collect();
        val.insert(l, t);
    }
    val.entry(0).or_insert_with(|| vec![0; words]);
    for &n in &w.cone {
        let [a, b] = g.fanins(n);
        let (ma, mb) =
            (if a.is_complement() { u64::MAX } else { 0 }, if b.is_complement() { u64::MAX } else { 0 });
        let t: Vec<u64> = (0..words).map(|i| (val[&a.node()][i] ^ ma) & (val[&b.node()][i] ^ mb)).collect();
        val.insert(n, t);
    }
    let t = &val[&root];
    TruthTable::from_fn(k, |s| t[s / 64] >> (s % 64) & 1 == 1)
}

/// Refactoring of `aig`.
#[must_use]
pub fn refactor(aig: &Aig, params: &RefactorParams) -> (Aig, LocalStats) {
    let mut stats = LocalStats::default();
    let mut g = Graph::from_aig(aig);
    let mut w = Window::default();
    let max_leaves = params.max_leaves.min(factor::MAX_FACTOR_VARS);
    // Re-synthesis is most of the pass's time, and cones of a circuit repeat their
    // functions: each function is synthesised once per run.
    let mut synthesised: std::collections::HashMap<TruthTable, Aig> = std::collections::HashMap::new();
    let (nodes, out_of_time) = visit_nodes(&mut g, aig, params.time_limit, |g, n| {
        // Three windows: ABC's (shared leaves are not expanded, ties to the deepest) and
        // two unrestricted ones (ties to the deepest, ties to the first); the best wins.
        let mut best: Option<(isize, Aig, Vec<Lit>)> = None;
        let mut tried: Vec<Vec<Lit>> = Vec::with_capacity(3);
        for (fanout_stop, deep_ties) in [(true, true), (false, true), (false, false)] {
            if !fanout_stop && !params.wide {
                break;
            }
            let cone = if fanout_stop { params.max_cone } else { WIDE_CONE };
            if !w.cut(g, n, max_leaves, cone, fanout_stop, deep_ties) || w.cone.len() < 2 {
                continue;
            }
            let leaves: Vec<Lit> = w.leaves.iter().map(|&l| Lit((l * 2) as u32)).collect();
            if tried.contains(&leaves) {
                continue;
            }
            tried.push(leaves.clone());
            stats.tried += 1;
            let f = collapse(g, &w, n);
            // With a one-node MFFC only a constant or a leaf can gain.
            let trivial = f.constant().is_some() || (0..f.n_vars()).filter(|&i| f.depends_on(i)).count() <= 1;
            if !trivial && !params.zero_gain && g.mffc_size(n, &leaves) < 2 {
                continue;
            }
            let s = match synthesised.get(&f) {
                Some(s) => s.clone(),
                None => synthesised.entry(f).or_insert_with_key(factor::synthesize).clone(),
            };
            let Some((mffc, added)) = g.cost(n, &s, &leaves) else { continue };
            let gain = mffc as isize - added as isize;
            if best.as_ref().is_none_or(|b| gain > b.0) {
                best = Some((gain, s, leaves));
            }
        }
        if let Some((gain, s, leaves)) = best
            && (gain > 0 || (gain == 0 && params.zero_gain))
        {
            g.apply(n, &s, &leaves, false);
            stats.replaced += 1;
            stats.estimated_gain += gain as usize;
        }
    });
    stats.nodes = nodes;
    stats.out_of_time = out_of_time;
    (g.extract(), stats)
}

/// The `refactor` pass (`refactor -z` for zero-gain replacements).
#[derive(Clone, Copy, Debug, Default)]
pub struct Refactor {
    /// Its parameters.
    pub params: RefactorParams,
}

impl LocalPass for Refactor {
    fn script_name(&self) -> &'static str {
        if self.params.zero_gain { "refactor -z" } else { "refactor" }
    }
    fn zero_gain(&self) -> bool {
        self.params.zero_gain
    }
    fn optimise(&self, aig: &Aig, limit: Option<Duration>) -> (Aig, LocalStats) {
        refactor(aig, &RefactorParams { time_limit: shorter(self.params.time_limit, limit), ..self.params })
    }
}

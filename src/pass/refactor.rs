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

/// Simulation patterns of the first six variables (variable `i` is 1 where bit `i` of
/// the position is).
const VAR_WORDS: [u64; 6] = [
    0xaaaa_aaaa_aaaa_aaaa,
    0xcccc_cccc_cccc_cccc,
    0xf0f0_f0f0_f0f0_f0f0,
    0xff00_ff00_ff00_ff00,
    0xffff_0000_ffff_0000,
    0xffff_ffff_0000_0000,
];

/// Reusable buffers of [`collapse`]: one row of `words` words per leaf and cone node.
#[derive(Default)]
struct Sim {
    slot: Vec<u32>,
    rows: Vec<u64>,
}

/// The root's function over the window's leaves (the root is the cone's last node).
fn collapse(g: &mut Graph, w: &Window, sim: &mut Sim) -> TruthTable {
    let k = w.leaves.len();
    let words = (1usize << k).div_ceil(64);
    if sim.slot.len() < g.len() {
        sim.slot.resize(g.len(), 0);
    }
    // Rows: the leaves, then the cone, then a row of zeros for the constant (node 0 is
    // a leaf whenever a cone node reads it, so that row is a safeguard).
    let zero = k + w.cone.len();
    sim.rows.clear();
    sim.rows.resize((zero + 1) * words, 0);
    sim.slot[0] = zero as u32;
    for (i, &l) in w.leaves.iter().enumerate() {
        sim.slot[l] = i as u32;
        let row = &mut sim.rows[i * words..(i + 1) * words];
        for (wi, x) in row.iter_mut().enumerate() {
            *x = if i < 6 {
                VAR_WORDS[i]
            } else if wi >> (i - 6) & 1 == 1 {
                u64::MAX
            } else {
                0
            };
        }
    }
    for (j, &n) in w.cone.iter().enumerate() {
        let [a, b] = g.fanins(n);
        let (ma, mb) =
            (if a.is_complement() { u64::MAX } else { 0 }, if b.is_complement() { u64::MAX } else { 0 });
        let (ra, rb) = (sim.slot[a.node()] as usize * words, sim.slot[b.node()] as usize * words);
        let out = (k + j) * words;
        for i in 0..words {
            sim.rows[out + i] = (sim.rows[ra + i] ^ ma) & (sim.rows[rb + i] ^ mb);
        }
        sim.slot[n] = (k + j) as u32;
    }
    let root = (k + w.cone.len() - 1) * words;
    TruthTable::from_words(k, &sim.rows[root..root + words])
}

/// Refactoring of `aig`.
#[must_use]
pub fn refactor(aig: &Aig, params: &RefactorParams) -> (Aig, LocalStats) {
    let mut stats = LocalStats::default();
    let mut g = Graph::from_aig(aig);
    let mut w = Window::default();
    let mut sim = Sim::default();
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
            let f = collapse(g, &w, &mut sim);
            // With a one-node MFFC only a constant or a leaf can gain.
            let trivial =
                f.constant().is_some() || (0..f.n_vars()).filter(|&i| f.depends_on(i)).nth(1).is_none();
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

//! The signal graph of a netlist being imported (a petgraph `DiGraph`, one node per
//! signal, an edge from each signal to every signal computed from it): combinational loops
//! found through strongly connected components and reported by the first few signals on
//! the shortest loop and its length (never a line listing 100,000 names). Used on import
//! only, never on a simulation path. (Levels and DOT drawings of circuits are the AIG's
//! and [`crate::io::dot`]'s.)

use petgraph::algo::kosaraju_scc;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef;
use std::collections::VecDeque;
use std::fmt;

/// Signals named in a loop report; longer loops are cut after these.
pub const LOOP_NAMES_SHOWN: usize = 8;

/// Signals and the signals each is computed from.
#[derive(Clone, Debug, Default)]
pub struct SignalGraph {
    graph: DiGraph<String, ()>,
}

/// A combinational loop: the first signals on it, how many signals it has, and how many
/// signals lie on loops with it (its strongly connected component).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loop {
    /// The first [`LOOP_NAMES_SHOWN`] signals of the loop, in the order values flow.
    pub first: Vec<String>,
    /// Signals on the loop.
    pub length: usize,
    /// Signals in its strongly connected component (at least `length`).
    pub component: usize,
}

impl fmt::Display for Loop {
    /// `through y -> z -> y`, or for a long loop
    /// `of 100000 signals through s0 -> s1 -> ... -> s7 -> ...`, then
    /// `(1000 signals are on loops with it)` when the component is larger.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.length <= self.first.len() {
            write!(f, "through {} -> {}", self.first.join(" -> "), self.first[0])?;
        } else {
            write!(f, "of {} signals through {} -> ...", self.length, self.first.join(" -> "))?;
        }
        if self.component > self.length {
            write!(f, " ({} signals are on loops with it)", self.component)?;
        }
        Ok(())
    }
}

impl SignalGraph {
    /// An empty graph.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a signal; returns its node.
    pub fn add_signal(&mut self, name: impl Into<String>) -> NodeIndex {
        self.graph.add_node(name.into())
    }

    /// Records that `to` is computed from `from`.
    pub fn add_edge(&mut self, from: NodeIndex, to: NodeIndex) {
        self.graph.add_edge(from, to, ());
    }

    /// The shortest loop through `start`, if `start` is on one.
    #[must_use]
    pub fn loop_through(&self, start: NodeIndex) -> Option<Loop> {
        let sccs = kosaraju_scc(&self.graph);
        let scc = sccs.iter().find(|c| c.contains(&start))?;
        let self_loop = self.graph.contains_edge(start, start);
        if scc.len() == 1 && !self_loop {
            return None;
        }
        let mut in_scc = vec![false; self.graph.node_count()];
        for n in scc {
            in_scc[n.index()] = true;
        }
        let cycle = if self_loop { vec![start] } else { self.shortest_cycle(start, &in_scc)? };
        let first = cycle.iter().take(LOOP_NAMES_SHOWN).map(|&n| self.graph[n].clone()).collect();
        Some(Loop { first, length: cycle.len(), component: scc.len() })
    }

    #[cfg(test)]
    /// The first loop of the graph (in the order signals were added), if any.
    #[must_use]
    pub fn find_loop(&self) -> Option<Loop> {
        let sccs = kosaraju_scc(&self.graph);
        let start = sccs
            .iter()
            .filter(|c| c.len() > 1 || self.graph.contains_edge(c[0], c[0]))
            .filter_map(|c| c.iter().min().copied())
            .min()?;
        self.loop_through(start)
    }

    /// Breadth-first search inside the component from `start`'s successors back to
    /// `start`: the loop with the fewest signals, `start` first.
    fn shortest_cycle(&self, start: NodeIndex, in_scc: &[bool]) -> Option<Vec<NodeIndex>> {
        let mut parent: Vec<Option<NodeIndex>> = vec![None; self.graph.node_count()];
        let mut queue = VecDeque::from([start]);
        while let Some(n) = queue.pop_front() {
            for e in self.graph.edges(n) {
                let m = e.target();
                if m == start {
                    let mut cycle = vec![n];
                    while let Some(&last) = cycle.last() {
                        match parent[last.index()] {
                            Some(p) if last != start => cycle.push(p),
                            _ => break,
                        }
                    }
                    cycle.reverse();
                    return Some(cycle);
                }
                if in_scc[m.index()] && parent[m.index()].is_none() {
                    parent[m.index()] = Some(n);
                    queue.push_back(m);
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain(names: &[&str], close: bool) -> (SignalGraph, Vec<NodeIndex>) {
        let mut g = SignalGraph::new();
        let n: Vec<NodeIndex> = names.iter().map(|s| g.add_signal(*s)).collect();
        for w in n.windows(2) {
            g.add_edge(w[0], w[1]);
        }
        if close {
            g.add_edge(n[n.len() - 1], n[0]);
        }
        (g, n)
    }

    #[test]
    fn short_loops_are_named_whole() {
        let (g, n) = chain(&["y", "z"], true);
        let l = g.loop_through(n[0]).unwrap();
        assert_eq!(l.to_string(), "through y -> z -> y");
        assert_eq!(g.find_loop(), Some(l));
        let (g, n) = chain(&["a", "b", "c"], false);
        assert_eq!(g.loop_through(n[1]), None);
        assert_eq!(g.find_loop(), None);
        let mut g = SignalGraph::new();
        let s = g.add_signal("s");
        g.add_edge(s, s);
        assert_eq!(g.find_loop().unwrap().to_string(), "through s -> s");
    }

    /// A 100,000-signal loop is reported by its first eight names and its length, and
    /// the shortest loop through a signal is found even beside a longer one.
    #[test]
    fn long_loops_are_cut_and_the_shortest_is_found() {
        let names: Vec<String> = (0..100_000).map(|i| format!("s{i}")).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let (mut g, n) = chain(&refs, true);
        let msg = g.loop_through(n[0]).unwrap().to_string();
        assert_eq!(msg, "of 100000 signals through s0 -> s1 -> s2 -> s3 -> s4 -> s5 -> s6 -> s7 -> ...");
        g.add_edge(n[2], n[0]);
        let l = g.loop_through(n[0]).unwrap();
        assert_eq!(l.to_string(), "through s0 -> s1 -> s2 -> s0 (100000 signals are on loops with it)");
    }
}

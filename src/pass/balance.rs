//! `balance`: every maximal tree of AND nodes (single fan-out, uncomplemented edges)
//! is rebuilt from its leaves by repeatedly joining the two shallowest operands, which
//! gives the minimum depth for that tree.

use super::Pass;
use crate::aig::{Aig, Lit};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Depth balancing of AND trees.
#[derive(Clone, Copy, Debug, Default)]
pub struct Balance;

impl Pass for Balance {
    fn name(&self) -> &'static str {
        "balance"
    }

    fn run(&self, aig: &Aig) -> Aig {
        let base = aig.n_inputs() + 1;
        let n_nodes = base + aig.n_ands();
        // A node is a tree root unless exactly one uncomplemented AND edge reads it.
        let mut refs = vec![0u32; n_nodes];
        let mut root = vec![false; n_nodes];
        for &(a, b) in aig.ands() {
            for l in [a, b] {
                refs[l.node()] += 1;
                if l.is_complement() {
                    root[l.node()] = true;
                }
            }
        }
        for l in aig.outputs() {
            root[l.node()] = true;
        }
        for n in 0..n_nodes {
            if refs[n] != 1 {
                root[n] = true;
            }
        }
        let mut out = Aig::new(aig.n_inputs());
        let mut level: Vec<u32> = vec![0; base];
        let mut map: Vec<Lit> = (0..base).map(|n| Lit((n * 2) as u32)).collect();
        map.resize(n_nodes, Lit::FALSE);
        let mut leaves = Vec::new();
        for k in 0..aig.n_ands() {
            let n = base + k;
            if !root[n] {
                continue;
            }
            leaves.clear();
            collect_leaves(aig, base, &root, Lit((n * 2) as u32), &mut leaves);
            let mut heap: BinaryHeap<Reverse<(u32, u32)>> = leaves
                .iter()
                .map(|&l| {
                    let m = Lit(map[l.node()].0 ^ u32::from(l.is_complement()));
                    Reverse((level[m.node()], m.0))
                })
                .collect();
            while heap.len() > 1 {
                let (Some(Reverse((_, a))), Some(Reverse((_, b)))) = (heap.pop(), heap.pop()) else { break };
                let c = out.and(Lit(a), Lit(b));
                if c.node() >= level.len() {
                    level.resize(c.node() + 1, 0);
                    level[c.node()] = 1 + level[Lit(a).node()].max(level[Lit(b).node()]);
                }
                heap.push(Reverse((level[c.node()], c.0)));
            }
            map[n] = heap.pop().map_or(Lit::TRUE, |Reverse((_, l))| Lit(l));
        }
        for &l in aig.outputs() {
            out.add_output(Lit(map[l.node()].0 ^ u32::from(l.is_complement())));
        }
        out.swept()
    }
}

/// The operands of the AND tree rooted at `l`: expands uncomplemented non-root ANDs
/// (iteratively, so long chains cannot overflow the stack).
fn collect_leaves(aig: &Aig, base: usize, root: &[bool], l: Lit, out: &mut Vec<Lit>) {
    let mut stack = vec![l];
    while let Some(t) = stack.pop() {
        let (a, b) = aig.ands()[t.node() - base];
        for x in [b, a] {
            if !x.is_complement() && x.node() >= base && !root[x.node()] {
                stack.push(x);
            } else {
                out.push(x);
            }
        }
    }
}

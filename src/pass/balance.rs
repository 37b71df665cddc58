//! `balance`: every maximal tree of AND nodes (single fan-out, uncomplemented edges)
//! is rebuilt from its leaves by repeatedly joining the two shallowest operands, which
//! gives the minimum depth for that tree. Among operands of the same level, one whose
//! AND with the shallowest operand already exists is joined first (as ABC's `balance`
//! does), so balancing shares nodes instead of duplicating them; repeated operands are
//! merged and a tree reading `x` and `!x` is the constant 0.
//!
//! The shape follows ABC's `balance` in two more ways, because the passes after it
//! (`refactor -z` above all) find very different gains in structures of the same size:
//! trees are rebuilt depth first from the outputs (so node order is ABC's), and among
//! operands of one level the ANDs just built are joined first, the newest first. On
//! EPFL `router` this alone takes our `resyn2` from 199 to 186 ANDs (ABC: 177), and our
//! `balance` on ABC's AIG after the first six passes of `resyn2` gives ABC's AIG again
//! up to one node (BENCHMARKS.md, 2026-12-02).

use super::Pass;
use crate::aig::{Aig, Lit};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Operands of equal level examined for an existing AND with the shallowest one.
const SHARE_LOOK: usize = 16;

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
        // Operands are popped by level, then new nodes before the tree's own operands,
        // the newest first (as ABC's `balance` keeps its operand array), then by literal.
        let mut seq = 0u32;
        for n in roots_depth_first(aig, base, &root) {
            leaves.clear();
            collect_leaves(aig, base, &root, Lit((n * 2) as u32), &mut leaves);
            let mut ops: Vec<Lit> =
                leaves.iter().map(|&l| Lit(map[l.node()].0 ^ u32::from(l.is_complement()))).collect();
            ops.sort_unstable();
            ops.dedup();
            if ops.windows(2).any(|w| w[0] == !w[1]) {
                map[n] = Lit::FALSE;
                continue;
            }
            let mut heap: BinaryHeap<Reverse<(u32, u64, u32)>> =
                ops.iter().map(|&m| Reverse((level[m.node()], 1 << 32 | u64::from(m.0), m.0))).collect();
            let mut same: Vec<Reverse<(u32, u64, u32)>> = Vec::new();
            while heap.len() > 1 {
                let (Some(Reverse((_, _, a))), Some(Reverse((lb, kb, b)))) = (heap.pop(), heap.pop()) else {
                    break;
                };
                let a = Lit(a);
                let mut b = Lit(b);
                // Prefer a partner of b's level that makes an existing node (a bounded look).
                if out.lookup(a, b).is_none() {
                    same.clear();
                    while same.len() < SHARE_LOOK
                        && let Some(&Reverse((l, kc, c))) = heap.peek()
                        && l == lb
                    {
                        heap.pop();
                        if out.lookup(a, Lit(c)).is_some() {
                            same.push(Reverse((lb, kb, b.0)));
                            b = Lit(c);
                            break;
                        }
                        same.push(Reverse((l, kc, c)));
                    }
                    heap.extend(same.drain(..));
                }
                let c = out.and(a, b);
                if c.node() >= level.len() {
                    level.resize(c.node() + 1, 0);
                    level[c.node()] = 1 + level[a.node()].max(level[b.node()]);
                }
                seq += 1;
                heap.push(Reverse((level[c.node()], u64::from(u32::MAX - seq), c.0)));
            }
            map[n] = heap.pop().map_or(Lit::TRUE, |Reverse((_, _, l))| Lit(l));
        }
        for &l in aig.outputs() {
            out.add_output(Lit(map[l.node()].0 ^ u32::from(l.is_complement())));
        }
        out.swept()
    }
}

/// The tree roots in the order ABC's `balance` builds them: depth first from the
/// outputs, each tree's root after the roots its leaves reach.
fn roots_depth_first(aig: &Aig, base: usize, root: &[bool]) -> Vec<usize> {
    let mut order = Vec::new();
    let mut seen = vec![false; root.len()];
    let mut leaves = Vec::new();
    for &o in aig.outputs() {
        let mut stack = vec![(o.node(), false)];
        while let Some((n, expanded)) = stack.pop() {
            if n < base || (seen[n] && !expanded) {
                continue;
            }
            if expanded {
                order.push(n);
                continue;
            }
            seen[n] = true;
            stack.push((n, true));
            leaves.clear();
            collect_leaves(aig, base, root, Lit((n * 2) as u32), &mut leaves);
            for l in leaves.iter().rev() {
                if l.node() >= base && !seen[l.node()] {
                    stack.push((l.node(), false));
                }
            }
        }
    }
    order
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

//! `balance`: every maximal tree of AND nodes (single fan-out, uncomplemented edges)
//! is rebuilt from its leaves by repeatedly joining the two shallowest operands, which
//! gives the minimum depth for that tree. Among operands of the same level, one whose
//! AND with the shallowest operand already exists is joined first (as ABC's `balance`
//! does), so balancing shares nodes instead of duplicating them; repeated operands are
//! merged and a tree reading `x` and `!x` is the constant 0.

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
        for k in 0..aig.n_ands() {
            let n = base + k;
            if !root[n] {
                continue;
            }
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
            let mut heap: BinaryHeap<Reverse<(u32, u32)>> =
                ops.iter().map(|&m| Reverse((level[m.node()], m.0))).collect();
            let mut same: Vec<Reverse<(u32, u32)>> = Vec::new();
            while heap.len() > 1 {
                let (Some(Reverse((_, a))), Some(Reverse((lb, b)))) = (heap.pop(), heap.pop()) else { break };
                let a = Lit(a);
                let mut b = Lit(b);
                // Prefer a partner of b's level that makes an existing node (a bounded look).
                if out.lookup(a, b).is_none() {
                    same.clear();
                    while same.len() < SHARE_LOOK
                        && let Some(&Reverse((l, c))) = heap.peek()
                        && l == lb
                    {
                        heap.pop();
                        if out.lookup(a, Lit(c)).is_some() {
                            same.push(Reverse((lb, b.0)));
                            b = Lit(c);
                            break;
                        }
                        same.push(Reverse((l, c)));
                    }
                    heap.extend(same.drain(..));
                }
                let c = out.and(a, b);
                if c.node() >= level.len() {
                    level.resize(c.node() + 1, 0);
                    level[c.node()] = 1 + level[a.node()].max(level[b.node()]);
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

//! 4-feasible cut enumeration with truth tables: every AND node gets up to `limit`
//! cuts of at most four leaves (besides the trivial cut), built bottom-up by merging its
//! fan-ins' cuts, dominated cuts dropped, smallest first.

#[cfg(test)]
use crate::aig::Aig;
use crate::pass::graph::Graph;

/// A cut: sorted leaf nodes and the root's function over them (`u16`, leaf `i` is
/// variable `i`; a cut of fewer leaves does not depend on the unused variables).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cut {
    /// Leaf node indices, ascending; the first `size` are used.
    pub leaves: [u32; 4],
    /// Number of leaves.
    pub size: u8,
    /// Truth table of the root over the leaves.
    pub tt: u16,
}

impl Cut {
    fn trivial(n: usize) -> Self {
        Cut { leaves: [n as u32, 0, 0, 0], size: 1, tt: 0xAAAA }
    }

    fn leaves(&self) -> &[u32] {
        &self.leaves[..self.size as usize]
    }

    fn subset_of(&self, o: &Cut) -> bool {
        self.leaves().iter().all(|l| o.leaves().contains(l))
    }
}

#[cfg(test)]
/// The cuts of every node of an AIG, flat.
pub struct Cuts {
    stride: usize,
    cuts: Vec<Cut>,
    count: Vec<u8>,
}

/// `tt` over `from`'s leaves, re-expressed over `to`'s (a superset).
fn stretch(tt: u16, from: &Cut, to: &Cut) -> u16 {
    let mut pos = [0usize; 4];
    for (j, l) in from.leaves().iter().enumerate() {
        pos[j] = to.leaves().iter().position(|m| m == l).unwrap_or(0);
    }
    let k = from.size as usize;
    let mut out = 0u16;
    for x in 0..16usize {
        let mut y = 0usize;
        for (j, &p) in pos.iter().enumerate().take(k) {
            y |= (x >> p & 1) << j;
        }
        out |= (tt >> y & 1) << x;
    }
    out
}

fn merge(a: &Cut, b: &Cut) -> Option<Cut> {
    let mut c = Cut::default();
    let (mut i, mut j, mut k) = (0, 0, 0);
    let (la, lb) = (a.leaves(), b.leaves());
    while i < la.len() || j < lb.len() {
        let next = match (la.get(i), lb.get(j)) {
            (Some(&x), Some(&y)) if x == y => {
                i += 1;
                j += 1;
                x
            }
            (Some(&x), Some(&y)) if x < y => {
                i += 1;
                x
            }
            (Some(_), Some(&y)) => {
                j += 1;
                y
            }
            (Some(&x), None) => {
                i += 1;
                x
            }
            (None, Some(&y)) => {
                j += 1;
                y
            }
            (None, None) => break,
        };
        if k == 4 {
            return None;
        }
        c.leaves[k] = next;
        k += 1;
    }
    c.size = k as u8;
    Some(c)
}

/// The non-trivial cuts of an AND node from its fan-ins' cuts (`ca`, `cb`, trivial cuts
/// included; `a_neg`, `b_neg` the fan-in complements): pairwise merges of at most four
/// leaves, dominated ones dropped, the `limit` smallest kept, left in `cand`.
fn merge_fanins(ca: &[Cut], a_neg: bool, cb: &[Cut], b_neg: bool, limit: usize, cand: &mut Vec<Cut>) {
    cand.clear();
    for x in ca {
        for y in cb {
            let Some(mut c) = merge(x, y) else { continue };
            if cand.iter().any(|o| o.subset_of(&c)) {
                continue;
            }
            cand.retain(|o| !c.subset_of(o));
            let ta = stretch(x.tt, x, &c) ^ if a_neg { 0xFFFF } else { 0 };
            let tb = stretch(y.tt, y, &c) ^ if b_neg { 0xFFFF } else { 0 };
            c.tt = ta & tb;
            cand.push(c);
        }
    }
    cand.sort_by_key(|c| c.size);
    cand.truncate(limit);
}

#[cfg(test)]
impl Cuts {
    /// Enumerates the cuts of every node of `aig`, keeping at most `limit` non-trivial
    /// cuts per node.
    #[must_use]
    pub fn enumerate(aig: &Aig, limit: usize) -> Self {
        let base = aig.n_inputs() + 1;
        let n = base + aig.n_ands();
        let stride = limit + 1;
        let mut cuts = vec![Cut::default(); n * stride];
        let mut count = vec![0u8; n];
        for i in 1..base {
            cuts[i * stride] = Cut::trivial(i);
            count[i] = 1;
        }
        let mut cand: Vec<Cut> = Vec::with_capacity(stride * stride);
        for (k, &(a, b)) in aig.ands().iter().enumerate() {
            let id = base + k;
            let (na, nb) = (a.node(), b.node());
            let (ca, cb) = (count[na] as usize, count[nb] as usize);
            cuts[id * stride] = Cut::trivial(id);
            count[id] = 1;
            if na == 0 || nb == 0 {
                continue;
            }
            merge_fanins(
                &cuts[na * stride..na * stride + ca],
                a.is_complement(),
                &cuts[nb * stride..nb * stride + cb],
                b.is_complement(),
                limit,
                &mut cand,
            );
            for (j, c) in cand.iter().enumerate() {
                cuts[id * stride + 1 + j] = *c;
            }
            count[id] = (1 + cand.len()) as u8;
        }
        Cuts { stride, cuts, count }
    }

    /// The non-trivial cuts of node `n`.
    #[must_use]
    pub fn of(&self, n: usize) -> &[Cut] {
        let s = n * self.stride;
        &self.cuts[s + 1..s + self.count[n] as usize]
    }
}

/// Cuts of a [`Graph`] being rewritten, computed when first asked for on the graph as
/// it is then (as ABC's rewriting does): nodes created by earlier replacements get
/// cuts of their own, and a node's cuts see its current fan-ins.
pub(crate) struct LiveCuts {
    stride: usize,
    limit: usize,
    cuts: Vec<Cut>,
    /// Cuts stored per node, trivial included; 0 = not computed yet.
    count: Vec<u8>,
    cand: Vec<Cut>,
    stack: Vec<usize>,
}

impl LiveCuts {
    /// An empty store keeping at most `limit` (at most 254) non-trivial cuts per node.
    pub(crate) fn new(limit: usize) -> Self {
        let limit = limit.clamp(1, 254);
        LiveCuts {
            stride: limit + 1,
            limit,
            cuts: Vec::new(),
            count: Vec::new(),
            cand: Vec::new(),
            stack: Vec::new(),
        }
    }

    /// The non-trivial cuts of live node `n` (leaves may have been replaced since;
    /// resolve them through the graph).
    pub(crate) fn of(&mut self, g: &mut Graph, n: usize) -> &[Cut] {
        if self.count.len() < g.len() {
            self.count.resize(g.len(), 0);
            self.cuts.resize(g.len() * self.stride, Cut::default());
        }
        self.stack.clear();
        self.stack.push(n);
        while let Some(&m) = self.stack.last() {
            if self.count[m] != 0 {
                self.stack.pop();
                continue;
            }
            self.cuts[m * self.stride] = Cut::trivial(m);
            if !g.is_and(m) {
                self.count[m] = 1;
                self.stack.pop();
                continue;
            }
            let [a, b] = g.fanins(m);
            let (na, nb) = (a.node(), b.node());
            if na == 0 || nb == 0 {
                self.count[m] = 1;
                self.stack.pop();
                continue;
            }
            let pending: Vec<usize> = [na, nb].into_iter().filter(|&f| self.count[f] == 0).collect();
            if !pending.is_empty() {
                self.stack.extend(pending);
                continue;
            }
            let s = self.stride;
            let (ca, cb) = (self.count[na] as usize, self.count[nb] as usize);
            merge_fanins(
                &self.cuts[na * s..na * s + ca],
                a.is_complement(),
                &self.cuts[nb * s..nb * s + cb],
                b.is_complement(),
                self.limit,
                &mut self.cand,
            );
            for (j, c) in self.cand.iter().enumerate() {
                self.cuts[m * s + 1 + j] = *c;
            }
            self.count[m] = (1 + self.cand.len()) as u8;
            self.stack.pop();
        }
        let s = n * self.stride;
        &self.cuts[s + 1..s + self.count[n] as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_functions_match_simulation() {
        let mut g = Aig::new(4);
        let x: Vec<_> = (0..4).map(|i| g.input(i)).collect();
        let a = g.and(x[0], !x[1]);
        let b = g.xor(x[2], x[3]);
        let c = g.and(!a, b);
        let d = g.or(c, x[1]);
        g.add_output(d);
        let cuts = Cuts::enumerate(&g, 8);
        let root = d.node();
        let four = cuts.of(root).iter().find(|c| c.leaves() == [1, 2, 3, 4]).expect("the input cut");
        for s in 0..16usize {
            let bits: Vec<bool> = (0..4).map(|i| s >> i & 1 == 1).collect();
            // d is complemented at the output; the node computes !d.
            assert_eq!(four.tt >> s & 1 == 1, !g.eval_one(&bits)[0], "minterm {s}");
        }
    }
}

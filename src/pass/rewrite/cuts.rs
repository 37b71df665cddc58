//! 4-feasible cut enumeration with truth tables: every AND node gets up to `limit`
//! cuts of at most four leaves (besides the trivial cut), built bottom-up by merging its
//! fan-ins' cuts, dominated cuts dropped, smallest first.

use crate::aig::Aig;

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
            cand.clear();
            let (na, nb) = (a.node(), b.node());
            let (ca, cb) = (count[na] as usize, count[nb] as usize);
            if na == 0 || nb == 0 {
                cuts[id * stride] = Cut::trivial(id);
                count[id] = 1;
                continue;
            }
            for x in &cuts[na * stride..na * stride + ca] {
                for y in &cuts[nb * stride..nb * stride + cb] {
                    let Some(mut c) = merge(x, y) else { continue };
                    if cand.iter().any(|o| o.subset_of(&c)) {
                        continue;
                    }
                    cand.retain(|o| !c.subset_of(o));
                    let ta = stretch(x.tt, x, &c) ^ if a.is_complement() { 0xFFFF } else { 0 };
                    let tb = stretch(y.tt, y, &c) ^ if b.is_complement() { 0xFFFF } else { 0 };
                    c.tt = ta & tb;
                    cand.push(c);
                }
            }
            cand.sort_by_key(|c| c.size);
            cand.truncate(limit);
            cuts[id * stride] = Cut::trivial(id);
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

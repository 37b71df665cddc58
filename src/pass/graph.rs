//! A mutable AIG for local rewriting (`rewrite`, `refactor`): fan-in pairs, reference
//! counts, a structural hash table and forwarding of replaced nodes, after ABC's
//! in-place network.
//!
//! A replaced node forwards to its replacement; its fan-outs read through the
//! forwarding ([`Graph::resolve`]) and are re-hashed when their turn comes
//! ([`Graph::normalize`]). Reference counts always count resolved references, so a
//! node whose count drops to zero is dead at once (its cone is released with it).
//! [`Graph::cost`] dry-runs a candidate structure against the graph: it dereferences the
//! root's maximum fan-out-free cone (MFFC) above the leaves, counts the structure's
//! nodes that would be new, and restores the counts.

use crate::aig::{Aig, KeyHasher, Lit};
use std::collections::HashMap;
use std::hash::BuildHasherDefault;

const NONE: Lit = Lit(u32::MAX);

fn key(a: Lit, b: Lit) -> u64 {
    u64::from(a.0) << 32 | u64::from(b.0)
}

fn with_phase(l: Lit, c: bool) -> Lit {
    Lit(l.0 ^ u32::from(c))
}

/// The mutable graph.
pub(crate) struct Graph {
    n_in: usize,
    fan: Vec<[Lit; 2]>,
    refs: Vec<u32>,
    fwd: Vec<Lit>,
    dead: Vec<bool>,
    hash: HashMap<u64, u32, BuildHasherDefault<KeyHasher>>,
    outputs: Vec<Lit>,
    stack: Vec<usize>,
    leaf_mark: Vec<u32>,
    level: Vec<u32>,
    trav: u32,
}

impl Graph {
    /// The graph of `aig`.
    pub(crate) fn from_aig(aig: &Aig) -> Self {
        let base = aig.n_inputs() + 1;
        let n = base + aig.n_ands();
        let mut g = Graph {
            n_in: aig.n_inputs(),
            fan: vec![[Lit::FALSE; 2]; base],
            refs: vec![0; base],
            fwd: vec![NONE; base],
            dead: vec![false; base],
            hash: HashMap::with_capacity_and_hasher(n, BuildHasherDefault::default()),
            outputs: aig.outputs().to_vec(),
            stack: Vec::new(),
            leaf_mark: vec![0; base],
            level: vec![0; base],
            trav: 0,
        };
        g.fan.reserve(n);
        for &(a, b) in aig.ands() {
            g.push(a, b);
        }
        for &l in aig.outputs() {
            g.refs[l.node()] += 1;
        }
        g
    }

    /// Number of node slots (constant, inputs, live and dead ANDs).
    pub(crate) fn len(&self) -> usize {
        self.fan.len()
    }

    /// Whether `n` is an AND node.
    pub(crate) fn is_and(&self, n: usize) -> bool {
        n > self.n_in
    }

    /// Whether `n` was released or replaced.
    pub(crate) fn is_dead(&self, n: usize) -> bool {
        self.dead[n]
    }

    /// Reference count of `n` (resolved references, outputs included).
    pub(crate) fn refs(&self, n: usize) -> u32 {
        self.refs[n]
    }

    /// Logic level of `n` when it was created.
    pub(crate) fn level(&self, n: usize) -> u32 {
        self.level[n]
    }

    /// The fan-ins of AND node `n`, resolved.
    pub(crate) fn fanins(&mut self, n: usize) -> [Lit; 2] {
        let [a, b] = self.fan[n];
        [self.resolve(a), self.resolve(b)]
    }

    fn push(&mut self, a: Lit, b: Lit) -> Lit {
        let (a, b) = if a <= b { (a, b) } else { (b, a) };
        let id = self.fan.len();
        self.fan.push([a, b]);
        self.refs.push(0);
        self.fwd.push(NONE);
        self.dead.push(false);
        self.leaf_mark.push(0);
        self.level.push(1 + self.level[a.node()].max(self.level[b.node()]));
        self.refs[a.node()] += 1;
        self.refs[b.node()] += 1;
        self.hash.entry(key(a, b)).or_insert(id as u32);
        Lit((id * 2) as u32)
    }

    /// The live literal `l` stands for, following replacements.
    pub(crate) fn resolve(&mut self, l: Lit) -> Lit {
        let mut cur = l;
        while self.fwd[cur.node()] != NONE {
            let f = self.fwd[cur.node()];
            cur = with_phase(f, cur.is_complement());
        }
        // Path compression for the first hop.
        if cur.node() != l.node() {
            self.fwd[l.node()] = with_phase(cur, l.is_complement());
        }
        cur
    }

    /// `a & b` if it exists or folds to a literal, without creating anything.
    pub(crate) fn lookup(&self, a: Lit, b: Lit) -> Option<Lit> {
        let (a, b) = if a <= b { (a, b) } else { (b, a) };
        if a == Lit::FALSE || a == !b {
            return Some(Lit::FALSE);
        }
        if a == Lit::TRUE || a == b {
            return Some(b);
        }
        self.hash.get(&key(a, b)).map(|&n| Lit(n * 2))
    }

    /// `a & b`, reusing an existing node or creating one (with no references yet).
    pub(crate) fn and(&mut self, a: Lit, b: Lit) -> Lit {
        match self.lookup(a, b) {
            Some(l) => l,
            None => self.push(a, b),
        }
    }

    /// Re-hashes AND node `n` on its resolved fan-ins; it may merge into an equal node
    /// or fold to a literal (then it is replaced and dies).
    pub(crate) fn normalize(&mut self, n: usize) {
        let old = self.fan[n];
        let [a, b] = self.fanins(n);
        let (a, b) = if a <= b { (a, b) } else { (b, a) };
        if [a, b] == old {
            return;
        }
        if self.hash.get(&key(old[0], old[1])) == Some(&(n as u32)) {
            self.hash.remove(&key(old[0], old[1]));
        }
        self.fan[n] = [a, b];
        match self.lookup(a, b) {
            Some(l) if l.node() != n => self.replace(n, l),
            _ => {
                self.hash.insert(key(a, b), n as u32);
            }
        }
    }

    /// Replaces live AND node `n` by `by` (which must not depend on `n`) and releases what
    /// only `n` used.
    pub(crate) fn replace(&mut self, n: usize, by: Lit) {
        self.refs[by.node()] += self.refs[n];
        self.refs[n] = 0;
        self.fwd[n] = by;
        self.kill(n);
    }

    /// Marks `n` dead and releases its fan-ins, recursively.
    fn kill(&mut self, n: usize) {
        let mut stack = std::mem::take(&mut self.stack);
        stack.push(n);
        while let Some(m) = stack.pop() {
            self.dead[m] = true;
            let [a, b] = self.fan[m];
            if self.hash.get(&key(a, b)) == Some(&(m as u32)) {
                self.hash.remove(&key(a, b));
            }
            for f in [a, b] {
                let f = self.resolve(f).node();
                self.refs[f] -= 1;
                if self.refs[f] == 0 && self.is_and(f) && !self.dead[f] {
                    stack.push(f);
                }
            }
        }
        self.stack = stack;
    }

    /// Dereferences the cone of `root` above `leaves`; returns the MFFC size (root
    /// included). Undo with [`Graph::reref`].
    fn deref(&mut self, root: usize, leaves: &[Lit]) -> usize {
        self.trav += 1;
        for l in leaves {
            self.leaf_mark[l.node()] = self.trav;
        }
        let mut count = 0;
        let mut stack = std::mem::take(&mut self.stack);
        stack.push(root);
        while let Some(m) = stack.pop() {
            count += 1;
            for f in self.fanins(m) {
                let f = f.node();
                if !self.is_and(f) || self.leaf_mark[f] == self.trav {
                    continue;
                }
                self.refs[f] -= 1;
                if self.refs[f] == 0 {
                    stack.push(f);
                }
            }
        }
        self.stack = stack;
        count
    }

    /// The size of the MFFC of `root` above `leaves` (root included).
    pub(crate) fn mffc_size(&mut self, root: usize, leaves: &[Lit]) -> usize {
        let m = self.deref(root, leaves);
        self.reref(root);
        m
    }

    /// The nodes of the MFFC of `root` above `leaves` (root included).
    pub(crate) fn mffc_nodes(&mut self, root: usize, leaves: &[usize]) -> Vec<usize> {
        self.trav += 1;
        for &l in leaves {
            self.leaf_mark[l] = self.trav;
        }
        let mut out = Vec::new();
        let mut stack = vec![root];
        while let Some(m) = stack.pop() {
            out.push(m);
            for f in self.fanins(m) {
                let f = f.node();
                if !self.is_and(f) || self.leaf_mark[f] == self.trav {
                    continue;
                }
                self.refs[f] -= 1;
                if self.refs[f] == 0 {
                    stack.push(f);
                }
            }
        }
        self.reref(root);
        out
    }

    fn reref(&mut self, root: usize) {
        let mut stack = std::mem::take(&mut self.stack);
        stack.push(root);
        while let Some(m) = stack.pop() {
            for f in self.fanins(m) {
                let f = f.node();
                if !self.is_and(f) || self.leaf_mark[f] == self.trav {
                    continue;
                }
                if self.refs[f] == 0 {
                    stack.push(f);
                }
                self.refs[f] += 1;
            }
        }
        self.stack = stack;
    }

    /// `Some((mffc, added))` for replacing `root` by `s` (an AIG whose inputs are
    /// `leaves`, complement included): the nodes the replacement frees and the nodes
    /// it adds; `None` if the structure reads `root` itself or is `root`.
    pub(crate) fn cost(&mut self, root: usize, s: &Aig, leaves: &[Lit]) -> Option<(usize, usize)> {
        let mffc = self.deref(root, leaves);
        let r = self.added(root, s, leaves);
        self.reref(root);
        r.map(|a| (mffc, a))
    }

    fn added(&self, root: usize, s: &Aig, leaves: &[Lit]) -> Option<usize> {
        let mut map: Vec<Lit> = Vec::with_capacity(1 + leaves.len() + s.n_ands());
        map.push(Lit::FALSE);
        map.extend_from_slice(leaves);
        let tr = |map: &[Lit], l: Lit| {
            let m = map[l.node()];
            if m == NONE { NONE } else { with_phase(m, l.is_complement()) }
        };
        let mut added = 0;
        for &(a, b) in s.ands() {
            let (x, y) = (tr(&map, a), tr(&map, b));
            let l = if x == NONE || y == NONE { None } else { self.lookup(x, y) };
            match l {
                Some(l) => {
                    if l.node() == root {
                        return None;
                    }
                    if self.is_and(l.node()) && self.refs[l.node()] == 0 {
                        added += 1;
                    }
                    map.push(l);
                }
                None => {
                    added += 1;
                    map.push(NONE);
                }
            }
        }
        let o = s.outputs()[0];
        let out = tr(&map, o);
        if out != NONE && out.node() == root {
            return None;
        }
        Some(added)
    }

    /// The level `s` built on `leaves` would have (existing nodes at their level).
    pub(crate) fn structure_level(&self, s: &Aig, leaves: &[Lit]) -> u32 {
        let mut lev: Vec<u32> = Vec::with_capacity(1 + leaves.len() + s.n_ands());
        lev.push(0);
        lev.extend(leaves.iter().map(|l| self.level[l.node()]));
        for &(a, b) in s.ands() {
            lev.push(1 + lev[a.node()].max(lev[b.node()]));
        }
        lev[s.outputs()[0].node()]
    }

    /// Builds `s` on `leaves` and replaces `root` by its output (complemented with
    /// `out_neg`).
    pub(crate) fn apply(&mut self, root: usize, s: &Aig, leaves: &[Lit], out_neg: bool) {
        let mut map: Vec<Lit> = Vec::with_capacity(1 + leaves.len() + s.n_ands());
        map.push(Lit::FALSE);
        map.extend_from_slice(leaves);
        for &(a, b) in s.ands() {
            let x = with_phase(map[a.node()], a.is_complement());
            let y = with_phase(map[b.node()], b.is_complement());
            let l = self.and(x, y);
            map.push(l);
        }
        let o = s.outputs()[0];
        let out = with_phase(with_phase(map[o.node()], o.is_complement()), out_neg);
        // Nodes of the structure nobody ended up reading (folded away) die with no refs;
        // they stay unreachable and the final rebuild drops them.
        self.replace(root, out);
    }

    /// The live AIG, rebuilt from the outputs in topological order.
    pub(crate) fn extract(&mut self) -> Aig {
        let base = self.n_in + 1;
        let mut out = Aig::new(self.n_in);
        let mut map: Vec<Lit> = vec![NONE; self.fan.len()];
        for (n, m) in map.iter_mut().enumerate().take(base) {
            *m = Lit((n * 2) as u32);
        }
        let outs: Vec<Lit> = self.outputs.clone().into_iter().map(|l| self.resolve(l)).collect();
        let mut stack: Vec<(usize, bool)> = Vec::new();
        for &o in &outs {
            stack.push((o.node(), false));
            while let Some((n, expanded)) = stack.pop() {
                if map[n] != NONE {
                    continue;
                }
                let [a, b] = self.fanins(n);
                if expanded {
                    let x = with_phase(map[a.node()], a.is_complement());
                    let y = with_phase(map[b.node()], b.is_complement());
                    map[n] = out.and(x, y);
                } else {
                    stack.push((n, true));
                    for f in [a, b] {
                        if map[f.node()] == NONE {
                            stack.push((f.node(), false));
                        }
                    }
                }
            }
        }
        for o in outs {
            out.add_output(with_phase(map[o.node()], o.is_complement()));
        }
        out
    }
}

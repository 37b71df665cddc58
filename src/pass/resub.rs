//! `resub`: windowed resubstitution. For every AND node, a reconvergence-driven window
//! (at most `max_leaves` leaves) is simulated exhaustively over its leaves, which makes
//! every truth table a complete proof inside the window; the node is then re-expressed
//! as an existing divisor (0-resub), the AND of two divisors (1-resub) or an AND of
//! three (2-resub), with any complements, when that frees more of its MFFC than it adds.
//! Divisors are the window's leaves, its nodes outside the root's MFFC, and the nodes
//! whose two fan-ins are in the window.

use super::LocalStats;
use super::graph::Graph;
use super::local::{LocalPass, shorter, visit_nodes};
use crate::aig::{Aig, Lit};
use std::time::Duration;

/// Parameters of [`resub`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResubParams {
    /// Most leaves of a window (at most 10: tables of 16 words).
    pub max_leaves: usize,
    /// Most divisors tried per node.
    pub max_divisors: usize,
    /// Also try two-node resubstitutions.
    pub two_nodes: bool,
    /// Wall-clock limit: the pass stops between two nodes once it has passed, keeping
    /// the replacements made so far (`None`: no limit).
    pub time_limit: Option<Duration>,
}

impl Default for ResubParams {
    fn default() -> Self {
        Self { max_leaves: 8, max_divisors: 60, two_nodes: true, time_limit: None }
    }
}

const WORDS: usize = 16;
type Tt = [u64; WORDS];

fn var_table(i: usize) -> Tt {
    let mut t = [0u64; WORDS];
    for (w, word) in t.iter_mut().enumerate() {
        for b in 0..64 {
            if ((w * 64 + b) >> i) & 1 == 1 {
                *word |= 1 << b;
            }
        }
    }
    t
}

/// Resubstitution of `aig`.
#[must_use]
pub fn resub(aig: &Aig, params: &ResubParams) -> (Aig, LocalStats) {
    let mut stats = LocalStats::default();
    let mut by_added = [0usize; 3];
    let mut g = Graph::from_aig(aig);
    let k = params.max_leaves.min(10);
    let words = (1usize << k).div_ceil(64);
    let vars: Vec<Tt> = (0..k).map(var_table).collect();
    let mut win = super::refactor::Window::default();
    let mut slot: Vec<u32> = Vec::new();
    let mut stamp: Vec<u32> = Vec::new();
    let mut tts: Vec<Tt> = Vec::new();
    let (fo_start, fo) = fanouts(aig);
    let (nodes, out_of_time) = visit_nodes(&mut g, aig, params.time_limit, |g, n| {
        if !win.cut(g, n, k, 200, false, false) || win.cone.len() < 2 {
            return;
        }
        stats.tried += 1;
        if slot.len() < g.len() {
            slot.resize(g.len(), u32::MAX);
            stamp.resize(g.len(), 0);
        }
        let id = stats.tried as u32;
        // Simulate: leaves, then the cone in topological order.
        tts.clear();
        tts.push([0; WORDS]);
        slot[0] = 0;
        for (i, &l) in win.leaves.iter().enumerate() {
            slot[l] = tts.len() as u32;
            stamp[l] = id;
            tts.push(vars[i]);
        }
        for &m in &win.cone {
            let [a, b] = g.fanins(m);
            let (ta, tb) = (&tts[slot[a.node()] as usize], &tts[slot[b.node()] as usize]);
            let (ma, mb) = (if a.is_complement() { !0 } else { 0 }, if b.is_complement() { !0 } else { 0 });
            let mut t = [0u64; WORDS];
            for i in 0..words {
                t[i] = (ta[i] ^ ma) & (tb[i] ^ mb);
            }
            slot[m] = tts.len() as u32;
            stamp[m] = id;
            tts.push(t);
        }
        // Divisors beyond the cone: fan-outs of window nodes whose fan-ins are both in
        // the window (and which do not read the root).
        let mut outside = Vec::new();
        for &w in win.leaves.iter().chain(&win.cone) {
            if w + 1 >= fo_start.len() {
                continue;
            }
            for &m in &fo[fo_start[w] as usize..fo_start[w + 1] as usize] {
                let m = m as usize;
                if outside.len() >= params.max_divisors || g.is_dead(m) || stamp[m] == id {
                    continue;
                }
                let [a, b] = g.fanins(m);
                let inside = |x: Lit| x.node() != n && stamp[x.node()] == id;
                if !inside(a) || !inside(b) {
                    continue;
                }
                let (ta, tb) = (&tts[slot[a.node()] as usize], &tts[slot[b.node()] as usize]);
                let (ma, mb) =
                    (if a.is_complement() { !0 } else { 0 }, if b.is_complement() { !0 } else { 0 });
                let mut t = [0u64; WORDS];
                for i in 0..words {
                    t[i] = (ta[i] ^ ma) & (tb[i] ^ mb);
                }
                slot[m] = tts.len() as u32;
                stamp[m] = id;
                tts.push(t);
                outside.push(m);
            }
        }
        let target = tts[slot[n] as usize];
        // The MFFC inside the window: nodes that die with the root.
        let mffc = g.mffc_nodes(n, &win.leaves);
        let mut divs: Vec<usize> = win.leaves.clone();
        divs.extend(win.cone.iter().copied().filter(|m| *m != n && !mffc.contains(m)));
        divs.extend(outside);
        divs.truncate(params.max_divisors);
        let eq = |t: &Tt, neg: bool| {
            (0..words).all(|i| (t[i] ^ if neg { !0 } else { 0 }) & mask(k, i) == target[i] & mask(k, i))
        };
        let lit = |d: usize, neg: bool| Lit((d * 2) as u32 ^ u32::from(neg));
        // 0-resub: a constant or a divisor.
        let mut done = false;
        for neg in [false, true] {
            if !done && eq(&tts[0], neg) {
                g.replace(n, Lit(u32::from(neg)));
                by_added[0] += 1;
                stats.estimated_gain += mffc.len();
                done = true;
            }
        }
        for &d in &divs {
            for neg in [false, true] {
                if eq(&tts[slot[d] as usize], neg) {
                    g.replace(n, lit(d, neg));
                    by_added[0] += 1;
                    stats.estimated_gain += mffc.len();
                    done = true;
                    break;
                }
            }
            if done {
                break;
            }
        }
        if done || mffc.len() < 2 {
            return;
        }
        // 1-resub: target = (d1 ^ p) & (d2 ^ q), or its complement.
        'one: for (i, &d1) in divs.iter().enumerate() {
            for &d2 in &divs[i + 1..] {
                let (t1, t2) = (&tts[slot[d1] as usize], &tts[slot[d2] as usize]);
                for p in [false, true] {
                    for q in [false, true] {
                        for out in [false, true] {
                            let ok = (0..words).all(|w| {
                                let v = (t1[w] ^ if p { !0 } else { 0 }) & (t2[w] ^ if q { !0 } else { 0 });
                                (v ^ if out { !0 } else { 0 }) & mask(k, w) == target[w] & mask(k, w)
                            });
                            if ok {
                                let a = g.and(lit(d1, p), lit(d2, q));
                                if a.node() == n {
                                    continue;
                                }
                                g.replace(n, Lit(a.0 ^ u32::from(out)));
                                by_added[1] += 1;
                                stats.estimated_gain += mffc.len() - 1;
                                done = true;
                                break 'one;
                            }
                        }
                    }
                }
            }
        }
        if done || mffc.len() < 3 || !params.two_nodes {
            return;
        }
        // 2-resub: target = (d1 ^ p) & ((d2 ^ q) & (d3 ^ r)), or its complement: find a
        // pair product first, then a third divisor.
        let nd = divs.len().min(24);
        'two: for i in 0..nd {
            for j in i + 1..nd {
                for pq in 0..4u8 {
                    let (t1, t2) = (&tts[slot[divs[i]] as usize], &tts[slot[divs[j]] as usize]);
                    let (p, q) = (pq & 1 == 1, pq & 2 == 2);
                    let mut pair = [0u64; WORDS];
                    for w in 0..words {
                        pair[w] = (t1[w] ^ if p { !0 } else { 0 }) & (t2[w] ^ if q { !0 } else { 0 });
                    }
                    for &d3 in &divs[..nd] {
                        if d3 == divs[i] || d3 == divs[j] {
                            continue;
                        }
                        let t3 = &tts[slot[d3] as usize];
                        for r in [false, true] {
                            for out in [false, true] {
                                let ok = (0..words).all(|w| {
                                    let v = pair[w] & (t3[w] ^ if r { !0 } else { 0 });
                                    (v ^ if out { !0 } else { 0 }) & mask(k, w) == target[w] & mask(k, w)
                                });
                                if ok {
                                    let a = g.and(lit(divs[i], p), lit(divs[j], q));
                                    if a.node() == n {
                                        continue;
                                    }
                                    let b = g.and(a, lit(d3, r));
                                    if b.node() == n {
                                        continue;
                                    }
                                    g.replace(n, Lit(b.0 ^ u32::from(out)));
                                    by_added[2] += 1;
                                    stats.estimated_gain += mffc.len() - 2;
                                    break 'two;
                                }
                            }
                        }
                    }
                }
            }
        }
    });
    stats.nodes = nodes;
    stats.out_of_time = out_of_time;
    stats.replaced = by_added.iter().sum();
    stats.by_added = Some(by_added);
    (g.extract(), stats)
}

/// Fan-out lists of the original AIG (CSR: node `n` feeds `fo[start[n]..start[n + 1]]`).
fn fanouts(aig: &Aig) -> (Vec<u32>, Vec<u32>) {
    let base = aig.n_inputs() + 1;
    let n = base + aig.n_ands();
    let mut start = vec![0u32; n + 1];
    for &(a, b) in aig.ands() {
        start[a.node() + 1] += 1;
        start[b.node() + 1] += 1;
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut fo = vec![0u32; start[n] as usize];
    for (k, &(a, b)) in aig.ands().iter().enumerate() {
        for x in [a, b] {
            fo[fill[x.node()] as usize] = (base + k) as u32;
            fill[x.node()] += 1;
        }
    }
    (start, fo)
}

/// Valid bits of word `w` of a table over `k` variables.
fn mask(k: usize, w: usize) -> u64 {
    if k >= 6 {
        let _ = w;
        u64::MAX
    } else {
        (1u64 << (1u32 << k)) - 1
    }
}

/// The `resub` pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct Resub {
    /// Its parameters.
    pub params: ResubParams,
}

impl LocalPass for Resub {
    fn script_name(&self) -> &'static str {
        "resub"
    }
    fn zero_gain(&self) -> bool {
        false
    }
    fn optimise(&self, aig: &Aig, limit: Option<Duration>) -> (Aig, LocalStats) {
        resub(aig, &ResubParams { time_limit: shorter(self.params.time_limit, limit), ..self.params })
    }
}

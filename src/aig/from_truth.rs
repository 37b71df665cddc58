//! AIGs synthesised from complete truth tables: Shannon expansion with sharing (a
//! reduced, ordered decomposition with complemented edges, like a BDD built as
//! multiplexers), searched over variable orders.
//!
//! Sub-functions are hashed per level up to complement, so equal cofactors within one
//! output and across outputs become one AIG node; a cofactor pair that is equal skips the
//! variable, a complementary pair is an XOR, a constant one an AND or OR. The order is
//! the smallest found among the natural order, its reverse, the two halves of the inputs
//! interleaved (both ways: word operands side by side), seeded random orders and
//! sifting moves (each variable tried at every position) within a build budget.

use super::{Aig, Lit};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use std::collections::HashMap;

/// Options of [`Aig::from_truth_tables`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TruthSynthParams {
    /// Seeded random variable orders tried besides the natural one and its reverse.
    pub random_orders: usize,
    /// Sifting rounds on the best order (each tries every variable at every position).
    pub sift_rounds: usize,
    /// Most decompositions built in all (the search stops there).
    pub max_builds: usize,
    /// Seed of the random orders.
    pub seed: u64,
}

impl Default for TruthSynthParams {
    fn default() -> Self {
        Self { random_orders: 4, sift_rounds: 2, max_builds: 600, seed: 0 }
    }
}

/// What [`Aig::from_truth_tables`] did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TruthSynthStats {
    /// AND nodes of the result.
    pub ands: usize,
    /// Decompositions built.
    pub builds: usize,
    /// Whether the budget stopped the search.
    pub budget_hit: bool,
    /// The variable order used, top (first split) first.
    pub order: Vec<usize>,
}

/// All-ones on the `2^k` valid bits of a one-word table.
fn full(k: usize) -> u64 {
    if k >= 6 { u64::MAX } else { (1u64 << (1 << k)) - 1 }
}

/// Complements a literal if `neg`.
fn cond(l: Lit, neg: bool) -> Lit {
    Lit(l.0 ^ u32::from(neg))
}

struct Builder<'a> {
    aig: Aig,
    /// Input driving level `p` (level `k - 1` is split first).
    level_input: &'a [usize],
    small: HashMap<(u8, u64), Lit>,
    big: HashMap<Vec<u64>, Lit>,
}

impl Builder<'_> {
    fn small(&mut self, t: u64, k: usize) -> Lit {
        let t = t & full(k);
        if t == 0 {
            return Lit::FALSE;
        }
        if t == full(k) {
            return Lit::TRUE;
        }
        let neg = t & 1 == 1;
        let key = if neg { !t & full(k) } else { t };
        if let Some(&l) = self.small.get(&(k as u8, key)) {
            return cond(l, neg);
        }
        let half = 1u32 << (k - 1);
        let (lo, hi) = (key & full(k - 1), key >> half);
        let r = if lo == hi {
            self.small(lo, k - 1)
        } else {
            let (l, h) = (self.small(lo, k - 1), self.small(hi, k - 1));
            self.join(k, l, h, lo & !hi == 0, hi & !lo == 0)
        };
        self.small.insert((k as u8, key), r);
        cond(r, neg)
    }

    /// `s ? h : l` for the input of level `k - 1`: two ANDs instead of three when one
    /// cofactor implies the other (`l <= h`: `l | s h`; `h <= l`: `l & !(s !h)`).
    fn join(&mut self, k: usize, l: Lit, h: Lit, l_in_h: bool, h_in_l: bool) -> Lit {
        let s = self.aig.input(self.level_input[k - 1]);
        if l_in_h {
            let sh = self.aig.and(s, h);
            self.aig.or(l, sh)
        } else if h_in_l {
            let snh = self.aig.and(s, !h);
            self.aig.and(l, !snh)
        } else {
            self.aig.mux(s, l, h)
        }
    }

    fn big(&mut self, t: &[u64], k: usize) -> Lit {
        if k <= 6 {
            return self.small(t[0], k);
        }
        if t.iter().all(|&w| w == 0) {
            return Lit::FALSE;
        }
        if t.iter().all(|&w| w == u64::MAX) {
            return Lit::TRUE;
        }
        let neg = t[0] & 1 == 1;
        let key: Vec<u64> = if neg { t.iter().map(|w| !w).collect() } else { t.to_vec() };
        if let Some(&l) = self.big.get(&key) {
            return cond(l, neg);
        }
        let half = key.len() / 2;
        let (lo, hi) = key.split_at(half);
        let r = if lo == hi {
            self.big(lo, k - 1)
        } else {
            let (l, h) = (self.big(lo, k - 1), self.big(hi, k - 1));
            let lo_in_hi = lo.iter().zip(hi).all(|(a, b)| a & !b == 0);
            let hi_in_lo = lo.iter().zip(hi).all(|(a, b)| b & !a == 0);
            self.join(k, l, h, lo_in_hi, hi_in_lo)
        };
        // Tables of different sizes never share a key: the length tells them apart.
        self.big.insert(key, r);
        cond(r, neg)
    }
}

/// `t` with its variables permuted: variable `p` of the result is variable `level[p]`
/// of `t`.
fn permute(t: &[u64], n: usize, level: &[usize]) -> Vec<u64> {
    let mut out = vec![0u64; t.len()];
    for s in 0..1usize << n {
        if t[s / 64] >> (s % 64) & 1 == 1 {
            let mut d = 0;
            for (p, &v) in level.iter().enumerate() {
                d |= (s >> v & 1) << p;
            }
            out[d / 64] |= 1 << (d % 64);
        }
    }
    out
}

/// The decomposition of `tables` splitting on `order[0]` first.
fn build(n: usize, tables: &[Vec<u64>], order: &[usize]) -> Aig {
    // Level p is split after every level above it; the first split is level n - 1.
    let level_input: Vec<usize> = order.iter().rev().copied().collect();
    let mut b =
        Builder { aig: Aig::new(n), level_input: &level_input, small: HashMap::new(), big: HashMap::new() };
    for t in tables {
        let p = permute(t, n, &level_input);
        let l = b.big(&p, n);
        b.aig.add_output(l);
    }
    b.aig.swept()
}

impl Aig {
    /// An AIG computing `tables` over `n` inputs (bit `s` of a table is the output on the
    /// input pattern whose input `i` is bit `i` of `s`), one output per table.
    ///
    /// # Panics
    /// If a table does not have `2^n` bits (rounded up to whole words).
    #[must_use]
    pub fn from_truth_tables(
        n: usize,
        tables: &[Vec<u64>],
        params: &TruthSynthParams,
    ) -> (Aig, TruthSynthStats) {
        let words = (1usize << n).div_ceil(64);
        assert!(tables.iter().all(|t| t.len() == words), "one table of 2^n bits per output");
        let mut builds = 0;
        let mut try_order = |order: &[usize], best: &mut Option<(Aig, Vec<usize>)>| -> bool {
            if builds >= params.max_builds {
                return false;
            }
            builds += 1;
            let g = build(n, tables, order);
            if best.as_ref().is_none_or(|(b, _)| g.n_ands() < b.n_ands()) {
                *best = Some((g, order.to_vec()));
            }
            true
        };
        let mut best: Option<(Aig, Vec<usize>)> = None;
        let natural: Vec<usize> = (0..n).collect();
        try_order(&natural, &mut best);
        let reversed: Vec<usize> = (0..n).rev().collect();
        try_order(&reversed, &mut best);
        // Operands side by side (a0 b0 a1 b1 ...): adders and comparators of two words.
        let h = n.div_ceil(2);
        let interleaved: Vec<usize> = (0..h).flat_map(|i| [i, i + h]).filter(|&v| v < n).collect();
        try_order(&interleaved, &mut best);
        let back: Vec<usize> = interleaved.iter().rev().copied().collect();
        try_order(&back, &mut best);
        let mut rng = ChaCha8Rng::seed_from_u64(params.seed);
        for _ in 0..params.random_orders {
            let mut o = natural.clone();
            o.shuffle(&mut rng);
            try_order(&o, &mut best);
        }
        let mut budget_hit = false;
        'sift: for _ in 0..params.sift_rounds {
            let before = best.as_ref().map_or(0, |(g, _)| g.n_ands());
            for v in 0..n {
                let base: Vec<usize> = best.as_ref().map(|(_, o)| o.clone()).unwrap_or_default();
                let rest: Vec<usize> = base.iter().copied().filter(|&x| x != v).collect();
                for pos in 0..n {
                    let mut o = rest.clone();
                    o.insert(pos, v);
                    if o == base {
                        continue;
                    }
                    if !try_order(&o, &mut best) {
                        budget_hit = true;
                        break 'sift;
                    }
                }
            }
            if best.as_ref().map_or(0, |(g, _)| g.n_ands()) == before {
                break;
            }
        }
        let (g, order) = best.expect("the natural order is always built");
        let stats = TruthSynthStats { ands: g.n_ands(), builds, budget_hit, order };
        (g, stats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pass::cec::all_patterns;

    fn check(n: usize, tables: &[Vec<u64>]) -> Aig {
        let (g, stats) = Aig::from_truth_tables(n, tables, &TruthSynthParams::default());
        assert_eq!(stats.ands, g.n_ands());
        let sim = g.simulate(&all_patterns(n));
        for (j, t) in tables.iter().enumerate() {
            for s in 0..1usize << n {
                let want = t[s / 64] >> (s % 64) & 1 == 1;
                assert_eq!(sim.get(j, s), want, "output {j} minterm {s}");
            }
        }
        g
    }

    #[test]
    fn random_and_structured_functions_are_exact() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for n in [1usize, 2, 5, 6, 7, 9] {
            let words = (1usize << n).div_ceil(64);
            let tables: Vec<Vec<u64>> =
                (0..3).map(|_| (0..words).map(|_| next() & full(n)).collect()).collect();
            check(n, &tables);
        }
        // An 8-bit parity is 7 XORs (21 ANDs), whatever the order.
        let parity: Vec<u64> = (0..4)
            .map(|w| (0..64).fold(0u64, |a, b| a | u64::from(((w * 64 + b) as u32).count_ones() & 1) << b))
            .collect();
        assert_eq!(check(8, &[parity]).n_ands(), 21);
    }

    #[test]
    fn order_search_finds_the_linear_order_of_a_comparator_like_function() {
        // f = x0 x4 | x1 x5 | x2 x6 | x3 x7: exponential in the natural order, linear when
        // each pair is adjacent; the search must find a small one.
        let n = 8;
        let t: Vec<u64> = (0..4)
            .map(|w| {
                (0..64).fold(0u64, |a, b| {
                    let s = w * 64 + b;
                    let f = (0..4).any(|i| s >> i & 1 == 1 && s >> (i + 4) & 1 == 1);
                    a | u64::from(f) << b
                })
            })
            .collect();
        let natural = build(n, std::slice::from_ref(&t), &(0..n).collect::<Vec<_>>()).n_ands();
        let g = check(n, &[t]);
        assert!(g.n_ands() <= 10 && 2 * g.n_ands() < natural, "{} ANDs, natural order {natural}", g.n_ands());
    }
}

//! Fully grown decision trees that keep their node counts, so that one growth yields a
//! family of trees: truncations (depth and leaf-size limits, exactly what
//! [`Tree::fit`](super::tree::Tree::fit) grows with those limits) and C4.5's
//! error-based pruning (Quinlan, *C4.5: Programs for Machine Learning*, 1993: a
//! subtree is replaced by a leaf when the leaf's pessimistic error, the upper limit of
//! a binomial confidence interval at level `CF`, is no larger than the subtree's).
//! Splits are chosen by information gain or by C4.5's gain ratio (gain over the split's
//! own entropy, among the splits with at least average gain).

use super::tree::Tree;
use crate::lanes::{BitMatrix, tail_mask};

/// How a node chooses its test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Criterion {
    /// Largest information gain (ID3; the criterion of [`Tree::fit`]).
    InfoGain,
    /// Largest gain ratio among the tests with at least the average gain (C4.5).
    GainRatio,
}

/// Limits of growth.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GrowParams {
    /// Split criterion.
    pub criterion: Criterion,
    /// Deepest split level.
    pub max_depth: usize,
    /// A test is allowed only when both branches hold at least this many examples
    /// (C4.5's `-M`, 2 by default; 1 reproduces [`Tree::fit`]).
    pub min_branch: u64,
}

impl Default for GrowParams {
    fn default() -> Self {
        Self { criterion: Criterion::GainRatio, max_depth: 40, min_branch: 2 }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Node {
    /// Examples reaching the node, and how many of them are labelled 1.
    n: u64,
    n1: u64,
    /// `(feature, lo child, hi child)`.
    split: Option<(usize, usize, usize)>,
}

/// A grown tree with the example counts of every node (root at index 0).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GrownTree {
    nodes: Vec<Node>,
}

fn entropy(n1: u64, n: u64) -> f64 {
    if n == 0 || n1 == 0 || n1 == n {
        return 0.0;
    }
    let p = n1 as f64 / n as f64;
    -(p * p.log2() + (1.0 - p) * (1.0 - p).log2())
}

fn count(a: &[u64], b: &[u64]) -> u64 {
    a.iter().zip(b).map(|(x, y)| u64::from((x & y).count_ones())).sum()
}

impl GrownTree {
    /// Grows a tree on `x` (one row per input bit) for the labels in `y` (one row) until
    /// nodes are pure, no test gains, or `max_depth` is reached.
    #[must_use]
    pub fn grow(x: &BitMatrix, y: &BitMatrix, params: &GrowParams) -> Self {
        let mut mask = vec![u64::MAX; x.words()];
        if let Some(last) = mask.last_mut() {
            *last = tail_mask(x.examples());
        }
        let mut t = Self { nodes: Vec::new() };
        t.grow_node(x, y.row(0), mask, 0, params);
        t
    }

    fn grow_node(&mut self, x: &BitMatrix, y: &[u64], mask: Vec<u64>, depth: usize, p: &GrowParams) -> usize {
        let n: u64 = mask.iter().map(|w| u64::from(w.count_ones())).sum();
        let n1 = count(&mask, y);
        let id = self.nodes.len();
        self.nodes.push(Node { n, n1, split: None });
        if depth >= p.max_depth || n < 2 || n1 == 0 || n1 == n {
            return id;
        }
        let Some(f) = best_test(x, y, &mask, n, n1, p) else { return id };
        let hi: Vec<u64> = mask.iter().zip(x.row(f)).map(|(m, v)| m & v).collect();
        let lo: Vec<u64> = mask.iter().zip(x.row(f)).map(|(m, v)| m & !v).collect();
        drop(mask);
        let l = self.grow_node(x, y, lo, depth + 1, p);
        let h = self.grow_node(x, y, hi, depth + 1, p);
        self.nodes[id].split = Some((f, l, h));
        id
    }

    #[cfg(test)]
    /// Split nodes of the grown tree.
    #[must_use]
    pub fn splits(&self) -> usize {
        self.nodes.iter().filter(|n| n.split.is_some()).count()
    }

    /// The tree cut at depth `max_depth`, with nodes of fewer than `min_leaf` (at least
    /// 2) examples made leaves; equal to `Tree::fit` with those limits when grown by
    /// information gain with `min_branch` 1 and at least that depth.
    #[must_use]
    pub fn truncated(&self, max_depth: usize, min_leaf: u64) -> Tree {
        self.truncate_at(0, 0, max_depth, min_leaf.max(2))
    }

    fn truncate_at(&self, id: usize, depth: usize, max_depth: usize, min_leaf: u64) -> Tree {
        let node = &self.nodes[id];
        let majority = 2 * node.n1 >= node.n && node.n > 0;
        match node.split {
            Some((f, l, h)) if depth < max_depth && node.n >= min_leaf => {
                let lo = self.truncate_at(l, depth + 1, max_depth, min_leaf);
                let hi = self.truncate_at(h, depth + 1, max_depth, min_leaf);
                if lo == hi { lo } else { Tree::Split { feature: f, lo: Box::new(lo), hi: Box::new(hi) } }
            }
            _ => Tree::Leaf(majority),
        }
    }

    /// The tree after C4.5's error-based pruning at confidence `cf` (0.25 in C4.5; smaller
    /// prunes more), by subtree replacement.
    #[must_use]
    pub fn pruned(&self, cf: f64) -> Tree {
        let z = normal_quantile(1.0 - cf.clamp(1e-6, 0.5));
        self.prune_at(0, cf, z).0
    }

    /// The pruned subtree at `id` and its estimated errors.
    fn prune_at(&self, id: usize, cf: f64, z: f64) -> (Tree, f64) {
        let node = &self.nodes[id];
        let majority = 2 * node.n1 >= node.n && node.n > 0;
        let errors = node.n1.min(node.n - node.n1) as f64;
        let as_leaf = errors + added_errors(node.n as f64, errors, cf, z);
        let Some((f, l, h)) = node.split else { return (Tree::Leaf(majority), as_leaf) };
        let ((lo, el), (hi, eh)) = (self.prune_at(l, cf, z), self.prune_at(h, cf, z));
        if as_leaf <= el + eh + 0.1 {
            return (Tree::Leaf(majority), as_leaf);
        }
        let tree = if lo == hi { lo } else { Tree::Split { feature: f, lo: Box::new(lo), hi: Box::new(hi) } };
        (tree, el + eh)
    }
}

/// The feature to test at a node with `n` examples (`n1` labelled 1) under `mask`, or
/// `None` when no allowed test gains.
fn best_test(x: &BitMatrix, y: &[u64], mask: &[u64], n: u64, n1: u64, p: &GrowParams) -> Option<usize> {
    let h = entropy(n1, n);
    // Only the words where the node has examples (deep nodes touch few words).
    let active: Vec<usize> = (0..mask.len()).filter(|&w| mask[w] != 0).collect();
    let (m, yl): (Vec<u64>, Vec<u64>) = active.iter().map(|&w| (mask[w], y[w])).unzip();
    // (feature, gain, split entropy) of every allowed test.
    let mut tests: Vec<(usize, f64, f64)> = Vec::new();
    let min_branch = p.min_branch.max(1);
    for f in 0..x.rows() {
        let row = x.row(f);
        let (mut a, mut a1) = (0u64, 0u64);
        for ((&w, &mw), &yw) in active.iter().zip(&m).zip(&yl) {
            let b = mw & row[w];
            a += u64::from(b.count_ones());
            a1 += u64::from((b & yw).count_ones());
        }
        if a < min_branch || n - a < min_branch {
            continue;
        }
        let gain = h
            - (a as f64 / n as f64) * entropy(a1, a)
            - ((n - a) as f64 / n as f64) * entropy(n1 - a1, n - a);
        tests.push((f, gain, entropy(a, n)));
    }
    let best = match p.criterion {
        Criterion::InfoGain => {
            let mut best: Option<(f64, usize)> = None;
            for &(f, gain, _) in &tests {
                if best.is_none_or(|(g, _)| gain > g + 1e-12) {
                    best = Some((gain, f));
                }
            }
            best
        }
        Criterion::GainRatio => {
            let positive: Vec<&(usize, f64, f64)> = tests.iter().filter(|t| t.1 > 1e-9).collect();
            let mean = positive.iter().map(|t| t.1).sum::<f64>() / positive.len().max(1) as f64;
            let mut best: Option<(f64, usize, f64)> = None;
            for &&(f, gain, split) in &positive {
                if gain + 1e-12 < mean {
                    continue;
                }
                let ratio = gain / split.max(1e-12);
                if best.is_none_or(|(r, _, _)| ratio > r + 1e-12) {
                    best = Some((ratio, f, gain));
                }
            }
            best.map(|(_, f, gain)| (gain, f))
        }
    };
    best.filter(|(gain, _)| *gain > 1e-9).map(|(_, f)| f)
}

/// C4.5's extra errors for a leaf of `n` examples with `e` errors: `n * U_cf(e, n) - e`,
/// the upper limit of the binomial confidence interval (`z` its normal quantile).
fn added_errors(n: f64, e: f64, cf: f64, z: f64) -> f64 {
    if n <= 0.0 {
        return 0.0;
    }
    if e < 1.0 {
        let base = n * (1.0 - cf.powf(1.0 / n));
        return if e == 0.0 { base } else { base + e * (added_errors(n, 1.0, cf, z) - base) };
    }
    if e + 0.5 >= n {
        return (n - e).max(0.0);
    }
    let f = (e + 0.5) / n;
    let z2 = z * z;
    let r = (f + z2 / (2.0 * n) + z * (f / n - f * f / n + z2 / (4.0 * n * n)).sqrt()) / (1.0 + z2 / n);
    r * n - e
}

/// The standard normal quantile (Acklam's rational approximation, relative error
/// below 1.2e-9), for `p` in (0, 1).
fn normal_quantile(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] =
        [7.784_695_709_041_462e-3, 3.224_671_290_700_398e-1, 2.445_134_137_142_996, 3.754_408_661_907_416];
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    if p < 0.02425 {
        tail((-2.0 * p.ln()).sqrt())
    } else if p > 1.0 - 0.02425 {
        -tail((-2.0 * (1.0 - p).ln()).sqrt())
    } else {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::tree::TreeParams;

    fn noisy(n_inputs: usize, seed: u64) -> (BitMatrix, BitMatrix) {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let ex: Vec<Vec<bool>> =
            (0..600).map(|_| (0..n_inputs).map(|_| rng.random_bool(0.5)).collect()).collect();
        let labels: Vec<Vec<bool>> =
            ex.iter().map(|e| vec![((e[0] & e[1]) | (e[2] & !e[3])) ^ rng.random_bool(0.15)]).collect();
        (BitMatrix::from_examples(n_inputs, &ex), BitMatrix::from_examples(1, &labels))
    }

    #[test]
    fn truncations_are_the_trees_grown_with_those_limits() {
        let (x, y) = noisy(10, 1);
        let g = GrownTree::grow(
            &x,
            &y,
            &GrowParams { criterion: Criterion::InfoGain, max_depth: 20, min_branch: 1 },
        );
        for depth in [1, 3, 6, 20] {
            for min_leaf in [1, 4, 16] {
                assert_eq!(
                    g.truncated(depth, min_leaf),
                    Tree::fit(&x, &y, &TreeParams { max_depth: depth, min_leaf })
                );
            }
        }
    }

    #[test]
    fn pruning_removes_the_noise_and_keeps_the_function() {
        let (x, y) = noisy(10, 2);
        let g = GrownTree::grow(&x, &y, &GrowParams::default());
        let pruned = g.pruned(0.25);
        assert!(pruned.splits() < g.splits() / 4, "{} of {} splits kept", pruned.splits(), g.splits());
        // Scored against the noiseless function on all 1,024 patterns.
        let c = pruned.to_circuit(10);
        let right = (0..1024u32)
            .filter(|v| {
                let e: Vec<bool> = (0..10).map(|i| v >> i & 1 == 1).collect();
                c.eval_one(&e)[0] == ((e[0] & e[1]) | (e[2] & !e[3]))
            })
            .count();
        assert!(right >= 1000, "{right} of 1024");
        // Lower confidence prunes at least as much.
        assert!(g.pruned(0.01).splits() <= pruned.splits());
    }

    #[test]
    fn pessimistic_errors_match_c45() {
        // Quinlan's example: a leaf covering 6 cases with 0 errors at CF 0.25 adds 1.2
        // errors (U_25%(0, 6) = 0.206); 16 cases with 1 error: U_25%(1, 16) = 0.157.
        let z = normal_quantile(0.75);
        assert!((z - 0.674_49).abs() < 1e-4, "{z}");
        assert!((added_errors(6.0, 0.0, 0.25, z) - 1.24).abs() < 0.02);
        assert!(((1.0 + added_errors(16.0, 1.0, 0.25, z)) / 16.0 - 0.157).abs() < 0.01);
    }
}

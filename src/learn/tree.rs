//! Decision trees over Boolean inputs, learned greedily by information gain with
//! bit-parallel counting (every count is a popcount of lane words), and compiled to a
//! circuit of multiplexers: the IWLS portfolio's first non-LUT member.

use crate::circuit::{Circuit, CircuitBuilder, WireId};
use crate::domain::arith::{less_equal, popcount};
use crate::domain::{Bool, BoolBuild};
#[cfg(test)]
use crate::lanes::{BitMatrix, tail_mask};

#[cfg(test)]
/// Limits of tree growth.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TreeParams {
    /// Deepest split level.
    pub max_depth: usize,
    /// A node with fewer examples becomes a leaf.
    pub min_leaf: u64,
}

/// A learned binary decision tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tree {
    /// Predict this value.
    Leaf(bool),
    /// Test input `feature`: `lo` when it is 0, `hi` when it is 1.
    Split {
        /// Input bit tested.
        feature: usize,
        /// Subtree for 0.
        lo: Box<Tree>,
        /// Subtree for 1.
        hi: Box<Tree>,
    },
}

#[cfg(test)]
fn entropy(n1: u64, n: u64) -> f64 {
    if n == 0 || n1 == 0 || n1 == n {
        return 0.0;
    }
    let p = n1 as f64 / n as f64;
    -(p * p.log2() + (1.0 - p) * (1.0 - p).log2())
}

#[cfg(test)]
fn count(a: &[u64], b: &[u64]) -> u64 {
    a.iter().zip(b).map(|(x, y)| u64::from((x & y).count_ones())).sum()
}

impl Tree {
    #[cfg(test)]
    /// Grows a tree on `x` (one row per input bit) for the labels in `y` (one row).
    #[must_use]
    pub fn fit(x: &BitMatrix, y: &BitMatrix, params: &TreeParams) -> Self {
        let mut mask = vec![u64::MAX; x.words()];
        if let Some(last) = mask.last_mut() {
            *last = tail_mask(x.examples());
        }
        grow(x, y.row(0), &mask, 0, params)
    }

    /// Number of split nodes.
    #[must_use]
    pub fn splits(&self) -> usize {
        match self {
            Tree::Leaf(_) => 0,
            Tree::Split { lo, hi, .. } => 1 + lo.splits() + hi.splits(),
        }
    }

    /// The tree as a circuit over `n_inputs` input bits with one output (a mux per split).
    #[must_use]
    pub fn to_circuit(&self, n_inputs: usize) -> Circuit<Bool> {
        let mut b = CircuitBuilder::<Bool>::new(0, n_inputs);
        let (f, t) = (b.constant(false), b.constant(true));
        let out = self.emit(&mut b, f, t);
        b.finish(vec![out]).expect("tree circuit is valid").pruned()
    }

    fn emit(&self, b: &mut CircuitBuilder<Bool>, f: WireId, t: WireId) -> WireId {
        match self {
            Tree::Leaf(v) => {
                if *v {
                    t
                } else {
                    f
                }
            }
            Tree::Split { feature, lo, hi } => {
                let (l, h) = (lo.emit(b, f, t), hi.emit(b, f, t));
                let s = b.arg(*feature);
                b.mux(s, l, h)
            }
        }
    }
}

/// Bagged trees: each grown on a bootstrap sample (drawn with replacement, same size) of
/// the training examples, over all inputs; the prediction is the majority vote (an odd
/// number of trees, so no ties), built as a popcount of the tree outputs compared with
/// half the count. Averages away the variance of single deep trees on noisy data (the
/// MNIST-derived IWLS tasks gain 1-3 points).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Forest {
    /// The member trees (an odd number).
    pub trees: Vec<Tree>,
}

impl Forest {
    #[cfg(test)]
    /// Grows `n_trees` (rounded up to odd) trees on bootstrap samples drawn from `seed`.
    #[must_use]
    pub fn fit_bagged(x: &BitMatrix, y: &BitMatrix, params: &TreeParams, n_trees: usize, seed: u64) -> Self {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let e = x.examples();
        let trees = (0..n_trees | 1)
            .map(|_| {
                let idx: Vec<usize> = (0..e).map(|_| rng.random_range(0..e)).collect();
                Tree::fit(&x.select_examples(&idx), &y.select_examples(&idx), params)
            })
            .collect();
        Self { trees }
    }

    /// Total split nodes.
    #[must_use]
    pub fn splits(&self) -> usize {
        self.trees.iter().map(Tree::splits).sum()
    }

    /// The forest as a circuit over `n_inputs` input bits with one output.
    #[must_use]
    pub fn to_circuit(&self, n_inputs: usize) -> Circuit<Bool> {
        let mut b = CircuitBuilder::<Bool>::new(0, n_inputs);
        let (f, t) = (b.constant(false), b.constant(true));
        let votes: Vec<WireId> = self.trees.iter().map(|tree| tree.emit(&mut b, f, t)).collect();
        let count = popcount(&mut b, &votes);
        let half = votes.len() / 2 + 1;
        let bits = usize::BITS as usize - half.leading_zeros() as usize;
        let half: Vec<WireId> = (0..bits).map(|k| if half >> k & 1 == 1 { t } else { f }).collect();
        let out = less_equal(&mut b, &half, &count);
        b.finish(vec![out]).expect("forest circuit is valid").pruned()
    }
}

#[cfg(test)]
fn grow(x: &BitMatrix, y: &[u64], mask: &[u64], depth: usize, p: &TreeParams) -> Tree {
    let n: u64 = mask.iter().map(|w| u64::from(w.count_ones())).sum();
    let n1 = count(mask, y);
    let majority = 2 * n1 >= n && n > 0;
    if depth >= p.max_depth || n < p.min_leaf.max(2) || n1 == 0 || n1 == n {
        return Tree::Leaf(majority);
    }
    let h = entropy(n1, n);
    let mut best: Option<(f64, usize)> = None;
    let mut both: Vec<u64> = vec![0; mask.len()];
    for f in 0..x.rows() {
        for ((b, &m), &v) in both.iter_mut().zip(mask).zip(x.row(f)) {
            *b = m & v;
        }
        let a = both.iter().map(|w| u64::from(w.count_ones())).sum::<u64>();
        if a == 0 || a == n {
            continue;
        }
        let a1 = count(&both, y);
        let gain = h
            - (a as f64 / n as f64) * entropy(a1, a)
            - ((n - a) as f64 / n as f64) * entropy(n1 - a1, n - a);
        if best.is_none_or(|(g, _)| gain > g + 1e-12) {
            best = Some((gain, f));
        }
    }
    let Some((gain, f)) = best else { return Tree::Leaf(majority) };
    if gain <= 1e-9 {
        return Tree::Leaf(majority);
    }
    let hi_mask: Vec<u64> = mask.iter().zip(x.row(f)).map(|(m, v)| m & v).collect();
    let lo_mask: Vec<u64> = mask.iter().zip(x.row(f)).map(|(m, v)| m & !v).collect();
    let lo = grow(x, y, &lo_mask, depth + 1, p);
    let hi = grow(x, y, &hi_mask, depth + 1, p);
    if lo == hi {
        return lo;
    }
    Tree::Split { feature: f, lo: Box::new(lo), hi: Box::new(hi) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn learns_a_small_function_exactly_and_compiles_to_it() {
        // y = x0 & (x1 | x2), all 16 patterns of 4 inputs.
        let ex: Vec<Vec<bool>> = (0..16u32).map(|v| (0..4).map(|i| v >> i & 1 == 1).collect()).collect();
        let labels: Vec<Vec<bool>> = ex.iter().map(|e| vec![e[0] & (e[1] | e[2])]).collect();
        let (x, y) = (BitMatrix::from_examples(4, &ex), BitMatrix::from_examples(1, &labels));
        let t = Tree::fit(&x, &y, &TreeParams { max_depth: 8, min_leaf: 1 });
        let c = t.to_circuit(4);
        for (e, l) in ex.iter().zip(&labels) {
            assert_eq!(c.eval_one(e), *l);
        }
        assert!(t.splits() <= 4, "{t:?}");
        let stump = Tree::fit(&x, &y, &TreeParams { max_depth: 1, min_leaf: 1 });
        assert_eq!(stump.splits(), 1);
    }

    #[test]
    fn forest_circuit_is_the_majority_of_its_trees() {
        // A noisy 8-input function, so that bootstrap trees differ.
        let ex: Vec<Vec<bool>> = (0..256u32).map(|v| (0..8).map(|i| v >> i & 1 == 1).collect()).collect();
        let labels: Vec<Vec<bool>> =
            ex.iter().enumerate().map(|(k, e)| vec![(e[0] & e[3]) ^ e[5] ^ (k % 7 == 0)]).collect();
        let (x, y) = (BitMatrix::from_examples(8, &ex), BitMatrix::from_examples(1, &labels));
        let forest = Forest::fit_bagged(&x, &y, &TreeParams { max_depth: 4, min_leaf: 1 }, 4, 3);
        assert_eq!(forest.trees.len(), 5);
        let members: Vec<Circuit<Bool>> = forest.trees.iter().map(|t| t.to_circuit(8)).collect();
        let c = forest.to_circuit(8);
        let mut split_votes = 0;
        for e in &ex {
            let votes = members.iter().filter(|m| m.eval_one(e)[0]).count();
            split_votes += usize::from(votes != 0 && votes != 5);
            assert_eq!(c.eval_one(e)[0], votes >= 3, "{votes} votes");
        }
        assert!(split_votes > 0, "the trees never disagree: the test checks nothing");
    }
}

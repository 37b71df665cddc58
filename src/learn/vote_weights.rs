//! Integer weights on a `groupsum` head's votes, fitted after training: a class's score
//! becomes `bias[c] + sum of weight[j] over its outputs j that are 1` instead of the count
//! of its ones. The vote rule trains every output as an equal voter, but after training
//! the outputs differ in how much their votes are worth, and some of a class's outputs fire
//! more often on its rivals than the others do: on Fashion-MNIST a fitted weighting lifts
//! the RDA network's validation accuracy by about 1.5 points (BENCHMARKS.md).
//!
//! [`VoteWeights::fit`] fits the weights as a logistic regression of the labels on the
//! output bits, each class's score reading only its own group (full-batch Adam from equal
//! weights, a fixed number of steps, which is also its regulariser), then rounds them to
//! integers: the 90th percentile of `|weight|` becomes [`TYPICAL_WEIGHT`], and weights are
//! clipped to `4 * TYPICAL_WEIGHT`. The fit's sums run in a fixed order, so the weights do
//! not depend on the thread count.
//!
//! As a circuit ([`VoteWeights::to_circuit`]) the head stays a popcount per class and an
//! argmax: output `j` enters its class's popcount `weight[j]` times, negated where the
//! weight is negative, with constant ones for the bias (every class shifted by the same
//! amount so that all counts are natural numbers, which keeps the argmax).

use super::head::{argmax_circuit, argmax_rows};
use crate::circuit::{Circuit, CircuitBuilder};
use crate::domain::arith::popcount;
use crate::domain::{Bool, BoolBuild};
use crate::lanes::BitMatrix;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// The integer the 90th percentile of the fitted weights' magnitudes is rounded to.
pub const TYPICAL_WEIGHT: f64 = 3.0;

/// Adam steps of the fit (full batch; also what keeps the fit from overfitting).
pub const FIT_STEPS: usize = 60;

/// Adam's step size in the fit.
const FIT_LR: f64 = 0.05;

/// Every weight before the fit (the class scores are then the group counts scaled).
const START_WEIGHT: f64 = 0.1;

/// A weighted vote over `classes` equal groups of outputs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VoteWeights {
    /// One weight per output, in output order.
    pub weights: Vec<i32>,
    /// One constant per class, added to its score.
    pub bias: Vec<i32>,
}

/// The largest weight or constant magnitude a model file may hold (the head circuit repeats
/// a vote as often as its weight says).
pub const MAX_VOTE_WEIGHT: i32 = 1 << 12;

impl VoteWeights {
    /// Why these weights cannot weigh `outputs` outputs of `classes` equal groups (`None`:
    /// they can).
    #[must_use]
    pub fn misfit(&self, outputs: usize, classes: usize) -> Option<String> {
        if self.weights.len() != outputs || self.bias.len() != classes {
            return Some(format!(
                "vote_weights must hold {outputs} weights and {classes} constants, got {} and {}",
                self.weights.len(),
                self.bias.len()
            ));
        }
        let out_of_range = |v: &i32| v.unsigned_abs() > MAX_VOTE_WEIGHT.unsigned_abs();
        if self.weights.iter().chain(&self.bias).any(out_of_range) {
            return Some(format!("vote_weights must lie within +-{MAX_VOTE_WEIGHT}"));
        }
        None
    }

    /// Outputs per class.
    fn per(&self) -> usize {
        self.weights.len() / self.bias.len().max(1)
    }

    /// Per-example class scores, example-major: `scores[e * classes + c]`.
    ///
    /// # Panics
    /// If `outputs` does not have one row per weight.
    #[must_use]
    pub fn scores(&self, outputs: &BitMatrix) -> Vec<i64> {
        assert_eq!(outputs.rows(), self.weights.len(), "one weight per output");
        let (n, classes) = (outputs.examples(), self.bias.len());
        let weights: Vec<i64> = self.weights.iter().map(|&w| i64::from(w)).collect();
        let bias: Vec<i64> = self.bias.iter().map(|&b| i64::from(b)).collect();
        let columns = class_scores(outputs, &weights, &bias);
        let mut s = vec![0i64; n * classes];
        for (c, col) in columns.iter().enumerate() {
            for (e, &v) in col.iter().enumerate() {
                s[e * classes + c] = v;
            }
        }
        s
    }

    /// Predicted class per example: the highest score, the lowest class on ties (as the
    /// unweighted head).
    #[must_use]
    pub fn predict(&self, outputs: &BitMatrix) -> Vec<u32> {
        argmax_rows(&self.scores(outputs), self.bias.len())
    }

    /// Fits the weights to `labels` from the trained network's `outputs` (one row per
    /// output, `classes` equal groups) on the training examples; see the module docs.
    ///
    /// # Panics
    /// If the outputs do not split into `classes` groups or there is not one label per
    /// example.
    #[must_use]
    pub fn fit(outputs: &BitMatrix, labels: &[u32], classes: usize) -> Self {
        let (n_out, n) = (outputs.rows(), outputs.examples());
        assert!(classes > 0 && n_out % classes == 0, "equal groups of outputs");
        assert_eq!(labels.len(), n, "one label per example");
        let per = n_out / classes;
        let mut w = vec![START_WEIGHT; n_out];
        let mut b = vec![0.0f64; classes];
        let mut adam_w = AdamState::new(n_out);
        let mut adam_b = AdamState::new(classes);
        let inv_n = 1.0 / n.max(1) as f64;
        for step in 1..=FIT_STEPS {
            // Class scores, then each example's softmax minus its target.
            let columns = class_scores(outputs, &w, &b);
            let mut delta = vec![vec![0.0f64; n]; classes];
            let mut row = vec![0.0f64; classes];
            for e in 0..n {
                row.iter_mut().zip(&columns).for_each(|(r, col)| *r = col[e]);
                let max = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let sum: f64 = row.iter().map(|&s| (s - max).exp()).sum();
                for (c, d) in delta.iter_mut().enumerate() {
                    let p = (row[c] - max).exp() / sum;
                    d[e] = (p - f64::from(u8::from(labels[e] as usize == c))) * inv_n;
                }
            }
            let grad_w: Vec<f64> =
                (0..n_out).into_par_iter().map(|j| sum_where_set(&delta[j / per], outputs.row(j))).collect();
            let grad_b: Vec<f64> = delta.iter().map(|d| d.iter().sum()).collect();
            adam_w.step(&mut w, &grad_w, step);
            adam_b.step(&mut b, &grad_b, step);
        }
        Self::quantised(&w, &b)
    }

    /// Real weights and biases rounded to integers on one scale (module docs).
    fn quantised(w: &[f64], b: &[f64]) -> Self {
        let mut mags: Vec<f64> = w.iter().map(|v| v.abs()).collect();
        mags.sort_by(f64::total_cmp);
        let typical = mags.get(mags.len() * 9 / 10).copied().unwrap_or(0.0);
        let scale = if typical > 0.0 { TYPICAL_WEIGHT / typical } else { 1.0 };
        let cap = 4.0 * TYPICAL_WEIGHT;
        Self {
            weights: w.iter().map(|v| (v * scale).round().clamp(-cap, cap) as i32).collect(),
            bias: b.iter().map(|v| (v * scale).round() as i32).collect(),
        }
    }

    /// The head as a circuit from the body's outputs to the predicted class index (binary,
    /// LSB first, `binary_width(classes)` bits), agreeing with [`predict`](Self::predict).
    #[must_use]
    pub fn to_circuit(&self) -> Circuit<Bool> {
        let (classes, per) = (self.bias.len(), self.per());
        let mut b = CircuitBuilder::<Bool>::new(0, self.weights.len());
        let bits = b.args();
        let (f, t) = (b.constant(false), b.constant(true));
        let negative: Vec<i64> = (0..classes)
            .map(|c| {
                self.weights[c * per..(c + 1) * per].iter().filter(|&&w| w < 0).map(|&w| -i64::from(w)).sum()
            })
            .collect();
        // Count_c = bias_c + sum w o = sum_{w>0} w o + sum_{w<0} |w| (1 - o) + bias_c - negative_c;
        // every class gets `shift` more so that the constant is never negative.
        let shift = (0..classes).map(|c| negative[c] - i64::from(self.bias[c])).max().unwrap_or(0).max(0);
        let out = argmax_circuit(&mut b, classes, (f, t), |b, c| {
            let mut votes = Vec::new();
            for (&w, &bit) in self.weights[c * per..(c + 1) * per].iter().zip(&bits[c * per..]) {
                let lit = if w < 0 { b.not(bit) } else { bit };
                votes.extend(std::iter::repeat_n(lit, w.unsigned_abs() as usize));
            }
            let constant = i64::from(self.bias[c]) - negative[c] + shift;
            votes.extend(std::iter::repeat_n(t, usize::try_from(constant).expect("shifted to >= 0")));
            popcount(b, &votes)
        });
        b.finish(out).expect("weighted head circuit is valid").pruned()
    }
}

/// Each class's scores over the examples (one column per class): its constant plus the
/// weights of its group's outputs that are 1, summed output by output in a fixed order.
fn class_scores<T>(outputs: &BitMatrix, weights: &[T], bias: &[T]) -> Vec<Vec<T>>
where
    T: Copy + std::ops::AddAssign + Send + Sync,
{
    let (n, per) = (outputs.examples(), weights.len() / bias.len().max(1));
    (0..bias.len())
        .into_par_iter()
        .map(|c| {
            let mut col = vec![bias[c]; n];
            for (j, &w) in weights.iter().enumerate().skip(c * per).take(per) {
                add_where_set(&mut col, outputs.row(j), w);
            }
            col
        })
        .collect()
}

/// `col[e] += v` for every example `e` whose bit is set in `row`.
fn add_where_set<T: Copy + std::ops::AddAssign>(col: &mut [T], row: &[u64], v: T) {
    for (w, &word) in row.iter().enumerate() {
        let mut bits = word;
        while bits != 0 {
            let e = w * 64 + bits.trailing_zeros() as usize;
            if e < col.len() {
                col[e] += v;
            }
            bits &= bits - 1;
        }
    }
}

/// The sum of `values[e]` over the examples whose bit is set in `row`.
fn sum_where_set(values: &[f64], row: &[u64]) -> f64 {
    let mut s = 0.0;
    for (w, &word) in row.iter().enumerate() {
        let mut bits = word;
        while bits != 0 {
            let e = w * 64 + bits.trailing_zeros() as usize;
            if e < values.len() {
                s += values[e];
            }
            bits &= bits - 1;
        }
    }
    s
}

/// Adam's moment estimates for one parameter vector, in f64 (the smooth domain's
/// [`Adam`](crate::smooth::optim::Adam) steps f32 tensors; the fit's gradients are sums
/// over tens of thousands of examples).
struct AdamState {
    m: Vec<f64>,
    v: Vec<f64>,
}

impl AdamState {
    fn new(n: usize) -> Self {
        Self { m: vec![0.0; n], v: vec![0.0; n] }
    }

    /// One step (`t` from 1) against gradient `g`.
    fn step(&mut self, x: &mut [f64], g: &[f64], t: usize) {
        let (b1, b2, eps) = (0.9f64, 0.999f64, 1e-8);
        let (c1, c2) = (1.0 - b1.powi(t as i32), 1.0 - b2.powi(t as i32));
        for i in 0..x.len() {
            self.m[i] = b1 * self.m[i] + (1.0 - b1) * g[i];
            self.v[i] = b2 * self.v[i] + (1.0 - b2) * g[i] * g[i];
            x[i] -= FIT_LR * (self.m[i] / c1) / ((self.v[i] / c2).sqrt() + eps);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::head::class_of_index;
    use rand::{RngExt, SeedableRng};

    /// The circuit gives the class `predict` gives, on random weights of both signs,
    /// biases of both signs and patterns dense and sparse (ties included).
    #[test]
    fn the_circuit_agrees_with_predict() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        for (classes, per) in [(3, 4), (10, 3), (2, 1)] {
            let n_out = classes * per;
            let vw = VoteWeights {
                weights: (0..n_out).map(|_| rng.random_range(-4..=5)).collect(),
                bias: (0..classes).map(|_| rng.random_range(-6..=6)).collect(),
            };
            let ex: Vec<Vec<bool>> = (0..300)
                .map(|i| {
                    let p = if i % 2 == 0 { 0.5 } else { 0.15 };
                    (0..n_out).map(|_| rng.random_bool(p)).collect()
                })
                .collect();
            let want = vw.predict(&BitMatrix::from_examples(n_out, &ex));
            let c = vw.to_circuit();
            for (e, w) in ex.iter().zip(&want) {
                assert_eq!(class_of_index(&c.eval_one(e), classes), *w, "{vw:?} on {e:?}");
            }
        }
    }

    /// Two classes, three outputs each: outputs 0 and 3 are the labels' indicators, 1 and
    /// 4 are noise, 2 fires on class 1 (a class-0 voter that votes for the rival). Equal
    /// votes get some examples wrong; the fitted weights get all of them right, and give
    /// output 2 a negative weight.
    #[test]
    fn the_fit_learns_which_votes_to_trust() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        let labels: Vec<u32> = (0..2000).map(|_| rng.random_range(0..2)).collect();
        let ex: Vec<Vec<bool>> = labels
            .iter()
            .map(|&l| {
                vec![l == 0, rng.random_bool(0.5), l == 1, l == 1, rng.random_bool(0.5), rng.random_bool(0.5)]
            })
            .collect();
        let out = BitMatrix::from_examples(6, &ex);
        let equal = crate::learn::Head::GroupSum(2).predict(&out, 2);
        let acc = |p: &[u32]| p.iter().zip(&labels).filter(|(a, b)| a == b).count();
        assert!(acc(&equal) < 1900, "equal votes err: {}", acc(&equal));
        let vw = VoteWeights::fit(&out, &labels, 2);
        assert_eq!(acc(&vw.predict(&out)), 2000, "{vw:?}");
        assert!(vw.weights[2] < 0, "{vw:?}");
        assert!(vw.weights[0] > 0 && vw.weights[3] > 0, "{vw:?}");
    }
}

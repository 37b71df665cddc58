//! Integer weights on a `groupsum` head's votes, fitted after training: a class's score
//! becomes `bias[c] + sum of weight[j] over its outputs j that are 1` instead of the count
//! of its ones. The vote rule trains every output as an equal voter, but after training
//! the outputs differ in how much their votes are worth, and some of a class's outputs fire
//! more often on its rivals than the others do: on Fashion-MNIST a fitted weighting lifts
//! the RDA network's validation accuracy by about 1.5 points (BENCHMARKS.md).
//!
//! [`VoteWeights::fit`] fits the weights by an averaged perceptron, the discrete ascent
//! of the vote margin: every class's score reads only its own group; from equal weights
//! ([`START_WEIGHT`] each), every training example whose true class does not beat its
//! best rival by [`FIT_MARGIN`] moves the weights of the outputs it fires by one, up in
//! the true class's group and down in the rival's (the class scores' reverse derivative
//! with respect to the weights is the output bit), and the constants likewise. The
//! weights kept are the mean of every step's ([`FIT_EPOCHS`] passes in a seeded order;
//! the mean is what settles where the last step's weights oscillate), rounded to
//! integers on one scale: the 90th percentile of `|weight|` becomes [`TYPICAL_WEIGHT`],
//! and weights are clipped to `4 * TYPICAL_WEIGHT`. Integer arithmetic throughout until
//! the rounding; the fit does not depend on the thread count.
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
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// The integer the 90th percentile of the fitted weights' magnitudes is rounded to.
pub const TYPICAL_WEIGHT: f64 = 3.0;

/// Passes over the training examples of the fit.
pub const FIT_EPOCHS: usize = 3;

/// Every weight before the fit: one step of the fit moves a weight by `1 / START_WEIGHT`
/// of an equal vote.
pub const START_WEIGHT: i64 = 16;

/// The margin the fit asks of the true class's score over its best rival's: one equal
/// vote.
pub const FIT_MARGIN: i64 = START_WEIGHT;

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
    /// output, `classes` equal groups) on the training examples, passing over them in an
    /// order drawn from `seed`; see the module docs.
    ///
    /// # Panics
    /// If the outputs do not split into `classes` groups or there is not one label per
    /// example.
    #[must_use]
    pub fn fit(outputs: &BitMatrix, labels: &[u32], classes: usize, seed: u64) -> Self {
        let (n_out, n) = (outputs.rows(), outputs.examples());
        assert!(classes > 0 && n_out % classes == 0, "equal groups of outputs");
        assert_eq!(labels.len(), n, "one label per example");
        let per = n_out / classes;
        // Example-major rows: the outputs each example fires.
        let fired = outputs.transposed();
        let mut w = Averaged::new(vec![START_WEIGHT; n_out]);
        let mut b = Averaged::new(vec![0; classes]);
        let mut order: Vec<usize> = (0..n).collect();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut score = vec![0i64; classes];
        for _ in 0..FIT_EPOCHS {
            order.shuffle(&mut rng);
            for &e in &order {
                w.tick();
                b.tick();
                score.copy_from_slice(&b.now);
                for_each_set(fired.row(e), n_out, |j| score[j / per] += w.now[j]);
                let y = labels[e] as usize;
                let rival = (0..classes).filter(|&c| c != y).max_by_key(|&c| (score[c], usize::MAX - c));
                let Some(rival) = rival.filter(|&r| score[y] - score[r] < FIT_MARGIN) else { continue };
                for_each_set(fired.row(e), n_out, |j| match j / per {
                    c if c == y => w.add(j, 1),
                    c if c == rival => w.add(j, -1),
                    _ => {}
                });
                b.add(y, 1);
                b.add(rival, -1);
            }
        }
        Self::quantised(&w.mean(), &b.mean())
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
/// weights of its group's outputs that are 1.
fn class_scores(outputs: &BitMatrix, weights: &[i64], bias: &[i64]) -> Vec<Vec<i64>> {
    let (n, per) = (outputs.examples(), weights.len() / bias.len().max(1));
    (0..bias.len())
        .into_par_iter()
        .map(|c| {
            let mut col = vec![bias[c]; n];
            for (j, &w) in weights.iter().enumerate().skip(c * per).take(per) {
                for_each_set(outputs.row(j), n, |e| col[e] += w);
            }
            col
        })
        .collect()
}

/// Integer parameters and the running sum of their values over the fit's steps (each
/// sum brought up to date only when its parameter changes, and at the end).
struct Averaged {
    now: Vec<i64>,
    sum: Vec<i64>,
    since: Vec<i64>,
    steps: i64,
}

impl Averaged {
    fn new(start: Vec<i64>) -> Self {
        let n = start.len();
        Self { now: start, sum: vec![0; n], since: vec![0; n], steps: 0 }
    }

    /// One more step at the current values.
    fn tick(&mut self) {
        self.steps += 1;
    }

    /// Adds `d` to parameter `i` from this step on.
    fn add(&mut self, i: usize, d: i64) {
        self.sum[i] += self.now[i] * (self.steps - self.since[i]);
        self.since[i] = self.steps;
        self.now[i] += d;
    }

    /// Each parameter's mean over the steps.
    fn mean(&self) -> Vec<f64> {
        let steps = self.steps.max(1);
        (0..self.now.len())
            .map(|i| (self.sum[i] + self.now[i] * (self.steps - self.since[i])) as f64 / steps as f64)
            .collect()
    }
}

/// Calls `f` with the index of every set bit of `row` below `len`.
fn for_each_set(row: &[u64], len: usize, mut f: impl FnMut(usize)) {
    for (w, &word) in row.iter().enumerate() {
        let mut bits = word;
        while bits != 0 {
            let i = w * 64 + bits.trailing_zeros() as usize;
            if i < len {
                f(i);
            }
            bits &= bits - 1;
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
    /// output 2 no weight at all (or a negative one): less than the noise.
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
        let vw = VoteWeights::fit(&out, &labels, 2, 0);
        assert_eq!(acc(&vw.predict(&out)), 2000, "{vw:?}");
        assert!(vw.weights[2] <= 0 && vw.weights[2] < vw.weights[1], "{vw:?}");
        assert!(vw.weights[0] > 0 && vw.weights[3] > 0, "{vw:?}");
    }
}

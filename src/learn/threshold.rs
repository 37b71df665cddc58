//! Linear threshold models, optionally XORed with a pair of inputs: `y = [sum_i w_i z_i >=
//! T] ^ x_a ^ x_b`, with integer weights `w_i > 0` on literals `z_i` (inputs or their
//! complements). Comparators and adder carries are threshold functions; a sum bit of an
//! adder is its two operand bits XORed with the carry into it. Weights come from
//! L2-regularised logistic regression (Newton's method) on the most correlated inputs,
//! rounded to a few bits; the XOR pair is the one whose removal leaves the target most
//! correlated with single inputs (its degree-1 Fourier weight). The circuit is a weighted
//! sum (an adder tree over the weights' bits) compared with a constant.

use crate::circuit::{Circuit, CircuitBuilder, WireId};
use crate::domain::arith::{less_equal, weighted_sum};
use crate::domain::{Bool, BoolBuild};
use crate::lanes::BitMatrix;
use rayon::prelude::*;

/// Real weights from logistic regression, before rounding to a [`Threshold`].
#[derive(Clone, Debug, PartialEq)]
pub struct LogisticFit {
    /// Inputs with a weight (the most correlated ones), ascending.
    pub inputs: Vec<usize>,
    /// Weight of each input's +-1 value.
    pub weights: Vec<f64>,
    /// Constant term.
    pub bias: f64,
    /// Inputs XORed into the output.
    pub xor: Vec<usize>,
}

/// A learned threshold function XORed with a parity of at most two inputs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Threshold {
    /// `(input, complemented, weight)`, weights positive.
    pub terms: Vec<(usize, bool, u64)>,
    /// The threshold part is 1 when the weighted sum is at least this.
    pub threshold: u64,
    /// Inputs XORed into the output.
    pub xor: Vec<usize>,
}

fn corr_with_rows(x: &BitMatrix, t: &[u64], n_examples: usize) -> Vec<f64> {
    (0..x.rows())
        .map(|r| {
            let diff: u32 = x.row(r).iter().zip(t).map(|(a, b)| (a ^ b).count_ones()).sum();
            1.0 - 2.0 * f64::from(diff) / n_examples as f64
        })
        .collect()
}

/// The target row XORed with the given input rows (tail bits cleared).
fn xored_target(x: &BitMatrix, y: &[u64], xor: &[usize]) -> Vec<u64> {
    let mut t = y.to_vec();
    for &i in xor {
        for (w, v) in t.iter_mut().zip(x.row(i)) {
            *w ^= v;
        }
    }
    let rem = x.examples() % 64;
    if rem != 0
        && let Some(last) = t.last_mut()
    {
        *last &= (1u64 << rem) - 1;
    }
    t
}

/// The pair of inputs `(a, b)` after whose removal (`y ^ x_a ^ x_b`) the target is most
/// nearly a function of single inputs: the largest weight of its Fourier spectrum on
/// degree 0 and 1 (the squared bias plus the squared correlations with each input), with
/// that score. The bias counts: when `y` is exactly `x_a ^ x_b` the residual is constant
/// and scores 1, the most there is. `None` with fewer than two inputs.
#[must_use]
pub fn best_xor_pair(x: &BitMatrix, y: &BitMatrix) -> Option<((usize, usize), f64)> {
    let n = x.rows();
    let e = x.examples();
    (0..n)
        .into_par_iter()
        .flat_map_iter(|a| {
            (a + 1..n).map(move |b| {
                let t = xored_target(x, y.row(0), &[a, b]);
                let ones: u32 = t.iter().map(|w| w.count_ones()).sum();
                let bias = 1.0 - 2.0 * f64::from(ones) / e as f64;
                let score: f64 = bias * bias + corr_with_rows(x, &t, e).iter().map(|c| c * c).sum::<f64>();
                ((a, b), score)
            })
        })
        .reduce_with(|p, q| if q.1 > p.1 || (q.1 == p.1 && q.0 < p.0) { q } else { p })
}

/// Solves `a x = b` for a symmetric positive definite `a` (row-major `m x m`) by Cholesky.
fn cholesky_solve(a: &[f64], b: &[f64], m: usize) -> Vec<f64> {
    let mut l = vec![0.0; m * m];
    for i in 0..m {
        for j in 0..=i {
            let s: f64 = a[i * m + j] - (0..j).map(|k| l[i * m + k] * l[j * m + k]).sum::<f64>();
            l[i * m + j] = if i == j { s.max(1e-12).sqrt() } else { s / l[j * m + j] };
        }
    }
    let mut z = vec![0.0; m];
    for i in 0..m {
        z[i] = (b[i] - (0..i).map(|k| l[i * m + k] * z[k]).sum::<f64>()) / l[i * m + i];
    }
    let mut x = vec![0.0; m];
    for i in (0..m).rev() {
        x[i] = (z[i] - (i + 1..m).map(|k| l[k * m + i] * x[k]).sum::<f64>()) / l[i * m + i];
    }
    x
}

/// Logistic regression of `t` (0/1) on `features` (each +-1, plus a bias column added
/// here) by Newton's method; returns the weights, bias last.
fn logistic_regression(features: &[Vec<f64>], t: &[bool], l2: f64) -> Vec<f64> {
    let m = features.len() + 1;
    let n = t.len();
    let row = |e: usize, j: usize| if j + 1 == m { 1.0 } else { features[j][e] };
    let mut w = vec![0.0; m];
    for _ in 0..25 {
        let mut g = vec![0.0; m];
        let mut h = vec![0.0; m * m];
        for (e, &te) in t.iter().enumerate() {
            let z: f64 = (0..m).map(|j| w[j] * row(e, j)).sum();
            let p = 1.0 / (1.0 + (-z).exp());
            let r = p - f64::from(u8::from(te));
            let s = p * (1.0 - p);
            for j in 0..m {
                let xj = row(e, j);
                g[j] += r * xj;
                for k in 0..=j {
                    h[j * m + k] += s * xj * row(e, k);
                }
            }
        }
        for j in 0..m {
            g[j] = g[j] / n as f64 + l2 * w[j];
            for k in 0..=j {
                h[j * m + k] = h[j * m + k] / n as f64 + if j == k { l2 } else { 0.0 };
                h[k * m + j] = h[j * m + k];
            }
        }
        let step = cholesky_solve(&h, &g, m);
        let mut size = 0.0f64;
        for (wj, sj) in w.iter_mut().zip(&step) {
            *wj -= sj;
            size = size.max(sj.abs());
        }
        if size < 1e-9 {
            break;
        }
    }
    w
}

impl LogisticFit {
    /// Fits `y ^ x_a ^ ...` (for the inputs in `xor`) by L2-regularised logistic
    /// regression on the `max_inputs` inputs most correlated with it.
    ///
    /// # Panics
    /// If `y` has no row or an `xor` index is out of range.
    #[must_use]
    pub fn fit(x: &BitMatrix, y: &BitMatrix, xor: &[usize], max_inputs: usize, l2: f64) -> Self {
        let e = x.examples();
        let t = xored_target(x, y.row(0), xor);
        let corr = corr_with_rows(x, &t, e);
        let mut inputs: Vec<usize> = (0..x.rows()).collect();
        inputs.sort_by(|&a, &b| corr[b].abs().total_cmp(&corr[a].abs()).then(a.cmp(&b)));
        inputs.truncate(max_inputs);
        inputs.sort_unstable();
        let features: Vec<Vec<f64>> =
            inputs.iter().map(|&r| (0..e).map(|i| if x.get(r, i) { 1.0 } else { -1.0 }).collect()).collect();
        let target: Vec<bool> = (0..e).map(|i| t[i / 64] >> (i % 64) & 1 == 1).collect();
        let mut weights = logistic_regression(&features, &target, l2);
        let bias = weights.pop().unwrap_or(0.0);
        Self { inputs, weights, bias, xor: xor.to_vec() }
    }

    /// Rounds the weights to integers, the largest becoming `2^bits - 1`: the decision
    /// `sum_j w_j s_j + w0 > 0` with `s = 2z - 1` becomes `sum |q_j| z_j >= T` over
    /// literals `z_j = x_j` or `!x_j`.
    #[must_use]
    pub fn round(&self, bits: u32) -> Threshold {
        let top = self.weights.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let scale = if top > 0.0 { ((1u64 << bits) - 1) as f64 / top } else { 0.0 };
        let q = |v: f64| (v * scale).round() as i64;
        let terms: Vec<(usize, bool, u64)> = self
            .inputs
            .iter()
            .zip(&self.weights)
            .map(|(&r, &w)| (r, q(w)))
            .filter(|(_, qj)| *qj != 0)
            .map(|(r, qj)| (r, qj < 0, qj.unsigned_abs()))
            .collect();
        let total: i64 = terms.iter().map(|t| t.2 as i64).sum();
        // 2 * sum > total - bias  <=>  sum >= floor((total - bias) / 2) + 1.
        let threshold = ((total - q(self.bias)).div_euclid(2) + 1).max(0) as u64;
        Threshold { terms, threshold, xor: self.xor.clone() }
    }
}

impl Threshold {
    #[cfg(test)]
    /// The prediction for one example.
    #[must_use]
    pub fn predict(&self, x: &[bool]) -> bool {
        let sum: u64 = self.terms.iter().filter(|(i, neg, _)| x[*i] != *neg).map(|t| t.2).sum();
        self.xor.iter().fold(sum >= self.threshold, |acc, &i| acc ^ x[i])
    }

    /// The model as a circuit over `n_inputs` inputs with one output.
    #[must_use]
    pub fn to_circuit(&self, n_inputs: usize) -> Circuit<Bool> {
        let mut b = CircuitBuilder::<Bool>::new(0, n_inputs);
        let terms: Vec<(WireId, u64)> = self
            .terms
            .iter()
            .map(|&(i, neg, w)| {
                let a = b.arg(i);
                (if neg { b.not(a) } else { a }, w)
            })
            .collect();
        let sum = weighted_sum(&mut b, &terms);
        let bits = 64 - self.threshold.leading_zeros() as usize;
        let (zero, one) = (b.constant(false), b.constant(true));
        let t: Vec<WireId> =
            (0..bits).map(|k| if self.threshold >> k & 1 == 1 { one } else { zero }).collect();
        let mut out = less_equal(&mut b, &t, &sum);
        for &i in &self.xor {
            let a = b.arg(i);
            out = b.xor(out, a);
        }
        b.finish(vec![out]).expect("threshold circuit is valid").pruned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn num(bits: &[bool]) -> u64 {
        bits.iter().enumerate().map(|(i, &b)| u64::from(b) << i).sum()
    }

    /// Random 8-bit `a`, `b`; the target is bit 7 of `a + b` (operand bits 7 XOR the carry
    /// into bit 7) or the carry out.
    fn adder_data(bit: usize, n: usize, seed: u64) -> (BitMatrix, BitMatrix, Vec<Vec<bool>>) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let ex: Vec<Vec<bool>> = (0..n).map(|_| (0..16).map(|_| rng.random::<bool>()).collect()).collect();
        let labels: Vec<Vec<bool>> =
            ex.iter().map(|e| vec![(num(&e[..8]) + num(&e[8..])) >> bit & 1 == 1]).collect();
        (BitMatrix::from_examples(16, &ex), BitMatrix::from_examples(1, &labels), ex)
    }

    #[test]
    fn learns_an_adder_carry_and_its_circuit_agrees() {
        let (x, y, ex) = adder_data(8, 3000, 1);
        let m = LogisticFit::fit(&x, &y, &[], 64, 1e-4).round(10);
        let c = m.to_circuit(16);
        let mut right = 0;
        for (e, row) in ex.iter().enumerate() {
            assert_eq!(c.eval_one(row)[0], m.predict(row));
            right += usize::from(m.predict(row) == y.get(0, e));
        }
        assert!(right as f64 / ex.len() as f64 > 0.99, "{right}");
    }

    /// An exact XOR leaves a constant residual, which correlates with no input: the
    /// screen must still rank it first (it ranked it last while it ignored the bias).
    #[test]
    fn an_exact_xor_pair_is_found() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let ex: Vec<Vec<bool>> = (0..2000).map(|_| (0..12).map(|_| rng.random::<bool>()).collect()).collect();
        let labels: Vec<Vec<bool>> = ex.iter().map(|r| vec![r[3] ^ r[9]]).collect();
        let (x, y) = (BitMatrix::from_examples(12, &ex), BitMatrix::from_examples(1, &labels));
        let (pair, score) = best_xor_pair(&x, &y).unwrap();
        assert_eq!(pair, (3, 9));
        assert!(score >= 1.0 - 1e-12, "{score}");
    }

    #[test]
    fn finds_the_operand_bits_of_a_sum_bit() {
        let (x, y, ex) = adder_data(7, 3000, 2);
        let (pair, _) = best_xor_pair(&x, &y).unwrap();
        assert_eq!(pair, (7, 15));
        let m = LogisticFit::fit(&x, &y, &[pair.0, pair.1], 64, 1e-4).round(10);
        let c = m.to_circuit(16);
        let right = ex.iter().enumerate().filter(|(e, row)| c.eval_one(row)[0] == y.get(0, *e)).count();
        assert!(right as f64 / ex.len() as f64 > 0.99, "{right}");
        // Without the pair a threshold function cannot do better than chance by much.
        let plain = LogisticFit::fit(&x, &y, &[], 64, 1e-4).round(10);
        let right = ex.iter().enumerate().filter(|(e, row)| plain.predict(row) == y.get(0, *e)).count();
        assert!((right as f64 / ex.len() as f64) < 0.7, "{right}");
    }
}

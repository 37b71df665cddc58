//! Fixed-point learning in a ring: a linear model, a clipped displacement loss and a
//! gradient-descent update, all polynomial circuits (plus shifts and clips), composed
//! into one step circuit by the same lens core as Boolean RDA.
//!
//! Numbers are fixed point with `nbits` fractional bits (`ONE = 2^nbits`) in the signed
//! reading of the ring.

use super::learner::{displacement, feedback, learner, step};
use crate::circuit::{Circuit, CircuitBuilder, WireId};
use crate::data::{Dataset, Features};
use crate::domain::ring::{Poly, PolyBuild, PolyOp, Ring, Z2k};
use crate::error::ArityMismatch;

/// `y = W x` for a `n_out x n_in` parameter matrix `W` (row-major), no bias.
#[must_use]
pub fn linear<R: Ring>(n_out: usize, n_in: usize) -> Circuit<Poly<R>> {
    let mut b = CircuitBuilder::<Poly<R>>::new(n_out * n_in, n_in);
    let x = b.args();
    let outs = (0..n_out)
        .map(|i| {
            let terms: Vec<WireId> = (0..n_in)
                .map(|j| {
                    let w = b.param(i * n_in + j);
                    b.poly(PolyOp::Mul, &[w, x[j]])
                })
                .collect();
            terms
                .into_iter()
                .reduce(|a, t| b.poly(PolyOp::Add, &[a, t]))
                .unwrap_or_else(|| b.poly(PolyOp::Const(0), &[]))
        })
        .collect();
    b.finish(outs).expect("linear layer is valid")
}

/// The displacement `d(ŷ, y) = clip01(ŷ >> nbits) - y`, where `clip01(v) = (clip(v, -ONE,
/// ONE) + ONE) >> 1` maps `[-1, 1]` onto `[0, 1]`: the prediction (a product of two
/// fixed-point numbers, hence the shift) is clipped before it is compared with the label.
#[must_use]
pub fn clipped_displacement<R: Ring>(n: usize, nbits: u8) -> Circuit<Poly<R>> {
    let one = 1i64 << nbits;
    let mut b = CircuitBuilder::<Poly<R>>::new(0, 2 * n);
    let a = b.args();
    let c_one = b.poly(PolyOp::Const(R::from_signed(one)), &[]);
    let outs = (0..n)
        .map(|i| {
            let s = b.poly(PolyOp::Shr(nbits), &[a[i]]);
            let c = b.poly(PolyOp::Clip(-one, one), &[s]);
            let up = b.poly(PolyOp::Add, &[c, c_one]);
            let half = b.poly(PolyOp::Shr(1), &[up]);
            b.poly(PolyOp::Sub, &[half, a[n + i]])
        })
        .collect();
    b.finish(outs).expect("displacement is valid")
}

/// Fixed-point gradient descent: `p - (((dp >> nbits) * lr) >> nbits)` with `lr` a
/// fixed-point learning rate (`ONE >> 7` is `2^-7`).
#[must_use]
pub fn fixed_gd<R: Ring>(n_params: usize, nbits: u8, lr: i64) -> Circuit<Poly<R>> {
    let mut b = CircuitBuilder::<Poly<R>>::new(0, 2 * n_params);
    let a = b.args();
    let rate = b.poly(PolyOp::Const(R::from_signed(lr)), &[]);
    let outs = (0..n_params)
        .map(|i| {
            let s = b.poly(PolyOp::Shr(nbits), &[a[n_params + i]]);
            let m = b.poly(PolyOp::Mul, &[s, rate]);
            let d = b.poly(PolyOp::Shr(nbits), &[m]);
            b.poly(PolyOp::Sub, &[a[i], d])
        })
        .collect();
    b.finish(outs).expect("update is valid")
}

/// The ring of the polycirc Iris demo.
pub type IrisRing = Z2k<64>;

/// A trained fixed-point Iris model.
#[derive(Clone, Debug)]
pub struct FixedRun {
    /// The model `W x` (3x4, parameters first).
    pub model: Circuit<Poly<IrisRing>>,
    /// Trained parameters (row-major `W`).
    pub params: Vec<u64>,
    /// The inputs, scaled by `2^10` and truncated, one vector per row.
    pub inputs: Vec<Vec<u64>>,
    /// Accuracy on all rows (argmax of the outputs, first on ties).
    pub train_accuracy: f64,
}

/// The yarrow-polycirc Iris demo in `Z_(2^64)`: a 3x4 linear layer without bias in 10-bit
/// fixed point (inputs and one-hot labels scaled by 2^10 and truncated), parameters from
/// zero, the clipped displacement loss, fixed-point gradient descent with learning rate
/// 2^-7, 60 passes over the rows in the class-interleaving order 0, 50, 100, 1, 51, 101,
/// ...; accuracy is scored on every row. Expects the 150-row Iris data in file order.
///
/// # Errors
/// [`ArityMismatch`] if the data do not have 4 numeric features and 3 classes of 50.
pub fn polycirc_iris(iris: &Dataset) -> Result<FixedRun, ArityMismatch> {
    type R = IrisRing;
    const NBITS: u8 = 10;
    let one = 1i64 << NBITS;
    let Features::Real { values, n_features: 4, .. } = &iris.features else {
        return Err(ArityMismatch { left: 0, right: 4 });
    };
    if iris.n_examples() != 150 || iris.n_classes() != 3 {
        return Err(ArityMismatch { left: iris.n_examples(), right: 150 });
    }
    let x: Vec<Vec<u64>> = values
        .chunks(4)
        .map(|row| row.iter().map(|&v| R::from_signed((v * one as f64) as i64)).collect())
        .collect();
    let y: Vec<Vec<u64>> = iris
        .labels
        .iter()
        .map(|&l| (0..3).map(|c| if c == l { R::from_signed(one) } else { 0 }).collect())
        .collect();
    let model: Circuit<Poly<R>> = linear(3, 4);
    let zero = |b: &mut CircuitBuilder<Poly<R>>| b.poly(PolyOp::Const(0), &[]);
    let loss = displacement(clipped_displacement::<R>(3, NBITS), zero)?;
    let lens = learner(&model, &loss, &feedback(3))?;
    let step_circuit = step(&lens, 12, &fixed_gd::<R>(12, NBITS, one >> 7))?;
    let n = x.len();
    let order: Vec<usize> = (0..n).map(|j| (j % 3) * 50 + j / 3).collect();
    let mut p = vec![0u64; 12];
    for j in 0..n * 60 {
        let i = order[j % n];
        let mut inputs = p.clone();
        inputs.extend_from_slice(&x[i]);
        inputs.extend_from_slice(&y[i]);
        p = step_circuit.eval_one(&inputs);
    }
    let correct = (0..n)
        .filter(|&i| {
            let mut inputs = p.clone();
            inputs.extend_from_slice(&x[i]);
            let out: Vec<i64> = model.eval_one(&inputs).into_iter().map(R::signed).collect();
            let best = (0..3).fold(0, |b, c| if out[c] > out[b] { c } else { b });
            best == iris.labels[i] as usize
        })
        .count();
    Ok(FixedRun { model, params: p, inputs: x, train_accuracy: correct as f64 / n as f64 })
}

//! Losses and the learning rate as lenses, after Cruttwell, Gavranović, Ghani, Wilson,
//! Zanasi, *Categorical Foundations of Gradient-Based Learning*.
//!
//! A loss is a map `(ŷ, y) -> L` (a scalar, averaged over the batch) taken with its
//! reverse derivative, `Lens::of(loss)`, so the change it hands back to the prediction is
//! `dL * ∂L/∂ŷ`. The learning rate `α` is the lens `(L -> 1, L |-> α)`: it closes the
//! learner and chooses the incoming change `dL`. With `α = 1` the learner returns the
//! gradient itself; optimisers then scale it (see [`Optimizer`](crate::Optimizer)).

use super::{SmoothCircuit, SmoothOp};
use crate::cat::Lens;
use crate::circuit::{Circuit, CircuitBuilder};
use crate::error::ArityMismatch;

/// Mean squared error, `mean over the batch of sum_j (ŷ_j - y_j)^2 / 2`, as a map
/// `(ŷ, y) -> L`. Its reverse derivative hands `ŷ` the change `dL (ŷ - y) / B`.
#[must_use]
pub fn mse_map() -> SmoothCircuit {
    let mut b = CircuitBuilder::<SmoothOp>::new(0, 2);
    let (yhat, y) = (b.arg(0), b.arg(1));
    let d = b.gate(SmoothOp::Sub, &[yhat, y]);
    let sq = b.gate(SmoothOp::Mul, &[d, d]);
    let half = b.gate(SmoothOp::constant(0.5), &[]);
    let h = b.gate(SmoothOp::Mul, &[half, sq]);
    let l = b.gate(SmoothOp::BatchMean, &[h]);
    b.finish(vec![l]).expect("mse is valid")
}

/// Softmax cross-entropy of logits `z` against target distributions `y` (one-hot labels),
/// `mean over the batch of -sum_j y_j log softmax(z)_j`, as a map `(z, y) -> L`. Its
/// reverse derivative hands `z` the change `dL (softmax(z) - y) / B` when rows of `y` sum to 1.
#[must_use]
pub fn softmax_cross_entropy_map() -> SmoothCircuit {
    let mut b = CircuitBuilder::<SmoothOp>::new(0, 2);
    let (z, y) = (b.arg(0), b.arg(1));
    let ls = b.gate(SmoothOp::LogSoftmax, &[z]);
    let t = b.gate(SmoothOp::Mul, &[y, ls]);
    let n = b.gate(SmoothOp::Neg, &[t]);
    let l = b.gate(SmoothOp::BatchMean, &[n]);
    b.finish(vec![l]).expect("cross-entropy is valid")
}

/// The loss lens of [`mse_map`].
#[must_use]
pub fn mse() -> Lens<SmoothOp> {
    Lens::of(mse_map())
}

/// The loss lens of [`softmax_cross_entropy_map`].
#[must_use]
pub fn softmax_cross_entropy() -> Lens<SmoothOp> {
    Lens::of(softmax_cross_entropy_map())
}

/// The learning-rate lens `α : L -> 1`: forward discards the loss, backward returns the
/// constant change `α`.
#[must_use]
pub fn learning_rate(alpha: f32) -> Lens<SmoothOp> {
    let mut b = CircuitBuilder::<SmoothOp>::new(0, 1);
    let a = b.gate(SmoothOp::constant(alpha), &[]);
    let rev = b.finish(vec![a]).expect("learning-rate backward is valid");
    Lens::new(Circuit::discard(1), rev).expect("arity by construction")
}

/// The loss functions the CLI offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossKind {
    /// [`mse`].
    Mse,
    /// [`softmax_cross_entropy`].
    SoftmaxCrossEntropy,
}

impl LossKind {
    /// Parses `mse` or `softmax-ce` (also `cross-entropy`, `ce`).
    ///
    /// # Errors
    /// A message listing the names when `s` is none of them.
    pub fn parse(s: &str) -> Result<Self, super::SmoothError> {
        match s {
            "mse" => Ok(Self::Mse),
            "softmax-ce" | "cross-entropy" | "ce" => Ok(Self::SoftmaxCrossEntropy),
            _ => Err(super::SmoothError::UnknownLoss(s.to_owned())),
        }
    }

    /// The name `parse` accepts.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Mse => "mse",
            Self::SoftmaxCrossEntropy => "softmax-ce",
        }
    }

    /// The loss as a map `(ŷ, y) -> L`.
    #[must_use]
    pub fn map(self) -> SmoothCircuit {
        match self {
            Self::Mse => mse_map(),
            Self::SoftmaxCrossEntropy => softmax_cross_entropy_map(),
        }
    }

    /// The loss lens.
    #[must_use]
    pub fn lens(self) -> Lens<SmoothOp> {
        match self {
            Self::Mse => mse(),
            Self::SoftmaxCrossEntropy => softmax_cross_entropy(),
        }
    }
}

/// The learner `(model ⊗ id_Y) ; loss ; learning_rate(alpha)` for a model with one output.
///
/// # Errors
/// [`ArityMismatch`] if the model does not have exactly one output.
pub fn learner(
    model: &SmoothCircuit,
    loss: &Lens<SmoothOp>,
    alpha: f32,
) -> Result<Lens<SmoothOp>, ArityMismatch> {
    crate::cat::learner::learner(model, loss, &learning_rate(alpha))
}

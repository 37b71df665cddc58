//! Why a smooth model, loss, optimiser or example set cannot be built.

/// A smooth-domain error; each variant says what was given and what was expected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SmoothError {
    /// A model spec that does not parse.
    #[error(
        "bad smooth model spec '{0}': expected mlp:H1xH2..., conv, cnn:F1xF2:H, linear, dense or hidden:N"
    )]
    Spec(String),
    /// Layers or tensors whose shapes do not fit together or the input.
    #[error("{0}")]
    Shape(String),
    /// An optimiser name that is none of [`OptimizerSpec::NAMES`](super::optim::OptimizerSpec::NAMES).
    #[error("unknown smooth optimizer '{0}'; expected one of sgd, momentum, nesterov, adagrad, adam")]
    UnknownOptimizer(String),
    /// A loss name that is neither `softmax-ce` nor `mse`.
    #[error("unknown loss '{0}'; expected softmax-ce or mse")]
    UnknownLoss(String),
    /// Examples a smooth model cannot read.
    #[error("{0}")]
    Examples(String),
}

//! Evaluating a trained Boolean network: its outputs and predicted classes on packed
//! examples (the fused LUT kernel where the circuit is a LUT network).

use super::network::Network;
use crate::circuit::Circuit;
use crate::domain::{Bool, LutNetwork};
use crate::lanes::{BitMatrix, EvalParams, LANES, Program};

/// Predicted classes of `net` with `params` on every example.
#[must_use]
pub fn predict(net: &Network, params: &[bool], inputs: &BitMatrix) -> Vec<u32> {
    predict_outputs(net, &outputs(net, params, inputs))
}

/// The output bits of `net` with `params` on every example: what its head reads.
#[must_use]
pub fn outputs(net: &Network, params: &[bool], inputs: &BitMatrix) -> BitMatrix {
    match &net.layers {
        Some(layers) => LutNetwork::from_layers(layers).eval(params, inputs, &EvalParams::default()),
        None => forward(&net.circuit, params, inputs),
    }
}

/// The classes `net`'s head reads from its output bits `out` ([`outputs`]).
#[must_use]
pub fn predict_outputs(net: &Network, out: &BitMatrix) -> Vec<u32> {
    match &net.vote_weights {
        Some(v) => v.predict(out),
        None => net.spec.head.predict(out, net.n_classes),
    }
}

/// The class scores `net`'s head compares in its output bits `out`, example-major
/// (`scores[e * classes + c]`): a groupsum head's vote counts, with vote weights the
/// weighted sums plus the class constants; binary and one-hot heads score 1 for the
/// class they decode.
#[must_use]
pub fn score_outputs(net: &Network, out: &BitMatrix) -> Vec<i64> {
    match &net.vote_weights {
        Some(v) => v.scores(out),
        None => net.spec.head.scores(out, net.n_classes).into_iter().map(i64::from).collect(),
    }
}

/// The circuit's outputs with `params` broadcast over the examples of `inputs`. LUT
/// networks run the fused kernel (tables as constants); other circuits get the parameter
/// rows broadcast over chunks of `FORWARD_CHUNK` examples, so memory beyond the inputs
/// and outputs does not grow with the data.
#[must_use]
pub fn forward(c: &Circuit<Bool>, params: &[bool], inputs: &BitMatrix) -> BitMatrix {
    if let Some(net) = LutNetwork::new(c) {
        return net.eval(params, inputs, &EvalParams::default());
    }
    let program = Program::new(c);
    let mut out = BitMatrix::zeros(c.n_outputs(), inputs.examples());
    let chunk_words = FORWARD_CHUNK / LANES;
    for w0 in (0..inputs.words()).step_by(chunk_words) {
        let w1 = (w0 + chunk_words).min(inputs.words());
        let x = inputs.word_range(w0, w1);
        let part =
            program.eval(&BitMatrix::broadcast(params, x.examples()).vstack(&x), &EvalParams::default());
        for r in 0..out.rows() {
            out.row_mut(r)[w0..w1].copy_from_slice(part.row(r));
        }
    }
    out
}

/// Examples per chunk of the generic forward pass.
pub const FORWARD_CHUNK: usize = 1 << 14;

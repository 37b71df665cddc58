//! The whole classifier as one Boolean circuit: a trained network with its parameters
//! folded in, and for a `groupsum` head a popcount per class group and an argmax, so the
//! outputs are the predicted class index in binary (LSB first). Its AND count is the
//! hardware cost of the classifier, head included.

use super::Network;
use super::head::binary_width;
use super::spec::Head;
use crate::circuit::{Circuit, CircuitBuilder, WireId};
use crate::domain::arith::{less_equal, popcount};
use crate::domain::{Bool, BoolBuild};
use thiserror::Error;

/// A head that has no class-index circuit.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("the onehot head names no class on some patterns; classifier circuits need groupsum or binary")]
pub struct OneHotHead;

/// `x -> class index` for `net` with `params`: ties between groups go to the lowest class,
/// as in [`Head::predict`]. A `binary` head already outputs the index and is returned with
/// its parameters bound.
///
/// # Errors
/// [`OneHotHead`] for a `onehot` head.
///
/// # Panics
/// If `params` does not have one value per parameter of `net`.
pub fn classifier_circuit(net: &Network, params: &[bool]) -> Result<Circuit<Bool>, OneHotHead> {
    let c = &net.circuit;
    assert_eq!(params.len(), c.n_params(), "one value per parameter");
    let mut b = CircuitBuilder::<Bool>::new(0, c.n_args());
    let mut inputs: Vec<WireId> = params.iter().map(|&p| b.constant(p)).collect();
    inputs.extend(b.args());
    let outs = b.instantiate(c, &inputs).expect("inputs match the network");
    let index = match net.spec.head {
        Head::Binary => outs,
        Head::OneHot => return Err(OneHotHead),
        Head::GroupSum(classes) => {
            let per = outs.len() / classes;
            let scores: Vec<Vec<WireId>> = outs.chunks(per).map(|g| popcount(&mut b, g)).collect();
            argmax(&mut b, &scores)
        }
    };
    Ok(b.finish(index).expect("classifier circuit is valid"))
}

/// Index (binary, LSB first) of the first largest of `scores` (binary numbers, LSB first).
fn argmax(b: &mut CircuitBuilder<Bool>, scores: &[Vec<WireId>]) -> Vec<WireId> {
    let width = binary_width(scores.len());
    let zero = b.constant(false);
    let mut best = scores[0].clone();
    let mut index = vec![zero; width];
    for (c, s) in scores.iter().enumerate().skip(1) {
        // Strictly greater: not (s <= best).
        let le = less_equal(b, s, &best);
        let greater = b.not(le);
        let n = best.len().max(s.len());
        best = (0..n)
            .map(|i| {
                let (old, new) = (best.get(i).copied().unwrap_or(zero), s.get(i).copied().unwrap_or(zero));
                b.mux(greater, old, new)
            })
            .collect();
        index = (0..width)
            .map(|i| {
                let bit = b.constant(c >> i & 1 == 1);
                b.mux(greater, index[i], bit)
            })
            .collect();
    }
    index
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lanes::BitMatrix;
    use crate::learn::ModelSpec;
    use crate::learn::trainer::{forward, predict};
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn classifier_outputs_the_heads_prediction() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        for spec in ["lut:3:40x2,groupsum:5", "lut:2:12x1,groupsum:3", "lut:4:8x1,binary"] {
            let spec: ModelSpec = spec.parse().unwrap();
            let classes = if let Head::GroupSum(c) = spec.head { c } else { 4 };
            let net = Network::build(spec, 10, classes, 1).unwrap();
            let params: Vec<bool> = (0..net.n_params()).map(|_| rng.random()).collect();
            let ex: Vec<Vec<bool>> = (0..300).map(|_| (0..10).map(|_| rng.random()).collect()).collect();
            let x = BitMatrix::from_examples(10, &ex);
            let cls = classifier_circuit(&net, &params).unwrap();
            let y = forward(&cls, &[], &x);
            let want = predict(&net, &params, &x);
            for (e, &w) in want.iter().enumerate() {
                let got: u32 = (0..y.rows()).map(|j| u32::from(y.get(j, e)) << j).sum();
                // A binary pattern past the last class decodes to "no class" in predict.
                assert_eq!(if (got as usize) < classes { got } else { u32::MAX }, w, "{spec} example {e}");
            }
        }
        let onehot = Network::build("lut:2:6x1,onehot".parse().unwrap(), 4, 3, 0).unwrap();
        assert_eq!(classifier_circuit(&onehot, &vec![false; onehot.n_params()]), Err(OneHotHead));
    }
}

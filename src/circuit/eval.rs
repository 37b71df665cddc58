//! One-example evaluation through a gate [`Semantics`]: the reference every faster
//! evaluator (bit-parallel lanes, fused kernels) is tested against.

use super::{Circuit, Signature};

/// The meaning of a gate type over values of type `V`.
pub trait Semantics<V>: Signature {
    /// The gate's output on the given inputs (one per port).
    fn apply(&self, inputs: &[V]) -> V;
}

impl<S: Signature> Circuit<S> {
    /// Evaluates the circuit on one input vector (parameters first), gate by gate.
    ///
    /// # Panics
    /// If `inputs` does not have one value per circuit input.
    #[must_use]
    pub fn eval_one<V: Clone>(&self, inputs: &[V]) -> Vec<V>
    where
        S: Semantics<V>,
    {
        assert_eq!(inputs.len(), self.n_inputs(), "one value per circuit input");
        let mut vals: Vec<V> = inputs.to_vec();
        vals.reserve(self.n_gates());
        let mut buf = Vec::new();
        for (_, op, fanins) in self.gates() {
            buf.clear();
            buf.extend(fanins.iter().map(|w| vals[w.index()].clone()));
            let v = op.apply(&buf);
            vals.push(v);
        }
        self.outputs().iter().map(|w| vals[w.index()].clone()).collect()
    }
}

//! Learners, domain-free: the lens composite `(model ⊗ id_Y) ; loss ; learning rate`
//! and one optimisation step as a circuit. The Boolean RDA step and the fixed-point
//! ring step are both instances.

use super::{Lens, ReverseRules};
use crate::circuit::{Circuit, CircuitBuilder, WireId};
use crate::error::ArityMismatch;

/// The learning rate that returns the loss value itself as the change of the prediction
/// (forward discards it, backward is the identity): RDA's choice in Z2, and what a
/// displacement loss needs.
#[must_use]
pub fn feedback<S: ReverseRules>(n: usize) -> Lens<S> {
    Lens::new(Circuit::discard(n), Circuit::identity(n)).expect("arity by construction")
}

/// A loss given by its displacement `d : (ŷ, y) -> L` whose backward part hands the
/// incoming change `dL` to the prediction and nothing to the label: with [`feedback`],
/// the prediction receives `d(ŷ, y)` (for example `ŷ - y`, or a clipped variant).
///
/// # Errors
/// [`ArityMismatch`] unless `d` has `2n` inputs and `n` outputs.
pub fn displacement<S: ReverseRules>(
    d: Circuit<S>,
    zero: impl Fn(&mut CircuitBuilder<S>) -> WireId,
) -> Result<Lens<S>, ArityMismatch> {
    let n = d.n_outputs();
    if d.n_inputs() != 2 * n {
        return Err(ArityMismatch { left: d.n_inputs(), right: 2 * n });
    }
    let mut b = CircuitBuilder::<S>::new(0, 3 * n);
    let args = b.args();
    let z = zero(&mut b);
    let mut out: Vec<WireId> = args[2 * n..].to_vec();
    out.extend(std::iter::repeat_n(z, n));
    Lens::new(d, b.finish(out).expect("displacement backward is valid"))
}

/// The learner `(model ⊗ id_Y) ; loss ; lr : P x (A, Y) -> 0`.
///
/// # Errors
/// [`ArityMismatch`] if the loss does not read the model's outputs and the labels, or
/// the learning rate does not read the loss.
pub fn learner<S: ReverseRules>(
    model: &Circuit<S>,
    loss: &Lens<S>,
    lr: &Lens<S>,
) -> Result<Lens<S>, ArityMismatch> {
    let n = model.n_outputs();
    Lens::of(model.clone()).tensor(&Lens::identity(n)).then(loss)?.then(lr)
}

/// One step as a circuit `P x (A, Y) -> P`: `update(p, dp)`, where `dp` is the learner's
/// backward map at the parameters and `update : (P, P) -> P` is the optimiser (XOR for
/// RDA, `p - scale(dp)` for gradient descent).
///
/// # Errors
/// [`ArityMismatch`] if `update` does not map `2 |P|` wires to `|P|`.
pub fn step<S: ReverseRules>(
    learner: &Lens<S>,
    n_params: usize,
    update: &Circuit<S>,
) -> Result<Circuit<S>, ArityMismatch> {
    if update.n_inputs() != 2 * n_params || update.n_outputs() != n_params {
        return Err(ArityMismatch { left: update.n_inputs(), right: 2 * n_params });
    }
    let rest = learner.fwd.n_inputs() - n_params;
    let mut b = CircuitBuilder::<S>::new(n_params, rest);
    let ins: Vec<WireId> = b.params().into_iter().chain(b.args()).collect();
    let d = b.instantiate(learner.changes(), &ins)?;
    let mut u_in: Vec<WireId> = ins[..n_params].to_vec();
    u_in.extend_from_slice(&d[..n_params]);
    let out = b.instantiate(update, &u_in)?;
    Ok(b.finish(out).expect("step circuit is valid").pruned())
}

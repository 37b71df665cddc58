//! Reverse derivative ascent for Boolean models, built from lenses.
//!
//! The learner is the lens composite `(model ⊗ id_Y) ; xor_loss ; error_feedback`. Its
//! backward map, read at the parameters, is `R[f]((p, x), y ^ f(p, x))_P`: the change
//! that RDA applies, `p <- p ^ dp` ([`rda_step`]).
//!
//! Batching in Z2: summing the per-example changes in Z2 is parity, so two examples that
//! both want a parameter flipped cancel (1 + 1 = 0) and a batch's verdict is a coin toss.
//! The vote optimiser instead counts, per parameter, the lanes whose reverse derivative
//! asks for a flip and the lanes whose derivative (under the complementary error) says
//! the current value is right, and flips where the first outweighs the second: the sum in
//! the saturating semiring rather than in Z2.

use crate::cat::learner::{feedback, learner as generic_learner, step};
use crate::cat::{Lens, rdiff};
use crate::circuit::{Circuit, CircuitBuilder};
use crate::domain::{Bool, BoolBuild};

/// The XOR loss on `n` bits: `(ŷ, y) |-> ŷ ^ y`, with its exact reverse derivative.
#[must_use]
pub fn xor_loss(n: usize) -> Lens<Bool> {
    let mut b = CircuitBuilder::<Bool>::new(0, 2 * n);
    let a = b.args();
    let out = (0..n).map(|i| b.xor(a[i], a[n + i])).collect();
    Lens::of(b.finish(out).expect("xor loss is valid"))
}

/// The Boolean learning rate: forward discards the loss, backward returns the loss value
/// itself as the change of the prediction (the error `ŷ ^ y`).
#[must_use]
pub fn error_feedback(n: usize) -> Lens<Bool> {
    feedback(n)
}

/// The learner lens `P x (A, Y) -> 0` of a model `P x A -> B` under the XOR loss.
#[must_use]
pub fn learner(model: &Circuit<Bool>) -> Lens<Bool> {
    let n = model.n_outputs();
    generic_learner(model, &xor_loss(n), &error_feedback(n)).expect("model, loss and learning rate compose")
}

/// One step of faithful RDA as a circuit `P x (A, Y) -> P`: `p ^ dp` where `dp` is the
/// learner's backward map restricted to the parameters.
#[must_use]
pub fn rda_step(model: &Circuit<Bool>) -> Circuit<Bool> {
    let np = model.n_params();
    let mut b = CircuitBuilder::<Bool>::new(0, 2 * np);
    let a = b.args();
    let out = (0..np).map(|i| b.xor(a[i], a[np + i])).collect();
    let xor_update = b.finish(out).expect("xor update is valid");
    step(&learner(model), np, &xor_update).expect("update fits the parameters")
}

/// `R[f]` restricted to the parameters: `(P, A, dB) -> dP`, with dead gates removed.
#[must_use]
pub fn param_gradient(model: &Circuit<Bool>) -> Circuit<Bool> {
    let r = rdiff(model);
    let keep: Vec<usize> = (0..model.n_params()).collect();
    r.then(&Circuit::wiring(r.n_outputs(), &keep)).expect("projection fits").pruned()
}

//! Reverse derivative categories: `R[-]` as a circuit-to-circuit transform.
//!
//! A domain supplies one reverse rule per gate type ([`ReverseRules`]); [`rdiff`] composes
//! them by the chain rule. Copy (fan-out) reverses to the domain's sum, discard to zero,
//! so `R[f] : A x B -> A` is itself a circuit over the same signature, evaluated by the
//! same evaluators as `f`.

use crate::circuit::{Circuit, CircuitBuilder, Signature, WireId};

/// The reverse derivative rules of a gate signature.
pub trait ReverseRules: Signature {
    /// Adds two adjoints: the reverse of copying a wire.
    fn add(b: &mut CircuitBuilder<Self>, x: WireId, y: WireId) -> WireId;
    /// The zero adjoint: the reverse of discarding a wire.
    fn zero(b: &mut CircuitBuilder<Self>) -> WireId;
    /// Emits `R[gate]`: given the gate's input wires `x`, its output wire `y` and the
    /// output adjoint `dy`, adds gates computing each input's adjoint (`None` is zero).
    fn reverse(
        &self,
        b: &mut CircuitBuilder<Self>,
        x: &[WireId],
        y: WireId,
        dy: WireId,
    ) -> Vec<Option<WireId>>;
}

/// The reverse derivative `R[f] : (inputs of f) x (outputs of f) -> (inputs of f)`.
///
/// Inputs of the result are `f`'s inputs (parameters included, in order) followed by one
/// adjoint per output of `f`; outputs are one adjoint per input of `f`. The result has
/// no parameter block and no dead gates.
#[must_use]
pub fn rdiff<S: ReverseRules>(f: &Circuit<S>) -> Circuit<S> {
    let n_in = f.n_inputs();
    let mut b = CircuitBuilder::<S>::new(0, n_in + f.n_outputs());
    let args = b.args();
    let (x, dy) = args.split_at(n_in);
    let fwd = forward_copy(&mut b, f, x);
    let mut adj: Vec<Option<WireId>> = vec![None; f.n_wires()];
    for (w, &d) in f.outputs().iter().zip(dy) {
        accumulate::<S>(&mut b, &mut adj[w.index()], d);
    }
    for g in (0..f.n_gates()).rev() {
        let g = crate::circuit::GateId(g as u32);
        let out = f.gate_wire(g);
        let Some(d) = adj[out.index()] else { continue };
        let ins: Vec<WireId> = f.fanins(g).iter().map(|w| fwd[w.index()]).collect();
        let contrib = f.op(g).reverse(&mut b, &ins, fwd[out.index()], d);
        for (w, c) in f.fanins(g).iter().zip(contrib) {
            if let Some(c) = c {
                accumulate::<S>(&mut b, &mut adj[w.index()], c);
            }
        }
    }
    let mut zero = None;
    let outs: Vec<WireId> =
        (0..n_in).map(|i| adj[i].unwrap_or_else(|| *zero.get_or_insert_with(|| S::zero(&mut b)))).collect();
    b.finish(outs).expect("reverse derivative of a valid circuit is valid").pruned()
}

/// Copies `f`'s gates into `b` reading `inputs`; returns the image of every wire of `f`.
fn forward_copy<S: Signature>(b: &mut CircuitBuilder<S>, f: &Circuit<S>, inputs: &[WireId]) -> Vec<WireId> {
    let mut map: Vec<WireId> = inputs.to_vec();
    let mut buf = Vec::new();
    for (_, op, fanins) in f.gates() {
        buf.clear();
        buf.extend(fanins.iter().map(|w| map[w.index()]));
        map.push(b.gate(op.clone(), &buf));
    }
    map
}

fn accumulate<S: ReverseRules>(b: &mut CircuitBuilder<S>, slot: &mut Option<WireId>, d: WireId) {
    *slot = Some(match *slot {
        None => d,
        Some(prev) => S::add(b, prev, d),
    });
}

//! Circuits as data: a flat arena of gates in topological order over a gate
//! [`Signature`], built with a lax [`CircuitBuilder`] and frozen into a validated,
//! immutable [`Circuit`]. Composition (`;`, `⊗`), wirings and reparametrisation live in
//! `compose`; arithmetic building blocks (adders, popcount) in `arith`.

mod arena;
mod builder;
mod compose;
mod eval;
mod id;
mod signature;

pub use arena::Circuit;
pub use builder::CircuitBuilder;
pub use eval::Semantics;
pub use id::{GateId, WireId};
pub use signature::Signature;

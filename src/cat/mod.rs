//! The mathematics, domain-free: reverse derivative categories ([`rdiff`]), lenses
//! ([`Lens`]), parametrised maps, and the learner lens that composes a model, a loss and
//! an update into one training step ([`learner`]).
//!
//! Parametrised maps (`Para`) need no separate type: every [`Circuit`](crate::circuit::Circuit)
//! carries a marked parameter block, its composition concatenates parameter blocks, and
//! [`Circuit::reparam`](crate::circuit::Circuit::reparam) reparametrises.

pub mod learner;
mod lens;
mod rdc;

pub use lens::Lens;
pub use rdc::{ReverseRules, rdiff};

//! The mathematics, domain-free: reverse derivative categories ([`rdiff`]), lenses
//! ([`Lens`]) and parametrised maps.
//!
//! Parametrised maps (`Para`) need no separate type: every [`Circuit`](crate::circuit::Circuit)
//! carries a marked parameter block, its composition concatenates parameter blocks, and
//! [`Circuit::reparam`](crate::circuit::Circuit::reparam) reparametrises.

mod lens;
mod rdc;

pub use lens::Lens;
pub use rdc::{ReverseRules, rdiff};

//! Domains: gate signatures with their semantics, lane kernels and reverse rules.

pub mod arith;
pub mod bind;
pub mod blast;
pub mod boolean;
pub mod ring;
pub mod sat;

pub use bind::bind_params;
pub use boolean::{Bool, BoolBuild};

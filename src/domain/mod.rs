//! Domains: gate signatures with their semantics, lane kernels and reverse rules.

pub mod arith;
pub mod boolean;

pub use boolean::{Bool, BoolBuild};

//! Learning: model specs, networks built from them, heads (and the weights fitted on their
//! votes), RDA as lenses, other model families (trees, threshold functions, symmetric
//! functions, word arithmetic); `train` runs them.

pub mod c45;
pub mod cv;
pub mod fixed;
pub mod head;
pub mod local;
pub mod network;
pub mod portfolio;
pub mod predict;
pub mod rda;
pub mod relaxed;
pub mod ring_model;
pub mod spec;
pub mod symmetric;
pub mod threshold;
pub mod tree;
pub mod vote_weights;
pub mod word_arith;

pub use network::{MAX_PARAMS, ModelError, Network, cascade, param_count, side_by_side};
pub use spec::{Body, Head, ModelSpec};

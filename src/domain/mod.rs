//! Domains: gate signatures with their semantics, lane kernels and reverse rules, and the
//! fused kernel of Boolean LUT networks ([`LutNetwork`]).

pub mod arith;
pub mod bind;
pub mod blast;
pub mod blast_ring;
pub mod boolean;
mod lut_layers;
mod lut_network;
pub mod ring;
pub mod ring_kind;
pub mod ring_lanes;
pub mod sat;

pub use bind::bind_params;
pub use boolean::{Bool, BoolBuild};
pub use lut_layers::{LutLayer, LutLayers};
pub(crate) use lut_network::constant_lut;
pub use lut_network::{LutNetwork, Propagation, SUM_MAX};

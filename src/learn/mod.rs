//! Learning: model specs, networks built from them, heads, RDA as lenses, the trainer.

pub mod fixed;
pub mod head;
pub mod learner;
pub mod network;
pub mod rda;
pub mod relaxed;
pub mod spec;
pub mod symmetric;
pub mod threshold;
pub mod trainer;
pub mod tree;

pub use network::{MAX_PARAMS, ModelError, Network, param_count};
pub use spec::{Body, Head, ModelSpec};
pub use trainer::{
    Checkpoint, EpochEnd, EpochStats, Init, Optimizer, Report, StopReason, Trainer, VoteParams,
};

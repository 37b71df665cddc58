//! The library pipeline behind `circuitlearn train`: options ([`TrainOptions`], flags and
//! TOML keys alike, with named [`PRESETS`]) → a typed, validated [`TrainConfig`] → data
//! ([`load_data`]) → a trained model and its report ([`train`]) → synthesis, the
//! classifier as an AIG after the pass script ([`synthesize`]) → the files of a run
//! (`model.json`, `metrics.json`, the counted AIG), written by the caller.
//!
//! ```no_run
//! use circuitlearn::pipeline::{self, TrainConfig, TrainOptions};
//! let options = TrainOptions { data: Some("wine".into()), epochs: Some(5), ..TrainOptions::default() };
//! let config = TrainConfig::resolve(&options)?;
//! let data = pipeline::load_data(&config)?;
//! let trained = pipeline::train(&config, &data, None, &mut |_| {})?;
//! let synthesis = pipeline::synthesize(&config, &trained)?;
//! println!("{} AND nodes", synthesis.map_or(0, |s| s.aig.n_ands()));
//! # Ok::<(), pipeline::PipelineError>(())
//! ```

mod classifier;
mod config;
mod hw_trainer;
mod images;
pub(crate) mod iwls;
mod load;
mod options;
mod poly;
mod presets;
mod run;

pub use classifier::{
    CLASSIFIER_FILE, SavedClassifier, model_fingerprint, saved_classifier, write_classifier,
};
pub use config::{
    BoolConfig, BoolOptimizer, CareSet, ConfigError, Domain, Hardware, MAX_BOOST, ModelConfig, PolyConfig,
    RelaxedConfig, SmoothConfig, TrainConfig, encoding_text, implied_preset, parse_encoding,
};
pub use hw_trainer::{HwMode, HwTrainCheck, HwTrainError, HwTrainParams, RustRun, check_trainer, rust_run};
pub use images::{ImageData, load as load_images};
pub use iwls::{IwlsParams, IwlsSelection};
pub use load::load_data;
pub use options::{OptionsError, TrainOptions};
pub use presets::{PRESETS, Preset, preset};
pub use run::{
    CHECKPOINT_FILE, EpochProgress, Synthesis, Trained, TrainedModel, has_checkpoint, member_checkpoint_file,
    metrics, run_dir, synthesize, train,
};

use crate::data::{DataError, Dataset};
use crate::learn::relaxed::PixelGrid;

/// Why a run cannot go on. All but [`Io`](Self::Io) and [`Pass`](Self::Pass) are bad
/// input (exit 2 on the command line).
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    /// A bad option.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A bad configuration file.
    #[error(transparent)]
    Options(#[from] OptionsError),
    /// Bad data.
    #[error(transparent)]
    Data(#[from] DataError),
    /// A model that does not fit the data.
    #[error(transparent)]
    Model(#[from] crate::learn::ModelError),
    /// A bad model spec.
    #[error(transparent)]
    Spec(#[from] crate::learn::spec::SpecError),
    /// A model file (`--init`) that cannot be used.
    #[error(transparent)]
    ModelFile(#[from] crate::io::ModelFileError),
    /// Options that do not fit the data (checked once the data are read).
    #[error("{0}")]
    Invalid(String),
    /// A checkpoint that cannot be read or does not fit the run.
    #[error("{path}: {source}")]
    Checkpoint {
        /// The checkpoint file.
        path: String,
        /// Why.
        source: crate::train::CheckpointError,
    },
    /// A pass that failed (a failed equivalence proof, a solver error).
    #[error(transparent)]
    Pass(#[from] crate::pass::PassError),
    /// A file that could not be written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
}

impl PipelineError {
    /// Whether the error is the user's input (exit 2), not a failure (exit 1).
    #[must_use]
    pub fn is_bad_input(&self) -> bool {
        match self {
            PipelineError::Io { .. } => false,
            PipelineError::Pass(p) => {
                matches!(p, crate::pass::PassError::Unknown(_) | crate::pass::PassError::NoCareSet)
            }
            _ => true,
        }
    }
}

/// What a run learns from.
pub struct TrainData {
    /// The data set's name (`iris`, a file stem, `fashion-mnist`).
    pub name: String,
    /// Training examples.
    pub train: Dataset,
    /// Test examples.
    pub test: Dataset,
    /// Where the test examples came from.
    pub test_source: String,
    /// The pixel grid of image data.
    pub grid: Option<PixelGrid>,
    /// The images themselves (smooth models read pixels scaled to `[0, 1]`).
    pub images: Option<ImageData>,
}

//! [`TrainConfig`]: the typed, validated form of [`TrainOptions`]. Every option is
//! checked here, before any data is read: its range, its type, and whether it applies to
//! the run's domain (an option that does not apply is an error naming it, never silently
//! ignored). What needs the data (a model that fits its inputs, image-only options) is
//! checked when the data are loaded, still before training.

use super::TrainOptions;
use super::presets::preset;
use crate::data::Encoding;
use crate::learn::ModelSpec;
use crate::learn::relaxed::RelaxedSpec;
use crate::pass::{PassContext, parse_script};
use crate::smooth::layers::SmoothSpec;
use crate::smooth::loss::LossKind;
use crate::smooth::optim::OptimizerSpec;
use std::path::PathBuf;

/// An option with a bad value, or one that does not apply to the run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{option}: {message}")]
pub struct ConfigError {
    /// The option, as a flag (`--lr`).
    pub option: String,
    /// What is wrong.
    pub message: String,
}

fn bad(option: &str, message: impl Into<String>) -> ConfigError {
    ConfigError { option: option.to_owned(), message: message.into() }
}

/// What the run trains.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Domain {
    /// Boolean circuits by RDA.
    Bool,
    /// Relaxed logic, discretised.
    Relaxed,
    /// f32 tensor models.
    Smooth,
    /// Fixed-point polynomial circuits over a ring.
    Poly,
}

impl Domain {
    /// The name `--domain` takes.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Domain::Bool => "bool",
            Domain::Relaxed => "relaxed",
            Domain::Smooth => "smooth",
            Domain::Poly => "poly",
        }
    }
}

/// The Boolean optimiser named by `--optimizer`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoolOptimizer {
    /// The family's working member: faithful on `table`, votes otherwise.
    Rda,
    /// Faithful per-example RDA.
    Faithful,
    /// Batched vote counting.
    Votes,
    /// Batched Z2 sum.
    Parity,
    /// Batched vote counting exactly as the hardware trainer does it (`rda-votes-hw`:
    /// saturating counters, integer weight, xorshift acceptance draws).
    VotesHw,
}

/// Boolean training settings.
#[derive(Clone, Debug, PartialEq)]
pub struct BoolConfig {
    /// The model (`None`: `lut:6:64x1,groupsum:C` for the data's `C` classes, or the
    /// `--init` model's).
    pub spec: Option<ModelSpec>,
    /// The optimiser.
    pub optimizer: BoolOptimizer,
    /// Encoding of numeric features (`None`: thermometer:8, or the `--init` model's).
    pub encoding: Option<Encoding>,
    /// Examples per batch.
    pub batch: usize,
    /// Probability that a winning flip is applied.
    pub accept: f64,
    /// Margin of the vote rule.
    pub margin: f64,
    /// Weight of positive votes (`None`: by the head).
    pub positive_weight: Option<f64>,
    /// Sum votes over fan-outs.
    pub sum_fanouts: bool,
    /// Start from this model file.
    pub init: Option<PathBuf>,
    /// Width of the hardware-exact rule's counters (`None`: never saturating over a batch).
    pub counter_bits: Option<u32>,
    /// Visit the training examples in file order every epoch (as a hardware trainer fed
    /// from memory does), not in a fresh shuffle.
    pub file_order: bool,
    /// Local first-layer wiring on image data: each first-layer LUT reads pixels within
    /// this many rows and columns of its centre (`None`: the seeded random wiring).
    pub input_radius: Option<usize>,
    /// Rewiring of the last hidden layer between epochs (`None`: the wiring stays).
    pub rewire: Option<crate::train::RewireParams>,
    /// Fit integer weights on the `groupsum` head's votes after training
    /// ([`VoteWeights`](crate::learn::vote_weights::VoteWeights)).
    pub vote_weights: bool,
}

/// Relaxed training settings.
#[derive(Clone, Debug, PartialEq)]
pub struct RelaxedConfig {
    /// The relaxed model spec as given (its head defaults to `groupsum:C`).
    pub spec: String,
    /// Encoding of numeric features.
    pub encoding: Encoding,
    /// Examples per Adam step.
    pub batch: usize,
    /// Adam's rate.
    pub lr: f32,
    /// GroupSum temperature (`None`: sqrt of the group size).
    pub tau: Option<f32>,
    /// Residual initialisation.
    pub residual: f32,
    /// Cosine rate decay.
    pub cosine: bool,
    /// Candidates per first-layer input (1: random wiring).
    pub input_candidates: usize,
    /// Locality radius of the candidates (image data).
    pub input_radius: Option<usize>,
    /// Candidates per input of the later layers (1: random wiring).
    pub hidden_candidates: usize,
    /// Locality radius of the later layers' candidates (image data).
    pub hidden_radius: Option<usize>,
    /// Candidates kept after narrowing.
    pub narrow_candidates: Option<usize>,
    /// Epochs before narrowing.
    pub narrow_after: usize,
    /// Last epochs on the chosen wiring.
    pub hard_choice_epochs: usize,
    /// Last epochs with hard gates.
    pub hard_gate_epochs: usize,
    /// The learned choices that read their heaviest candidate from the start.
    pub straight_through_choice: crate::learn::relaxed::StraightThroughChoice,
    /// Distillation from a smooth teacher, and the teacher's weight in each target.
    pub teacher: Option<(crate::train::TeacherParams, f32)>,
    /// Networks trained one after another, their votes summed (1: one network).
    pub boost: usize,
    /// Weight of the earlier members' counts in each later member's class scores.
    pub boost_scale: f32,
    /// The networks but a specialist also train on their training images moved by 1 to
    /// `shifts` pixels in each of the four directions (`--shifts`; image data).
    pub shifts: usize,
    /// Every network's moved copies also move diagonally (`move_offsets`;
    /// `--diagonal-moves`).
    pub diagonal_moves: bool,
    /// With `shifts`: the moved copies of each image an epoch trains on, drawn at random
    /// (`--copies-per-epoch`; `None`: all of them).
    pub copies_per_epoch: Option<usize>,
    /// `--specialist`: a second network for some classes, asked in a cascade.
    pub specialist: Option<SpecialistConfig>,
}

/// A specialist network's settings (`--specialist`, `--specialist-tau`).
#[derive(Clone, Debug, PartialEq)]
pub struct SpecialistConfig {
    /// Its classes (indices into the data's classes), lowest first.
    pub classes: Vec<u32>,
    /// Its GroupSum temperature, if given.
    pub tau: Option<f32>,
    /// It also trains on its training images moved by 1 to `shifts` pixels in each of the
    /// four directions.
    pub shifts: usize,
    /// Its moved copies also move diagonally (`--diagonal-moves`).
    pub diagonal_moves: bool,
    /// With `shifts`: the moved copies of each image an epoch trains on, drawn at random
    /// (`None`: all of them).
    pub copies_per_epoch: Option<usize>,
}

/// Smooth training settings.
#[derive(Clone, Debug, PartialEq)]
pub struct SmoothConfig {
    /// The model spec as given.
    pub spec: String,
    /// Parsed.
    pub model: SmoothSpec,
    /// The optimiser and its rate.
    pub optimizer: OptimizerSpec,
    /// The loss.
    pub loss: LossKind,
    /// Examples per step.
    pub batch: usize,
}

/// The table entries of a trained LUT network filled as don't-cares
/// ([`fill_input_dont_cares`](crate::fill_input_dont_cares),
/// [`fill_data_dont_cares`](crate::fill_data_dont_cares)).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CareSet {
    /// The first layer's addresses no encoded input can produce.
    Encoder,
    /// Those, and every layer's addresses that fewer than this fraction of the training
    /// examples reach, in `[0, 1)` (0: the addresses no example reaches, so the answers on
    /// the training examples are kept).
    Training(f64),
}

impl CareSet {
    /// The fewest of `examples` training examples that make a table entry cared for
    /// (0: the encoder's don't-cares alone; at least 1 with a training care set).
    #[must_use]
    pub fn min_examples(self, examples: usize) -> u32 {
        match self {
            Self::Encoder => 0,
            Self::Training(f) => ((f * examples as f64).ceil() as u32).max(1),
        }
    }
}

/// Ring (`--domain poly`) training settings.
#[derive(Clone, Debug, PartialEq)]
pub struct PolyConfig {
    /// The ring.
    pub ring: crate::domain::ring_kind::RingKind,
    /// The model.
    pub spec: crate::learn::ring_model::RingModelSpec,
    /// Fraction bits.
    pub frac_bits: u8,
    /// The learning rate as given.
    pub lr: f64,
    /// In fixed point (`round(lr * 2^F)`, at least 1).
    pub lr_fixed: i64,
    /// Examples per step: 1 is per-example descent (the step circuit), more is
    /// mini-batch descent on the mean change (`train::RingBatchRule`).
    pub batch: usize,
}

/// The model family and its training settings.
#[derive(Clone, Debug, PartialEq)]
pub enum ModelConfig {
    /// Boolean circuits by RDA.
    Bool(BoolConfig),
    /// Relaxed logic.
    Relaxed(RelaxedConfig),
    /// f32 tensors.
    Smooth(SmoothConfig),
    /// Ring models.
    Poly(PolyConfig),
}

/// What hardware `train` produces after training.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hardware {
    /// Export the Verilog and its testbench, and run it in Icarus when installed.
    Verify,
    /// Export only.
    Export,
    /// Nothing.
    None,
}

/// A training run, typed and validated.
#[derive(Clone, Debug, PartialEq)]
pub struct TrainConfig {
    /// The preset the options were layered on, if any.
    pub preset: Option<String>,
    /// `--data`.
    pub data: String,
    /// `--test`.
    pub test: Option<String>,
    /// `--test-fraction`.
    pub test_fraction: f64,
    /// `--valid-fold`: the held-out fold of the training examples that replaces the test
    /// split (`None`: test on the test split).
    pub valid_fold: Option<crate::data::ValidFold>,
    /// `--seed`.
    pub seed: u64,
    /// `--threads` (0 = all cores).
    pub threads: usize,
    /// `--epochs`.
    pub epochs: usize,
    /// `--time-limit`, seconds.
    pub time_limit: Option<f64>,
    /// The model and its training.
    pub model: ModelConfig,
    /// `--passes`.
    pub passes: String,
    /// `--synth-budget`: the pass script's wall-clock budget.
    pub synth_budget: std::time::Duration,
    /// `--exact-inputs`.
    pub exact_inputs: usize,
    /// `--check`.
    pub check: bool,
    /// `--hardware`.
    pub hardware: Hardware,
    /// `--out` (`None`: `runs/<data name>`).
    pub out: Option<PathBuf>,
    /// `--checkpoint-every` (0 = never).
    pub checkpoint_every: usize,
    /// Which table entries are filled as don't-cares after training.
    pub care_set: CareSet,
    /// `--max-memory`, bytes (`None`: the memory available).
    pub max_memory: Option<u64>,
}

/// Whether a smooth-domain spec: `mlp:`, `cnn:`, `conv`, `linear`, `dense`, `hidden:N`.
fn is_smooth_spec(m: &str) -> bool {
    m.starts_with("mlp:")
        || m.starts_with("cnn:")
        || m.starts_with("hidden:")
        || ["conv", "linear", "dense"].contains(&m)
}

/// The preset `o` is layered on: the one it names, or for `--data fashion-mnist` the
/// recipe it stands for (see [`TrainOptions::preset`]).
#[must_use]
pub fn implied_preset(o: &TrainOptions) -> Option<String> {
    match o.preset.as_deref() {
        Some("none") => return None,
        Some(p) => return Some(p.to_owned()),
        None => {}
    }
    if o.data.as_deref() != Some("fashion-mnist") || o.model.is_some() || o.init.is_some() {
        return None;
    }
    let boolean = ["rda", "faithful", "votes", "parity", "votes-hw"];
    match (o.optimizer.as_deref(), o.domain.as_deref()) {
        (None, None) => Some("fashion-mnist-cascade".to_owned()),
        (Some(opt), None | Some("bool")) if boolean.contains(&opt) => Some("fashion-mnist-rda".to_owned()),
        _ => None,
    }
}

fn positive(option: &str, v: f64) -> Result<f64, ConfigError> {
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err(bad(option, format!("must be a positive number, got {v}")))
    }
}

fn at_least_one(option: &str, v: usize) -> Result<usize, ConfigError> {
    if v >= 1 { Ok(v) } else { Err(bad(option, "must be at least 1")) }
}

/// Most candidate sources `--rewire-candidates` may ask for.
pub const MAX_REWIRE_CANDIDATES: usize = 4096;

/// The `--rewire` settings: a fraction in (0, 1] (0: none) with the vote rule (`rda` or `votes`) on
/// a LUT model of two or more layers (its depth, or a `binary`/`onehot` head's extra
/// layer; `None` spec means the one-layer default, refused), candidates in
/// 1..=[`MAX_REWIRE_CANDIDATES`], and no `--rewire-candidates` without `--rewire`.
fn rewire_options(
    o: &TrainOptions,
    optimizer: BoolOptimizer,
    spec: Option<ModelSpec>,
) -> Result<Option<crate::train::RewireParams>, ConfigError> {
    let Some(fraction) = o.rewire else {
        return match o.rewire_candidates {
            Some(_) => Err(bad("--rewire-candidates", "applies with --rewire")),
            None if o.rewire_finalists.is_some() => Err(bad("--rewire-finalists", "applies with --rewire")),
            None if o.rewire_min_examples.is_some() => {
                Err(bad("--rewire-min-examples", "applies with --rewire"))
            }
            None => Ok(None),
        };
    };
    if !(0.0..=1.0).contains(&fraction) {
        return Err(bad("--rewire", format!("must be in [0, 1] (0: no rewiring), got {fraction}")));
    }
    // 0 turns off what a preset (fashion-mnist-rda) asks for.
    if fraction == 0.0 {
        return match (o.rewire_candidates, o.rewire_finalists, o.rewire_min_examples) {
            (Some(_), _, _) => Err(bad("--rewire-candidates", "applies with --rewire above 0")),
            (None, Some(_), _) => Err(bad("--rewire-finalists", "applies with --rewire above 0")),
            (None, None, Some(_)) => Err(bad("--rewire-min-examples", "applies with --rewire above 0")),
            (None, None, None) => Ok(None),
        };
    }
    if !matches!(optimizer, BoolOptimizer::Rda | BoolOptimizer::Votes) {
        return Err(bad("--rewire", "applies to the vote rule (--optimizer rda or votes)"));
    }
    let layered = match spec {
        Some(s) => match s.body {
            crate::learn::Body::Lut { depth, .. } => {
                depth >= 2 || !matches!(s.head, crate::learn::Head::GroupSum(_))
            }
            _ => false,
        },
        None => o.init.is_some(),
    };
    if !layered {
        let what = spec.map_or_else(|| "the default lut:6:64x1".to_owned(), |s| s.to_string());
        return Err(bad(
            "--rewire",
            format!(
                "applies to LUT models with a hidden layer (lut:K:WxD with D >= 2), not {what} (--rewire 0: no rewiring)"
            ),
        ));
    }
    let candidates = o.rewire_candidates.unwrap_or(128);
    if !(1..=MAX_REWIRE_CANDIDATES).contains(&candidates) {
        return Err(bad(
            "--rewire-candidates",
            format!("must be in 1..={MAX_REWIRE_CANDIDATES}, got {candidates}"),
        ));
    }
    let finalists = o.rewire_finalists.unwrap_or(24.min(candidates));
    if finalists > candidates {
        return Err(bad(
            "--rewire-finalists",
            format!("must be at most --rewire-candidates ({candidates}), got {finalists}"),
        ));
    }
    let min_examples = o.rewire_min_examples.unwrap_or(0);
    Ok(Some(crate::train::RewireParams { fraction, candidates, finalists, min_examples }))
}

/// Parses an `--encoding` value.
///
/// # Errors
/// [`ConfigError`] naming `--encoding`.
pub fn parse_encoding(s: &str) -> Result<Encoding, ConfigError> {
    let bits = |b: &str| match b.parse::<usize>() {
        Ok(bits) if (1..=4096).contains(&bits) => Ok(bits),
        _ => Err(bad("--encoding", format!("B must be in 1..=4096, got '{b}'"))),
    };
    match s.split_once(':') {
        None if s == "threshold" => Ok(Encoding::Threshold),
        Some(("thermometer", b)) => Ok(Encoding::Thermometer { bits: bits(b)? }),
        Some(("uniform", b)) => Ok(Encoding::Uniform { bits: bits(b)? }),
        _ => Err(bad("--encoding", format!("unknown '{s}'; expected threshold, thermometer:B or uniform:B"))),
    }
}

/// The `--encoding` text of an encoding (inverse of [`parse_encoding`]).
#[must_use]
pub fn encoding_text(e: &Encoding) -> String {
    match e {
        Encoding::Threshold => "threshold".into(),
        Encoding::Thermometer { bits } => format!("thermometer:{bits}"),
        Encoding::Uniform { bits } => format!("uniform:{bits}"),
    }
}

impl TrainConfig {
    /// Resolves `given` (flags over a config file, as the caller layered them) on the
    /// preset it implies ([`implied_preset`]) and the domain's defaults, and checks
    /// every option.
    ///
    /// # Errors
    /// [`ConfigError`] naming the first bad option.
    pub fn resolve(given: &TrainOptions) -> Result<TrainConfig, ConfigError> {
        let preset_name = implied_preset(given);
        let o = match &preset_name {
            Some(name) => {
                let p = preset(name).ok_or_else(|| {
                    let names: Vec<&str> = super::PRESETS.iter().map(|p| p.name).collect();
                    bad(
                        "--preset",
                        format!("unknown preset '{name}'; expected one of {} or none", names.join(", ")),
                    )
                })?;
                p.options().overlay(given)
            }
            None => given.clone(),
        };
        let model_text = o.model.as_deref();
        let domain = match (o.domain.as_deref(), model_text) {
            (Some("bool"), Some(m)) if m.starts_with("gates:") => {
                return Err(bad(
                    "--model",
                    format!("{m} is a relaxed model (--domain relaxed), not a Boolean one"),
                ));
            }
            (Some("bool"), _) => Domain::Bool,
            (Some("relaxed"), _) => Domain::Relaxed,
            // Relaxed models under --domain smooth: the spelling of earlier releases.
            (Some("smooth"), Some(m)) if m.starts_with("gates:") || m.starts_with("lut:") => Domain::Relaxed,
            (Some("smooth"), _) => Domain::Smooth,
            (Some("poly"), _) => Domain::Poly,
            (Some(d), _) => {
                return Err(bad(
                    "--domain",
                    format!("unknown '{d}'; expected bool, relaxed, smooth or poly"),
                ));
            }
            (None, _) if o.ring.is_some() => Domain::Poly,
            (None, Some(m)) if m.starts_with("gates:") => Domain::Relaxed,
            (None, Some(m)) if is_smooth_spec(m) => Domain::Smooth,
            (None, _)
                if o.optimizer
                    .as_deref()
                    .is_some_and(|x| OptimizerSpec::NAMES.contains(&x) && x != "adam") =>
            {
                Domain::Smooth
            }
            (None, _) => Domain::Bool,
        };
        // Options set that belong to another kind of run.
        let not_for = |flags: &[(&str, bool)], belongs: &str| -> Result<(), ConfigError> {
            match flags.iter().find(|(_, set)| *set) {
                Some((flag, _)) => {
                    Err(bad(flag, format!("applies to {belongs}, not to --domain {}", domain.name())))
                }
                None => Ok(()),
            }
        };
        const RELAXED: &str = "relaxed models (--domain relaxed: gates:WxD or lut:K:WxD)";
        const VOTES: &str = "the Boolean votes optimiser (--domain bool)";
        let relaxed_only = relaxed_flags(&o);
        let votes_only = votes_flags(&o);
        const BOOL_ONLY: &str = "Boolean training (--domain bool)";
        let bool_only = bool_flags(&o);
        let data = o.data.clone().unwrap_or_else(|| "iris".to_owned());
        let test_fraction = o.test_fraction.unwrap_or(0.3);
        if !(test_fraction > 0.0 && test_fraction < 1.0) {
            return Err(bad("--test-fraction", format!("must be in (0, 1), got {test_fraction}")));
        }
        if o.test.is_some() && o.test_fraction.is_some() {
            return Err(bad("--test-fraction", "applies without --test (a separate test set)"));
        }
        let valid_fold = o
            .valid_fold
            .as_deref()
            .map(|f| f.parse::<crate::data::ValidFold>().map_err(|e| bad("--valid-fold", e.to_string())))
            .transpose()?;
        let threads = o.threads.unwrap_or(0);
        if threads > 1024 {
            return Err(bad("--threads", format!("must be at most 1024, got {threads}")));
        }
        let time_limit = o.time_limit.map(|t| positive("--time-limit", t)).transpose()?;
        let max_memory = o
            .max_memory
            .as_deref()
            .map(|m| {
                m.parse::<crate::data::MemoryLimit>()
                    .map(|l| l.limit())
                    .map_err(|e| bad("--max-memory", e.to_string()))
            })
            .transpose()?;
        let exact_inputs = o.exact_inputs.unwrap_or(3);
        if exact_inputs > 4 {
            return Err(bad("--exact-inputs", format!("must be in 0..=4, got {exact_inputs}")));
        }
        let hardware = match o.hardware.as_deref().unwrap_or("verify") {
            "verify" => Hardware::Verify,
            "export" => Hardware::Export,
            "none" => Hardware::None,
            h => return Err(bad("--hardware", format!("unknown '{h}'; expected verify, export or none"))),
        };
        // Every circuit domain runs the same budgeted script; the budget admits a pass by its
        // estimated cost, so wide ring classifiers skip the passes they cannot afford.
        let default_passes = crate::pass::DEFAULT_SYNTH_SCRIPT;
        let synth_budget = o.synth_budget.unwrap_or(crate::pass::DEFAULT_SYNTH_BUDGET);
        let synth_budget = std::time::Duration::try_from_secs_f64(synth_budget)
            .map_err(|_| bad("--synth-budget", format!("expected seconds >= 0, got {synth_budget}")))?;
        let passes = o.passes.clone().unwrap_or_else(|| default_passes.to_owned());
        let script = parse_script(&passes, &PassContext { care: Some(crate::lanes::BitMatrix::zeros(0, 0)) })
            .map_err(|e| bad("--passes", e.to_string()))?;
        let batch = o.batch.map(|b| at_least_one("--batch", b)).transpose()?;
        let care_set = match o.care_set.as_deref() {
            None | Some("encoder") => CareSet::Encoder,
            Some("training") => CareSet::Training(0.0),
            Some(x) => match x.strip_prefix("training:").map(str::parse::<f64>) {
                Some(Ok(f)) if (0.0..1.0).contains(&f) => CareSet::Training(f),
                _ => {
                    return Err(bad(
                        "--care-set",
                        format!(
                            "unknown '{x}'; expected encoder, training or training:F (F in [0, 1), a fraction of the training examples)"
                        ),
                    ));
                }
            },
        };
        if care_set != CareSet::Encoder && matches!(domain, Domain::Smooth | Domain::Poly) {
            return Err(bad("--care-set", "applies to LUT networks (--domain bool or relaxed)"));
        }
        if care_set != CareSet::Encoder && o.optimizer.as_deref().is_some_and(|x| x.ends_with("votes-hw")) {
            return Err(bad("--care-set", "votes-hw keeps its tables as the hardware trainer computes them"));
        }
        const POLY: &str = "ring models (--domain poly)";
        if domain != Domain::Poly {
            not_for(&[("--ring", o.ring.is_some()), ("--frac-bits", o.frac_bits.is_some())], POLY)?;
        }
        let model = match domain {
            Domain::Poly => ModelConfig::Poly(poly_config(&o, &script)?),
            Domain::Bool => {
                // `--input-radius` is the Boolean LUT networks' local first-layer wiring too.
                let relaxed_only: Vec<_> =
                    relaxed_only.iter().filter(|(flag, _)| *flag != "--input-radius").copied().collect();
                not_for(&relaxed_only, RELAXED)?;
                if let Some(l) = o.loss.as_deref().filter(|&l| l != "xor") {
                    return Err(bad("--loss", format!("{l}: the bool domain trains with the xor loss")));
                }
                let spec = o
                    .model
                    .as_deref()
                    .map(str::parse::<ModelSpec>)
                    .transpose()
                    .map_err(|e| bad("--model", e.to_string()))?;
                let optimizer = match o.optimizer.as_deref() {
                    None | Some("rda") => BoolOptimizer::Rda,
                    Some("faithful" | "rda-faithful") => BoolOptimizer::Faithful,
                    Some("votes" | "rda-votes") => BoolOptimizer::Votes,
                    Some("parity" | "rda-parity") => BoolOptimizer::Parity,
                    Some("votes-hw" | "rda-votes-hw") => BoolOptimizer::VotesHw,
                    Some(x) => {
                        return Err(bad(
                            "--optimizer",
                            format!(
                                "unknown '{x}' for --domain bool; expected rda, faithful, votes, parity or \
                                 votes-hw"
                            ),
                        ));
                    }
                };
                let votes = match (optimizer, spec) {
                    (BoolOptimizer::Votes | BoolOptimizer::VotesHw, _) => true,
                    (BoolOptimizer::Rda, Some(s)) => s.body != crate::learn::Body::Table,
                    (BoolOptimizer::Rda, None) => true,
                    _ => false,
                };
                if !votes {
                    if let Some((flag, _)) = votes_only.iter().find(|(_, set)| *set) {
                        return Err(bad(
                            flag,
                            "applies to the votes optimiser, not to faithful or parity RDA",
                        ));
                    }
                    if o.lr.is_some() {
                        return Err(bad(
                            "--lr",
                            "applies to the votes optimiser (the flip acceptance probability)",
                        ));
                    }
                }
                let accept = o.lr.unwrap_or(0.3);
                if !(accept > 0.0 && accept <= 1.0) {
                    return Err(bad(
                        "--lr",
                        format!("the flip acceptance probability must be in (0, 1], got {accept}"),
                    ));
                }
                let margin = o.margin.unwrap_or(0.1);
                if !(0.0..=1.0).contains(&margin) {
                    return Err(bad("--margin", format!("must be in [0, 1], got {margin}")));
                }
                let positive_weight =
                    o.positive_weight.map(|w| positive("--positive-weight", w)).transpose()?;
                let counter_bits = hw_votes_options(&o, optimizer)?;
                if o.init.is_some() && spec.is_some_and(|s| s.body == crate::learn::Body::Table) {
                    return Err(bad("--init", "applies to LUT networks"));
                }
                if let Some(r) = o.input_radius {
                    at_least_one("--input-radius", r)?;
                    if o.init.is_some() {
                        return Err(bad(
                            "--input-radius",
                            "does not apply with --init (the model brings its wiring)",
                        ));
                    }
                    if let Some(s) = spec.filter(|s| !matches!(s.body, crate::learn::Body::Lut { .. })) {
                        return Err(bad(
                            "--input-radius",
                            format!("applies to LUT models (lut:K:WxD), not {s}"),
                        ));
                    }
                }
                let rewire = rewire_options(&o, optimizer, spec)?;
                let vote_weights = o.vote_weights.unwrap_or(false);
                if vote_weights {
                    if optimizer == BoolOptimizer::VotesHw {
                        return Err(bad(
                            "--vote-weights",
                            "does not apply to --optimizer votes-hw (its model is what the hardware trainer computes)",
                        ));
                    }
                    if let Some(s) = spec.filter(|s| !matches!(s.head, crate::learn::Head::GroupSum(_))) {
                        return Err(bad("--vote-weights", format!("applies to a groupsum head, not {s}")));
                    }
                }
                ModelConfig::Bool(BoolConfig {
                    spec,
                    optimizer,
                    encoding: o.encoding.as_deref().map(parse_encoding).transpose()?,
                    batch: batch.unwrap_or(1024),
                    accept,
                    margin,
                    positive_weight,
                    sum_fanouts: o.sum_fanouts.unwrap_or(false),
                    init: o.init.clone(),
                    counter_bits,
                    file_order: o.file_order.unwrap_or(false),
                    input_radius: o.input_radius,
                    rewire,
                    vote_weights,
                })
            }
            Domain::Relaxed => {
                not_for(&votes_only, VOTES)?;
                not_for(&bool_only, BOOL_ONLY)?;
                not_for(&[("--init", o.init.is_some())], "Boolean training (--domain bool)")?;
                not_for(
                    &[("--loss", o.loss.is_some())],
                    "smooth models (relaxed ones train on cross-entropy)",
                )?;
                if let Some(x) = o.optimizer.as_deref().filter(|&x| x != "adam") {
                    return Err(bad("--optimizer", format!("{x}: relaxed models train with adam")));
                }
                let spec = o.model.clone().ok_or_else(|| {
                    bad("--model", "relaxed training needs a model (gates:WxD or lut:K:WxD)")
                })?;
                RelaxedSpec::parse(&spec, 2).map_err(|e| bad("--model", e.to_string()))?;
                if !script.iter().all(|p| p.preserves_function()) {
                    return Err(bad("--passes", "relaxed training takes function-preserving passes only"));
                }
                let candidates = |flag: &str, c: Option<usize>| {
                    let c = at_least_one(flag, c.unwrap_or(1))?;
                    if c > 1024 {
                        return Err(bad(flag, format!("must be at most 1024, got {c}")));
                    }
                    Ok(c)
                };
                let hidden_candidates = candidates("--hidden-candidates", o.hidden_candidates)?;
                let candidates = candidates("--input-candidates", o.input_candidates)?;
                if candidates <= 1 && o.input_radius.is_some() {
                    return Err(bad("--input-radius", "applies with --input-candidates 2 or more"));
                }
                if hidden_candidates <= 1 && o.hidden_radius.is_some() {
                    return Err(bad("--hidden-radius", "applies with --hidden-candidates 2 or more"));
                }
                let given = [
                    ("--narrow-candidates", o.narrow_candidates.is_some()),
                    ("--narrow-after", o.narrow_after.is_some()),
                ];
                if candidates <= 1
                    && hidden_candidates <= 1
                    && let Some((flag, _)) = given.iter().find(|(_, g)| *g)
                {
                    return Err(bad(
                        flag,
                        "applies with --input-candidates or --hidden-candidates 2 or more",
                    ));
                }
                let narrow_candidates =
                    o.narrow_candidates.map(|k| at_least_one("--narrow-candidates", k)).transpose()?;
                let narrow_after = at_least_one("--narrow-after", o.narrow_after.unwrap_or(1))?;
                if o.narrow_after.is_some() && narrow_candidates.is_none() {
                    return Err(bad("--narrow-after", "needs --narrow-candidates K"));
                }
                let hard_gate_epochs = o.hard_gate_epochs.unwrap_or(0);
                let straight_through_choice = straight_through_choice(&o, candidates, hidden_candidates)?;
                let lr = positive("--lr", o.lr.unwrap_or(0.01))? as f32;
                let tau = o.tau.map(|t| positive("--tau", t)).transpose()?.map(|t| t as f32);
                let residual = o.residual.unwrap_or(0.0);
                if !residual.is_finite() {
                    return Err(bad("--residual", format!("must be a finite number, got {residual}")));
                }
                let cosine = match o.lr_schedule.as_deref() {
                    None | Some("constant") => false,
                    Some("cosine") => true,
                    Some(x) => {
                        return Err(bad(
                            "--lr-schedule",
                            format!("unknown '{x}'; expected constant or cosine"),
                        ));
                    }
                };
                let teacher = teacher_config(&o)?;
                let (boost, boost_scale) = boost_config(&o)?;
                let (shifts, diagonal_moves, copies_per_epoch) = shifts_config(&o)?;
                let specialist = specialist_config(&o)?;
                ModelConfig::Relaxed(RelaxedConfig {
                    spec,
                    encoding: parse_encoding(o.encoding.as_deref().unwrap_or("thermometer:8"))?,
                    batch: batch.unwrap_or(128),
                    lr,
                    tau,
                    residual: residual as f32,
                    cosine,
                    input_candidates: candidates,
                    input_radius: o.input_radius,
                    hidden_candidates,
                    hidden_radius: o.hidden_radius,
                    narrow_candidates,
                    narrow_after,
                    hard_choice_epochs: o
                        .hard_choice_epochs
                        .unwrap_or(usize::from(candidates > 1 || hidden_candidates > 1)),
                    hard_gate_epochs,
                    straight_through_choice,
                    teacher,
                    boost,
                    boost_scale,
                    shifts,
                    diagonal_moves,
                    copies_per_epoch,
                    specialist,
                })
            }
            Domain::Smooth => {
                not_for(&relaxed_only, RELAXED)?;
                not_for(&votes_only, VOTES)?;
                not_for(&bool_only, BOOL_ONLY)?;
                not_for(&[("--init", o.init.is_some())], "Boolean training (--domain bool)")?;
                not_for(
                    &[("--encoding", o.encoding.is_some())],
                    "bit models (a smooth model reads the raw features)",
                )?;
                let loss = LossKind::parse(o.loss.as_deref().unwrap_or("softmax-ce"))
                    .map_err(|e| bad("--loss", e.to_string()))?;
                let name = o.optimizer.as_deref().unwrap_or("adam");
                let default_lr = if name == "adam" || name == "adagrad" { 1e-3 } else { 0.01 };
                let lr = positive("--lr", o.lr.unwrap_or(default_lr))? as f32;
                let optimizer =
                    OptimizerSpec::parse(name, lr).map_err(|e| bad("--optimizer", e.to_string()))?;
                let spec = o.model.clone().unwrap_or_else(|| "mlp:256x128".to_owned());
                let model: SmoothSpec =
                    spec.parse().map_err(|e: crate::smooth::SmoothError| bad("--model", e.to_string()))?;
                if !script.is_empty() && o.passes.is_some() {
                    return Err(bad(
                        "--passes",
                        "a smooth model is not a circuit: it has no AIG to optimise",
                    ));
                }
                if o.exact_inputs.is_some() || o.check.is_some() || o.synth_budget.is_some() {
                    let flag = if o.check.is_some() {
                        "--check"
                    } else if o.synth_budget.is_some() {
                        "--synth-budget"
                    } else {
                        "--exact-inputs"
                    };
                    return Err(bad(flag, "does not apply to --domain smooth (no circuit)"));
                }
                if o.hardware.as_deref().is_some_and(|h| h != "none") {
                    return Err(bad("--hardware", "a smooth model is not a circuit: only none applies"));
                }
                ModelConfig::Smooth(SmoothConfig {
                    spec,
                    model,
                    optimizer,
                    loss,
                    batch: batch.unwrap_or(128),
                })
            }
        };
        Ok(TrainConfig {
            preset: preset_name,
            data,
            test: o.test.clone(),
            test_fraction,
            valid_fold,
            seed: o.seed.unwrap_or(0),
            threads,
            // Ring models train one example at a time from zero: 30 passes by default.
            epochs: o.epochs.unwrap_or(if domain == Domain::Poly { 30 } else { 20 }),
            time_limit,
            model,
            passes,
            exact_inputs,
            synth_budget,
            check: o.check.unwrap_or(false),
            hardware: if domain == Domain::Smooth { Hardware::None } else { hardware },
            out: o.out.clone(),
            checkpoint_every: o.checkpoint_every.unwrap_or(0),
            max_memory,
            care_set,
        })
    }

    /// The domain.
    #[must_use]
    pub fn domain(&self) -> Domain {
        match self.model {
            ModelConfig::Poly(_) => Domain::Poly,
            ModelConfig::Bool(_) => Domain::Bool,
            ModelConfig::Relaxed(_) => Domain::Relaxed,
            ModelConfig::Smooth(_) => Domain::Smooth,
        }
    }
}

/// The options only the hardware-exact vote rule takes, checked: `--counter-bits` (1 to
/// 32), an integer `--positive-weight` (0 to 255), no `--sum-fanouts`. Returns the counter
/// width given.
fn hw_votes_options(o: &TrainOptions, optimizer: BoolOptimizer) -> Result<Option<u32>, ConfigError> {
    if optimizer != BoolOptimizer::VotesHw {
        return match o.counter_bits {
            Some(_) => Err(bad("--counter-bits", "applies to the hardware-exact votes optimiser (votes-hw)")),
            None => Ok(None),
        };
    }
    if let Some(w) = o.positive_weight
        && !(w.fract() == 0.0 && (0.0..=255.0).contains(&w))
    {
        return Err(bad(
            "--positive-weight",
            format!("votes-hw weights are integers from 0 to 255 (hardware weights), got {w}"),
        ));
    }
    if o.sum_fanouts == Some(true) {
        return Err(bad("--sum-fanouts", "has no hardware form; votes-hw votes on the Boolean derivative"));
    }
    match o.counter_bits {
        Some(b) if !(1..=32).contains(&b) => {
            Err(bad("--counter-bits", format!("must be in 1..=32, got {b}")))
        }
        b => Ok(b),
    }
}

/// The options of relaxed runs, each with whether it is set. One list per kind of run,
/// so that every other kind refuses a new option without being told of it.
fn relaxed_flags(o: &TrainOptions) -> Vec<(&'static str, bool)> {
    let mut flags = vec![
        ("--tau", o.tau.is_some()),
        ("--residual", o.residual.is_some()),
        ("--lr-schedule", o.lr_schedule.is_some()),
        ("--input-candidates", o.input_candidates.is_some()),
        ("--input-radius", o.input_radius.is_some()),
        ("--hidden-candidates", o.hidden_candidates.is_some()),
        ("--hidden-radius", o.hidden_radius.is_some()),
        ("--narrow-candidates", o.narrow_candidates.is_some()),
        ("--narrow-after", o.narrow_after.is_some()),
        ("--hard-choice-epochs", o.hard_choice_epochs.is_some()),
        ("--hard-gate-epochs", o.hard_gate_epochs.is_some()),
        ("--straight-through-choice", o.straight_through_choice.is_some()),
        ("--teacher", o.teacher.is_some()),
        ("--boost", o.boost.is_some()),
        ("--boost-scale", o.boost_scale.is_some()),
        ("--shifts", o.shifts.is_some()),
        ("--diagonal-moves", o.diagonal_moves.is_some()),
        ("--specialist", o.specialist.is_some()),
        ("--specialist-tau", o.specialist_tau.is_some()),
        ("--specialist-shifts", o.specialist_shifts.is_some()),
        ("--copies-per-epoch", o.copies_per_epoch.is_some()),
        ("--specialist-copies-per-epoch", o.specialist_copies_per_epoch.is_some()),
    ];
    flags.extend(teacher_option_flags(o));
    flags
}

/// The options of `--teacher`, each with whether it is set.
fn teacher_option_flags(o: &TrainOptions) -> [(&'static str, bool); 4] {
    [
        ("--teacher-epochs", o.teacher_epochs.is_some()),
        ("--teacher-lr", o.teacher_lr.is_some()),
        ("--teacher-weight", o.teacher_weight.is_some()),
        ("--teacher-temperature", o.teacher_temperature.is_some()),
    ]
}

/// The options of the Boolean votes optimiser, each with whether it is set.
fn votes_flags(o: &TrainOptions) -> [(&'static str, bool); 8] {
    [
        ("--margin", o.margin.is_some()),
        ("--positive-weight", o.positive_weight.is_some()),
        ("--sum-fanouts", o.sum_fanouts.is_some()),
        ("--counter-bits", o.counter_bits.is_some()),
        ("--rewire", o.rewire.is_some()),
        ("--rewire-candidates", o.rewire_candidates.is_some()),
        ("--rewire-finalists", o.rewire_finalists.is_some()),
        ("--rewire-min-examples", o.rewire_min_examples.is_some()),
    ]
}

/// The options of Boolean training alone, each with whether it is set.
fn bool_flags(o: &TrainOptions) -> [(&'static str, bool); 2] {
    [("--file-order", o.file_order.is_some()), ("--vote-weights", o.vote_weights.is_some())]
}

/// The distillation settings of a relaxed run (`--teacher` and its options), checked
/// before any work: the teacher's spec must be a smooth one.
fn teacher_config(o: &TrainOptions) -> Result<Option<(crate::train::TeacherParams, f32)>, ConfigError> {
    let Some(spec) = o.teacher.clone() else {
        return match teacher_option_flags(o).iter().find(|(_, g)| *g) {
            Some((flag, _)) => Err(bad(flag, "needs --teacher SPEC")),
            None => Ok(None),
        };
    };
    if !is_smooth_spec(&spec) {
        return Err(bad("--teacher", format!("{spec}: expected a smooth model (mlp:H1xH2..., cnn:F1xF2:H)")));
    }
    spec.parse::<SmoothSpec>().map_err(|e| bad("--teacher", e.to_string()))?;
    let epochs = at_least_one("--teacher-epochs", o.teacher_epochs.unwrap_or(8))?;
    let lr = positive("--teacher-lr", o.teacher_lr.unwrap_or(0.002))? as f32;
    let weight = o.teacher_weight.unwrap_or(0.5);
    if !(0.0..=1.0).contains(&weight) {
        return Err(bad("--teacher-weight", format!("must be in [0, 1], got {weight}")));
    }
    let temperature = positive("--teacher-temperature", o.teacher_temperature.unwrap_or(1.0))? as f32;
    let params = crate::train::TeacherParams { spec, epochs, lr, temperature, seed: o.seed.unwrap_or(0) };
    Ok(Some((params, weight as f32)))
}

/// `--boost N` and `--boost-scale S`: N networks of at most [`MAX_BOOST`], the scale
/// only with two or more.
fn boost_config(o: &TrainOptions) -> Result<(usize, f32), ConfigError> {
    let boost = at_least_one("--boost", o.boost.unwrap_or(1))?;
    if boost > MAX_BOOST {
        return Err(bad("--boost", format!("must be at most {MAX_BOOST}, got {boost}")));
    }
    if boost == 1 && o.boost_scale.is_some() {
        return Err(bad("--boost-scale", "needs --boost 2 or more"));
    }
    let scale = positive("--boost-scale", o.boost_scale.unwrap_or(0.25))?;
    Ok((boost, scale as f32))
}

/// The most pixels `--shifts` and `--specialist-shifts` move the images by.
pub const MAX_SHIFTS: usize = 4;

/// The moves of `--shifts N` (and `--specialist-shifts N`), as (pixels right, pixels
/// down), in the order the copies follow the images: for each distance `d` from 1 to `n`,
/// right, left, down and up by `d`, then with `diagonal` (`--diagonal-moves`) the other
/// offsets at `d` (the larger of the two moves), down-right, down-left, up-right and
/// up-left of each (across, down) pair of sizes.
#[must_use]
pub fn move_offsets(n: usize, diagonal: bool) -> Vec<(isize, isize)> {
    let mut offsets = Vec::new();
    for d in 1..=n as isize {
        offsets.extend([(d, 0), (-d, 0), (0, d), (0, -d)]);
        if diagonal {
            for a in 1..=d {
                for b in (1..=d).filter(|&b| a.max(b) == d) {
                    offsets.extend([(a, b), (-a, b), (a, -b), (-a, -b)]);
                }
            }
        }
    }
    offsets
}

/// `--shifts N` (image data, checked when the data is read): at most [`MAX_SHIFTS`]; not
/// with `--teacher`, whose targets are the training images'. With it,
/// `--diagonal-moves` and `--copies-per-epoch`.
fn shifts_config(o: &TrainOptions) -> Result<(usize, bool, Option<usize>), ConfigError> {
    let shifts = o.shifts.unwrap_or(0);
    if shifts > MAX_SHIFTS {
        return Err(bad("--shifts", format!("0 to {MAX_SHIFTS} pixels, got {shifts}")));
    }
    if shifts > 0 && o.teacher.is_some() {
        return Err(bad("--shifts", "cannot be combined with --teacher"));
    }
    let diagonal = o.diagonal_moves.unwrap_or(false);
    if diagonal && shifts == 0 && o.specialist_shifts.unwrap_or(0) == 0 {
        return Err(bad(
            "--diagonal-moves",
            "needs moved copies (--shifts or --specialist-shifts 1 or more)",
        ));
    }
    let copies = move_offsets(shifts, diagonal).len();
    Ok((
        shifts,
        diagonal,
        copies_per_epoch("--copies-per-epoch", o.copies_per_epoch, "--shifts", shifts, copies)?,
    ))
}

/// `option`'s copies per epoch `k`, if given: 1 to the `copies` that `shifts_option`
/// `shifts` makes.
fn copies_per_epoch(
    option: &str,
    k: Option<usize>,
    shifts_option: &str,
    shifts: usize,
    copies: usize,
) -> Result<Option<usize>, ConfigError> {
    match k {
        Some(_) if shifts == 0 => Err(bad(option, format!("needs moved copies ({shifts_option} 1 or more)"))),
        Some(k) if !(1..=copies).contains(&k) => Err(bad(
            option,
            format!("1 to {copies} (the copies {shifts_option} {shifts} makes of each image), got {k}"),
        )),
        k => Ok(k),
    }
}

/// `--specialist C1,C2,...`, `--specialist-tau T`, `--specialist-shifts N` and
/// `--specialist-copies-per-epoch K`: distinct classes, at least two (whether they are
/// classes of the data, and not all of them, and whether the data are images to shift, is
/// checked when the data is read); not with `--boost` or `--teacher`. The specialist's
/// moves default to `--shifts`, and while they are the same, its copies per epoch to
/// `--copies-per-epoch`.
fn specialist_config(o: &TrainOptions) -> Result<Option<SpecialistConfig>, ConfigError> {
    let Some(given) = &o.specialist else {
        return match (o.specialist_tau, o.specialist_shifts, o.specialist_copies_per_epoch) {
            (Some(_), _, _) => Err(bad("--specialist-tau", "needs --specialist C1,C2,...")),
            (_, Some(_), _) => Err(bad("--specialist-shifts", "needs --specialist C1,C2,...")),
            (_, _, Some(_)) => Err(bad("--specialist-copies-per-epoch", "needs --specialist C1,C2,...")),
            (None, None, None) => Ok(None),
        };
    };
    let mut classes = given.clone();
    classes.sort_unstable();
    if let Some(w) = classes.windows(2).find(|w| w[0] == w[1]) {
        return Err(bad("--specialist", format!("class {} is named twice", w[0])));
    }
    if classes.len() < 2 {
        return Err(bad("--specialist", "needs at least two classes, e.g. 0,2,4,6"));
    }
    if o.boost.is_some_and(|b| b > 1) {
        return Err(bad(
            "--specialist",
            "cannot be combined with --boost (a preset may set either: train --list-presets)",
        ));
    }
    if o.teacher.is_some() {
        return Err(bad("--specialist", "cannot be combined with --teacher"));
    }
    let tau = o.specialist_tau.map(|t| positive("--specialist-tau", t)).transpose()?.map(|t| t as f32);
    // Its moves are the run's unless given, and its copies per epoch too while its moves are.
    let (shifts, shifts_option) = match o.specialist_shifts {
        Some(s) => (s, "--specialist-shifts"),
        None => (o.shifts.unwrap_or(0), "--shifts"),
    };
    let inherited = o.copies_per_epoch.filter(|_| shifts == o.shifts.unwrap_or(0));
    if shifts > MAX_SHIFTS {
        return Err(bad("--specialist-shifts", format!("0 to {MAX_SHIFTS} pixels, got {shifts}")));
    }
    let k = o.specialist_copies_per_epoch.or(inherited);
    let diagonal_moves = o.diagonal_moves.unwrap_or(false);
    let copies = move_offsets(shifts, diagonal_moves).len();
    let copies_per_epoch =
        copies_per_epoch("--specialist-copies-per-epoch", k, shifts_option, shifts, copies)?;
    Ok(Some(SpecialistConfig { classes, tau, shifts, diagonal_moves, copies_per_epoch }))
}

/// The most networks `--boost` trains.
pub const MAX_BOOST: usize = 16;

/// `--straight-through-choice`, checked against the choices the run learns: `hidden`
/// needs `--hidden-candidates` 2 or more, `all` a learned choice in some layer.
fn straight_through_choice(
    o: &TrainOptions,
    input_candidates: usize,
    hidden_candidates: usize,
) -> Result<crate::learn::relaxed::StraightThroughChoice, ConfigError> {
    use crate::learn::relaxed::StraightThroughChoice as C;
    let flag = "--straight-through-choice";
    let Some(name) = o.straight_through_choice.as_deref() else { return Ok(C::None) };
    let choice = C::parse(name)
        .ok_or_else(|| bad(flag, format!("unknown '{name}'; expected one of {}", C::NAMES.join(", "))))?;
    match choice {
        C::Hidden if hidden_candidates <= 1 => {
            Err(bad(flag, "hidden applies with --hidden-candidates 2 or more"))
        }
        C::All if input_candidates <= 1 && hidden_candidates <= 1 => {
            Err(bad(flag, "all applies with --input-candidates or --hidden-candidates 2 or more"))
        }
        _ => Ok(choice),
    }
}

/// The settings of a `--domain poly` run; every option of another domain is refused.
fn poly_config(o: &TrainOptions, script: &[Box<dyn crate::pass::Pass>]) -> Result<PolyConfig, ConfigError> {
    use crate::learn::ring_model::{MAX_FRAC_BITS, RingModelSpec, check_expressible};
    let other: Vec<_> = relaxed_flags(o)
        .into_iter()
        .chain(votes_flags(o))
        .chain(bool_flags(o))
        .chain([
            ("--init", o.init.is_some()),
            ("--encoding", o.encoding.is_some()),
            ("--exact-inputs", o.exact_inputs.is_some()),
        ])
        .collect();
    if let Some((flag, _)) = other.iter().find(|(_, set)| *set) {
        return Err(bad(
            flag,
            "does not apply to --domain poly (ring models: --ring, --model linear|mlp:H, --frac-bits, --lr, --epochs, --batch)",
        ));
    }
    if let Some(l) = o.loss.as_deref().filter(|&l| l != "displacement") {
        return Err(bad("--loss", format!("{l}: ring models train with the displacement loss")));
    }
    if let Some(x) = o.optimizer.as_deref().filter(|&x| x != "gd") {
        return Err(bad("--optimizer", format!("{x}: ring models train with fixed-point gd")));
    }
    if !script.iter().all(|p| p.preserves_function()) {
        return Err(bad("--passes", "ring models take function-preserving passes only"));
    }
    let ring = o
        .ring
        .as_deref()
        .unwrap_or("z2k:32")
        .parse::<crate::domain::ring_kind::RingKind>()
        .map_err(|e| bad("--ring", e.to_string()))?;
    let spec = o
        .model
        .as_deref()
        .unwrap_or("linear")
        .parse::<RingModelSpec>()
        .map_err(|e| bad("--model", e.to_string()))?;
    let frac_bits = o.frac_bits.unwrap_or(8);
    if !(1..=MAX_FRAC_BITS).contains(&frac_bits) {
        return Err(bad("--frac-bits", format!("must be in 1..={MAX_FRAC_BITS}, got {frac_bits}")));
    }
    check_expressible(ring, spec, frac_bits).map_err(|e| bad("--ring", e.to_string()))?;
    let lr = positive("--lr", o.lr.unwrap_or(0.05))?;
    let scaled = (lr * f64::from(1u32 << frac_bits)).round();
    if scaled < 1.0 || scaled > f64::from(1u32 << frac_bits) * 16.0 {
        return Err(bad(
            "--lr",
            format!(
                "{lr} in fixed point with {frac_bits} fraction bits is {scaled}; it must be in 1..=16*2^F"
            ),
        ));
    }
    let batch = o.batch.map_or(Ok(1), |b| at_least_one("--batch", b))?;
    Ok(PolyConfig { ring, spec, frac_bits, lr, lr_fixed: scaled as i64, batch })
}

#[cfg(test)]
mod tests;

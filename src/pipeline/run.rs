//! The stages of a run after [`load_data`](super::load_data): [`train`] (one [`Trainer`]
//! for every domain, with checkpoints and resume), [`synthesize`] (the classifier as an
//! AIG after the pass script), and [`metrics`] (what `metrics.json` holds).

use super::config::{BoolOptimizer, ModelConfig, encoding_text};
use super::{PipelineError, TrainConfig, TrainData};
use crate::aig::Aig;
use crate::data::{Encoder, Encoding};
use crate::io::model_file::{FORMAT_VERSION, params_to_hex};
use crate::io::{ModelFile, write_atomic};
use crate::lanes::BitMatrix;
use crate::learn::head::{accuracy, classes_of_indices};
use crate::learn::predict::predict;
use crate::learn::relaxed::{RelaxedNet, RelaxedSpec};
use crate::learn::vote_weights::VoteWeights;
use crate::learn::{Body, Network};
use crate::pass::LowerParams;
use crate::pass::input_care::{CareFill, fill_data_dont_cares, fill_input_dont_cares};
use crate::pass::{self, BudgetReport, PassContext, PassStats};
use crate::smooth::examples::Examples;
use crate::smooth::layers::{SmoothModel, WeightInit};
use crate::train::{
    Checkpoint, Draws, HwVoteParams, Init, RdaRule, RdaVariant, RelaxedParams, RelaxedRule, Rule,
    SmoothParams, SmoothRule, StopReason, Trainer, VoteParams,
};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The checkpoint's file name inside the run directory.
pub const CHECKPOINT_FILE: &str = "checkpoint.bin";

/// The run directory of `cfg` on `data`: `--out`, or `runs/<data name>`.
#[must_use]
pub fn run_dir(cfg: &TrainConfig, data: &TrainData) -> PathBuf {
    cfg.out.clone().unwrap_or_else(|| PathBuf::from("runs").join(&data.name))
}

/// An epoch's end, for progress displays.
#[derive(Clone, Debug)]
pub struct EpochProgress {
    /// The epoch just completed (from 1).
    pub epoch: usize,
    /// Epochs the run takes.
    pub epochs: usize,
    /// The rule's figures, as one line.
    pub line: String,
    /// Whether the epoch is the distillation teacher's (`--teacher`), trained before the
    /// model's own epochs.
    pub teacher: bool,
}

/// A trained model.
pub enum TrainedModel {
    /// A Boolean network and its parameters.
    Bool {
        /// The network.
        net: Network,
        /// Its trained parameters.
        params: Vec<bool>,
        /// The encoder of its inputs.
        encoder: Encoder,
        /// The seed of its wiring.
        seed: u64,
        /// Learned wiring carried from `--init`.
        learned_wiring: Vec<Vec<u32>>,
        /// The RDA variant.
        variant: RdaVariant,
        /// The `--init` file and its test accuracy before training.
        init: Option<(String, Option<f64>)>,
    },
    /// Relaxed networks (one, or `--boost`'s several) and the Boolean network their
    /// discretised logits make.
    Relaxed {
        /// The relaxed spec of each network.
        spec: RelaxedSpec,
        /// The networks, in training order.
        members: Vec<RelaxedMember>,
        /// The Boolean network of the discretised logits: the one network's, or the
        /// members' side by side, one head counting all their votes.
        discrete: Network,
        /// Its parameters.
        params: Vec<bool>,
        /// Its learned wiring, as `model.json` stores it.
        learned_wiring: Vec<Vec<u32>>,
        /// The encoder of its inputs.
        encoder: Encoder,
        /// The teacher the networks were distilled from.
        teacher: Option<crate::train::TeacherReport>,
    },
    /// A fixed-point ring model (`--domain poly`).
    Poly {
        /// The model and its trained parameters.
        model: crate::learn::ring_model::RingModel,
        /// How features become ring elements.
        coding: crate::learn::ring_model::FeatureCoding,
        /// Encoded training examples.
        x_train: Vec<Vec<u64>>,
        /// Encoded test examples.
        x_test: Vec<Vec<u64>>,
    },
    /// An f32 tensor model.
    Smooth {
        /// The model.
        model: SmoothModel,
        /// Training examples.
        train: Examples,
        /// Test examples.
        test: Examples,
    },
}

/// A specialist's classes and what it trains on: the examples of its classes, labelled
/// by their place among them (with `--specialist-shifts`, its training images and then
/// their moved copies).
struct Specialist {
    classes: Vec<u32>,
    spec: RelaxedSpec,
    tau: Option<f32>,
    x_train: BitMatrix,
    train_labels: Vec<u32>,
    /// The moved copies its epochs train on (`--specialist-copies-per-epoch`).
    draws: Option<Draws>,
    x_test: BitMatrix,
    test_labels: Vec<u32>,
}

impl Specialist {
    /// The specialist of `s` for a run of relaxed `spec` over `data`, encoded by `encoder`
    /// as `(x_train, x_test)`. Its tau: `--specialist-tau`, else `--tau` scaled by the
    /// square root of its groups' growth (all classes over its classes; `None`: the
    /// default's).
    fn new(
        cfg: &TrainConfig,
        s: &super::config::SpecialistConfig,
        spec: RelaxedSpec,
        data: &TrainData,
        (x_train, x_test): (&BitMatrix, &BitMatrix),
        encoder: &Encoder,
        tau: Option<f32>,
    ) -> Result<Self, PipelineError> {
        let n_classes = match spec.discrete.head {
            crate::learn::Head::GroupSum(c) => c,
            _ => unreachable!("a relaxed spec has a groupsum head"),
        };
        let head = crate::learn::Head::cascade(n_classes, &s.classes)
            .map_err(|e| PipelineError::Invalid(format!("--specialist: {e}")))?;
        // Both halves of the merged last layer must be whole groups.
        let last =
            spec.discrete.head.n_outputs(n_classes, spec.discrete.body.lut_runs().map_or(0, |r| r[2].1));
        let unit = head.group_unit().unwrap_or(2) / 2;
        if !last.is_multiple_of(unit) {
            return Err(PipelineError::Invalid(format!(
                "--specialist: the last layer ({last} outputs) must be a multiple of {unit}, the groups of \
                 both the {n_classes} classes and the specialist's {}",
                s.classes.len()
            )));
        }
        let mine = |labels: &[u32]| -> Vec<usize> {
            (0..labels.len()).filter(|&e| s.classes.contains(&labels[e])).collect()
        };
        let place = |l: u32| s.classes.iter().position(|&c| c == l).expect("one of its classes") as u32;
        let (train_mine, test_mine) = (mine(&data.train.labels), mine(&data.test.labels));
        if train_mine.is_empty() {
            return Err(PipelineError::Invalid("--specialist: no training example is of its classes".into()));
        }
        let mut train_labels: Vec<u32> = train_mine.iter().map(|&e| place(data.train.labels[e])).collect();
        let test_labels = test_mine.iter().map(|&e| place(data.test.labels[e])).collect();
        let x_mine = x_train.select_examples(&train_mine);
        let moves = Moves {
            option: "--specialist-shifts",
            what: "the specialist's moved images",
            offsets: super::config::move_offsets(s.shifts, s.diagonal_moves),
        };
        let x_train = moves.with_copies(cfg, data, Some(&train_mine), &x_mine, encoder)?.unwrap_or(x_mine);
        train_labels = train_labels.repeat(moves.copies());
        let x_test = x_test.select_examples(&test_mine);
        let ratio = (n_classes as f32 / s.classes.len() as f32).sqrt();
        let discrete =
            crate::learn::ModelSpec { head: crate::learn::Head::GroupSum(s.classes.len()), ..spec.discrete };
        Ok(Self {
            classes: s.classes.clone(),
            spec: RelaxedSpec { discrete, ..spec },
            tau: s.tau.or(tau.map(|t| t * ratio)),
            x_train,
            train_labels,
            draws: moves.draws(s.copies_per_epoch),
            x_test,
            test_labels,
        })
    }

    /// Its classes, as `--specialist` takes them.
    fn names(&self) -> String {
        self.classes.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
    }
}

/// Training images moved by a few pixels (`--shifts`, `--specialist-shifts`,
/// `--diagonal-moves`): more examples of the same classes, for networks that read pixels
/// through local wiring.
struct Moves {
    /// The option that asked for them, for errors.
    option: &'static str,
    /// What they are, for the memory check.
    what: &'static str,
    /// Each copy's move, (pixels right, pixels down), in order
    /// ([`move_offsets`](super::config::move_offsets)).
    offsets: Vec<(isize, isize)>,
}

impl Moves {
    /// Each image's examples: itself and its moved copies.
    fn copies(&self) -> usize {
        1 + self.offsets.len()
    }

    /// An epoch's draw of `k` copies of each image (`None`: every copy, every epoch).
    fn draws(&self, k: Option<usize>) -> Option<Draws> {
        k.map(|drawn| Draws { copies: self.offsets.len(), drawn })
    }

    /// `x`, the encoded training images of `data` at `examples` (`None`: all of them),
    /// followed by the encoded copies of those images moved by each of the offsets in
    /// turn (the pixels moved in are 0); `None` without moves.
    /// The copies' memory is checked before they are made; data that are not images are
    /// refused.
    fn with_copies(
        &self,
        cfg: &TrainConfig,
        data: &TrainData,
        examples: Option<&[usize]>,
        x: &BitMatrix,
        encoder: &Encoder,
    ) -> Result<Option<BitMatrix>, PipelineError> {
        if self.offsets.is_empty() {
            return Ok(None);
        }
        let Some(grid) = data.grid else {
            return Err(PipelineError::Invalid(format!(
                "{}: moves the pixels of images (fashion-mnist or an IDX folder); {} is not image data",
                self.option, data.name
            )));
        };
        let bytes = x.rows() as u64 * crate::lanes::words_for(x.examples() * self.copies()) as u64 * 8;
        check_memory(cfg, self.what, bytes)?;
        let subset;
        let images = match examples {
            None => &data.train,
            Some(e) => {
                subset = data.train.subset(e);
                &subset
            }
        };
        let mut moved = Vec::with_capacity(self.offsets.len());
        for &(dx, dy) in &self.offsets {
            moved.push(encoder.encode(&images.shifted(grid.width, grid.height, dx, dy))?);
        }
        let parts: Vec<&BitMatrix> = std::iter::once(x).chain(&moved).collect();
        Ok(Some(BitMatrix::concat_examples(&parts)))
    }
}

/// One relaxed network of a run: its logits and the Boolean network they discretise into.
pub struct RelaxedMember {
    /// The relaxed network.
    pub net: RelaxedNet,
    /// Its trained logits.
    pub logits: Vec<f32>,
    /// The settings it trained with (its seed: the run's plus its place).
    pub relaxed: RelaxedParams,
    /// Cross-entropy per epoch.
    pub losses: Vec<f64>,
    /// The Boolean network of the discretised logits.
    pub discrete: Network,
    /// Its parameters (before any don't-care is filled).
    pub params: Vec<bool>,
    /// A boosted run's: the training and test accuracy of this network's circuit alone.
    pub alone: Option<(Option<f64>, Option<f64>)>,
    /// The examples it trained on (a specialist's: those of its classes, and their moved
    /// copies).
    pub train_examples: usize,
}

/// What [`train`] produced.
pub struct Trained {
    /// The model.
    pub model: TrainedModel,
    /// Why training stopped.
    pub stop: StopReason,
    /// Epochs run (resumed ones included).
    pub epochs: usize,
    /// Wall time of each epoch, seconds.
    pub epoch_seconds: Vec<f64>,
    /// Encoded training inputs (bit models).
    pub x_train: Option<BitMatrix>,
    /// Encoded test inputs (bit models).
    pub x_test: Option<BitMatrix>,
    /// The data set's name.
    pub dataset: String,
    /// Class names, in label order.
    pub class_names: Vec<String>,
    /// The first layer's tables changed on inputs the encoder never produces (bit models
    /// over numeric features; see [`fill_input_dont_cares`](crate::fill_input_dont_cares)).
    pub input_care: Option<CareFill>,
    /// What the training examples' don't-cares changed (`--care-set training`).
    pub data_care: Option<CareFill>,
    /// Training labels.
    pub train_labels: Vec<u32>,
    /// Test labels.
    pub test_labels: Vec<u32>,
}

impl Trained {
    /// The Boolean network and parameters whose classifier is the run's circuit (none for
    /// smooth models).
    #[must_use]
    pub fn circuit(&self) -> Option<(&Network, &[bool])> {
        match &self.model {
            TrainedModel::Bool { net, params, .. } => Some((net, params)),
            TrainedModel::Relaxed { discrete, params, .. } => Some((discrete, params)),
            TrainedModel::Smooth { .. } | TrainedModel::Poly { .. } => None,
        }
    }

    /// Training and test accuracy (of the discretised circuit for relaxed models; `None`
    /// for an empty set).
    #[must_use]
    pub fn accuracies(&self) -> (Option<f64>, Option<f64>) {
        let score = |p: Vec<u32>, labels: &[u32]| (!labels.is_empty()).then(|| accuracy(&p, labels));
        match (&self.model, &self.x_train, &self.x_test) {
            (TrainedModel::Poly { model, x_train, x_test, .. }, _, _) => (
                score(model.predict(x_train), &self.train_labels),
                score(model.predict(x_test), &self.test_labels),
            ),
            (TrainedModel::Smooth { model, train, test }, _, _) => (
                (!train.is_empty()).then(|| model.accuracy(train)),
                (!test.is_empty()).then(|| model.accuracy(test)),
            ),
            (_, Some(xtr), Some(xte)) => {
                let (net, params) = self.circuit().expect("a circuit model");
                (
                    score(predict(net, params, xtr), &self.train_labels),
                    score(predict(net, params, xte), &self.test_labels),
                )
            }
            _ => (None, None),
        }
    }

    /// Writes `model.json`.
    ///
    /// # Errors
    /// [`PipelineError::ModelFile`] if it cannot be written.
    pub fn write_model(&self, path: &Path, cfg: &TrainConfig) -> Result<(), PipelineError> {
        self.write_model_file(path, cfg).map_err(|e| match e {
            // A file that cannot be written is a failure (exit 1), not bad input.
            crate::io::ModelFileError::Io { path, source } => PipelineError::Io { path, source },
            e => PipelineError::ModelFile(e),
        })
    }

    fn write_model_file(&self, path: &Path, cfg: &TrainConfig) -> Result<(), crate::io::ModelFileError> {
        match &self.model {
            TrainedModel::Bool { net, params, encoder, seed, learned_wiring, variant, .. } => ModelFile {
                format_version: FORMAT_VERSION,
                dataset: self.dataset.clone(),
                spec: net.spec.to_string(),
                seed: *seed,
                n_inputs: encoder.n_bits(),
                class_names: self.class_names.clone(),
                encoder: encoder.clone(),
                optimizer: variant.name().into(),
                params: params_to_hex(params),
                learned_wiring: learned_wiring.clone(),
                vote_weights: net.vote_weights.clone(),
            }
            .write(path)?,
            TrainedModel::Relaxed { discrete, params, learned_wiring, encoder, .. } => ModelFile {
                format_version: FORMAT_VERSION,
                dataset: self.dataset.clone(),
                spec: discrete.spec.to_string(),
                seed: cfg.seed,
                n_inputs: encoder.n_bits(),
                class_names: self.class_names.clone(),
                encoder: encoder.clone(),
                optimizer: "relaxed-adam".into(),
                params: params_to_hex(params),
                learned_wiring: learned_wiring.clone(),
                vote_weights: None,
            }
            .write(path)?,
            TrainedModel::Poly { model, coding, .. } => {
                crate::io::ring_model::RingModelFile::of(
                    model,
                    coding,
                    &self.dataset,
                    cfg.seed,
                    &self.class_names,
                )
                .write(path)?;
            }
            TrainedModel::Smooth { model, .. } => {
                let ModelConfig::Smooth(s) = &cfg.model else {
                    unreachable!("a smooth model has a smooth config")
                };
                crate::io::smooth_model::write_smooth_model(
                    path,
                    model,
                    &self.dataset,
                    &s.spec,
                    cfg.seed,
                    &self.class_names,
                )?;
            }
        }
        Ok(())
    }
}

/// Refuses a run whose estimated peak memory, `bytes`, exceeds `--max-memory` or the
/// memory available. The estimate is a lower bound (it counts what must be held, not
/// every temporary), so a run it passes can still be large, but one it refuses cannot fit.
fn check_memory(cfg: &TrainConfig, what: &str, bytes: u64) -> Result<(), PipelineError> {
    let limit = crate::data::MemoryLimit::given_or_available(cfg.max_memory);
    limit.check(&cfg.data, what, Some(bytes))?;
    Ok(())
}

/// Bytes of an encoded bit matrix.
fn bits_bytes(x: &BitMatrix) -> u64 {
    (x.rows() as u64) * (x.words() as u64) * 8
}

/// Checkpointing of a run: every `every` epochs into `path`; a boosted run's network
/// also leaves its last epoch's state in `finished`, which a resume starts the network
/// from (so it trains no epoch again).
pub(super) struct Checkpointing {
    every: usize,
    path: PathBuf,
    finished: Option<PathBuf>,
}

/// The file in the run directory that holds the last state of boosted network `m`
/// (from 0), written when it has finished if the run writes checkpoints.
#[must_use]
pub fn member_checkpoint_file(m: usize) -> String {
    format!("checkpoint-network-{}.bin", m + 1)
}

/// Whether `dir` holds a checkpoint that `--resume` can continue from: the network in
/// training's, or a boosted run's first finished network's.
#[must_use]
pub fn has_checkpoint(dir: &Path) -> bool {
    dir.join(CHECKPOINT_FILE).exists() || dir.join(member_checkpoint_file(0)).exists()
}

/// Where boosted network `m` of a run resumed from `resume` (the run's `checkpoint.bin`)
/// starts: its finished state if it has one, else `checkpoint.bin` if that was written
/// by this network (`name`, the rule's name), else afresh.
fn member_start(resume: Option<&Path>, m: usize, name: &str) -> Option<PathBuf> {
    let dir = resume?.parent()?;
    let finished = dir.join(member_checkpoint_file(m));
    if finished.exists() {
        return Some(finished);
    }
    // One that cannot be read goes to the trainer, which says why.
    let other = std::fs::read(resume?).ok().and_then(|bytes| {
        Checkpoint::<crate::train::RelaxedEpoch>::from_bytes(&bytes).ok().filter(|c| c.rule != name)
    });
    other.is_none().then(|| resume.map(Path::to_path_buf)).flatten()
}

/// Runs `rule` with `trainer`, from `resume`'s checkpoint if given, writing checkpoints
/// and reporting progress.
pub(super) fn run_rule<R: Rule>(
    trainer: &Trainer,
    rule: &mut R,
    ckpt: &Checkpointing,
    resume: Option<&Path>,
    on_epoch: &mut dyn FnMut(&EpochProgress),
) -> Result<crate::train::Report<R::Epoch>, PipelineError> {
    let start = match resume {
        None => None,
        Some(path) => {
            let shown = path.display().to_string();
            let bytes = std::fs::read(path)
                .map_err(|e| PipelineError::Invalid(format!("{shown}: cannot resume: {e}")))?;
            Some(
                Checkpoint::<R::Epoch>::from_bytes(&bytes)
                    .map_err(|source| PipelineError::Checkpoint { path: shown.clone(), source })?,
            )
        }
    };
    let mut saved = Ok(());
    let report = trainer
        .run(rule, start, |end| {
            on_epoch(&EpochProgress {
                epoch: end.epoch(),
                epochs: end.epochs(),
                line: end.describe(),
                teacher: false,
            });
            // Under MPI only rank 0 writes (every rank holds the same state).
            let writer = crate::dist::current().rank() == 0;
            if writer && ckpt.every > 0 && end.epoch().is_multiple_of(ckpt.every) && saved.is_ok() {
                saved = write_atomic(&ckpt.path, &end.checkpoint().to_bytes())
                    .map_err(|source| PipelineError::Io { path: ckpt.path.display().to_string(), source });
            }
            if let Some(path) = &ckpt.finished
                && writer
                && end.epoch() == end.epochs()
                && saved.is_ok()
            {
                saved = write_atomic(path, &end.checkpoint().to_bytes())
                    .map_err(|source| PipelineError::Io { path: path.display().to_string(), source });
            }
        })
        .map_err(|source| PipelineError::Checkpoint {
            path: resume.map_or_else(|| ckpt.path.display().to_string(), |p| p.display().to_string()),
            source,
        })?;
    saved?;
    Ok(report)
}

/// A trained model that `--init` starts from.
struct InitModel {
    net: Network,
    params: Vec<bool>,
    encoder: Encoder,
    /// The seed its wiring was drawn from (a rebuilt model needs it).
    seed: u64,
    /// Its learned layer wiring, carried to the new model.
    learned_wiring: Vec<Vec<u32>>,
}

/// A model file that `--init` starts from, checked against the config and the data.
fn read_init(path: &Path, b: &super::BoolConfig, data: &TrainData) -> Result<InitModel, PipelineError> {
    let file = ModelFile::read(path)?;
    let (net, params) = file.network(path)?;
    let mismatch = |what: String| PipelineError::Invalid(format!("--init {}: {what}", path.display()));
    if let crate::learn::Head::Cascade { .. } = net.spec.head {
        return Err(mismatch(format!(
            "{}: a cascade's networks are trained by --specialist, not by RDA",
            net.spec
        )));
    }
    if let Some(spec) = b.spec
        && spec != net.spec
    {
        return Err(mismatch(format!("model {} does not match --model {spec}", net.spec)));
    }
    if let Some(e) = &b.encoding
        && e != file.encoder.encoding()
    {
        let (theirs, ours) = (encoding_text(file.encoder.encoding()), encoding_text(e));
        return Err(mismatch(format!("encoding {theirs} does not match --encoding {ours}")));
    }
    if file.class_names != data.train.class_names {
        return Err(mismatch(format!(
            "classes {} do not match the data's {}",
            file.class_names.join(","),
            data.train.class_names.join(",")
        )));
    }
    file.encoder
        .encode(&data.train)
        .map_err(|e| mismatch(format!("its encoder does not fit the data: {e}")))?;
    Ok(InitModel { net, params, encoder: file.encoder, seed: file.seed, learned_wiring: file.learned_wiring })
}

/// Trains the model of `cfg` on `data`, from the checkpoint at `resume` if given (a
/// checkpoint of the same config), writing `OUT/checkpoint.bin` every
/// `--checkpoint-every` epochs and calling `on_epoch` after every epoch.
///
/// # Errors
/// Options that do not fit the data, a model that does not build, a checkpoint that does
/// not fit, a checkpoint that cannot be written.
pub fn train(
    cfg: &TrainConfig,
    data: &TrainData,
    resume: Option<&Path>,
    on_epoch: &mut dyn FnMut(&EpochProgress),
) -> Result<Trained, PipelineError> {
    let ckpt = Checkpointing {
        every: cfg.checkpoint_every,
        path: run_dir(cfg, data).join(CHECKPOINT_FILE),
        finished: None,
    };
    let trainer = Trainer::new()
        .epochs(cfg.epochs)
        .seed(cfg.seed)
        .time_limit(cfg.time_limit.map(Duration::from_secs_f64));
    let (train, test) = (&data.train, &data.test);
    let n_classes = train.n_classes();
    let n_class_names = train.class_names.len();
    let encode = |encoder: &Encoder| -> Result<(BitMatrix, BitMatrix), PipelineError> {
        let x_train = encoder.encode(train)?;
        let x_test = encoder
            .encode(test)
            .map_err(|e| PipelineError::Invalid(format!("encoding test data {}: {e}", data.test_source)))?;
        Ok((x_train, x_test))
    };
    // A cascade's don't-care fills, made on each network's own examples before the merge.
    let mut cascade_fills = None;
    // A relaxed run's training images and their moved copies (`--shifts`), which its
    // don't-cares are counted on.
    let mut moved: Option<BitMatrix> = None;
    let (model, stop, epoch_seconds, x) = match &cfg.model {
        ModelConfig::Poly(p) => {
            let (model, stop, seconds) =
                super::poly::train_poly(cfg, p, data, &trainer, &ckpt, resume, on_epoch)?;
            (model, stop, seconds, None)
        }
        ModelConfig::Bool(b) => {
            let (net, encoder, init_params, seed, learned_wiring) = match &b.init {
                Some(path) => {
                    let i = read_init(path, b, data)?;
                    (i.net, i.encoder, Some(i.params), i.seed, i.learned_wiring)
                }
                None => {
                    let encoder = Encoder::fit(
                        b.encoding.as_ref().unwrap_or(&Encoding::Thermometer { bits: 8 }),
                        train,
                    )?;
                    let spec = match b.spec {
                        Some(s) => s,
                        None => format!("lut:6:64x1,groupsum:{n_classes}").parse()?,
                    };
                    // Checked before the network is built: building it is itself large.
                    let n_params =
                        crate::learn::param_count(spec, encoder.n_bits(), n_classes).unwrap_or(usize::MAX);
                    // (A model past the parameter cap is refused by `Network::build` itself.)
                    if n_params <= crate::learn::MAX_PARAMS {
                        check_memory(cfg, &format!("training {spec}"), n_params as u64 * 48)?;
                    }
                    let net = Network::build(spec, encoder.n_bits(), n_classes, cfg.seed)?;
                    match (b.input_radius, data.grid, &net.layers) {
                        (None, _, _) => (net, encoder, None, cfg.seed, Vec::new()),
                        (Some(radius), Some(grid), Some(layers)) => {
                            let wiring = crate::learn::local::local_wiring(layers, grid, radius, cfg.seed)?;
                            let learned = vec![wiring];
                            let net = Network::build_with_wiring(
                                spec,
                                encoder.n_bits(),
                                n_classes,
                                cfg.seed,
                                &learned,
                            )?;
                            (net, encoder, None, cfg.seed, learned)
                        }
                        (Some(_), None, _) => {
                            return Err(PipelineError::Invalid(format!(
                                "--input-radius applies to image data (fashion-mnist, an IDX directory), not {}",
                                cfg.data
                            )));
                        }
                        (Some(_), Some(_), None) => {
                            return Err(PipelineError::Invalid(format!(
                                "--input-radius applies to LUT models (lut:K:WxD), not {spec}"
                            )));
                        }
                    }
                }
            };
            let (x_train, x_test) = encode(&encoder)?;
            let spec = net.spec;
            let variant = match b.optimizer {
                BoolOptimizer::Faithful => RdaVariant::Faithful,
                BoolOptimizer::Parity => RdaVariant::Parity,
                // `rda` is the RDA family's working member for the model: per example on a
                // table (the paper's algorithm), batched votes on anything else.
                BoolOptimizer::Rda if spec.body == Body::Table => RdaVariant::Faithful,
                BoolOptimizer::Rda | BoolOptimizer::Votes => {
                    let d = VoteParams::for_head(spec.head, n_classes);
                    RdaVariant::Votes(VoteParams {
                        margin: b.margin,
                        accept: b.accept,
                        positive_weight: b.positive_weight.unwrap_or(d.positive_weight),
                        sum_fanouts: b.sum_fanouts,
                        ..d
                    })
                }
                // The acceptance generator is seeded by the run's seed, as `export --trainer
                // --seed` seeds the hardware's.
                BoolOptimizer::VotesHw => {
                    let d = VoteParams::for_head(spec.head, n_classes);
                    let v = VoteParams {
                        margin: b.margin,
                        accept: b.accept,
                        positive_weight: b.positive_weight.unwrap_or(d.positive_weight),
                        ..d
                    };
                    RdaVariant::HwVotes(
                        HwVoteParams::for_batch(&v, b.counter_bits, b.batch, cfg.seed)
                            .map_err(|e| PipelineError::Invalid(format!("--optimizer votes-hw: {e}")))?,
                    )
                }
            };
            let init_figures = b.init.as_ref().map(|p| {
                let before =
                    init_params.as_ref().map(|ps| accuracy(&predict(&net, ps, &x_test), &test.labels));
                (p.display().to_string(), before.filter(|_| !test.labels.is_empty()))
            });
            let init = match init_params {
                Some(p) => Init::Given(p),
                None if spec.body == Body::Table => Init::Zeros,
                None => Init::Random,
            };
            // Parameters, four 64-bit vote counts and a proposal each, the circuit's wiring;
            // the inputs twice (by row and by example).
            let need = net.n_params() as u64 * 48 + 2 * bits_bytes(&x_train) + bits_bytes(&x_test);
            check_memory(cfg, &format!("training {}", net.spec), need)?;
            if b.rewire.is_some() && net.layers.as_ref().is_none_or(|l| l.layers.len() < 2) {
                return Err(PipelineError::Invalid(format!(
                    "--rewire applies to LUT models with a hidden layer, not {}",
                    net.spec
                )));
            }
            if b.vote_weights && !matches!(net.spec.head, crate::learn::Head::GroupSum(_)) {
                return Err(PipelineError::Invalid(format!(
                    "--vote-weights applies to a groupsum head, not {}",
                    net.spec
                )));
            }
            let mut rule = RdaRule::new(&net, &x_train, &train.labels, variant)
                .init(init)
                .batch(b.batch)
                .shuffle(!b.file_order);
            if let Some(p) = b.rewire {
                rule = rule.rewire(p);
            }
            let report = run_rule(&trainer, &mut rule, &ckpt, resume, on_epoch)?;
            let rewired = rule.wiring();
            let params = rule.into_params();
            let (mut net, learned_wiring) = match rewired {
                Some(w) => {
                    (Network::build_with_wiring(net.spec, net.circuit.n_args(), n_classes, seed, &w)?, w)
                }
                None => (net, learned_wiring),
            };
            // An `--init` model's weights belong to its outputs before this training.
            net.vote_weights = None;
            if b.vote_weights {
                let out = crate::learn::predict::forward(&net.circuit, &params, &x_train);
                net.vote_weights = Some(VoteWeights::fit(&out, &train.labels, n_classes, seed));
            }
            let model = TrainedModel::Bool {
                net,
                params,
                encoder,
                seed,
                learned_wiring,
                variant,
                init: init_figures,
            };
            (model, report.stop, report.epoch_seconds, Some((x_train, x_test)))
        }
        ModelConfig::Relaxed(r) => {
            let encoder = Encoder::fit(&r.encoding, train)?;
            let (x_train, x_test) = encode(&encoder)?;
            let spec = RelaxedSpec::parse(&r.spec, n_classes)?;
            // What the networks but a specialist train on: the training images, and with
            // `--shifts` their moved copies after them (the data's labels repeated).
            let moves = Moves {
                option: "--shifts",
                what: "the moved images",
                offsets: super::config::move_offsets(r.shifts, r.diagonal_moves),
            };
            moved = moves.with_copies(cfg, data, None, &x_train, &encoder)?;
            let moved_labels = train.labels.repeat(moves.copies());
            // A specialist's classes, its examples (by their place among its classes) and
            // its spec, checked before any training.
            let specialist = match &r.specialist {
                None => None,
                Some(s) => Some(Specialist::new(cfg, s, spec, data, (&x_train, &x_test), &encoder, r.tau)?),
            };
            let n_networks = if specialist.is_some() { 2 } else { r.boost };
            // A lower bound before anything is built: 20 bytes per table entry of the
            // discrete network (a relaxed gate has at least as many logits as entries).
            let entries =
                crate::learn::param_count(spec.discrete, encoder.n_bits(), n_classes).unwrap_or(usize::MAX);
            if entries <= crate::learn::MAX_PARAMS {
                check_memory(cfg, &format!("training {}", r.spec), entries as u64 * 20 * n_networks as u64)?;
            }
            let mut members: Vec<RelaxedMember> = Vec::with_capacity(n_networks);
            // A cascade's networks' parameters with their don't-cares filled, each on its
            // own examples, and what the fills changed.
            let mut filled: Vec<(Vec<bool>, Fills)> = Vec::new();
            // The summed class counts of the members so far on each training example.
            let mut votes: Option<Vec<u32>> = None;
            let (mut teacher, mut soft_targets) = (None, None);
            let (mut stop, mut epoch_seconds) = (None, Vec::new());
            for m in 0..n_networks {
                let seed = cfg.seed.wrapping_add(m as u64);
                // What this network learns from: all the examples, or the specialist's.
                let this_specialist = specialist.as_ref().filter(|_| m == 1);
                let (spec, classes, tau, x_member, labels, draws) = match this_specialist {
                    None => (
                        spec,
                        n_classes,
                        r.tau,
                        moved.as_ref().unwrap_or(&x_train),
                        &moved_labels,
                        moves.draws(r.copies_per_epoch),
                    ),
                    Some(s) => (s.spec, s.classes.len(), s.tau, &s.x_train, &s.train_labels, s.draws),
                };
                let net = relaxed_net(cfg, r, spec, (encoder.n_bits(), classes), data, seed)?;
                let p = RelaxedParams {
                    epochs: cfg.epochs,
                    batch: r.batch,
                    lr: r.lr,
                    tau: tau.unwrap_or_else(|| default_tau(&net)),
                    seed,
                    residual: r.residual,
                    cosine: r.cosine,
                    hard_choice_epochs: r.hard_choice_epochs,
                    hard_gate_epochs: r.hard_gate_epochs,
                    narrow_after: r.narrow_after,
                    narrow_to: r.narrow_candidates.unwrap_or(0),
                    straight_through_choice: r.straight_through_choice,
                    draws,
                };
                // Logits with Adam's moments, gradients and copies; each node's activations
                // and adjoints over a batch; the batch's inputs as floats; the encoded data;
                // the members trained before.
                let (logits, nodes) = (net.n_logits() as u64, net.n_nodes() as u64);
                let batch = p.batch.min(labels.len().max(1)) as u64;
                let need = logits * 20
                    + nodes * batch * 32
                    + net.network.circuit.n_args() as u64 * batch * 8
                    + bits_bytes(&x_train)
                    + bits_bytes(&x_test)
                    + moved.as_ref().map_or(0, bits_bytes)
                    + specialist.as_ref().map_or(0, |s| bits_bytes(&s.x_train) + bits_bytes(&s.x_test))
                    + logits * 8 * m as u64;
                check_memory(cfg, &format!("training {}", r.spec), need)?;
                if let (Some((t, weight)), None) = (&r.teacher, &teacher) {
                    // Trained afresh on a resume too: the same seed gives the same targets.
                    let (examples, _) = smooth_examples(data, train, test)?;
                    assert_eq!(examples.labels, train.labels, "the teacher sees the relaxed run's examples");
                    let t = crate::train::TeacherParams { seed: cfg.seed, ..t.clone() };
                    let targets = crate::train::teacher_targets(&t, &examples, |epoch, epochs, line| {
                        on_epoch(&EpochProgress { epoch, epochs, line, teacher: true });
                    })
                    .map_err(|e| PipelineError::Invalid(format!("--teacher {}: {e}", t.spec)))?;
                    soft_targets = Some((targets.probs, *weight));
                    teacher = Some(crate::train::TeacherReport {
                        params: t,
                        weight: *weight,
                        train_accuracy: targets.train_accuracy,
                        seconds: targets.seconds,
                    });
                }
                let mut rule = RelaxedRule::new(&net, x_member, labels, p);
                if n_networks > 1 {
                    rule = rule.as_member(m, n_networks);
                }
                if let Some((probs, weight)) = &soft_targets {
                    rule = rule.with_soft_targets(probs.clone(), *weight);
                }
                if let Some(v) = &votes {
                    rule = rule
                        .with_score_offsets(v.iter().map(|&c| c as f32 * r.boost_scale / p.tau).collect());
                }
                // `--time-limit` bounds the members' epochs together.
                let spent = Duration::from_secs_f64(crate::train::total_seconds(&epoch_seconds));
                let member_trainer = Trainer::new()
                    .epochs(cfg.epochs)
                    .seed(seed)
                    .time_limit(cfg.time_limit.map(|t| Duration::from_secs_f64(t).saturating_sub(spent)));
                let mut progress = |e: &EpochProgress| match n_networks {
                    1 => on_epoch(e),
                    n => on_epoch(&EpochProgress {
                        line: match this_specialist {
                            Some(s) => format!("specialist for classes {}: {}", s.names(), e.line),
                            None => format!("network {}/{n}: {}", m + 1, e.line),
                        },
                        ..e.clone()
                    }),
                };
                let report = if n_networks == 1 {
                    run_rule(&member_trainer, &mut rule, &ckpt, resume, &mut progress)?
                } else {
                    let start = member_start(resume, m, &crate::train::Rule::name(&rule));
                    let finished = run_dir(cfg, data).join(member_checkpoint_file(m));
                    // A network resumed from its finished state trains no epoch and
                    // leaves the file as it is.
                    let write_finished = cfg.checkpoint_every > 0 && start.as_deref() != Some(&finished);
                    let ckpt = Checkpointing {
                        every: cfg.checkpoint_every,
                        path: ckpt.path.clone(),
                        finished: write_finished.then_some(finished),
                    };
                    run_rule(&member_trainer, &mut rule, &ckpt, start.as_deref(), &mut progress)?
                };
                let logits = rule.logits();
                drop(rule);
                let mut member = RelaxedMember {
                    train_examples: labels.len(),
                    relaxed: p,
                    losses: report.history.iter().map(|h| h.loss).collect(),
                    alone: None,
                    discrete: net.discrete_network(&logits),
                    params: net.discretise(&logits),
                    net,
                    logits,
                };
                if n_networks > 1 {
                    // The member's circuit as the merged model holds it: don't-cares filled
                    // (a cascade's each on its own examples).
                    let (circuit, mut params) = (&member.discrete, member.params.clone());
                    let fills = fill_dont_cares(cfg, circuit, &mut params, &encoder, x_member);
                    let x_test = match this_specialist {
                        None => (&x_test, &test.labels),
                        Some(s) => (&s.x_test, &s.test_labels),
                    };
                    let score = |x: &BitMatrix, labels: &[u32]| {
                        (!labels.is_empty()).then(|| accuracy(&predict(circuit, &params, x), labels))
                    };
                    member.alone = Some((score(x_member, labels), score(x_test.0, x_test.1)));
                    if r.boost > 1 {
                        let out = crate::learn::predict::forward(&circuit.circuit, &params, x_member);
                        let counts = circuit.spec.head.scores(&out, n_classes);
                        match &mut votes {
                            None => votes = Some(counts),
                            Some(v) => v.iter_mut().zip(counts).for_each(|(v, c)| *v += c),
                        }
                    }
                    if specialist.is_some() {
                        filled.push((params, fills));
                    }
                }
                members.push(member);
                epoch_seconds.extend(report.epoch_seconds);
                let timed_out = matches!(report.stop, StopReason::TimeLimit { .. });
                stop = Some(report.stop);
                if timed_out {
                    break;
                }
            }
            let (discrete, params, learned_wiring) = match (members.as_slice(), &specialist) {
                ([one], _) => (one.discrete.clone(), one.params.clone(), one.net.learned_wiring(&one.logits)),
                ([first, second], Some(s)) => {
                    let (net, params) = crate::learn::cascade(
                        (&first.discrete, &filled[0].0),
                        (&second.discrete, &filled[1].0),
                        &s.classes,
                    )?;
                    let layers = net.layers.as_ref().map_or(&[][..], |l| &l.layers[..]);
                    let wiring = layers.iter().map(|l| l.sources.clone()).collect();
                    (net, params, wiring)
                }
                _ => {
                    let parts: Vec<(&Network, &[bool])> =
                        members.iter().map(|m| (&m.discrete, &m.params[..])).collect();
                    let (net, params) = crate::learn::side_by_side(&parts)?;
                    let layers = net.layers.as_ref().map_or(&[][..], |l| &l.layers[..]);
                    let wiring = layers.iter().map(|l| l.sources.clone()).collect();
                    (net, params, wiring)
                }
            };
            cascade_fills = (filled.len() == 2).then(|| {
                let sum = |a: &Option<CareFill>, b: &Option<CareFill>| match (a, b) {
                    (Some(a), Some(b)) => Some(CareFill {
                        luts_with_dont_cares: a.luts_with_dont_cares + b.luts_with_dont_cares,
                        luts_changed: a.luts_changed + b.luts_changed,
                        table_ands: (a.table_ands.0 + b.table_ands.0, a.table_ands.1 + b.table_ands.1),
                    }),
                    (one, None) | (None, one) => *one,
                };
                let ((_, a), (_, b)) = (&filled[0], &filled[1]);
                (sum(&a.0, &b.0), sum(&a.1, &b.1))
            });
            let model =
                TrainedModel::Relaxed { spec, members, discrete, params, learned_wiring, encoder, teacher };
            let stop = stop.expect("at least one network trains");
            (model, stop, epoch_seconds, Some((x_train, x_test)))
        }
        ModelConfig::Smooth(s) => {
            let (train_x, test_x) = smooth_examples(data, train, test)?;
            let mut model =
                SmoothModel::from_spec(&s.model, &train_x.shape, n_class_names, WeightInit::FanIn, cfg.seed)
                    .map_err(|e| PipelineError::Invalid(format!("--model {}: {e}", s.spec)))?;
            let p = SmoothParams {
                loss: s.loss,
                optimizer: s.optimizer,
                batch: s.batch,
                shuffle: true,
                max_steps: None,
            };
            let floats = (train_x.x.len() + test_x.x.len()) as u64;
            check_memory(cfg, &format!("training {}", s.spec), model.n_params() as u64 * 16 + floats * 4)?;
            let mut rule = SmoothRule::new(&mut model, &train_x, p);
            let report = run_rule(&trainer, &mut rule, &ckpt, resume, on_epoch)?;
            drop(rule);
            (
                TrainedModel::Smooth { model, train: train_x, test: test_x },
                report.stop,
                report.epoch_seconds,
                None,
            )
        }
    };
    let (x_train, x_test) = x.unzip();
    let mut model = model;
    let (input_care, data_care) = match (&mut model, &x_train) {
        _ if cascade_fills.is_some() => cascade_fills.unwrap_or_default(),
        // The hardware trainer's parameters stay exactly what the exported trainer computes.
        (TrainedModel::Bool { variant: RdaVariant::HwVotes(_), .. }, _) => (None, None),
        (
            TrainedModel::Bool { net, params, encoder, .. }
            | TrainedModel::Relaxed { discrete: net, params, encoder, .. },
            Some(x),
        ) => fill_dont_cares(cfg, net, params, encoder, moved.as_ref().unwrap_or(x)),
        _ => (None, None),
    };
    Ok(Trained {
        model,
        input_care,
        data_care,
        stop,
        epochs: epoch_seconds.len(),
        epoch_seconds,
        x_train,
        x_test,
        dataset: train.name.clone(),
        class_names: train.class_names.clone(),
        train_labels: train.labels.clone(),
        test_labels: test.labels.clone(),
    })
}

/// The training and test examples as f32 tensors for a smooth model: image data's raw
/// images, or the data set's features.
fn smooth_examples(
    data: &TrainData,
    train: &crate::data::Dataset,
    test: &crate::data::Dataset,
) -> Result<(Examples, Examples), PipelineError> {
    let bad = |e: crate::smooth::SmoothError| PipelineError::Invalid(e.to_string());
    Ok(match &data.images {
        Some(img) => {
            let classes = img.class_names.len();
            (
                Examples::from_images(&img.splits.train, classes).map_err(bad)?,
                Examples::from_images(&img.splits.test, classes).map_err(bad)?,
            )
        }
        None => (Examples::from_dataset(train).map_err(bad)?, Examples::from_dataset(test).map_err(bad)?),
    })
}

/// The don't-cares of `cfg`'s care set filled into the tables of `net` (a LUT network):
/// the encoder's ([`fill_first_layer`]), then, unless the care set is the encoder's
/// alone, the entries too few of the training examples `x_train` reach
/// ([`fill_data_dont_cares`], which sees the examples' don't-cares including the
/// encoder's). Each table is filled on its own, so a network's tables fill the same
/// whether it stands alone or beside others. Returns what each fill changed.
/// What a network's don't-care fills changed: the encoder's, the training examples'.
type Fills = (Option<CareFill>, Option<CareFill>);

fn fill_dont_cares(
    cfg: &TrainConfig,
    net: &Network,
    params: &mut [bool],
    encoder: &Encoder,
    x_train: &BitMatrix,
) -> Fills {
    let input = fill_first_layer(net, params, encoder);
    let data = match net.layers.as_ref().filter(|l| l.n_params() == params.len()) {
        Some(layers) if cfg.care_set != super::config::CareSet::Encoder => {
            Some(fill_data_dont_cares(layers, params, x_train, cfg.care_set.min_examples(x_train.examples())))
        }
        _ => None,
    };
    (input, data)
}

/// The relaxed network of `r` over `n_inputs` bits with its wiring and choices drawn
/// from `seed`.
fn relaxed_net(
    cfg: &TrainConfig,
    r: &super::config::RelaxedConfig,
    spec: RelaxedSpec,
    (n_inputs, n_classes): (usize, usize),
    data: &TrainData,
    seed: u64,
) -> Result<RelaxedNet, PipelineError> {
    let net = RelaxedNet::build(spec, n_inputs, n_classes, seed)?;
    let local = |flag: &str, radius: Option<usize>| match (radius, data.grid) {
        (None, _) => Ok(None),
        (Some(radius), Some(grid)) => Ok(Some((grid, radius))),
        (Some(_), None) => Err(PipelineError::Invalid(format!(
            "{flag} applies to image data (fashion-mnist, an IDX directory), not {}",
            cfg.data
        ))),
    };
    let hidden_local = local("--hidden-radius", r.hidden_radius)?;
    let net = match local("--input-radius", r.input_radius)? {
        None => net.with_input_choice(r.input_candidates, seed),
        Some((grid, radius)) => net.with_local_input_choice(r.input_candidates, seed, grid, radius)?,
    };
    Ok(net.with_hidden_choice(r.hidden_candidates, seed, hidden_local)?)
}

/// The encoder's don't-cares filled into the first layer's tables of `net`
/// ([`fill_input_dont_cares`]); `None` for Boolean inputs or a network without LUT layers.
fn fill_first_layer(net: &Network, params: &mut [bool], encoder: &Encoder) -> Option<CareFill> {
    let layers = net.layers.as_ref().filter(|l| l.n_params() == params.len())?;
    Some(fill_input_dont_cares(layers, params, &encoder.bit_rules()?))
}

/// GroupSum temperature when `--tau` is not given: the square root of the group size, so
/// that a group's score spread stays about one logit unit per standard deviation.
fn default_tau(net: &RelaxedNet) -> f32 {
    let outputs = net.network.circuit.n_outputs();
    ((outputs / net.network.n_classes) as f32).sqrt()
}

/// LUT6 count and depth of the project's own mapper (`map --lut 6` with its defaults)
/// on the counted AIG, for `metrics.json`.
fn lut6_summary(aig: &Aig) -> Value {
    match crate::map::map_luts(aig, &crate::map::MapParams::default()) {
        Ok((_, st)) => json!({ "luts": st.luts, "depth": st.depth, "seconds": st.seconds }),
        Err(e) => json!({ "error": e.to_string() }),
    }
}

/// The trained classifier as an AIG after the pass script.
pub struct Synthesis {
    /// The AIG whose AND nodes `metrics.json` counts (written as `classifier.aig`).
    pub aig: Aig,
    /// AND nodes of the lowered classifier before the passes.
    pub and_nodes_before: usize,
    /// What each pass did.
    pub passes: Vec<PassStats>,
    /// Train and test accuracy after a pass that changes the function (`dc`).
    pub accuracy_after_passes: Option<(f64, f64)>,
    /// The script as given (`--passes`), its budget, the passes the budget skipped and
    /// why the script stopped.
    pub budget: BudgetReport,
}

/// Runs the script `cfg.passes` on `lowered` within `cfg.synth_budget` (checking every
/// pass with `cfg.check`); the flag says whether a pass that ran changes the function.
pub(super) fn run_synth_script(
    cfg: &TrainConfig,
    lowered: &Aig,
    ctx: &PassContext,
) -> Result<(Aig, Vec<PassStats>, BudgetReport, bool), PipelineError> {
    let script = pass::parse_script(&cfg.passes, ctx)?;
    let opts = pass::RunOptions { check: cfg.check, budget: Some(cfg.synth_budget), ..Default::default() };
    let r = pass::run_budgeted(lowered, &script, &opts)?;
    let changed = script[..r.passes.len()].iter().any(|p| !p.preserves_function());
    let budget = r.report(&cfg.passes, cfg.synth_budget);
    Ok((r.aig, r.passes, budget, changed))
}

/// Lowers the trained classifier (body and head, parameters folded) to an AIG and runs
/// the pass script on it; `None` for smooth models (no circuit).
///
/// # Errors
/// A pass that fails (a failed proof with `--check`).
pub fn synthesize(cfg: &TrainConfig, trained: &Trained) -> Result<Option<Synthesis>, PipelineError> {
    if let TrainedModel::Poly { model, .. } = &trained.model {
        return super::poly::synthesize_poly(cfg, model).map(Some);
    }
    let (Some((net, params)), Some(x_train), Some(x_test)) =
        (trained.circuit(), &trained.x_train, &trained.x_test)
    else {
        return Ok(None);
    };
    let lower = LowerParams { exact_inputs: cfg.exact_inputs, exact_max_nodes: 12 };
    let classifier = net.classifier();
    let lowered = Aig::from_circuit_with(&classifier, Some(params), &lower);
    let (aig, passes, budget, changed) =
        run_synth_script(cfg, &lowered, &PassContext { care: Some(x_train.clone()) })?;
    let after = changed.then(|| {
        let head = |x: &BitMatrix| classes_of_indices(&aig.simulate(x), net.n_classes);
        (accuracy(&head(x_train), &trained.train_labels), accuracy(&head(x_test), &trained.test_labels))
    });
    Ok(Some(Synthesis {
        and_nodes_before: lowered.n_ands(),
        aig,
        passes,
        accuracy_after_passes: after,
        budget,
    }))
}

/// What `metrics.json` holds: the common fields (`dataset, domain, model, optimizer,
/// training_path, epochs, stop, seed, train_accuracy, test_accuracy, gates, and_nodes,
/// params, seconds`, ...) and each domain's own; `icarus` is the hardware check's outcome.
/// With `--valid-fold` every `test_*` figure is the held-out fold's, `test_source` names
/// it and `validation` holds `{"fold": I, "folds": F}`.
#[must_use]
pub fn metrics(
    cfg: &TrainConfig,
    data: &TrainData,
    trained: &Trained,
    synth: Option<&Synthesis>,
    icarus: &str,
) -> Value {
    let (train_accuracy, test_accuracy) = trained.accuracies();
    let seconds = crate::train::total_seconds(&trained.epoch_seconds);
    let threads = rayon::current_num_threads();
    let mut m = match &trained.model {
        TrainedModel::Poly { model, .. } => {
            let mut m = super::poly::poly_metrics(cfg, model, trained.epochs, trained.stop.name());
            m["dataset"] = json!(trained.dataset);
            m
        }
        TrainedModel::Bool { net, encoder, variant, init, .. } => json!({
            "dataset": trained.dataset,
            "domain": "bool",
            "model": net.spec.to_string(),
            "optimizer": variant.name(),
            "training_path": if init.is_some() { format!("init+{}", variant.name()) } else { variant.name().to_owned() },
            "epochs": trained.epochs,
            "stop": trained.stop.name(),
            "seed": cfg.seed,
            "encoding": encoding_text(encoder.encoding()),
            "input_bits": encoder.n_bits(),
            "gates": net.circuit.n_gates(),
            "params": net.n_params(),
        }),
        TrainedModel::Relaxed { spec, members, encoder, .. } => json!({
            "dataset": trained.dataset,
            "domain": "relaxed",
            "model": spec.to_string(),
            "optimizer": "adam",
            "training_path": "relaxed",
            "epochs": trained.epochs,
            "stop": trained.stop.name(),
            "seed": cfg.seed,
            "encoding": encoding_text(encoder.encoding()),
            "input_bits": encoder.n_bits(),
            "gates": members.iter().map(|m| m.net.n_nodes()).sum::<usize>(),
            "params": members.iter().map(|m| m.net.n_logits()).sum::<usize>(),
        }),
        TrainedModel::Smooth { model, .. } => {
            let ModelConfig::Smooth(s) = &cfg.model else {
                unreachable!("a smooth model has a smooth config")
            };
            json!({
                "dataset": trained.dataset,
                "domain": "smooth",
                "model": s.spec,
                "optimizer": s.optimizer.name,
                "training_path": "smooth",
                "loss": s.loss.name(),
                "lr": s.optimizer.lr,
                "epochs": trained.epochs,
                "stop": trained.stop.name(),
                "batch": s.batch,
                "seed": cfg.seed,
                "gates": model.circuit.n_gates(),
                "params": model.n_params(),
                "epoch_seconds": trained.epoch_seconds,
            })
        }
    };
    let o = m.as_object_mut().expect("an object");
    o.insert("preset".into(), json!(cfg.preset));
    o.insert("stop_reason".into(), json!(trained.stop.to_string()));
    o.insert("train_examples".into(), json!(data.train.n_examples()));
    o.insert("test_examples".into(), json!(data.test.n_examples()));
    o.insert("test_source".into(), json!(data.test_source));
    // `test_*` figures are the held-out fold's: say so (no key without a fold).
    if let Some(f) = cfg.valid_fold {
        o.insert("validation".into(), json!({ "fold": f.index(), "folds": f.folds() }));
    }
    o.insert("train_accuracy".into(), json!(train_accuracy));
    o.insert("test_accuracy".into(), json!(test_accuracy));
    o.insert("and_nodes".into(), json!(synth.map(|s| s.aig.n_ands())));
    if let Some(s) = synth {
        o.insert("and_nodes_before_passes".into(), json!(s.and_nodes_before));
        o.insert("lut6".into(), lut6_summary(&s.aig));
        o.insert("passes".into(), serde_json::to_value(&s.passes).unwrap_or(Value::Null));
        o.insert("synthesis".into(), serde_json::to_value(&s.budget).unwrap_or(Value::Null));
        if let Some((tr, te)) = s.accuracy_after_passes {
            o.insert("accuracy_after_passes".into(), json!({ "train": tr, "test": te }));
        }
    }
    o.insert("seconds".into(), json!(seconds));
    o.insert("threads".into(), json!(threads));
    if synth.is_some() {
        o.insert("icarus".into(), json!(icarus));
    }
    if let TrainedModel::Bool { variant: RdaVariant::HwVotes(v), .. } = &trained.model {
        o.insert("votes_hw".into(), json!(v));
    }
    if let ModelConfig::Bool(b) = &cfg.model
        && let Some(r) = b.input_radius
    {
        o.insert("input_radius".into(), json!(r));
    }
    if let ModelConfig::Bool(b) = &cfg.model
        && let Some(r) = b.rewire
    {
        o.insert("rewire".into(), json!(r));
    }
    if let TrainedModel::Bool { net, params, .. } = &trained.model
        && let Some(v) = &net.vote_weights
    {
        // What the same outputs score with every vote counting one.
        let unweighted = |x: Option<&BitMatrix>, labels: &[u32]| {
            x.filter(|_| !labels.is_empty()).map(|x| {
                let out = crate::learn::predict::forward(&net.circuit, params, x);
                accuracy(&net.spec.head.predict(&out, net.n_classes), labels)
            })
        };
        let (xtr, xte) = (trained.x_train.as_ref(), trained.x_test.as_ref());
        o.insert(
            "vote_weights".into(),
            json!({
                "unweighted_train_accuracy": unweighted(xtr, &trained.train_labels),
                "unweighted_test_accuracy": unweighted(xte, &trained.test_labels),
                "total_weight": v.weights.iter().map(|w| i64::from(w.unsigned_abs())).sum::<i64>(),
                "negative": v.weights.iter().filter(|&&w| w < 0).count(),
                "zero": v.weights.iter().filter(|&&w| w == 0).count(),
                "bias": v.bias,
            }),
        );
    }
    match &trained.model {
        TrainedModel::Bool { init: Some((file, before)), .. } => {
            o.insert("init".into(), json!({ "model": file, "test_accuracy": before }));
        }
        TrainedModel::Relaxed { spec, members, discrete, teacher, .. } => {
            let (xtr, xte) = (trained.x_train.as_ref(), trained.x_test.as_ref());
            // A network's figures: its relaxed accuracies, live gates, settings and losses.
            let figures = |m: &RelaxedMember| {
                // A specialist's relaxed accuracies would need its classes' examples alone:
                // its circuit's are in `specialist`.
                let soft = |x: Option<&BitMatrix>, labels: &[u32]| {
                    x.filter(|_| !labels.is_empty() && m.net.network.n_classes == discrete.n_classes)
                        .map(|x| accuracy(&m.net.soft_predict(&m.logits, x), labels))
                };
                let mut f = serde_json::Map::new();
                f.insert("relaxed_train_accuracy".into(), json!(soft(xtr, &trained.train_labels)));
                f.insert("relaxed_test_accuracy".into(), json!(soft(xte, &trained.test_labels)));
                f.insert("live_gates".into(), json!(m.net.live_nodes(&m.logits)));
                f.insert("relaxed".into(), serde_json::to_value(m.relaxed).unwrap_or(Value::Null));
                f.insert("loss_history".into(), json!(m.losses));
                f
            };
            // One network's figures sit among the run's (in this order); a boosted run's
            // are in `boost.members`.
            let ModelConfig::Relaxed(r) = &cfg.model else {
                unreachable!("a relaxed model has a relaxed config")
            };
            let mut one = if members.len() == 1 { figures(&members[0]) } else { serde_json::Map::new() };
            let mut take = |o: &mut serde_json::Map<String, Value>, key: &str| {
                if let Some(v) = one.remove(key) {
                    o.insert(key.into(), v);
                }
            };
            o.insert("relaxed_model".into(), json!(spec.to_string()));
            o.insert("discrete_model".into(), json!(discrete.spec.to_string()));
            take(o, "relaxed_train_accuracy");
            take(o, "relaxed_test_accuracy");
            o.insert("input_candidates".into(), json!(members[0].net.input_candidates()));
            o.insert("input_radius".into(), json!(r.input_radius));
            o.insert("shifts".into(), json!(r.shifts));
            o.insert("diagonal_moves".into(), json!(r.diagonal_moves));
            o.insert("copies_per_epoch".into(), json!(r.copies_per_epoch));
            o.insert("hidden_candidates".into(), json!(r.hidden_candidates));
            o.insert("hidden_radius".into(), json!(r.hidden_radius));
            let live: usize = members.iter().map(|m| m.net.live_nodes(&m.logits)).sum();
            o.insert("live_gates".into(), json!(live));
            take(o, "relaxed");
            // A network of several: its figures, seed and circuit's accuracies alone.
            let network = |m: &RelaxedMember| {
                let mut f = figures(m);
                let (train, test) = m.alone.unwrap_or_default();
                f.insert("seed".into(), json!(m.relaxed.seed));
                f.insert("train_examples".into(), json!(m.train_examples));
                f.insert("train_accuracy".into(), json!(train));
                f.insert("test_accuracy".into(), json!(test));
                Value::Object(f)
            };
            if r.boost > 1 {
                let networks: Vec<Value> = members.iter().map(network).collect();
                let boost = json!({
                    "networks": r.boost,
                    "trained": members.len(),
                    "scale": r.boost_scale,
                    "members": networks,
                });
                o.insert("boost".into(), boost);
            }
            if let (Some(s), [first, second]) = (&r.specialist, members.as_slice()) {
                // The specialist's accuracies are among its classes, on their examples.
                let cascade = json!({
                    "classes": s.classes,
                    "shifts": s.shifts,
                    "diagonal_moves": s.diagonal_moves,
                    "copies_per_epoch": s.copies_per_epoch,
                    "first": network(first),
                    "specialist": network(second),
                });
                o.insert("cascade".into(), cascade);
            }
            if let Some(t) = teacher {
                o.insert("teacher".into(), serde_json::to_value(t).unwrap_or(Value::Null));
            }
            take(o, "loss_history");
        }
        _ => {}
    }
    let fill = |c: &CareFill| {
        json!({
            "luts_with_dont_cares": c.luts_with_dont_cares,
            "luts_changed": c.luts_changed,
            "table_ands_before": c.table_ands.0,
            "table_ands_after": c.table_ands.1,
        })
    };
    if let Some(c) = &trained.data_care {
        o.insert("training_dont_cares".into(), fill(c));
    }
    if let Some(c) = &trained.input_care {
        o.insert("input_dont_cares".into(), fill(c));
    }
    m
}

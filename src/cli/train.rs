//! `circuitlearn train`: load and encode data, build a model from its spec, train it
//! with RDA, write `model.json` and `metrics.json` (and, with `--checkpoint-every`, a
//! checkpoint that `--resume` continues from).

use super::checkpoint::TrainCheckpoint;
use super::common::{UsageError, progress, set_threads, write_json_file};
use super::export::export_trained;
use crate::aig::{Aig, LowerParams};
use crate::data::{self, Dataset, Encoder, Encoding};
use crate::io::ModelFile;
use crate::io::model_file::params_to_hex;
use crate::learn::head::{accuracy, classes_of_indices};
use crate::learn::relaxed::PixelGrid;
use crate::learn::trainer::predict;
use crate::learn::{Body, Checkpoint, Init, ModelSpec, Network, Optimizer, Trainer, VoteParams};
use crate::pass;
use anyhow::Context;
use clap::Args;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Arguments of `train`.
#[derive(Clone, Debug, Args, Serialize, Deserialize)]
pub struct TrainArgs {
    /// Training data: iris, wine, breast-cancer, digits, or a path (.csv, .csv.gz, .pla, .pla.gz).
    #[arg(long, default_value = "iris")]
    pub data: String,
    /// Separate test data (same format); without it a stratified split of --data is held out.
    #[arg(long)]
    pub test: Option<String>,
    /// Fraction of --data held out for testing when --test is not given.
    #[arg(long, default_value_t = 0.3)]
    pub test_fraction: f64,
    /// Model spec, e.g. lut:6:64x1,groupsum:3 | table,onehot | pseudolinear | gates:WxD[:O]
    /// (relaxed two-input gates, trained smooth and discretised) [default:
    /// lut:6:64x1,groupsum:C for C classes; for fashion-mnist gates:20000x6:3000, or
    /// lut:6:9000x2:1500,groupsum:10 with --optimizer rda].
    #[arg(long)]
    pub model: Option<String>,
    /// Domain of the model: bool (Boolean circuits) or smooth (f32 tensor circuits trained
    /// by gradient descent: models mlp:H1xH2..., conv, linear, dense, hidden:N; default
    /// mlp:256x128; optimizers sgd, momentum, nesterov, adagrad, adam (default adam, lr 0.001);
    /// losses softmax-ce (default) or mse; --data fashion-mnist or an IDX directory too;
    /// relaxed logic: --model gates:WxD or lut:K:WxD, discretised to a Boolean circuit).
    /// poly is library-only.
    #[arg(long, default_value = "bool")]
    pub domain: String,
    /// Optimiser: rda (the RDA family's working member: faithful for table, votes
    /// otherwise), faithful (per-example RDA on any model), votes (batched, vote counting)
    /// or parity (batched, Z2 sum; shows why votes are needed); relaxed gates:
    /// models train with adam [default: rda; for fashion-mnist without --model, the
    /// relaxed default model (naming rda picks the RDA default instead)].
    #[arg(long)]
    pub optimizer: Option<String>,
    /// Loss: xor (the Boolean loss); for --domain smooth, softmax-ce or mse [default: xor, or softmax-ce for smooth].
    #[arg(long)]
    pub loss: Option<String>,
    /// Numeric feature encoding: threshold | thermometer:B (per-feature quantiles) |
    /// uniform:B (B equally spaced thresholds over the data's range) [default:
    /// thermometer:8; for fashion-mnist uniform:63 (relaxed, learned input wiring),
    /// uniform:7 (relaxed, random wiring) or thermometer:3 (RDA)].
    #[arg(long)]
    pub encoding: Option<String>,
    /// Passes over the training data [default: 20; 12 for the fashion-mnist default
    /// relaxed model].
    #[arg(long)]
    pub epochs: Option<usize>,
    /// Examples per batch [default: 1024 for the votes optimiser (2048 for fashion-mnist), 128
    /// for smooth and relaxed models].
    #[arg(long)]
    pub batch: Option<usize>,
    /// Learning rate: for Boolean RDA, the probability that a winning flip is applied; for
    /// relaxed models Adam's rate [default: 0.3 RDA; 0.01 relaxed, 0.1 for fashion-mnist].
    #[arg(long)]
    pub lr: Option<f64>,
    /// Seed for the split, the wiring, the initial parameters and training.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Worker threads (0 = one per core).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Pass script run on the trained circuit's AIG before counting AND nodes; `dc` uses
    /// the training inputs as care set and changes the function outside it (train and
    /// test accuracy after the passes are then reported too) [default: strash,fraig, or
    /// strash for fashion-mnist, whose 100k+ node AIGs make fraig slow].
    #[arg(long)]
    pub passes: Option<String>,
    /// Build trained LUT cofactors of at most this many inputs as minimum AIGs (exact
    /// synthesis by SAT) when lowering; 0 = plain Shannon expansion. 3 is cheap (256
    /// functions, cached); 4 can take minutes on a new model.
    #[arg(long, default_value_t = 3)]
    pub exact_inputs: usize,
    /// Prove every pass equivalent at run time (exhaustive simulation or SAT).
    #[arg(long)]
    pub check: bool,
    /// Output directory [default: runs/<data name>].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Relaxed models: GroupSum temperature (class score = group sum / tau) [default: sqrt of the group size].
    #[arg(long)]
    pub tau: Option<f64>,
    /// Relaxed models: added at initialisation to the logit of the pass-through function
    /// [default: 0; 2 for the fashion-mnist default relaxed model].
    #[arg(long)]
    pub residual: Option<f64>,
    /// Relaxed models: learning-rate schedule, constant or cosine (decay to 0 over the
    /// run) [default: constant; cosine for the fashion-mnist default relaxed model].
    #[arg(long)]
    #[serde(default)]
    pub lr_schedule: Option<String>,
    /// Relaxed models: learned input wiring. Each input of a first-layer gate reads a
    /// softmax mixture of C candidate input bits (its random source and C-1 more) and,
    /// discretised, the heaviest one (`model.json` keeps the wiring); 1 keeps the random
    /// wiring [default: 1].
    #[arg(long, value_name = "C")]
    #[serde(default)]
    pub input_candidates: Option<usize>,
    /// Relaxed models with --input-candidates on image data: draw a first-layer gate's
    /// candidates from the pixels within R rows and columns of one centre pixel, so that
    /// gates compare neighbouring pixels; omitted, candidates come from the whole image
    /// [default: 2 for the fashion-mnist default].
    #[arg(long, value_name = "R")]
    #[serde(default)]
    pub input_radius: Option<usize>,
    /// Relaxed models with --input-candidates: after --narrow-after epochs each input keeps
    /// only its K heaviest candidates, which makes the remaining soft-choice epochs cheaper
    /// [default: all; 4 for the fashion-mnist default].
    #[arg(long, value_name = "K")]
    #[serde(default)]
    pub narrow_candidates: Option<usize>,
    /// Relaxed models with --narrow-candidates: epochs before the choice narrows
    /// [default: 1; 2 for the fashion-mnist default].
    #[arg(long, value_name = "N")]
    #[serde(default)]
    pub narrow_after: Option<usize>,
    /// Relaxed models with --input-candidates: the last N epochs train the gates with
    /// each input fixed to its heaviest candidate, the wiring the discretised circuit
    /// gets [default: 1; 3 for the fashion-mnist default].
    #[arg(long, value_name = "N")]
    #[serde(default)]
    pub hard_choice_epochs: Option<usize>,
    /// Gate models (`gates:WxD`): the last N epochs compute with each gate's most likely
    /// function, the circuit that is exported, and learn through the softmax
    /// (straight-through) [default: 0; 1 for the fashion-mnist default].
    #[arg(long, value_name = "N")]
    #[serde(default)]
    pub hard_gate_epochs: Option<usize>,
    /// Print the metrics as one JSON object on the last line.
    #[arg(long)]
    pub json: bool,
    /// Write a checkpoint (OUT/checkpoint.json) every N epochs; 0 = never.
    #[arg(long, default_value_t = 0)]
    #[serde(default)]
    pub checkpoint_every: usize,
    /// Continue the run whose checkpoint is in DIR, with the arguments it was started
    /// with (other flags are ignored); ends with the model an uninterrupted run writes.
    #[arg(long, value_name = "DIR")]
    #[serde(default)]
    pub resume: Option<PathBuf>,
    /// Bool domain: start from the parameters of a trained model (a model.json, e.g. a
    /// relaxed model discretised to lut:2 tables) instead of random ones; its spec,
    /// wiring and encoder are used, and --model / --encoding, when given, must match.
    #[arg(long, value_name = "FILE")]
    #[serde(default)]
    pub init: Option<PathBuf>,
}

/// What `metrics.json` holds.
#[derive(Debug, Serialize)]
pub struct Metrics {
    /// Data set name.
    pub dataset: String,
    /// Domain.
    pub domain: String,
    /// Model spec.
    pub model: String,
    /// Optimiser.
    pub optimizer: String,
    /// How the model was trained: `rda`/`rda-votes` (Boolean RDA, `init+` when started
    /// from `--init`), `relaxed` (relaxed logic, discretised) or `smooth` (f32 tensors).
    pub training_path: String,
    /// Epochs run.
    pub epochs: usize,
    /// Why training stopped.
    pub stop: String,
    /// Seed.
    pub seed: u64,
    /// Encoding of numeric features.
    pub encoding: String,
    /// Input bits.
    pub input_bits: usize,
    /// Training examples.
    pub train_examples: usize,
    /// Test examples.
    pub test_examples: usize,
    /// Where the test examples came from.
    pub test_source: String,
    /// Accuracy on the training examples.
    pub train_accuracy: f64,
    /// Accuracy on the test examples.
    pub test_accuracy: f64,
    /// Gates of the model circuit (LUTs count one each).
    pub gates: usize,
    /// AND nodes of the whole classifier (body and head: popcounts and argmax) as an AIG,
    /// parameters folded, after the pass script.
    pub and_nodes: usize,
    /// The pass script and what each pass did.
    pub passes: Vec<crate::pass::PassStats>,
    /// Train and test accuracy of the circuit after the passes, when a pass changed the
    /// function (`dc`); otherwise absent (the passes are proven to preserve it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub accuracy_after_passes: Option<(f64, f64)>,
    /// Trainable parameters.
    pub params: usize,
    /// Wall-clock seconds of training.
    pub seconds: f64,
    /// Threads used.
    pub threads: usize,
    /// Icarus co-simulation of the exported Verilog on the train and test vectors:
    /// `pass`, `fail`, `skipped` (iverilog not installed) or `error`.
    pub icarus: String,
}

/// `metrics.json` of a Boolean run: [`Metrics`] and, after `--init`, where it started.
#[derive(Debug, Serialize)]
struct BoolMetrics {
    #[serde(flatten)]
    metrics: Metrics,
    /// The model file training started from (`--init`), and its test accuracy.
    #[serde(skip_serializing_if = "Option::is_none")]
    init: Option<InitFigures>,
}

/// Where an `--init` run started.
#[derive(Debug, Serialize)]
struct InitFigures {
    /// The model file.
    model: String,
    /// Its test accuracy, before any training.
    test_accuracy: f64,
}

/// The `--encoding` text of an encoding (inverse of [`parse_encoding`]).
fn encoding_spec(e: &Encoding) -> String {
    match e {
        Encoding::Threshold => "threshold".into(),
        Encoding::Thermometer { bits } => format!("thermometer:{bits}"),
        Encoding::Uniform { bits } => format!("uniform:{bits}"),
    }
}

pub(super) fn parse_encoding(s: &str) -> Result<Encoding, UsageError> {
    match s.split_once(':') {
        None if s == "threshold" => Ok(Encoding::Threshold),
        Some(("thermometer", b)) => match b.parse::<usize>() {
            Ok(bits) if bits >= 1 => Ok(Encoding::Thermometer { bits }),
            _ => Err(UsageError(format!("--encoding thermometer:B needs B >= 1, got '{b}'"))),
        },
        Some(("uniform", b)) => match b.parse::<usize>() {
            Ok(bits) if bits >= 1 => Ok(Encoding::Uniform { bits }),
            _ => Err(UsageError(format!("--encoding uniform:B needs B >= 1, got '{b}'"))),
        },
        _ => Err(UsageError(format!(
            "unknown --encoding '{s}'; expected threshold, thermometer:B or uniform:B"
        ))),
    }
}

/// Splits `ds` (or pairs it with `--test`) into train and test sets.
pub(super) fn split(a: &TrainArgs, ds: Dataset) -> anyhow::Result<(Dataset, Dataset, String)> {
    if let Some(t) = &a.test {
        let test = data::load(t)?;
        return Ok((ds, test, t.clone()));
    }
    if !(0.0..1.0).contains(&a.test_fraction) {
        return Err(UsageError(format!("--test-fraction must be in [0, 1), got {}", a.test_fraction)).into());
    }
    let (tr, te) = data::stratified_split(&ds.labels, a.test_fraction, a.seed);
    let src = format!("stratified {:.0}% of {} (seed {})", a.test_fraction * 100.0, a.data, a.seed);
    Ok((ds.subset(&tr), ds.subset(&te), src))
}

/// The Boolean model `--data fashion-mnist` trains by default: a first layer six times as
/// wide as a narrow last layer, so every first-layer LUT is read once (0.8214 test
/// accuracy at 369k ANDs; `lut:6:2000x2` gave 0.8043 at 115k; BENCHMARKS.md).
const FASHION_MNIST_MODEL: &str = "lut:6:9000x2:1500,groupsum:10";
/// Its default encoding.
const FASHION_MNIST_ENCODING: &str = "thermometer:3";
/// Its default batch: larger batches count more votes per flip decision (0.680 at 256,
/// 0.735 at 1024, 0.754 at 4096 with the other defaults of the time; BENCHMARKS.md).
const FASHION_MNIST_BATCH: usize = 2048;
/// The vote rule's Fashion-MNIST settings: the class-balancing positive weight
/// `classes - 1 = 9` over-corrects (0.783 test accuracy at weight 3, 0.754 at 9), and a
/// margin of 0.05 beats 0.1 and 0.2 (0.801, 0.799, 0.785).
const FASHION_MNIST_VOTES: (f64, f64) = (2.0, 0.05);

/// What `train` learns from: training and test sets, where the test set came from, and
/// the pixel grid when the data are images.
pub(super) struct TrainData {
    pub train: Dataset,
    pub test: Dataset,
    pub test_source: String,
    pub grid: Option<PixelGrid>,
}

/// The data of `--data`: image data (`fashion-mnist`, an IDX directory) with its own test
/// split, otherwise [`split`].
pub(super) fn load(a: &TrainArgs) -> anyhow::Result<TrainData> {
    let Some(img) = super::images::load(&a.data, a.test.as_deref())? else {
        let (train, test, test_source) = split(a, data::load(&a.data)?)?;
        return Ok(TrainData { train, test, test_source, grid: None });
    };
    let names: Vec<&str> = img.class_names.iter().map(String::as_str).collect();
    let images = &img.splits.train.images;
    Ok(TrainData {
        train: img.splits.train.to_dataset(&img.name, &names)?,
        test: img.splits.test.to_dataset(&img.name, &names)?,
        test_source: img.test_source,
        grid: Some(PixelGrid { width: images.cols, height: images.rows }),
    })
}

/// The `--encoding` in effect: the flag, else the data's default.
pub(super) fn encoding_text(a: &TrainArgs) -> &str {
    a.encoding.as_deref().unwrap_or(if a.data == "fashion-mnist" {
        FASHION_MNIST_ENCODING
    } else {
        "thermometer:8"
    })
}

/// The `--passes` in effect: the flag, else the data's default.
pub(super) fn passes_text(a: &TrainArgs) -> &str {
    a.passes.as_deref().unwrap_or(if a.data == "fashion-mnist" { "strash" } else { "strash,fraig" })
}

/// The model `--data fashion-mnist` trains by default: relaxed two-input gates (six
/// layers, 2,500 outputs = 250 per class), trained smooth with the first layer's wiring
/// learned (`with_relaxed_defaults`) and discretised: 0.878 test accuracy at 36K ANDs
/// in about 12 minutes (7 thresholds per pixel: 0.872 in 8; random wiring: 0.865 at 39K
/// in 11; BENCHMARKS.md).
const FASHION_MNIST_RELAXED: &str = "gates:20000x6:3000";

/// Whether `train` in the Boolean domain takes the relaxed-logic path: a `gates:` model,
/// or Fashion-MNIST with no model, optimiser or `--init` named (its default).
fn takes_relaxed_path(a: &TrainArgs) -> bool {
    let fashion_default =
        a.data == "fashion-mnist" && a.model.is_none() && a.optimizer.is_none() && a.init.is_none();
    a.model.as_deref().is_some_and(|m| m.starts_with("gates:")) || fashion_default
}

/// `a` with the Fashion-MNIST relaxed defaults filled in where no flag was given: the
/// default model (300 outputs per class) with its first layer's wiring learned among 32
/// candidates per input drawn within 2 pixels of a centre per gate (+0.07 and +0.21
/// points on seeds 0 and 1), narrowed to the heaviest 4 after 2 epochs (a quarter less
/// training time), the last 3 of 12 epochs on the chosen wiring, the very last with
/// hard gates (straight-through), a uniform 63-bit thermometer (the learned wiring picks
/// the thresholds it needs: +0.6 points over 7 bits; 7 bits when the wiring is random),
/// Adam rate 0.1 with cosine decay, GroupSum temperature 10 (about 0.6 sqrt(group size),
/// the best in short runs), residual initialisation 2.
fn with_relaxed_defaults(a: &TrainArgs) -> TrainArgs {
    let mut r = a.clone();
    if a.data == "fashion-mnist" {
        if r.model.is_none() {
            r.model = Some(FASHION_MNIST_RELAXED.to_owned());
            r.tau.get_or_insert(10.0);
            r.epochs.get_or_insert(12);
            r.input_candidates.get_or_insert(32);
            r.hard_choice_epochs.get_or_insert(3);
            r.hard_gate_epochs.get_or_insert(1);
            if r.input_candidates.is_some_and(|c| c > 1) {
                r.input_radius.get_or_insert(2);
                r.narrow_candidates.get_or_insert(4);
                r.narrow_after.get_or_insert(2);
            }
        }
        // The learned wiring picks the thresholds it needs; random wiring reads few well.
        let learned = r.input_candidates.is_some_and(|c| c > 1);
        r.encoding.get_or_insert_with(|| if learned { "uniform:63" } else { "uniform:7" }.to_owned());
        r.lr.get_or_insert(0.1);
        r.residual.get_or_insert(2.0);
        r.lr_schedule.get_or_insert_with(|| "cosine".to_owned());
    }
    r
}

/// A trained model that `--init` starts from.
struct InitModel {
    net: Network,
    params: Vec<bool>,
    encoder: Encoder,
    /// The seed its wiring was drawn from (a rebuilt model needs it).
    seed: u64,
    /// Its learned layer wiring (`model.json`'s `learned_wiring`), carried to the new model.
    learned_wiring: Vec<Vec<u32>>,
}

/// Reads `--init FILE` and checks that it fits the flags and the training data.
fn read_init(a: &TrainArgs, path: &Path, train: &Dataset) -> anyhow::Result<InitModel> {
    let file = ModelFile::read(path)?;
    let (net, params) = file.network(path)?;
    let mismatch = |what: String| UsageError(format!("--init {}: {what}", path.display()));
    if let Some(m) = &a.model {
        let spec: ModelSpec = m.parse()?;
        if spec != net.spec {
            return Err(mismatch(format!("model {} does not match --model {spec}", net.spec)).into());
        }
    }
    if let Some(e) = &a.encoding
        && &parse_encoding(e)? != file.encoder.encoding()
    {
        let theirs = encoding_spec(file.encoder.encoding());
        return Err(mismatch(format!("encoding {theirs} does not match --encoding {e}")).into());
    }
    if file.class_names != train.class_names {
        return Err(mismatch(format!(
            "classes {} do not match the data's {}",
            file.class_names.join(","),
            train.class_names.join(",")
        ))
        .into());
    }
    file.encoder.encode(train).map_err(|e| mismatch(format!("its encoder does not fit the data: {e}")))?;
    Ok(InitModel { net, params, encoder: file.encoder, seed: file.seed, learned_wiring: file.learned_wiring })
}

impl TrainArgs {
    /// `--epochs`, or 20.
    #[must_use]
    pub fn epoch_count(&self) -> usize {
        self.epochs.unwrap_or(20)
    }
}

/// Runs `train`.
///
/// # Errors
/// Bad data, spec or flags (exit 2); failure to write the outputs (exit 1).
pub fn run(a: &TrainArgs) -> anyhow::Result<()> {
    let (resumed_args, start) = match a.resume.as_deref().map(TrainCheckpoint::read).transpose()? {
        Some(c) => (Some(c.args), Some(c.trainer)),
        None => (None, None),
    };
    let a = resumed_args.as_ref().unwrap_or(a);
    if a.init.is_some() && a.domain != "bool" {
        return Err(UsageError(format!(
            "--init starts Boolean training (--domain bool), not --domain {}",
            a.domain
        ))
        .into());
    }
    match a.domain.as_str() {
        // A resumed run is always Boolean RDA (relaxed runs write no checkpoints), also
        // one checkpointed when the fashion-mnist default was RDA.
        "bool" if start.is_none() && takes_relaxed_path(a) => {
            return super::train_relaxed::run(&with_relaxed_defaults(a));
        }
        "smooth" if a.model.as_deref().is_some_and(super::train_relaxed::is_relaxed_model) => {
            return super::train_relaxed::run(&with_relaxed_defaults(a));
        }
        _ => {}
    }
    let relaxed_only = [
        ("--tau", a.tau.is_some()),
        ("--residual", a.residual.is_some()),
        ("--lr-schedule", a.lr_schedule.is_some()),
        ("--input-candidates", a.input_candidates.is_some()),
        ("--input-radius", a.input_radius.is_some()),
        ("--narrow-candidates", a.narrow_candidates.is_some()),
        ("--narrow-after", a.narrow_after.is_some()),
        ("--hard-choice-epochs", a.hard_choice_epochs.is_some()),
        ("--hard-gate-epochs", a.hard_gate_epochs.is_some()),
    ];
    if let Some((flag, _)) = relaxed_only.iter().find(|(_, given)| *given) {
        return Err(UsageError(format!(
            "{flag} applies to relaxed models (--model gates:WxD, or lut:K:WxD with --domain smooth)"
        ))
        .into());
    }
    match a.domain.as_str() {
        "bool" => {}
        "smooth" => return super::train_smooth::run(a),
        other => {
            return Err(UsageError(format!(
                "--domain {other}: the command line trains the bool and smooth domains (poly is library-only)"
            ))
            .into());
        }
    }
    if let Some(loss) = a.loss.as_deref().filter(|&l| l != "xor") {
        return Err(UsageError(format!("--loss {loss}: the bool domain trains with the xor loss")).into());
    }
    set_threads(a.threads);
    let TrainData { train, test, test_source, .. } = load(a)?;
    let n_classes = train.n_classes();
    let fashion = a.data == "fashion-mnist";
    let init = a.init.as_deref().map(|p| read_init(a, p, &train)).transpose()?;
    let (net, encoder, init_params, wiring_seed, learned_wiring) = match init {
        Some(i) => (i.net, i.encoder, Some(i.params), i.seed, i.learned_wiring),
        None => {
            let encoder = Encoder::fit(&parse_encoding(encoding_text(a))?, &train)?;
            let spec_text = a.model.clone().unwrap_or_else(|| {
                if fashion {
                    FASHION_MNIST_MODEL.to_owned()
                } else {
                    format!("lut:6:64x1,groupsum:{n_classes}")
                }
            });
            let net = Network::build(spec_text.parse()?, encoder.n_bits(), n_classes, a.seed)?;
            (net, encoder, None, a.seed, Vec::new())
        }
    };
    let spec = net.spec;
    let encoding_text = encoding_spec(encoder.encoding());
    let x_train = encoder.encode(&train)?;
    let x_test = encoder.encode(&test).with_context(|| format!("encoding test data {test_source}"))?;
    let optimizer = match a.optimizer.as_deref() {
        Some("faithful" | "rda-faithful") => Optimizer::Rda,
        Some("votes" | "rda-votes") => Optimizer::Votes(VoteParams::for_head(spec.head, n_classes)),
        Some("parity" | "rda-parity") => Optimizer::Parity,
        // `rda` is the RDA family's working member for the model: per example on a table
        // (the paper's algorithm), batched votes on anything else (per-example RDA on a LUT
        // network takes hours on Fashion-MNIST and stays near chance).
        None | Some("rda") if spec.body == Body::Table => Optimizer::Rda,
        None | Some("rda") => Optimizer::Votes(VoteParams::for_head(spec.head, n_classes)),
        Some(o) => {
            return Err(UsageError(format!(
                "unknown --optimizer '{o}'; expected rda, faithful, votes or parity"
            ))
            .into());
        }
    };
    let optimizer = match optimizer {
        Optimizer::Votes(v) if fashion => {
            let (positive_weight, margin) = FASHION_MNIST_VOTES;
            Optimizer::Votes(VoteParams { positive_weight, margin, ..v })
        }
        o => o,
    };
    let optimizer = match (optimizer, a.lr) {
        (Optimizer::Votes(mut v), Some(lr)) => {
            v.accept = lr;
            Optimizer::Votes(v)
        }
        (o, _) => o,
    };
    let init = if spec.body == Body::Table { Init::Zeros } else { Init::Random };
    let trainer = Trainer::new(optimizer)
        .epochs(a.epoch_count())
        .batch(a.batch.unwrap_or(if fashion { FASHION_MNIST_BATCH } else { 1024 }))
        .seed(a.seed)
        .init(init);
    let out = a.out.clone().unwrap_or_else(|| PathBuf::from("runs").join(&train.name));
    let bar = progress(a.epoch_count() as u64, a.json, "train");
    let init_figures = init_params.as_ref().map(|p| InitFigures {
        model: a.init.as_deref().unwrap_or(Path::new("")).display().to_string(),
        test_accuracy: accuracy(&predict(&net, p, &x_test), &test.labels),
    });
    // A fresh run from `--init` starts as if resumed after zero epochs with its parameters.
    let start = start.or_else(|| {
        init_params.map(|params| Checkpoint { params, history: Vec::new(), rng_word_pos: "0".into() })
    });
    let t0 = Instant::now();
    bar.set_position(start.as_ref().map_or(0, |c| c.epoch() as u64));
    let checkpoint_args = TrainArgs { out: Some(out.clone()), ..a.clone() };
    let mut saved = Ok(());
    let report = trainer
        .run_from(&net, &x_train, &train.labels, start, |end| {
            let s = end.stats();
            bar.set_message(format!("train acc {:.3}, {} flips", s.train_accuracy, s.flips));
            bar.inc(1);
            if a.checkpoint_every > 0 && s.epoch.is_multiple_of(a.checkpoint_every) && saved.is_ok() {
                saved = TrainCheckpoint::write(&checkpoint_args, end.checkpoint());
            }
        })
        .map_err(|e| UsageError(format!("{}: {e}", out.join("checkpoint.json").display())))?;
    saved?;
    let seconds = t0.elapsed().as_secs_f64();
    bar.finish_and_clear();
    let test_accuracy = accuracy(&predict(&net, &report.params, &x_test), &test.labels);
    let lower = LowerParams { exact_inputs: a.exact_inputs, exact_max_nodes: 12 };
    let classifier = net.classifier();
    let lowered = Aig::from_circuit_with(&classifier, Some(&report.params), &lower);
    let passes = passes_text(a);
    let script = pass::parse_script(passes, &pass::PassContext { care: Some(x_train.clone()) })?;
    let (aig, pass_stats) = pass::run_script(&lowered, &script, a.check)?;
    // A pass that changes the function (dc) is judged by accuracy after it.
    let after = script.iter().any(|p| !p.preserves_function()).then(|| {
        let head = |x: &crate::lanes::BitMatrix| classes_of_indices(&aig.simulate(x), net.n_classes);
        (accuracy(&head(&x_train), &train.labels), accuracy(&head(&x_test), &test.labels))
    });
    let name = out.file_name().map_or_else(|| train.name.clone(), |n| n.to_string_lossy().into_owned());
    let hw = export_trained(
        &name,
        &classifier,
        &report.params,
        (&x_train, &x_test),
        "verilog-out".as_ref(),
        "testbenches".as_ref(),
    )?;
    let metrics = Metrics {
        dataset: train.name.clone(),
        domain: "bool".into(),
        model: spec.to_string(),
        optimizer: optimizer.name().into(),
        training_path: if init_figures.is_some() {
            format!("init+{}", optimizer.name())
        } else {
            optimizer.name().into()
        },
        epochs: report.history.len(),
        stop: format!("{:?}", report.stop),
        seed: a.seed,
        encoding: encoding_text,
        input_bits: encoder.n_bits(),
        train_examples: train.n_examples(),
        test_examples: test.n_examples(),
        test_source,
        train_accuracy: report.train_accuracy(),
        test_accuracy,
        gates: net.circuit.n_gates(),
        and_nodes: aig.n_ands(),
        passes: pass_stats,
        accuracy_after_passes: after,
        params: net.n_params(),
        seconds,
        threads: rayon::current_num_threads(),
        icarus: hw.icarus.clone(),
    };
    let model = ModelFile {
        format_version: crate::io::model_file::FORMAT_VERSION,
        dataset: train.name.clone(),
        spec: spec.to_string(),
        seed: wiring_seed,
        n_inputs: encoder.n_bits(),
        class_names: train.class_names.clone(),
        encoder,
        optimizer: optimizer.name().into(),
        params: params_to_hex(&report.params),
        learned_wiring,
    };
    model.write(&out.join("model.json"))?;
    let metrics = BoolMetrics { metrics, init: init_figures };
    write_json_file(&out.join("metrics.json"), &metrics)?;
    if a.json {
        println!("{}", serde_json::to_string(&metrics)?);
    } else {
        let BoolMetrics { metrics, init } = &metrics;
        println!(
            "{} on {}: train {:.4}, test {:.4} ({} test examples), {} gates, {} AIG ANDs, {} epochs ({:?}), {:.2}s",
            metrics.model,
            metrics.dataset,
            metrics.train_accuracy,
            metrics.test_accuracy,
            metrics.test_examples,
            metrics.gates,
            metrics.and_nodes,
            metrics.epochs,
            report.stop,
            seconds
        );
        if let Some(i) = &init {
            println!("started from {} (test {:.4})", i.model, i.test_accuracy);
        }
        println!("wrote {}/model.json and {}/metrics.json", out.display(), out.display());
        println!("{}", hw.summary);
    }
    hw.check()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Cli, Command};
    use clap::Parser;

    fn train_args(args: &[&str]) -> TrainArgs {
        let cli = Cli::try_parse_from(["circuitlearn", "train"].iter().chain(args)).expect("valid flags");
        let Command::Train(a) = cli.command else { unreachable!("a train command") };
        *a
    }

    /// The Fashion-MNIST default reads 63 thresholds per pixel because its first layer
    /// learns which to read; with random wiring it keeps 7; a given encoding wins.
    #[test]
    fn fashion_defaults_pick_the_encoding_by_wiring() {
        let encoding = |args: &[&str]| with_relaxed_defaults(&train_args(args)).encoding;
        assert_eq!(encoding(&["--data", "fashion-mnist"]).as_deref(), Some("uniform:63"));
        assert_eq!(
            encoding(&["--data", "fashion-mnist", "--input-candidates", "1"]).as_deref(),
            Some("uniform:7")
        );
        let custom = ["--data", "fashion-mnist", "--model", "gates:100x2", "--input-candidates", "8"];
        assert_eq!(encoding(&custom).as_deref(), Some("uniform:63"));
        assert_eq!(
            encoding(&["--data", "fashion-mnist", "--model", "gates:100x2"]).as_deref(),
            Some("uniform:7")
        );
        let given = ["--data", "fashion-mnist", "--encoding", "thermometer:3"];
        assert_eq!(encoding(&given).as_deref(), Some("thermometer:3"));
        assert_eq!(encoding(&["--data", "iris"]), None);
    }

    #[test]
    fn fashion_defaults_end_with_hard_choice_and_hard_gates() {
        let d = with_relaxed_defaults(&train_args(&["--data", "fashion-mnist"]));
        assert_eq!(d.model.as_deref(), Some(FASHION_MNIST_RELAXED));
        assert_eq!((d.epochs, d.hard_choice_epochs, d.hard_gate_epochs), (Some(12), Some(3), Some(1)));
        assert_eq!((d.input_radius, d.narrow_candidates, d.narrow_after), (Some(2), Some(4), Some(2)));
        let random = ["--data", "fashion-mnist", "--input-candidates", "1"];
        let random = with_relaxed_defaults(&train_args(&random));
        assert_eq!((random.input_radius, random.narrow_candidates), (None, None));
        let custom =
            with_relaxed_defaults(&train_args(&["--data", "fashion-mnist", "--model", "gates:100x2"]));
        assert_eq!(
            (custom.hard_choice_epochs, custom.hard_gate_epochs, custom.input_radius),
            (None, None, None)
        );
    }
}

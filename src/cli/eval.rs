//! `circuitlearn eval`: accuracy of a saved model on a data set, or on the training or
//! test split of the run that wrote it (read from the run's `config.toml`); with
//! `--predictions`, every example's predicted class and class scores as a table.

use super::common::{UsageError, check_outputs, set_threads};
use super::train::CONFIG_FILE;
use crate::data::{self, Dataset};
use crate::io::ModelFile;
use crate::io::smooth_model::{is_smooth_model, read_smooth_model};
use crate::learn::head::accuracy;
use crate::learn::predict::{outputs, predict_outputs, score_outputs};
use crate::pipeline::{self, TrainConfig, TrainOptions};
use crate::smooth::examples::Examples;
use anyhow::Context;
use clap::{Args, ValueEnum};
use std::path::PathBuf;

/// Which examples `eval` scores.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Split {
    /// Every example of --data (for image data: its test split).
    All,
    /// The training split of the run that wrote the model.
    Train,
    /// The test split of the run that wrote the model (held out from training; its
    /// validation fold for a run with --valid-fold).
    Test,
}

/// Arguments of `eval`.
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// The model file written by `train` (`DIR/model.json`).
    #[arg(long)]
    pub model: PathBuf,
    /// Data: a built-in name, a path (.csv, .pla, .pla.gz), fashion-mnist or an IDX
    /// directory (its test split) [default with --split train|test: the run's data].
    #[arg(long)]
    pub data: Option<String>,
    /// all (every example of --data), or train / test: the split of the run that wrote
    /// the model, rebuilt from its config.toml and seed.
    #[arg(long, value_enum, default_value_t = Split::All)]
    pub split: Split,
    /// Worker threads (0 = one per core).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Print one JSON object as the last line.
    #[arg(long)]
    pub json: bool,
    /// Most memory the data may take once parsed and encoded (e.g. 4G, 512M) [default:
    /// what the machine has available]; larger data are refused before they are loaded.
    #[arg(long, value_name = "SIZE")]
    pub max_memory: Option<crate::data::MemoryLimit>,
    /// Also write a tab-separated table of every example to this file: `example`,
    /// `label` and `predicted` (class indices), then the class scores the model's argmax
    /// compares, a column per class (`score:NAME`): a groupsum head's vote counts (with
    /// vote weights, the weighted sums plus the class constants), a smooth model's
    /// outputs; binary and one-hot heads score 1 for the class they decode, ring models
    /// have no score columns.
    #[arg(long, value_name = "FILE.tsv")]
    pub predictions: Option<PathBuf>,
}

/// The examples to score and their description.
fn examples(a: &EvalArgs) -> anyhow::Result<(Dataset, String, Option<pipeline::ImageData>)> {
    if a.split != Split::All {
        if a.data.is_some() {
            return Err(UsageError("--data: --split train|test scores the run's own data".into()).into());
        }
        let dir = a.model.parent().unwrap_or(std::path::Path::new("."));
        let path = dir.join(CONFIG_FILE);
        let options = TrainOptions::read(&path).map_err(|e| UsageError(format!("--split: {e}")))?;
        let cfg =
            TrainConfig::resolve(&options).map_err(|e| UsageError(format!("{}: {e}", path.display())))?;
        let d = pipeline::load_data(&cfg).map_err(|e| UsageError(e.to_string()))?;
        let what = if a.split == Split::Test { "test" } else { "train" };
        let what = match cfg.valid_fold {
            // A run that held out a validation fold: its "test" examples are that fold.
            Some(_) if a.split == Split::Test => d.test_source.clone(),
            Some(f) => format!("the training folds of {} (all but validation fold {f})", cfg.data),
            None => format!("the {what} split of {}", cfg.data),
        };
        let ds = if a.split == Split::Test { d.test } else { d.train };
        return Ok((ds, what, None));
    }
    let name = a.data.as_deref().ok_or_else(|| UsageError("--data is needed with --split all".into()))?;
    match pipeline::load_images(name, None).map_err(|e| UsageError(e.to_string()))? {
        Some(img) => {
            let names: Vec<&str> = img.class_names.iter().map(String::as_str).collect();
            let ds = img.splits.test.to_dataset(&img.name, &names)?;
            Ok((ds, img.test_source.clone(), Some(img)))
        }
        None => Ok((data::load_dataset_within(name, &memory_limit(a))?, name.to_owned(), None)),
    }
}

/// `--max-memory`, else what the machine has now.
fn memory_limit(a: &EvalArgs) -> data::MemoryLimit {
    a.max_memory.unwrap_or_else(data::MemoryLimit::available)
}

/// What a model says of every example `eval` scores.
struct Verdicts {
    /// The model's spec, as the report names it.
    spec: String,
    /// The predicted class of each example (`u32::MAX` where a head decodes no class).
    predicted: Vec<u32>,
    /// The class scores its argmax compares, example-major.
    scores: Option<Scores>,
}

/// Class scores of every example, example-major (`scores[e * classes + c]`).
enum Scores {
    /// Vote counts, weighted sums or decoded-class indicators of a Boolean network.
    Counts(Vec<i64>),
    /// A smooth model's outputs.
    Outputs(Vec<f32>),
}

impl Scores {
    /// Score `i` (example-major), as the table writes it.
    fn cell(&self, i: usize) -> String {
        match self {
            Scores::Counts(s) => s[i].to_string(),
            Scores::Outputs(s) => s[i].to_string(),
        }
    }
}

/// Runs `eval`.
///
/// # Errors
/// Bad model file, bad data, or data whose shape does not fit the model.
pub fn run(a: &EvalArgs) -> anyhow::Result<()> {
    set_threads(a.threads);
    if let Some(path) = &a.predictions {
        let data = a.data.as_deref().map(std::path::Path::new);
        let inputs: Vec<&std::path::Path> = std::iter::once(a.model.as_path()).chain(data).collect();
        check_outputs(&[path], &inputs, None)?;
    }
    let text = std::fs::read_to_string(&a.model).unwrap_or_default();
    let (ds, what, images) = examples(a)?;
    let v = verdicts(a, &text, &ds, &what, images.as_ref())?;
    let acc = (!ds.labels.is_empty()).then(|| accuracy(&v.predicted, &ds.labels));
    if let Some(path) = &a.predictions {
        write_predictions(path, &ds, &v).with_context(|| format!("writing {}", path.display()))?;
    }
    report(a, &v.spec, &what, ds.n_examples(), acc)
}

/// The model of `a` (its file's text `text`) on the examples `ds` (`images`, for image
/// data, as a smooth model reads them).
fn verdicts(
    a: &EvalArgs,
    text: &str,
    ds: &Dataset,
    what: &str,
    images: Option<&pipeline::ImageData>,
) -> anyhow::Result<Verdicts> {
    if crate::io::ring_model::is_ring_model(text) {
        let (spec, predicted) = super::ring::predict(&a.model, ds, what)?;
        return Ok(Verdicts { spec, predicted, scores: None });
    }
    // Labels are class indices: data whose classes are named otherwise would be scored
    // against the wrong ones.
    let check_classes = |model_classes: &[String]| -> anyhow::Result<()> {
        if model_classes != ds.class_names.as_slice() {
            return Err(UsageError(format!(
                "{what}: classes {} do not match the model's {} ({})",
                ds.class_names.join(","),
                model_classes.join(","),
                a.model.display()
            ))
            .into());
        }
        Ok(())
    };
    if is_smooth_model(text) {
        let (model, classes) = read_smooth_model(&a.model)?;
        check_classes(&classes)?;
        let x = match images {
            Some(img) => Examples::from_images(&img.splits.test, img.class_names.len())
                .map_err(|e| UsageError(e.to_string()))?,
            None => Examples::from_dataset(ds).map_err(|e| UsageError(e.to_string()))?,
        };
        if x.shape != model.input_shape {
            return Err(UsageError(format!(
                "{what}: examples have shape {:?}, the model reads {:?}",
                x.shape, model.input_shape
            ))
            .into());
        }
        let scores = model.class_scores(&x);
        let predicted = model.predict_scores(&scores);
        return Ok(Verdicts { spec: model.spec, predicted, scores: Some(Scores::Outputs(scores)) });
    }
    let m = ModelFile::read(&a.model)?;
    check_classes(&m.class_names)?;
    let (net, params) = m.network(&a.model)?;
    let x = m
        .encoder
        .encode_within(ds, &memory_limit(a))
        .with_context(|| format!("encoding {what} for {}", a.model.display()))?;
    if x.rows() != net.circuit.n_args() {
        return Err(UsageError(format!(
            "{what} encodes to {} bits, the model {} has {} inputs",
            x.rows(),
            a.model.display(),
            net.circuit.n_args()
        ))
        .into());
    }
    let out = outputs(&net, &params, &x);
    let scores = a.predictions.is_some().then(|| Scores::Counts(score_outputs(&net, &out)));
    Ok(Verdicts { spec: m.spec, predicted: predict_outputs(&net, &out), scores })
}

/// Writes `v` on the examples `ds` to `path` as a tab-separated table, atomically.
fn write_predictions(path: &std::path::Path, ds: &Dataset, v: &Verdicts) -> std::io::Result<()> {
    let classes = ds.class_names.len();
    let class = |c: u32| if c == u32::MAX { String::new() } else { c.to_string() };
    crate::io::write_atomic_with(path, |w| {
        write!(w, "example\tlabel\tpredicted")?;
        if v.scores.is_some() {
            for name in &ds.class_names {
                // A tab or line break in a class name would break the table's columns.
                write!(w, "\tscore:{}", name.replace(['\t', '\n', '\r'], " "))?;
            }
        }
        writeln!(w)?;
        for (e, &p) in v.predicted.iter().enumerate() {
            let label = ds.labels.get(e).map_or_else(String::new, |&l| l.to_string());
            write!(w, "{e}\t{label}\t{}", class(p))?;
            if let Some(s) = &v.scores {
                for c in 0..classes {
                    write!(w, "\t{}", s.cell(e * classes + c))?;
                }
            }
            writeln!(w)?;
        }
        Ok(())
    })
}

fn report(a: &EvalArgs, spec: &str, what: &str, examples: usize, acc: Option<f64>) -> anyhow::Result<()> {
    if a.json {
        println!(
            "{}",
            serde_json::json!({"model": spec, "data": what, "split": format!("{:?}", a.split).to_lowercase(), "examples": examples, "accuracy": acc})
        );
    } else {
        let acc = acc.map_or_else(|| "n/a".to_owned(), |v| format!("{v:.4}"));
        println!("{}: accuracy {acc} on {examples} examples of {what}", a.model.display());
    }
    Ok(())
}

//! `circuitlearn train --domain smooth`: f32 tensor models (MLP, the small conv model)
//! trained by mini-batch gradient descent; writes `model.json` (its own format,
//! `"domain": "smooth"`) and `metrics.json`.

use super::common::{UsageError, progress, set_threads};
use super::images;
use super::train::{TrainArgs, split};
use crate::data;
use crate::io::write_atomic;
use crate::smooth::Tensor;
use crate::smooth::layers::{Init, ModelSpec, SmoothModel};
use crate::smooth::loss::LossKind;
use crate::smooth::optim::OptimizerSpec;
use crate::smooth::train::{Examples, TrainParams, accuracy, fit};
use anyhow::Context;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Version of the smooth `model.json` layout.
pub const SMOOTH_FORMAT_VERSION: u32 = 1;

/// What `metrics.json` holds for a smooth run.
#[derive(Debug, Serialize)]
struct SmoothMetrics {
    dataset: String,
    domain: &'static str,
    model: String,
    optimizer: String,
    /// Always `smooth` (see the Boolean `Metrics::training_path`).
    training_path: &'static str,
    loss: &'static str,
    lr: f32,
    epochs: usize,
    batch: usize,
    seed: u64,
    train_examples: usize,
    test_examples: usize,
    test_source: String,
    train_accuracy: f64,
    test_accuracy: f64,
    /// Gates of the model circuit (one per tensor operation).
    gates: usize,
    /// Not applicable: a smooth model has no AIG.
    and_nodes: Option<usize>,
    params: usize,
    /// Wall-clock seconds of training (all epochs).
    seconds: f64,
    /// Wall-clock seconds of each epoch's training steps.
    epoch_seconds: Vec<f64>,
    threads: usize,
}

/// One parameter tensor in `model.json`.
#[derive(Debug, Serialize)]
struct ParamTensor<'a> {
    shape: &'a [usize],
    data: &'a [f32],
}

/// The smooth `model.json`.
#[derive(Debug, Serialize)]
struct SmoothModelFile<'a> {
    format_version: u32,
    domain: &'static str,
    dataset: &'a str,
    spec: &'a str,
    seed: u64,
    input_shape: &'a [usize],
    class_names: &'a [String],
    params: Vec<ParamTensor<'a>>,
}

/// A smooth `model.json` as read back.
#[derive(Debug, Deserialize)]
struct SmoothModelFileOwned {
    format_version: u32,
    spec: String,
    seed: u64,
    input_shape: Vec<usize>,
    class_names: Vec<String>,
    params: Vec<ParamTensorOwned>,
}

#[derive(Debug, Deserialize)]
struct ParamTensorOwned {
    shape: Vec<usize>,
    data: Vec<f32>,
}

/// Reads a smooth `model.json` back into a model with its trained parameters.
///
/// # Errors
/// An unreadable or malformed file, a newer format version, or parameters that do not fit
/// the spec (all exit 2, naming the file).
pub fn read_model(path: &Path) -> anyhow::Result<SmoothModel> {
    let bad = |what: String| UsageError(format!("{}: {what}", path.display()));
    let text = std::fs::read_to_string(path).map_err(|e| bad(format!("cannot read: {e}")))?;
    let f: SmoothModelFileOwned = serde_json::from_str(&text)
        .map_err(|e| bad(format!("line {}: not a smooth model file: {e}", e.line())))?;
    if f.format_version > SMOOTH_FORMAT_VERSION {
        return Err(bad(format!(
            "format version {} is newer than this build reads ({SMOOTH_FORMAT_VERSION})",
            f.format_version
        ))
        .into());
    }
    let spec: ModelSpec = f.spec.parse().map_err(|e| bad(format!("spec {}: {e}", f.spec)))?;
    let mut model = SmoothModel::from_spec(&spec, &f.input_shape, f.class_names.len(), Init::FanIn, f.seed)
        .map_err(|e| bad(format!("spec {}: {e}", f.spec)))?;
    if f.params.len() != model.params.len() {
        return Err(bad(format!(
            "{} parameter tensors, the spec needs {}",
            f.params.len(),
            model.params.len()
        ))
        .into());
    }
    for (i, (slot, t)) in model.params.iter_mut().zip(f.params).enumerate() {
        if t.shape != slot.shape() || t.data.len() != t.shape.iter().product::<usize>() {
            return Err(bad(format!(
                "parameter {i} has shape {:?}, the spec needs {:?}",
                t.shape,
                slot.shape()
            ))
            .into());
        }
        *slot = Tensor::new(t.shape, t.data);
    }
    Ok(model)
}

/// Accuracy of a smooth model on `data`: `fashion-mnist` or an IDX directory (its test
/// split), or a CSV file (every row).
///
/// # Errors
/// Bad data or data whose shape does not fit the model (exit 2).
pub fn eval_accuracy(model: &SmoothModel, data: &str) -> anyhow::Result<(f64, usize)> {
    let examples = match images::load(data, None)? {
        Some(img) => from_images(img)?.test,
        None => Examples::from_dataset(&data::load(data)?).map_err(UsageError)?,
    };
    if examples.shape != model.input_shape {
        return Err(UsageError(format!(
            "{data}: examples have shape {:?}, the model reads {:?}",
            examples.shape, model.input_shape
        ))
        .into());
    }
    Ok((accuracy(model, &examples), examples.len()))
}

/// Training and test examples, their class names, a name and where the test set came from.
struct Loaded {
    name: String,
    train: Examples,
    test: Examples,
    class_names: Vec<String>,
    test_source: String,
}

fn from_images(img: images::ImageData) -> anyhow::Result<Loaded> {
    let classes = img.class_names.len();
    Ok(Loaded {
        name: img.name,
        train: Examples::from_images(&img.splits.train, classes).map_err(UsageError)?,
        test: Examples::from_images(&img.splits.test, classes).map_err(UsageError)?,
        class_names: img.class_names,
        test_source: img.test_source,
    })
}

fn load(a: &TrainArgs) -> anyhow::Result<Loaded> {
    if let Some(img) = images::load(&a.data, a.test.as_deref())? {
        return from_images(img);
    }
    let ds = data::load(&a.data)?;
    let class_names = ds.class_names.clone();
    let (train, test, test_source) = split(a, ds)?;
    Ok(Loaded {
        name: train.name.clone(),
        train: Examples::from_dataset(&train).map_err(UsageError)?,
        test: Examples::from_dataset(&test).map_err(UsageError)?,
        class_names,
        test_source,
    })
}

/// Runs `train --domain smooth`.
///
/// # Errors
/// Bad data, spec or flags (exit 2); failure to write the outputs (exit 1).
pub fn run(a: &TrainArgs) -> anyhow::Result<()> {
    set_threads(a.threads);
    let loss = LossKind::parse(a.loss.as_deref().unwrap_or("softmax-ce")).map_err(UsageError)?;
    let opt_name = a.optimizer.as_deref().unwrap_or("adam");
    let default_lr = if opt_name == "adam" || opt_name == "adagrad" { 1e-3 } else { 0.01 };
    let lr = a.lr.map_or(default_lr, |v| v as f32);
    if !(lr.is_finite() && lr > 0.0) {
        return Err(UsageError(format!("--lr must be a positive number, got {lr}")).into());
    }
    let optimizer = OptimizerSpec::parse(opt_name, lr).map_err(UsageError)?;
    let batch = a.batch.unwrap_or(128);
    if batch == 0 {
        return Err(UsageError("--batch must be at least 1".into()).into());
    }
    let d = load(a)?;
    let spec_text = a.model.clone().unwrap_or_else(|| "mlp:256x128".to_owned());
    let spec: ModelSpec = spec_text.parse().map_err(UsageError)?;
    let mut model = SmoothModel::from_spec(&spec, &d.train.shape, d.class_names.len(), Init::FanIn, a.seed)
        .map_err(|e| UsageError(format!("--model {spec_text}: {e}")))?;
    let p = TrainParams {
        loss,
        optimizer,
        epochs: a.epoch_count(),
        batch,
        seed: a.seed,
        shuffle: true,
        max_steps: None,
    };
    let bar = progress(a.epoch_count() as u64, a.json, "train");
    let mut epoch_seconds = Vec::new();
    let t0 = Instant::now();
    fit(&mut model, &d.train, &p, |s| {
        epoch_seconds.push(s.seconds);
        bar.set_message(format!("{:.2}s/epoch", s.seconds));
        bar.inc(1);
    });
    let seconds = t0.elapsed().as_secs_f64();
    bar.finish_and_clear();
    let metrics = SmoothMetrics {
        dataset: d.name.clone(),
        domain: "smooth",
        model: spec_text.clone(),
        optimizer: optimizer.name.to_owned(),
        training_path: "smooth",
        loss: loss.name(),
        lr,
        epochs: a.epoch_count(),
        batch,
        seed: a.seed,
        train_examples: d.train.len(),
        test_examples: d.test.len(),
        test_source: d.test_source.clone(),
        train_accuracy: accuracy(&model, &d.train),
        test_accuracy: accuracy(&model, &d.test),
        gates: model.circuit.n_gates(),
        and_nodes: None,
        params: model.n_params(),
        seconds,
        epoch_seconds,
        threads: rayon::current_num_threads(),
    };
    let out = a.out.clone().unwrap_or_else(|| PathBuf::from("runs").join(&d.name));
    let file = SmoothModelFile {
        format_version: SMOOTH_FORMAT_VERSION,
        domain: "smooth",
        dataset: &d.name,
        spec: &spec_text,
        seed: a.seed,
        input_shape: &model.input_shape,
        class_names: &d.class_names,
        params: model
            .params
            .iter()
            .map(|t: &Tensor| ParamTensor { shape: t.shape(), data: t.data() })
            .collect(),
    };
    for (name, text) in [
        ("model.json", serde_json::to_string(&file)?),
        ("metrics.json", serde_json::to_string_pretty(&metrics)?),
    ] {
        let path = out.join(name);
        write_atomic(&path, format!("{text}\n").as_bytes())
            .with_context(|| format!("writing {}", path.display()))?;
    }
    if a.json {
        println!("{}", serde_json::to_string(&metrics)?);
    } else {
        println!(
            "{} on {}: train {:.4}, test {:.4} ({} test examples), {} params, {} epochs, {:.2}s ({:.2}s/epoch)",
            metrics.model,
            metrics.dataset,
            metrics.train_accuracy,
            metrics.test_accuracy,
            metrics.test_examples,
            metrics.params,
            metrics.epochs,
            seconds,
            seconds / a.epoch_count().max(1) as f64
        );
        println!("wrote {}/model.json and {}/metrics.json", out.display(), out.display());
    }
    Ok(())
}

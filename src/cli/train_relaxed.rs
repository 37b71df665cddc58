//! `circuitlearn train --domain smooth --model gates:WxD | lut:K:WxD`: relaxed-logic
//! training, then discretisation into the Boolean LUT network of the same wiring, written
//! as an ordinary `model.json` (so `eval`, `export` and `verify` read it unchanged) and
//! checked in Icarus like any trained circuit.

use super::common::{UsageError, progress, set_threads, write_json_file};
use super::export::export_trained;
use super::train::{Metrics, TrainArgs, TrainData, encoding_text, load, parse_encoding, passes_text};
use crate::aig::{Aig, LowerParams};
use crate::data::Encoder;
use crate::io::ModelFile;
use crate::io::model_file::{FORMAT_VERSION, params_to_hex};
use crate::learn::head::accuracy;
use crate::learn::relaxed::{self, Relaxation, RelaxedNet, RelaxedParams, RelaxedSpec};
use crate::learn::trainer::predict;
use crate::pass;
use anyhow::Context;
use serde::Serialize;
use std::path::PathBuf;
use std::time::Instant;

/// Whether `--model` names a relaxed-logic model (`gates:...` or `lut:...`).
#[must_use]
pub fn is_relaxed_model(spec: &str) -> bool {
    spec.starts_with("gates:") || spec.starts_with("lut:")
}

/// `metrics.json` of a relaxed run: the common fields (accuracies of the discretised
/// circuit) plus the relaxed network's own accuracies and settings.
#[derive(Debug, Serialize)]
struct RelaxedMetrics {
    #[serde(flatten)]
    common: Metrics,
    /// The relaxed model spec as given (the discrete one is `discrete_model`).
    relaxed_model: String,
    /// The Boolean network the relaxed one was discretised into (`model.json`'s spec).
    discrete_model: String,
    /// Accuracy of the relaxed (smooth) network before discretisation.
    relaxed_train_accuracy: f64,
    /// Same, test examples.
    relaxed_test_accuracy: f64,
    /// Candidate input bits per first-layer gate input (1: random wiring, else learned).
    input_candidates: usize,
    /// Rows and columns around a gate's centre pixel its candidates come from (none: the
    /// whole image or input).
    input_radius: Option<usize>,
    /// Nodes whose discretised output reaches a class output through inputs it depends on.
    live_gates: usize,
    /// Training settings (epochs, batch, Adam rate, GroupSum temperature, seed, residual init).
    relaxed: RelaxedParams,
    /// Cross-entropy per epoch.
    loss_history: Vec<f64>,
}

/// Checks the flags that shape a learned input choice: they need `--input-candidates`
/// of 2 or more, and `--narrow-after` needs `--narrow-candidates`.
fn check_choice_flags(a: &TrainArgs, candidates: usize) -> Result<(), UsageError> {
    let given = [
        ("--input-radius", a.input_radius.is_some()),
        ("--narrow-candidates", a.narrow_candidates.is_some()),
        ("--narrow-after", a.narrow_after.is_some()),
    ];
    if candidates <= 1
        && let Some((flag, _)) = given.iter().find(|(_, given)| *given)
    {
        return Err(UsageError(format!("{flag} applies with --input-candidates 2 or more")));
    }
    if a.narrow_candidates == Some(0) || a.narrow_after == Some(0) {
        return Err(UsageError("--narrow-candidates and --narrow-after take 1 or more".into()));
    }
    if a.narrow_after.is_some() && a.narrow_candidates.is_none() {
        return Err(UsageError("--narrow-after needs --narrow-candidates K".into()));
    }
    Ok(())
}

/// Runs relaxed training for `train`.
///
/// # Errors
/// Bad data, spec or flags (exit 2); failure to write the outputs (exit 1).
pub fn run(a: &TrainArgs) -> anyhow::Result<()> {
    if a.optimizer.as_deref().is_some_and(|o| o != "adam") {
        return Err(UsageError("--domain smooth relaxed models train with --optimizer adam".into()).into());
    }
    if a.checkpoint_every > 0 {
        return Err(UsageError(
            "--checkpoint-every: relaxed training writes no checkpoints yet (Boolean RDA does)".into(),
        )
        .into());
    }
    let candidates = a.input_candidates.unwrap_or(1);
    check_choice_flags(a, candidates)?;
    set_threads(a.threads);
    let TrainData { train, test, test_source, grid } = load(a)?;
    let n_classes = train.n_classes();
    let encoding = parse_encoding(encoding_text(a))?;
    let encoder = Encoder::fit(&encoding, &train)?;
    let x_train = encoder.encode(&train)?;
    let x_test = encoder.encode(&test).with_context(|| format!("encoding test data {test_source}"))?;
    let spec_text = a.model.clone().unwrap_or_default();
    let spec = RelaxedSpec::parse(&spec_text, n_classes)?;
    if a.hard_gate_epochs.is_some_and(|n| n > 0) && spec.relaxation != Relaxation::Gates {
        return Err(
            UsageError(format!("--hard-gate-epochs applies to gate models (gates:WxD), not {spec}")).into()
        );
    }
    let net = RelaxedNet::build(spec, encoder.n_bits(), n_classes, a.seed)?;
    let net = match (a.input_radius, grid) {
        (None, _) => net.with_input_choice(candidates, a.seed),
        (Some(r), Some(grid)) => net.with_local_input_choice(candidates, a.seed, grid, r)?,
        (Some(_), None) => {
            let why = format!(
                "--input-radius applies to image data (fashion-mnist, an IDX directory), not {}",
                a.data
            );
            return Err(UsageError(why).into());
        }
    };
    let defaults = RelaxedParams::default();
    let p = RelaxedParams {
        epochs: a.epoch_count(),
        batch: a.batch.unwrap_or(defaults.batch),
        lr: a.lr.map_or(defaults.lr, |v| v as f32),
        tau: a.tau.map_or_else(|| default_tau(&net), |v| v as f32),
        seed: a.seed,
        residual: a.residual.unwrap_or(0.0) as f32,
        hard_choice_epochs: a.hard_choice_epochs.unwrap_or(usize::from(candidates > 1)),
        hard_gate_epochs: a.hard_gate_epochs.unwrap_or(0),
        narrow_after: a.narrow_after.unwrap_or(1),
        narrow_to: a.narrow_candidates.unwrap_or(0),
        cosine: match a.lr_schedule.as_deref() {
            None | Some("constant") => false,
            Some("cosine") => true,
            Some(o) => {
                return Err(
                    UsageError(format!("unknown --lr-schedule '{o}'; expected constant or cosine")).into()
                );
            }
        },
    };
    let bar = progress(a.epoch_count() as u64, a.json, "train");
    let t0 = Instant::now();
    let report = relaxed::train(&net, &x_train, &train.labels, &p, |s, _| {
        bar.set_message(format!("loss {:.4}, running acc {:.3}", s.loss, s.running_accuracy));
        bar.inc(1);
    });
    let seconds = t0.elapsed().as_secs_f64();
    bar.finish_and_clear();
    let params = net.discretise(&report.logits);
    let network = &net.discrete_network(&report.logits);
    let hard = |x, labels| accuracy(&predict(network, &params, x), labels);
    let soft = |x, labels| accuracy(&net.soft_predict(&report.logits, x), labels);
    let lower = LowerParams { exact_inputs: a.exact_inputs, exact_max_nodes: 12 };
    let classifier = network.classifier();
    let lowered = Aig::from_circuit_with(&classifier, Some(&params), &lower);
    let script = pass::parse_script(passes_text(a), &pass::PassContext { care: Some(x_train.clone()) })?;
    if script.iter().any(|s| !s.preserves_function()) {
        return Err(
            UsageError("--passes: relaxed training takes function-preserving passes only".into()).into()
        );
    }
    let (aig, pass_stats) = pass::run_script(&lowered, &script, a.check)?;
    let out = a.out.clone().unwrap_or_else(|| PathBuf::from("runs").join(&train.name));
    let name = out.file_name().map_or_else(|| train.name.clone(), |n| n.to_string_lossy().into_owned());
    let hw = export_trained(
        &name,
        &classifier,
        &params,
        (&x_train, &x_test),
        "verilog-out".as_ref(),
        "testbenches".as_ref(),
    )?;
    let metrics = RelaxedMetrics {
        common: Metrics {
            dataset: train.name.clone(),
            domain: "smooth".into(),
            model: spec.to_string(),
            optimizer: "adam".into(),
            training_path: "relaxed".into(),
            epochs: report.history.len(),
            stop: format!("{:?}", report.stop),
            seed: a.seed,
            encoding: encoding_text(a).to_owned(),
            input_bits: encoder.n_bits(),
            train_examples: train.n_examples(),
            test_examples: test.n_examples(),
            test_source,
            train_accuracy: hard(&x_train, &train.labels),
            test_accuracy: hard(&x_test, &test.labels),
            gates: net.n_nodes(),
            and_nodes: aig.n_ands(),
            passes: pass_stats,
            accuracy_after_passes: None,
            params: net.n_logits(),
            seconds,
            threads: rayon::current_num_threads(),
            icarus: hw.icarus.clone(),
        },
        relaxed_model: spec.to_string(),
        discrete_model: spec.discrete.to_string(),
        relaxed_train_accuracy: soft(&x_train, &train.labels),
        relaxed_test_accuracy: soft(&x_test, &test.labels),
        input_candidates: net.input_candidates(),
        input_radius: a.input_radius,
        live_gates: net.live_nodes(&report.logits),
        relaxed: p,
        loss_history: report.history.iter().map(|h| h.loss).collect(),
    };
    let model = ModelFile {
        format_version: FORMAT_VERSION,
        dataset: train.name.clone(),
        spec: spec.discrete.to_string(),
        seed: a.seed,
        n_inputs: encoder.n_bits(),
        class_names: train.class_names.clone(),
        encoder,
        optimizer: "relaxed-adam".into(),
        params: params_to_hex(&params),
        learned_wiring: net.learned_wiring(&report.logits),
    };
    model.write(&out.join("model.json"))?;
    write_json_file(&out.join("metrics.json"), &metrics)?;
    if a.json {
        println!("{}", serde_json::to_string(&metrics)?);
    } else {
        let c = &metrics.common;
        println!(
            "{} on {}: relaxed train {:.4} test {:.4}; discretised train {:.4} test {:.4}; {} gates ({} live), {} AIG ANDs (whole classifier), {} epochs, {:.2}s",
            c.model,
            c.dataset,
            metrics.relaxed_train_accuracy,
            metrics.relaxed_test_accuracy,
            c.train_accuracy,
            c.test_accuracy,
            c.gates,
            metrics.live_gates,
            c.and_nodes,
            c.epochs,
            seconds
        );
        println!(
            "wrote {}/model.json (as {}) and {}/metrics.json",
            out.display(),
            metrics.discrete_model,
            out.display()
        );
        println!("{}", hw.summary);
    }
    hw.check()
}

/// GroupSum temperature when `--tau` is not given: the square root of the group size, so
/// that a group's score spread stays about one logit unit per standard deviation.
fn default_tau(net: &RelaxedNet) -> f32 {
    let outputs = net.network.circuit.n_outputs();
    ((outputs / net.network.n_classes) as f32).sqrt()
}

//! The `--domain poly` stages: encode the features into the ring, train the ring model
//! with the engine's [`RingRule`] (per-example fixed-point descent, a fresh order every
//! epoch, checkpoints and resume as every rule) or, with `--batch B > 1`,
//! [`RingBatchRule`] (the mean change of `B` examples, bit-sliced where that is faster), and synthesise the bit-blasted
//! classifier (the scores circuit in the ring, parameters bound) as the AIG whose AND
//! nodes `metrics.json` counts.

use super::config::PolyConfig;
use super::run::{Checkpointing, EpochProgress, Synthesis, TrainedModel, run_rule};
use super::{PipelineError, TrainConfig, TrainData};
use crate::aig::Aig;
use crate::domain::blast_ring::bit_blast_ring;
use crate::learn::ring_model::{FeatureCoding, RingModel, n_features};
use crate::pass::PassContext;
use crate::train::{RingBatchRule, RingLanes, RingRule, StopReason, Trainer};
use std::path::Path;

/// What a poly run trains and what it trained.
pub(super) fn train_poly(
    cfg: &TrainConfig,
    p: &PolyConfig,
    data: &TrainData,
    trainer: &Trainer,
    ckpt: &Checkpointing,
    resume: Option<&Path>,
    on_epoch: &mut dyn FnMut(&EpochProgress),
) -> Result<(TrainedModel, StopReason, Vec<f64>), PipelineError> {
    let (train, test) = (&data.train, &data.test);
    let coding = FeatureCoding::fit(train, p.frac_bits);
    let invalid = |e: crate::learn::ring_model::RingModelError| PipelineError::Invalid(e.to_string());
    let x_train = coding.encode(train, p.ring, &cfg.data).map_err(invalid)?;
    let x_test = coding.encode(test, p.ring, &data.test_source).map_err(invalid)?;
    let n = n_features(train);
    let c = train.class_names.len().max(train.n_classes());
    let mut model = RingModel::init(p.spec, p.ring, p.frac_bits, n, c, cfg.seed);
    // The step circuit, the model, a few copies of the examples: 64 bytes a gate or value.
    let step = model.step_circuit(p.lr_fixed).map_err(|e| PipelineError::Invalid(e.to_string()))?;
    let need = (step.n_gates() as u64 + (x_train.len() * (n + 1 + c)) as u64) * 64;
    let limit = crate::data::MemoryLimit::given_or_available(cfg.max_memory);
    limit.check(&cfg.data, &format!("training {} in {}", p.spec, p.ring), Some(need))?;
    let xs = model.with_bias(&x_train);
    let ys = model.targets(&train.labels);
    let order: Vec<usize> = (0..xs.len()).collect();
    let report = if p.batch <= 1 {
        let mut rule =
            RingRule::new(&step, model.params.clone(), &xs, &ys, order).in_ring(p.ring).shuffled(true);
        let report = run_rule(trainer, &mut rule, ckpt, resume, on_epoch)?;
        model.params = rule.into_params();
        report
    } else {
        let (changes, update) =
            model.descent_circuits(p.lr_fixed).map_err(|e| PipelineError::Invalid(e.to_string()))?;
        let lanes = RingLanes::auto(p.ring, p.batch);
        let mut rule =
            RingBatchRule::new((&changes, &update), p.ring, model.params.clone(), (&xs, &ys), p.batch, lanes);
        let report = run_rule(trainer, &mut rule, ckpt, resume, on_epoch)?;
        model.params = rule.into_params();
        report
    };
    Ok((TrainedModel::Poly { model, coding, x_train, x_test }, report.stop, report.epoch_seconds))
}

/// The bit-blasted classifier after the pass script.
pub(super) fn synthesize_poly(cfg: &TrainConfig, model: &RingModel) -> Result<Synthesis, PipelineError> {
    let blasted = bit_blast_ring(&model.classifier(), model.ring);
    let lowered = Aig::from_circuit(&blasted, None);
    let (aig, passes, budget, _) = super::run::run_synth_script(cfg, &lowered, &PassContext::default())?;
    Ok(Synthesis { and_nodes_before: lowered.n_ands(), aig, passes, accuracy_after_passes: None, budget })
}

/// The fields of `metrics.json` a poly run has besides the common ones.
pub(super) fn poly_metrics(
    cfg: &TrainConfig,
    model: &RingModel,
    epochs: usize,
    stop: &str,
) -> serde_json::Value {
    let (lr, batch) = match &cfg.model {
        super::ModelConfig::Poly(p) => (Some((p.lr, p.lr_fixed)), p.batch),
        _ => (None, 1),
    };
    let path = if batch <= 1 { "ring-descent" } else { RingLanes::auto(model.ring, batch).name() };
    serde_json::json!({
        "domain": "poly",
        "model": model.spec.to_string(),
        "ring": model.ring.to_string(),
        "word_bits": model.ring.width(),
        "frac_bits": model.frac_bits,
        "optimizer": "gd",
        "loss": "displacement",
        "training_path": path,
        "batch": batch,
        "lr": lr.map(|l| l.0),
        "lr_fixed": lr.map(|l| l.1),
        "epochs": epochs,
        "stop": stop,
        "seed": cfg.seed,
        "features": model.n_features,
        "input_bits": model.n_features * model.ring.width(),
        "gates": model.classifier().n_gates(),
        "params": model.params.len(),
    })
}

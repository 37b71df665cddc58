//! Smooth models as a [`Rule`]: mini-batch gradient descent on f32 tensor models
//! ([`SmoothModel`]) through the learner's parameter-change circuit, one optimiser
//! (SGD, momentum, Nesterov, AdaGrad, Adam) per parameter tensor; plus the numeric-optics
//! Iris experiments (`repro numeric-optics-iris`).

use super::gradient_sum::batch_gradients;
use super::{Blob, CheckpointError, Order, Rule, RuleState, Trainer};
use crate::smooth::examples::Examples;
use crate::smooth::layers::{SmoothModel, SmoothSpec, WeightInit};
use crate::smooth::loss::{LossKind, learner};
use crate::smooth::optim::{Optimizer, OptimizerSpec, OptimizerState};
use crate::smooth::{SmoothCircuit, Tensor, eval_tensors, parameter_changes};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// How to train a smooth model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SmoothParams {
    /// Loss.
    pub loss: LossKind,
    /// Optimiser (one instance per parameter tensor).
    pub optimizer: OptimizerSpec,
    /// Examples per step.
    pub batch: usize,
    /// Visit examples in a fresh random order each epoch.
    pub shuffle: bool,
    /// Stop after this many steps in all (`None`: run every epoch to its end).
    pub max_steps: Option<usize>,
}

/// One epoch of smooth training.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SmoothEpoch {
    /// Epoch number, from 1.
    pub epoch: usize,
    /// Optimiser steps taken so far.
    pub steps: usize,
}

/// The learner's parameter-change circuit for `model` under `loss` (learning rate 1: it
/// returns `∂L/∂p`).
#[must_use]
pub fn gradient_circuit(model: &SmoothModel, loss: LossKind) -> SmoothCircuit {
    let lens = learner(&model.circuit, &loss.lens(), 1.0).expect("a smooth model has one output");
    parameter_changes(&lens, model.params.len())
}

/// Training examples a progress line's loss and accuracy are measured on, at most.
pub const DESCRIBE_SAMPLE: usize = 4096;

/// Gradient descent on a [`SmoothModel`] (trained in place) over `data`.
pub struct SmoothRule<'a> {
    model: &'a mut SmoothModel,
    data: &'a Examples,
    p: SmoothParams,
    grad: SmoothCircuit,
    opts: Vec<Box<dyn Optimizer>>,
    steps: usize,
}

impl<'a> SmoothRule<'a> {
    /// The rule for `model` (its parameters are the initial ones) on `data`.
    #[must_use]
    pub fn new(model: &'a mut SmoothModel, data: &'a Examples, p: SmoothParams) -> Self {
        let grad = gradient_circuit(model, p.loss);
        let opts = model.params.iter().map(|_| p.optimizer.build()).collect();
        Self { model, data, p, grad, opts, steps: 0 }
    }

    /// The model as it stands.
    #[must_use]
    pub fn model(&self) -> &SmoothModel {
        self.model
    }

    /// One step on the examples `rows`: evaluate the gradient circuit at the optimisers'
    /// look-ahead points (chunk by chunk, summed exactly: [`batch_gradients`]), then let
    /// each optimiser update its tensor.
    fn step(&mut self, rows: &[usize]) {
        let model = &mut *self.model;
        let ahead: Vec<Option<Tensor>> = model
            .params
            .iter()
            .zip(self.opts.iter())
            .map(|(t, o)| o.lookahead(t.data()).map(|d| Tensor::new(t.shape().to_vec(), d)))
            .collect();
        let at: Vec<&Tensor> =
            model.params.iter().zip(&ahead).map(|(t, a)| a.as_ref().unwrap_or(t)).collect();
        let (grad, data) = (&self.grad, self.data);
        let (grads, _) = batch_gradients(&model.params, rows.len(), 0, |part| {
            let (x, y) = data.batch(&rows[part]);
            let ins: Vec<&Tensor> = at.iter().copied().chain([&x, &y]).collect();
            (eval_tensors(grad, &ins), Vec::new())
        });
        for ((t, g), o) in model.params.iter_mut().zip(&grads).zip(self.opts.iter_mut()) {
            o.step(t.data_mut(), g.data());
        }
    }
}

impl Rule for SmoothRule<'_> {
    type Epoch = SmoothEpoch;

    fn name(&self) -> String {
        format!("smooth-{}", self.p.optimizer.name)
    }

    fn n_examples(&self) -> usize {
        self.data.len()
    }

    fn order(&self) -> Order {
        if self.p.shuffle { Order::Carried } else { Order::Fixed((0..self.data.len()).collect()) }
    }

    fn init(&mut self, _rng: &mut ChaCha8Rng) {}

    fn epoch(&mut self, epoch: usize, _epochs: usize, order: &[usize], _rng: &mut ChaCha8Rng) -> SmoothEpoch {
        for rows in order.chunks(self.p.batch.max(1)) {
            if self.p.max_steps.is_some_and(|m| self.steps >= m) {
                break;
            }
            self.step(rows);
            self.steps += 1;
        }
        SmoothEpoch { epoch, steps: self.steps }
    }

    /// Steps so far, and the model's loss and accuracy on the training data (on evenly
    /// spaced examples of it when there are more than `DESCRIBE_SAMPLE`).
    fn describe(&self, e: &SmoothEpoch) -> String {
        let n = self.data.len();
        let k = n.min(DESCRIBE_SAMPLE);
        let rows: Vec<usize> = (0..k).map(|i| i * n / k.max(1)).collect();
        let (loss, acc) = self.model.loss_and_accuracy(self.data, &rows, self.p.loss);
        let of = if k < n { format!(" on {k} of {n} training examples") } else { String::new() };
        format!("{} steps, train loss {loss:.4}, accuracy {acc:.3}{of}", e.steps)
    }

    fn save(&self) -> RuleState {
        let mut s = RuleState::default();
        s.set("steps", &self.steps);
        let mut opt_steps = Vec::new();
        let mut opt_vectors = Vec::new();
        for (i, (t, o)) in self.model.params.iter().zip(&self.opts).enumerate() {
            s.put(&format!("param{i}"), Blob::F32(t.data().to_vec()));
            let state = o.save();
            opt_steps.push(state.steps);
            opt_vectors.push(state.vectors.len());
            for (j, v) in state.vectors.into_iter().enumerate() {
                s.put(&format!("opt{i}.{j}"), Blob::F32(v));
            }
        }
        s.set("opt_steps", &opt_steps);
        s.set("opt_vectors", &opt_vectors);
        s
    }

    fn restore(&mut self, mut s: RuleState) -> Result<(), CheckpointError> {
        self.steps = s.get("steps")?;
        let opt_steps: Vec<u32> = s.get("opt_steps")?;
        let opt_vectors: Vec<usize> = s.get("opt_vectors")?;
        let n = self.model.params.len();
        if opt_steps.len() != n || opt_vectors.len() != n {
            return Err(CheckpointError::Mismatch(format!(
                "optimiser states for {} tensors, the model has {n}",
                opt_steps.len()
            )));
        }
        for i in 0..n {
            let len = self.model.params[i].data().len();
            let data = s.take_f32(&format!("param{i}"), Some(len))?;
            self.model.params[i].data_mut().copy_from_slice(&data);
            let mut vectors = Vec::with_capacity(opt_vectors[i]);
            for j in 0..opt_vectors[i] {
                let v = s.take_f32(&format!("opt{i}.{j}"), None)?;
                if !(v.is_empty() || v.len() == len) {
                    return Err(CheckpointError::Mismatch(format!(
                        "optimiser state {i}.{j} does not fit its tensor"
                    )));
                }
                vectors.push(v);
            }
            self.opts[i]
                .restore(OptimizerState { steps: opt_steps[i], vectors })
                .map_err(|e| CheckpointError::Mismatch(e.to_string()))?;
        }
        Ok(())
    }
}

/// The training accuracies of the three numeric-optics Iris models.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IrisAccuracies {
    /// `linear` (4 -> 3, no bias).
    pub linear: f64,
    /// `dense` (4 -> 3, sigmoid).
    pub dense: f64,
    /// `hidden:20` (4 -> 20 -> 3, sigmoid).
    pub hidden: f64,
}

/// The numeric-optics Iris experiments: raw features, one-hot labels, weights from
/// `N(0, 0.01)` and zero biases, MSE, plain gradient descent with learning rate 0.01,
/// batch 1, epochs in a fresh random order each; accuracy is argmax (first on ties) on
/// the training rows. Like the experiment's script, which reports the accuracy it
/// measured at the first step of the last epoch, training stops after the first step of
/// epoch `epochs` (400 in the experiment; lower for quick checks).
///
/// # Panics
/// If `iris` is not 4-feature, 3-class data (a caller bug: the built-in set is).
#[must_use]
pub fn numeric_optics_iris(iris: &Examples, epochs: usize, seed: u64) -> IrisAccuracies {
    let run = |spec: &str, salt: u64| {
        let spec: SmoothSpec = spec.parse().expect("built-in spec");
        let mut m =
            SmoothModel::from_spec(&spec, &iris.shape, iris.classes, WeightInit::Normal(0.01), seed ^ salt)
                .expect("iris models fit iris data");
        let p = SmoothParams {
            loss: LossKind::Mse,
            optimizer: OptimizerSpec { name: "sgd", lr: 0.01 },
            batch: 1,
            shuffle: true,
            max_steps: Some((epochs.max(1) - 1) * iris.len() + 1),
        };
        let mut rule = SmoothRule::new(&mut m, iris, p);
        Trainer::new().epochs(epochs).seed(seed ^ salt).run(&mut rule, None, |_| {}).expect("a fresh start");
        m.accuracy(iris)
    };
    IrisAccuracies { linear: run("linear", 1), dense: run("dense", 2), hidden: run("hidden:20", 3) }
}

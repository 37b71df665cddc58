//! Training smooth models: labelled f32 examples, mini-batch gradient descent through the
//! learner's parameter-change circuit, and accuracy; plus the numeric-optics Iris
//! experiments (`repro numeric-optics-iris`).

use super::layers::{Init, ModelSpec, SmoothModel};
use super::loss::{LossKind, learner};
use super::optim::{Optimizer, OptimizerSpec};
use super::{SmoothCircuit, Tensor, eval, parameter_changes};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

/// Labelled examples for a smooth model: row-major features and class labels.
#[derive(Clone, Debug, PartialEq)]
pub struct Examples {
    /// Shape of one example (e.g. `[4]`, `[1, 28, 28]`).
    pub shape: Vec<usize>,
    /// `n * prod(shape)` values.
    pub x: Vec<f32>,
    /// One class per example.
    pub labels: Vec<u32>,
    /// Number of classes.
    pub classes: usize,
}

impl Examples {
    /// Number of examples.
    #[must_use]
    pub fn len(&self) -> usize {
        self.labels.len()
    }

    /// Whether there are no examples.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }

    /// Numeric features of a data set as f32 vectors.
    ///
    /// # Errors
    /// A message if the data set has Boolean (PLA) features.
    pub fn from_dataset(d: &crate::data::Dataset) -> Result<Self, String> {
        let crate::data::Features::Real { n_features, values, .. } = &d.features else {
            return Err(format!("{}: the smooth domain needs numeric features, not bits", d.name));
        };
        Ok(Self {
            shape: vec![*n_features],
            x: values.iter().map(|&v| v as f32).collect(),
            labels: d.labels.clone(),
            classes: d.n_classes(),
        })
    }

    /// Images scaled to `[0, 1]`, each of shape `[1, rows, cols]`, with `classes` classes.
    ///
    /// # Errors
    /// A message if a label is not below `classes`.
    pub fn from_images(d: &crate::data::idx::LabelledImages, classes: usize) -> Result<Self, String> {
        if let Some(&l) = d.labels.iter().find(|&&l| usize::from(l) >= classes) {
            return Err(format!("label {l} but only {classes} classes"));
        }
        Ok(Self {
            shape: vec![1, d.images.rows, d.images.cols],
            x: d.images.pixels.iter().map(|&p| f32::from(p) / 255.0).collect(),
            labels: d.labels.iter().map(|&l| u32::from(l)).collect(),
            classes,
        })
    }

    fn width(&self) -> usize {
        self.shape.iter().product()
    }

    /// The batch `[rows.len(), shape...]` and its one-hot targets `[rows.len(), classes]`.
    #[must_use]
    pub fn batch(&self, rows: &[usize]) -> (Tensor, Tensor) {
        let w = self.width();
        let mut x = Vec::with_capacity(rows.len() * w);
        let mut y = vec![0.0; rows.len() * self.classes];
        for (i, &r) in rows.iter().enumerate() {
            x.extend_from_slice(&self.x[r * w..(r + 1) * w]);
            y[i * self.classes + self.labels[r] as usize] = 1.0;
        }
        let shape = std::iter::once(rows.len()).chain(self.shape.iter().copied()).collect();
        (Tensor::new(shape, x), Tensor::new(vec![rows.len(), self.classes], y))
    }
}

/// How to train.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrainParams {
    /// Loss.
    pub loss: LossKind,
    /// Optimiser (one instance per parameter tensor).
    pub optimizer: OptimizerSpec,
    /// Passes over the data.
    pub epochs: usize,
    /// Examples per step.
    pub batch: usize,
    /// Seed of the shuffles.
    pub seed: u64,
    /// Visit examples in a fresh random order each epoch.
    pub shuffle: bool,
    /// Stop after this many steps in all (`None`: run every epoch to its end).
    pub max_steps: Option<usize>,
}

/// What one epoch did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EpochStats {
    /// 1-based epoch number.
    pub epoch: usize,
    /// Wall time of the epoch's training steps, seconds.
    pub seconds: f64,
}

/// The learner's parameter-change circuit for `model` under `loss` (learning rate 1: it
/// returns `∂L/∂p`).
#[must_use]
pub fn gradient_circuit(model: &SmoothModel, loss: LossKind) -> SmoothCircuit {
    let lens = learner(&model.circuit, &loss.lens(), 1.0).expect("a smooth model has one output");
    parameter_changes(&lens, model.params.len())
}

/// Trains `model` in place; `on_epoch` sees each epoch's stats.
pub fn fit(model: &mut SmoothModel, data: &Examples, p: &TrainParams, mut on_epoch: impl FnMut(EpochStats)) {
    let grad = gradient_circuit(model, p.loss);
    let mut opts: Vec<Box<dyn Optimizer>> = model.params.iter().map(|_| p.optimizer.build()).collect();
    let mut rng = ChaCha8Rng::seed_from_u64(p.seed);
    let mut order: Vec<usize> = (0..data.len()).collect();
    let mut steps = 0;
    for epoch in 1..=p.epochs {
        let t0 = std::time::Instant::now();
        if p.shuffle {
            order.shuffle(&mut rng);
        }
        for rows in order.chunks(p.batch.max(1)) {
            if p.max_steps.is_some_and(|m| steps >= m) {
                break;
            }
            let (x, y) = data.batch(rows);
            step(model, &grad, &mut opts, &x, &y);
            steps += 1;
        }
        on_epoch(EpochStats { epoch, seconds: t0.elapsed().as_secs_f64() });
    }
}

/// One step: evaluate the gradient circuit at the optimisers' look-ahead points, then let
/// each optimiser update its tensor.
fn step(
    model: &mut SmoothModel,
    grad: &SmoothCircuit,
    opts: &mut [Box<dyn Optimizer>],
    x: &Tensor,
    y: &Tensor,
) {
    let ahead: Vec<Option<Tensor>> = model
        .params
        .iter()
        .zip(opts.iter())
        .map(|(t, o)| o.lookahead(t.data()).map(|d| Tensor::new(t.shape().to_vec(), d)))
        .collect();
    let mut ins: Vec<&Tensor> =
        model.params.iter().zip(&ahead).map(|(t, a)| a.as_ref().unwrap_or(t)).collect();
    ins.push(x);
    ins.push(y);
    let grads = eval(grad, &ins);
    for ((t, g), o) in model.params.iter_mut().zip(&grads).zip(opts.iter_mut()) {
        o.step(t.data_mut(), g.data());
    }
}

/// Predicted class of every example (argmax of the outputs, first on ties), in batches.
#[must_use]
pub fn predict(model: &SmoothModel, data: &Examples) -> Vec<u32> {
    let rows: Vec<usize> = (0..data.len()).collect();
    let mut out = Vec::with_capacity(data.len());
    for chunk in rows.chunks(1000) {
        let (x, _) = data.batch(chunk);
        let y = model.forward(&x);
        for row in y.data().chunks(model.classes.max(1)) {
            let best = (0..row.len()).fold(0, |b, j| if row[j] > row[b] { j } else { b });
            out.push(best as u32);
        }
    }
    out
}

/// Fraction of examples whose predicted class is their label.
#[must_use]
pub fn accuracy(model: &SmoothModel, data: &Examples) -> f64 {
    if data.is_empty() {
        return 0.0;
    }
    let hits = predict(model, data).iter().zip(&data.labels).filter(|(p, l)| p == l).count();
    hits as f64 / data.len() as f64
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
        let spec: ModelSpec = spec.parse().expect("built-in spec");
        let mut m = SmoothModel::from_spec(&spec, &iris.shape, iris.classes, Init::Normal(0.01), seed ^ salt)
            .expect("iris models fit iris data");
        let p = TrainParams {
            loss: LossKind::Mse,
            optimizer: OptimizerSpec { name: "sgd", lr: 0.01 },
            epochs,
            batch: 1,
            seed: seed ^ salt,
            shuffle: true,
            max_steps: Some((epochs.max(1) - 1) * iris.len() + 1),
        };
        fit(&mut m, iris, &p, |_| {});
        accuracy(&m, iris)
    };
    IrisAccuracies { linear: run("linear", 1), dense: run("dense", 2), hidden: run("hidden:20", 3) }
}

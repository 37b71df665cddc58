//! Knowledge distillation for relaxed training: a smooth teacher (an f32 model such as
//! `cnn:16x32:128`) trained first on the same examples, whose softened class
//! probabilities become part of the relaxed network's targets
//! ([`RelaxedRule::with_soft_targets`](super::RelaxedRule::with_soft_targets)).
//! Hinton, Vinyals and Dean, *Distilling the Knowledge in a Neural Network* (2015).

use super::{SmoothParams, SmoothRule, Trainer};
use crate::learn::relaxed::argmax;
use crate::smooth::SmoothError;
use crate::smooth::examples::Examples;
use crate::smooth::layers::{SmoothModel, SmoothSpec, WeightInit};
use crate::smooth::loss::LossKind;
use crate::smooth::optim::OptimizerSpec;
use serde::{Deserialize, Serialize};

/// How the teacher is trained and how its answers are softened.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TeacherParams {
    /// The teacher's smooth model spec.
    pub spec: String,
    /// Its training epochs (Adam, batch 128, from `seed`).
    pub epochs: usize,
    /// Adam's rate.
    pub lr: f32,
    /// Softmax temperature of the teacher's logits: `softmax(z / T)`.
    pub temperature: f32,
    /// Seed of its initialisation and shuffling.
    pub seed: u64,
}

/// A trained teacher's answers on the training examples.
#[derive(Clone, Debug, PartialEq)]
pub struct TeacherTargets {
    /// One softened distribution over the classes per example, row-major.
    pub probs: Vec<f32>,
    /// The teacher's accuracy on those examples.
    pub train_accuracy: f64,
    /// Seconds spent training it and computing the targets.
    pub seconds: f64,
}

/// What a distilled run reports of its teacher (`metrics.json`'s `teacher`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TeacherReport {
    /// How it was trained.
    pub params: TeacherParams,
    /// The weight of its probabilities in each target.
    pub weight: f32,
    /// Its accuracy on the training examples.
    pub train_accuracy: f64,
    /// Seconds spent training it and computing the targets.
    pub seconds: f64,
}

/// Trains the teacher `p` on `train` and returns its softened class probabilities on
/// every example of `train`, in order; `on_epoch(epoch, epochs, figures)` sees the end of
/// each of its epochs.
///
/// # Errors
/// [`SmoothError`] when the spec does not parse or does not fit the examples.
pub fn teacher_targets(
    p: &TeacherParams,
    train: &Examples,
    mut on_epoch: impl FnMut(usize, usize, String),
) -> Result<TeacherTargets, SmoothError> {
    let start = std::time::Instant::now();
    let spec: SmoothSpec = p.spec.parse()?;
    let mut model = SmoothModel::from_spec(&spec, &train.shape, train.classes, WeightInit::FanIn, p.seed)?;
    let params = SmoothParams {
        loss: LossKind::SoftmaxCrossEntropy,
        optimizer: OptimizerSpec::parse("adam", p.lr)?,
        batch: 128,
        shuffle: true,
        max_steps: None,
    };
    let mut rule = SmoothRule::new(&mut model, train, params);
    Trainer::new()
        .epochs(p.epochs)
        .seed(p.seed)
        .run(&mut rule, None, |end| on_epoch(end.epoch(), end.epochs(), end.describe()))
        .expect("a fresh start has no checkpoint to mismatch");
    drop(rule);
    let classes = train.classes.max(1);
    let rows: Vec<usize> = (0..train.len()).collect();
    let mut probs = Vec::with_capacity(train.len() * classes);
    let mut hits = 0usize;
    for chunk in rows.chunks(1000) {
        let (x, _) = train.batch(chunk);
        let z = model.forward(&x);
        for (row, &r) in z.data().chunks(classes).zip(chunk) {
            let soft = softmax(row, p.temperature);
            hits += usize::from(argmax(row) as u32 == train.labels[r]);
            probs.extend(soft);
        }
    }
    Ok(TeacherTargets {
        probs,
        train_accuracy: hits as f64 / train.len().max(1) as f64,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// `softmax(z / t)`.
fn softmax(z: &[f32], t: f32) -> Vec<f32> {
    let m = z.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b));
    let e: Vec<f32> = z.iter().map(|&v| ((v - m) / t).exp()).collect();
    let s: f32 = e.iter().sum();
    e.into_iter().map(|v| v / s).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_temperature_softens_and_rows_sum_to_one() {
        let sharp = softmax(&[2.0, 0.0, -1.0], 1.0);
        let soft = softmax(&[2.0, 0.0, -1.0], 4.0);
        for p in [&sharp, &soft] {
            assert!((p.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        }
        assert!(soft[0] < sharp[0] && soft[2] > sharp[2], "{sharp:?} {soft:?}");
    }
}

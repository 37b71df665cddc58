//! Labelled f32 examples for smooth models, batches of them, and a model's predictions
//! and accuracy on them.

use super::layers::SmoothModel;
use super::{SmoothError, Tensor};

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
    pub fn from_dataset(d: &crate::data::Dataset) -> Result<Self, SmoothError> {
        let crate::data::Features::Real { n_features, values, .. } = &d.features else {
            return Err(SmoothError::Examples(format!(
                "{}: the smooth domain needs numeric features, not bits",
                d.name
            )));
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
    pub fn from_images(d: &crate::data::idx::LabelledImages, classes: usize) -> Result<Self, SmoothError> {
        if let Some(&l) = d.labels.iter().find(|&&l| usize::from(l) >= classes) {
            return Err(SmoothError::Examples(format!("label {l} but only {classes} classes")));
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

impl SmoothModel {
    /// Predicted class of every example (argmax of the outputs, first on ties), in batches.
    #[must_use]
    pub fn predict(&self, data: &Examples) -> Vec<u32> {
        self.predict_scores(&self.class_scores(data))
    }

    /// The class of each row of `scores` ([`SmoothModel::class_scores`]): the argmax,
    /// first on ties.
    #[must_use]
    pub fn predict_scores(&self, scores: &[f32]) -> Vec<u32> {
        scores
            .chunks(self.classes.max(1))
            .map(|row| (0..row.len()).fold(0, |b, j| if row[j] > row[b] { j } else { b }) as u32)
            .collect()
    }

    /// The model's outputs (class scores before any softmax) on every example,
    /// example-major (`scores[e * classes + c]`), in batches of 1,000.
    #[must_use]
    pub fn class_scores(&self, data: &Examples) -> Vec<f32> {
        let rows: Vec<usize> = (0..data.len()).collect();
        let mut out = Vec::with_capacity(data.len() * self.classes);
        for chunk in rows.chunks(1000) {
            let (x, _) = data.batch(chunk);
            out.extend_from_slice(self.forward(&x).data());
        }
        out
    }

    /// Mean loss and accuracy over the examples `rows` of `data` (0 and 0 for none), in
    /// batches of 1,000.
    #[must_use]
    pub fn loss_and_accuracy(
        &self,
        data: &Examples,
        rows: &[usize],
        loss: super::loss::LossKind,
    ) -> (f64, f64) {
        let map = loss.map();
        let (mut total, mut hits) = (0.0, 0usize);
        for chunk in rows.chunks(1000) {
            let (x, y) = data.batch(chunk);
            let yhat = self.forward(&x);
            let l = super::eval_tensors(&map, &[&yhat, &y]);
            total += f64::from(l[0].data().first().copied().unwrap_or(0.0)) * chunk.len() as f64;
            for (row, &r) in yhat.data().chunks(self.classes.max(1)).zip(chunk) {
                let best = (0..row.len()).fold(0, |b, j| if row[j] > row[b] { j } else { b });
                hits += usize::from(best as u32 == data.labels[r]);
            }
        }
        let n = rows.len().max(1) as f64;
        (total / n, hits as f64 / n)
    }

    /// Fraction of examples whose predicted class is their label.
    #[must_use]
    pub fn accuracy(&self, data: &Examples) -> f64 {
        if data.is_empty() {
            return 0.0;
        }
        let hits = self.predict(data).iter().zip(&data.labels).filter(|(p, l)| p == l).count();
        hits as f64 / data.len() as f64
    }
}

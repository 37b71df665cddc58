//! Smooth models from specs: layers (dense, bias, activations, 2D correlation,
//! max-pooling, flatten) composed into one `Circuit<SmoothOp>` with a parameter block
//! of weight tensors, and their initial values.
//!
//! Specs: `mlp:H1xH2...` (ReLU hidden layers, logits out), `conv` (the small
//! convolutional model of the numeric-optics experiments: 3 filters 3x3, ReLU, pool 2,
//! 5 filters 4x4, ReLU, pool 2, dense to the classes with sigmoid), `cnn:F1xF2:H` (a
//! LeNet-style classifier: `F1` filters 5x5, ReLU, pool 2, `F2` filters 5x5, ReLU, pool 2,
//! a ReLU dense layer of `H`, logits out; the teacher of distilled relaxed training), and
//! the Iris models of the numeric-optics experiments: `linear` (no bias), `dense`
//! (sigmoid) and `hidden:N`.

use super::{SmoothCircuit, SmoothError, SmoothOp, Tensor};
use crate::circuit::CircuitBuilder;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::fmt;

/// One layer of a smooth model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layer {
    /// `x W^T (+ b)` from `inputs` to `outputs` features.
    Dense {
        /// Input features.
        inputs: usize,
        /// Output features.
        outputs: usize,
        /// With a bias vector.
        bias: bool,
    },
    /// Valid stride-1 correlation with `filters` kernels of `size x size` over `channels`.
    Conv {
        /// Input channels.
        channels: usize,
        /// Output channels.
        filters: usize,
        /// Kernel side.
        size: usize,
    },
    /// Non-overlapping max-pooling.
    MaxPool(u8),
    /// `[B, ...] -> [B, n]`.
    Flatten,
    /// ReLU.
    Relu,
    /// Sigmoid.
    Sigmoid,
    /// Tanh.
    Tanh,
}

/// How initial weights are drawn (biases start at zero).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum WeightInit {
    /// Normal with mean 0 and this standard deviation (numeric-optics' `normal(0, 0.01)`).
    Normal(f32),
    /// Uniform in `±1/sqrt(fan_in)` (PyTorch's default for linear and conv layers).
    FanIn,
}

/// A parsed model spec.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SmoothSpec {
    text: String,
    kind: Kind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Kind {
    Mlp(Vec<usize>),
    Conv,
    /// Filters of the two 5x5 convolutions, then the hidden dense width.
    Cnn(usize, usize, usize),
    Linear,
    Dense,
    Hidden(usize),
}

impl fmt::Display for SmoothSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl std::str::FromStr for SmoothSpec {
    type Err = SmoothError;

    fn from_str(s: &str) -> Result<Self, SmoothError> {
        let bad = || SmoothError::Spec(s.to_owned());
        let sizes = |t: &str| -> Result<Vec<usize>, SmoothError> {
            t.split('x')
                .map(|n| n.parse::<usize>().ok().filter(|&v| (1..=1 << 16).contains(&v)).ok_or_else(bad))
                .collect()
        };
        let kind = match s.split_once(':') {
            Some(("mlp", h)) => Kind::Mlp(sizes(h)?),
            Some(("cnn", rest)) => {
                let (filters, hidden) = rest.split_once(':').ok_or_else(bad)?;
                match (sizes(filters)?.as_slice(), sizes(hidden)?.as_slice()) {
                    (&[f1, f2], &[h]) => Kind::Cnn(f1, f2, h),
                    _ => return Err(bad()),
                }
            }
            Some(("hidden", h)) => Kind::Hidden(sizes(h)?.first().copied().ok_or_else(bad)?),
            None if s == "mlp" => Kind::Mlp(Vec::new()),
            None if s == "conv" => Kind::Conv,
            None if s == "linear" => Kind::Linear,
            None if s == "dense" => Kind::Dense,
            _ => return Err(bad()),
        };
        Ok(Self { text: s.to_owned(), kind })
    }
}

impl SmoothSpec {
    /// The layers for inputs of `input_shape` (per example) and `classes` outputs.
    ///
    /// # Errors
    /// A message when the spec cannot take that input (e.g. `conv` on non-image data).
    pub fn layers(&self, input_shape: &[usize], classes: usize) -> Result<Vec<Layer>, SmoothError> {
        let width: usize = input_shape.iter().product();
        let dense = |i, o| Layer::Dense { inputs: i, outputs: o, bias: true };
        Ok(match &self.kind {
            &Kind::Cnn(f1, f2, hidden) => {
                let &[c, h, w] = input_shape else {
                    return Err(SmoothError::Shape(format!(
                        "model {self} needs image inputs [C, H, W], got {input_shape:?}"
                    )));
                };
                // Valid 5x5 correlations, each followed by a 2x2 pool.
                let side = |v: usize| (v.saturating_sub(4) / 2).saturating_sub(4) / 2;
                let (fh, fw) = (side(h), side(w));
                if fh == 0 || fw == 0 {
                    return Err(SmoothError::Shape(format!(
                        "model {self} needs images of at least 16x16, got {h}x{w}"
                    )));
                }
                vec![
                    Layer::Conv { channels: c, filters: f1, size: 5 },
                    Layer::Relu,
                    Layer::MaxPool(2),
                    Layer::Conv { channels: f1, filters: f2, size: 5 },
                    Layer::Relu,
                    Layer::MaxPool(2),
                    Layer::Flatten,
                    dense(f2 * fh * fw, hidden),
                    Layer::Relu,
                    dense(hidden, classes),
                ]
            }
            Kind::Mlp(hidden) => {
                let mut out = Vec::new();
                if input_shape.len() > 1 {
                    out.push(Layer::Flatten);
                }
                let mut prev = width;
                for &h in hidden {
                    out.extend([dense(prev, h), Layer::Relu]);
                    prev = h;
                }
                out.push(dense(prev, classes));
                out
            }
            Kind::Linear => vec![Layer::Dense { inputs: width, outputs: classes, bias: false }],
            Kind::Dense => vec![dense(width, classes), Layer::Sigmoid],
            Kind::Hidden(n) => vec![dense(width, *n), Layer::Sigmoid, dense(*n, classes), Layer::Sigmoid],
            Kind::Conv => {
                let &[c, h, w] = input_shape else {
                    return Err(SmoothError::Shape(format!(
                        "model conv needs image inputs [C, H, W], got {input_shape:?}"
                    )));
                };
                let side = |v: usize| ((v.saturating_sub(2)) / 2).saturating_sub(3) / 2;
                let (fh, fw) = (side(h), side(w));
                if fh == 0 || fw == 0 {
                    return Err(SmoothError::Shape(format!(
                        "model conv needs images of at least 12x12, got {h}x{w}"
                    )));
                }
                vec![
                    Layer::Conv { channels: c, filters: 3, size: 3 },
                    Layer::Relu,
                    Layer::MaxPool(2),
                    Layer::Conv { channels: 3, filters: 5, size: 4 },
                    Layer::Relu,
                    Layer::MaxPool(2),
                    Layer::Flatten,
                    dense(5 * fh * fw, classes),
                    Layer::Sigmoid,
                ]
            }
        })
    }
}

/// A smooth model: its circuit `P x A -> B` and current parameters.
#[derive(Clone, Debug)]
pub struct SmoothModel {
    /// The spec it was built from.
    pub spec: String,
    /// The layers, in order.
    pub layers: Vec<Layer>,
    /// Shape of one input example (without the batch axis).
    pub input_shape: Vec<usize>,
    /// Number of outputs (classes).
    pub classes: usize,
    /// The model circuit; parameters are its first inputs, the batch its last.
    pub circuit: SmoothCircuit,
    /// One tensor per parameter wire.
    pub params: Vec<Tensor>,
}

impl SmoothModel {
    /// Builds the circuit for `layers` and draws initial parameters from `seed`.
    ///
    /// # Errors
    /// A message when the layers do not fit together or the input (shape check).
    pub fn new(
        spec: &str,
        layers: Vec<Layer>,
        input_shape: &[usize],
        classes: usize,
        init: WeightInit,
        seed: u64,
    ) -> Result<Self, SmoothError> {
        let shapes = param_shapes(&layers);
        let mut b = CircuitBuilder::<SmoothOp>::new(shapes.len(), 1);
        let mut x = b.arg(0);
        let mut next = 0;
        let mut take = |b: &CircuitBuilder<SmoothOp>| {
            next += 1;
            b.param(next - 1)
        };
        for layer in &layers {
            x = match *layer {
                Layer::Dense { bias, .. } => {
                    let w = take(&b);
                    let y = b.gate(SmoothOp::Linear, &[w, x]);
                    if bias {
                        let bv = take(&b);
                        b.gate(SmoothOp::Add, &[y, bv])
                    } else {
                        y
                    }
                }
                Layer::Conv { .. } => {
                    let k = take(&b);
                    b.gate(SmoothOp::Conv2d, &[k, x])
                }
                Layer::MaxPool(s) => b.gate(SmoothOp::MaxPool(s), &[x]),
                Layer::Flatten => b.gate(SmoothOp::Flatten, &[x]),
                Layer::Relu => b.gate(SmoothOp::Relu, &[x]),
                Layer::Sigmoid => b.gate(SmoothOp::Sigmoid, &[x]),
                Layer::Tanh => b.gate(SmoothOp::Tanh, &[x]),
            };
        }
        let circuit = b.finish(vec![x]).map_err(|e| SmoothError::Shape(e.to_string()))?;
        let mut in_shapes: Vec<Vec<usize>> = shapes.iter().map(|(s, _)| s.clone()).collect();
        in_shapes.push(std::iter::once(1).chain(input_shape.iter().copied()).collect());
        let out = super::check_shapes(&circuit, &in_shapes)?;
        if out[0] != [1, classes] {
            return Err(SmoothError::Shape(format!(
                "model {spec} gives outputs of shape {:?}, expected [B, {classes}]",
                out[0]
            )));
        }
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let params = shapes
            .into_iter()
            .map(|(shape, fan_in)| {
                let n: usize = shape.iter().product();
                let data = match (fan_in, init) {
                    (None, _) => vec![0.0; n],
                    (Some(_), WeightInit::Normal(sd)) => (0..n).map(|_| sd * normal(&mut rng)).collect(),
                    (Some(f), WeightInit::FanIn) => {
                        let bound = 1.0 / (f as f32).sqrt();
                        (0..n).map(|_| rng.random_range(-bound..bound)).collect()
                    }
                };
                Tensor::new(shape, data)
            })
            .collect();
        Ok(Self {
            spec: spec.to_owned(),
            layers,
            input_shape: input_shape.to_vec(),
            classes,
            circuit,
            params,
        })
    }

    /// Builds a model from a parsed spec.
    ///
    /// # Errors
    /// As [`SmoothSpec::layers`] and [`SmoothModel::new`].
    pub fn from_spec(
        spec: &SmoothSpec,
        input_shape: &[usize],
        classes: usize,
        init: WeightInit,
        seed: u64,
    ) -> Result<Self, SmoothError> {
        let layers = spec.layers(input_shape, classes)?;
        Self::new(&spec.to_string(), layers, input_shape, classes, init, seed)
    }

    /// Number of trainable scalars.
    #[must_use]
    pub fn n_params(&self) -> usize {
        self.params.iter().map(Tensor::len).sum()
    }

    /// The model's outputs on a batch `x : [B, input_shape...]`.
    #[must_use]
    pub fn forward(&self, x: &Tensor) -> Tensor {
        let mut ins: Vec<&Tensor> = self.params.iter().collect();
        ins.push(x);
        super::eval_tensors(&self.circuit, &ins).swap_remove(0)
    }
}

/// Shapes of the parameter tensors of `layers`, with the fan-in of weights (`None` for biases).
fn param_shapes(layers: &[Layer]) -> Vec<(Vec<usize>, Option<usize>)> {
    let mut out = Vec::new();
    for l in layers {
        match *l {
            Layer::Dense { inputs, outputs, bias } => {
                out.push((vec![outputs, inputs], Some(inputs)));
                if bias {
                    out.push((vec![1, outputs], None));
                }
            }
            Layer::Conv { channels, filters, size } => {
                out.push((vec![filters, channels, size, size], Some(channels * size * size)));
            }
            _ => {}
        }
    }
    out
}

/// A standard normal sample (Box-Muller).
fn normal(rng: &mut ChaCha8Rng) -> f32 {
    let u1: f64 = rng.random_range(f64::MIN_POSITIVE..1.0);
    let u2: f64 = rng.random();
    ((-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()) as f32
}

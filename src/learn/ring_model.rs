//! Ring models for `train --domain poly`: fixed-point `linear` and `mlp:H` classifiers
//! as polynomial circuits over a run-time ring ([`RingKind`]), the numeric encoding of
//! features into ring elements ([`FeatureCoding`]), and the step circuit the ring rule
//! trains them with (model, the polycirc clipped displacement loss, fixed-point gradient
//! descent; see [`fixed`](super::fixed)).
//!
//! Fixed point: `F` fraction bits, `ONE = 2^F`, in the ring's signed reading. A feature
//! value `v` of feature `j` becomes the element of `round((v - offset_j) * scale_j * ONE)`,
//! `offset_j` the training mean and `scale_j` one over the training standard deviation
//! (1 for a constant feature); a value whose encoding lies outside the ring's signed
//! range is refused. Every model reads one more input held at `ONE` (the bias).
//!
//! - `linear`: scores `W [x; 1]` (`C x (n+1)` weights, from zero);
//! - `mlp:H`: `h = clip(W1 [x; 1] >> F, -ONE, ONE)`, scores `W2 [h; 1]` (random start
//!   from the seed). The shift's and clip's reverse rule is straight-through, so `W1`'s
//!   changes arrive scaled by `2^F`; its update shifts them back.
//!
//! Scores carry `2F` fraction bits; the class is the first maximal signed score.

use super::fixed::{clipped_displacement, fixed_gd_scaled};
use crate::cat::learner::{displacement, feedback, learner, step};
use crate::circuit::{Circuit, CircuitBuilder, WireId};
use crate::data::{Dataset, Features};
use crate::domain::ring::{PolyBuild, PolyOp};
use crate::domain::ring_kind::{RingGate, RingKind};
use crate::error::ArityMismatch;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::fmt;
use std::str::FromStr;

/// Most fraction bits (`--frac-bits`).
pub const MAX_FRAC_BITS: u8 = 24;

/// A ring model's shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RingModelSpec {
    /// `W [x; 1]`.
    Linear,
    /// One hidden layer of `H` clipped units.
    Mlp(usize),
}

/// Why a ring model cannot be built, read or used.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RingModelError {
    /// Not `linear` or `mlp:H`.
    #[error("unknown ring model '{0}'; expected linear or mlp:H (H in 1..=4096)")]
    Spec(String),
    /// The ring is too small for the fixed-point arithmetic of the model.
    #[error(
        "{ring} cannot express {model} with {frac_bits} fraction bits: products of fixed-point values need signed values up to 2^{need}, the ring holds up to {max}; use a wider ring or fewer --frac-bits"
    )]
    TooSmall {
        /// The ring.
        ring: RingKind,
        /// The model.
        model: RingModelSpec,
        /// `F`.
        frac_bits: u8,
        /// Bits of magnitude needed.
        need: u32,
        /// The ring's largest signed value.
        max: i64,
    },
    /// A feature value whose encoding does not fit the ring.
    #[error(
        "{data}: example {example}, feature {feature}: value {value} encodes to {encoded}, outside {ring}'s signed range [{min}, {max}]"
    )]
    DoesNotFit {
        /// The data.
        data: String,
        /// Example index, from 0.
        example: usize,
        /// Feature index, from 0.
        feature: usize,
        /// The value.
        value: f64,
        /// Its encoding.
        encoded: f64,
        /// The ring.
        ring: RingKind,
        /// Its smallest signed value.
        min: i64,
        /// Its largest.
        max: i64,
    },
    /// Data with another number of features than the model reads.
    #[error("{data}: {found} features, the model reads {expected}")]
    Features {
        /// The data.
        data: String,
        /// Features of the data.
        found: usize,
        /// Features of the model.
        expected: usize,
    },
}

impl FromStr for RingModelSpec {
    type Err = RingModelError;

    fn from_str(s: &str) -> Result<Self, RingModelError> {
        match s.split_once(':') {
            None if s == "linear" => Ok(RingModelSpec::Linear),
            Some(("mlp", h)) => match h.parse::<usize>() {
                Ok(h) if (1..=4096).contains(&h) => Ok(RingModelSpec::Mlp(h)),
                _ => Err(RingModelError::Spec(s.to_owned())),
            },
            _ => Err(RingModelError::Spec(s.to_owned())),
        }
    }
}

impl fmt::Display for RingModelSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RingModelSpec::Linear => write!(f, "linear"),
            RingModelSpec::Mlp(h) => write!(f, "mlp:{h}"),
        }
    }
}

/// Refuses a ring whose signed range cannot hold the model's fixed-point products: a
/// product of two values of magnitude up to 2 in `F` fraction bits, `2^(2F + 2)`. Larger
/// values (standardised features far from the mean, large changes) can still leave the
/// range: `z2k` then wraps around and `sat` saturates (`repro sat-vs-wrap`).
///
/// # Errors
/// [`RingModelError::TooSmall`].
pub fn check_expressible(ring: RingKind, model: RingModelSpec, frac_bits: u8) -> Result<(), RingModelError> {
    let need = 2 * u32::from(frac_bits) + 2;
    let max = ring.max_signed();
    if need >= 63 || (max as u64) < (1u64 << need) {
        return Err(RingModelError::TooSmall { ring, model, frac_bits, need, max });
    }
    Ok(())
}

/// How numeric features become ring elements (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct FeatureCoding {
    /// Subtracted from each feature.
    pub offset: Vec<f64>,
    /// Then multiplied with it.
    pub scale: Vec<f64>,
    /// `F`.
    pub frac_bits: u8,
}

/// Feature `f` of example `e`.
fn value(ds: &Dataset, e: usize, f: usize) -> f64 {
    match &ds.features {
        Features::Real { n_features, values, .. } => values[e * n_features + f],
        Features::Bits(m) => f64::from(u8::from(m.get(f, e))),
    }
}

/// Features per example.
#[must_use]
pub fn n_features(ds: &Dataset) -> usize {
    match &ds.features {
        Features::Real { n_features, .. } => *n_features,
        Features::Bits(m) => m.rows(),
    }
}

impl FeatureCoding {
    /// Offsets (means) and scales (one over standard deviations) of `ds`'s features.
    #[must_use]
    pub fn fit(ds: &Dataset, frac_bits: u8) -> Self {
        let (n, m) = (n_features(ds), ds.n_examples().max(1) as f64);
        let mut offset = vec![0.0; n];
        let mut scale = vec![1.0; n];
        for f in 0..n {
            let mean = (0..ds.n_examples()).map(|e| value(ds, e, f)).sum::<f64>() / m;
            let var = (0..ds.n_examples()).map(|e| (value(ds, e, f) - mean).powi(2)).sum::<f64>() / m;
            offset[f] = mean;
            if var.sqrt() > 1e-12 {
                scale[f] = 1.0 / var.sqrt();
            }
        }
        Self { offset, scale, frac_bits }
    }

    /// Each example of `ds` as ring elements (one per feature), refusing a value that
    /// does not fit; `what` names the data in errors.
    ///
    /// # Errors
    /// [`RingModelError::Features`] or [`RingModelError::DoesNotFit`].
    pub fn encode(&self, ds: &Dataset, ring: RingKind, what: &str) -> Result<Vec<Vec<u64>>, RingModelError> {
        let n = self.offset.len();
        if n_features(ds) != n {
            return Err(RingModelError::Features {
                data: what.to_owned(),
                found: n_features(ds),
                expected: n,
            });
        }
        let one = f64::from(1u32 << self.frac_bits);
        (0..ds.n_examples())
            .map(|e| {
                (0..n)
                    .map(|f| {
                        let v = value(ds, e, f);
                        let q = ((v - self.offset[f]) * self.scale[f] * one).round();
                        let (min, max) = (ring.min_signed(), ring.max_signed());
                        if !(q.is_finite() && q >= min as f64 && q <= max as f64) {
                            return Err(RingModelError::DoesNotFit {
                                data: what.to_owned(),
                                example: e,
                                feature: f,
                                value: v,
                                encoded: q,
                                ring,
                                min,
                                max,
                            });
                        }
                        Ok(ring.from_signed(q as i64))
                    })
                    .collect()
            })
            .collect()
    }
}

/// A ring model: its shape, ring, fixed point and parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RingModel {
    /// The shape.
    pub spec: RingModelSpec,
    /// The ring it computes in.
    pub ring: RingKind,
    /// `F`.
    pub frac_bits: u8,
    /// Features read.
    pub n_features: usize,
    /// Classes scored.
    pub n_classes: usize,
    /// Parameters (ring elements): `W` row-major; for `mlp`, `W1` then `W2`.
    pub params: Vec<u64>,
}

/// `out = sum_j W[row, j] * ins[j]` for the parameter block starting at `base`.
fn dot(b: &mut CircuitBuilder<RingGate>, base: usize, ins: &[WireId]) -> WireId {
    let terms: Vec<WireId> = ins
        .iter()
        .enumerate()
        .map(|(j, &x)| {
            let w = b.param(base + j);
            b.poly(PolyOp::Mul, &[w, x])
        })
        .collect();
    terms.into_iter().reduce(|a, t| b.poly(PolyOp::Add, &[a, t])).expect("at least the bias input")
}

impl RingModel {
    /// Parameters of `spec` on `n` features and `c` classes.
    #[must_use]
    pub fn n_params(spec: RingModelSpec, n: usize, c: usize) -> usize {
        match spec {
            RingModelSpec::Linear => c * (n + 1),
            RingModelSpec::Mlp(h) => h * (n + 1) + c * (h + 1),
        }
    }

    /// A fresh model: zeros for `linear`; for `mlp`, uniform weights in `[-ONE/sqrt(fan
    /// in), ONE/sqrt(fan in)]` drawn from `seed`.
    #[must_use]
    pub fn init(spec: RingModelSpec, ring: RingKind, frac_bits: u8, n: usize, c: usize, seed: u64) -> Self {
        let one = f64::from(1u32 << frac_bits);
        let params = match spec {
            RingModelSpec::Linear => vec![0; Self::n_params(spec, n, c)],
            RingModelSpec::Mlp(h) => {
                let mut rng = ChaCha8Rng::seed_from_u64(seed);
                let mut draw = |fan_in: usize, count: usize| -> Vec<u64> {
                    let bound = one / (fan_in as f64).sqrt();
                    (0..count)
                        .map(|_| ring.from_signed(rng.random_range(-bound..=bound).round() as i64))
                        .collect()
                };
                let mut p = draw(n + 1, h * (n + 1));
                p.extend(draw(h + 1, c * (h + 1)));
                p
            }
        };
        Self { spec, ring, frac_bits, n_features: n, n_classes: c, params }
    }

    /// The model as a circuit: parameters, then the features and the bias input (`ONE`);
    /// one score per class. Constants canonical in the ring.
    #[must_use]
    pub fn circuit(&self) -> Circuit<RingGate> {
        let (n, c) = (self.n_features, self.n_classes);
        let mut b = CircuitBuilder::<RingGate>::new(Self::n_params(self.spec, n, c), n + 1);
        let x = b.args();
        let outs = match self.spec {
            RingModelSpec::Linear => (0..c).map(|i| dot(&mut b, i * (n + 1), &x)).collect(),
            RingModelSpec::Mlp(h) => {
                let one = 1i64 << self.frac_bits;
                let mut hidden: Vec<WireId> = (0..h)
                    .map(|i| {
                        let z = dot(&mut b, i * (n + 1), &x);
                        let s = b.poly(PolyOp::Shr(self.frac_bits), &[z]);
                        b.poly(PolyOp::Clip(-one, one), &[s])
                    })
                    .collect();
                hidden.push(x[n]);
                let base = h * (n + 1);
                (0..c).map(|i| dot(&mut b, base + i * (h + 1), &hidden)).collect()
            }
        };
        self.ring.canonical(&b.finish(outs).expect("a ring model is valid"))
    }

    /// The classifier: the model with its parameters and the bias input bound, reading
    /// the features only, writing one score per class.
    #[must_use]
    pub fn classifier(&self) -> Circuit<RingGate> {
        let m = self.circuit();
        let n = self.n_features;
        let mut b = CircuitBuilder::<RingGate>::new(0, n);
        let mut ins: Vec<WireId> =
            self.params.iter().map(|&p| b.poly(PolyOp::Const(self.ring.reduce(p)), &[])).collect();
        ins.extend(b.args());
        ins.push(b.poly(PolyOp::Const(self.ring.from_signed(1i64 << self.frac_bits)), &[]));
        let out = b.instantiate(&m, &ins).expect("arity by construction");
        b.finish(out).expect("binding keeps a circuit valid")
    }

    /// The scores of one encoded example (signed readings).
    #[must_use]
    pub fn scores(&self, circuit: &Circuit<RingGate>, x: &[u64]) -> Vec<i64> {
        let mut inputs = self.params.clone();
        inputs.extend_from_slice(x);
        inputs.push(self.ring.from_signed(1i64 << self.frac_bits));
        self.ring.eval(circuit, &inputs).into_iter().map(|v| self.ring.signed(v)).collect()
    }

    /// The predicted class of each encoded example.
    #[must_use]
    pub fn predict(&self, xs: &[Vec<u64>]) -> Vec<u32> {
        let c = self.circuit();
        xs.iter()
            .map(|x| {
                let s = self.scores(&c, x);
                (0..s.len()).fold(0, |b, i| if s[i] > s[b] { i } else { b }) as u32
            })
            .collect()
    }

    /// The step circuit `P x (A, 1, Y) -> P` of per-example fixed-point descent with the
    /// learning rate `lr` (fixed point, `ONE` is 1.0).
    ///
    /// # Errors
    /// [`ArityMismatch`] if the parts do not compose (a bug).
    pub fn step_circuit(&self, lr: i64) -> Result<Circuit<RingGate>, ArityMismatch> {
        let (lens, update) = self.learner_and_update(lr)?;
        Ok(self.ring.canonical(&step(&lens, self.params.len(), &update)?))
    }

    /// The two halves of [`step_circuit`](Self::step_circuit) for batched descent: the
    /// parameter changes `P x (A, Y) -> P` (the learner's reverse derivative at the
    /// parameters; what a batch averages) and the update `(P, dP) -> P`, constants
    /// canonical in the ring. The step circuit computes `update(p, changes(p, x, y))`.
    ///
    /// # Errors
    /// As [`step_circuit`](Self::step_circuit).
    pub fn descent_circuits(&self, lr: i64) -> Result<(Circuit<RingGate>, Circuit<RingGate>), ArityMismatch> {
        let (lens, update) = self.learner_and_update(lr)?;
        let n = self.params.len();
        let changes = lens.changes();
        let mut b = CircuitBuilder::<RingGate>::new(n, changes.n_inputs() - n);
        let ins: Vec<WireId> = b.params().into_iter().chain(b.args()).collect();
        let d = b.instantiate(changes, &ins)?;
        let changes = b.finish(d[..n].to_vec()).expect("changes circuit is valid").pruned();
        Ok((self.ring.canonical(&changes), self.ring.canonical(&update)))
    }

    fn learner_and_update(
        &self,
        lr: i64,
    ) -> Result<(crate::cat::Lens<RingGate>, Circuit<RingGate>), ArityMismatch> {
        let model = self.circuit();
        let c = self.n_classes;
        let zero = |b: &mut CircuitBuilder<RingGate>| b.poly(PolyOp::Const(0), &[]);
        let loss =
            displacement(clipped_displacement::<crate::domain::ring::Z2k<64>>(c, self.frac_bits), zero)?;
        let lens = learner(&model, &loss, &feedback(c))?;
        let extra: Vec<u8> = match self.spec {
            RingModelSpec::Linear => vec![0; self.params.len()],
            RingModelSpec::Mlp(h) => {
                let first = h * (self.n_features + 1);
                (0..self.params.len()).map(|i| if i < first { self.frac_bits } else { 0 }).collect()
            }
        };
        let update = fixed_gd_scaled::<crate::domain::ring::Z2k<64>>(self.frac_bits, lr, &extra);
        Ok((lens, update))
    }

    /// One-hot targets (`ONE` for the class) of each label.
    #[must_use]
    pub fn targets(&self, labels: &[u32]) -> Vec<Vec<u64>> {
        let one = self.ring.from_signed(1i64 << self.frac_bits);
        labels
            .iter()
            .map(|&l| (0..self.n_classes).map(|c| if c == l as usize { one } else { 0 }).collect())
            .collect()
    }

    /// Each encoded example with the bias input appended (what the step circuit reads).
    #[must_use]
    pub fn with_bias(&self, xs: &[Vec<u64>]) -> Vec<Vec<u64>> {
        let one = self.ring.from_signed(1i64 << self.frac_bits);
        xs.iter().map(|x| x.iter().copied().chain([one]).collect()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_small_rings_are_refused() {
        assert_eq!("linear".parse::<RingModelSpec>(), Ok(RingModelSpec::Linear));
        assert_eq!("mlp:16".parse::<RingModelSpec>(), Ok(RingModelSpec::Mlp(16)));
        assert!("mlp:0".parse::<RingModelSpec>().is_err());
        assert!("lut:6:8x1".parse::<RingModelSpec>().is_err());
        assert!(check_expressible(RingKind::Z2k(32), RingModelSpec::Linear, 8).is_ok());
        assert!(check_expressible(RingKind::Z2k(16), RingModelSpec::Linear, 8).is_err());
        assert!(check_expressible(RingKind::Zp(65521), RingModelSpec::Linear, 8).is_err());
        assert!(check_expressible(RingKind::Sat(1 << 30), RingModelSpec::Linear, 8).is_ok());
    }

    /// The classifier (parameters bound) computes the model's scores.
    #[test]
    fn the_classifier_is_the_bound_model() {
        for ring in [RingKind::Z2k(32), RingKind::Zp(2_147_483_647), RingKind::Sat(1 << 40)] {
            let m = RingModel::init(RingModelSpec::Mlp(3), ring, 6, 4, 3, 5);
            let (c, k) = (m.circuit(), m.classifier());
            for e in 0..20i64 {
                let x: Vec<u64> = (0..4).map(|f| ring.from_signed((e * 37 + f * 11) % 200 - 100)).collect();
                let want = m.scores(&c, &x);
                let got: Vec<i64> = ring.eval(&k, &x).into_iter().map(|v| ring.signed(v)).collect();
                assert_eq!(got, want, "{ring}");
            }
        }
    }
}

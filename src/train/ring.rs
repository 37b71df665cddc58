//! Polynomial circuits over a ring as a [`Rule`]: the fixed-point step circuit
//! `P x (A, Y) -> P` that the lens core composes (model, loss, update; see
//! [`learn::fixed`](crate::learn::fixed)) applied one example at a time, in a fixed
//! order; plus the yarrow-polycirc Iris demo (`repro polycirc-iris`).

use super::{Blob, CheckpointError, Order, Rule, RuleState, Trainer};
use crate::cat::learner::{displacement, feedback, learner, step};
use crate::circuit::Circuit;
use crate::circuit::CircuitBuilder;
use crate::data::{Dataset, Features};
use crate::domain::ring::{Poly, Ring, Z2k};
use crate::domain::ring::{PolyBuild, PolyOp};
use crate::error::ArityMismatch;
use crate::learn::fixed::{clipped_displacement, fixed_gd, linear};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// One epoch of ring training.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RingEpoch {
    /// Epoch number, from 1.
    pub epoch: usize,
    /// Parameters whose value the epoch changed.
    pub changed: usize,
}

/// Per-example descent through a ring step circuit `P x (A, Y) -> P`.
pub struct RingRule<'a, R: Ring> {
    step: &'a Circuit<Poly<R>>,
    params: Vec<u64>,
    x: &'a [Vec<u64>],
    y: &'a [Vec<u64>],
    order: Vec<usize>,
    ring: Option<crate::domain::ring_kind::RingKind>,
    shuffle: bool,
}

impl<'a, R: Ring> RingRule<'a, R> {
    /// The rule for `step` from parameters `init` over examples `x` with targets `y`,
    /// visited in `order` every epoch.
    ///
    /// # Panics
    /// If `x` and `y` differ in length or `order` names an example that is not there.
    #[must_use]
    pub fn new(
        step: &'a Circuit<Poly<R>>,
        init: Vec<u64>,
        x: &'a [Vec<u64>],
        y: &'a [Vec<u64>],
        order: Vec<usize>,
    ) -> Self {
        assert_eq!(x.len(), y.len(), "one target per example");
        assert!(order.iter().all(|&i| i < x.len()), "the order names examples that exist");
        Self { step, params: init, x, y, order, ring: None, shuffle: false }
    }

    /// Evaluates the step circuit in the run-time ring `ring` instead of `R` (the
    /// circuit's constants canonical in `ring`: see
    /// [`RingKind::canonical`](crate::domain::ring_kind::RingKind::canonical)).
    #[must_use]
    pub fn in_ring(mut self, ring: crate::domain::ring_kind::RingKind) -> Self {
        self.ring = Some(ring);
        self
    }

    /// Visits the examples in a fresh random order every epoch (from the trainer's
    /// seed) instead of the given one.
    #[must_use]
    pub fn shuffled(mut self, shuffle: bool) -> Self {
        self.shuffle = shuffle;
        self
    }

    /// The parameters as they stand.
    #[must_use]
    pub fn params(&self) -> &[u64] {
        &self.params
    }

    /// The trained parameters.
    #[must_use]
    pub fn into_params(self) -> Vec<u64> {
        self.params
    }
}

impl<R: Ring> Rule for RingRule<'_, R> {
    type Epoch = RingEpoch;

    fn name(&self) -> String {
        "ring-descent".into()
    }

    fn n_examples(&self) -> usize {
        self.x.len()
    }

    fn order(&self) -> Order {
        if self.shuffle { Order::Fresh } else { Order::Fixed(self.order.clone()) }
    }

    fn init(&mut self, _rng: &mut ChaCha8Rng) {}

    fn epoch(&mut self, epoch: usize, _epochs: usize, order: &[usize], _rng: &mut ChaCha8Rng) -> RingEpoch {
        let before = self.params.clone();
        let mut inputs = Vec::new();
        let mut vals = Vec::new();
        for &i in order {
            inputs.clear();
            inputs.extend_from_slice(&self.params);
            inputs.extend_from_slice(&self.x[i]);
            inputs.extend_from_slice(&self.y[i]);
            match self.ring {
                None => self.params = self.step.eval_one(&inputs),
                Some(ring) => {
                    ring.eval_into(self.step, &inputs, &mut vals);
                    self.params.clear();
                    self.params.extend(self.step.outputs().iter().map(|w| vals[w.index()]));
                }
            }
        }
        RingEpoch { epoch, changed: before.iter().zip(&self.params).filter(|(a, b)| a != b).count() }
    }

    fn describe(&self, e: &RingEpoch) -> String {
        format!("{} parameters changed", e.changed)
    }

    fn save(&self) -> RuleState {
        let mut s = RuleState::default();
        s.put("params", Blob::U64(self.params.clone()));
        s
    }

    fn restore(&mut self, mut state: RuleState) -> Result<(), CheckpointError> {
        self.params = state.take_u64("params", self.params.len())?;
        Ok(())
    }
}

/// The ring of the polycirc Iris demo.
pub type IrisRing = Z2k<64>;

/// A trained fixed-point Iris model.
#[derive(Clone, Debug)]
pub struct FixedRun {
    /// The model `W x` (3x4, parameters first).
    pub model: Circuit<Poly<IrisRing>>,
    /// Trained parameters (row-major `W`).
    pub params: Vec<u64>,
    /// The inputs, scaled by `2^10` and truncated, one vector per row.
    pub inputs: Vec<Vec<u64>>,
    /// Accuracy on all rows (argmax of the outputs, first on ties).
    pub train_accuracy: f64,
}

/// The yarrow-polycirc Iris demo in `Z_(2^64)`: a 3x4 linear layer without bias in 10-bit
/// fixed point (inputs and one-hot labels scaled by 2^10 and truncated), parameters from
/// zero, the clipped displacement loss, fixed-point gradient descent with learning rate
/// 2^-7, 60 passes over the rows in the class-interleaving order 0, 50, 100, 1, 51, 101,
/// ...; accuracy is scored on every row. Expects the 150-row Iris data in file order.
///
/// # Errors
/// [`ArityMismatch`] if the data do not have 4 numeric features and 3 classes of 50.
pub fn polycirc_iris(iris: &Dataset) -> Result<FixedRun, ArityMismatch> {
    type R = IrisRing;
    let (step_circuit, x, y, order) = polycirc_iris_parts(iris)?;
    let model: Circuit<Poly<R>> = linear(3, 4);
    let n = x.len();
    let mut rule = RingRule::new(&step_circuit, vec![0u64; 12], &x, &y, order);
    Trainer::new().epochs(60).run(&mut rule, None, |_| {}).expect("a fresh start");
    let p = rule.into_params();
    let correct = (0..n)
        .filter(|&i| {
            let mut inputs = p.clone();
            inputs.extend_from_slice(&x[i]);
            let out: Vec<i64> = model.eval_one(&inputs).into_iter().map(R::signed).collect();
            let best = (0..3).fold(0, |b, c| if out[c] > out[b] { c } else { b });
            best == iris.labels[i] as usize
        })
        .count();
    Ok(FixedRun { model, params: p, inputs: x, train_accuracy: correct as f64 / n as f64 })
}

/// The step circuit, scaled inputs and targets, and visiting order of [`polycirc_iris`].
type PolycircParts = (Circuit<Poly<IrisRing>>, Vec<Vec<u64>>, Vec<Vec<u64>>, Vec<usize>);

/// What [`polycirc_iris`] trains with.
pub(crate) fn polycirc_iris_parts(iris: &Dataset) -> Result<PolycircParts, ArityMismatch> {
    type R = IrisRing;
    const NBITS: u8 = 10;
    let one = 1i64 << NBITS;
    let Features::Real { values, n_features: 4, .. } = &iris.features else {
        return Err(ArityMismatch { left: 0, right: 4 });
    };
    if iris.n_examples() != 150 || iris.n_classes() != 3 {
        return Err(ArityMismatch { left: iris.n_examples(), right: 150 });
    }
    let x: Vec<Vec<u64>> = values
        .chunks(4)
        .map(|row| row.iter().map(|&v| R::from_signed((v * one as f64) as i64)).collect())
        .collect();
    let y: Vec<Vec<u64>> = iris
        .labels
        .iter()
        .map(|&l| (0..3).map(|c| if c == l { R::from_signed(one) } else { 0 }).collect())
        .collect();
    let model: Circuit<Poly<R>> = linear(3, 4);
    let zero = |b: &mut CircuitBuilder<Poly<R>>| b.poly(PolyOp::Const(0), &[]);
    let loss = displacement(clipped_displacement::<R>(3, NBITS), zero)?;
    let lens = learner(&model, &loss, &feedback(3))?;
    let step_circuit = step(&lens, 12, &fixed_gd::<R>(12, NBITS, one >> 7))?;
    let order: Vec<usize> = (0..x.len()).map(|j| (j % 3) * 50 + j / 3).collect();
    Ok((step_circuit, x, y, order))
}

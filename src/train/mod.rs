//! One training loop for every domain, shaped like egg's `Runner`.
//!
//! A [`Trainer`] owns what every training run has: epochs, the order examples are visited
//! in, the random generator and its position, limits (epochs, wall time), hooks that see
//! each epoch's end, and checkpoint/resume. What differs between domains is the update
//! rule, a [`Rule`]: it keeps the parameters and the optimiser state, runs one epoch over
//! an order of examples, and saves or restores its state for a [`Checkpoint`]. The rules:
//!
//! - [`RdaRule`]: Boolean circuits by reverse derivative ascent — faithful per-example
//!   RDA, batched vote counting, parity (`learn::Network`; fused LUT kernels as its
//!   declared backend, property-tested equal to evaluating the lens);
//! - [`RelaxedRule`]: relaxed gate and LUT networks by Adam, with narrowing, hard choice
//!   and straight-through as scheduled [`Phase`]s;
//! - [`SmoothRule`]: f32 tensor models by SGD, momentum, Nesterov, AdaGrad or Adam;
//! - [`RingRule`]: polynomial circuits over a ring by their fixed-point step circuit;
//!   [`RingBatchRule`] by mini-batches of the step's two halves, bit-sliced where faster.
//!
//! A run ends with a [`Report`]: why it stopped ([`StopReason`], carrying the values
//! that stopped it) and the rule's figures for every epoch. Stopping after any epoch and
//! continuing from its checkpoint ends with exactly what an uninterrupted run ends with.

mod batch;
mod checkpoint;
mod distill;
mod gradient_sum;
mod rda;
mod relaxed;
mod ring;
mod ring_batch;
mod smooth;

pub use checkpoint::{Blob, Checkpoint, CheckpointError, RuleState};
pub use distill::{TeacherParams, TeacherReport, TeacherTargets, teacher_targets};
/// The hardware-exact vote rule's pieces (its generator, draws and margin test).
pub use rda::{ACCEPT_BITS, HwVoteError, HwVoteParams, group_margin, salt};
pub use rda::{Init, RdaEpoch, RdaRule, RdaVariant, RewireParams, RewireStats, VoteParams};
pub use relaxed::{Draws, Phase, RelaxedEpoch, RelaxedParams, RelaxedRule, Schedule, train_relaxed};
#[cfg(test)]
use ring::polycirc_iris_parts;
pub use ring::{FixedRun, IrisRing, RingEpoch, RingRule, polycirc_iris};
pub use ring_batch::{RingBatchRule, RingLanes};
pub use smooth::{IrisAccuracies, SmoothEpoch, SmoothParams, SmoothRule, numeric_optics_iris};

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::time::{Duration, Instant};

/// How a rule's examples are visited in each epoch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Order {
    /// Every epoch shuffles `0..n` afresh (the Boolean rules).
    Fresh,
    /// Every epoch shuffles the previous epoch's order further (the smooth and relaxed
    /// rules; the order is part of the checkpoint).
    Carried,
    /// The given order, every epoch (file order, or a protocol's interleaving).
    Fixed(Vec<usize>),
}

/// An update rule: what one epoch of training does to a model's parameters.
pub trait Rule {
    /// The rule's figures of one epoch.
    type Epoch: Clone + fmt::Debug + PartialEq + Serialize + DeserializeOwned;

    /// A short name for reports and checkpoints (`rda-votes`, `relaxed-adam`, ...).
    fn name(&self) -> String;

    /// Training examples.
    fn n_examples(&self) -> usize;

    /// How examples are visited.
    fn order(&self) -> Order;

    /// Sets the initial parameters of a fresh run (drawing from `rng` if the rule's
    /// initialisation is random and shares the trainer's generator).
    fn init(&mut self, rng: &mut ChaCha8Rng);

    /// Runs epoch `epoch` (from 1) of `epochs` over the examples in `order`.
    fn epoch(&mut self, epoch: usize, epochs: usize, order: &[usize], rng: &mut ChaCha8Rng) -> Self::Epoch;

    /// Why training stops after an epoch with these figures, before the epoch limit.
    fn stop_after(&self, _figures: &Self::Epoch) -> Option<EarlyStop> {
        None
    }

    /// One line for progress displays.
    fn describe(&self, figures: &Self::Epoch) -> String;

    /// The parameters and optimiser state, for a checkpoint.
    fn save(&self) -> RuleState;

    /// Restores what [`save`](Self::save) returned.
    ///
    /// # Errors
    /// [`CheckpointError::Mismatch`] if the state does not fit this rule's model.
    fn restore(&mut self, state: RuleState) -> Result<(), CheckpointError>;
}

/// A reason to stop early that a rule reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum EarlyStop {
    /// Every training example is classified correctly.
    Perfect,
    /// An epoch proposed no parameter change: further epochs would repeat it.
    Converged,
}

/// Why training ended, with the values that ended it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "reason", rename_all = "kebab-case")]
pub enum StopReason {
    /// Ran the requested number of epochs.
    EpochLimit {
        /// The limit.
        epochs: usize,
    },
    /// Every training example was classified correctly after this epoch.
    Perfect {
        /// The epoch.
        epoch: usize,
    },
    /// This epoch proposed no parameter change.
    Converged {
        /// The epoch.
        epoch: usize,
    },
    /// The wall-time limit was reached after this epoch.
    TimeLimit {
        /// The epoch.
        epoch: usize,
        /// The limit, seconds.
        seconds: f64,
    },
}

impl StopReason {
    /// A short name (`epoch-limit`, `perfect`, `converged`, `time-limit`).
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            StopReason::EpochLimit { .. } => "epoch-limit",
            StopReason::Perfect { .. } => "perfect",
            StopReason::Converged { .. } => "converged",
            StopReason::TimeLimit { .. } => "time-limit",
        }
    }
}

impl fmt::Display for StopReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StopReason::EpochLimit { epochs } => write!(f, "epoch limit ({epochs})"),
            StopReason::Perfect { epoch } => write!(f, "perfect on the training set after epoch {epoch}"),
            StopReason::Converged { epoch } => write!(f, "converged: epoch {epoch} changed nothing"),
            StopReason::TimeLimit { epoch, seconds } => {
                write!(f, "time limit ({seconds} s) after epoch {epoch}")
            }
        }
    }
}

/// What a run produced besides the rule's parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(bound(serialize = "E: Serialize", deserialize = "E: DeserializeOwned"))]
pub struct Report<E> {
    /// The rule's name.
    pub rule: String,
    /// Why it stopped.
    pub stop: StopReason,
    /// The rule's figures of each epoch, from epoch 1 (resumed runs included).
    pub history: Vec<E>,
    /// Wall time of each epoch, seconds (not part of the result's identity).
    pub epoch_seconds: Vec<f64>,
}

impl<E> Report<E> {
    /// Epochs run.
    #[must_use]
    pub fn epochs(&self) -> usize {
        self.history.len()
    }

    /// Wall time of all epochs, seconds.
    #[must_use]
    pub fn seconds(&self) -> f64 {
        total_seconds(&self.epoch_seconds)
    }
}

/// The sum of `epoch_seconds`: 0 (not the -0 of an empty `f64` sum, which printed as
/// "-0.00s") for no epochs.
#[must_use]
pub fn total_seconds(epoch_seconds: &[f64]) -> f64 {
    epoch_seconds.iter().fold(0.0, |a, s| a + s)
}

impl<E: fmt::Debug> fmt::Display for Report<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} epochs, {} ({:.2} s)", self.rule, self.history.len(), self.stop, self.seconds())?;
        if let Some(last) = self.history.last() {
            write!(f, "; last epoch {last:?}")?;
        }
        Ok(())
    }
}

/// The state at the end of an epoch, lent to the hook of [`Trainer::run`].
pub struct EpochEnd<'a, R: Rule> {
    rule: &'a R,
    history: &'a [R::Epoch],
    epoch_seconds: &'a [f64],
    epochs: usize,
    rng: &'a ChaCha8Rng,
    order: &'a [usize],
}

impl<R: Rule> EpochEnd<'_, R> {
    /// The epoch just completed (from 1).
    #[must_use]
    pub fn epoch(&self) -> usize {
        self.history.len()
    }

    /// Epochs the run is to take.
    #[must_use]
    pub fn epochs(&self) -> usize {
        self.epochs
    }

    /// The figures of the epoch just completed.
    #[must_use]
    pub fn figures(&self) -> &R::Epoch {
        &self.history[self.history.len() - 1]
    }

    /// The rule (its parameters as they stand).
    #[must_use]
    pub fn rule(&self) -> &R {
        self.rule
    }

    /// One line describing the epoch, for progress displays.
    #[must_use]
    pub fn describe(&self) -> String {
        self.rule.describe(self.figures())
    }

    /// Everything needed to continue exactly from here.
    #[must_use]
    pub fn checkpoint(&self) -> Checkpoint<R::Epoch> {
        Checkpoint {
            rule: self.rule.name(),
            history: self.history.to_vec(),
            epoch_seconds: self.epoch_seconds.to_vec(),
            rng_word_pos: self.rng.get_word_pos(),
            order: self.order.iter().map(|&i| i as u32).collect(),
            state: self.rule.save(),
        }
    }
}

/// Runs a [`Rule`] for a number of epochs. Deterministic for a given seed and data,
/// whatever the thread count: random choices are drawn sequentially from one ChaCha8
/// generator seeded by [`seed`](Self::seed); parallel parts only count or sum in a
/// fixed order.
#[derive(Clone, Debug, PartialEq)]
pub struct Trainer {
    epochs: usize,
    seed: u64,
    time_limit: Option<Duration>,
}

impl Default for Trainer {
    fn default() -> Self {
        Self::new()
    }
}

impl Trainer {
    /// One epoch, seed 0, no time limit.
    #[must_use]
    pub fn new() -> Self {
        Self { epochs: 1, seed: 0, time_limit: None }
    }

    /// Number of passes over the training data.
    #[must_use]
    pub fn epochs(mut self, n: usize) -> Self {
        self.epochs = n;
        self
    }

    /// Seed of the trainer's random generator.
    #[must_use]
    pub fn seed(mut self, s: u64) -> Self {
        self.seed = s;
        self
    }

    /// Stop after the first epoch that ends past this much wall time.
    #[must_use]
    pub fn time_limit(mut self, limit: Option<Duration>) -> Self {
        self.time_limit = limit;
        self
    }

    /// The epoch limit.
    #[must_use]
    pub fn epoch_limit(&self) -> usize {
        self.epochs
    }

    /// Trains `rule` from its initial parameters with no hook; returns it (with its
    /// trained parameters) and the report.
    pub fn fit<R: Rule>(&self, mut rule: R) -> (R, Report<R::Epoch>) {
        let report = self.run(&mut rule, None, |_| {}).expect("a fresh start has no checkpoint to mismatch");
        (rule, report)
    }

    /// Trains `rule` from its initial parameters, or from `start` (a checkpoint of a run
    /// with the same trainer, rule and data) when given, calling `on_epoch` after every
    /// epoch. A resumed run ends exactly as an uninterrupted one.
    ///
    /// # Errors
    /// [`CheckpointError`] if `start` belongs to another rule, has more epochs than this
    /// run takes, or a state that does not fit the rule's model.
    pub fn run<R: Rule>(
        &self,
        rule: &mut R,
        start: Option<Checkpoint<R::Epoch>>,
        mut on_epoch: impl FnMut(&EpochEnd<'_, R>),
    ) -> Result<Report<R::Epoch>, CheckpointError> {
        let n = rule.n_examples();
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
        let mut order: Vec<usize> = match rule.order() {
            Order::Fixed(o) => o,
            Order::Fresh | Order::Carried => (0..n).collect(),
        };
        let (mut history, mut epoch_seconds) = match start {
            None => {
                rule.init(&mut rng);
                (Vec::new(), Vec::new())
            }
            Some(c) => {
                let mismatch = |why: String| Err(CheckpointError::Mismatch(why));
                if c.rule != rule.name() {
                    return mismatch(format!(
                        "written by rule {}, this run trains with {}",
                        c.rule,
                        rule.name()
                    ));
                }
                if c.history.len() > self.epochs {
                    return mismatch(format!(
                        "{} epochs done, this run has {}",
                        c.history.len(),
                        self.epochs
                    ));
                }
                if rule.order() == Order::Carried {
                    if c.order.len() != n || c.order.iter().any(|&i| i as usize >= n) {
                        return mismatch(format!(
                            "an order of {} examples, the data have {n}",
                            c.order.len()
                        ));
                    }
                    order = c.order.iter().map(|&i| i as usize).collect();
                }
                rng.set_word_pos(c.rng_word_pos);
                rule.restore(c.state)?;
                (c.history, c.epoch_seconds)
            }
        };
        // A checkpoint taken after the run had already stopped continues to the same stop.
        if let Some(last) = history.last()
            && let Some(stop) = rule.stop_after(last)
        {
            return Ok(self.report(rule, early(stop, history.len()), history, epoch_seconds));
        }
        let t0 = Instant::now();
        let mut stop = StopReason::EpochLimit { epochs: self.epochs };
        for epoch in history.len() + 1..=self.epochs {
            let e0 = Instant::now();
            match rule.order() {
                Order::Fresh => {
                    order = (0..n).collect();
                    order.shuffle(&mut rng);
                }
                Order::Carried => order.shuffle(&mut rng),
                Order::Fixed(_) => {}
            }
            let figures = rule.epoch(epoch, self.epochs, &order, &mut rng);
            let early_stop = rule.stop_after(&figures);
            history.push(figures);
            epoch_seconds.push(e0.elapsed().as_secs_f64());
            if let Some(table) = crate::smooth::op_times::report(&format!(
                "epoch {epoch}, {:.2} s",
                e0.elapsed().as_secs_f64()
            )) {
                eprint!("{table}");
            }
            on_epoch(&EpochEnd {
                rule,
                history: &history,
                epoch_seconds: &epoch_seconds,
                epochs: self.epochs,
                rng: &rng,
                order: &order,
            });
            if let Some(s) = early_stop {
                stop = early(s, epoch);
                break;
            }
            if let Some(limit) = self.time_limit
                && t0.elapsed() >= limit
                && epoch < self.epochs
            {
                stop = StopReason::TimeLimit { epoch, seconds: limit.as_secs_f64() };
                break;
            }
        }
        Ok(self.report(rule, stop, history, epoch_seconds))
    }

    fn report<R: Rule>(
        &self,
        rule: &R,
        stop: StopReason,
        history: Vec<R::Epoch>,
        epoch_seconds: Vec<f64>,
    ) -> Report<R::Epoch> {
        Report { rule: rule.name(), stop, history, epoch_seconds }
    }
}

fn early(stop: EarlyStop, epoch: usize) -> StopReason {
    match stop {
        EarlyStop::Perfect => StopReason::Perfect { epoch },
        EarlyStop::Converged => StopReason::Converged { epoch },
    }
}

#[cfg(test)]
mod tests;

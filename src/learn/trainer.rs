//! `Trainer`: runs RDA on a [`Network`] and reports why it stopped.
//!
//! Two optimisers:
//! - [`Optimizer::Rda`], faithful per-example RDA: examples one at a time, in order,
//!   each applying `p <- p ^ R[f]((p, x), y ^ f(p, x))_P` through the [`rda_step`] circuit.
//! - [`Optimizer::Votes`], batched RDA: `R[f]_P` is evaluated bit-parallel on the whole
//!   batch (by the fused reverse kernel, which computes exactly what evaluating the
//!   circuit `rdiff(f)` restricted to the parameters computes) and each parameter counts its votes
//!   (popcounts over the lanes); see [`VoteParams`].
//!
//! Training can stop after any epoch and go on later: [`Trainer::run_from`] hands each
//! epoch's end state to the caller ([`EpochEnd::checkpoint`]: parameters, history, the
//! random generator's position) and continues from such a [`Checkpoint`] to exactly the
//! parameters an uninterrupted run ends with. The optimisers keep no other state across
//! epochs (the vote counts are per batch).

use super::head::accuracy;
use super::network::Network;
use super::rda::rda_step;
use super::spec::Head;
use crate::circuit::Circuit;
use crate::domain::Bool;
use crate::lanes::{
    BitMatrix, EvalParams, LANES, LutNetwork, Program, Propagation, ReverseProgram, tail_mask,
};
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// How the batched optimiser turns votes into flips.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct VoteParams {
    /// An example carries error only while its margin (for `groupsum`: true-group score
    /// minus best rival, over the group size) is at most this; misclassified examples
    /// always do.
    pub margin: f64,
    /// Probability that a parameter whose flip votes win is actually flipped (damps churn).
    pub accept: f64,
    /// Votes from outputs whose target is 1 are weighted by this (class balance:
    /// `classes - 1` for `groupsum`, where only one group in `C` has target 1).
    pub positive_weight: f64,
    /// Keep votes come from every example (`true`), not only from those that carry
    /// error: examples already learned defend the entries they rely on.
    pub keep_from_all: bool,
    /// On LUT networks, a LUT read by several others adds their votes (one per sensitive
    /// path to an output, [`Propagation::Sum`]) instead of taking the Boolean
    /// derivative's XOR over its fan-outs, under which two readers that both want a
    /// change cancel. Off by default: on Fashion-MNIST (`lut:6:2000x2`, 20 epochs) test
    /// accuracy stays within 0.1 point at about three times the training time
    /// (BENCHMARKS.md).
    #[serde(default)]
    pub sum_fanouts: bool,
}

impl VoteParams {
    /// Defaults for a head over `n_classes` classes.
    #[must_use]
    pub fn for_head(head: Head, n_classes: usize) -> Self {
        let positive_weight = match head {
            Head::GroupSum(_) => (n_classes - 1) as f64,
            Head::Binary | Head::OneHot => 1.0,
        };
        Self { margin: 0.1, accept: 0.3, positive_weight, keep_from_all: true, sum_fanouts: false }
    }
}

/// The optimiser.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Optimizer {
    /// Faithful per-example RDA (batch size 1, the published algorithm).
    Rda,
    /// Batched RDA with per-parameter vote counting.
    Votes(VoteParams),
    /// Batched RDA summing the per-example changes in Z2 (parity): the categorical sum,
    /// kept to show why it fails (votes cancel in pairs); not for real use.
    Parity,
}

impl Optimizer {
    /// A short name for reports (`rda`, `rda-votes`).
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            Optimizer::Rda => "rda",
            Optimizer::Votes(_) => "rda-votes",
            Optimizer::Parity => "rda-parity",
        }
    }
}

/// Initial parameter values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Init {
    /// Every parameter 0 (the RDA paper's lookup table).
    Zeros,
    /// Uniform random bits from the seed.
    Random,
}

/// Why training ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum StopReason {
    /// Ran the requested number of epochs.
    EpochLimit,
    /// Every training example is classified correctly.
    Perfect,
    /// An epoch proposed no parameter change: further epochs would repeat it.
    Converged,
}

/// One epoch's figures.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct EpochStats {
    /// Epoch number, from 1.
    pub epoch: usize,
    /// Parameters flipped during the epoch.
    pub flips: u64,
    /// Flips proposed during the epoch (equal to `flips` but for the vote optimiser,
    /// which declines some at random).
    pub proposed: u64,
    /// Training accuracy after the epoch.
    pub train_accuracy: f64,
}

/// What training produced.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The trained parameters.
    pub params: Vec<bool>,
    /// Why it stopped.
    pub stop: StopReason,
    /// Per-epoch figures.
    pub history: Vec<EpochStats>,
}

impl Report {
    /// Training accuracy after the last epoch (0 if no epoch ran).
    #[must_use]
    pub fn train_accuracy(&self) -> f64 {
        self.history.last().map_or(0.0, |h| h.train_accuracy)
    }
}

/// Where training stood at the end of an epoch: enough to continue it exactly.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// Parameters after the last completed epoch.
    pub params: Vec<bool>,
    /// Figures of the completed epochs (the last one is the checkpoint's epoch).
    pub history: Vec<EpochStats>,
    /// Position of the trainer's random generator (ChaCha8 from the trainer's seed), in
    /// 32-bit words, as a decimal string (JSON numbers cannot hold every `u128`).
    pub rng_word_pos: String,
}

impl Checkpoint {
    /// Epochs completed.
    #[must_use]
    pub fn epoch(&self) -> usize {
        self.history.len()
    }
}

/// The state at the end of an epoch, lent to the `on_epoch` callback of
/// [`Trainer::run_from`].
pub struct EpochEnd<'a> {
    params: &'a [bool],
    history: &'a [EpochStats],
    rng: &'a ChaCha8Rng,
}

impl EpochEnd<'_> {
    /// The figures of the epoch just completed.
    #[must_use]
    pub fn stats(&self) -> &EpochStats {
        &self.history[self.history.len() - 1]
    }

    /// A copy of the state, to continue from with [`Trainer::run_from`].
    #[must_use]
    pub fn checkpoint(&self) -> Checkpoint {
        Checkpoint {
            params: self.params.to_vec(),
            history: self.history.to_vec(),
            rng_word_pos: self.rng.get_word_pos().to_string(),
        }
    }
}

/// A checkpoint that does not fit the training it is meant to continue.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("checkpoint does not fit this training: {0}")]
pub struct CheckpointMismatch(pub String);

/// Trains a [`Network`] with RDA. Deterministic for a given seed and data, whatever the
/// thread count (randomness is drawn sequentially; parallel parts only count).
#[derive(Clone, Debug)]
pub struct Trainer {
    optimizer: Optimizer,
    epochs: usize,
    batch: usize,
    seed: u64,
    init: Init,
    shuffle: bool,
}

impl Trainer {
    /// A trainer with the given optimiser: 1 epoch, batch 1024, seed 0, random init,
    /// shuffled batches.
    #[must_use]
    pub fn new(optimizer: Optimizer) -> Self {
        Self { optimizer, epochs: 1, batch: 1024, seed: 0, init: Init::Random, shuffle: true }
    }

    /// Number of passes over the training data.
    #[must_use]
    pub fn epochs(mut self, n: usize) -> Self {
        self.epochs = n;
        self
    }

    /// Examples per batch for the vote optimiser (ignored by faithful RDA).
    #[must_use]
    pub fn batch(mut self, n: usize) -> Self {
        self.batch = n.max(1);
        self
    }

    /// Seed of every random choice.
    #[must_use]
    pub fn seed(mut self, s: u64) -> Self {
        self.seed = s;
        self
    }

    /// Initial parameters.
    #[must_use]
    pub fn init(mut self, init: Init) -> Self {
        self.init = init;
        self
    }

    /// Visit examples in a fresh random order each epoch (`true`) or in file order.
    #[must_use]
    pub fn shuffle(mut self, yes: bool) -> Self {
        self.shuffle = yes;
        self
    }

    /// Trains `net` on `inputs` (one row per input bit) with class `labels`, calling
    /// `on_epoch` after each epoch.
    ///
    /// # Panics
    /// If `inputs` does not match the network's input width or the label count.
    pub fn run(
        &self,
        net: &Network,
        inputs: &BitMatrix,
        labels: &[u32],
        mut on_epoch: impl FnMut(&EpochStats),
    ) -> Report {
        self.run_from(net, inputs, labels, None, |end| on_epoch(end.stats()))
            .expect("a fresh start has no checkpoint to mismatch")
    }

    /// [`run`](Self::run), starting from `start` (a checkpoint of a run with the same
    /// trainer, network and data) when given; `on_epoch` sees the state after each epoch.
    /// The result equals an uninterrupted run's.
    ///
    /// # Errors
    /// [`CheckpointMismatch`] if `start` has the wrong parameter count, more epochs than
    /// this trainer runs, or a malformed generator position.
    ///
    /// # Panics
    /// If `inputs` does not match the network's input width or the label count.
    pub fn run_from(
        &self,
        net: &Network,
        inputs: &BitMatrix,
        labels: &[u32],
        start: Option<Checkpoint>,
        mut on_epoch: impl FnMut(&EpochEnd<'_>),
    ) -> Result<Report, CheckpointMismatch> {
        assert_eq!(inputs.rows(), net.circuit.n_args(), "one input row per input bit");
        assert_eq!(inputs.examples(), labels.len(), "one label per example");
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
        let (mut params, mut history) = match start {
            None => {
                let params = match self.init {
                    Init::Zeros => vec![false; net.n_params()],
                    Init::Random => (0..net.n_params()).map(|_| rng.random::<bool>()).collect(),
                };
                (params, Vec::new())
            }
            Some(c) => {
                let mismatch = |why: String| Err(CheckpointMismatch(why));
                if c.params.len() != net.n_params() {
                    return mismatch(format!(
                        "{} parameters, the model has {}",
                        c.params.len(),
                        net.n_params()
                    ));
                }
                if c.epoch() > self.epochs {
                    return mismatch(format!("{} epochs done, this run has {}", c.epoch(), self.epochs));
                }
                let Ok(pos) = c.rng_word_pos.parse::<u128>() else {
                    return mismatch(format!("rng_word_pos '{}' is not a number", c.rng_word_pos));
                };
                rng.set_word_pos(pos);
                (c.params, c.history)
            }
        };
        // A checkpoint taken after the run had already stopped continues to the same stop.
        if let Some(stop) = history.last().and_then(stop_after) {
            return Ok(Report { params, stop, history });
        }
        let mut state = match self.optimizer {
            Optimizer::Rda => State::Faithful(Program::new(&rda_step(&net.circuit)), net.targets(labels)),
            Optimizer::Votes(v) => State::Votes(v, Engine::new(&net.circuit), inputs.transposed()),
            Optimizer::Parity => State::Parity(Engine::new(&net.circuit), inputs.transposed()),
        };
        let mut stop = StopReason::EpochLimit;
        for epoch in history.len() + 1..=self.epochs {
            let mut order: Vec<usize> = (0..labels.len()).collect();
            if self.shuffle {
                order.shuffle(&mut rng);
            }
            // Flips applied, and flips proposed (equal for faithful RDA; the vote
            // optimiser may decline a proposal at random).
            let (flips, proposed) = match &mut state {
                State::Faithful(step, targets) => {
                    let f = faithful_epoch(step, &mut params, inputs, targets, &order);
                    (f, f)
                }
                State::Votes(v, engine, by_example) => {
                    let (mut flips, mut proposed) = (0, 0);
                    for chunk in order.chunks(self.batch) {
                        let (f, p) =
                            vote_batch(net, engine, v, &mut params, by_example, labels, chunk, &mut rng);
                        flips += f;
                        proposed += p;
                    }
                    (flips, proposed)
                }
                State::Parity(engine, by_example) => {
                    let mut flips = 0;
                    for chunk in order.chunks(self.batch) {
                        flips += parity_batch(net, engine, &mut params, by_example, labels, chunk);
                    }
                    (flips, flips)
                }
            };
            let train_accuracy = accuracy(&predict(net, &params, inputs), labels);
            history.push(EpochStats { epoch, flips, proposed, train_accuracy });
            on_epoch(&EpochEnd { params: &params, history: &history, rng: &rng });
            if let Some(s) = stop_after(&history[history.len() - 1]) {
                stop = s;
                break;
            }
        }
        Ok(Report { params, stop, history })
    }
}

/// Why training stops after an epoch with these figures, if it does before the limit.
fn stop_after(last: &EpochStats) -> Option<StopReason> {
    if last.train_accuracy >= 1.0 {
        Some(StopReason::Perfect)
    } else if last.proposed == 0 {
        Some(StopReason::Converged)
    } else {
        None
    }
}

enum State {
    /// The step circuit and every example's target bits.
    Faithful(Program<Bool>, BitMatrix),
    /// The batched optimisers also keep the inputs one row per example: a batch is
    /// gathered by copying rows and transposing back.
    Votes(VoteParams, Engine, BitMatrix),
    Parity(Engine, BitMatrix),
}

/// What the batched optimisers evaluate: the forward outputs of a batch and, per
/// adjoint pattern, the ones in each parameter row of `R[f]`.
enum Engine {
    /// The fused LUT-network kernels (tables as constants, counts without rows).
    Lut(LutNetwork),
    /// Any circuit: parameters broadcast over the lanes, the fused reverse program.
    Generic(Program<Bool>, ReverseProgram<Bool>),
}

impl Engine {
    fn new(c: &Circuit<Bool>) -> Self {
        match LutNetwork::new(c) {
            Some(net) => Engine::Lut(net),
            None => Engine::Generic(Program::new(c), ReverseProgram::params_only(c)),
        }
    }

    fn forward(&self, params: &[bool], x: &BitMatrix) -> BitMatrix {
        match self {
            Engine::Lut(net) => net.eval(params, x, &EvalParams::default()),
            Engine::Generic(fwd, _) => {
                fwd.eval(&BitMatrix::broadcast(params, x.examples()).vstack(x), &EvalParams::default())
            }
        }
    }

    /// `counts[i * dys.len() + q]`: ones of row `i` of `R[f]((params, x), dys[q])`, or
    /// with `sum_fanouts` on a LUT network the path sums of [`Propagation::Sum`].
    fn counts(&self, params: &[bool], x: &BitMatrix, dys: &[BitMatrix], sum_fanouts: bool) -> Vec<u64> {
        match self {
            Engine::Lut(net) => {
                let how = if sum_fanouts { Propagation::Sum } else { Propagation::Xor };
                net.param_counts(params, x, dys, how, &EvalParams::default())
            }
            Engine::Generic(_, grad) => {
                let px = BitMatrix::broadcast(params, x.examples()).vstack(x);
                let mut counts = vec![0; params.len() * dys.len()];
                for (q, dy) in dys.iter().enumerate() {
                    let d = grad.eval(&px, dy, &EvalParams::default());
                    for i in 0..params.len() {
                        counts[i * dys.len() + q] = d.count_ones(i);
                    }
                }
                counts
            }
        }
    }
}

/// One batch of parity-aggregated RDA: `p <- p ^ sum_lanes R[f]((p, x), y ^ f(p, x))_P`
/// with the sum in Z2. Returns the flips.
fn parity_batch(
    net: &Network,
    engine: &Engine,
    params: &mut [bool],
    by_example: &BitMatrix,
    labels: &[u32],
    batch: &[usize],
) -> u64 {
    let x = by_example.select_rows(batch).transposed();
    let y: Vec<u32> = batch.iter().map(|&e| labels[e]).collect();
    let out = engine.forward(params, &x);
    let target = net.targets(&y);
    let mut err = BitMatrix::zeros(out.rows(), out.examples());
    for j in 0..out.rows() {
        for (w, (o, t)) in out.row(j).iter().zip(target.row(j)).enumerate() {
            err.row_mut(j)[w] = o ^ t;
        }
    }
    let counts = engine.counts(params, &x, &[err], false);
    let mut flips = 0;
    for (i, p) in params.iter_mut().enumerate() {
        if counts[i] % 2 == 1 {
            *p = !*p;
            flips += 1;
        }
    }
    flips
}

/// Predicted classes of `net` with `params` on every example.
#[must_use]
pub fn predict(net: &Network, params: &[bool], inputs: &BitMatrix) -> Vec<u32> {
    let out = forward(&net.circuit, params, inputs);
    net.spec.head.predict(&out, net.n_classes)
}

/// The circuit's outputs with `params` broadcast over the examples of `inputs`. LUT
/// networks run the fused kernel (tables as constants); other circuits get the parameter
/// rows broadcast over chunks of [`FORWARD_CHUNK`] examples, so memory beyond the inputs
/// and outputs does not grow with the data.
#[must_use]
pub fn forward(c: &Circuit<Bool>, params: &[bool], inputs: &BitMatrix) -> BitMatrix {
    if let Some(net) = LutNetwork::new(c) {
        return net.eval(params, inputs, &EvalParams::default());
    }
    let program = Program::new(c);
    let mut out = BitMatrix::zeros(c.n_outputs(), inputs.examples());
    let chunk_words = FORWARD_CHUNK / LANES;
    for w0 in (0..inputs.words()).step_by(chunk_words) {
        let w1 = (w0 + chunk_words).min(inputs.words());
        let x = inputs.word_range(w0, w1);
        let part =
            program.eval(&BitMatrix::broadcast(params, x.examples()).vstack(&x), &EvalParams::default());
        for r in 0..out.rows() {
            out.row_mut(r)[w0..w1].copy_from_slice(part.row(r));
        }
    }
    out
}

/// Examples per chunk of the generic forward pass.
pub const FORWARD_CHUNK: usize = 1 << 14;

fn faithful_epoch(
    step: &Program<Bool>,
    params: &mut Vec<bool>,
    inputs: &BitMatrix,
    targets: &BitMatrix,
    order: &[usize],
) -> u64 {
    let mut flips = 0;
    let serial = EvalParams { tile_words: 1, parallel: false };
    for &e in order {
        let mut vals = params.clone();
        vals.extend(inputs.example(e));
        vals.extend(targets.example(e));
        let m = BitMatrix::from_examples(vals.len(), &[vals]);
        let next = step.eval(&m, &serial).example(0);
        flips += params.iter().zip(&next).filter(|(a, b)| a != b).count() as u64;
        *params = next;
    }
    flips
}

/// One batch of the vote optimiser; returns the flips applied and the flips proposed.
#[allow(clippy::too_many_arguments)]
fn vote_batch(
    net: &Network,
    engine: &Engine,
    v: &VoteParams,
    params: &mut [bool],
    by_example: &BitMatrix,
    labels: &[u32],
    batch: &[usize],
    rng: &mut ChaCha8Rng,
) -> (u64, u64) {
    let x = by_example.select_rows(batch).transposed();
    let y: Vec<u32> = batch.iter().map(|&e| labels[e]).collect();
    let out = engine.forward(params, &x);
    let target = net.targets(&y);
    let active = active_lanes(net, &out, &y, v.margin);
    // Four adjoint patterns, split by target value so positives can be weighted:
    // flip votes come from wrong outputs, keep votes from right ones, on active lanes.
    let n_out = out.rows();
    let mut dys: [BitMatrix; 4] = std::array::from_fn(|_| BitMatrix::zeros(n_out, x.examples()));
    for j in 0..n_out {
        let (o, t) = (out.row(j), target.row(j));
        for w in 0..out.words() {
            let err = o[w] ^ t[w];
            let a = active[w];
            let valid = if w + 1 == out.words() { tail_mask(out.examples()) } else { u64::MAX };
            let k = if v.keep_from_all { valid } else { a };
            dys[0].row_mut(j)[w] = err & t[w] & a;
            dys[1].row_mut(j)[w] = err & !t[w] & a;
            dys[2].row_mut(j)[w] = !err & t[w] & k;
            dys[3].row_mut(j)[w] = !err & !t[w] & k;
        }
    }
    let counts = engine.counts(params, &x, &dys, v.sum_fanouts);
    // Proposals first, without branches (whether a score is positive is a coin toss for
    // the branch predictor), then one draw per proposal in parameter order.
    let mut proposals = vec![0u32; params.len()];
    let mut proposed = 0;
    for (i, c) in counts.chunks_exact(4).enumerate() {
        let pos = c[0] as f64 - c[2] as f64;
        let neg = c[1] as f64 - c[3] as f64;
        proposals[proposed] = i as u32;
        proposed += usize::from(v.positive_weight * pos + neg > 0.0);
    }
    let mut flips = 0;
    for &i in &proposals[..proposed] {
        let flip = v.accept >= 1.0 || rng.random::<f64>() < v.accept;
        params[i as usize] ^= flip;
        flips += u64::from(flip);
    }
    (flips, proposed as u64)
}

/// Lanes whose example still carries error: misclassified, or (for `groupsum`) within
/// the margin. Returned as one mask word per lane word.
fn active_lanes(net: &Network, out: &BitMatrix, labels: &[u32], margin: f64) -> Vec<u64> {
    let c = net.n_classes;
    let mut mask = vec![0u64; out.words()];
    match net.spec.head {
        Head::GroupSum(_) => {
            let per = (out.rows() / c) as f64;
            let scores = net.spec.head.scores(out, c);
            for (e, &l) in labels.iter().enumerate() {
                let row = &scores[e * c..(e + 1) * c];
                let own = f64::from(row[l as usize]);
                let rival = row
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| *k != l as usize)
                    .map(|(_, &s)| s)
                    .max()
                    .unwrap_or(0);
                if (own - f64::from(rival)) / per <= margin {
                    mask[e / 64] |= 1 << (e % 64);
                }
            }
        }
        Head::Binary | Head::OneHot => {
            let pred = net.spec.head.predict(out, c);
            for (e, (&p, &l)) in pred.iter().zip(labels).enumerate() {
                if p != l {
                    mask[e / 64] |= 1 << (e % 64);
                }
            }
        }
    }
    mask
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{Encoder, Encoding, builtin};
    use crate::learn::ModelSpec;

    /// Stopping after any epoch, saving the checkpoint as JSON and continuing from it ends
    /// with exactly the report of an uninterrupted run, for every optimiser.
    #[test]
    fn resuming_from_any_epoch_matches_an_uninterrupted_run() {
        let iris = builtin("iris").unwrap().unwrap();
        let x = Encoder::fit(&Encoding::Thermometer { bits: 4 }, &iris).unwrap().encode(&iris).unwrap();
        for (spec, optimizer) in [
            ("lut:4:24x1,groupsum:3", Optimizer::Votes(VoteParams::for_head(Head::GroupSum(3), 3))),
            (
                "lut:4:24x2,groupsum:3",
                Optimizer::Votes(VoteParams {
                    sum_fanouts: true,
                    ..VoteParams::for_head(Head::GroupSum(3), 3)
                }),
            ),
            ("lut:3:12x2,onehot", Optimizer::Parity),
            ("lut:2:6x1", Optimizer::Rda),
        ] {
            let net = Network::build(spec.parse::<ModelSpec>().unwrap(), x.rows(), 3, 5).unwrap();
            let trainer = Trainer::new(optimizer).epochs(6).batch(40).seed(9);
            let mut saved = Vec::new();
            let full = trainer
                .run_from(&net, &x, &iris.labels, None, |end| {
                    saved.push(serde_json::to_string(&end.checkpoint()).unwrap());
                })
                .unwrap();
            assert!(full.history.len() >= 2, "{spec}: too short to test resuming");
            for text in &saved {
                let c: Checkpoint = serde_json::from_str(text).unwrap();
                let resumed = trainer.run_from(&net, &x, &iris.labels, Some(c), |_| {}).unwrap();
                assert_eq!(resumed, full, "{spec}");
            }
        }
    }

    #[test]
    fn a_checkpoint_of_another_model_is_refused() {
        let net = Network::build("lut:2:4x1".parse::<ModelSpec>().unwrap(), 3, 2, 0).unwrap();
        let x = BitMatrix::from_examples(3, &[[true, false, true], [false, true, true]]);
        let c = Checkpoint { params: vec![true; 3], history: Vec::new(), rng_word_pos: "0".into() };
        let e = Trainer::new(Optimizer::Rda).run_from(&net, &x, &[0, 1], Some(c), |_| {}).unwrap_err();
        assert!(e.to_string().contains("3 parameters"), "{e}");
    }
}

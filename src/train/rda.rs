//! Reverse derivative ascent on Boolean circuits ([`Network`]), as a [`Rule`]:
//! - [`RdaVariant::Faithful`]: examples one at a time, in order, each applying
//!   `p <- p ^ R[f]((p, x), y ^ f(p, x))_P` through the [`rda_step`] circuit;
//! - [`RdaVariant::Votes`]: `R[f]_P` evaluated bit-parallel on a whole batch (by the fused
//!   LUT-network kernel where the circuit is one, which computes exactly what evaluating
//!   `rdiff(f)` restricted to the parameters computes) and each parameter counting its
//!   flip and keep votes (popcounts over the lanes); see [`VoteParams`];
//! - [`RdaVariant::Parity`]: the per-example changes summed in Z2, the categorical sum,
//!   kept to show why it fails (votes cancel in pairs);
//! - [`RdaVariant::HwVotes`]: the vote rule as the hardware trainer computes it
//!   (saturating counters, integer weight, a xorshift acceptance draw; [`HwVoteParams`]).

mod hw;
mod rewire;

pub use hw::{ACCEPT_BITS, HwVoteError, HwVoteParams, group_margin, salt, state_after, xorshift64};
use rewire::VoteView;
pub use rewire::{RewireParams, RewireStats};

use super::{Blob, CheckpointError, EarlyStop, Order, Rule, RuleState};
use crate::circuit::Circuit;
use crate::domain::{Bool, LutLayers, LutNetwork, Propagation};
use crate::lanes::{BitMatrix, EvalParams, Program, ReverseProgram, tail_mask};
use crate::learn::head::accuracy;
use crate::learn::predict::predict;
use crate::learn::rda::rda_step;
use crate::learn::{Head, Network};
use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// How the vote rule turns votes into flips.
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
            Head::Binary | Head::OneHot | Head::Cascade { .. } => 1.0,
        };
        Self { margin: 0.1, accept: 0.3, positive_weight, keep_from_all: true, sum_fanouts: false }
    }
}

/// The member of the RDA family a [`RdaRule`] runs.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum RdaVariant {
    /// Faithful per-example RDA (batch size 1, the published algorithm).
    Faithful,
    /// Batched RDA with per-parameter vote counting.
    Votes(VoteParams),
    /// Batched RDA summing the per-example changes in Z2 (parity): the categorical sum,
    /// kept to show why it fails (votes cancel in pairs); not for real use.
    Parity,
    /// Batched vote counting exactly as the Verilog trainer does it (saturating
    /// counters, integer weight, hardware random acceptance): see [`HwVoteParams`].
    HwVotes(HwVoteParams),
}

impl RdaVariant {
    /// A short name for reports (`rda`, `rda-votes`, `rda-parity`).
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            RdaVariant::Faithful => "rda",
            RdaVariant::Votes(_) => "rda-votes",
            RdaVariant::Parity => "rda-parity",
            RdaVariant::HwVotes(_) => "rda-votes-hw",
        }
    }
}

/// Initial parameter values.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Init {
    /// Every parameter 0 (the RDA paper's lookup table).
    Zeros,
    /// Uniform random bits from the trainer's generator.
    Random,
    /// Given parameters (a trained model to fine-tune).
    Given(Vec<bool>),
}

/// One epoch of RDA.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RdaEpoch {
    /// Epoch number, from 1.
    pub epoch: usize,
    /// Parameters flipped during the epoch.
    pub flips: u64,
    /// Flips proposed during the epoch (equal to `flips` but for the vote rule, which
    /// declines some at random).
    pub proposed: u64,
    /// Training accuracy after the epoch.
    pub train_accuracy: f64,
}

/// RDA on a [`Network`] with its training inputs (one row per input bit) and labels.
pub struct RdaRule<'a> {
    /// The network as given, or as rewired ([`RdaRule::rewire`]).
    net: Cow<'a, Network>,
    inputs: &'a BitMatrix,
    labels: &'a [u32],
    variant: RdaVariant,
    init: Init,
    batch: usize,
    shuffle: bool,
    params: Vec<bool>,
    engine: Engine,
    rewire: Option<RewireParams>,
    /// What the last rewiring did.
    rewired: Option<RewireStats>,
}

/// What a variant evaluates.
enum Engine {
    /// The step circuit and every example's target bits.
    Faithful(Program<Bool>, BitMatrix),
    /// The batched variants: the forward and reverse kernels, and the inputs one row per
    /// example (a batch is gathered by copying rows and transposing back).
    Batched(Kernels, BitMatrix),
}

impl<'a> RdaRule<'a> {
    /// The rule for `net` on `inputs` / `labels`: batch 1024, shuffled, random init.
    ///
    /// # Panics
    /// If `inputs` does not match the network's input width or the label count.
    #[must_use]
    pub fn new(net: &'a Network, inputs: &'a BitMatrix, labels: &'a [u32], variant: RdaVariant) -> Self {
        assert_eq!(inputs.rows(), net.circuit.n_args(), "one input row per input bit");
        assert_eq!(inputs.examples(), labels.len(), "one label per example");
        let engine = match variant {
            RdaVariant::Faithful => {
                Engine::Faithful(Program::new(&rda_step(&net.circuit)), net.targets(labels))
            }
            RdaVariant::Votes(_) | RdaVariant::Parity | RdaVariant::HwVotes(_) => {
                Engine::Batched(Kernels::of(net), inputs.transposed())
            }
        };
        Self {
            net: Cow::Borrowed(net),
            inputs,
            labels,
            variant,
            init: Init::Random,
            batch: 1024,
            shuffle: true,
            params: Vec::new(),
            engine,
            rewire: None,
            rewired: None,
        }
    }

    /// Rewire the last hidden layer of a layered LUT network between epochs as `p` says
    /// (see [`RewireParams`]); the vote rule only.
    #[must_use]
    pub fn rewire(mut self, p: RewireParams) -> Self {
        self.rewire = Some(p);
        self
    }

    /// Each layer's sources if rewiring changed the network (for the model file's
    /// `learned_wiring`), `None` otherwise.
    #[must_use]
    pub fn wiring(&self) -> Option<Vec<Vec<u32>>> {
        match &self.net {
            Cow::Owned(net) => {
                net.layers.as_ref().map(|l| l.layers.iter().map(|l| l.sources.clone()).collect())
            }
            Cow::Borrowed(_) => None,
        }
    }

    /// Rewires after an epoch (see [`RdaRule::rewire`]); `None` when not asked to, not
    /// the vote rule or not a layered LUT network.
    fn rewire_now(&mut self, rng: &mut ChaCha8Rng) -> Option<RewireStats> {
        let (p, RdaVariant::Votes(v)) = (self.rewire?, self.variant) else { return None };
        let mut layers = self.net.layers.clone()?;
        let out = match &self.engine {
            Engine::Batched(kernels, _) => kernels.forward(&self.params, self.inputs),
            Engine::Faithful(..) => return None,
        };
        let view = VoteView {
            inputs: self.inputs,
            targets: &self.net.targets(self.labels),
            active: &active_lanes(&self.net, &out, self.labels, v.margin),
            positive_weight: v.positive_weight,
        };
        let stats = rewire::rewire(&mut layers, &mut self.params, &view, &p, rng);
        self.set_layers(layers);
        Some(stats)
    }

    /// Replaces the network's layers (rewired, or restored from a checkpoint).
    fn set_layers(&mut self, layers: LutLayers) {
        let net = Network {
            spec: self.net.spec,
            circuit: layers.circuit(),
            n_classes: self.net.n_classes,
            layers: Some(layers),
            vote_weights: None,
        };
        if let Engine::Batched(kernels, _) = &mut self.engine {
            *kernels = Kernels::of(&net);
        }
        self.net = Cow::Owned(net);
    }

    /// Initial parameters.
    #[must_use]
    pub fn init(mut self, init: Init) -> Self {
        self.init = init;
        self
    }

    /// Examples per batch for the batched variants (ignored by faithful RDA).
    #[must_use]
    pub fn batch(mut self, n: usize) -> Self {
        self.batch = n.max(1);
        self
    }

    /// Visit examples in a fresh random order each epoch (`true`) or in file order.
    #[must_use]
    pub fn shuffle(mut self, yes: bool) -> Self {
        self.shuffle = yes;
        self
    }

    /// The parameters as they stand.
    #[must_use]
    pub fn params(&self) -> &[bool] {
        &self.params
    }

    /// The trained parameters.
    #[must_use]
    pub fn into_params(self) -> Vec<bool> {
        self.params
    }
}

impl Rule for RdaRule<'_> {
    type Epoch = RdaEpoch;

    fn name(&self) -> String {
        self.variant.name().to_owned()
    }

    fn n_examples(&self) -> usize {
        self.labels.len()
    }

    fn order(&self) -> Order {
        if self.shuffle { Order::Fresh } else { Order::Fixed((0..self.labels.len()).collect()) }
    }

    fn init(&mut self, rng: &mut ChaCha8Rng) {
        let n = self.net.n_params();
        self.params = match &self.init {
            Init::Zeros => vec![false; n],
            Init::Random => (0..n).map(|_| rng.random::<bool>()).collect(),
            Init::Given(p) => p.clone(),
        };
    }

    fn epoch(&mut self, epoch: usize, epochs: usize, order: &[usize], rng: &mut ChaCha8Rng) -> RdaEpoch {
        let (net, labels) = (&*self.net, self.labels);
        let (flips, proposed) = match (&self.engine, &self.variant) {
            (Engine::Faithful(step, targets), _) => {
                let f = faithful_epoch(step, &mut self.params, self.inputs, targets, order);
                (f, f)
            }
            (Engine::Batched(kernels, by_example), RdaVariant::Votes(v)) => {
                let (mut flips, mut proposed) = (0, 0);
                for chunk in order.chunks(self.batch) {
                    let (f, p) =
                        vote_batch(net, kernels, v, &mut self.params, by_example, labels, chunk, rng);
                    flips += f;
                    proposed += p;
                }
                (flips, proposed)
            }
            (Engine::Batched(kernels, by_example), RdaVariant::HwVotes(v)) => {
                // The generator steps once per batch, from the run's first batch.
                let per_epoch = order.len().div_ceil(self.batch) as u64;
                let mut state = state_after(v, (epoch as u64 - 1) * per_epoch);
                let (mut flips, mut proposed) = (0, 0);
                for chunk in order.chunks(self.batch) {
                    let (f, p) = hw::hw_vote_batch(
                        net,
                        kernels,
                        v,
                        &mut self.params,
                        by_example,
                        labels,
                        chunk,
                        state,
                    );
                    state = xorshift64(state);
                    flips += f;
                    proposed += p;
                }
                (flips, proposed)
            }
            (Engine::Batched(kernels, by_example), _) => {
                let mut flips = 0;
                for chunk in order.chunks(self.batch) {
                    flips += parity_batch(net, kernels, &mut self.params, by_example, labels, chunk);
                }
                (flips, flips)
            }
        };
        if self.rewire.is_some() && epoch < epochs {
            self.rewired = self.rewire_now(rng);
        }
        let net = &*self.net;
        let train_accuracy = shard_accuracy(net, &self.params, self.inputs, &self.engine, labels);
        RdaEpoch { epoch, flips, proposed, train_accuracy }
    }

    fn stop_after(&self, last: &RdaEpoch) -> Option<EarlyStop> {
        if last.train_accuracy >= 1.0 {
            Some(EarlyStop::Perfect)
        } else if last.proposed == 0 {
            Some(EarlyStop::Converged)
        } else {
            None
        }
    }

    fn describe(&self, e: &RdaEpoch) -> String {
        let rewired = match self.rewired {
            Some(r) if self.rewire.is_some() => format!(", rewired {} of {} offered", r.rewired, r.offered),
            _ => String::new(),
        };
        format!("train acc {:.3}, {} flips{rewired}", e.train_accuracy, e.flips)
    }

    fn save(&self) -> RuleState {
        let mut s = RuleState::default();
        s.put("params", Blob::Bits(self.params.clone()));
        if let Some(wiring) = self.wiring() {
            for (l, sources) in wiring.into_iter().enumerate() {
                s.put(&format!("wiring{l}"), Blob::U32(sources));
            }
        }
        s
    }

    fn restore(&mut self, mut state: RuleState) -> Result<(), CheckpointError> {
        self.params = state.take_bits("params", self.net.n_params())?;
        if let Some(mut layers) = self.net.layers.clone().filter(|_| state.has("wiring0")) {
            let mut below = layers.n_inputs;
            for (l, layer) in layers.layers.iter_mut().enumerate() {
                let sources = state.take_u32(&format!("wiring{l}"))?;
                let n = layer.sources.len();
                if sources.len() != n || sources.iter().any(|&s| s as usize >= below) {
                    return Err(CheckpointError::Mismatch(format!(
                        "wiring{l}: {} sources below {below} expected, not {} ({} too large)",
                        n,
                        sources.len(),
                        sources.iter().filter(|&&s| s as usize >= below).count()
                    )));
                }
                layer.sources = sources;
                below = layer.width();
            }
            self.set_layers(layers);
        }
        Ok(())
    }
}

/// The forward outputs of a batch and, per adjoint pattern, the ones in each parameter
/// row of `R[f]`.
enum Kernels {
    /// The fused LUT-network kernels (tables as constants, counts without rows): the
    /// declared backend of LUT networks, property-tested equal to the generic path.
    Lut(LutNetwork),
    /// Any circuit: parameters broadcast over the lanes, the fused reverse program.
    Generic(Program<Bool>, ReverseProgram<Bool>),
}

impl Kernels {
    /// The fused kernel of a layered network (from its layers), or of any circuit that
    /// is a LUT network; the generic path otherwise.
    fn of(net: &Network) -> Self {
        match &net.layers {
            Some(layers) => Kernels::Lut(LutNetwork::from_layers(layers)),
            None => Self::new(&net.circuit),
        }
    }

    fn new(c: &Circuit<Bool>) -> Self {
        match LutNetwork::new(c) {
            Some(net) => Kernels::Lut(net),
            None => Kernels::Generic(Program::new(c), ReverseProgram::params_only(c)),
        }
    }

    fn forward(&self, params: &[bool], x: &BitMatrix) -> BitMatrix {
        match self {
            Kernels::Lut(net) => net.eval(params, x, &EvalParams::default()),
            Kernels::Generic(fwd, _) => {
                fwd.eval(&BitMatrix::broadcast(params, x.examples()).vstack(x), &EvalParams::default())
            }
        }
    }

    /// `counts[i * dys.len() + q]`: ones of row `i` of `R[f]((params, x), dys[q])`, or
    /// with `sum_fanouts` on a LUT network the path sums of [`Propagation::Sum`].
    fn counts(&self, params: &[bool], x: &BitMatrix, dys: &[BitMatrix], sum_fanouts: bool) -> Vec<u64> {
        match self {
            Kernels::Lut(net) => {
                let how = if sum_fanouts { Propagation::Sum } else { Propagation::Xor };
                net.param_counts(params, x, dys, how, &EvalParams::default())
            }
            Kernels::Generic(_, grad) => {
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

/// One batch of parity-aggregated RDA: `p <- p ^ sum_lanes R[f]((p, x), y ^ f(p, x))_P`
/// with the sum in Z2. Returns the flips.
fn parity_batch(
    net: &Network,
    kernels: &Kernels,
    params: &mut [bool],
    by_example: &BitMatrix,
    labels: &[u32],
    batch: &[usize],
) -> u64 {
    let counts = shard_counts(params.len(), 1, batch, |batch| {
        let x = by_example.select_rows(batch).transposed();
        let y: Vec<u32> = batch.iter().map(|&e| labels[e]).collect();
        let out = kernels.forward(params, &x);
        let target = net.targets(&y);
        let mut err = BitMatrix::zeros(out.rows(), out.examples());
        for j in 0..out.rows() {
            for (w, (o, t)) in out.row(j).iter().zip(target.row(j)).enumerate() {
                err.row_mut(j)[w] = o ^ t;
            }
        }
        kernels.counts(params, &x, &[err], false)
    });
    let mut flips = 0;
    for (i, p) in params.iter_mut().enumerate() {
        if counts[i] % 2 == 1 {
            *p = !*p;
            flips += 1;
        }
    }
    flips
}

/// One batch of the vote rule; returns the flips applied and the flips proposed.
#[allow(clippy::too_many_arguments)]
fn vote_batch(
    net: &Network,
    kernels: &Kernels,
    v: &VoteParams,
    params: &mut [bool],
    by_example: &BitMatrix,
    labels: &[u32],
    batch: &[usize],
    rng: &mut ChaCha8Rng,
) -> (u64, u64) {
    let how = VoteCounting { margin: v.margin, keep_from_all: v.keep_from_all, sum_fanouts: v.sum_fanouts };
    let counts = vote_counts(net, kernels, &how, params, by_example, labels, batch);
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

/// What decides which examples vote and how votes propagate (the part of the vote rule
/// that [`VoteParams`] and [`HwVoteParams`] share).
pub(super) struct VoteCounting {
    /// As [`VoteParams::margin`].
    pub margin: f64,
    /// As [`VoteParams::keep_from_all`].
    pub keep_from_all: bool,
    /// As [`VoteParams::sum_fanouts`].
    pub sum_fanouts: bool,
}

/// The four vote counts of every parameter over a batch (`counts[4 * i + q]`): flip votes
/// from wrong outputs whose target is 1 (`q = 0`) and 0 (`1`) on active lanes, keep votes
/// from right ones with target 1 (`2`) and 0 (`3`) on active lanes, or on every lane with
/// `keep_from_all`. Sharded over MPI ranks by [`shard_counts`].
fn vote_counts(
    net: &Network,
    kernels: &Kernels,
    how: &VoteCounting,
    params: &[bool],
    by_example: &BitMatrix,
    labels: &[u32],
    batch: &[usize],
) -> Vec<u64> {
    shard_counts(params.len(), 4, batch, |batch| {
        let x = by_example.select_rows(batch).transposed();
        let y: Vec<u32> = batch.iter().map(|&e| labels[e]).collect();
        let out = kernels.forward(params, &x);
        let target = net.targets(&y);
        let active = active_lanes(net, &out, &y, how.margin);
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
                let k = if how.keep_from_all { valid } else { a };
                dys[0].row_mut(j)[w] = err & t[w] & a;
                dys[1].row_mut(j)[w] = err & !t[w] & a;
                dys[2].row_mut(j)[w] = !err & t[w] & k;
                dys[3].row_mut(j)[w] = !err & !t[w] & k;
            }
        }
        kernels.counts(params, &x, &dys, how.sum_fanouts)
    })
}

/// The vote counts of a batch (`per` counts for each of `n_params` parameters): under
/// [`dist::current`](crate::dist::current) with `N` ranks each rank counts its
/// [`block`](crate::dist::block) of the batch and the integer counts are summed over the
/// ranks (exact: the same counts as one process counting the whole batch), in the
/// narrowest words that hold them ([`sum_counts`](crate::dist::sum_counts)).
fn shard_counts(
    n_params: usize,
    per: usize,
    batch: &[usize],
    count: impl FnOnce(&[usize]) -> Vec<u64>,
) -> Vec<u64> {
    let comm = crate::dist::current();
    let mine = &batch[crate::dist::block(batch.len(), comm.size(), comm.rank())];
    let mut counts = if mine.is_empty() && comm.size() > 1 { vec![0; n_params * per] } else { count(mine) };
    crate::dist::sum_counts(&*comm, &mut counts);
    counts
}

/// Training accuracy of `params` over every example: under `N` ranks each predicts its
/// block of the examples and the correct counts are summed (the same figure as
/// [`accuracy`] over all of them).
fn shard_accuracy(
    net: &Network,
    params: &[bool],
    inputs: &BitMatrix,
    engine: &Engine,
    labels: &[u32],
) -> f64 {
    let comm = crate::dist::current();
    let by_example = match engine {
        Engine::Batched(_, by_example) if comm.size() > 1 && !labels.is_empty() => by_example,
        _ => return accuracy(&predict(net, params, inputs), labels),
    };
    let mine: Vec<usize> = crate::dist::block(labels.len(), comm.size(), comm.rank()).collect();
    let mut correct = [0u64];
    if !mine.is_empty() {
        let pred = predict(net, params, &by_example.select_rows(&mine).transposed());
        correct[0] = pred.iter().zip(&mine).filter(|&(&p, &e)| p == labels[e]).count() as u64;
    }
    comm.sum_u64(&mut correct);
    correct[0] as f64 / labels.len() as f64
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
        Head::Binary | Head::OneHot | Head::Cascade { .. } => {
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

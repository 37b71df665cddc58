//! Relaxed logic as a [`Rule`]: a [`RelaxedNet`] trained by Adam on the softmax
//! cross-entropy of its group sums, through the smooth domain's learner lens
//! ([`RelaxedNet::circuit`]). The changes of the trained network during a run are
//! [`Phase`]s of a [`Schedule`] fixed before the run, each starting at an epoch:
//! narrowing the input choice to the heaviest candidates, fixing it (hard choice), and
//! computing with each node's discretised table (straight-through). Its targets may mix in
//! a teacher's probabilities (distillation), and its class scores may start from offsets
//! (boosting: the earlier networks' votes, [`RelaxedRule::with_score_offsets`]).
//!
//! Deterministic for a given seed whatever the thread count: every kernel sums in an
//! order fixed by the data (see [`smooth::lut`](crate::smooth::lut)).

use super::batch::ExampleRows;
use super::gradient_sum::batch_gradients;
use super::{Blob, CheckpointError, Order, Rule, RuleState};
use crate::circuit::CircuitBuilder;
use crate::lanes::BitMatrix;
use crate::learn::relaxed::{ReachablePart, RelaxedNet, StraightThroughChoice, argmax, one_hot};
use crate::smooth::loss::{self, LossKind};
use crate::smooth::optim::{Adam, Optimizer as _};
use crate::smooth::{SmoothCircuit, SmoothOp, Tensor, eval_tensors, parameter_changes, shared};
use rand::seq::SliceRandom as _;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// Settings of relaxed training.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RelaxedParams {
    /// Passes over the training data.
    pub epochs: usize,
    /// Examples per Adam step.
    pub batch: usize,
    /// Adam learning rate.
    pub lr: f32,
    /// GroupSum temperature: class score = group sum / tau.
    pub tau: f32,
    /// Seed of initialisation and shuffling.
    pub seed: u64,
    /// Added to the pass-through logit at initialisation (0 = plain normal init).
    pub residual: f32,
    /// Cosine learning-rate decay: step `t` of `T` uses `lr (1 + cos(pi t / T)) / 2`;
    /// otherwise the rate stays `lr`.
    #[serde(default)]
    pub cosine: bool,
    /// With a learned input choice: the last epochs train the tables with the choice made
    /// hard (each input its heaviest candidate), so that they fit the wiring the
    /// discretised network will have.
    #[serde(default)]
    pub hard_choice_epochs: usize,
    /// The last epochs compute with each node's discretised table (straight-through: the
    /// forward pass is the discretised network's, the logits learn through the softmax
    /// of a gate or the sigmoid of a LUT entry), so that training sees the network it
    /// will export.
    #[serde(default)]
    pub hard_gate_epochs: usize,
    /// With a learned input choice: after this many epochs each input keeps only its
    /// [`narrow_to`](Self::narrow_to) heaviest candidates (0: never), which makes the
    /// remaining soft-choice epochs cheaper; the choice settles in the first epochs.
    #[serde(default)]
    pub narrow_after: usize,
    /// Candidates each input keeps after [`narrow_after`](Self::narrow_after) epochs.
    #[serde(default)]
    pub narrow_to: usize,
    /// The learned choices whose forward pass reads each input's heaviest candidate
    /// until the choice is made hard (the logits learn through the softmax).
    #[serde(default, skip_serializing_if = "StraightThroughChoice::is_none")]
    pub straight_through_choice: StraightThroughChoice,
    /// Training examples that are images followed by moved copies of them (`--shifts`):
    /// each epoch trains on every image and some of its copies drawn at random (none:
    /// on every example).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draws: Option<Draws>,
}

/// Each epoch's examples when the training examples are images followed by `copies`
/// moved copies of them (copy `c` of image `i` is example `c * images + i`, from `c = 1`):
/// every image, and `drawn` of its copies chosen at random afresh each epoch. The epoch
/// is `(1 + drawn) / (1 + copies)` of the full one; over the epochs most copies are seen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Draws {
    /// Moved copies of each image among the examples.
    pub copies: usize,
    /// Copies of each image an epoch trains on, `1..=copies`.
    pub drawn: usize,
}

impl Draws {
    /// Examples an epoch trains on, of `n`.
    #[must_use]
    pub fn per_epoch(&self, n: usize) -> usize {
        n / (1 + self.copies) * (1 + self.drawn)
    }

    /// The examples of `order` (every example, in any order) that an epoch trains on, in
    /// `order`'s order: every image, and `drawn` of each image's copies (chosen with
    /// `rng`).
    fn pick(&self, order: &[usize], rng: &mut ChaCha8Rng) -> Vec<usize> {
        let images = order.len() / (1 + self.copies);
        // `kept[c * images + i]`: whether copy `c + 1` of image `i` is drawn.
        let mut kept = vec![false; images * self.copies];
        let mut copies: Vec<usize> = (0..self.copies).collect();
        for i in 0..images {
            let (drawn, _) = copies.partial_shuffle(rng, self.drawn);
            drawn.iter().for_each(|&c| kept[c * images + i] = true);
        }
        order.iter().copied().filter(|&e| e < images || kept[e - images]).collect()
    }
}

impl Default for RelaxedParams {
    fn default() -> Self {
        Self {
            epochs: 20,
            batch: 128,
            lr: 0.01,
            tau: 1.0,
            seed: 0,
            residual: 0.0,
            cosine: false,
            hard_choice_epochs: 0,
            hard_gate_epochs: 0,
            narrow_after: 0,
            narrow_to: 0,
            straight_through_choice: StraightThroughChoice::None,
            draws: None,
        }
    }
}

/// A change of the trained network during a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Phase {
    /// Each input of the choice keeps its `keep` heaviest candidates (Adam's moments
    /// carried over).
    Narrow {
        /// Candidates kept per input.
        keep: usize,
    },
    /// The input choice is fixed to each input's heaviest candidate (the discretised
    /// wiring); its logits are no longer trained.
    HardChoice,
    /// Nodes compute with their discretised tables; logits learn through the softmax
    /// (gates) or the sigmoid (LUTs).
    StraightThrough,
}

/// The phases of a run, each with the epoch it starts at, in the order they apply.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Schedule(pub Vec<(usize, Phase)>);

impl Schedule {
    /// The schedule `p` asks for over `p.epochs` epochs, for a network with or without an
    /// input choice: narrowing after `narrow_after` epochs (dropped when the choice is
    /// already hard by then), the hard choice for the last `hard_choice_epochs`, hard
    /// gates for the last `hard_gate_epochs`.
    #[must_use]
    pub fn of(p: &RelaxedParams, has_choice: bool) -> Self {
        let last = |n: usize| (n > 0).then(|| p.epochs.saturating_sub(n) + 1);
        let hard = last(p.hard_choice_epochs).filter(|_| has_choice && p.epochs > 0);
        let mut phases = Vec::new();
        let narrow = p.narrow_after + 1;
        if has_choice
            && p.narrow_to > 0
            && p.narrow_after > 0
            && narrow <= p.epochs
            && hard.is_none_or(|h| narrow < h)
        {
            phases.push((narrow, Phase::Narrow { keep: p.narrow_to }));
        }
        if let Some(h) = hard {
            phases.push((h, Phase::HardChoice));
        }
        if let Some(s) = last(p.hard_gate_epochs).filter(|_| p.epochs > 0) {
            phases.push((s, Phase::StraightThrough));
        }
        // Within an epoch: the choice changes first, then straight-through.
        phases.sort_by_key(|&(e, phase)| (e, phase == Phase::StraightThrough));
        Self(phases)
    }

    /// The phases that start at `epoch`.
    pub fn at(&self, epoch: usize) -> impl Iterator<Item = Phase> + '_ {
        self.0.iter().filter(move |(e, _)| *e == epoch).map(|&(_, p)| p)
    }

    /// The phases in force during `epoch` (started at or before it).
    pub fn until(&self, epoch: usize) -> impl Iterator<Item = Phase> + '_ {
        self.0.iter().filter(move |(e, _)| *e <= epoch).map(|&(_, p)| p)
    }
}

/// One epoch of relaxed training.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RelaxedEpoch {
    /// Epoch number, from 1.
    pub epoch: usize,
    /// Mean cross-entropy over the epoch's batches.
    pub loss: f64,
    /// Soft accuracy over the epoch's batches (parameters moving during the epoch).
    pub running_accuracy: f64,
}

/// Relaxed training of a [`RelaxedNet`] on its training inputs (one row per input bit)
/// and labels.
pub struct RelaxedRule<'a> {
    net: &'a RelaxedNet,
    /// The training inputs, one row per example (batches are gathered from them).
    batches: ExampleRows,
    labels: &'a [u32],
    p: RelaxedParams,
    schedule: Schedule,
    /// One logit tensor per layer of `chosen`, then its choice's (while soft).
    params: Vec<Tensor>,
    adams: Vec<Adam>,
    /// The choice logits once made hard (then no longer trained).
    hard_choice: Option<Vec<f32>>,
    /// With the choice narrowed: the index in `net`'s choice logits of each trained one.
    kept: Option<Vec<usize>>,
    straight_through: bool,
    /// Adam steps taken (the cosine schedule's clock).
    steps: usize,
    /// The network trained now: `net`, then with the choice narrowed, then made hard.
    chosen: RelaxedNet,
    /// The gates of `chosen` an output reaches, which the step computes (none: all).
    reachable: Option<ReachablePart>,
    /// Whether the step computes the reachable gates only (the same logits, faster).
    prune: bool,
    /// The input rows the step's first layer reads (none: all), which are all its
    /// batches hold.
    input_rows: Option<Vec<usize>>,
    wiring: Vec<Tensor>,
    step: SmoothCircuit,
    ce: SmoothCircuit,
    /// Distillation: a teacher's class probabilities per training example (row-major,
    /// `classes` per example) and their weight `w` in each target, `(1 - w) one_hot + w p`.
    soft_targets: Option<(Vec<f32>, f32)>,
    /// Boosting: offsets added to each training example's class scores (row-major,
    /// `classes` per example), the earlier members' scaled counts.
    score_offsets: Option<Vec<f32>>,
    /// Boosting: this network's number and the run's network count, which its
    /// checkpoints carry in the rule's name.
    member: Option<(usize, usize)>,
}

impl<'a> RelaxedRule<'a> {
    /// The rule for `net` with settings `p`.
    ///
    /// # Panics
    /// If `inputs` does not match the network's input width or the label count, or
    /// `p.draws` does not fit the examples (images and their copies, 1 to `copies` drawn).
    #[must_use]
    pub fn new(net: &'a RelaxedNet, inputs: &'a BitMatrix, labels: &'a [u32], p: RelaxedParams) -> Self {
        assert_eq!(inputs.rows(), net.network.circuit.n_args(), "one input row per input bit");
        assert_eq!(inputs.examples(), labels.len(), "one label per example");
        if let Some(d) = p.draws {
            assert!(labels.len().is_multiple_of(1 + d.copies), "images and their copies");
            assert!((1..=d.copies).contains(&d.drawn), "1 to {} copies drawn", d.copies);
        }
        let mut rule = Self {
            net,
            batches: ExampleRows::new(inputs),
            labels,
            p,
            schedule: Schedule::of(&p, net.has_choice()),
            params: Vec::new(),
            adams: Vec::new(),
            hard_choice: None,
            kept: None,
            straight_through: false,
            steps: 0,
            chosen: net.clone(),
            // The trained network's wiring and step: made by `rebuild` below.
            input_rows: None,
            wiring: Vec::new(),
            step: SmoothCircuit::wiring(0, &[]),
            reachable: None,
            prune: true,
            ce: loss::softmax_cross_entropy_map(),
            soft_targets: None,
            score_offsets: None,
            member: None,
        };
        rule.rebuild();
        rule
    }

    /// The rule of network `m` (from 0) of a boosted run of `n`: its checkpoints name
    /// the network, so that one network's state is never resumed as another's (they
    /// have the same shapes).
    #[must_use]
    pub fn as_member(mut self, m: usize, n: usize) -> Self {
        self.member = Some((m, n));
        self
    }

    /// The rule learning with `offsets` added to the class scores of each training
    /// example (one row of `classes` per example) before the loss: boosting, where the
    /// offsets are the earlier networks' votes, so this network learns what they miss.
    ///
    /// # Panics
    /// If `offsets` is not one row of `classes` per training example.
    #[must_use]
    pub fn with_score_offsets(mut self, offsets: Vec<f32>) -> Self {
        let classes = self.net.network.n_classes;
        assert_eq!(offsets.len(), self.labels.len() * classes, "one row of offsets per example");
        self.score_offsets = Some(offsets);
        self.rebuild();
        self
    }

    /// The rule learning from a teacher as well as from the labels: each example's target
    /// is `(1 - weight) one_hot(label) + weight probs[example]`, where `probs` holds one
    /// distribution over the classes per training example (knowledge distillation, Hinton
    /// et al. 2015, with the teacher's temperature applied by the caller).
    ///
    /// # Panics
    /// If `probs` is not one row of `classes` per training example, or `weight` is not in
    /// `[0, 1]`.
    #[must_use]
    pub fn with_soft_targets(mut self, probs: Vec<f32>, weight: f32) -> Self {
        let classes = self.net.network.n_classes;
        assert_eq!(probs.len(), self.labels.len() * classes, "one distribution per example");
        assert!((0.0..=1.0).contains(&weight), "a weight in [0, 1]");
        self.soft_targets = Some((probs, weight));
        self
    }

    /// The rule computing every gate, reached or not (for comparing with the pruned step).
    #[cfg(test)]
    pub(crate) fn every_gate(mut self) -> Self {
        self.prune = false;
        self.rebuild();
        self
    }

    /// The run's phases.
    #[must_use]
    pub fn schedule(&self) -> &Schedule {
        &self.schedule
    }

    /// The logits in `net`'s layout ([`RelaxedNet::discretise`] and the other readers
    /// take them): candidates narrowed away get -1000 (softmax weight exactly 0); a hard
    /// choice is appended as 0 / -1000 logits.
    #[must_use]
    pub fn logits(&self) -> Vec<f32> {
        self.flat(self.hard_choice.as_ref(), self.kept.as_deref())
    }

    fn flat(&self, hard: Option<&Vec<f32>>, kept: Option<&[usize]>) -> Vec<f32> {
        let n_tables = self.net.n_table_logits();
        let mut v: Vec<f32> = self.params.iter().flat_map(|t| t.data().iter().copied()).collect();
        if let Some(kept) = kept.filter(|_| hard.is_none()) {
            let narrowed = v.split_off(n_tables);
            v.resize(self.net.n_logits(), -1000.0);
            for (&i, w) in kept.iter().zip(narrowed) {
                v[n_tables + i] = w;
            }
        }
        v.extend(hard.into_iter().flatten());
        v
    }

    /// Applies `phase` to the parameters and the trained network.
    fn apply(&mut self, phase: Phase) {
        let net = self.net;
        match phase {
            Phase::HardChoice => {
                let logits = self.flat(None, self.kept.as_deref());
                self.hard_choice = Some(net.hard_choice_logits(&logits));
                self.chosen = net.with_chosen_inputs(&logits);
                self.params.truncate(self.chosen.n_layers());
                self.adams.truncate(self.chosen.n_layers());
            }
            Phase::Narrow { keep } => {
                let logits = self.flat(None, None);
                let (narrowed, kept) = net.with_top_candidates(&logits, keep);
                // The kept indices run through the choices' logits in order: each choice
                // tensor (and its Adam moments) keeps its share.
                let (mut base, mut from) = (0, 0);
                for (t, adam) in self.params.iter_mut().zip(&mut self.adams).skip(self.chosen.n_layers()) {
                    let n = t.len();
                    let to = from + kept[from..].iter().take_while(|&&i| i < base + n).count();
                    let mine = &kept[from..to];
                    let pick = |v: &[f32]| mine.iter().map(|&i| v[i - base]).collect::<Vec<f32>>();
                    let rows = t.shape()[0];
                    *t = Tensor::new(vec![rows, mine.len() / rows], pick(t.data()));
                    if !adam.m.is_empty() {
                        (adam.m, adam.v) = (pick(&adam.m), pick(&adam.v));
                    }
                    (base, from) = (base + n, to);
                }
                self.chosen = narrowed;
                self.kept = Some(kept);
            }
            Phase::StraightThrough => self.straight_through = true,
        }
    }

    /// Rebuilds the wiring and step circuit of the trained network (its reachable part,
    /// reading only the input rows its first layer reads).
    fn rebuild(&mut self) {
        self.reachable = if self.prune { self.chosen.reachable_part() } else { None };
        let net = self.reachable.as_ref().map_or(&self.chosen, |r| &r.net);
        let (rows, narrowed) = net.reading_only_its_inputs();
        let narrow = self.prune && rows.len() < self.net.network.circuit.n_args();
        let net = if narrow { &narrowed } else { net };
        self.input_rows = narrow.then_some(rows);
        self.wiring = net.wiring();
        self.step = step_circuit(
            &net.circuit_with(self.p.tau, self.straight_through, self.p.straight_through_choice),
            self.score_offsets.is_some(),
        );
    }
}

impl Rule for RelaxedRule<'_> {
    type Epoch = RelaxedEpoch;

    fn name(&self) -> String {
        match self.member {
            None => "relaxed-adam".into(),
            Some((m, n)) => format!("relaxed-adam, network {} of {n}", m + 1),
        }
    }

    fn n_examples(&self) -> usize {
        self.labels.len()
    }

    fn order(&self) -> Order {
        Order::Carried
    }

    fn init(&mut self, _rng: &mut ChaCha8Rng) {
        self.params = self.net.logit_tensors(&self.net.init(self.p.seed, self.p.residual));
        self.adams = self.params.iter().map(|_| Adam::new(self.p.lr)).collect();
    }

    fn epoch(&mut self, epoch: usize, epochs: usize, order: &[usize], rng: &mut ChaCha8Rng) -> RelaxedEpoch {
        let phases: Vec<Phase> = self.schedule.at(epoch).collect();
        for &phase in &phases {
            self.apply(phase);
        }
        if !phases.is_empty() {
            self.rebuild();
        }
        let (p, classes) = (self.p, self.net.network.n_classes);
        let drawn;
        let order = match p.draws {
            Some(d) => {
                drawn = d.pick(order, rng);
                &drawn[..]
            }
            None => order,
        };
        let per_epoch = p.draws.map_or(self.labels.len(), |d| d.per_epoch(self.labels.len()));
        let total_steps = (per_epoch.div_ceil(p.batch.max(1)) * epochs).max(1);
        let (mut loss, mut correct) = (0.0f64, 0usize);
        for idx in order.chunks(p.batch.max(1)) {
            if p.cosine {
                let phase = std::f32::consts::PI * self.steps as f32 / total_steps as f32;
                self.adams.iter_mut().for_each(|a| a.lr = p.lr * 0.5 * (1.0 + phase.cos()));
            }
            self.steps += 1;
            // The logits of the reached gates; their gradients go back to their places,
            // the others' are zero.
            let picked: Option<Vec<Tensor>> = self.reachable.as_ref().map(|r| r.pick(&self.params));
            let params = picked.as_ref().unwrap_or(&self.params);
            let (grads, stats) = batch_gradients(params, idx.len(), 2, |part| {
                let idx = &idx[part];
                let x = self.batches.gather(idx);
                let x = match &self.input_rows {
                    Some(rows) => x.packed_rows(rows).expect("a batch is gathered packed"),
                    None => x,
                };
                let mut y = one_hot(self.labels, idx, classes);
                if let Some((probs, w)) = &self.soft_targets {
                    for (row, &e) in y.data_mut().chunks_exact_mut(classes).zip(idx) {
                        let teacher = &probs[e * classes..(e + 1) * classes];
                        row.iter_mut().zip(teacher).for_each(|(t, &p)| *t = (1.0 - w) * *t + w * p);
                    }
                }
                let offsets = self.score_offsets.as_ref().map(|o| {
                    let rows = idx.iter().flat_map(|&e| &o[e * classes..(e + 1) * classes]);
                    Tensor::new(vec![idx.len(), classes], rows.copied().collect())
                });
                let ins: Vec<&Tensor> =
                    params.iter().chain(&self.wiring).chain([&x]).chain(&offsets).chain([&y]).collect();
                let mut out = eval_tensors(&self.step, &ins);
                let scores = out.pop().expect("scores");
                let mean = eval_tensors(&self.ce, &[&scores, &y])[0].data()[0];
                let right = scores
                    .data()
                    .chunks(classes)
                    .zip(idx)
                    .filter(|&(s, &e)| argmax(s) == self.labels[e] as usize);
                (out, vec![f64::from(mean) * idx.len() as f64, right.count() as f64])
            });
            loss += stats[0];
            correct += stats[1] as usize;
            let grads = match &self.reachable {
                Some(r) => grads
                    .iter()
                    .zip(&r.picks)
                    .zip(&self.params)
                    .map(|((g, pick), t)| spread(g, pick, t))
                    .collect(),
                None => grads,
            };
            for ((t, g), adam) in self.params.iter_mut().zip(&grads).zip(&mut self.adams) {
                adam.step(t.data_mut(), g.data());
            }
        }
        let n = order.len().max(1) as f64;
        RelaxedEpoch { epoch, loss: loss / n, running_accuracy: correct as f64 / n }
    }

    fn describe(&self, e: &RelaxedEpoch) -> String {
        format!("loss {:.4}, running acc {:.3}", e.loss, e.running_accuracy)
    }

    fn save(&self) -> RuleState {
        let mut s = RuleState::default();
        let shapes: Vec<&[usize]> = self.params.iter().map(Tensor::shape).collect();
        s.set("shapes", &shapes);
        s.set("steps", &self.steps);
        s.set("straight_through", &self.straight_through);
        s.set("adam_t", &self.adams.iter().map(|a| a.t).collect::<Vec<u32>>());
        for (i, (t, a)) in self.params.iter().zip(&self.adams).enumerate() {
            s.put(&format!("logits{i}"), Blob::F32(t.data().to_vec()));
            s.put(&format!("adam_m{i}"), Blob::F32(a.m.clone()));
            s.put(&format!("adam_v{i}"), Blob::F32(a.v.clone()));
        }
        if let Some(h) = &self.hard_choice {
            s.put("hard_choice", Blob::F32(h.clone()));
        }
        if let Some(k) = &self.kept {
            s.put("kept", Blob::U32(k.iter().map(|&i| i as u32).collect()));
        }
        s
    }

    fn restore(&mut self, mut s: RuleState) -> Result<(), CheckpointError> {
        let bad = |why: String| CheckpointError::Mismatch(why);
        let net = self.net;
        let shapes: Vec<Vec<usize>> = s.get("shapes")?;
        let adam_t: Vec<u32> = s.get("adam_t")?;
        if adam_t.len() != shapes.len() {
            return Err(bad(format!("{} Adam states for {} tensors", adam_t.len(), shapes.len())));
        }
        self.steps = s.get("steps")?;
        self.straight_through = s.get("straight_through")?;
        let kept = if s.has("kept") {
            Some(s.take_u32("kept")?.into_iter().map(|i| i as usize).collect::<Vec<_>>())
        } else {
            None
        };
        self.hard_choice = if s.has("hard_choice") {
            Some(s.take_f32("hard_choice", Some(net.n_choice_logits()))?)
        } else {
            None
        };
        self.chosen = net.clone();
        if let Some(kept) = &kept {
            let narrowed = net.keep_of(kept.len()).and_then(|keep| net.with_kept_candidates(kept, keep));
            let Some(narrowed) = narrowed else {
                return Err(bad("narrowed candidates that do not fit the model's choices".into()));
            };
            self.chosen = narrowed;
        }
        self.kept = kept;
        self.params.clear();
        self.adams.clear();
        for (i, shape) in shapes.iter().enumerate() {
            let n = shape.iter().product();
            let data = s.take_f32(&format!("logits{i}"), Some(n))?;
            self.params.push(Tensor::new(shape.clone(), data));
            let mut adam = Adam::new(self.p.lr);
            adam.t = adam_t[i];
            adam.m = s.take_f32(&format!("adam_m{i}"), None)?;
            adam.v = s.take_f32(&format!("adam_v{i}"), None)?;
            if !(adam.m.is_empty() || adam.m.len() == n) || adam.v.len() != adam.m.len() {
                return Err(bad(format!("Adam state {i} does not fit its tensor")));
            }
            self.adams.push(adam);
        }
        if self.hard_choice.is_some() {
            self.chosen = net.with_chosen_inputs(&self.logits());
        }
        let expected =
            self.chosen.n_layers() + if self.hard_choice.is_none() { self.chosen.n_choices() } else { 0 };
        if self.params.len() != expected {
            return Err(bad(format!("{} logit tensors, the network trains {expected}", self.params.len())));
        }
        self.rebuild();
        Ok(())
    }
}

/// Trains `net` with settings `p` from its initial logits (the [`Trainer`](super::Trainer)
/// with `p`'s epochs and seed), calling `on_epoch` with each epoch's figures and the
/// logits after it; returns the trained logits (in `net`'s layout) and the report.
pub fn train_relaxed(
    net: &RelaxedNet,
    inputs: &BitMatrix,
    labels: &[u32],
    p: &RelaxedParams,
    mut on_epoch: impl FnMut(&RelaxedEpoch, &[f32]),
) -> (Vec<f32>, super::Report<RelaxedEpoch>) {
    let mut rule = RelaxedRule::new(net, inputs, labels, *p);
    let trainer = super::Trainer::new().epochs(p.epochs).seed(p.seed);
    let report = trainer
        .run(&mut rule, None, |end| on_epoch(end.figures(), &end.rule().logits()))
        .expect("a fresh start has no checkpoint to mismatch");
    (rule.logits(), report)
}

/// `g` (the gradient of a [`ReachablePart::pick`]ed tensor) put back at the places `pick` of a
/// tensor like `like`, zero elsewhere.
fn spread(g: &Tensor, pick: &[u32], like: &Tensor) -> Tensor {
    let mut out = crate::smooth::tensor::par_zeros(like.len());
    for (&i, &v) in pick.iter().zip(g.data()) {
        out[i as usize] = v;
    }
    Tensor::new(like.shape().to_vec(), out)
}

/// The training step's circuit: inputs the logits, the wiring, the input bits, with
/// `offset` the class scores' offsets, and the one-hot targets; outputs the gradient of
/// the mean cross-entropy for every logit tensor (the learner's [`parameter_changes`] at
/// learning rate 1), then the class scores (offsets added), the forward pass shared
/// between them.
fn step_circuit(model: &SmoothCircuit, offset: bool) -> SmoothCircuit {
    let offset_model;
    let model = if offset {
        offset_model = with_score_offset(model);
        &offset_model
    } else {
        model
    };
    let n_params = model.n_params();
    let learner = loss::learner(model, &LossKind::SoftmaxCrossEntropy.lens(), 1.0)
        .expect("the relaxed circuit has one output");
    let changes = parameter_changes(&learner, n_params);
    let mut b = CircuitBuilder::<SmoothOp>::new(0, model.n_inputs() + 1);
    let ins = b.args();
    let mut out = b.instantiate(&changes, &ins).expect("inputs of the learner");
    out.extend(b.instantiate(model, &ins[..model.n_inputs()]).expect("inputs of the model"));
    shared(&b.finish(out).expect("a valid circuit"))
}

/// `model` with one more input after its own, added to its class scores.
fn with_score_offset(model: &SmoothCircuit) -> SmoothCircuit {
    let (n_params, n_args) = (model.n_params(), model.n_inputs() - model.n_params());
    let mut b = CircuitBuilder::<SmoothOp>::new(n_params, n_args + 1);
    let mut ins = b.params();
    ins.extend_from_slice(&b.args()[..n_args]);
    let scores = b.instantiate(model, &ins).expect("inputs of the model");
    let shifted = b.gate(SmoothOp::Add, &[scores[0], b.arg(n_args)]);
    shared(&b.finish(vec![shifted]).expect("a valid circuit"))
}

#[cfg(test)]
#[path = "relaxed_tests.rs"]
mod tests;

//! Relaxed logic: LUT and gate networks trained as smooth maps, then discretised into
//! the Boolean LUT network of the same wiring (`lut:K:WxD,groupsum:C`).
//!
//! Two relaxations, both multilinear in the node's inputs (so a node is exact on 0/1):
//! - `gates:WxD` (differentiable logic gate networks, Petersen et al. 2022): each node is
//!   a softmax mixture of the 16 two-input Boolean functions, each relaxed
//!   probabilistically (AND = ab, XOR = a + b - 2ab, ...). The relaxation of function `f`
//!   is the interpolation of its truth table, so the mixture is one relaxed 2-LUT whose
//!   table is `t_s = sum_f softmax(w)_f [f(s)]`; the kernel sees four numbers per node.
//!   Discretised: the table of `argmax_f w_f`.
//! - `lut:K:WxD`: each node a K-LUT with table `sigmoid(w_s)`; discretised: `w_s > 0`.
//!
//! The network is the composite of its layers' lenses `(forward, R[forward])`, written as
//! fused f32 loops over a chunk of examples ([`kernel`]); the head is `groupsum` with
//! temperature `tau` and softmax cross-entropy. Wiring comes from [`Network::build`] of
//! the discrete spec, so the discretised parameters drop into the Boolean network that
//! `model.json`, `export`, `verify` and `eval` already rebuild from spec and seed.

pub mod kernel;

use super::network::ModelError;
use super::spec::{Head, ModelSpec, SpecError};
use super::{Network, StopReason};
use crate::domain::Bool;
use crate::lanes::BitMatrix;
use crate::smooth::optim::{Adam, Optimizer as _};
use kernel::LayerWiring;
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// Examples per parallel work item; fixed (not per thread) so results do not depend on the
/// thread count.
const CHUNK: usize = 32;

/// How a node's table is parametrised.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Relaxation {
    /// Softmax over the 16 two-input functions (16 logits per node).
    Gates,
    /// Sigmoid of each table entry (`2^K` logits per node).
    Lut,
}

/// A relaxed model spec: `gates:WxD[,groupsum:C]` or `lut:K:WxD[,groupsum:C]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RelaxedSpec {
    /// The relaxation.
    pub relaxation: Relaxation,
    /// The discrete network it becomes (always a LUT body with a `groupsum` head).
    pub discrete: ModelSpec,
}

impl RelaxedSpec {
    /// Parses `text`; without a head, `groupsum:n_classes`.
    ///
    /// # Errors
    /// [`SpecError`] for a malformed spec or a head other than `groupsum`.
    pub fn parse(text: &str, n_classes: usize) -> Result<Self, SpecError> {
        let err = |why: &str| SpecError { spec: text.to_string(), why: why.to_string() };
        let (relaxation, lut_text) = match text.strip_prefix("gates:") {
            Some(rest) => (Relaxation::Gates, format!("lut:2:{rest}")),
            None if text.starts_with("lut:") => (Relaxation::Lut, text.to_string()),
            None => return Err(err("relaxed models are gates:WxD or lut:K:WxD")),
        };
        let with_head =
            if lut_text.contains(',') { lut_text } else { format!("{lut_text},groupsum:{n_classes}") };
        let discrete: ModelSpec = with_head.parse().map_err(|e: SpecError| err(&e.why))?;
        if !matches!(discrete.head, Head::GroupSum(_)) {
            return Err(err("relaxed training needs the groupsum:C head"));
        }
        Ok(Self { relaxation, discrete })
    }
}

impl std::fmt::Display for RelaxedSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = self.discrete.to_string();
        match self.relaxation {
            Relaxation::Gates => write!(f, "gates:{}", text.trim_start_matches("lut:2:")),
            Relaxation::Lut => write!(f, "{text}"),
        }
    }
}

/// A relaxed network: the discrete LUT network plus the layer wiring the kernels read.
#[derive(Clone, Debug)]
pub struct RelaxedNet {
    /// The relaxation.
    pub relaxation: Relaxation,
    /// The Boolean network the relaxed one discretises into.
    pub network: Network,
    layers: Vec<LayerWiring>,
    /// First parameter of each node's table in `network`, nodes in layer order.
    table_params: Vec<usize>,
}

impl RelaxedNet {
    /// Builds the relaxed network of `spec` for `n_inputs` input bits and `n_classes`
    /// classes, with the wiring [`Network::build`] draws from `seed`.
    ///
    /// # Errors
    /// [`ModelError`] if the spec does not fit the data.
    pub fn build(
        spec: RelaxedSpec,
        n_inputs: usize,
        n_classes: usize,
        seed: u64,
    ) -> Result<Self, ModelError> {
        let network = Network::build(spec.discrete, n_inputs, n_classes, seed)?;
        if spec.relaxation == Relaxation::Gates && n_inputs < 2 {
            return Err(ModelError::NoInputs);
        }
        let c = &network.circuit;
        let (n_params, n_in) = (c.n_params(), c.n_inputs());
        // (layer, index within layer) of every wire that a node reads or is.
        let mut place: Vec<(usize, u32)> =
            (0..n_in).map(|w| (0, (w.saturating_sub(n_params)) as u32)).collect();
        let mut layers: Vec<LayerWiring> = Vec::new();
        let mut table_params = Vec::new();
        for (_, op, fanins) in c.gates() {
            let Bool::Lut(k) = *op else { unreachable!("LUT networks hold only LUT gates") };
            let size = 1usize << k;
            let (table, addr) = fanins.split_at(size);
            let from = place[addr[0].index()].0;
            debug_assert!(addr.iter().all(|w| place[w.index()].0 == from), "layered wiring");
            debug_assert!(table.iter().enumerate().all(|(s, w)| w.index() == table[0].index() + s));
            if layers.len() == from {
                layers.push(LayerWiring { k: usize::from(k), sources: Vec::new() });
            }
            let layer = &mut layers[from];
            let index = layer.width() as u32;
            layer.sources.extend(addr.iter().map(|w| place[w.index()].1));
            table_params.push(table[0].index());
            place.push((from + 1, index));
        }
        Ok(Self { relaxation: spec.relaxation, network, layers, table_params })
    }

    /// Number of nodes (LUTs or gates).
    #[must_use]
    pub fn n_nodes(&self) -> usize {
        self.table_params.len()
    }

    /// Logits per node.
    fn logits_per_node(&self, k: usize) -> usize {
        match self.relaxation {
            Relaxation::Gates => 16,
            Relaxation::Lut => 1 << k,
        }
    }

    /// `(first node, first logit, first table entry)` of every layer, and the totals.
    fn offsets(&self) -> Vec<(usize, usize, usize)> {
        let mut out = Vec::with_capacity(self.layers.len() + 1);
        let (mut node, mut logit, mut entry) = (0, 0, 0);
        for l in &self.layers {
            out.push((node, logit, entry));
            node += l.width();
            logit += l.width() * self.logits_per_node(l.k);
            entry += l.width() << l.k;
        }
        out.push((node, logit, entry));
        out
    }

    /// Number of real-valued parameters (logits).
    #[must_use]
    pub fn n_logits(&self) -> usize {
        self.offsets().last().map_or(0, |o| o.1)
    }

    /// Initial logits: standard normal (as difflogic), plus `residual` on the logit of the
    /// pass-through of the first input (gate `a`, or table entries `+-residual` by address
    /// bit 0), which keeps deep networks trainable.
    #[must_use]
    pub fn init(&self, seed: u64, residual: f32) -> Vec<f32> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x05ee_d0f1_091c);
        let mut w: Vec<f32> = (0..self.n_logits()).map(|_| standard_normal(&mut rng)).collect();
        let offsets = self.offsets();
        for (l, layer) in self.layers.iter().enumerate() {
            let m = self.logits_per_node(layer.k);
            for node in w[offsets[l].1..offsets[l + 1].1].chunks_exact_mut(m) {
                match self.relaxation {
                    Relaxation::Gates => node[PASS_A] += residual,
                    Relaxation::Lut => {
                        for (s, v) in node.iter_mut().enumerate() {
                            *v += if s & 1 == 1 { residual } else { -residual };
                        }
                    }
                }
            }
        }
        w
    }

    /// The relaxed tables (`2^k` entries in `[0, 1]` per node) of the logits.
    #[must_use]
    pub fn tables(&self, logits: &[f32]) -> Vec<f32> {
        let offsets = self.offsets();
        let mut t = vec![0.0f32; offsets.last().map_or(0, |o| o.2)];
        for (l, layer) in self.layers.iter().enumerate() {
            let (m, size) = (self.logits_per_node(layer.k), 1usize << layer.k);
            let ws = logits[offsets[l].1..offsets[l + 1].1].chunks_exact(m);
            for (w, tab) in ws.zip(t[offsets[l].2..offsets[l + 1].2].chunks_exact_mut(size)) {
                match self.relaxation {
                    Relaxation::Gates => {
                        let p = softmax16(w);
                        for (s, v) in tab.iter_mut().enumerate() {
                            *v = (0..16).filter(|f| f >> s & 1 == 1).map(|f| p[f]).sum();
                        }
                    }
                    Relaxation::Lut => {
                        for (v, &x) in tab.iter_mut().zip(w) {
                            *v = sigmoid(x);
                        }
                    }
                }
            }
        }
        t
    }

    /// Chain rule from table adjoints to logit adjoints.
    fn logit_grads(&self, logits: &[f32], tables: &[f32], dtables: &[f32]) -> Vec<f32> {
        let offsets = self.offsets();
        let mut g = vec![0.0f32; logits.len()];
        for (l, layer) in self.layers.iter().enumerate() {
            let (m, size) = (self.logits_per_node(layer.k), 1usize << layer.k);
            let (lo, hi) = (offsets[l].1, offsets[l + 1].1);
            let (elo, ehi) = (offsets[l].2, offsets[l + 1].2);
            let nodes = logits[lo..hi]
                .chunks_exact(m)
                .zip(g[lo..hi].chunks_exact_mut(m))
                .zip(tables[elo..ehi].chunks_exact(size).zip(dtables[elo..ehi].chunks_exact(size)));
            for ((w, dw), (t, dt)) in nodes {
                match self.relaxation {
                    Relaxation::Gates => {
                        let p = softmax16(w);
                        let dp: Vec<f32> = (0..16)
                            .map(|f| (0..4).filter(|s| f >> s & 1 == 1).map(|s| dt[s]).sum())
                            .collect();
                        let mean: f32 = p.iter().zip(&dp).map(|(a, b)| a * b).sum();
                        for f in 0..16 {
                            dw[f] = p[f] * (dp[f] - mean);
                        }
                    }
                    Relaxation::Lut => {
                        for ((d, &v), &a) in dw.iter_mut().zip(t).zip(dt) {
                            *d = a * v * (1.0 - v);
                        }
                    }
                }
            }
        }
        g
    }

    /// The Boolean parameters of [`network`](Self::network): each node's most likely
    /// function (gates) or its table entries above 1/2 (LUTs).
    #[must_use]
    pub fn discretise(&self, logits: &[f32]) -> Vec<bool> {
        let offsets = self.offsets();
        let mut params = vec![false; self.network.n_params()];
        for (l, layer) in self.layers.iter().enumerate() {
            let m = self.logits_per_node(layer.k);
            let ws = logits[offsets[l].1..offsets[l + 1].1].chunks_exact(m);
            for (w, &base) in ws.zip(&self.table_params[offsets[l].0..offsets[l + 1].0]) {
                let bits: Vec<bool> = match self.relaxation {
                    Relaxation::Gates => {
                        let f = argmax(w);
                        (0..4).map(|s| f >> s & 1 == 1).collect()
                    }
                    Relaxation::Lut => w.iter().map(|&x| x > 0.0).collect(),
                };
                params[base..base + bits.len()].copy_from_slice(&bits);
            }
        }
        params
    }

    /// Nodes of the discretised network (`params` from [`discretise`](Self::discretise))
    /// that an output reaches through address bits their tables depend on: the gates left
    /// after pruning unused and ignored ones.
    #[must_use]
    pub fn live_nodes(&self, params: &[bool]) -> usize {
        let offsets = self.offsets();
        let last = self.layers.last().map_or(0, LayerWiring::width);
        let mut live = vec![true; last];
        let mut count = 0;
        for (l, layer) in self.layers.iter().enumerate().rev() {
            let (k, size) = (layer.k, 1usize << layer.k);
            let prev_width = if l == 0 { self.network.circuit.n_args() } else { self.layers[l - 1].width() };
            let mut reached = vec![false; prev_width];
            for (n, _) in live.iter().enumerate().filter(|(_, v)| **v) {
                count += 1;
                let t = &params[self.table_params[offsets[l].0 + n]..][..size];
                for i in 0..k {
                    if (0..size).any(|s| t[s] != t[s ^ (1 << i)]) {
                        reached[layer.sources[k * n + i] as usize] = true;
                    }
                }
            }
            live = reached;
        }
        count
    }

    /// Forward over one chunk: activations of every layer, inputs first.
    fn forward_chunk(&self, tables: &[f32], x: Vec<f32>, len: usize) -> Vec<Vec<f32>> {
        let offsets = self.offsets();
        let mut acts = vec![x];
        for (l, layer) in self.layers.iter().enumerate() {
            let mut out = vec![0.0f32; layer.width() * len];
            let t = &tables[offsets[l].2..offsets[l + 1].2];
            kernel::forward(layer, t, &acts[l], len, &mut out);
            acts.push(out);
        }
        acts
    }

    /// Reverse over one chunk from the last layer's adjoints; adds into `dtables`.
    fn reverse_chunk(
        &self,
        tables: &[f32],
        acts: &[Vec<f32>],
        dlast: Vec<f32>,
        len: usize,
        dtables: &mut [f32],
    ) {
        let offsets = self.offsets();
        let mut dout = dlast;
        for (l, layer) in self.layers.iter().enumerate().rev() {
            let mut dprev = vec![0.0f32; acts[l].len()];
            let (lo, hi) = (offsets[l].2, offsets[l + 1].2);
            kernel::reverse(layer, &tables[lo..hi], &acts[l], &dout, len, &mut dprev, &mut dtables[lo..hi]);
            dout = dprev;
        }
    }

    /// Soft predictions (argmax of the relaxed group sums) on every example.
    #[must_use]
    pub fn soft_predict(&self, logits: &[f32], inputs: &BitMatrix) -> Vec<u32> {
        let tables = self.tables(logits);
        let order: Vec<usize> = (0..inputs.examples()).collect();
        order
            .par_chunks(CHUNK)
            .flat_map_iter(|idx| {
                let acts = self.forward_chunk(&tables, gather(inputs, idx), idx.len());
                let scores =
                    group_scores(acts.last().expect("a layer"), idx.len(), self.network.n_classes, 1.0);
                scores.chunks(self.network.n_classes).map(|s| argmax(s) as u32).collect::<Vec<_>>()
            })
            .collect()
    }
}

/// Index of the gate `a` (pass-through of address bit 0) among the 16 functions: its
/// truth table over `s = a + 2b` is `0b1010`.
const PASS_A: usize = 0b1010;

fn softmax16(w: &[f32]) -> [f32; 16] {
    let mx = w.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut p = [0.0f32; 16];
    let mut sum = 0.0;
    for (pi, &x) in p.iter_mut().zip(w) {
        *pi = (x - mx).exp();
        sum += *pi;
    }
    p.iter_mut().for_each(|x| *x /= sum);
    p
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// First index of the largest value.
fn argmax(v: &[f32]) -> usize {
    let mut best = 0;
    for (i, &x) in v.iter().enumerate() {
        if x > v[best] {
            best = i;
        }
    }
    best
}

fn standard_normal(rng: &mut ChaCha8Rng) -> f32 {
    let u1: f64 = rng.random::<f64>().max(1e-12);
    let u2: f64 = rng.random();
    ((-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()) as f32
}

/// Input bits of examples `idx` as 0/1 floats, node-major (`x[i * len + e]`).
fn gather(inputs: &BitMatrix, idx: &[usize]) -> Vec<f32> {
    let len = idx.len();
    let mut x = vec![0.0f32; inputs.rows() * len];
    for (i, row) in x.chunks_exact_mut(len).enumerate() {
        let words = inputs.row(i);
        for (v, &e) in row.iter_mut().zip(idx) {
            *v = (words[e / 64] >> (e % 64) & 1) as f32;
        }
    }
    x
}

/// Class scores per example (`scores[e * classes + c]`): the sum of group `c` of the
/// last layer's outputs, divided by `tau`.
fn group_scores(last: &[f32], len: usize, classes: usize, tau: f32) -> Vec<f32> {
    let per = last.len() / len / classes;
    let mut s = vec![0.0f32; len * classes];
    for (j, row) in last.chunks_exact(len).enumerate() {
        let c = j / per;
        for (e, &y) in row.iter().enumerate() {
            s[e * classes + c] += y;
        }
    }
    s.iter_mut().for_each(|v| *v /= tau);
    s
}

/// Table adjoints, summed cross-entropy and correct count of the examples `idx`; the
/// adjoints are those of the summed loss times `scale`.
fn chunk_gradient(
    net: &RelaxedNet,
    tables: &[f32],
    inputs: &BitMatrix,
    labels: &[u32],
    idx: &[usize],
    tau: f32,
    scale: f32,
) -> (Vec<f32>, f64, usize) {
    let (len, classes) = (idx.len(), net.network.n_classes);
    let acts = net.forward_chunk(tables, gather(inputs, idx), len);
    let last = acts.last().expect("a layer");
    let scores = group_scores(last, len, classes, tau);
    let (mut loss, mut correct) = (0.0f64, 0usize);
    let mut dscore = vec![0.0f32; scores.len()];
    for (e, (s, d)) in scores.chunks(classes).zip(dscore.chunks_mut(classes)).enumerate() {
        let y = labels[idx[e]] as usize;
        let mx = s.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let z: f32 = s.iter().map(|v| (v - mx).exp()).sum();
        loss += f64::from(z.ln() + mx - s[y]);
        correct += usize::from(argmax(s) == y);
        // d(loss)/d(score) = softmax - onehot; score = sum / tau.
        for (c, dv) in d.iter_mut().enumerate() {
            *dv = ((s[c] - mx).exp() / z - f32::from(u8::from(c == y))) * scale / tau;
        }
    }
    let per = last.len() / len / classes;
    let mut dlast = vec![0.0f32; last.len()];
    for (j, row) in dlast.chunks_exact_mut(len).enumerate() {
        let c = j / per;
        for (e, v) in row.iter_mut().enumerate() {
            *v = dscore[e * classes + c];
        }
    }
    let mut dtables = vec![0.0f32; tables.len()];
    net.reverse_chunk(tables, &acts, dlast, len, &mut dtables);
    (dtables, loss, correct)
}

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
}

impl Default for RelaxedParams {
    fn default() -> Self {
        Self { epochs: 20, batch: 128, lr: 0.01, tau: 1.0, seed: 0, residual: 0.0 }
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

/// What relaxed training produced.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RelaxedReport {
    /// The trained logits.
    pub logits: Vec<f32>,
    /// Why it stopped.
    pub stop: StopReason,
    /// Per-epoch figures.
    pub history: Vec<RelaxedEpoch>,
}

/// Trains `net` on `inputs` (one row per input bit) and `labels` with Adam on the
/// softmax cross-entropy of the group sums. Deterministic for a given seed whatever the
/// thread count: chunks are fixed-size and their gradients are summed in order.
/// `on_epoch` sees each epoch's figures and the logits after it.
pub fn train(
    net: &RelaxedNet,
    inputs: &BitMatrix,
    labels: &[u32],
    p: &RelaxedParams,
    mut on_epoch: impl FnMut(&RelaxedEpoch, &[f32]),
) -> RelaxedReport {
    assert_eq!(inputs.rows(), net.network.circuit.n_args(), "one input row per input bit");
    assert_eq!(inputs.examples(), labels.len(), "one label per example");
    let mut logits = net.init(p.seed, p.residual);
    let mut adam = Adam::new(p.lr);
    let mut rng = ChaCha8Rng::seed_from_u64(p.seed);
    let mut history = Vec::new();
    let mut order: Vec<usize> = (0..labels.len()).collect();
    for epoch in 1..=p.epochs {
        order.shuffle(&mut rng);
        let (mut loss, mut correct) = (0.0f64, 0usize);
        for batch in order.chunks(p.batch.max(1)) {
            let tables = net.tables(&logits);
            let scale = 1.0 / batch.len() as f32;
            let parts: Vec<(Vec<f32>, f64, usize)> = batch
                .par_chunks(CHUNK)
                .map(|idx| chunk_gradient(net, &tables, inputs, labels, idx, p.tau, scale))
                .collect();
            let mut dtables = vec![0.0f32; tables.len()];
            for (d, l, ok) in parts {
                dtables.iter_mut().zip(&d).for_each(|(a, b)| *a += b);
                loss += l;
                correct += ok;
            }
            let grads = net.logit_grads(&logits, &tables, &dtables);
            adam.step(&mut logits, &grads);
        }
        let n = labels.len().max(1) as f64;
        let stats = RelaxedEpoch { epoch, loss: loss / n, running_accuracy: correct as f64 / n };
        on_epoch(&stats, &logits);
        history.push(stats);
    }
    RelaxedReport { logits, stop: StopReason::EpochLimit, history }
}

#[cfg(test)]
mod tests;

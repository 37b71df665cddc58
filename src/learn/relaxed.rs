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
//! The network is a smooth circuit ([`RelaxedNet::circuit`]) of the relaxed-logic gates of
//! [`SmoothOp`] (see [`smooth::lut`](crate::smooth::lut)): per layer, logits to tables
//! (`TruthTables ∘ softmax` for gates, `sigmoid` for LUTs), then a relaxed LUT
//! layer reading the previous layer through the layer's wiring, an input tensor of node
//! indices; the head is `groupsum` divided by the temperature `tau`. Training is the
//! smooth domain's: the learner lens with softmax cross-entropy, its
//! [`parameter_changes`](crate::smooth::parameter_changes) circuit, Adam per logit
//! tensor. Wiring comes from [`Network::build`] of the discrete spec, so the discretised
//! parameters drop into the Boolean network that `model.json`, `export`, `verify` and
//! `eval` already rebuild from spec and seed.
//!
//! Any layer's wiring can be learned instead: each address bit reads a softmax mixture
//! of candidate sources. In the first layer ([`RelaxedNet::with_input_choice`]) they are
//! input bits, drawn from the whole input or, for images, near one pixel per gate
//! ([`RelaxedNet::with_local_input_choice`]); in the later layers
//! ([`RelaxedNet::with_hidden_choice`]) they are nodes of the previous layer, drawn from
//! the whole layer or from the nodes whose centre pixel is near the gate's own. Training
//! can narrow every choice to the heaviest candidates part-way
//! ([`RelaxedParams::narrow_to`](crate::train::RelaxedParams::narrow_to)) and fix it for
//! the last epochs
//! ([`RelaxedParams::hard_choice_epochs`](crate::train::RelaxedParams::hard_choice_epochs)),
//! or read each input's heaviest candidate from the start while the logits learn through
//! the softmax ([`StraightThroughChoice`]);
//! `model.json` stores the chosen sources of every layer with a choice.

use super::Network;
use super::network::ModelError;
use super::spec::{Head, ModelSpec, SpecError};
use crate::circuit::CircuitBuilder;
use crate::lanes::BitMatrix;
use crate::smooth::lut::LayerWiring;
use crate::smooth::{PackedBits, SmoothCircuit, SmoothOp, Tensor, eval_tensors};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

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

/// The learned choices whose forward pass reads each input's heaviest candidate from the
/// start of training (straight-through, [`SmoothOp::StraightThroughMax`] on the choice's
/// softmax: the logits still learn through the softmax, from every candidate), instead of
/// the softmax mixture of the candidates. A gate then sees the one source it would read
/// if the choice were made hard now, not a blur of its candidates.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StraightThroughChoice {
    /// Every choice is a softmax mixture until it is made hard.
    #[default]
    None,
    /// The choices of the layers after the first.
    Hidden,
    /// Every choice, the first layer's too.
    All,
}

impl StraightThroughChoice {
    /// The names `--straight-through-choice` takes, in order.
    pub const NAMES: [&str; 3] = ["none", "hidden", "all"];

    /// The setting called `name` (one of [`NAMES`](Self::NAMES)).
    #[must_use]
    pub fn parse(name: &str) -> Option<Self> {
        [Self::None, Self::Hidden, Self::All].into_iter().find(|c| c.name() == name)
    }

    /// Its name.
    #[must_use]
    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    /// Whether the choice of layer `layer` (0: the first) reads its heaviest candidate.
    #[must_use]
    pub fn covers(self, layer: usize) -> bool {
        match self {
            Self::None => false,
            Self::Hidden => layer > 0,
            Self::All => true,
        }
    }

    /// Whether this is [`None`](Self::None) (serde skips the default).
    #[must_use]
    pub fn is_none(&self) -> bool {
        *self == Self::None
    }
}

/// The pixel grid of image inputs, for [`RelaxedNet::with_local_input_choice`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PixelGrid {
    /// Pixels per row.
    pub width: usize,
    /// Rows.
    pub height: usize,
}

/// A relaxed network: the discrete LUT network plus the layer wiring the kernels read.
#[derive(Clone, Debug)]
pub struct RelaxedNet {
    /// The relaxation.
    pub relaxation: Relaxation,
    /// The Boolean network the relaxed one discretises into (its wiring drawn from the
    /// seed; with a learned input choice, [`discrete_network`](Self::discrete_network)
    /// is the one the trained logits make).
    pub network: Network,
    pub(crate) layers: Vec<LayerWiring>,
    /// First parameter of each node's table in `network`, nodes in layer order.
    pub(crate) table_params: Vec<usize>,
    /// The seed of `network`'s wiring.
    seed: u64,
    /// Learned wiring, one entry per layer: `C` candidate sources in the previous layer
    /// (the input bits for the first) for each address bit of the layer (a wiring with
    /// `k = C`, one row per address bit), or none (the seeded wiring is kept). The choice
    /// logits of the layers follow the table logits, layer by layer.
    pub(crate) choices: Vec<Option<LayerWiring>>,
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
        let Some(lut_layers) = &network.layers else {
            return Err(ModelError::Wiring {
                layer: 0,
                why: format!("model {} has no LUT layers", spec.discrete),
            });
        };
        let mut layers: Vec<LayerWiring> = Vec::with_capacity(lut_layers.layers.len());
        for l in &lut_layers.layers {
            let prev_width = layers.last().map_or(lut_layers.n_inputs, LayerWiring::width);
            layers.push(LayerWiring::new(l.k, l.sources.clone(), prev_width));
        }
        let table_params = lut_layers.table_starts();
        let choices = vec![None; layers.len()];
        Ok(Self { relaxation: spec.relaxation, network, layers, table_params, seed, choices })
    }

    /// The same network with a learned input choice: each address bit of the first layer
    /// reads a softmax mixture of `candidates` input bits (the seeded source and
    /// `candidates - 1` drawn from `seed`) with learned logits ([`SmoothOp::SoftChoice`]),
    /// and reads the heaviest one once discretised. `candidates <= 1` keeps the seeded
    /// wiring.
    #[must_use]
    pub fn with_input_choice(self, candidates: usize, seed: u64) -> Self {
        let n_inputs = self.network.circuit.n_args() as u32;
        self.with_candidates(0, candidates, seed, |gate, i, c, rng| {
            if c == 0 { gate[i] } else { rng.random_range(0..n_inputs) }
        })
    }

    /// [`with_input_choice`](Self::with_input_choice) with a locality prior for image
    /// inputs (feature-major rows, as [`Encoder`](crate::data::Encoder) writes them, one
    /// feature per pixel of `grid`): the candidates of a first-layer gate are input bits
    /// (any threshold) of pixels within `radius` rows and columns of the gate's centre,
    /// the pixel of its first seeded source, which stays its first candidate. A gate then
    /// compares nearby pixels (edges, strokes), as a convolution's first layer does,
    /// without shared weights.
    ///
    /// # Errors
    /// [`ModelError::NotAnImage`] if the input bits are not a whole number of bits per
    /// pixel of `grid`.
    pub fn with_local_input_choice(
        self,
        candidates: usize,
        seed: u64,
        grid: PixelGrid,
        radius: usize,
    ) -> Result<Self, ModelError> {
        let bits = self.bits_per_pixel(grid)?;
        let near = near_pixel(grid, radius);
        Ok(self.with_candidates(0, candidates, seed, |gate, i, c, rng| {
            if i == 0 && c == 0 {
                gate[0]
            } else {
                (near(gate[0] as usize / bits, rng) * bits + rng.random_range(0..bits)) as u32
            }
        }))
    }

    /// The same network with learned wiring in every layer after the first: each address
    /// bit of a gate reads a softmax mixture of `candidates` nodes of the previous layer
    /// (its seeded source first, the others drawn from `seed`) and, discretised, the
    /// heaviest one. Candidates come from the whole previous layer or, with `local`, from
    /// the nodes whose centre pixel lies within `radius` rows and columns of the gate's
    /// own: a first-layer gate's centre is the pixel of its first seeded source, a later
    /// gate's the centre of its first seeded source, so a gate keeps reading near the
    /// part of the image its first source covers (address bit 0 keeps its seeded source
    /// as candidate 0). `candidates <= 1` keeps the seeded wiring.
    ///
    /// # Errors
    /// [`ModelError::NotAnImage`] if `local` names a grid the input bits do not fit.
    pub fn with_hidden_choice(
        mut self,
        candidates: usize,
        seed: u64,
        local: Option<(PixelGrid, usize)>,
    ) -> Result<Self, ModelError> {
        let Some((grid, radius)) = local else {
            for l in 1..self.layers.len() {
                let prev = self.layers[l - 1].width() as u32;
                self = self.with_candidates(l, candidates, seed, |gate, i, c, rng| {
                    if c == 0 { gate[i] } else { rng.random_range(0..prev) }
                });
            }
            return Ok(self);
        };
        let bits = self.bits_per_pixel(grid)?;
        let near = near_pixel(grid, radius);
        // Centre pixel of each node of the previous layer, and its nodes by centre.
        let mut centres: Vec<usize> =
            self.layers[0].sources.chunks_exact(self.layers[0].k).map(|g| g[0] as usize / bits).collect();
        for l in 1..self.layers.len() {
            let mut by_pixel = vec![Vec::new(); grid.width * grid.height];
            for (n, &p) in centres.iter().enumerate() {
                by_pixel[p].push(n as u32);
            }
            let draw = |gate: &[u32], i: usize, c: usize, rng: &mut ChaCha8Rng| {
                if i == 0 && c == 0 {
                    return gate[0];
                }
                // A pixel near the centre that some node is centred on (the seeded
                // source after a bounded number of tries).
                let centre = centres[gate[0] as usize];
                for _ in 0..NEAR_TRIES {
                    let nodes = &by_pixel[near(centre, rng)];
                    if !nodes.is_empty() {
                        return nodes[rng.random_range(0..nodes.len())];
                    }
                }
                gate[0]
            };
            self = self.with_candidates(l, candidates, seed, draw);
            let layer = &self.layers[l];
            centres = layer.sources.chunks_exact(layer.k).map(|g| centres[g[0] as usize]).collect();
        }
        Ok(self)
    }

    /// Input bits per pixel of `grid` (feature-major rows, as
    /// [`Encoder`](crate::data::Encoder) writes them, one feature per pixel).
    fn bits_per_pixel(&self, grid: PixelGrid) -> Result<usize, ModelError> {
        let inputs = self.network.circuit.n_args();
        let (width, height) = (grid.width, grid.height);
        if width * height == 0 || !inputs.is_multiple_of(width * height) {
            return Err(ModelError::NotAnImage { inputs, width, height });
        }
        Ok(inputs / (width * height))
    }

    /// The choice of `candidates` per address bit of layer `layer`, candidate `c` of
    /// address bit `i` of a gate whose seeded sources are `gate` being
    /// `draw(gate, i, c, rng)`; `candidates <= 1` keeps the seeded wiring.
    fn with_candidates(
        mut self,
        layer: usize,
        candidates: usize,
        seed: u64,
        mut draw: impl FnMut(&[u32], usize, usize, &mut ChaCha8Rng) -> u32,
    ) -> Self {
        if candidates <= 1 {
            self.choices[layer] = None;
            return self;
        }
        // The first layer's stream is the one it always had; later layers' differ by layer.
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0xc401_ce5e_ed00 ^ ((layer as u64) << 56));
        let wiring = &self.layers[layer];
        let mut sources = Vec::with_capacity(wiring.sources.len() * candidates);
        for gate in wiring.sources.chunks_exact(wiring.k) {
            for i in 0..gate.len() {
                sources.extend((0..candidates).map(|c| draw(gate, i, c, &mut rng)));
            }
        }
        self.choices[layer] = Some(LayerWiring::new(candidates, sources, wiring.prev_width()));
        self
    }

    /// Candidates per address bit of the first layer (1: no learned choice).
    #[must_use]
    pub fn input_candidates(&self) -> usize {
        self.candidates(0)
    }

    /// Candidates per address bit of layer `layer` (1: its seeded wiring).
    #[must_use]
    pub fn candidates(&self, layer: usize) -> usize {
        self.choices.get(layer).and_then(Option::as_ref).map_or(1, |c| c.k)
    }

    /// The layers with a learned choice, with their choices, in order.
    fn choice_layers(&self) -> impl Iterator<Item = (usize, &LayerWiring)> {
        self.choices.iter().enumerate().filter_map(|(l, c)| c.as_ref().map(|c| (l, c)))
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
    pub(crate) fn offsets(&self) -> Vec<(usize, usize, usize)> {
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

    /// Logits of the layers' tables (the choices' follow them).
    pub(crate) fn n_table_logits(&self) -> usize {
        self.offsets().last().map_or(0, |o| o.1)
    }

    /// Number of real-valued parameters (logits): the tables', then the choices'.
    #[must_use]
    pub fn n_logits(&self) -> usize {
        self.n_table_logits() + self.n_choice_logits()
    }

    /// Initial logits: standard normal (as difflogic), plus `residual` on the logit of the
    /// pass-through of the first input (gate `a`, or table entries `+-residual` by address
    /// bit 0), which keeps deep networks trainable; the choices start uniform, a later
    /// layer's with `residual` on its seeded source.
    #[must_use]
    pub fn init(&self, seed: u64, residual: f32) -> Vec<f32> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x05ee_d0f1_091c);
        let mut w: Vec<f32> = (0..self.n_logits()).map(|_| standard_normal(&mut rng)).collect();
        // Every choice starts uniform, except that a later layer's starts `residual` above
        // on its seeded source (candidate 0), so that the network starts near its seeded
        // wiring as it starts near pass-through gates, instead of reading averages.
        w[self.n_table_logits()..].fill(0.0);
        let mut at = self.n_table_logits();
        for (l, c) in self.choice_layers() {
            if l > 0 {
                w[at..at + c.sources.len()].iter_mut().step_by(c.k).for_each(|v| *v = residual);
            }
            at += c.sources.len();
        }
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

    /// The relaxed network as a smooth circuit: parameters one logit tensor `[W, m]` per
    /// layer (`m` logits per node), then one `[W k, C]` per layer with a choice; arguments
    /// one wiring tensor `[W, k]` per layer ([`wiring`](Self::wiring)), then the choices'
    /// candidates, then the input bits as 0/1 floats, node-major `[inputs, B]`; output the
    /// class scores `[B, C]` (group sums divided by `tau`).
    #[must_use]
    pub fn circuit(&self, tau: f32) -> SmoothCircuit {
        self.circuit_with(tau, false, StraightThroughChoice::None)
    }

    /// [`circuit`](Self::circuit), with `straight_through` each node computing with its
    /// discretised table: a gate's softmax made one-hot by
    /// [`SmoothOp::StraightThroughMax`], a LUT's sigmoid table made 0/1 by
    /// [`SmoothOp::StraightThroughStep`]. The forward pass is the discretised network's;
    /// the logits learn through the softmax or the sigmoid. The learned choices that
    /// `straight_through_choice` covers read their heaviest candidates the same way.
    #[must_use]
    pub fn circuit_with(
        &self,
        tau: f32,
        straight_through: bool,
        straight_through_choice: StraightThroughChoice,
    ) -> SmoothCircuit {
        let d = self.layers.len();
        let extra = self.choice_layers().count();
        let mut b = CircuitBuilder::<SmoothOp>::new(d + extra, d + 1 + extra);
        let mut h = b.arg(d + extra);
        let mut choice = d;
        for (l, layer) in self.layers.iter().enumerate() {
            if self.choices[l].is_some() {
                let mut p = b.gate(SmoothOp::Softmax, &[b.param(choice)]);
                if straight_through_choice.covers(l) {
                    p = b.gate(SmoothOp::StraightThroughMax, &[p]);
                }
                h = b.gate(SmoothOp::SoftChoice, &[b.arg(choice), p, h]);
                choice += 1;
            }
            let w = b.param(l);
            let tables = match self.relaxation {
                Relaxation::Gates => {
                    let mut p = b.gate(SmoothOp::Softmax, &[w]);
                    if straight_through {
                        p = b.gate(SmoothOp::StraightThroughMax, &[p]);
                    }
                    b.gate(SmoothOp::TruthTables, &[p])
                }
                Relaxation::Lut if straight_through => b.gate(SmoothOp::StraightThroughStep, &[w]),
                Relaxation::Lut => b.gate(SmoothOp::Sigmoid, &[w]),
            };
            let k = u8::try_from(layer.k).expect("LUT sizes fit a byte");
            h = b.gate(SmoothOp::RelaxedLut(k), &[b.arg(l), tables, h]);
        }
        let classes = u16::try_from(self.network.n_classes).expect("classes fit 16 bits");
        let mut scores = b.gate(SmoothOp::GroupSum(classes), &[h]);
        if tau != 1.0 {
            let inv = b.gate(SmoothOp::constant(1.0 / tau), &[]);
            scores = b.gate(SmoothOp::Mul, &[inv, scores]);
        }
        b.finish(vec![scores]).expect("a layered circuit is valid")
    }

    /// The wiring tensors `[W, k]` of the layers, the circuit's first arguments, then the
    /// choices' candidates `[W k, C]` (a layer with a choice reads the choice's rows in
    /// order).
    #[must_use]
    pub fn wiring(&self) -> Vec<Tensor> {
        let mut out: Vec<Tensor> = self.layers.iter().map(LayerWiring::to_tensor).collect();
        for (l, c) in self.choice_layers() {
            let layer = &self.layers[l];
            let rows = (0..layer.sources.len() as u32).collect();
            out[l] = LayerWiring::new(layer.k, rows, layer.sources.len()).to_tensor();
            out.push(c.to_tensor());
        }
        out
    }

    /// The flat logits as one tensor `[W, m]` per layer, then each choice's `[W k, C]`.
    pub(crate) fn logit_tensors(&self, logits: &[f32]) -> Vec<Tensor> {
        let offsets = self.offsets();
        let mut out: Vec<Tensor> = self
            .layers
            .iter()
            .enumerate()
            .map(|(l, layer)| {
                let w = logits[offsets[l].1..offsets[l + 1].1].to_vec();
                Tensor::new(vec![layer.width(), self.logits_per_node(layer.k)], w)
            })
            .collect();
        let mut at = self.n_table_logits();
        for (_, c) in self.choice_layers() {
            let w = logits[at..at + c.sources.len()].to_vec();
            at += c.sources.len();
            out.push(Tensor::new(vec![c.width(), c.k], w));
        }
        out
    }

    /// Each choice with its logits in `logits` (the choice logits follow the tables').
    fn choice_logits<'s>(
        &'s self,
        logits: &'s [f32],
    ) -> impl Iterator<Item = (usize, &'s LayerWiring, &'s [f32])> {
        let mut at = self.n_table_logits();
        self.choice_layers().map(move |(l, c)| {
            let w = &logits[at..at + c.sources.len()];
            at += c.sources.len();
            (l, c, w)
        })
    }

    /// The learned wiring of the discretised network (`model.json`'s `learned_wiring`):
    /// entry `l` the sources of layer `l`, each address bit its heaviest candidate, for
    /// every layer up to the last with a choice (empty for a layer that keeps its seeded
    /// wiring); empty without a choice.
    #[must_use]
    pub fn learned_wiring(&self, logits: &[f32]) -> Vec<Vec<u32>> {
        let mut out = Vec::new();
        for (l, c, w) in self.choice_logits(logits) {
            out.resize(l, Vec::new());
            out.push(
                w.chunks_exact(c.k).zip(c.sources.chunks_exact(c.k)).map(|(w, s)| s[argmax(w)]).collect(),
            );
        }
        out
    }

    /// The choices of `logits` made hard: each address bit's heaviest candidate gets
    /// logit 0 and the others -1000, whose softmax is exactly one-hot in f32 (the choice
    /// logits only; empty without a choice).
    #[must_use]
    pub fn hard_choice_logits(&self, logits: &[f32]) -> Vec<f32> {
        let mut out = Vec::with_capacity(self.n_choice_logits());
        for (_, c, w) in self.choice_logits(logits) {
            for w in w.chunks_exact(c.k) {
                let best = argmax(w);
                out.extend((0..c.k).map(|i| if i == best { 0.0 } else { -1000.0 }));
            }
        }
        out
    }

    /// The network whose choices keep, for each address bit, the `keep` candidates of
    /// largest weight in `logits` (heaviest first; ties to the earlier candidate; all of
    /// a choice of at most `keep`, in their order), and for each kept candidate its index among this
    /// network's choice logits. `keep` 0 keeps every candidate.
    #[must_use]
    pub fn with_top_candidates(&self, logits: &[f32], keep: usize) -> (Self, Vec<usize>) {
        let mut kept = Vec::new();
        let mut at = 0;
        for (_, c, w) in self.choice_logits(logits) {
            let keep = if keep == 0 { c.k } else { keep.min(c.k) };
            for (m, w) in w.chunks_exact(c.k).enumerate() {
                let mut order: Vec<usize> = (0..c.k).collect();
                if keep < c.k {
                    order.sort_by(|&a, &b| w[b].total_cmp(&w[a]).then(a.cmp(&b)));
                }
                kept.extend(order[..keep].iter().map(|&i| at + m * c.k + i));
            }
            at += w.len();
        }
        let narrowed = self.with_kept_candidates(&kept, keep).expect("the kept candidates fit");
        (narrowed, kept)
    }

    /// Candidates per address bit of each choice after
    /// [`with_top_candidates`](Self::with_top_candidates) keeps `keep` (`keep` 0: all).
    fn kept_per_choice(&self, keep: usize) -> impl Iterator<Item = usize> + '_ {
        self.choice_layers().map(move |(_, c)| if keep == 0 { c.k } else { keep.min(c.k) })
    }

    /// The number of candidates per address bit that a list of `n` kept candidates of
    /// [`with_top_candidates`](Self::with_top_candidates) keeps, if any does.
    #[must_use]
    pub fn keep_of(&self, n: usize) -> Option<usize> {
        let most = self.choice_layers().map(|(_, c)| c.k).max()?;
        (1..=most).find(|&keep| {
            self.choice_layers()
                .zip(self.kept_per_choice(keep))
                .map(|((_, c), k)| c.width() * k)
                .sum::<usize>()
                == n
        })
    }

    /// The network whose choices keep the candidates `kept` (indices among this
    /// network's choice logits, `keep` per address bit, or all of a choice of at most
    /// `keep`), as [`with_top_candidates`](Self::with_top_candidates) returns them; none
    /// if `kept` is not that (a checkpoint that does not fit the model).
    #[must_use]
    pub fn with_kept_candidates(&self, kept: &[usize], keep: usize) -> Option<Self> {
        let mut out = self.clone();
        let (mut base, mut rest) = (0, kept);
        let per: Vec<usize> = self.kept_per_choice(keep).collect();
        for ((l, c), keep) in self.choice_layers().zip(per) {
            let (mine, others) = rest.split_at_checked(c.width() * keep)?;
            let mut sources = Vec::with_capacity(mine.len());
            for &i in mine {
                sources.push(*c.sources.get(i.checked_sub(base)?)?);
            }
            out.choices[l] = Some(LayerWiring::new(keep, sources, c.prev_width()));
            (rest, base) = (others, base + c.sources.len());
        }
        rest.is_empty().then_some(out)
    }

    /// The gates an output reaches through the wiring and every candidate of the choices
    /// (the last layer's all), as a network of their own, for training: a gate no output
    /// reaches gets a zero gradient in every step, so Adam never moves its logits, and
    /// training only the reachable part gives every logit the value it gets when the whole
    /// network is trained (each gate's rows are computed on their own; a dead reader adds
    /// only zeros to its sources' adjoints). Only [`circuit_with`](Self::circuit_with) and
    /// [`wiring`](Self::wiring) of the part are meaningful. `None` when every gate is
    /// reached.
    #[must_use]
    pub fn reachable_part(&self) -> Option<ReachablePart> {
        let d = self.layers.len();
        let mut live: Vec<Vec<bool>> = self.layers.iter().map(|l| vec![false; l.width()]).collect();
        live[d - 1].fill(true);
        for l in (1..d).rev() {
            let (head, tail) = live.split_at_mut(l);
            let (prev, here) = (&mut head[l - 1], &tail[0]);
            let layer = &self.layers[l];
            for n in (0..layer.width()).filter(|&n| here[n]) {
                for row in n * layer.k..(n + 1) * layer.k {
                    match &self.choices[l] {
                        Some(c) => c.sources[row * c.k..(row + 1) * c.k]
                            .iter()
                            .for_each(|&s| prev[s as usize] = true),
                        None => prev[layer.sources[row] as usize] = true,
                    }
                }
            }
        }
        if live.iter().all(|l| l.iter().all(|&v| v)) {
            return None;
        }
        // New index of each live node of every layer (u32::MAX for a dead one).
        let index: Vec<Vec<u32>> = live
            .iter()
            .map(|l| {
                let mut next = 0;
                l.iter()
                    .map(|&v| {
                        next += u32::from(v);
                        if v { next - 1 } else { u32::MAX }
                    })
                    .collect()
            })
            .collect();
        let n_inputs = self.network.circuit.n_args();
        let mut part = self.clone();
        let (mut table_picks, mut choice_picks) = (Vec::new(), Vec::new());
        for (l, layer) in self.layers.iter().enumerate() {
            let prev_width = if l == 0 { n_inputs } else { live[l - 1].iter().filter(|&&v| v).count() };
            let to_prev = |s: u32| if l == 0 { s } else { index[l - 1][s as usize] };
            let m = self.logits_per_node(layer.k);
            let nodes: Vec<usize> = (0..layer.width()).filter(|&n| live[l][n]).collect();
            table_picks.push(nodes.iter().flat_map(|&n| (n * m..(n + 1) * m).map(|i| i as u32)).collect());
            let rows = || nodes.iter().flat_map(|&n| n * layer.k..(n + 1) * layer.k);
            match &self.choices[l] {
                Some(c) => {
                    let sources =
                        rows().flat_map(|r| c.sources[r * c.k..(r + 1) * c.k].iter().map(|&s| to_prev(s)));
                    part.choices[l] = Some(LayerWiring::new(c.k, sources.collect(), prev_width));
                    choice_picks
                        .push(rows().flat_map(|r| (r * c.k..(r + 1) * c.k).map(|i| i as u32)).collect());
                    // A layer with a choice reads the choice's rows; its seeded sources are
                    // not read (any valid index keeps the wiring's shape).
                    part.layers[l] =
                        LayerWiring::new(layer.k, vec![0; nodes.len() * layer.k], prev_width.max(1));
                }
                None => {
                    let sources = rows().map(|r| to_prev(layer.sources[r])).collect();
                    part.layers[l] = LayerWiring::new(layer.k, sources, prev_width);
                }
            }
        }
        let picks = table_picks.into_iter().chain(choice_picks).collect();
        Some(ReachablePart { net: part, picks })
    }

    /// The input rows the first layer reads (through its choice's candidates, if it has
    /// one), ascending, and the network reading those rows only, renumbered `0..` in that
    /// order (for [`circuit_with`](Self::circuit_with) and [`wiring`](Self::wiring)). The
    /// rows no gate reads need not be gathered, nor unpacked into floats.
    #[must_use]
    pub fn reading_only_its_inputs(&self) -> (Vec<usize>, Self) {
        let read = self.choices[0].as_ref().unwrap_or(&self.layers[0]);
        let (k, n_inputs, read) = (read.k, read.prev_width(), &read.sources);
        let mut at = vec![u32::MAX; n_inputs];
        read.iter().for_each(|&s| at[s as usize] = 0);
        let rows: Vec<usize> = (0..n_inputs).filter(|&i| at[i] == 0).collect();
        for (new, &i) in rows.iter().enumerate() {
            at[i] = new as u32;
        }
        let mut out = self.clone();
        let sources = read.iter().map(|&s| at[s as usize]).collect();
        let narrowed = LayerWiring::new(k, sources, rows.len());
        match &mut out.choices[0] {
            Some(c) => *c = narrowed,
            None => out.layers[0] = narrowed,
        }
        (rows, out)
    }

    /// Layers of the network.
    #[must_use]
    pub fn n_layers(&self) -> usize {
        self.layers.len()
    }

    /// Whether some layer's wiring is learned (a choice).
    #[must_use]
    pub fn has_choice(&self) -> bool {
        self.choices.iter().any(Option::is_some)
    }

    /// Number of choice logits (candidates times address bits of every layer with a
    /// choice; 0 without one).
    #[must_use]
    pub fn n_choice_logits(&self) -> usize {
        self.choice_layers().map(|(_, c)| c.sources.len()).sum()
    }

    /// Number of choice logit tensors (layers with a choice).
    #[must_use]
    pub fn n_choices(&self) -> usize {
        self.choice_layers().count()
    }

    /// The network with the choices of `logits` fixed: no choice, every layer with one
    /// wired to its chosen candidates (its logits are the table logits of `logits`).
    #[must_use]
    pub fn with_chosen_inputs(&self, logits: &[f32]) -> Self {
        let learned = self.learned_wiring(logits);
        if learned.is_empty() {
            return self.clone();
        }
        let mut out = self.clone();
        out.network = self.discrete_network(logits);
        for (l, sources) in learned.into_iter().enumerate().filter(|(_, s)| !s.is_empty()) {
            out.layers[l] = LayerWiring::new(self.layers[l].k, sources, self.layers[l].prev_width());
            out.choices[l] = None;
        }
        out
    }

    /// The Boolean network the trained `logits` discretise into: [`network`](Self::network)
    /// with the [`learned_wiring`](Self::learned_wiring), if any (parameters from
    /// [`discretise`](Self::discretise) in both).
    ///
    /// # Panics
    /// Never: the learned wiring has the first layer's shape.
    #[must_use]
    pub fn discrete_network(&self, logits: &[f32]) -> Network {
        let learned = self.learned_wiring(logits);
        if learned.is_empty() {
            return self.network.clone();
        }
        let n = &self.network;
        Network::build_with_wiring(n.spec, n.circuit.n_args(), n.n_classes, self.seed, &learned)
            .expect("the learned wiring fits the spec it was made for")
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

    /// Nodes of the network the trained `logits` discretise into that an output reaches through address bits their tables depend on: the gates left
    /// after pruning unused and ignored ones.
    #[must_use]
    pub fn live_nodes(&self, logits: &[f32]) -> usize {
        let params = self.discretise(logits);
        let learned = self.learned_wiring(logits);
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
                        let sources = learned.get(l).filter(|s| !s.is_empty()).unwrap_or(&layer.sources);
                        reached[sources[k * n + i] as usize] = true;
                    }
                }
            }
            live = reached;
        }
        count
    }

    /// Soft predictions (argmax of the relaxed group sums) on every example.
    #[must_use]
    pub fn soft_predict(&self, logits: &[f32], inputs: &BitMatrix) -> Vec<u32> {
        let scores = self.soft_scores(logits, inputs);
        scores.chunks(self.network.n_classes).map(|s| argmax(s) as u32).collect()
    }

    /// The relaxed class scores of every example (`[examples, classes]`, row-major), as
    /// [`circuit`](Self::circuit)`(1.0)` computes them.
    ///
    /// Computed on the gates an output reaches ([`reachable_part`](Self::reachable_part)),
    /// and for a hard choice (as training leaves it: logit 0 for each address bit's
    /// candidate, -1000 for the others) on the network wired to the chosen candidates
    /// ([`with_chosen_inputs`](Self::with_chosen_inputs)): the choice weighs its candidate
    /// exactly 1 and the others exactly 0, so both compute the whole network's floats.
    #[must_use]
    pub fn soft_scores(&self, logits: &[f32], inputs: &BitMatrix) -> Vec<f32> {
        let n_tables = self.n_table_logits();
        let hard = self.has_choice() && logits[n_tables..] == self.hard_choice_logits(logits)[..];
        let chosen;
        let (net, logits) = if hard {
            chosen = self.with_chosen_inputs(logits);
            (&chosen, &logits[..n_tables])
        } else {
            (self, logits)
        };
        let part = net.reachable_part();
        let params = net.logit_tensors(logits);
        let (net, params) = match &part {
            Some(part) => (&part.net, part.pick(&params)),
            None => (net, params),
        };
        let (rows, net) = net.reading_only_its_inputs();
        let c = net.circuit(1.0);
        let wiring = net.wiring();
        let order: Vec<usize> = (0..inputs.examples()).collect();
        let mut out = Vec::with_capacity(order.len() * self.network.n_classes);
        for idx in order.chunks(PREDICT_BATCH) {
            let x = gather_rows(inputs, &rows, idx);
            let ins: Vec<&Tensor> = params.iter().chain(&wiring).chain([&x]).collect();
            out.extend_from_slice(eval_tensors(&c, &ins)[0].data());
        }
        out
    }
}

/// Pixels drawn near a gate's centre before a hidden choice falls back to the seeded
/// source (a pixel no node is centred on is drawn again).
const NEAR_TRIES: usize = 64;

/// Draws a pixel within `radius` rows and columns of a pixel of `grid` (clamped to the
/// image).
fn near_pixel(grid: PixelGrid, radius: usize) -> impl Fn(usize, &mut ChaCha8Rng) -> usize {
    let (width, height) = (grid.width, grid.height);
    let r = radius.min(width.max(height)) as i64;
    move |pixel, rng| {
        let mut step = |at: usize, size: usize| {
            (at as i64 + rng.random_range(-r..=r)).clamp(0, size as i64 - 1) as usize
        };
        let (x, y) = (step(pixel % width, width), step(pixel / width, height));
        y * width + x
    }
}

/// The reachable gates of a network ([`RelaxedNet::reachable_part`]).
#[derive(Clone, Debug)]
pub struct ReachablePart {
    /// The reachable gates as a network (its circuit and wiring only).
    pub net: RelaxedNet,
    /// For each logit tensor of the whole network
    /// ([`logit_tensors`](RelaxedNet::logit_tensors) order), the indices of the elements
    /// the part's tensor holds, in order.
    pub picks: Vec<Vec<u32>>,
}

impl ReachablePart {
    /// The part's logit tensors, picked from the whole network's (each keeps its rows'
    /// width: `[pick / m, m]` from a tensor `[_, m]`).
    #[must_use]
    pub fn pick(&self, tensors: &[Tensor]) -> Vec<Tensor> {
        tensors
            .iter()
            .zip(&self.picks)
            .map(|(t, pick)| {
                let m = t.shape().last().copied().unwrap_or(1).max(1);
                let data = t.data();
                Tensor::new(vec![pick.len() / m, m], pick.iter().map(|&i| data[i as usize]).collect())
            })
            .collect()
    }
}

/// Examples per evaluation of [`RelaxedNet::soft_predict`]: at 256, the widest tensor of
/// the Fashion-MNIST recipes (a first layer's soft choices, `[24000, B]` floats) stays
/// below glibc's 32 MiB mmap threshold, so each batch reuses heap pages (at 512 it took
/// 1.4 million fresh page faults per report).
const PREDICT_BATCH: usize = 256;

/// Index of the gate `a` (pass-through of address bit 0) among the 16 functions: its
/// truth table over `s = a + 2b` is `0b1010`.
const PASS_A: usize = 0b1010;

/// First index of the largest value.
pub(crate) fn argmax(v: &[f32]) -> usize {
    let mut best = 0;
    for (i, &x) in v.iter().enumerate() {
        if x > v[best] {
            best = i;
        }
    }
    best
}

pub(crate) fn standard_normal(rng: &mut ChaCha8Rng) -> f32 {
    let u1: f64 = rng.random::<f64>().max(1e-12);
    let u2: f64 = rng.random();
    ((-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()) as f32
}

/// Input bits of examples `idx` as 0/1 values, node-major `[inputs, idx.len()]`, built
/// packed ([`PackedBits`]): the kernels that read rows of bits read them so, and the
/// floats are made only if another kernel reads them.
#[cfg(test)]
pub(crate) fn gather(inputs: &BitMatrix, idx: &[usize]) -> Tensor {
    gather_rows(inputs, &(0..inputs.rows()).collect::<Vec<_>>(), idx)
}

/// [`gather`] of the input rows `rows` only, in that order (`[rows.len(), idx.len()]`).
pub(crate) fn gather_rows(inputs: &BitMatrix, rows: &[usize], idx: &[usize]) -> Tensor {
    let (n, b) = (rows.len(), idx.len());
    if n == 0 || b == 0 {
        return Tensor::new(vec![n, b], Vec::new());
    }
    // Consecutive examples from a byte boundary (as `soft_predict` reads them) are whole
    // bytes of each row.
    let first = idx[0];
    let consecutive = first.is_multiple_of(8) && idx.iter().enumerate().all(|(j, &e)| e == first + j);
    let bytes_per_row = b.div_ceil(8);
    let mut packed = vec![0u8; n * bytes_per_row];
    packed.par_chunks_mut(bytes_per_row).zip(rows).for_each(|(row, &i)| {
        let words = inputs.row(i);
        if consecutive {
            let bytes = words[first / 64..].iter().flat_map(|w| w.to_le_bytes()).skip(first % 64 / 8);
            for (byte, v) in row.iter_mut().zip(bytes) {
                *byte = v;
            }
            if b % 8 != 0 {
                row[bytes_per_row - 1] &= (1u8 << (b % 8)) - 1;
            }
            return;
        }
        for (byte, chunk) in row.iter_mut().zip(idx.chunks(8)) {
            for (j, &e) in chunk.iter().enumerate() {
                *byte |= ((words[e / 64] >> (e % 64) & 1) as u8) << j;
            }
        }
    });
    Tensor::from_packed_bits(n, b, PackedBits::from_bytes(b, packed))
}

/// One-hot targets `[B, C]` of the examples `idx`.
pub(crate) fn one_hot(labels: &[u32], idx: &[usize], classes: usize) -> Tensor {
    let mut y = vec![0.0f32; idx.len() * classes];
    for (row, &e) in y.chunks_exact_mut(classes).zip(idx) {
        row[labels[e] as usize] = 1.0;
    }
    Tensor::new(vec![idx.len(), classes], y)
}

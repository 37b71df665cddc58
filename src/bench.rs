//! Throughput figures of this machine (`circuitlearn bench`), and the random circuits the
//! criterion benches share. Speed goals live here and in `benches/`, never in tests.

pub mod synth_scaling;

use crate::circuit::{Circuit, CircuitBuilder, WireId};
use crate::domain::Bool;
use crate::lanes::{BitMatrix, EvalParams, Program};
use crate::learn::{ModelError, ModelSpec, Network};
use crate::train::{RdaEpoch, RdaRule, RdaVariant, Report, Trainer, VoteParams};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use std::time::Instant;

/// A random circuit of 2-input gates (AND, XOR, OR), each reading two of the `window`
/// most recent wires; the outputs are the last `outputs` gates.
///
/// # Panics
/// If `gates < outputs`.
#[must_use]
pub fn random_gate_circuit(
    seed: u64,
    inputs: usize,
    gates: usize,
    outputs: usize,
    window: u32,
) -> Circuit<Bool> {
    assert!(gates >= outputs, "outputs are the last gates");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut b = CircuitBuilder::<Bool>::new(0, inputs);
    for g in 0..gates {
        let n = (inputs + g) as u32;
        let lo = n.saturating_sub(window);
        let (x, y) = (WireId(rng.random_range(lo..n)), WireId(rng.random_range(lo..n)));
        b.gate([Bool::And, Bool::Xor, Bool::Or][rng.random_range(0..3usize)], &[x, y]);
    }
    let total = (inputs + gates) as u32;
    let outs = (0..outputs as u32).map(|i| WireId(total - 1 - i)).collect();
    b.finish(outs).expect("valid random circuit")
}

/// A matrix of uniformly random bits.
#[must_use]
pub fn random_bits(rows: usize, examples: usize, seed: u64) -> BitMatrix {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut m = BitMatrix::zeros(rows, examples);
    for r in 0..rows {
        for w in m.row_mut(r) {
            *w = rng.random();
        }
        m.clear_tail(r);
    }
    m
}

/// `examples` rows of `n` ring elements of `ring`, signed readings in `[-256, 256)` from an
/// xorshift generator seeded with `seed` (made odd): the ring benches' inputs.
#[must_use]
pub fn random_ring_rows(n: usize, examples: usize, ring: crate::RingKind, seed: u64) -> Vec<Vec<u64>> {
    let mut s = seed | 1;
    (0..examples)
        .map(|_| {
            (0..n)
                .map(|_| {
                    s ^= s << 13;
                    s ^= s >> 7;
                    s ^= s << 17;
                    ring.from_signed((s % 512) as i64 - 256)
                })
                .collect()
        })
        .collect()
}

/// The figures `circuitlearn bench --json` prints.
#[derive(Clone, Debug, Serialize)]
pub struct BenchReport {
    /// Forward gate-evaluations per second, one core (10k-gate random circuit).
    pub forward_gate_evals_per_s: f64,
    /// The same on every core of the rayon pool.
    pub forward_gate_evals_per_s_all: f64,
    /// Training examples per second: one epoch of batched RDA on [`TRAIN_REFERENCE_MODEL`]
    /// (or the model asked for) over 784 random input bits.
    pub train_examples_per_s: f64,
    /// Inference images per second through a 48,000-gate random circuit over 2,352 input
    /// bits (Fashion-MNIST with 3 thermometer bits per pixel), all cores.
    pub infer_images_per_s: f64,
    /// Peak resident memory of the process, MiB.
    pub peak_rss_mb: f64,
    /// Threads in the pool.
    pub threads: usize,
}

/// Best throughput of `f` over repeated runs lasting about `seconds` in all.
fn best_rate(seconds: f64, units: f64, mut f: impl FnMut()) -> f64 {
    let start = Instant::now();
    let mut best = 0f64;
    loop {
        let t = Instant::now();
        f();
        best = best.max(units / t.elapsed().as_secs_f64().max(1e-9));
        if start.elapsed().as_secs_f64() > seconds {
            return best;
        }
    }
}

/// Peak resident set size from `/proc/self/status` (0 where unavailable).
#[must_use]
pub fn peak_rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|kb| kb.parse::<f64>().ok()))
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

/// The reference LUT network of the training figure.
pub const TRAIN_REFERENCE_MODEL: &str = "lut:6:1000x1,groupsum:10";

/// The reference training run: one epoch of batched RDA (votes, batch 1024) on a
/// 10-class model ([`TRAIN_REFERENCE_MODEL`] unless told) over 8,192 examples of 784
/// random input bits with labels `i mod 10`.
pub struct TrainReference {
    net: Network,
    inputs: BitMatrix,
    labels: Vec<u32>,
    variant: RdaVariant,
}

impl TrainReference {
    /// Builds the reference network and data.
    #[must_use]
    pub fn new() -> Self {
        Self::with_model(TRAIN_REFERENCE_MODEL.parse().expect("valid spec"))
            .expect("the reference model builds")
    }

    /// Builds `spec` for the reference data.
    ///
    /// # Errors
    /// If the spec does not fit 784 inputs and 10 classes.
    pub fn with_model(spec: ModelSpec) -> Result<Self, ModelError> {
        let net = Network::build(spec, 784, 10, 0)?;
        let n_train = 8192;
        let inputs = random_bits(784, n_train, 3);
        let labels: Vec<u32> = (0..n_train as u32).map(|i| i % 10).collect();
        let variant = RdaVariant::Votes(VoteParams::for_head(spec.head, 10));
        Ok(Self { net, inputs, labels, variant })
    }

    /// Examples per epoch.
    #[must_use]
    pub fn examples(&self) -> usize {
        self.labels.len()
    }

    /// Runs one epoch from the seed's initial parameters.
    #[must_use]
    pub fn epoch(&self) -> Report<RdaEpoch> {
        let rule = RdaRule::new(&self.net, &self.inputs, &self.labels, self.variant).batch(1024);
        Trainer::new().epochs(1).fit(rule).1
    }
}

impl Default for TrainReference {
    fn default() -> Self {
        Self::new()
    }
}

/// Measures this machine; `seconds` is the time budget per figure, `train` the training
/// figure's run.
#[must_use]
pub fn run(seconds: f64, train: &TrainReference) -> BenchReport {
    let f = random_gate_circuit(1, 256, 10_000, 64, 512);
    let x = random_bits(256, 1 << 16, 2);
    let p = Program::new(&f);
    let evals = (10_000 * (1 << 16)) as f64;
    let one = EvalParams { tile_words: 0, parallel: false };
    let forward_gate_evals_per_s = best_rate(seconds, evals, || drop(p.eval(&x, &one)));
    let forward_gate_evals_per_s_all = best_rate(seconds, evals, || drop(p.eval(&x, &EvalParams::default())));

    let train_examples_per_s = best_rate(seconds, train.examples() as f64, || drop(train.epoch()));

    let g = random_gate_circuit(4, 2352, 48_000, 1000, 4096);
    let images = 10_000;
    let xi = random_bits(2352, images, 5);
    let pg = Program::new(&g);
    let infer_images_per_s = best_rate(seconds, images as f64, || drop(pg.eval(&xi, &EvalParams::default())));
    BenchReport {
        forward_gate_evals_per_s,
        forward_gate_evals_per_s_all,
        train_examples_per_s,
        infer_images_per_s,
        peak_rss_mb: peak_rss_mb(),
        threads: rayon::current_num_threads(),
    }
}

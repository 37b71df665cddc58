//! Optimisers as stateful reparametrisations, over flat f32 slices.
//!
//! In the lens view (Cruttwell et al., *Categorical Foundations of Gradient-Based
//! Learning*) an optimiser with state `S` is a lens `(S x P, S x P) -> (P, P')`:
//! its forward part picks the parameters the model is evaluated at
//! ([`Optimizer::lookahead`]: the parameters themselves, or Nesterov's look-ahead point),
//! its backward part takes the gradient found there and returns the new state and
//! parameters ([`Optimizer::step`]). Reparametrising a learner along it gives the
//! learner one training step. Each value here keeps the state of one parameter slice
//! (allocated on the first step); use one per parameter tensor.
//!
//! `grad` is always `∂L/∂p` (what a learner closed by `learning_rate(1)` returns).

use rayon::prelude::*;

/// Parameters per rayon task in the elementwise updates.
const PAR_CHUNK: usize = 1 << 14;

/// A gradient-based optimiser for one flat parameter slice.
pub trait Optimizer: Send {
    /// Short name (`sgd`, `adam`, ...).
    fn name(&self) -> &'static str;

    /// Forward part: the parameters the model is to be evaluated at, when they differ
    /// from `params` (Nesterov); `None` means `params` themselves.
    fn lookahead(&self, _params: &[f32]) -> Option<Vec<f32>> {
        None
    }

    /// Backward part: updates the state and `params` in place with `grad`.
    ///
    /// # Panics
    /// If `grad` and `params` differ in length, or the length changes between steps.
    fn step(&mut self, params: &mut [f32], grad: &[f32]);

    /// The state, for a checkpoint.
    fn save(&self) -> OptimizerState {
        OptimizerState::default()
    }

    /// Restores what [`save`](Self::save) returned.
    ///
    /// # Errors
    /// [`StateMismatch`] if the state has another number of vectors.
    fn restore(&mut self, state: OptimizerState) -> Result<(), StateMismatch> {
        expect_vectors(&state, 0).map(|_| ())
    }
}

/// An optimiser's state: its step count and state vectors (empty before the first step).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OptimizerState {
    /// Steps taken (Adam's bias correction needs it).
    pub steps: u32,
    /// State vectors (velocity; squared-gradient sums; moments).
    pub vectors: Vec<Vec<f32>>,
}

/// An optimiser state of another optimiser.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("optimiser state has {found} vectors, this optimiser keeps {expected}")]
pub struct StateMismatch {
    /// Vectors found.
    pub found: usize,
    /// Vectors this optimiser keeps.
    pub expected: usize,
}

fn expect_vectors(state: &OptimizerState, expected: usize) -> Result<Vec<Vec<f32>>, StateMismatch> {
    if state.vectors.len() == expected {
        Ok(state.vectors.clone())
    } else {
        Err(StateMismatch { found: state.vectors.len(), expected })
    }
}

/// Plain gradient descent: `p <- p - lr g`.
#[derive(Clone, Debug, PartialEq)]
pub struct Sgd {
    /// Learning rate.
    pub lr: f32,
}

impl Optimizer for Sgd {
    fn name(&self) -> &'static str {
        "sgd"
    }
    fn step(&mut self, params: &mut [f32], grad: &[f32]) {
        assert_eq!(params.len(), grad.len(), "one gradient per parameter");
        for (p, g) in params.iter_mut().zip(grad) {
            *p -= self.lr * g;
        }
    }
}

/// Sizes state vectors on first use and checks the length afterwards.
fn ensure(state: &mut Vec<f32>, n: usize) {
    if state.is_empty() {
        *state = vec![0.0; n];
    }
    assert_eq!(state.len(), n, "optimiser state belongs to a slice of another length");
}

/// Momentum: `v <- γ v - lr g; p <- p + v` (state `v`, from zero).
#[derive(Clone, Debug, PartialEq)]
pub struct Momentum {
    /// Learning rate.
    pub lr: f32,
    /// Momentum coefficient γ.
    pub gamma: f32,
    /// Velocity.
    pub velocity: Vec<f32>,
}

impl Momentum {
    /// Momentum with zero initial velocity.
    #[must_use]
    pub fn new(lr: f32, gamma: f32) -> Self {
        Self { lr, gamma, velocity: Vec::new() }
    }
}

/// `v <- γ v - lr g; p <- p + v`, shared by momentum and Nesterov.
fn momentum_step(v: &mut Vec<f32>, lr: f32, gamma: f32, params: &mut [f32], grad: &[f32]) {
    assert_eq!(params.len(), grad.len(), "one gradient per parameter");
    ensure(v, params.len());
    for ((p, g), v) in params.iter_mut().zip(grad).zip(v.iter_mut()) {
        *v = gamma * *v - lr * g;
        *p += *v;
    }
}

impl Optimizer for Momentum {
    fn name(&self) -> &'static str {
        "momentum"
    }
    fn save(&self) -> OptimizerState {
        OptimizerState { steps: 0, vectors: vec![self.velocity.clone()] }
    }
    fn restore(&mut self, state: OptimizerState) -> Result<(), StateMismatch> {
        self.velocity = expect_vectors(&state, 1)?.swap_remove(0);
        Ok(())
    }
    fn step(&mut self, params: &mut [f32], grad: &[f32]) {
        momentum_step(&mut self.velocity, self.lr, self.gamma, params, grad);
    }
}

/// Nesterov momentum: the model is evaluated at the look-ahead point `p + γ v`; the
/// gradient found there updates `v` and `p` as in [`Momentum`].
#[derive(Clone, Debug, PartialEq)]
pub struct Nesterov {
    /// Learning rate.
    pub lr: f32,
    /// Momentum coefficient γ.
    pub gamma: f32,
    /// Velocity.
    pub velocity: Vec<f32>,
}

impl Nesterov {
    /// Nesterov momentum with zero initial velocity.
    #[must_use]
    pub fn new(lr: f32, gamma: f32) -> Self {
        Self { lr, gamma, velocity: Vec::new() }
    }
}

impl Optimizer for Nesterov {
    fn name(&self) -> &'static str {
        "nesterov"
    }
    fn lookahead(&self, params: &[f32]) -> Option<Vec<f32>> {
        if self.velocity.is_empty() {
            return None;
        }
        Some(params.iter().zip(&self.velocity).map(|(p, v)| p + self.gamma * v).collect())
    }
    fn step(&mut self, params: &mut [f32], grad: &[f32]) {
        momentum_step(&mut self.velocity, self.lr, self.gamma, params, grad);
    }
    fn save(&self) -> OptimizerState {
        OptimizerState { steps: 0, vectors: vec![self.velocity.clone()] }
    }
    fn restore(&mut self, state: OptimizerState) -> Result<(), StateMismatch> {
        self.velocity = expect_vectors(&state, 1)?.swap_remove(0);
        Ok(())
    }
}

/// AdaGrad: `G <- G + g^2; p <- p - lr g / (sqrt(G) + ε)`.
#[derive(Clone, Debug, PartialEq)]
pub struct AdaGrad {
    /// Learning rate.
    pub lr: f32,
    /// Added to the denominator.
    pub eps: f32,
    /// Sum of squared gradients.
    pub sum_sq: Vec<f32>,
}

impl AdaGrad {
    /// AdaGrad with `ε = 1e-10` (PyTorch's default).
    #[must_use]
    pub fn new(lr: f32) -> Self {
        Self { lr, eps: 1e-10, sum_sq: Vec::new() }
    }
}

impl Optimizer for AdaGrad {
    fn name(&self) -> &'static str {
        "adagrad"
    }
    fn save(&self) -> OptimizerState {
        OptimizerState { steps: 0, vectors: vec![self.sum_sq.clone()] }
    }
    fn restore(&mut self, state: OptimizerState) -> Result<(), StateMismatch> {
        self.sum_sq = expect_vectors(&state, 1)?.swap_remove(0);
        Ok(())
    }
    fn step(&mut self, params: &mut [f32], grad: &[f32]) {
        assert_eq!(params.len(), grad.len(), "one gradient per parameter");
        ensure(&mut self.sum_sq, params.len());
        for ((p, &g), s) in params.iter_mut().zip(grad).zip(self.sum_sq.iter_mut()) {
            *s += g * g;
            *p -= self.lr * g / (s.sqrt() + self.eps);
        }
    }
}

/// Adam (Kingma & Ba): bias-corrected first and second moment estimates;
/// `p <- p - lr m̂ / (sqrt(v̂) + ε)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Adam {
    /// Learning rate.
    pub lr: f32,
    /// Decay of the first moment.
    pub beta1: f32,
    /// Decay of the second moment.
    pub beta2: f32,
    /// Added to the denominator.
    pub eps: f32,
    /// Steps taken.
    pub t: u32,
    /// First moment.
    pub m: Vec<f32>,
    /// Second moment.
    pub v: Vec<f32>,
}

impl Adam {
    /// Adam with `β1 = 0.9, β2 = 0.999, ε = 1e-8`.
    #[must_use]
    pub fn new(lr: f32) -> Self {
        Self { lr, beta1: 0.9, beta2: 0.999, eps: 1e-8, t: 0, m: Vec::new(), v: Vec::new() }
    }
}

impl Optimizer for Adam {
    fn name(&self) -> &'static str {
        "adam"
    }
    fn save(&self) -> OptimizerState {
        OptimizerState { steps: self.t, vectors: vec![self.m.clone(), self.v.clone()] }
    }
    fn restore(&mut self, state: OptimizerState) -> Result<(), StateMismatch> {
        let mut v = expect_vectors(&state, 2)?;
        (self.t, self.v, self.m) = (state.steps, v.swap_remove(1), v.swap_remove(0));
        Ok(())
    }
    fn step(&mut self, params: &mut [f32], grad: &[f32]) {
        assert_eq!(params.len(), grad.len(), "one gradient per parameter");
        ensure(&mut self.m, params.len());
        ensure(&mut self.v, params.len());
        self.t += 1;
        let t = i32::try_from(self.t).unwrap_or(i32::MAX);
        let c1 = 1.0 - self.beta1.powi(t);
        let c2 = 1.0 - self.beta2.powi(t);
        let (b1, b2, lr, eps) = (self.beta1, self.beta2, self.lr, self.eps);
        // Elementwise, so splitting over threads does not change the result; nor does the
        // vector width (divisions and square roots are correctly rounded at any width,
        // and nothing is fused into a multiply-add).
        let state = self.m.par_chunks_mut(PAR_CHUNK).zip(self.v.par_chunks_mut(PAR_CHUNK));
        params.par_chunks_mut(PAR_CHUNK).zip(grad.par_chunks(PAR_CHUNK)).zip(state).for_each(
            |((ps, gs), (ms, vs))| {
                crate::lanes::best_simd(
                    #[inline(always)]
                    || {
                        for (((p, &g), m), v) in ps.iter_mut().zip(gs).zip(ms.iter_mut()).zip(vs.iter_mut()) {
                            *m = b1 * *m + (1.0 - b1) * g;
                            *v = b2 * *v + (1.0 - b2) * g * g;
                            *p -= lr * (*m / c1) / ((*v / c2).sqrt() + eps);
                        }
                    },
                );
            },
        );
    }
}

/// An optimiser choice from the command line: name and learning rate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OptimizerSpec {
    /// `sgd`, `momentum`, `nesterov`, `adagrad` or `adam`.
    pub name: &'static str,
    /// Learning rate.
    pub lr: f32,
}

impl OptimizerSpec {
    /// Names the CLI accepts.
    pub const NAMES: [&'static str; 5] = ["sgd", "momentum", "nesterov", "adagrad", "adam"];

    /// The spec for `name` with learning rate `lr` (momentum coefficients are 0.9).
    ///
    /// # Errors
    /// A message listing the names when `name` is none of them.
    pub fn parse(name: &str, lr: f32) -> Result<Self, super::SmoothError> {
        Self::NAMES
            .iter()
            .find(|&&n| n == name)
            .map(|&name| Self { name, lr })
            .ok_or_else(|| super::SmoothError::UnknownOptimizer(name.to_owned()))
    }

    /// A fresh optimiser (empty state) for one parameter slice.
    #[must_use]
    pub fn build(&self) -> Box<dyn Optimizer> {
        match self.name {
            "momentum" => Box::new(Momentum::new(self.lr, 0.9)),
            "nesterov" => Box::new(Nesterov::new(self.lr, 0.9)),
            "adagrad" => Box::new(AdaGrad::new(self.lr)),
            "adam" => Box::new(Adam::new(self.lr)),
            _ => Box::new(Sgd { lr: self.lr }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: &[f32], b: &[f32]) {
        for (x, y) in a.iter().zip(b) {
            assert!((x - y).abs() < 1e-6, "{a:?} vs {b:?}");
        }
    }

    #[test]
    fn sgd_by_hand() {
        let mut p = [1.0, -2.0];
        Sgd { lr: 0.1 }.step(&mut p, &[0.5, -1.0]);
        close(&p, &[0.95, -1.9]);
    }

    #[test]
    fn momentum_by_hand() {
        let mut o = Momentum::new(0.1, 0.9);
        let mut p = [1.0];
        o.step(&mut p, &[2.0]); // v = -0.2, p = 0.8
        close(&p, &[0.8]);
        o.step(&mut p, &[1.0]); // v = 0.9 * -0.2 - 0.1 = -0.28, p = 0.52
        close(&p, &[0.52]);
        close(&o.velocity, &[-0.28]);
    }

    #[test]
    fn nesterov_looks_ahead_then_steps_like_momentum() {
        let mut o = Nesterov::new(0.1, 0.9);
        let mut p = [1.0];
        assert_eq!(o.lookahead(&p), None);
        o.step(&mut p, &[2.0]); // v = -0.2, p = 0.8
        close(&o.lookahead(&p).unwrap(), &[0.8 - 0.18]);
        o.step(&mut p, &[1.0]);
        close(&p, &[0.52]);
    }

    #[test]
    fn adagrad_by_hand() {
        let mut o = AdaGrad::new(0.5);
        let mut p = [1.0, 1.0];
        o.step(&mut p, &[2.0, -1.0]); // G = (4, 1): p -= 0.5 * (2/2, -1/1)
        close(&p, &[0.5, 1.5]);
        o.step(&mut p, &[0.0, 1.0]); // G = (4, 2): p -= 0.5 * (0, 1/sqrt 2)
        close(&p, &[0.5, 1.5 - 0.5 / 2f32.sqrt()]);
    }

    #[test]
    fn adam_by_hand() {
        let mut o = Adam::new(0.1);
        let mut p = [1.0];
        // Step 1: m = 0.1 g, v = 0.001 g^2, corrected m̂ = g, v̂ = g^2: p -= 0.1 * sign(g).
        o.step(&mut p, &[3.0]);
        close(&p, &[0.9]);
        // Step 2 with g = 1: m = 0.9*0.3 + 0.1 = 0.37, v = 0.999*0.009 + 0.001 = 0.009991,
        // m̂ = 0.37 / 0.19, v̂ = 0.009991 / 0.001999.
        o.step(&mut p, &[1.0]);
        let step = 0.1 * (0.37 / 0.19) / ((0.009_991f32 / 0.001_999).sqrt() + 1e-8);
        close(&p, &[0.9 - step]);
    }

    #[test]
    fn specs_parse_and_build() {
        for n in OptimizerSpec::NAMES {
            assert_eq!(OptimizerSpec::parse(n, 0.1).unwrap().build().name(), n);
        }
        assert!(OptimizerSpec::parse("rmsprop", 0.1).is_err());
    }
}

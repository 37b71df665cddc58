//! Adam over a flat f32 parameter slice, private to relaxed-logic training.
//!
//! MERGE NOTE: a stand-in until the smooth domain's shared optimisers land
//! (`crate::smooth::optim::Adam`); replace this file with that one at merge time.

/// Adam (Kingma & Ba) with bias correction.
#[derive(Clone, Debug)]
pub(super) struct Adam {
    lr: f32,
    beta1: f32,
    beta2: f32,
    eps: f32,
    m: Vec<f32>,
    v: Vec<f32>,
    t: i32,
}

impl Adam {
    /// Adam for `n` parameters with learning rate `lr` and the usual betas.
    pub(super) fn new(n: usize, lr: f32) -> Self {
        Self { lr, beta1: 0.9, beta2: 0.999, eps: 1e-8, m: vec![0.0; n], v: vec![0.0; n], t: 0 }
    }

    /// One step: `params -= lr * m_hat / (sqrt(v_hat) + eps)`.
    pub(super) fn step(&mut self, params: &mut [f32], grads: &[f32]) {
        self.t += 1;
        let c1 = 1.0 - self.beta1.powi(self.t);
        let c2 = 1.0 - self.beta2.powi(self.t);
        let (b1, b2, lr, eps) = (self.beta1, self.beta2, self.lr, self.eps);
        for (((p, &g), m), v) in params.iter_mut().zip(grads).zip(&mut self.m).zip(&mut self.v) {
            *m = b1 * *m + (1.0 - b1) * g;
            *v = b2 * *v + (1.0 - b2) * g * g;
            *p -= lr * (*m / c1) / ((*v / c2).sqrt() + eps);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_step_moves_by_lr_against_the_gradient() {
        // With bias correction the first step is lr * g / (|g| + eps) = lr * sign(g).
        let mut a = Adam::new(2, 0.1);
        let mut p = [1.0f32, -1.0];
        a.step(&mut p, &[0.5, -2.0]);
        assert!((p[0] - 0.9).abs() < 1e-6 && (p[1] + 0.9).abs() < 1e-6, "{p:?}");
        // Second step with g = 0: m_hat = 0.9 m / 0.19 keeps the direction.
        a.step(&mut p, &[0.0, 0.0]);
        assert!(p[0] < 0.9 && p[1] > -0.9);
    }
}

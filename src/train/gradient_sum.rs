//! The gradient of a batch as an exact sum over fixed chunks: how the float rules
//! (relaxed, smooth) split a batch over ranks and still give the same bits for any number.
//!
//! A batch of `B` examples is cut into chunks of [`CHUNK`] examples (the last may be
//! shorter), the same chunks whatever the number of ranks. Each chunk's gradients (the
//! gradient of its mean loss, weighted by its share `c / B` of the batch, so that the sum
//! is the gradient of the batch's mean loss) are rounded (toward zero) to fixed point with
//! [`FRACTION_BITS`] fraction bits and summed as 64-bit integers. Integer addition is
//! associative, so the sum does not depend on which rank summed which chunks or on the
//! order an allreduce adds the ranks' parts in. Under [`dist::current`](crate::dist::current)
//! with `N` ranks, each rank evaluates its [`block`](crate::dist::block) of the chunks and
//! the sums cross in one allreduce of 8 bytes per parameter; with one rank that allreduce
//! is the identity, and a single process computes exactly what `N` ranks compute.
//!
//! Resolution: 2^-50 (about 8.9e-16) absolute, finer than an f32's own rounding for every
//! gradient above 1e-8 in magnitude; smaller ones move Adam by less than its epsilon does.
//! Each chunk's elements are clipped to ±[`CLIP`] first, so no sum can overflow; a
//! non-finite element (a diverged run) makes its whole tensor NaN, as the float sum would.

use crate::smooth::Tensor;
use rayon::prelude::*;
use std::ops::Range;

/// Examples per chunk: a batch of `B` spreads over at most `ceil(B / CHUNK)` ranks. It is
/// the relaxed and smooth default batch, so a default step is one chunk, evaluated with
/// the same kernel calls as an unchunked batch: at 64 the per-call work that does not
/// scale with the examples (softmax of every logit, candidate checks, rayon dispatch)
/// costs up to twice as much per example (`cargo bench --bench relaxed`, BENCHMARKS.md).
pub(crate) const CHUNK: usize = 128;

/// Fraction bits of the fixed-point gradient sums.
pub(crate) const FRACTION_BITS: i32 = 50;

/// Chunk gradients are clipped to this magnitude (2^12), so `|sum| <= 2^62`.
pub(crate) const CLIP: f64 = 4096.0;

/// Fraction bits of the per-chunk statistics (loss sums, counts: exact for integers).
const STAT_FRACTION_BITS: i32 = 24;

/// Statistics are clipped to this magnitude (2^38) per chunk.
const STAT_CLIP: f64 = 274_877_906_944.0;

/// Elements converted per rayon task.
const ELEMENTS_PER_TASK: usize = 1 << 14;

/// The gradient of the mean loss over a batch of `n` examples, one tensor per parameter
/// tensor of `params` (same shapes), and the sums of `n_stats` per-chunk statistics.
/// `chunk(range)` evaluates the examples `range` of the batch (positions in it) and returns
/// their gradients (of their own mean loss, shaped like `params`) and statistics (summed
/// over the chunk, such as a loss sum or a count of correct answers).
///
/// # Panics
/// If `chunk` returns tensors that do not match `params`, or other than `n_stats` statistics.
pub(crate) fn batch_gradients(
    params: &[Tensor],
    n: usize,
    n_stats: usize,
    mut chunk: impl FnMut(Range<usize>) -> (Vec<Tensor>, Vec<f64>),
) -> (Vec<Tensor>, Vec<f64>) {
    let comm = crate::dist::current();
    let lens: Vec<usize> = params.iter().map(Tensor::len).collect();
    let n_grads: usize = lens.iter().sum();
    // The gradients of every tensor, then one non-finite count per tensor, then the stats.
    let mut acc: Vec<i64> = crate::smooth::tensor::par_zeros(n_grads + params.len() + n_stats);
    let (grad_acc, rest) = acc.split_at_mut(n_grads);
    let (bad_acc, stat_acc) = rest.split_at_mut(params.len());
    let grad_scale = 2f64.powi(FRACTION_BITS);
    let stat_scale = 2f64.powi(STAT_FRACTION_BITS);
    for c in crate::dist::block(n.div_ceil(CHUNK), comm.size(), comm.rank()) {
        let range = c * CHUNK..((c + 1) * CHUNK).min(n);
        let weight = range.len() as f64 / n as f64 * grad_scale;
        let (grads, stats) = chunk(range);
        assert_eq!(grads.len(), params.len(), "one gradient per parameter tensor");
        assert_eq!(stats.len(), n_stats, "the statistics asked for");
        let mut at = 0;
        for ((g, &len), bad) in grads.iter().zip(&lens).zip(bad_acc.iter_mut()) {
            assert_eq!(g.len(), len, "a gradient shaped like its parameters");
            let part = &mut grad_acc[at..at + len];
            *bad += part
                .par_chunks_mut(ELEMENTS_PER_TASK)
                .zip(g.data().par_chunks(ELEMENTS_PER_TASK))
                .map(|(a, g)| add_fixed(a, g, weight))
                .sum::<i64>();
            at += len;
        }
        for (a, &s) in stat_acc.iter_mut().zip(&stats) {
            *a += (s.clamp(-STAT_CLIP, STAT_CLIP) * stat_scale).round() as i64;
        }
    }
    if comm.size() > 1 {
        // Two's-complement sums: adding the words as u64 (wrapping) is adding them as i64.
        let mut words: Vec<u64> = acc.iter().map(|&v| v as u64).collect();
        comm.sum_u64(&mut words);
        acc.iter_mut().zip(words).for_each(|(v, w)| *v = w as i64);
    }
    let (grad_acc, rest) = acc.split_at(n_grads);
    let (bad_acc, stat_acc) = rest.split_at(params.len());
    let mut at = 0;
    let grads = params
        .iter()
        .zip(bad_acc)
        .map(|(p, &bad)| {
            let sums = &grad_acc[at..at + p.len()];
            at += p.len();
            let data = if bad > 0 {
                vec![f32::NAN; p.len()]
            } else {
                sums.par_iter().map(|&s| (s as f64 / grad_scale) as f32).collect()
            };
            Tensor::new(p.shape().to_vec(), data)
        })
        .collect();
    (grads, stat_acc.iter().map(|&s| s as f64 / stat_scale).collect())
}

/// Adds `g * weight` (clipped, rounded toward zero) to the fixed-point sums `acc`; returns how many
/// elements of `g` were not finite.
fn add_fixed(acc: &mut [i64], g: &[f32], weight: f64) -> i64 {
    let mut bad = 0;
    for (a, &v) in acc.iter_mut().zip(g) {
        if v.is_finite() {
            // Toward zero (a cvttsd2si; `round` is a libm call on baseline x86-64).
            *a += (f64::from(v).clamp(-CLIP, CLIP) * weight) as i64;
        } else {
            bad += 1;
        }
    }
    bad
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dist::{Comm, Local, scope};
    use std::cell::RefCell;
    use std::rc::Rc;

    /// Ranks simulated one after another: each run records its part of the sum, and the
    /// allreduce adds the parts recorded so far (the last rank's call sees them all).
    struct Simulated {
        rank: usize,
        size: usize,
        parts: Rc<RefCell<Vec<Vec<u64>>>>,
    }

    impl Comm for Simulated {
        fn rank(&self) -> usize {
            self.rank
        }
        fn size(&self) -> usize {
            self.size
        }
        fn sum_u64(&self, v: &mut [u64]) {
            self.parts.borrow_mut().push(v.to_vec());
            let parts = self.parts.borrow();
            for (i, x) in v.iter_mut().enumerate() {
                *x = parts.iter().fold(0u64, |s, p| s.wrapping_add(p[i]));
            }
        }
        fn sum_u32(&self, _: &mut [u32]) {}
        fn sum_u16(&self, _: &mut [u16]) {}
        fn gather_u64(&self, mine: u64) -> Vec<u64> {
            vec![mine; self.size]
        }
        fn send(&self, _: usize, _: u16, _: &[u8]) {}
        fn try_receive(&self) -> Option<(usize, u16, Vec<u8>)> {
            None
        }
        fn receive(&self, _: usize) -> (u16, Vec<u8>) {
            (0, Vec::new())
        }
        fn abort(&self, code: i32) -> ! {
            std::process::exit(code)
        }
    }

    /// Per-example "gradients" whose float sums depend on the order of addition.
    fn chunk_of(values: &[f32]) -> impl FnMut(Range<usize>) -> (Vec<Tensor>, Vec<f64>) + '_ {
        move |r: Range<usize>| {
            let c = r.len() as f32;
            let mean: Vec<f32> = (0..3)
                .map(|j| values[r.clone()].iter().map(|v| v * (j + 1) as f32).sum::<f32>() / c)
                .collect();
            let stats = vec![r.len() as f64, values[r].iter().map(|&v| f64::from(v)).sum()];
            (vec![Tensor::new(vec![3], mean)], stats)
        }
    }

    #[test]
    fn any_number_of_ranks_gives_the_same_bits() {
        let values: Vec<f32> = (0..300).map(|i| ((i * 7919) % 1000) as f32 * 1e-3 - 0.37).collect();
        let params = [Tensor::zeros(vec![3])];
        let one = scope(Rc::new(Local), || batch_gradients(&params, values.len(), 2, chunk_of(&values)));
        assert_eq!(one.1[0], 300.0, "the counts are exact");
        let want_mean = values.iter().map(|&v| f64::from(v)).sum::<f64>() / 300.0;
        assert!((f64::from(one.0[0].data()[0]) - want_mean).abs() < 1e-6, "the gradient is the batch mean");
        for size in 2..7 {
            let parts = Rc::new(RefCell::new(Vec::new()));
            let mut last = None;
            for rank in 0..size {
                let comm = Simulated { rank, size, parts: parts.clone() };
                last = Some(scope(Rc::new(comm), || {
                    batch_gradients(&params, values.len(), 2, chunk_of(&values))
                }));
            }
            let (g, s) = last.expect("ranks ran");
            assert_eq!(g[0].data(), one.0[0].data(), "{size} ranks");
            assert_eq!(s, one.1, "{size} ranks");
        }
    }

    #[test]
    fn a_non_finite_gradient_poisons_its_tensor_and_clipping_bounds_the_rest() {
        let params = [Tensor::zeros(vec![2]), Tensor::zeros(vec![1])];
        let (g, _) = batch_gradients(&params, 10, 0, |_| {
            (vec![Tensor::new(vec![2], vec![f32::NAN, 1.0]), Tensor::new(vec![1], vec![1e30])], vec![])
        });
        assert!(g[0].data().iter().all(|v| v.is_nan()));
        assert_eq!(g[1].data(), [CLIP as f32]);
    }
}

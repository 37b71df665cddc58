//! k-fold cross-validation splits: a seeded shuffle of the example indices cut into `k`
//! folds of near-equal size; each fold is held out once while the others train. The
//! same seed and size always give the same folds.

use crate::lanes::BitMatrix;

/// One split: the examples to train on and the ones held out, both ascending.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Split {
    /// Training example indices.
    pub train: Vec<usize>,
    /// Held-out example indices.
    pub test: Vec<usize>,
}

/// The `k` splits of `n` examples for `seed` (`k` clamped to `2..=n`).
#[must_use]
pub fn k_folds(n: usize, k: usize, seed: u64) -> Vec<Split> {
    use rand::SeedableRng;
    use rand::seq::SliceRandom;
    let k = k.clamp(2, n.max(2));
    let mut order: Vec<usize> = (0..n).collect();
    order.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(seed));
    let mut fold = vec![0usize; n];
    for (pos, &e) in order.iter().enumerate() {
        fold[e] = pos % k;
    }
    (0..k)
        .map(|f| Split {
            train: (0..n).filter(|&e| fold[e] != f).collect(),
            test: (0..n).filter(|&e| fold[e] == f).collect(),
        })
        .collect()
}

/// The examples of `a` followed by those of `b` (same rows).
///
/// # Panics
/// If the row counts differ.
#[must_use]
pub fn concat_examples(a: &BitMatrix, b: &BitMatrix) -> BitMatrix {
    assert_eq!(a.rows(), b.rows(), "concat_examples needs the same rows");
    let (ea, eb) = (a.examples(), b.examples());
    let mut m = BitMatrix::zeros(a.rows(), ea + eb);
    for r in 0..a.rows() {
        let row = m.row_mut(r);
        row[..a.words()].copy_from_slice(a.row(r));
        if ea % 64 == 0 {
            row[a.words()..].copy_from_slice(b.row(r));
        } else {
            for e in 0..eb {
                let (d, s) = (ea + e, b.row(r)[e / 64] >> (e % 64) & 1);
                row[d / 64] |= s << (d % 64);
            }
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_partition_the_examples_and_depend_only_on_the_seed() {
        let f = k_folds(103, 4, 9);
        assert_eq!(f.len(), 4);
        let mut seen = vec![0; 103];
        for s in &f {
            assert!((25..=26).contains(&s.test.len()));
            assert_eq!(s.train.len() + s.test.len(), 103);
            for &e in &s.test {
                seen[e] += 1;
                assert!(!s.train.contains(&e));
            }
        }
        assert!(seen.iter().all(|&c| c == 1));
        assert_eq!(f, k_folds(103, 4, 9));
        assert_ne!(f, k_folds(103, 4, 10));
    }

    #[test]
    fn concatenation_keeps_every_bit_aligned_or_not() {
        for (ea, eb) in [(64, 70), (37, 100)] {
            let ex = |n: usize, s: usize| -> Vec<Vec<bool>> {
                (0..n).map(|e| (0..3).map(|r| (e * 7 + r * 3 + s) % 5 < 2).collect()).collect()
            };
            let (xa, xb) = (ex(ea, 0), ex(eb, 1));
            let m = concat_examples(&BitMatrix::from_examples(3, &xa), &BitMatrix::from_examples(3, &xb));
            let all: Vec<Vec<bool>> = xa.into_iter().chain(xb).collect();
            assert_eq!(m, BitMatrix::from_examples(3, &all));
        }
    }
}

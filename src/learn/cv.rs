//! k-fold cross-validation splits: a seeded shuffle of the example indices cut into `k`
//! folds of near-equal size; each fold is held out once while the others train. The
//! same seed and size always give the same folds.

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
}

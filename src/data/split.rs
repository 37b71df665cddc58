//! Deterministic train/test splits of example indices.
//!
//! Every function returns `(train, test)`: disjoint index lists, each ascending, that
//! together cover `0..n`. A `test_fraction` outside `[0, 1]` is clamped (NaN counts as 0),
//! and test sizes are `round(test_fraction * count)`.

use std::collections::{BTreeMap, HashMap};

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

/// Number of test items out of `count`.
fn test_size(count: usize, test_fraction: f64) -> usize {
    let f = if test_fraction.is_nan() { 0.0 } else { test_fraction.clamp(0.0, 1.0) };
    // `f * count` lies in `[0, count]`, so the cast cannot overflow.
    ((f * count as f64).round() as usize).min(count)
}

/// Sorts both halves of a split.
fn sorted(mut train: Vec<usize>, mut test: Vec<usize>) -> (Vec<usize>, Vec<usize>) {
    train.sort_unstable();
    test.sort_unstable();
    (train, test)
}

/// Shuffles `0..n` with `ChaCha8Rng::seed_from_u64(seed)` and sends the first
/// `round(test_fraction * n)` indices to the test set.
#[must_use]
pub fn random_split(n: usize, test_fraction: f64, seed: u64) -> (Vec<usize>, Vec<usize>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut order: Vec<usize> = (0..n).collect();
    order.shuffle(&mut rng);
    let train = order.split_off(test_size(n, test_fraction));
    sorted(train, order)
}

/// Like [`random_split`] but per class: the classes, in ascending label order, are each
/// shuffled in turn with one `ChaCha8Rng::seed_from_u64(seed)` stream, and
/// `round(test_fraction * class_count)` of each go to the test set.
#[must_use]
pub fn stratified_split(labels: &[u32], test_fraction: f64, seed: u64) -> (Vec<usize>, Vec<usize>) {
    let mut by_class: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for (i, &l) in labels.iter().enumerate() {
        by_class.entry(l).or_default().push(i);
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (mut train, mut test) = (Vec::new(), Vec::new());
    for mut members in by_class.into_values() {
        members.shuffle(&mut rng);
        let rest = members.split_off(test_size(members.len(), test_fraction));
        test.extend(members);
        train.extend(rest);
    }
    sorted(train, test)
}

/// In file order, the first `n_per_class` examples of each class go to the training set
/// and the rest to the test set (the RDA paper's Iris protocol with `n_per_class = 25`).
#[must_use]
pub fn first_per_class(labels: &[u32], n_per_class: usize) -> (Vec<usize>, Vec<usize>) {
    let mut seen: HashMap<u32, usize> = HashMap::new();
    let (mut train, mut test) = (Vec::new(), Vec::new());
    for (i, &l) in labels.iter().enumerate() {
        let count = seen.entry(l).or_insert(0);
        if *count < n_per_class {
            train.push(i);
        } else {
            test.push(i);
        }
        *count += 1;
    }
    (train, test)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_partition(n: usize, (train, test): &(Vec<usize>, Vec<usize>)) {
        assert!(train.windows(2).all(|w| w[0] < w[1]), "train not ascending");
        assert!(test.windows(2).all(|w| w[0] < w[1]), "test not ascending");
        let mut all: Vec<usize> = train.iter().chain(test).copied().collect();
        all.sort_unstable();
        assert_eq!(all, (0..n).collect::<Vec<_>>(), "not a partition");
    }

    #[test]
    fn random_split_is_deterministic_and_partitions() {
        let a = random_split(100, 0.3, 7);
        check_partition(100, &a);
        assert_eq!(a.1.len(), 30);
        assert_eq!(a, random_split(100, 0.3, 7));
        assert_ne!(a, random_split(100, 0.3, 8));
        assert_eq!(random_split(5, 0.0, 1).1.len(), 0);
        assert_eq!(random_split(5, 2.0, 1).0.len(), 0);
        assert_eq!(random_split(5, f64::NAN, 1).0.len(), 5);
        check_partition(0, &random_split(0, 0.5, 1));
    }

    #[test]
    fn stratified_split_keeps_class_proportions() {
        let labels: Vec<u32> = (0..150).map(|i| [2, 0, 1][i % 3]).collect();
        let s = stratified_split(&labels, 0.2, 42);
        check_partition(150, &s);
        for c in 0..3 {
            assert_eq!(s.1.iter().filter(|&&i| labels[i] == c).count(), 10);
        }
        assert_eq!(s, stratified_split(&labels, 0.2, 42));
        assert_ne!(s, stratified_split(&labels, 0.2, 43));
    }

    #[test]
    fn first_per_class_follows_file_order() {
        let labels = [0, 0, 1, 0, 1, 1, 2];
        let s = first_per_class(&labels, 2);
        check_partition(7, &s);
        assert_eq!(s, (vec![0, 1, 2, 4, 6], vec![3, 5]));
        let iris: Vec<u32> = (0..150).map(|i| i / 50).collect();
        let (train, test) = first_per_class(&iris, 25);
        assert_eq!(train.len(), 75);
        assert_eq!(&train[..26], &(0..25).chain([50]).collect::<Vec<_>>()[..]);
        assert_eq!(test[0], 25);
    }
}

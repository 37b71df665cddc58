//! A validation fold (`train --valid-fold I/F`): the examples `0..n`, in the order they
//! were loaded, cut into `F` contiguous folds whose sizes differ by at most one (the first
//! `n mod F` folds hold one example more), and fold `I` (from 1) held out.
//!
//! Contiguous, not shuffled: `6/6` of Fashion-MNIST's 60,000 training images is exactly
//! its last 10,000, the validation split of the examples and of BENCHMARKS.md. A file sorted
//! by class (as Iris and wine are) gives folds of one or two classes: shuffle it first.

use std::ops::Range;

/// Fold `index` (from 1) of `folds` contiguous folds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ValidFold {
    index: usize,
    folds: usize,
}

/// A fold that is not one: its text, its numbers, or the examples it would cut.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FoldError {
    /// Not `I/F` with two whole numbers.
    #[error("expected I/F (fold I of F, e.g. 2/5), got '{0}'")]
    Syntax(String),
    /// Fewer than two folds.
    #[error("{folds} fold{s}: at least 2 are needed (one held out, the others to train on)", s = if *folds == 1 { "" } else { "s" })]
    TooFewFolds {
        /// `F`.
        folds: usize,
    },
    /// `I` outside `1..=F`.
    #[error("fold {index} of {folds}: I must be in 1..={folds}")]
    OutOfRange {
        /// `I`.
        index: usize,
        /// `F`.
        folds: usize,
    },
    /// More folds than examples: some fold would be empty.
    #[error("{folds} folds of {examples} training example{s}: some would be empty (at most {examples} folds)", s = if *examples == 1 { "" } else { "s" })]
    Empty {
        /// `I`.
        index: usize,
        /// `F`.
        folds: usize,
        /// The examples to cut.
        examples: usize,
    },
}

impl ValidFold {
    /// Fold `index` (from 1) of `folds`.
    ///
    /// # Errors
    /// [`FoldError::TooFewFolds`] for `folds < 2`, [`FoldError::OutOfRange`] for an index
    /// outside `1..=folds`.
    pub fn new(index: usize, folds: usize) -> Result<Self, FoldError> {
        if folds < 2 {
            return Err(FoldError::TooFewFolds { folds });
        }
        if !(1..=folds).contains(&index) {
            return Err(FoldError::OutOfRange { index, folds });
        }
        Ok(Self { index, folds })
    }

    /// `I`, from 1.
    #[must_use]
    pub fn index(self) -> usize {
        self.index
    }

    /// `F`.
    #[must_use]
    pub fn folds(self) -> usize {
        self.folds
    }

    /// The held-out examples of `0..n`: fold `I` of `F` contiguous folds, the first
    /// `n mod F` of them one example longer.
    #[must_use]
    pub fn range(self, n: usize) -> Range<usize> {
        let (size, extra) = (n / self.folds, n % self.folds);
        let start = |i: usize| i * size + i.min(extra);
        start(self.index - 1)..start(self.index)
    }

    /// The examples of `0..n` to train on and the held-out ones, both ascending.
    ///
    /// # Errors
    /// [`FoldError::Empty`] when `n < F` (some fold would be empty; with `F <= n` every fold
    /// holds at least one example and, as `F >= 2`, leaves at least one to train on).
    pub fn split(self, n: usize) -> Result<(Vec<usize>, Vec<usize>), FoldError> {
        if n < self.folds {
            return Err(FoldError::Empty { index: self.index, folds: self.folds, examples: n });
        }
        let held = self.range(n);
        let train = (0..held.start).chain(held.end..n).collect();
        Ok((train, held.collect()))
    }
}

impl std::str::FromStr for ValidFold {
    type Err = FoldError;

    /// Parses `I/F`.
    fn from_str(s: &str) -> Result<Self, FoldError> {
        let syntax = || FoldError::Syntax(s.to_owned());
        let (i, f) = s.split_once('/').ok_or_else(syntax)?;
        let number = |t: &str| {
            let t = t.trim();
            if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
                return Err(syntax());
            }
            t.parse::<usize>().map_err(|_| syntax())
        };
        Self::new(number(i)?, number(f)?)
    }
}

impl std::fmt::Display for ValidFold {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.folds)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fold(s: &str) -> ValidFold {
        s.parse().unwrap()
    }

    #[test]
    fn folds_are_contiguous_near_equal_and_cover_every_example_once() {
        for n in [2usize, 3, 7, 10, 11, 103, 150] {
            for folds in 2..=n.min(12) {
                let mut seen = vec![0usize; n];
                let mut next = 0;
                let mut sizes = Vec::new();
                for index in 1..=folds {
                    let f = ValidFold::new(index, folds).unwrap();
                    let r = f.range(n);
                    // Contiguous and in order: each fold starts where the last one ended.
                    assert_eq!(r.start, next, "n {n}, {f}");
                    next = r.end;
                    sizes.push(r.len());
                    let (train, held) = f.split(n).unwrap();
                    assert_eq!(held, r.clone().collect::<Vec<_>>(), "n {n}, {f}");
                    assert_eq!(train.len() + held.len(), n);
                    assert!(train.windows(2).all(|w| w[0] < w[1]) && !train.is_empty());
                    assert!(train.iter().all(|t| !r.contains(t)), "n {n}, {f}");
                    for e in held {
                        seen[e] += 1;
                    }
                }
                assert_eq!(next, n, "n {n}, {folds} folds end at n");
                assert!(seen.iter().all(|&c| c == 1), "n {n}, {folds} folds: every example held out once");
                let (lo, hi) = (sizes.iter().min().unwrap(), sizes.iter().max().unwrap());
                assert!(hi - lo <= 1 && *lo >= 1, "n {n}, {folds} folds: sizes {sizes:?}");
                // The longer folds come first.
                assert!(sizes.windows(2).all(|w| w[0] >= w[1]), "{sizes:?}");
            }
        }
    }

    #[test]
    fn the_last_of_six_folds_of_fashion_mnist_is_its_last_10000_images() {
        assert_eq!(fold("6/6").range(60_000), 50_000..60_000);
        assert_eq!(fold("1/6").range(60_000), 0..10_000);
        assert_eq!(fold("2/3").range(10), 4..7);
        assert_eq!(fold("3/3").range(10), 7..10);
    }

    #[test]
    fn bad_folds_say_what_is_wrong() {
        for (text, want) in [
            ("0/5", FoldError::OutOfRange { index: 0, folds: 5 }),
            ("6/5", FoldError::OutOfRange { index: 6, folds: 5 }),
            ("1/1", FoldError::TooFewFolds { folds: 1 }),
            ("1/0", FoldError::TooFewFolds { folds: 0 }),
            ("3", FoldError::Syntax("3".into())),
            ("a/b", FoldError::Syntax("a/b".into())),
            ("-1/5", FoldError::Syntax("-1/5".into())),
            ("1/5/2", FoldError::Syntax("1/5/2".into())),
            ("/5", FoldError::Syntax("/5".into())),
            ("1/99999999999999999999999", FoldError::Syntax("1/99999999999999999999999".into())),
        ] {
            assert_eq!(text.parse::<ValidFold>(), Err(want), "{text}");
        }
        assert_eq!(fold(" 2 / 5 ").to_string(), "2/5");
        assert_eq!(fold("4/5").split(3), Err(FoldError::Empty { index: 4, folds: 5, examples: 3 }));
        assert!(fold("1/5").split(3).is_err(), "five folds of three examples: two would be empty");
        assert!(fold("2/2").split(1).is_err());
    }
}

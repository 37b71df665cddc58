//! A validation fold (`train --valid-fold I/F`): the examples of each class, in the order
//! they were loaded, cut into `F` contiguous parts whose sizes differ by at most one (the
//! first `n_c mod F` parts one example longer), and part `I` (from 1) of every class held
//! out together: stratified folds without shuffling, as scikit-learn's `StratifiedKFold`
//! makes them, so every fold has the classes in the proportions of the whole even for a
//! file sorted by class (as Iris and wine are), and the folds do not depend on the seed
//! (runs of different seeds are compared on the same examples).

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
    /// More folds than examples, or a fold that holds out nothing or everything.
    #[error("fold {index} of {folds} over {examples} training example{s}: it would hold out nothing or leave nothing to train on (at most {examples} folds, fewer for small classes)", s = if *examples == 1 { "" } else { "s" })]
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

    /// Part `I` of `n` examples in order: of `F` contiguous parts, the first `n mod F` of
    /// them one example longer.
    #[must_use]
    pub fn range(self, n: usize) -> Range<usize> {
        let (size, extra) = (n / self.folds, n % self.folds);
        let start = |i: usize| i * size + i.min(extra);
        start(self.index - 1)..start(self.index)
    }

    /// The examples to train on and the held-out ones, both ascending, of examples whose
    /// classes are `classes`: part `I` ([`range`](Self::range)) of each class's examples.
    ///
    /// # Errors
    /// [`FoldError::Empty`] when there are fewer examples than folds, or the fold holds
    /// out no example (every class smaller than `I`).
    pub fn split<K: Ord + Copy>(self, classes: &[K]) -> Result<(Vec<usize>, Vec<usize>), FoldError> {
        let n = classes.len();
        let empty = FoldError::Empty { index: self.index, folds: self.folds, examples: n };
        if n < self.folds {
            return Err(empty);
        }
        let mut by_class: std::collections::BTreeMap<K, Vec<usize>> = std::collections::BTreeMap::new();
        for (e, &c) in classes.iter().enumerate() {
            by_class.entry(c).or_default().push(e);
        }
        let mut held_out = vec![false; n];
        for members in by_class.values() {
            for &e in &members[self.range(members.len())] {
                held_out[e] = true;
            }
        }
        let (held, train): (Vec<usize>, Vec<usize>) = (0..n).partition(|&e| held_out[e]);
        if held.is_empty() || train.is_empty() {
            return Err(empty);
        }
        Ok((train, held))
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
    fn parts_are_contiguous_near_equal_and_cover_every_example_once() {
        for n in [2usize, 3, 7, 10, 11, 103, 150] {
            for folds in 2..=n.min(12) {
                let mut next = 0;
                let mut sizes = Vec::new();
                for index in 1..=folds {
                    let r = ValidFold::new(index, folds).unwrap().range(n);
                    assert_eq!(r.start, next, "n {n}, {index}/{folds}: contiguous and in order");
                    next = r.end;
                    sizes.push(r.len());
                }
                assert_eq!(next, n, "n {n}, {folds} folds end at n");
                let (lo, hi) = (sizes.iter().min().unwrap(), sizes.iter().max().unwrap());
                assert!(hi - lo <= 1 && *lo >= 1, "n {n}, {folds} folds: sizes {sizes:?}");
                assert!(sizes.windows(2).all(|w| w[0] >= w[1]), "the longer parts first: {sizes:?}");
            }
        }
    }

    #[test]
    fn folds_are_stratified_and_hold_out_every_example_once() {
        // A file sorted by class, as Iris is, and one whose classes interleave.
        let sorted: Vec<u32> = (0..3).flat_map(|c| std::iter::repeat_n(c, 35)).collect();
        let mixed: Vec<u32> = (0..103u32).map(|e| e * 7 % 4).collect();
        for classes in [&sorted, &mixed] {
            for folds in [2usize, 3, 5, 10] {
                let mut seen = vec![0usize; classes.len()];
                for index in 1..=folds {
                    let f = ValidFold::new(index, folds).unwrap();
                    let (train, held) = f.split(classes).unwrap();
                    assert_eq!(train.len() + held.len(), classes.len());
                    assert!(train.windows(2).all(|w| w[0] < w[1]) && held.windows(2).all(|w| w[0] < w[1]));
                    for c in 0..4u32 {
                        let members: Vec<usize> = (0..classes.len()).filter(|&e| classes[e] == c).collect();
                        let mine: Vec<usize> = held.iter().copied().filter(|&e| classes[e] == c).collect();
                        // Part I of the class's examples, in load order.
                        assert_eq!(mine, members[f.range(members.len())], "{f}, class {c}");
                    }
                    held.iter().for_each(|&e| seen[e] += 1);
                }
                assert!(seen.iter().all(|&c| c == 1), "{folds} folds: every example held out once");
            }
        }
    }

    #[test]
    fn a_fold_of_a_sorted_file_holds_every_class() {
        let sorted: Vec<u32> = (0..3).flat_map(|c| std::iter::repeat_n(c, 35)).collect();
        let (_, held) = fold("2/3").split(&sorted).unwrap();
        assert_eq!(held, [12..24, 47..59, 82..94].into_iter().flatten().collect::<Vec<_>>());
        assert_eq!(fold("2/3").range(10), 4..7);
        assert_eq!(fold("3/3").range(10), 7..10);
        assert_eq!(fold("6/6").range(6000), 5000..6000);
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
        assert_eq!(fold("4/5").split(&[0, 1, 0]), Err(FoldError::Empty { index: 4, folds: 5, examples: 3 }));
        assert!(fold("1/5").split(&[0, 0, 0]).is_err(), "five folds of three examples: two would be empty");
        assert!(fold("2/2").split(&[0]).is_err());
        // Two classes of one example each: fold 2 of 2 holds out nothing, fold 1 everything.
        assert!(fold("2/2").split(&[0, 1]).is_err() && fold("1/2").split(&[0, 1]).is_err());
    }
}

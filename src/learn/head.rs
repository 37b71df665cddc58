//! Reading output bits as a class, and the target bits each head trains towards.

use super::spec::Head;
use crate::lanes::{BitMatrix, LANES};

/// Number of label bits needed to write `n_classes` class indices in binary.
#[must_use]
pub fn binary_width(n_classes: usize) -> usize {
    (usize::BITS - n_classes.saturating_sub(1).leading_zeros()).max(1) as usize
}

/// The group of output `j` among `n_outputs` outputs split into `classes` equal runs.
#[must_use]
pub fn group_of(j: usize, n_outputs: usize, classes: usize) -> usize {
    j / (n_outputs / classes)
}

impl Head {
    /// Output bits this head reads for `n_classes` classes; `width` is the body's last
    /// layer width for group heads (rounded up to a multiple of the class count).
    #[must_use]
    pub fn n_outputs(self, n_classes: usize, width: usize) -> usize {
        match self {
            Head::Binary => binary_width(n_classes),
            Head::OneHot => n_classes,
            Head::GroupSum(c) => width.div_ceil(c) * c,
        }
    }

    /// The bit output `j` (of `n_outputs`) should take for class `label`.
    #[must_use]
    pub fn target(self, j: usize, n_outputs: usize, label: u32) -> bool {
        match self {
            Head::Binary => (label >> j) & 1 == 1,
            Head::OneHot => j == label as usize,
            Head::GroupSum(c) => group_of(j, n_outputs, c) == label as usize,
        }
    }

    /// Per-example class scores (`GroupSum`: ones per group; other heads: 1 for the
    /// decoded class). Returned example-major: `scores[e * classes + c]`.
    #[must_use]
    pub fn scores(self, outputs: &BitMatrix, n_classes: usize) -> Vec<u32> {
        let n = outputs.examples();
        let mut s = vec![0u32; n * n_classes];
        match self {
            Head::GroupSum(c) => {
                // Per lane word and group: a bit-sliced counter (plane `i` holds bit `i`
                // of each lane's count), one ripple-carry add per output row, then the
                // counts read out lane by lane.
                let per = outputs.rows() / c;
                let mut planes = vec![0u64; (usize::BITS - per.leading_zeros()) as usize];
                for w in 0..outputs.words() {
                    let lanes = (n - w * LANES).min(LANES);
                    for g in 0..c {
                        planes.fill(0);
                        for j in g * per..(g + 1) * per {
                            let mut carry = outputs.row(j)[w];
                            for p in &mut planes {
                                if carry == 0 {
                                    break;
                                }
                                let next = *p & carry;
                                *p ^= carry;
                                carry = next;
                            }
                        }
                        for b in 0..lanes {
                            let count = planes.iter().rev().fold(0, |v, p| v << 1 | (p >> b & 1) as u32);
                            s[(w * LANES + b) * n_classes + g] = count;
                        }
                    }
                }
            }
            Head::Binary | Head::OneHot => {
                for e in 0..n {
                    if let Some(c) = self.decode_exact(outputs, e, n_classes) {
                        s[e * n_classes + c as usize] = 1;
                    }
                }
            }
        }
        s
    }

    /// The class a `Binary` or `OneHot` output pattern names, if it names one exactly.
    fn decode_exact(self, outputs: &BitMatrix, e: usize, n_classes: usize) -> Option<u32> {
        match self {
            Head::Binary => {
                let v: usize = (0..outputs.rows()).map(|j| usize::from(outputs.get(j, e)) << j).sum();
                (v < n_classes).then_some(v as u32)
            }
            Head::OneHot => {
                let ones: Vec<usize> = (0..outputs.rows()).filter(|&j| outputs.get(j, e)).collect();
                (ones.len() == 1).then(|| ones[0] as u32)
            }
            Head::GroupSum(_) => None,
        }
    }

    /// Predicted class per example (argmax of the scores, lowest class on ties; `Binary`
    /// and `OneHot` patterns that name no class predict `u32::MAX`, never correct).
    #[must_use]
    pub fn predict(self, outputs: &BitMatrix, n_classes: usize) -> Vec<u32> {
        match self {
            Head::GroupSum(_) => {
                let s = self.scores(outputs, n_classes);
                s.chunks(n_classes)
                    .map(|row| {
                        let mut best = 0;
                        for (c, &v) in row.iter().enumerate() {
                            if v > row[best] {
                                best = c;
                            }
                        }
                        best as u32
                    })
                    .collect()
            }
            _ => (0..outputs.examples())
                .map(|e| self.decode_exact(outputs, e, n_classes).unwrap_or(u32::MAX))
                .collect(),
        }
    }
}

/// Fraction of predictions equal to the labels (0 for no examples).
#[must_use]
pub fn accuracy(pred: &[u32], labels: &[u32]) -> f64 {
    if labels.is_empty() {
        return 0.0;
    }
    let ok = pred.iter().zip(labels).filter(|(p, l)| p == l).count();
    ok as f64 / labels.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_width_is_ceil_log2() {
        assert_eq!(binary_width(2), 1);
        assert_eq!(binary_width(3), 2);
        assert_eq!(binary_width(4), 2);
        assert_eq!(binary_width(10), 4);
    }

    #[test]
    fn groupsum_predicts_the_fullest_group() {
        // 6 outputs, 3 groups of 2; example 0 lights group 2 twice, group 0 once.
        let m = BitMatrix::from_examples(6, &[[true, false, false, false, true, true]]);
        assert_eq!(Head::GroupSum(3).predict(&m, 3), vec![2]);
        assert!(Head::GroupSum(3).target(4, 6, 2));
        assert!(!Head::GroupSum(3).target(1, 6, 2));
    }

    #[test]
    fn groupsum_scores_count_each_groups_ones() {
        // 3 groups of 5 rows over 130 examples (a partial last word).
        let m = crate::bench::random_bits(15, 130, 7);
        let s = Head::GroupSum(3).scores(&m, 3);
        for e in 0..130 {
            for g in 0..3 {
                let want = (g * 5..(g + 1) * 5).filter(|&j| m.get(j, e)).count() as u32;
                assert_eq!(s[e * 3 + g], want, "example {e} group {g}");
            }
        }
    }

    #[test]
    fn onehot_needs_an_exact_pattern() {
        let m = BitMatrix::from_examples(3, &[[false, true, false], [true, true, false]]);
        assert_eq!(Head::OneHot.predict(&m, 3), vec![1, u32::MAX]);
    }
}

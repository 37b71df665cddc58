//! Reading output bits as a class, and the target bits each head trains towards.

use super::spec::Head;
use crate::lanes::BitMatrix;

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
                let per = outputs.rows() / c;
                for j in 0..outputs.rows() {
                    let g = j / per;
                    for (w, &word) in outputs.row(j).iter().enumerate() {
                        let mut bits = word;
                        while bits != 0 {
                            let e = w * 64 + bits.trailing_zeros() as usize;
                            s[e * n_classes + g] += 1;
                            bits &= bits - 1;
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
    fn onehot_needs_an_exact_pattern() {
        let m = BitMatrix::from_examples(3, &[[false, true, false], [true, true, false]]);
        assert_eq!(Head::OneHot.predict(&m, 3), vec![1, u32::MAX]);
    }
}

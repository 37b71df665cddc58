//! Reading output bits as a class, and the target bits each head trains towards.

use super::spec::Head;
use crate::circuit::{Circuit, CircuitBuilder, WireId};
use crate::domain::arith::{less_equal, popcount, weighted_sum};
use crate::domain::{Bool, BoolBuild};
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
            Head::GroupSum(_) | Head::Cascade { .. } => {
                let unit = self.group_unit().expect("a group head");
                width.div_ceil(unit) * unit
            }
        }
    }

    /// The bit output `j` (of `n_outputs`) should take for class `label`.
    #[must_use]
    pub fn target(self, j: usize, n_outputs: usize, label: u32) -> bool {
        match self {
            Head::Binary => (label >> j) & 1 == 1,
            Head::OneHot => j == label as usize,
            Head::GroupSum(c) => group_of(j, n_outputs, c) == label as usize,
            Head::Cascade { classes, .. } => {
                let half = n_outputs / 2;
                if j < half {
                    group_of(j, half, classes) == label as usize
                } else {
                    let set = self.specialist_classes();
                    set.iter().position(|&c| c == label) == Some(group_of(j - half, half, set.len()))
                }
            }
        }
    }

    /// Outputs per group of a head that counts groups of outputs: `groupsum:C`'s class
    /// count, a cascade's `2 x lcm(classes, specialist classes)` (both halves whole
    /// groups); `None` for heads that read bits (the body gets an extra layer for those).
    #[must_use]
    pub fn group_unit(self) -> Option<usize> {
        match self {
            Head::GroupSum(c) => Some(c),
            Head::Cascade { classes, set } => {
                let s = set.count_ones() as usize;
                let gcd = (1..=s.min(classes))
                    .rev()
                    .find(|&d| classes.is_multiple_of(d) && s.is_multiple_of(d))
                    .unwrap_or(1);
                Some(2 * classes / gcd * s)
            }
            Head::Binary | Head::OneHot => None,
        }
    }

    /// Per-example class scores, example-major: `scores[e * classes + c]`. `GroupSum`:
    /// the ones in each group. `Cascade`: the first network's counts, plus the
    /// specialist's on the specialist's classes when the first network names one of
    /// them, so that the argmax is the cascade's class. Other heads: 1 for the decoded class.
    #[must_use]
    pub fn scores(self, outputs: &BitMatrix, n_classes: usize) -> Vec<u32> {
        let n = outputs.examples();
        match self {
            Head::GroupSum(c) => group_counts(outputs, 0, c, outputs.rows() / c),
            Head::Cascade { classes, .. } => {
                let set = self.specialist_classes();
                let half = outputs.rows() / 2;
                let mut s = group_counts(outputs, 0, classes, half / classes);
                let second = group_counts(outputs, half, set.len(), half / set.len());
                let first = argmax_rows(&s, classes);
                for (e, &named) in first.iter().enumerate() {
                    if set.contains(&named) {
                        for (i, &c) in set.iter().enumerate() {
                            s[e * classes + c as usize] += second[e * set.len() + i];
                        }
                    }
                }
                s
            }
            Head::Binary | Head::OneHot => {
                let mut s = vec![0u32; n * n_classes];
                for e in 0..n {
                    if let Some(c) = self.decode_exact(outputs, e, n_classes) {
                        s[e * n_classes + c as usize] = 1;
                    }
                }
                s
            }
        }
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
            Head::GroupSum(_) | Head::Cascade { .. } => None,
        }
    }

    /// Predicted class per example (argmax of the scores, lowest class on ties; `Binary`
    /// and `OneHot` patterns that name no class predict `u32::MAX`, never correct).
    #[must_use]
    pub fn predict(self, outputs: &BitMatrix, n_classes: usize) -> Vec<u32> {
        match self {
            Head::GroupSum(_) | Head::Cascade { .. } => {
                argmax_rows(&self.scores(outputs, n_classes), n_classes)
            }
            _ => (0..outputs.examples())
                .map(|e| self.decode_exact(outputs, e, n_classes).unwrap_or(u32::MAX))
                .collect(),
        }
    }
}

impl Head {
    /// Bits of the class index the head circuit outputs: `binary_width(n_classes)`, one
    /// more for `OneHot` (whose "no class" pattern decodes to `n_classes`).
    #[must_use]
    pub fn index_width(self, n_classes: usize) -> usize {
        match self {
            Head::OneHot => binary_width(n_classes + 1),
            _ => binary_width(n_classes),
        }
    }

    /// The head as a circuit from the body's `n_outputs` bits to the predicted class index
    /// (binary, LSB first, [`Head::index_width`] bits), agreeing with [`Head::predict`]:
    /// `GroupSum` is a popcount per group and an argmax (lowest class on ties); `Binary`
    /// passes the bits through (values `>= n_classes` name no class); `OneHot` encodes
    /// the single set bit, and any other pattern as `n_classes`. Decode with
    /// [`class_of_index`].
    #[must_use]
    pub fn to_circuit(self, n_outputs: usize, n_classes: usize) -> Circuit<Bool> {
        let mut b = CircuitBuilder::<Bool>::new(0, n_outputs);
        let bits = b.args();
        let width = self.index_width(n_classes);
        let (f, t) = (b.constant(false), b.constant(true));
        let number =
            |v: usize| -> Vec<WireId> { (0..width).map(|k| if v >> k & 1 == 1 { t } else { f }).collect() };
        let out = match self {
            Head::Binary => bits,
            Head::GroupSum(c) => {
                let per = n_outputs / c;
                argmax_circuit(&mut b, n_classes, (f, t), |b, class| {
                    popcount(b, &bits[class * per..(class + 1) * per])
                })
            }
            Head::Cascade { classes, .. } => {
                // The first network's counts and class; the specialist's classes' summed
                // counts and their argmax; the latter's class where the former is one of them.
                let set = self.specialist_classes();
                let half = n_outputs / 2;
                let (per, per2) = (half / classes, half / set.len());
                let counts: Vec<Vec<WireId>> =
                    (0..classes).map(|c| popcount(&mut b, &bits[c * per..(c + 1) * per])).collect();
                let first = argmax_circuit(&mut b, classes, (f, t), |_, c| counts[c].clone());
                let among = argmax_circuit(&mut b, set.len(), (f, t), |b, i| {
                    let theirs = popcount(b, &bits[half + i * per2..half + (i + 1) * per2]);
                    add(b, &counts[set[i] as usize], &theirs)
                });
                // The class `among` names, and whether `first` is in the set.
                let named = (0..width)
                    .map(|k| {
                        let mut v = f;
                        for (i, &c) in set.iter().enumerate() {
                            if c >> k & 1 == 1 {
                                let is = equals(&mut b, &among, i);
                                v = b.or(v, is);
                            }
                        }
                        v
                    })
                    .collect::<Vec<_>>();
                let mut in_set = f;
                for &c in &set {
                    let is = equals(&mut b, &first, c as usize);
                    in_set = b.or(in_set, is);
                }
                (0..width).map(|k| b.mux(in_set, first[k], named[k])).collect()
            }
            Head::OneHot => {
                // index = OR of the indices of set bits, valid when exactly one is set:
                // a popcount equal to 1.
                let count = popcount(&mut b, &bits);
                let mut one = count.first().copied().unwrap_or(f);
                for &hi in &count[1.min(count.len())..] {
                    let z = b.not(hi);
                    one = b.and(one, z);
                }
                let none = number(n_classes);
                (0..width)
                    .map(|k| {
                        let mut v = f;
                        for (j, &x) in bits.iter().enumerate() {
                            if j >> k & 1 == 1 {
                                v = b.or(v, x);
                            }
                        }
                        b.mux(one, none[k], v)
                    })
                    .collect()
            }
        };
        b.finish(out).expect("head circuit is valid").pruned()
    }
}

/// The ones in each of `groups` groups of `per` rows from row `start`, per example,
/// example-major (`counts[e * groups + g]`): per lane word and group a bit-sliced
/// counter (plane `i` holds bit `i` of each lane's count), one ripple-carry add per
/// output row, then the counts read out lane by lane.
fn group_counts(outputs: &BitMatrix, start: usize, groups: usize, per: usize) -> Vec<u32> {
    let n = outputs.examples();
    let mut s = vec![0u32; n * groups];
    let mut planes = vec![0u64; (usize::BITS - per.leading_zeros()) as usize];
    for w in 0..outputs.words() {
        let lanes = (n - w * LANES).min(LANES);
        for g in 0..groups {
            planes.fill(0);
            for j in start + g * per..start + (g + 1) * per {
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
                s[(w * LANES + b) * groups + g] = count;
            }
        }
    }
    s
}

/// `x + y` for binary numbers (LSB first).
fn add(b: &mut CircuitBuilder<Bool>, x: &[WireId], y: &[WireId]) -> Vec<WireId> {
    let terms: Vec<(WireId, u64)> =
        x.iter().enumerate().chain(y.iter().enumerate()).map(|(k, &w)| (w, 1 << k)).collect();
    weighted_sum(b, &terms)
}

/// Whether the binary number `bits` (LSB first) equals `v`.
fn equals(b: &mut CircuitBuilder<Bool>, bits: &[WireId], v: usize) -> WireId {
    let mut all = b.constant(true);
    for (k, &x) in bits.iter().enumerate() {
        let bit = if v >> k & 1 == 1 { x } else { b.not(x) };
        all = b.and(all, bit);
    }
    if v >> bits.len() > 0 { b.constant(false) } else { all }
}

/// The class of the highest score in each row of `classes` scores (example-major), the
/// lowest class on ties: what the head circuits' argmax computes.
pub(crate) fn argmax_rows<T: PartialOrd>(scores: &[T], classes: usize) -> Vec<u32> {
    scores
        .chunks(classes)
        .map(|row| {
            let mut best = 0;
            for (c, v) in row.iter().enumerate() {
                if *v > row[best] {
                    best = c;
                }
            }
            best as u32
        })
        .collect()
}

/// The index (binary, LSB first, `binary_width(classes)` bits) of the largest of the
/// classes' counts (natural numbers, LSB first), the lowest on ties: each class's count,
/// built by `count(b, class)` in turn, replaces the best so far only when strictly
/// greater. `(f, t)` are the builder's constants false and true.
pub(crate) fn argmax_circuit(
    b: &mut CircuitBuilder<Bool>,
    classes: usize,
    (f, t): (WireId, WireId),
    mut count: impl FnMut(&mut CircuitBuilder<Bool>, usize) -> Vec<WireId>,
) -> Vec<WireId> {
    let width = binary_width(classes);
    let number =
        |v: usize| -> Vec<WireId> { (0..width).map(|k| if v >> k & 1 == 1 { t } else { f }).collect() };
    let mut best_count = count(b, 0);
    let mut best_index = number(0);
    for class in 1..classes {
        let count = count(b, class);
        let not_greater = less_equal(b, &count, &best_count);
        let w = count.len().max(best_count.len());
        let at = |v: &[WireId], k: usize| v.get(k).copied().unwrap_or(f);
        best_count = (0..w).map(|k| b.mux(not_greater, at(&count, k), at(&best_count, k))).collect();
        let idx = number(class);
        best_index = (0..width).map(|k| b.mux(not_greater, idx[k], best_index[k])).collect();
    }
    best_index
}

/// The class a head circuit's index bits name (`u32::MAX` for an index that names none).
#[must_use]
pub fn class_of_index(bits: &[bool], n_classes: usize) -> u32 {
    let v: usize = bits.iter().enumerate().map(|(k, &b)| usize::from(b) << k).sum();
    if v < n_classes { v as u32 } else { u32::MAX }
}

/// [`class_of_index`] for every example of a head circuit's outputs (one row per index bit).
#[must_use]
pub fn classes_of_indices(outputs: &BitMatrix, n_classes: usize) -> Vec<u32> {
    (0..outputs.examples()).map(|e| class_of_index(&outputs.example(e), n_classes)).collect()
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
    fn head_circuits_agree_with_predict() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        for (head, n_classes, n_outputs) in [
            (Head::GroupSum(3), 3, 12),
            (Head::GroupSum(10), 10, 30),
            (Head::GroupSum(2), 2, 2),
            (Head::Binary, 3, 2),
            (Head::OneHot, 4, 4),
            (Head::OneHot, 3, 3),
            (Head::Cascade { classes: 4, set: 0b1010 }, 4, 16),
            (Head::Cascade { classes: 5, set: 0b11001 }, 5, 60),
        ] {
            // Dense and sparse patterns, so that ties and one-hot hits both occur.
            let ex: Vec<Vec<bool>> = (0..400)
                .map(|i| {
                    let p = if i % 2 == 0 { 0.5 } else { 0.15 };
                    (0..n_outputs).map(|_| rng.random_bool(p)).collect()
                })
                .collect();
            let want = head.predict(&BitMatrix::from_examples(n_outputs, &ex), n_classes);
            let c = head.to_circuit(n_outputs, n_classes);
            assert_eq!(c.n_outputs(), head.index_width(n_classes));
            for (e, w) in ex.iter().zip(&want) {
                assert_eq!(class_of_index(&c.eval_one(e), n_classes), *w, "{head:?} on {e:?}");
            }
        }
    }

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
    fn cascade_asks_the_specialist_only_about_its_classes() {
        // 3 classes, specialist on {1, 2}: 12 outputs, the first 6 in 3 groups of 2, the
        // last 6 in 2 groups of 3.
        let head = Head::cascade(3, &[1, 2]).unwrap();
        assert_eq!(head.group_unit(), Some(12));
        let ex =
            |first: [bool; 6], second: [bool; 6]| -> Vec<bool> { first.into_iter().chain(second).collect() };
        let rows = [
            // The first network names class 0: the specialist is not asked.
            ex([true, true, false, false, false, false], [true; 6]),
            // It names 1 (2 against 1 for class 2); the specialist's 3 votes for 2 win.
            ex([false, false, true, true, true, false], [false, false, false, true, true, true]),
            // It names 1; both together tie (2 + 1 against 1 + 2): the lower class.
            ex([false, false, true, true, true, false], [true, false, false, true, true, false]),
        ];
        let m = BitMatrix::from_examples(12, &rows);
        assert_eq!(head.predict(&m, 3), vec![0, 2, 1]);
        assert_eq!(head.scores(&m, 3), vec![2, 0, 0, 0, 2, 4, 0, 3, 3]);
        for (j, want) in [(0, 0), (5, 2), (6, 1), (11, 2)] {
            assert!(head.target(j, 12, want), "output {j}");
        }
        assert!(!head.target(6, 12, 0), "the specialist has no votes for class 0");
    }

    /// The heads' hardware at Fashion-MNIST's size, lowered to an AIG: 2,000 outputs, the
    /// boosted pair's ten groups of 200 against the cascade's ten of 100 and four of 250
    /// (2026-12-07): 14,237 and 14,435 ANDs before any pass, the cascade's argmax over the
    /// tops and its adders 198 more. A change that raises either count fails here.
    #[test]
    fn the_fashion_mnist_heads_cost_what_they_did() {
        let ands = |head: Head| crate::Aig::from_circuit(&head.to_circuit(2000, 10), None).n_ands();
        let cascade = Head::cascade(10, &[0, 2, 4, 6]).unwrap();
        assert_eq!((ands(Head::GroupSum(10)), ands(cascade)), (14_237, 14_435));
    }

    #[test]
    fn onehot_needs_an_exact_pattern() {
        let m = BitMatrix::from_examples(3, &[[false, true, false], [true, true, false]]);
        assert_eq!(Head::OneHot.predict(&m, 3), vec![1, u32::MAX]);
    }
}

//! Symmetric-function models: the prediction depends only on how many inputs are 1. The
//! circuit is a popcount (adder tree) followed by one lookup table over the count,
//! learned as the majority label of the training examples with each count. Exact for
//! the symmetric functions of the IWLS suite; a poor fit elsewhere, which validation
//! selection sees.

use crate::circuit::{Circuit, CircuitBuilder, WireId};
use crate::domain::arith::popcount;
use crate::domain::{Bool, BoolBuild};
use crate::lanes::BitMatrix;

/// A learned function of the input popcount.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symmetric {
    /// Prediction for each count `0..=n`.
    pub table: Vec<bool>,
}

impl Symmetric {
    /// Learns the majority label per input count (the overall majority for counts never
    /// seen).
    #[must_use]
    pub fn fit(x: &BitMatrix, y: &BitMatrix) -> Self {
        let n = x.rows();
        let mut ones = vec![0u64; n + 1];
        let mut seen = vec![0u64; n + 1];
        let mut count = vec![0u32; x.examples()];
        for r in 0..n {
            for (e, c) in count.iter_mut().enumerate() {
                *c += u32::from(x.get(r, e));
            }
        }
        for (e, &c) in count.iter().enumerate() {
            seen[c as usize] += 1;
            ones[c as usize] += u64::from(y.get(0, e));
        }
        let majority = 2 * y.count_ones(0) >= x.examples() as u64;
        let table = (0..=n).map(|c| if seen[c] == 0 { majority } else { 2 * ones[c] >= seen[c] }).collect();
        Self { table }
    }

    /// The model as a circuit over `table.len() - 1` inputs with one output.
    #[must_use]
    pub fn to_circuit(&self) -> Circuit<Bool> {
        let n = self.table.len() - 1;
        let mut b = CircuitBuilder::<Bool>::new(0, n);
        let args = b.args();
        let count = popcount(&mut b, &args);
        let (f, t) = (b.constant(false), b.constant(true));
        let entries: Vec<WireId> = (0..1usize << count.len())
            .map(|c| if self.table.get(c).copied().unwrap_or(false) { t } else { f })
            .collect();
        let out = if count.is_empty() { entries[0] } else { b.lut(&entries, &count) };
        b.finish(vec![out]).expect("symmetric circuit is valid").pruned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn learns_a_threshold_of_the_count_exactly() {
        let ex: Vec<Vec<bool>> = (0..64u32).map(|v| (0..6).map(|i| v >> i & 1 == 1).collect()).collect();
        let labels: Vec<Vec<bool>> =
            ex.iter().map(|e| vec![(2..=4).contains(&e.iter().filter(|b| **b).count())]).collect();
        let m = Symmetric::fit(&BitMatrix::from_examples(6, &ex), &BitMatrix::from_examples(1, &labels));
        let c = m.to_circuit();
        for (e, l) in ex.iter().zip(&labels) {
            assert_eq!(c.eval_one(e), *l);
        }
    }
}

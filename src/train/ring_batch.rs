//! Mini-batch descent through a ring model (`train --domain poly --batch B`, `B > 1`): the
//! parameter changes `changes(p, x, y)` of a batch's examples, all at the same `p`, are
//! averaged, and `update(p, mean)` moves the parameters once per batch (the two halves of
//! the per-example step circuit: [`RingModel::descent_circuits`]).
//!
//! The mean is exact: the sum of the changes' signed readings (as integers, so nothing
//! wraps or saturates on the way), divided by the batch size rounding towards minus
//! infinity, which is again a signed reading in the ring's range. Because the batch's
//! examples share `p`, the changes can run bit-sliced ([`RingLanes::BitSliced`]: the
//! circuit bit-blasted, 64 examples per word, the sums read off the output bit rows by
//! popcounts) or one example per word ([`RingLanes::Word`]); both give identical
//! parameters (property-tested); the bit-sliced path is faster only on narrow words and
//! large batches ([`RingLanes::auto`]).
//!
//! [`RingModel::descent_circuits`]: crate::learn::ring_model::RingModel::descent_circuits

use super::{Blob, CheckpointError, Order, Rule, RuleState};
use crate::circuit::Circuit;
use crate::domain::ring_kind::{RingGate, RingKind};
use crate::domain::ring_lanes::{BitSliced, pack_into};
use crate::lanes::{BitMatrix, EvalParams};
use rand_chacha::ChaCha8Rng;

use super::ring::RingEpoch;

/// How a batch's changes are evaluated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum RingLanes {
    /// One example per word ([`RingKind::eval`]).
    Word,
    /// The changes circuit bit-blasted, 64 examples per word.
    BitSliced,
}

impl RingLanes {
    /// The path `train` picks for `batch` examples a step, from one epoch of the Iris-sized
    /// linear model over 4,096 examples (BENCHMARKS.md, "Ring packing by transposes"):
    /// bit-sliced for `z2k:K` with `K <= 8` and batches of at least 64 examples (1.6x the
    /// word path at 64, 6.7x at 1,024), and with `K <= 16` and batches of at least 1,024
    /// (3.1x); one example per word otherwise. A batch is `B / 64` lane words, and the
    /// bit-sliced evaluator pays its per-gate dispatch once per word of the batch, so a
    /// 64-example batch at `z2k:16` measured 0.24x and `sat:2047` never clearly won
    /// (0.20x at 64, 1.1x-1.4x at 1,024).
    #[must_use]
    pub fn auto(ring: RingKind, batch: usize) -> Self {
        match ring {
            RingKind::Z2k(k) if k <= 8 && batch >= 64 => RingLanes::BitSliced,
            RingKind::Z2k(k) if k <= 16 && batch >= 1024 => RingLanes::BitSliced,
            _ => RingLanes::Word,
        }
    }

    /// `ring-batch-word` or `ring-batch-bitsliced` (`metrics.json`'s `training_path`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            RingLanes::Word => "ring-batch-word",
            RingLanes::BitSliced => "ring-batch-bitsliced",
        }
    }
}

/// Mini-batch descent in a run-time ring.
pub struct RingBatchRule<'a> {
    changes: &'a Circuit<RingGate>,
    update: &'a Circuit<RingGate>,
    ring: RingKind,
    params: Vec<u64>,
    x: &'a [Vec<u64>],
    y: &'a [Vec<u64>],
    batch: usize,
    sliced: Option<BitSliced>,
}

impl<'a> RingBatchRule<'a> {
    /// The rule for `changes : P x (A, Y) -> P` and `update : (P, P) -> P` (constants
    /// canonical in `ring`) from `init`, over examples `x` with targets `y`, `batch`
    /// examples a step, evaluated on `lanes`; a fresh random order every epoch.
    ///
    /// # Panics
    /// If `x` and `y` differ in length or `batch` is 0.
    #[must_use]
    pub fn new(
        (changes, update): (&'a Circuit<RingGate>, &'a Circuit<RingGate>),
        ring: RingKind,
        init: Vec<u64>,
        (x, y): (&'a [Vec<u64>], &'a [Vec<u64>]),
        batch: usize,
        lanes: RingLanes,
    ) -> Self {
        assert_eq!(x.len(), y.len(), "one target per example");
        assert!(batch > 0, "a batch holds an example");
        let sliced = (lanes == RingLanes::BitSliced).then(|| BitSliced::new(changes, ring));
        Self { changes, update, ring, params: init, x, y, batch, sliced }
    }

    /// The trained parameters.
    #[must_use]
    pub fn into_params(self) -> Vec<u64> {
        self.params
    }

    /// Sums of the signed readings of every example's changes, one per parameter.
    fn sums_word(&self, batch: &[usize], sums: &mut [i128]) {
        let (mut inputs, mut vals) = (Vec::new(), Vec::new());
        for &i in batch {
            inputs.clear();
            inputs.extend_from_slice(&self.params);
            inputs.extend_from_slice(&self.x[i]);
            inputs.extend_from_slice(&self.y[i]);
            self.ring.eval_into(self.changes, &inputs, &mut vals);
            for (s, w) in sums.iter_mut().zip(self.changes.outputs()) {
                *s += i128::from(self.ring.signed(vals[w.index()]));
            }
        }
    }

    /// [`sums_word`](Self::sums_word), bit-sliced: the batch's examples as lanes, the
    /// parameters broadcast, the sums read off the output bit rows.
    fn sums_sliced(&self, sliced: &BitSliced, batch: &[usize], inputs: &mut BitMatrix, sums: &mut [i128]) {
        let w = self.ring.width();
        let n_params = self.params.len();
        *inputs = BitMatrix::zeros(sliced.circuit().n_inputs(), batch.len());
        for (p, &v) in self.params.iter().enumerate() {
            for b in 0..w {
                if v >> b & 1 == 1 {
                    inputs.row_mut(p * w + b).fill(u64::MAX);
                }
            }
        }
        let n_x = self.x.first().map_or(0, Vec::len);
        let n_y = self.y.first().map_or(0, Vec::len);
        pack_into(inputs, n_params, n_x, batch.iter().map(|&i| self.x[i].as_slice()), w);
        pack_into(inputs, n_params + n_x, n_y, batch.iter().map(|&i| self.y[i].as_slice()), w);
        let out = sliced.eval_packed(inputs, &EvalParams { tile_words: 0, parallel: false });
        let words = out.words();
        let tail = batch.len() % 64;
        let mask = |word: usize| if word + 1 == words && tail != 0 { (1u64 << tail) - 1 } else { u64::MAX };
        for (p, s) in sums.iter_mut().enumerate() {
            let count = |b: usize| -> i128 {
                out.row(p * w + b)
                    .iter()
                    .enumerate()
                    .map(|(k, &v)| i128::from((v & mask(k)).count_ones()))
                    .sum()
            };
            // The residues (or two's complement words) as unsigned sums of bit counts.
            let unsigned: i128 = (0..w).map(|b| count(b) << b).sum();
            *s += match self.ring {
                // Two's complement: the top bit weighs -2^(W-1), not 2^(W-1).
                RingKind::Z2k(_) | RingKind::Sat(_) => unsigned - (count(w - 1) << w),
                // Residues above P / 2 read as r - P.
                RingKind::Zp(q) => {
                    let rows: Vec<&[u64]> = (0..w).map(|b| out.row(p * w + b)).collect();
                    let above: i128 = (0..words)
                        .map(|k| i128::from((greater_than(&rows, k, q / 2) & mask(k)).count_ones()))
                        .sum();
                    unsigned - above * i128::from(q)
                }
            };
        }
    }
}

/// The lanes of word `k` whose `W`-bit value (rows least significant first) exceeds `c`.
fn greater_than(rows: &[&[u64]], k: usize, c: u64) -> u64 {
    let (mut gt, mut eq) = (0u64, u64::MAX);
    for (b, row) in rows.iter().enumerate().rev() {
        let r = row[k];
        if c >> b & 1 == 0 {
            gt |= eq & r;
            eq &= !r;
        } else {
            eq &= r;
        }
    }
    gt
}

impl Rule for RingBatchRule<'_> {
    type Epoch = RingEpoch;

    fn name(&self) -> String {
        "ring-batch-descent".into()
    }

    fn n_examples(&self) -> usize {
        self.x.len()
    }

    fn order(&self) -> Order {
        Order::Fresh
    }

    fn init(&mut self, _rng: &mut ChaCha8Rng) {}

    fn epoch(&mut self, epoch: usize, _epochs: usize, order: &[usize], _rng: &mut ChaCha8Rng) -> RingEpoch {
        let before = self.params.clone();
        let mut sums = vec![0i128; self.params.len()];
        let mut inputs = BitMatrix::zeros(0, 0);
        let mut u_in = Vec::with_capacity(2 * self.params.len());
        for batch in order.chunks(self.batch) {
            sums.fill(0);
            match &self.sliced {
                Some(s) => self.sums_sliced(s, batch, &mut inputs, &mut sums),
                None => self.sums_word(batch, &mut sums),
            }
            let n = batch.len() as i128;
            u_in.clear();
            u_in.extend_from_slice(&self.params);
            // The floor of the mean of readings in [min, max] is in [min, max].
            u_in.extend(sums.iter().map(|&s| self.ring.from_signed(s.div_euclid(n) as i64)));
            self.params = self.ring.eval(self.update, &u_in);
        }
        RingEpoch { epoch, changed: before.iter().zip(&self.params).filter(|(a, b)| a != b).count() }
    }

    fn describe(&self, e: &RingEpoch) -> String {
        format!("{} parameters changed", e.changed)
    }

    fn save(&self) -> RuleState {
        let mut s = RuleState::default();
        s.put("params", Blob::U64(self.params.clone()));
        s
    }

    fn restore(&mut self, mut state: RuleState) -> Result<(), CheckpointError> {
        self.params = state.take_u64("params", self.params.len())?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::ring_model::{RingModel, RingModelSpec};
    use crate::train::Trainer;
    use proptest::prelude::*;

    /// The measured rule: narrow `Z_(2^K)` rings with full lane words go bit-sliced.
    #[test]
    fn auto_picks_bit_sliced_where_it_measured_faster() {
        use RingLanes::{BitSliced, Word};
        let cases = [
            (RingKind::Z2k(8), 63, Word),
            (RingKind::Z2k(8), 64, BitSliced),
            (RingKind::Z2k(16), 64, Word),
            (RingKind::Z2k(16), 1023, Word),
            (RingKind::Z2k(16), 1024, BitSliced),
            (RingKind::Z2k(17), 4096, Word),
            (RingKind::Sat(2047), 4096, Word),
            (RingKind::Zp(13), 4096, Word),
        ];
        for (ring, batch, want) in cases {
            assert_eq!(RingLanes::auto(ring, batch), want, "{ring} batch {batch}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(12))]
        /// Bit-sliced batches train exactly the parameters word-by-word batches train, in
        /// every kind of ring, for linear and mlp models and batches that do not fill a word.
        #[test]
        fn bit_sliced_batches_train_what_word_batches_train(
            seed in 0u64..1000,
            batch in prop_oneof![Just(2usize), Just(37), Just(64), Just(100)],
            ring in prop_oneof![Just(RingKind::Z2k(12)), Just(RingKind::Z2k(20)), Just(RingKind::Zp(65521)), Just(RingKind::Sat(2047))],
            mlp in any::<bool>(),
        ) {
            let spec = if mlp { RingModelSpec::Mlp(2) } else { RingModelSpec::Linear };
            let model = RingModel::init(spec, ring, 3, 2, 2, seed);
            let (changes, update) = model.descent_circuits(2).unwrap();
            let mut s = seed | 1;
            let mut next = |span: i64| { s ^= s << 13; s ^= s >> 7; s ^= s << 17; (s % span as u64) as i64 };
            let x: Vec<Vec<u64>> = (0..150).map(|_| vec![ring.from_signed(next(17) - 8), ring.from_signed(next(17) - 8), ring.from_signed(8)]).collect();
            let y: Vec<Vec<u64>> = (0..150).map(|_| { let c = next(2); vec![ring.from_signed(8 * (1 - c)), ring.from_signed(8 * c)] }).collect();
            let run = |lanes| {
                let mut rule = RingBatchRule::new((&changes, &update), ring, model.params.clone(), (&x, &y), batch, lanes);
                Trainer::new().epochs(3).seed(seed).run(&mut rule, None, |_| {}).unwrap();
                rule.into_params()
            };
            let word = run(RingLanes::Word);
            prop_assert_eq!(&run(RingLanes::BitSliced), &word);
            if batch == 2 && !matches!(ring, RingKind::Zp(_)) {
                prop_assert_ne!(&word, &model.params, "training moved no parameter");
            }
        }
    }
}

//! Hardware-exact vote counting ([`RdaVariant::HwVotes`](super::RdaVariant::HwVotes)):
//! the batched vote rule as the Verilog trainer computes it
//! ([`crate::io::verilog_trainer_votes`]), so the two take the same decisions bit for bit.
//!
//! Against [`VoteParams`](super::VoteParams) the differences are those of hardware:
//! - the positive weight is an integer, and votes go to two unsigned **saturating**
//!   counters per parameter, `flip = min(w * c0 + c1, cap)` and
//!   `keep = min(w * c2 + c3, cap)` with `cap = 2^counter_bits - 1` (the four counts as
//!   in the vote rule: flip votes from wrong outputs whose target is 1 / 0, keep votes
//!   from right ones); a parameter is proposed when `flip > keep`. Without saturation
//!   this is exactly the vote rule's `w * (c0 - c2) + (c1 - c3) > 0`;
//! - a proposal is accepted when a 16-bit draw is below `accept` (out of 2^16, so
//!   `65536` accepts always). The draw of parameter `i` in a batch whose generator state
//!   is `s` is `(rotr(s, i mod 64) as u16) ^ salt(i)`, with `salt(i)` the low 16 bits of
//!   SplitMix64 of `i` (a constant per parameter in hardware); `s` is a xorshift64
//!   register stepped once per batch, from [`HwVoteParams::seed`]. Parameters 64 apart
//!   read the same state bits under different salts: the draws are not independent, a
//!   price of one shared 64-bit register;
//! - the margin test `(own - rival) / group <= margin` is the integer test
//!   `own - rival <= T` with `T` the largest integer that passes the same float test
//!   ([`HwVoteParams::margin_threshold`]), so Rust and hardware agree exactly.

use super::{Kernels, VoteCounting, vote_counts};
use crate::lanes::BitMatrix;
use crate::learn::{Head, Network};
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Bits of a hardware acceptance draw.
pub const ACCEPT_BITS: u32 = 16;

/// The generator state used for seed 0 (xorshift has no zero state).
pub const ZERO_SEED_STATE: u64 = 0x9E37_79B9_7F4A_7C15;

/// The hardware-exact vote rule's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct HwVoteParams {
    /// As [`VoteParams::margin`](super::VoteParams::margin).
    pub margin: f64,
    /// Acceptance threshold out of `2^16` (`65536`: always).
    pub accept: u32,
    /// Integer weight of votes from outputs whose target is 1.
    pub positive_weight: u32,
    /// As [`VoteParams::keep_from_all`](super::VoteParams::keep_from_all).
    pub keep_from_all: bool,
    /// Width of each flip and keep counter (1 to 32); counts saturate at `2^bits - 1`.
    pub counter_bits: u32,
    /// Seed of the xorshift64 acceptance generator.
    pub seed: u64,
}

/// A vote rule that has no hardware-exact counterpart.
#[derive(Debug, Error, PartialEq)]
pub enum HwVoteError {
    /// The positive weight is not a small non-negative integer.
    #[error("positive weight {0} is not an integer from 0 to 255 (hardware weights are integers)")]
    Weight(f64),
    /// The acceptance probability is not in [0, 1].
    #[error("acceptance probability {0} is not in [0, 1]")]
    Accept(f64),
    /// Counter width out of range.
    #[error("counter width {0} is not from 1 to 32 bits")]
    CounterBits(u32),
    /// Votes summed over fan-outs have no hardware form yet.
    #[error("sum_fanouts has no hardware form; the hardware votes on the Boolean derivative")]
    SumFanouts,
}

impl HwVoteParams {
    /// The hardware form of `v`: the weight must be an integer, `accept` is rounded to
    /// 16 bits.
    ///
    /// # Errors
    /// [`HwVoteError`] when `v` has no hardware form.
    pub fn from_votes(v: &super::VoteParams, counter_bits: u32, seed: u64) -> Result<Self, HwVoteError> {
        let w = v.positive_weight;
        if !(0.0..=255.0).contains(&w) || w.fract() != 0.0 {
            return Err(HwVoteError::Weight(w));
        }
        if !(0.0..=1.0).contains(&v.accept) {
            return Err(HwVoteError::Accept(v.accept));
        }
        if !(1..=32).contains(&counter_bits) {
            return Err(HwVoteError::CounterBits(counter_bits));
        }
        if v.sum_fanouts {
            return Err(HwVoteError::SumFanouts);
        }
        Ok(Self {
            margin: v.margin,
            accept: (v.accept * f64::from(1u32 << ACCEPT_BITS)).round() as u32,
            positive_weight: w as u32,
            keep_from_all: v.keep_from_all,
            counter_bits,
            seed,
        })
    }

    /// The hardware form of `v` for batches of `batch` examples, with counters of
    /// `counter_bits` bits or, by default, wide enough never to saturate over a batch
    /// ([`exact_counter_bits`](Self::exact_counter_bits), at most 32).
    ///
    /// # Errors
    /// [`HwVoteError`] when `v` has no hardware form.
    pub fn for_batch(
        v: &super::VoteParams,
        counter_bits: Option<u32>,
        batch: usize,
        seed: u64,
    ) -> Result<Self, HwVoteError> {
        let bits = counter_bits.unwrap_or_else(|| {
            Self::exact_counter_bits(v.positive_weight.clamp(0.0, 255.0) as u32, batch.max(1)).min(32)
        });
        Self::from_votes(v, bits, seed)
    }

    /// Counter bits that never saturate over a batch of `batch` examples.
    #[must_use]
    pub fn exact_counter_bits(positive_weight: u32, batch: usize) -> u32 {
        let most = (u64::from(positive_weight) + 1) * batch as u64;
        (u64::BITS - most.leading_zeros()).max(1)
    }

    /// The saturation value of a counter.
    #[must_use]
    pub fn cap(&self) -> u64 {
        (1u64 << self.counter_bits) - 1
    }

    /// The largest integer `d` in `-group-1 ..= group` with `d / group <= margin` (as
    /// the vote rule computes it in `f64`); `-group-1` means no example is active.
    #[must_use]
    pub fn margin_threshold(&self, group: usize) -> i64 {
        let per = group as f64;
        let g = group as i64;
        (-g..=g).rev().find(|&d| d as f64 / per <= self.margin).unwrap_or(-g - 1)
    }

    /// The generator state the run starts from.
    #[must_use]
    pub fn initial_state(&self) -> u64 {
        if self.seed == 0 { ZERO_SEED_STATE } else { self.seed }
    }
}

/// One step of the xorshift64 generator (13, 7, 17).
#[must_use]
pub fn xorshift64(mut s: u64) -> u64 {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    s
}

/// The constant a parameter's draws are XOR-ed with: SplitMix64 of `i`, low 16 bits.
#[must_use]
pub fn salt(i: usize) -> u16 {
    let mut z = (i as u64).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (z ^ (z >> 31)) as u16
}

/// Parameter `i`'s draw under generator state `s`.
#[must_use]
pub fn draw(s: u64, i: usize) -> u16 {
    (s.rotate_right((i % 64) as u32) as u16) ^ salt(i)
}

/// The generator state after `batches` batches.
#[must_use]
pub fn state_after(p: &HwVoteParams, batches: u64) -> u64 {
    (0..batches).fold(p.initial_state(), |s, _| xorshift64(s))
}

/// One batch of the hardware-exact vote rule at generator state `state`; returns the
/// flips applied and the flips proposed.
#[allow(clippy::too_many_arguments)]
pub(super) fn hw_vote_batch(
    net: &Network,
    kernels: &Kernels,
    v: &HwVoteParams,
    params: &mut [bool],
    by_example: &BitMatrix,
    labels: &[u32],
    batch: &[usize],
    state: u64,
) -> (u64, u64) {
    let how = VoteCounting { margin: v.margin, keep_from_all: v.keep_from_all, sum_fanouts: false };
    let counts = vote_counts(net, kernels, &how, params, by_example, labels, batch);
    let (w, cap) = (u64::from(v.positive_weight), v.cap());
    let (mut flips, mut proposed) = (0, 0);
    for (i, c) in counts.chunks_exact(4).enumerate() {
        let flip = (w * c[0] + c[1]).min(cap);
        let keep = (w * c[2] + c[3]).min(cap);
        if flip > keep {
            proposed += 1;
            if u32::from(draw(state, i)) < v.accept {
                params[i] = !params[i];
                flips += 1;
            }
        }
    }
    (flips, proposed)
}

/// The margin test of the hardware for a group head: `(group size, T)`; `None` for heads
/// whose active examples are the misclassified ones.
#[must_use]
pub fn group_margin(net: &Network, v: &HwVoteParams) -> Option<(usize, i64)> {
    match net.spec.head {
        Head::GroupSum(c) => {
            let per = net.circuit.n_outputs() / c;
            Some((per, v.margin_threshold(per)))
        }
        Head::Binary | Head::OneHot | Head::Cascade { .. } => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::train::VoteParams;

    #[test]
    fn the_margin_threshold_is_the_float_test_on_integers() {
        let v = HwVoteParams::from_votes(&VoteParams::for_head(Head::GroupSum(3), 3), 8, 1).unwrap();
        assert_eq!(v.margin_threshold(22), 2);
        assert_eq!(v.margin_threshold(10), 1);
        assert_eq!(v.positive_weight, 2);
        assert_eq!(v.accept, 19_661);
        let never = HwVoteParams { margin: -2.0, ..v };
        assert_eq!(never.margin_threshold(4), -5);
    }

    #[test]
    fn hardware_forms_need_integer_weights_and_a_counter_width() {
        let v = VoteParams::for_head(Head::GroupSum(3), 3);
        assert_eq!(
            HwVoteParams::from_votes(&VoteParams { positive_weight: 1.5, ..v }, 8, 0),
            Err(HwVoteError::Weight(1.5))
        );
        assert_eq!(HwVoteParams::from_votes(&v, 0, 0), Err(HwVoteError::CounterBits(0)));
        assert_eq!(HwVoteParams::exact_counter_bits(2, 64), 8);
        assert_eq!(HwVoteParams::exact_counter_bits(2, 85), 8);
        assert_eq!(HwVoteParams::exact_counter_bits(2, 86), 9);
    }

    #[test]
    fn the_generator_matches_its_definition() {
        assert_eq!(xorshift64(1), 0x4082_2041);
        assert_eq!(draw(1 << 5, 5), 1 ^ salt(5));
        assert_ne!(salt(0), salt(1));
    }
}

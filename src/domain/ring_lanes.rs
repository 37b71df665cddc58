//! Bit-sliced evaluation of ring circuits: a circuit over a [`RingKind`] bit-blasted
//! ([`bit_blast_ring_styled`]) and evaluated on Boolean lanes, 64 examples per `u64` word, with
//! the packing of ring elements into bit rows and back. It serves any ring circuit, so
//! both a model `f` and its reverse derivative `R[f]` (`cat::rdiff`), and is
//! property-tested equal to evaluating the circuit one example per word
//! ([`RingKind::eval`]).
//!
//! The circuit is blasted for evaluation ([`BlastStyle::Lanes`]: each adder's carry a
//! multiplexer, 3 Boolean gates a bit instead of the hardware style's 5), not the
//! hardware circuit `train` counts; both styles are property-tested equal to the word
//! evaluation below.
//!
//! Where it pays: additions, negations, shifts and clips cost `O(W)` Boolean gates per
//! 64 examples, so they beat one word operation per example; a product of two variable
//! operands costs about `1.5 W^2` gates, which grows four-fold per doubling of `W` while
//! the word path stays flat (BENCHMARKS.md has the measured figures).

use super::blast::BlastStyle;
use super::blast_ring::bit_blast_ring_styled;
use super::boolean::Bool;
use super::ring::Poly;
use super::ring_kind::RingKind;
use crate::circuit::{Circuit, Signature};
use crate::lanes::{BitMatrix, EvalParams, Program};

/// A ring circuit prepared for bit-sliced evaluation.
pub struct BitSliced {
    circuit: Circuit<Bool>,
    program: Program<Bool>,
    ring: RingKind,
    n_outputs: usize,
}

/// Examples of ring elements (one vector per example) as input bit rows: bit `b` of
/// element `i` is row `i * W + b`.
#[must_use]
pub fn pack(rows: &[Vec<u64>], n: usize, ring: RingKind) -> BitMatrix {
    let w = ring.width();
    let mut m = BitMatrix::zeros(n * w, rows.len());
    pack_into(&mut m, 0, rows.iter().map(Vec::as_slice), w);
    m
}

/// Sets the bits of examples' elements into `m`: bit `b` of element `i` of the `e`-th
/// example goes to row `(first + i) * w + b`, lane `e` (the rows start cleared). Only the
/// set bits of each element are visited.
pub fn pack_into<'r>(m: &mut BitMatrix, first: usize, rows: impl Iterator<Item = &'r [u64]>, w: usize) {
    let low = if w >= 64 { u64::MAX } else { (1u64 << w) - 1 };
    for (e, x) in rows.enumerate() {
        let (word, bit) = (e / 64, 1u64 << (e % 64));
        for (i, &v) in x.iter().enumerate() {
            let mut v = v & low;
            while v != 0 {
                let b = v.trailing_zeros() as usize;
                m.row_mut((first + i) * w + b)[word] |= bit;
                v &= v - 1;
            }
        }
    }
}

/// Output bit rows back to canonical elements, one vector of `n` per example.
#[must_use]
pub fn unpack(m: &BitMatrix, n: usize, ring: RingKind) -> Vec<Vec<u64>> {
    let w = ring.width();
    (0..m.examples())
        .map(|e| {
            let (word, lane) = (e / 64, e % 64);
            (0..n)
                .map(|i| {
                    let v = (0..w).fold(0u64, |v, b| v | (m.row(i * w + b)[word] >> lane & 1) << b);
                    match ring {
                        // Two's complement in W bits, sign-extended to the 64-bit reading.
                        RingKind::Sat(_) if w < 64 => ((v << (64 - w)) as i64 >> (64 - w)) as u64,
                        _ => v,
                    }
                })
                .collect()
        })
        .collect()
}

impl BitSliced {
    /// Blasts `c` (constants canonical, see [`RingKind::canonical`]) in `ring`, in the
    /// style for evaluation ([`BlastStyle::Lanes`]).
    #[must_use]
    pub fn new<R>(c: &Circuit<Poly<R>>, ring: RingKind) -> Self
    where
        Poly<R>: Signature,
    {
        Self::styled(c, ring, BlastStyle::Lanes)
    }

    /// Blasts `c` in `ring` with every full adder in `style`.
    #[must_use]
    pub fn styled<R>(c: &Circuit<Poly<R>>, ring: RingKind, style: BlastStyle) -> Self
    where
        Poly<R>: Signature,
    {
        let circuit = bit_blast_ring_styled(c, ring, style);
        let program = Program::new(&circuit);
        Self { circuit, program, ring, n_outputs: c.n_outputs() }
    }

    /// The Boolean circuit evaluated.
    #[must_use]
    pub fn circuit(&self) -> &Circuit<Bool> {
        &self.circuit
    }

    /// Evaluates already packed inputs ([`pack`]) into packed outputs.
    #[must_use]
    pub fn eval_packed(&self, x: &BitMatrix, params: &EvalParams) -> BitMatrix {
        self.program.eval(x, params)
    }

    /// The outputs of every example (one vector of canonical elements each).
    #[must_use]
    pub fn eval(&self, inputs: &[Vec<u64>], params: &EvalParams) -> Vec<Vec<u64>> {
        let n = self.circuit.n_inputs() / self.ring.width();
        let out = self.eval_packed(&pack(inputs, n, self.ring), params);
        unpack(&out, self.n_outputs, self.ring)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cat::rdiff;
    use crate::domain::ring_kind::random_circuit;
    use proptest::prelude::*;

    proptest! {
        /// f and R[f], bit-sliced over 64 examples a word in both blast styles, equal one
        /// example a word.
        #[test]
        fn bit_sliced_equals_word_evaluation(
            ops in proptest::collection::vec((0u8..7, 0u8..40, 0u8..40), 2..14),
            seed in any::<u64>(),
            ring in prop_oneof![Just(RingKind::Z2k(8)), Just(RingKind::Z2k(13)), Just(RingKind::Zp(13)), Just(RingKind::Zp(251)), Just(RingKind::Sat(100))],
        ) {
            let f = ring.canonical(&random_circuit(&ops, 3));
            let r = ring.canonical(&rdiff(&f));
            let mut s = seed | 1;
            let mut next = || { s ^= s << 13; s ^= s >> 7; s ^= s << 17; s };
            for c in [&f, &r] {
                let xs: Vec<Vec<u64>> = (0..100)
                    .map(|_| (0..c.n_inputs()).map(|_| {
                        let span = (ring.max_signed() - ring.min_signed()) as u64 + 1;
                        ring.from_signed(ring.min_signed() + (next() % span) as i64)
                    }).collect())
                    .collect();
                let want: Vec<Vec<u64>> = xs.iter().map(|x| ring.eval(c, x)).collect();
                for style in [BlastStyle::Hardware, BlastStyle::Lanes] {
                    prop_assert_eq!(&BitSliced::styled(c, ring, style).eval(&xs, &EvalParams::default()), &want, "{:?}", style);
                }
            }
        }
    }
}

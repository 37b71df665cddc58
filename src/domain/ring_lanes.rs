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
    pack_into(&mut m, 0, n, rows.iter().map(Vec::as_slice), w);
    m
}

/// Sets the bits of examples' elements into `m`: bit `b` of element `i` of the `e`-th
/// example goes to row `(first + i) * w + b`, lane `e` (`n` elements an example, one
/// example per lane of `m`; the rows start cleared). Each example's elements are laid
/// end to end as one bit string, and 64 x 64 bit blocks of those strings are transposed
/// into the rows ([`BitMatrix::transposed`]), not one bit at a time.
///
/// # Panics
/// If an example has fewer than `n` elements, or the examples are not one per lane.
pub fn pack_into<'r>(
    m: &mut BitMatrix,
    first: usize,
    n: usize,
    rows: impl Iterator<Item = &'r [u64]>,
    w: usize,
) {
    let mut by_example = BitMatrix::zeros(m.examples(), n * w);
    let low = low_bits(w);
    let mut count = 0;
    for (e, x) in rows.enumerate() {
        // The elements' low W bits end to end, a word written whenever one fills up.
        let (bits, mut word, mut acc, mut fill) = (by_example.row_mut(e), 0, 0u64, 0);
        for &v in &x[..n] {
            let v = v & low;
            acc |= v << fill;
            fill += w;
            if fill >= 64 {
                bits[word] = acc;
                word += 1;
                fill -= 64;
                // The `fill` high bits of `v` that did not fit start the next word.
                acc = if fill == 0 { 0 } else { v >> (w - fill) };
            }
        }
        if fill > 0 {
            bits[word] = acc;
        }
        count += 1;
    }
    assert_eq!(count, m.examples(), "one example per lane");
    let t = by_example.transposed();
    for r in 0..n * w {
        for (d, s) in m.row_mut(first * w + r).iter_mut().zip(t.row(r)) {
            *d |= s;
        }
    }
}

/// Output bit rows back to canonical elements, one vector of `n` per example: the rows
/// transposed into one bit string per example ([`BitMatrix::transposed`]), then read
/// `W` bits an element.
#[must_use]
pub fn unpack(m: &BitMatrix, n: usize, ring: RingKind) -> Vec<Vec<u64>> {
    let w = ring.width();
    // Sat_n reads two's complement in W bits, sign-extended to the 64-bit reading.
    let extend = match ring {
        RingKind::Sat(_) => 64 - w as u32,
        RingKind::Z2k(_) | RingKind::Zp(_) => 0,
    };
    let t = m.transposed();
    (0..m.examples())
        .map(|e| {
            let bits = t.row(e);
            (0..n).map(|i| ((get_field(bits, i * w, w) << extend) as i64 >> extend) as u64).collect()
        })
        .collect()
}

/// The mask of the low `w` bits (`1 <= w <= 64`).
fn low_bits(w: usize) -> u64 {
    if w >= 64 { u64::MAX } else { (1u64 << w) - 1 }
}

/// Bits `at..at + w` of the bit string `bits`.
fn get_field(bits: &[u64], at: usize, w: usize) -> u64 {
    let (word, shift) = (at / 64, at % 64);
    let mut v = bits[word] >> shift;
    if shift + w > 64 {
        v |= bits[word + 1] << (64 - shift);
    }
    v & low_bits(w)
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
        /// Packing by transposes sets exactly the bits of the definition (bit `b` of element
        /// `i` of example `e` at row `(first + i) * W + b`, lane `e`), and unpacking reads
        /// them back, in widths that straddle words, at an offset, over partial words.
        #[test]
        fn pack_and_unpack_match_the_bit_by_bit_definition(
            ring in prop_oneof![Just(RingKind::Z2k(1)), Just(RingKind::Z2k(8)), Just(RingKind::Z2k(13)), Just(RingKind::Z2k(63)), Just(RingKind::Z2k(64)), Just(RingKind::Zp(65521)), Just(RingKind::Sat(2047))],
            n in 0usize..12,
            examples in prop_oneof![Just(0usize), Just(1), Just(64), 2usize..200],
            first in 0usize..3,
            seed in any::<u64>(),
        ) {
            let w = ring.width();
            let mut s = seed | 1;
            let mut next = || { s ^= s << 13; s ^= s >> 7; s ^= s << 17; s };
            // Every signed reading, Z_(2^64)'s 2^64 of them included.
            let span = (i128::from(ring.max_signed()) - i128::from(ring.min_signed()) + 1) as u128;
            let xs: Vec<Vec<u64>> = (0..examples)
                .map(|_| (0..n).map(|_| ring.from_signed((i128::from(ring.min_signed()) + (u128::from(next()) % span) as i128) as i64)).collect())
                .collect();
            let mut want = BitMatrix::zeros((first + n) * w, examples);
            for (e, x) in xs.iter().enumerate() {
                for (i, &v) in x.iter().enumerate() {
                    for b in 0..w {
                        want.set((first + i) * w + b, e, v >> b & 1 == 1);
                    }
                }
            }
            let mut got = BitMatrix::zeros((first + n) * w, examples);
            pack_into(&mut got, first, n, xs.iter().map(Vec::as_slice), w);
            prop_assert_eq!(&got, &want);
            let packed = pack(&xs, n, ring);
            prop_assert_eq!(unpack(&packed, n, ring), xs);
        }

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

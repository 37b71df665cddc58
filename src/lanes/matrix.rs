//! `BitMatrix`: signals packed 64 examples to a `u64` lane word.
//!
//! Row `r` holds one signal (an input bit, a gate output, a label bit) across every
//! example; example `e` lives in word `e / 64`, bit `e % 64`. Bits past the last example
//! in the final word are kept at zero so popcounts over a row count examples exactly.

/// Number of examples packed into one lane word.
pub const LANES: usize = 64;

/// Words needed to hold `examples` lanes.
#[must_use]
pub const fn words_for(examples: usize) -> usize {
    examples.div_ceil(LANES)
}

/// Mask of the valid lanes in the last word of a row of `examples` lanes.
#[must_use]
pub const fn tail_mask(examples: usize) -> u64 {
    match examples % LANES {
        0 => u64::MAX,
        r => (1u64 << r) - 1,
    }
}

/// A dense matrix of bits, one row per signal, examples packed along the row.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct BitMatrix {
    rows: usize,
    examples: usize,
    words: usize,
    data: Vec<u64>,
}

impl BitMatrix {
    /// An all-zero matrix of `rows` signals over `examples` examples.
    #[must_use]
    pub fn zeros(rows: usize, examples: usize) -> Self {
        let words = words_for(examples);
        Self { rows, examples, words, data: vec![0; rows * words] }
    }

    /// Builds a matrix from one `bool` slice per example (each of length `rows`).
    ///
    /// # Panics
    /// If an example does not have `rows` bits.
    #[must_use]
    pub fn from_examples<R: AsRef<[bool]>>(rows: usize, examples: &[R]) -> Self {
        let mut m = Self::zeros(rows, examples.len());
        for (e, ex) in examples.iter().enumerate() {
            let ex = ex.as_ref();
            assert_eq!(ex.len(), rows, "example {e} has {} bits, expected {rows}", ex.len());
            for (r, &b) in ex.iter().enumerate() {
                if b {
                    m.set(r, e, true);
                }
            }
        }
        m
    }

    /// A matrix whose row `r` is the constant `values[r]` on every example (parameters).
    #[must_use]
    pub fn broadcast(values: &[bool], examples: usize) -> Self {
        let mut m = Self::zeros(values.len(), examples);
        for (r, &v) in values.iter().enumerate() {
            if v {
                m.row_mut(r).fill(u64::MAX);
                m.clear_tail(r);
            }
        }
        m
    }

    /// Number of signals (rows).
    #[must_use]
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of examples (lanes in use).
    #[must_use]
    pub fn examples(&self) -> usize {
        self.examples
    }

    /// Words per row.
    #[must_use]
    pub fn words(&self) -> usize {
        self.words
    }

    /// The packed words of row `r`.
    #[must_use]
    pub fn row(&self, r: usize) -> &[u64] {
        &self.data[r * self.words..(r + 1) * self.words]
    }

    /// The packed words of row `r`, mutable. Callers keep the tail lanes zero.
    pub fn row_mut(&mut self, r: usize) -> &mut [u64] {
        &mut self.data[r * self.words..(r + 1) * self.words]
    }

    /// Every packed word, row after row ([`words`](Self::words) per row), mutable: for
    /// filling disjoint rows from several threads. Callers keep the tail lanes zero.
    pub fn words_mut(&mut self) -> &mut [u64] {
        &mut self.data
    }

    /// Bit of signal `r` on example `e`.
    #[must_use]
    pub fn get(&self, r: usize, e: usize) -> bool {
        debug_assert!(e < self.examples);
        (self.data[r * self.words + e / LANES] >> (e % LANES)) & 1 == 1
    }

    /// Sets the bit of signal `r` on example `e`.
    pub fn set(&mut self, r: usize, e: usize, v: bool) {
        debug_assert!(e < self.examples);
        let w = &mut self.data[r * self.words + e / LANES];
        let bit = 1u64 << (e % LANES);
        if v {
            *w |= bit;
        } else {
            *w &= !bit;
        }
    }

    /// Zeroes the unused lanes of the last word of row `r`.
    pub fn clear_tail(&mut self, r: usize) {
        if self.words > 0 {
            let mask = tail_mask(self.examples);
            let last = self.words - 1;
            self.row_mut(r)[last] &= mask;
        }
    }

    /// Number of examples on which signal `r` is 1.
    #[must_use]
    pub fn count_ones(&self, r: usize) -> u64 {
        self.row(r).iter().map(|w| u64::from(w.count_ones())).sum()
    }

    /// The bits of example `e`, one per row.
    #[must_use]
    pub fn example(&self, e: usize) -> Vec<bool> {
        (0..self.rows).map(|r| self.get(r, e)).collect()
    }

    /// Stacks the rows of `self` above the rows of `other` (same examples).
    ///
    /// # Panics
    /// If the example counts differ.
    #[must_use]
    pub fn vstack(&self, other: &Self) -> Self {
        assert_eq!(self.examples, other.examples, "vstack needs the same examples");
        let mut data = self.data.clone();
        data.extend_from_slice(&other.data);
        Self { rows: self.rows + other.rows, examples: self.examples, words: self.words, data }
    }

    /// The examples of `parts` one after another, in that order (the same rows).
    ///
    /// # Panics
    /// If the parts' row counts differ.
    #[must_use]
    pub fn concat_examples(parts: &[&Self]) -> Self {
        let rows = parts.first().map_or(0, |p| p.rows);
        assert!(parts.iter().all(|p| p.rows == rows), "concat_examples needs the same rows");
        let mut m = Self::zeros(rows, parts.iter().map(|p| p.examples).sum());
        let mut at = 0;
        for p in parts {
            // Bits past a part's last example are zero, so its words can be ORed in whole.
            let (w0, shift) = (at / LANES, at % LANES);
            for r in 0..rows {
                let dst = &mut m.data[r * m.words..(r + 1) * m.words];
                for (i, &word) in p.row(r).iter().enumerate() {
                    dst[w0 + i] |= word << shift;
                    if shift > 0 && w0 + i + 1 < dst.len() {
                        dst[w0 + i + 1] |= word >> (LANES - shift);
                    }
                }
            }
            at += p.examples;
        }
        m
    }

    /// The sub-matrix of the examples whose indices are listed, in that order.
    #[must_use]
    pub fn select_examples(&self, indices: &[usize]) -> Self {
        let mut m = Self::zeros(self.rows, indices.len());
        for r in 0..self.rows {
            let src = self.row(r);
            for (dst, chunk) in m.row_mut(r).iter_mut().zip(indices.chunks(LANES)) {
                let mut word = 0;
                for (b, &e) in chunk.iter().enumerate() {
                    debug_assert!(e < self.examples);
                    word |= (src[e / LANES] >> (e % LANES) & 1) << b;
                }
                *dst = word;
            }
        }
        m
    }

    /// The rows whose indices are listed, in that order.
    #[must_use]
    pub fn select_rows(&self, indices: &[usize]) -> Self {
        let mut data = Vec::with_capacity(indices.len() * self.words);
        for &r in indices {
            data.extend_from_slice(self.row(r));
        }
        Self { rows: indices.len(), examples: self.examples, words: self.words, data }
    }

    /// The transpose: one row per example, one lane per signal. With it, a batch of
    /// examples is a [`select_rows`](Self::select_rows) and a transpose back: word
    /// copies and 64 x 64 block transposes instead of one bit at a time.
    #[must_use]
    pub fn transposed(&self) -> Self {
        let mut t = Self::zeros(self.examples, self.rows);
        let mut block = [0u64; LANES];
        for rb in 0..words_for(self.rows) {
            for w in 0..self.words {
                for (i, b) in block.iter_mut().enumerate() {
                    let r = rb * LANES + i;
                    *b = if r < self.rows { self.data[r * self.words + w] } else { 0 };
                }
                transpose64(&mut block);
                for (i, &b) in block.iter().enumerate().take(self.examples - w * LANES) {
                    t.data[(w * LANES + i) * t.words + rb] = b;
                }
            }
        }
        t
    }

    /// The sub-matrix of examples in the word range `[w0, w1)` (whole words).
    #[must_use]
    pub fn word_range(&self, w0: usize, w1: usize) -> Self {
        let examples = (w1 * LANES).min(self.examples) - w0 * LANES;
        let words = w1 - w0;
        let mut data = Vec::with_capacity(self.rows * words);
        for r in 0..self.rows {
            data.extend_from_slice(&self.row(r)[w0..w1]);
        }
        Self { rows: self.rows, examples, words, data }
    }
}

/// Transposes a 64 x 64 bit block in place: bit `j` of word `i` becomes bit `i` of word
/// `j` (swaps of ever smaller off-diagonal sub-blocks). Each of the six stages runs over
/// contiguous halves of blocks, so the compiler vectorises it (2-3x faster than the
/// index-hopping loop it replaced, BENCHMARKS.md).
pub(crate) fn transpose64(a: &mut [u64; LANES]) {
    swap_stage::<32>(a, 0x0000_0000_FFFF_FFFF);
    swap_stage::<16>(a, 0x0000_FFFF_0000_FFFF);
    swap_stage::<8>(a, 0x00FF_00FF_00FF_00FF);
    swap_stage::<4>(a, 0x0F0F_0F0F_0F0F_0F0F);
    swap_stage::<2>(a, 0x3333_3333_3333_3333);
    swap_stage::<1>(a, 0x5555_5555_5555_5555);
}

/// One stage of [`transpose64`]: in every block of `2J` words, bits `mask << J` of word
/// `k` swap with bits `mask` of word `k + J`.
#[inline(always)]
fn swap_stage<const J: usize>(a: &mut [u64; LANES], mask: u64) {
    for block in a.chunks_exact_mut(2 * J) {
        let (lo, hi) = block.split_at_mut(J);
        for (x, y) in lo.iter_mut().zip(hi.iter_mut()) {
            let t = ((*x >> J) ^ *y) & mask;
            *x ^= t << J;
            *y ^= t;
        }
    }
}

/// Every pattern of `n` inputs (`2^n` examples, example `e` sets input `i` to bit `i` of `e`).
#[must_use]
pub fn all_patterns(n: usize) -> BitMatrix {
    let examples = 1usize << n;
    let mut m = BitMatrix::zeros(n, examples);
    for i in 0..n {
        for (w, word) in m.row_mut(i).iter_mut().enumerate() {
            *word = if i < 6 {
                // Bit i of the lane index, repeated over the 64 lanes of the word.
                (0..LANES).filter(|l| l >> i & 1 == 1).fold(0u64, |acc, l| acc | 1 << l)
            } else if (w * LANES) >> i & 1 == 1 {
                u64::MAX
            } else {
                0
            };
        }
        m.clear_tail(i);
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_get_and_counts() {
        let mut m = BitMatrix::zeros(2, 130);
        m.set(1, 129, true);
        m.set(1, 0, true);
        assert!(m.get(1, 129) && m.get(1, 0) && !m.get(0, 129));
        assert_eq!(m.count_ones(1), 2);
        assert_eq!(m.words(), 3);
        let b = BitMatrix::broadcast(&[true, false], 70);
        assert_eq!(b.count_ones(0), 70);
        assert_eq!(b.count_ones(1), 0);
    }

    #[test]
    fn transpose_swaps_rows_and_examples() {
        for (rows, examples) in [(1, 1), (70, 130), (128, 64), (3, 200)] {
            let m = crate::bench::random_bits(rows, examples, rows as u64);
            let t = m.transposed();
            assert_eq!((t.rows(), t.examples()), (examples, rows));
            for r in 0..rows {
                for e in 0..examples {
                    assert_eq!(t.get(e, r), m.get(r, e));
                }
            }
            assert_eq!(t.transposed(), m);
            let pick = [examples - 1, 0, examples / 2, examples - 1];
            assert_eq!(t.select_rows(&pick).transposed(), m.select_examples(&pick));
        }
    }

    #[test]
    fn select_and_ranges() {
        let m = BitMatrix::from_examples(1, &[[true], [false], [true]]);
        let s = m.select_examples(&[2, 1]);
        assert_eq!(s.example(0), vec![true]);
        assert_eq!(s.example(1), vec![false]);
        assert_eq!(m.word_range(0, 1).examples(), 3);
    }

    #[test]
    fn concatenated_examples_are_the_parts_in_order() {
        // Parts that end inside a word, on a word's end, and an empty one.
        let sizes = [70, 1, 0, 64, 130, 5];
        let parts: Vec<BitMatrix> =
            sizes.iter().enumerate().map(|(i, &n)| crate::bench::random_bits(3, n, i as u64)).collect();
        let m = BitMatrix::concat_examples(&parts.iter().collect::<Vec<_>>());
        assert_eq!((m.rows(), m.examples()), (3, sizes.iter().sum::<usize>()));
        let mut e = 0;
        for p in &parts {
            for i in 0..p.examples() {
                assert_eq!(m.example(e), p.example(i));
                e += 1;
            }
        }
        // Past the last example the lanes stay zero.
        let whole = BitMatrix::broadcast(&[true, true, true], 70);
        let m = BitMatrix::concat_examples(&[&whole, &whole]);
        assert_eq!((0..3).map(|r| m.count_ones(r)).collect::<Vec<_>>(), [140, 140, 140]);
    }
}

//! Batches of training inputs as the relaxed kernels read them: the input bits of a
//! batch of examples as a tensor of 0/1 values, node-major `[inputs, B]`
//! ([`gather`](crate::learn::relaxed::gather)'s layout and values).
//!
//! The training inputs are kept one row per example ([`BitMatrix::transposed`]), so a
//! batch reads each of its examples' bits from one contiguous row, in whole words, and
//! 64 x 64 bit blocks are transposed into the batch's rows, packed ([`PackedBits`]): the
//! kernels that read rows of bits read them so, and the floats are made only if another
//! kernel reads them (the soft choice of an input layer never does). Gathering from the
//! node-major matrix instead reads one bit of each example from every input row: a
//! random cache line per (input bit, example), which took a quarter of a relaxed epoch
//! at Fashion-MNIST size (49,392 input bits).

use crate::lanes::matrix::transpose64;
use crate::lanes::{BitMatrix, LANES};
use crate::smooth::Tensor;
use crate::smooth::tensor::PackedBits;
use rayon::prelude::*;

/// Input words (of 64 input bits) per parallel task: an example's words of one task
/// share a cache line.
const WORDS_PER_TASK: usize = 8;

/// Training inputs stored one row per example, for gathering batches.
#[derive(Clone, Debug)]
pub(crate) struct ExampleRows {
    /// One row per example, one lane per input bit.
    by_example: BitMatrix,
}

impl ExampleRows {
    /// The inputs `inputs` (one row per input bit), stored by example.
    pub(crate) fn new(inputs: &BitMatrix) -> Self {
        Self { by_example: inputs.transposed() }
    }

    /// Input bits of examples `idx` as 0/1 values, node-major `[inputs, idx.len()]`: the
    /// same tensor as [`gather`](crate::learn::relaxed::gather) of the original inputs,
    /// built from its rows packed (its floats are made if a kernel reads them).
    pub(crate) fn gather(&self, idx: &[usize]) -> Tensor {
        let (n, b) = (self.by_example.examples(), idx.len());
        if n == 0 || b == 0 {
            return Tensor::new(vec![n, b], Vec::new());
        }
        // `PackedBits`' layout: a row's bytes are its 64-example words' bytes.
        let bytes_per_row = b.div_ceil(8);
        let mut packed = vec![0u8; n * bytes_per_row];
        let rows = &self.by_example;
        packed.par_chunks_mut(WORDS_PER_TASK * LANES * bytes_per_row).enumerate().for_each(
            |(task, packed)| {
                let mut block = [0u64; LANES];
                for (wi, packed) in packed.chunks_mut(LANES * bytes_per_row).enumerate() {
                    let w = task * WORDS_PER_TASK + wi;
                    let bits = packed.len() / bytes_per_row;
                    for (c, chunk) in idx.chunks(LANES).enumerate() {
                        for (v, &e) in block.iter_mut().zip(chunk) {
                            *v = rows.row(e)[w];
                        }
                        block[chunk.len()..].fill(0);
                        // Word `i` is now input bit `64 w + i` of the chunk's examples.
                        transpose64(&mut block);
                        for (i, &word) in block.iter().enumerate().take(bits) {
                            let bytes = &mut packed[i * bytes_per_row + c * 8..][..chunk.len().div_ceil(8)];
                            bytes.copy_from_slice(&word.to_le_bytes()[..bytes.len()]);
                        }
                    }
                }
            },
        );
        Tensor::from_packed_bits(n, b, PackedBits::from_bytes(b, packed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::relaxed::gather;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn gathers_what_the_node_major_gather_does() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        // Sizes that are not multiples of 64 (rows, examples, batch), more than one task.
        for (rows, examples, batch) in [(1, 1, 1), (700, 150, 77), (1_100, 70, 130), (64, 64, 64)] {
            let bits: Vec<Vec<bool>> =
                (0..examples).map(|_| (0..rows).map(|_| rng.random::<bool>()).collect()).collect();
            let m = BitMatrix::from_examples(rows, &bits);
            let idx: Vec<usize> = (0..batch).map(|_| rng.random_range(0..examples)).collect();
            let fast = ExampleRows::new(&m).gather(&idx);
            let slow = gather(&m, &idx);
            assert!(!fast.floats_made() && !slow.floats_made(), "a batch is gathered packed");
            assert_eq!(slow.data(), truth(&bits, &idx), "{rows} rows, {examples} examples, batch {batch}");
            assert_eq!(fast.shape(), slow.shape());
            assert_eq!(fast.data(), slow.data(), "{rows} rows, {examples} examples, batch {batch}");
            assert_eq!(
                fast.packed_bits(),
                PackedBits::of(slow.data(), batch).as_ref(),
                "packed, {rows} rows"
            );
        }
        let m = BitMatrix::zeros(5, 3);
        assert_eq!(ExampleRows::new(&m).gather(&[]).shape(), &[5, 0]);
    }

    /// The node-major gather of consecutive examples from a byte boundary copies whole
    /// bytes of each row; the others (and every batch here) must give the bits.
    #[test]
    fn node_major_gather_of_consecutive_examples() {
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let (rows, examples) = (70, 300);
        let bits: Vec<Vec<bool>> =
            (0..examples).map(|_| (0..rows).map(|_| rng.random::<bool>()).collect()).collect();
        let m = BitMatrix::from_examples(rows, &bits);
        for (start, len) in
            [(0, 1), (0, 7), (8, 8), (64, 63), (72, 65), (128, 172), (3, 20), (256, 44), (0, 300)]
        {
            let idx: Vec<usize> = (start..start + len).collect();
            let x = gather(&m, &idx);
            assert_eq!(x.shape(), &[rows, len]);
            assert_eq!(x.data(), truth(&bits, &idx), "examples {start}..{}", start + len);
            assert_eq!(x.packed_bits(), PackedBits::of(x.data(), len).as_ref(), "padding bits are 0");
        }
    }

    /// Node-major `[inputs, idx.len()]` floats of `bits[example][input]`.
    fn truth(bits: &[Vec<bool>], idx: &[usize]) -> Vec<f32> {
        let rows = bits.first().map_or(0, Vec::len);
        (0..rows).flat_map(|r| idx.iter().map(move |&e| f32::from(u8::from(bits[e][r])))).collect()
    }
}

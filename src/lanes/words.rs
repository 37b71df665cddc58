//! `WordMatrix`: one `u64` per example, for domains whose values are words (ring
//! elements) rather than bits. The same compiled [`Program`](super::Program) evaluates
//! it, tile by tile, with one example per word instead of 64.

/// A dense matrix of words, one row per signal, one word per example.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct WordMatrix {
    rows: usize,
    examples: usize,
    data: Vec<u64>,
}

impl WordMatrix {
    /// All zeros.
    #[must_use]
    pub fn zeros(rows: usize, examples: usize) -> Self {
        Self { rows, examples, data: vec![0; rows * examples] }
    }

    /// From one value vector per example (each of length `rows`).
    ///
    /// # Panics
    /// If an example does not have `rows` values.
    #[must_use]
    pub fn from_examples<V: AsRef<[u64]>>(rows: usize, examples: &[V]) -> Self {
        let mut m = Self::zeros(rows, examples.len());
        for (e, ex) in examples.iter().enumerate() {
            let ex = ex.as_ref();
            assert_eq!(ex.len(), rows, "example {e} has {} values, expected {rows}", ex.len());
            for (r, &v) in ex.iter().enumerate() {
                m.data[r * m.examples + e] = v;
            }
        }
        m
    }

    pub(super) fn from_raw(rows: usize, examples: usize, data: Vec<u64>) -> Self {
        debug_assert_eq!(data.len(), rows * examples);
        Self { rows, examples, data }
    }

    /// Number of rows.
    #[must_use]
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of examples.
    #[must_use]
    pub fn examples(&self) -> usize {
        self.examples
    }

    /// Row `r`: one value per example.
    #[must_use]
    pub fn row(&self, r: usize) -> &[u64] {
        &self.data[r * self.examples..(r + 1) * self.examples]
    }

    /// The values of example `e`, one per row.
    #[must_use]
    pub fn example(&self, e: usize) -> Vec<u64> {
        (0..self.rows).map(|r| self.data[r * self.examples + e]).collect()
    }
}

//! Truth tables of small functions and their sum-of-products covers.
//!
//! [`isop`] is the Minato–Morreale irredundant sum-of-products: recursive on the top
//! variable, it covers the negative and the positive cofactor with cubes that need that
//! literal and covers the rest with cubes free of it. Writers use it for BLIF `.names`
//! rows and Verilog `assign` expressions; [`minterms`] gives the plain one-row-per-minterm
//! cover (the independent reference `verify --abc` compares against).

/// Most variables a [`TruthTable`] may have (64 Ki entries).
pub const MAX_TABLE_VARS: usize = 16;

/// A Boolean function of `n` variables as `2^n` bits: bit `s` is `f(s)`, where variable
/// `i` is bit `i` of `s`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TruthTable {
    n_vars: usize,
    words: Vec<u64>,
}

/// A product of literals: variable `i` appears iff bit `i` of `care` is set, positive iff
/// bit `i` of `value` is set too. The empty cube is the constant 1.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Cube {
    /// Variables that appear.
    pub care: u32,
    /// Their polarities (a subset of `care`).
    pub value: u32,
}

/// Valid bits of the single word of a table over `n <= 6` variables.
fn mask(n: usize) -> u64 {
    if n >= 6 { u64::MAX } else { (1u64 << (1u32 << n)) - 1 }
}

impl TruthTable {
    /// The constant-0 function of `n_vars` variables.
    ///
    /// # Panics
    /// If `n_vars` exceeds [`MAX_TABLE_VARS`].
    #[must_use]
    pub fn zeros(n_vars: usize) -> Self {
        assert!(n_vars <= MAX_TABLE_VARS, "truth tables have at most {MAX_TABLE_VARS} variables");
        Self { n_vars, words: vec![0; (1usize << n_vars).div_ceil(64)] }
    }

    /// The function `f` of `n_vars` variables, evaluated at every point.
    ///
    /// # Panics
    /// If `n_vars` exceeds [`MAX_TABLE_VARS`].
    #[must_use]
    pub fn from_fn(n_vars: usize, mut f: impl FnMut(usize) -> bool) -> Self {
        let mut t = Self::zeros(n_vars);
        for s in 0..1usize << n_vars {
            if f(s) {
                t.set(s, true);
            }
        }
        t
    }

    /// Number of variables.
    #[must_use]
    pub fn n_vars(&self) -> usize {
        self.n_vars
    }

    /// `f(s)`.
    #[must_use]
    pub fn get(&self, s: usize) -> bool {
        self.words[s / 64] >> (s % 64) & 1 == 1
    }

    /// Sets `f(s)`.
    pub fn set(&mut self, s: usize, v: bool) {
        let bit = 1u64 << (s % 64);
        if v {
            self.words[s / 64] |= bit;
        } else {
            self.words[s / 64] &= !bit;
        }
    }

    /// `Some(v)` if the function is the constant `v`.
    #[must_use]
    pub fn constant(&self) -> Option<bool> {
        let m = mask(self.n_vars);
        if self.words.iter().all(|&w| w == 0) {
            Some(false)
        } else if self.words.iter().all(|&w| w == m) {
            Some(true)
        } else {
            None
        }
    }

    /// The complement.
    #[must_use]
    pub fn not(&self) -> Self {
        let m = mask(self.n_vars);
        Self { n_vars: self.n_vars, words: self.words.iter().map(|w| !w & m).collect() }
    }

    /// The function of `n_vars` variables whose bit `s` is bit `s % 64` of `words[s / 64]`
    /// (bits past `2^n_vars` are ignored).
    ///
    /// # Panics
    /// If `n_vars` exceeds [`MAX_TABLE_VARS`] or `words` is shorter than the table.
    #[must_use]
    pub fn from_words(n_vars: usize, words: &[u64]) -> Self {
        let mut t = Self::zeros(n_vars);
        let k = t.words.len();
        t.words.copy_from_slice(&words[..k]);
        t.words[0] &= mask(n_vars);
        t
    }

    #[cfg(test)]
    /// The table's words: bit `s` of the function is bit `s % 64` of word `s / 64`.
    #[must_use]
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// Whether the function depends on variable `i`.
    #[must_use]
    pub fn depends_on(&self, i: usize) -> bool {
        self.differs_with(i, false)
    }

    /// Whether flipping variable `i` complements the function at every point
    /// (`f = x_i ^ g`, `g` free of `x_i`).
    #[must_use]
    pub fn linear_in(&self, i: usize) -> bool {
        i < self.n_vars && self.differs_with(i, true)
    }

    /// `all = false`: whether `f(s) != f(s ^ e_i)` at some point; `all = true`: at every point.
    fn differs_with(&self, i: usize, all: bool) -> bool {
        if i >= self.n_vars {
            return false;
        }
        if i < 6 {
            // Positions with bit i clear, within the table.
            const LOW: [u64; 6] = [
                0x5555_5555_5555_5555,
                0x3333_3333_3333_3333,
                0x0f0f_0f0f_0f0f_0f0f,
                0x00ff_00ff_00ff_00ff,
                0x0000_ffff_0000_ffff,
                0x0000_0000_ffff_ffff,
            ];
            let m = LOW[i] & mask(self.n_vars);
            let diff = |w: u64| (w ^ w >> (1u32 << i)) & m;
            if all {
                self.words.iter().all(|&w| diff(w) == m)
            } else {
                self.words.iter().any(|&w| diff(w) != 0)
            }
        } else {
            let step = 1usize << (i - 6);
            let mut pairs =
                (0..self.words.len()).filter(|j| j & step == 0).map(|j| self.words[j] ^ self.words[j + step]);
            if all { pairs.all(|d| d == u64::MAX) } else { pairs.any(|d| d != 0) }
        }
    }

    /// The function restricted to the listed variables (in that order), assuming it does
    /// not depend on the others.
    #[must_use]
    pub fn project(&self, vars: &[usize]) -> Self {
        Self::from_fn(vars.len(), |s| {
            let full = vars.iter().enumerate().fold(0, |a, (j, &v)| a | (s >> j & 1) << v);
            self.get(full)
        })
    }
}

impl Cube {
    /// The literal of variable `i`: `Some(polarity)` or `None` if it does not appear.
    #[must_use]
    pub fn literal(self, i: usize) -> Option<bool> {
        (self.care >> i & 1 == 1).then_some(self.value >> i & 1 == 1)
    }

    #[cfg(test)]
    /// Whether the point `s` satisfies the cube.
    #[must_use]
    pub fn contains(self, s: usize) -> bool {
        (s as u32) & self.care == self.value
    }

    /// The cube with variable `i` at polarity `v` added.
    #[must_use]
    pub fn with(self, i: usize, v: bool) -> Self {
        Self { care: self.care | 1 << i, value: self.value | u32::from(v) << i }
    }

    /// The BLIF input plane over `n` variables, variable 0 first (`1-0`).
    #[must_use]
    pub fn plane(self, n: usize) -> String {
        (0..n)
            .map(|i| match self.literal(i) {
                None => '-',
                Some(true) => '1',
                Some(false) => '0',
            })
            .collect()
    }
}

/// An irredundant sum-of-products cover of `f` (no cubes for the constant 0, the empty
/// cube alone for the constant 1).
#[must_use]
pub fn isop(f: &TruthTable) -> Vec<Cube> {
    let mut out = Vec::new();
    isop_words(&f.words, &f.words, f.n_vars, Cube::default(), &mut out);
    out
}

/// One cube per point where `f` is 1, in increasing order.
#[must_use]
pub fn minterms(f: &TruthTable) -> Vec<Cube> {
    let all = (1u32 << f.n_vars) - 1;
    (0..1usize << f.n_vars).filter(|&s| f.get(s)).map(|s| Cube { care: all, value: s as u32 }).collect()
}

#[cfg(test)]
/// The function a cover computes over `n_vars` variables.
#[must_use]
pub fn cover_table(n_vars: usize, cubes: &[Cube]) -> TruthTable {
    TruthTable::from_fn(n_vars, |s| cubes.iter().any(|c| c.contains(s)))
}

/// ISOP of an interval `[l, u]` of functions over `n` variables, stored in words; pushes
/// cubes extended by `prefix` and returns the function they cover.
fn isop_words(l: &[u64], u: &[u64], n: usize, prefix: Cube, out: &mut Vec<Cube>) -> Vec<u64> {
    if n <= 6 {
        return vec![isop_word(l[0], u[0], n, prefix, out)];
    }
    if l.iter().all(|&w| w == 0) {
        return vec![0; l.len()];
    }
    if u.iter().all(|&w| w == u64::MAX) {
        out.push(prefix);
        return vec![u64::MAX; l.len()];
    }
    let v = n - 1;
    let h = l.len() / 2;
    let (l0, l1) = l.split_at(h);
    let (u0, u1) = u.split_at(h);
    let andnot = |a: &[u64], b: &[u64]| a.iter().zip(b).map(|(x, y)| x & !y).collect::<Vec<u64>>();
    let r0 = isop_words(&andnot(l0, u1), u0, v, prefix.with(v, false), out);
    let r1 = isop_words(&andnot(l1, u0), u1, v, prefix.with(v, true), out);
    let rest: Vec<u64> = (0..h).map(|i| (l0[i] & !r0[i]) | (l1[i] & !r1[i])).collect();
    let both: Vec<u64> = (0..h).map(|i| u0[i] & u1[i]).collect();
    let rs = isop_words(&rest, &both, v, prefix, out);
    (0..h).map(|i| r0[i] | rs[i]).chain((0..h).map(|i| r1[i] | rs[i])).collect()
}

/// [`isop_words`] for at most six variables, without allocation.
fn isop_word(l: u64, u: u64, n: usize, prefix: Cube, out: &mut Vec<Cube>) -> u64 {
    if l == 0 {
        return 0;
    }
    if u == mask(n) {
        out.push(prefix);
        return u;
    }
    // Here n >= 1: over zero variables a non-zero l forces u = 1 = mask(0).
    let v = n - 1;
    let half = 1u32 << v;
    let m = mask(v);
    let (l0, l1) = (l & m, l >> half & m);
    let (u0, u1) = (u & m, u >> half & m);
    let r0 = isop_word(l0 & !u1, u0, v, prefix.with(v, false), out);
    let r1 = isop_word(l1 & !u0, u1, v, prefix.with(v, true), out);
    let rs = isop_word((l0 & !r0) | (l1 & !r1), u0 & u1, v, prefix, out);
    (r0 | rs) | (r1 | rs) << half
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn isop_covers_exactly_and_is_irredundant() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for n in 0..=9 {
            for _ in 0..40 {
                let density = rng.random_range(0.0..1.0);
                let f = TruthTable::from_fn(n, |_| rng.random_bool(density));
                let cubes = isop(&f);
                assert_eq!(cover_table(n, &cubes), f, "n = {n}");
                for i in 0..cubes.len() {
                    let mut rest = cubes.clone();
                    rest.remove(i);
                    assert_ne!(cover_table(n, &rest), f, "cube {i} is redundant");
                }
                assert_eq!(cover_table(n, &minterms(&f)), f);
            }
        }
    }

    #[test]
    fn small_functions_get_their_textbook_covers() {
        let and = TruthTable::from_fn(2, |s| s == 3);
        assert_eq!(isop(&and).iter().map(|c| c.plane(2)).collect::<Vec<_>>(), ["11"]);
        let or = TruthTable::from_fn(2, |s| s != 0);
        assert_eq!(isop(&or).len(), 2);
        let xor = TruthTable::from_fn(2, |s| s == 1 || s == 2);
        assert_eq!(isop(&xor).iter().map(|c| c.plane(2)).collect::<Vec<_>>(), ["10", "01"]);
        assert!(isop(&TruthTable::zeros(3)).is_empty());
        assert_eq!(isop(&TruthTable::zeros(3).not()), [Cube::default()]);
        assert_eq!(TruthTable::zeros(7).not().constant(), Some(true));
    }

    #[test]
    fn support_and_projection() {
        // f(a, b, c) = a & c: independent of b.
        let f = TruthTable::from_fn(3, |s| s & 5 == 5);
        assert!(f.depends_on(0) && !f.depends_on(1) && f.depends_on(2));
        assert_eq!(f.project(&[0, 2]), TruthTable::from_fn(2, |s| s == 3));
    }

    #[test]
    fn word_level_support_and_linearity_agree_with_the_points() {
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        for n in 0..=10 {
            for trial in 0..60 {
                let f = match trial % 3 {
                    0 => TruthTable::from_fn(n, |_| rng.random_bool(0.5)),
                    // Sparse, and x_v ^ g: both answers must come out true sometimes.
                    1 => TruthTable::from_fn(n, |_| rng.random_bool(0.05)),
                    _ => {
                        let v = rng.random_range(0..n.max(1));
                        let g: Vec<bool> = (0..1usize << n).map(|_| rng.random_bool(0.5)).collect();
                        TruthTable::from_fn(n, |s| (s >> v & 1 == 1) ^ g[s & !(1 << v)])
                    }
                };
                assert_eq!(TruthTable::from_words(n, f.words()), f);
                for i in 0..n + 1 {
                    let flip = |s: usize| f.get(s) != f.get(s ^ 1 << i);
                    let points = 0..1usize << n;
                    assert_eq!(f.depends_on(i), i < n && points.clone().any(flip), "n = {n}, i = {i}");
                    assert_eq!(f.linear_in(i), i < n && points.clone().all(flip), "n = {n}, i = {i}");
                }
            }
        }
    }
}

//! Word-level arithmetic hypotheses: the label is one bit of an arithmetic function of
//! the input read as binary words — the product of the two input halves (its low half,
//! which needs no more than a truncated array multiplier) or the integer square root of
//! the whole input, or the sign of the signed product of the halves — with the input's
//! bits in either order. A fit builds the function's
//! circuit, scores every output bit (and its complement) on the training rows and keeps
//! the best one: a hypothesis class of a few dozen members, chosen like any other
//! candidate by cross-validation. This is the prior the IWLS 2020 multiplier and
//! square-root benchmarks reward (a tree sees only noise in their middle bits).

use crate::aig::Aig;
use crate::circuit::{Circuit, CircuitBuilder, WireId};
use crate::domain::{Bool, BoolBuild};
use crate::lanes::BitMatrix;

/// The arithmetic function of the input words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WordOp {
    /// `a * b mod 2^k` for the two `k`-bit halves of a `2k`-bit input (`a` first).
    HalfProduct,
    /// `floor(sqrt(x))` of the whole input as one number.
    Sqrt,
    /// The sign (top bit) of the product of the two halves read as two's complement
    /// numbers: the XOR of their sign bits when neither is zero (one output, any width).
    ProductSign,
}

/// How the input bits map to word bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BitOrder {
    /// Input `i` of a word is its bit `i` (least significant first).
    LsbFirst,
    /// Input `i` of a `w`-bit word is its bit `w - 1 - i`.
    MsbFirst,
}

/// Most inputs a product or square-root hypothesis is built for (beyond it the circuits
/// exceed the IWLS budget; the product sign has no limit).
pub const WORD_MAX_INPUTS: usize = 64;

/// A bit known at build time or a wire, so that constants fold while building.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bit {
    C(bool),
    W(WireId),
}

struct Build(CircuitBuilder<Bool>);

impl Build {
    fn wire(&mut self, x: Bit) -> WireId {
        match x {
            Bit::C(v) => self.0.constant(v),
            Bit::W(w) => w,
        }
    }
    fn not(&mut self, x: Bit) -> Bit {
        match x {
            Bit::C(v) => Bit::C(!v),
            Bit::W(w) => Bit::W(self.0.not(w)),
        }
    }
    fn and(&mut self, x: Bit, y: Bit) -> Bit {
        match (x, y) {
            (Bit::C(false), _) | (_, Bit::C(false)) => Bit::C(false),
            (Bit::C(true), o) | (o, Bit::C(true)) => o,
            (Bit::W(a), Bit::W(b)) => Bit::W(self.0.and(a, b)),
        }
    }
    fn or(&mut self, x: Bit, y: Bit) -> Bit {
        match (x, y) {
            (Bit::C(true), _) | (_, Bit::C(true)) => Bit::C(true),
            (Bit::C(false), o) | (o, Bit::C(false)) => o,
            (Bit::W(a), Bit::W(b)) => Bit::W(self.0.or(a, b)),
        }
    }
    fn xor(&mut self, x: Bit, y: Bit) -> Bit {
        match (x, y) {
            (Bit::C(a), Bit::C(b)) => Bit::C(a ^ b),
            (Bit::C(false), o) | (o, Bit::C(false)) => o,
            (Bit::C(true), o) | (o, Bit::C(true)) => self.not(o),
            (Bit::W(a), Bit::W(b)) => Bit::W(self.0.xor(a, b)),
        }
    }
    fn mux(&mut self, s: Bit, lo: Bit, hi: Bit) -> Bit {
        match (s, lo, hi) {
            (Bit::C(v), _, _) => {
                if v {
                    hi
                } else {
                    lo
                }
            }
            _ if lo == hi => lo,
            (Bit::W(s), _, _) => {
                let (l, h) = (self.wire(lo), self.wire(hi));
                Bit::W(self.0.mux(s, l, h))
            }
        }
    }
    /// `(sum, carry)` of three bits.
    fn full_add(&mut self, x: Bit, y: Bit, z: Bit) -> (Bit, Bit) {
        let t = self.xor(x, y);
        let s = self.xor(t, z);
        let (c1, c2) = (self.and(x, y), self.and(t, z));
        (s, self.or(c1, c2))
    }
}

/// The input bits of the word at inputs `from..from + w` (least significant first).
fn word(b: &CircuitBuilder<Bool>, from: usize, w: usize, order: BitOrder) -> Vec<Bit> {
    (0..w)
        .map(|i| {
            let at = match order {
                BitOrder::LsbFirst => from + i,
                BitOrder::MsbFirst => from + w - 1 - i,
            };
            Bit::W(b.arg(at))
        })
        .collect()
}

/// The low `k` bits of `a * b` by column compression (full adders until one bit a column).
fn low_product(bd: &mut Build, a: &[Bit], b: &[Bit]) -> Vec<Bit> {
    let k = a.len();
    let mut cols: Vec<Vec<Bit>> = vec![Vec::new(); k];
    for (i, &ai) in a.iter().enumerate() {
        for (j, &bj) in b.iter().enumerate().take(k - i) {
            let p = bd.and(ai, bj);
            cols[i + j].push(p);
        }
    }
    let mut out = Vec::with_capacity(k);
    for c in 0..k {
        let mut col = std::mem::take(&mut cols[c]);
        col.retain(|x| *x != Bit::C(false));
        while col.len() > 1 {
            let (x, y) = (col.remove(0), col.remove(0));
            let z = if col.is_empty() { Bit::C(false) } else { col.remove(0) };
            let (s, carry) = bd.full_add(x, y, z);
            col.push(s);
            if c + 1 < k && carry != Bit::C(false) {
                cols[c + 1].push(carry);
            }
        }
        out.push(col.pop().unwrap_or(Bit::C(false)));
    }
    out
}

/// `floor(sqrt(x))` (least significant bit first) by the restoring digit-by-digit method:
/// each stage brings down two bits of `x` and subtracts `4 * root + 1` when it fits.
fn isqrt(bd: &mut Build, x: &[Bit]) -> Vec<Bit> {
    let mut x = x.to_vec();
    if x.len() % 2 == 1 {
        x.push(Bit::C(false));
    }
    let m = x.len() / 2;
    // The remainder before stage s has s bits (it is at most twice the root), root s - 1.
    let mut rem: Vec<Bit> = vec![Bit::C(false)];
    let mut root: Vec<Bit> = Vec::new(); // least significant first
    for s in 1..=m {
        let i = m - s;
        let mut r: Vec<Bit> = vec![x[2 * i], x[2 * i + 1]];
        r.extend(rem.iter().copied());
        let mut trial: Vec<Bit> = vec![Bit::C(true), Bit::C(false)];
        trial.extend(root.iter().copied());
        trial.resize(r.len(), Bit::C(false));
        // r - trial = r + !trial + 1; the carry out says r >= trial.
        let mut carry = Bit::C(true);
        let mut diff = Vec::with_capacity(r.len());
        for (&rb, &tb) in r.iter().zip(&trial) {
            let nt = bd.not(tb);
            let (sum, c) = bd.full_add(rb, nt, carry);
            diff.push(sum);
            carry = c;
        }
        let ge = carry;
        rem = r.iter().zip(&diff).map(|(&keep, &sub)| bd.mux(ge, keep, sub)).take(s + 1).collect();
        root.insert(0, ge);
    }
    root
}

/// The circuit of every output bit of `op` over `n` inputs (`None` when `op` needs an
/// even width that `n` is not, or `n` is 0).
fn all_bits(op: WordOp, order: BitOrder, n: usize) -> Option<(Build, Vec<Bit>)> {
    if n == 0 || (op != WordOp::Sqrt && n % 2 == 1) {
        return None;
    }
    let mut bd = Build(CircuitBuilder::<Bool>::new(0, n));
    let outs = match op {
        WordOp::HalfProduct => {
            let (a, b) = (word(&bd.0, 0, n / 2, order), word(&bd.0, n / 2, n / 2, order));
            low_product(&mut bd, &a, &b)
        }
        WordOp::Sqrt => {
            let x = word(&bd.0, 0, n, order);
            isqrt(&mut bd, &x)
        }
        WordOp::ProductSign => {
            let (a, b) = (word(&bd.0, 0, n / 2, order), word(&bd.0, n / 2, n / 2, order));
            let sign = bd.xor(a[n / 2 - 1], b[n / 2 - 1]);
            let nonzero = |bd: &mut Build, w: &[Bit]| w.iter().fold(Bit::C(false), |acc, &x| bd.or(acc, x));
            let (na, nb) = (nonzero(&mut bd, &a), nonzero(&mut bd, &b));
            let both = bd.and(na, nb);
            vec![bd.and(sign, both)]
        }
    };
    Some((bd, outs))
}

/// One fitted hypothesis: the output bit chosen and its circuit.
#[derive(Clone, Debug)]
pub struct WordFit {
    /// Output bit of the function (least significant is 0).
    pub bit: usize,
    /// Whether the label is that bit's complement.
    pub inverted: bool,
    /// Training rows it gets right.
    pub correct: u64,
    /// The model over the inputs, one output.
    pub circuit: Circuit<Bool>,
}

/// Fits `op` with bit order `order` to inputs `x` (one row per input) and labels `y`:
/// the output bit (or complement) that agrees with most rows, ties to the lower bit.
/// `None` when `op` does not apply to the width (see [`WORD_MAX_INPUTS`]).
#[must_use]
pub fn fit_word(op: WordOp, order: BitOrder, x: &BitMatrix, y: &BitMatrix) -> Option<WordFit> {
    let n = x.rows();
    if n > WORD_MAX_INPUTS && op != WordOp::ProductSign {
        return None;
    }
    let (mut bd, outs) = all_bits(op, order, n)?;
    let wires: Vec<WireId> = outs.iter().map(|&o| bd.wire(o)).collect();
    let all = bd.0.finish(wires).expect("word circuit is valid");
    let sim = Aig::from_circuit(&all, None).simulate(x);
    let e = x.examples() as u64;
    let mut best: Option<(u64, usize, bool)> = None;
    for j in 0..outs.len() {
        let agree =
            e - sim.row(j).iter().zip(y.row(0)).map(|(a, b)| u64::from((a ^ b).count_ones())).sum::<u64>();
        for (c, inv) in [(agree, false), (e - agree, true)] {
            if best.is_none_or(|(b, _, _)| c > b) {
                best = Some((c, j, inv));
            }
        }
    }
    let (correct, bit, inverted) = best?;
    let (mut bd, outs) = all_bits(op, order, n)?;
    let o = if inverted { bd.not(outs[bit]) } else { outs[bit] };
    let w = bd.wire(o);
    let circuit = bd.0.finish(vec![w]).expect("word circuit is valid").pruned();
    Some(WordFit { bit, inverted, correct, circuit })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exhaustive(n: usize) -> Vec<Vec<bool>> {
        (0..1u32 << n).map(|v| (0..n).map(|i| v >> i & 1 == 1).collect()).collect()
    }

    fn value(bits: &[bool]) -> u64 {
        bits.iter().enumerate().map(|(i, &b)| u64::from(b) << i).sum()
    }

    #[test]
    fn circuits_compute_the_low_product_and_the_square_root_on_every_pattern() {
        for n in [1, 2, 5, 8, 11, 12] {
            for order in [BitOrder::LsbFirst, BitOrder::MsbFirst] {
                for op in [WordOp::HalfProduct, WordOp::Sqrt, WordOp::ProductSign] {
                    let Some((mut bd, outs)) = all_bits(op, order, n) else {
                        assert!(op != WordOp::Sqrt && n % 2 == 1);
                        continue;
                    };
                    let wires: Vec<WireId> = outs.iter().map(|&o| bd.wire(o)).collect();
                    let c = bd.0.finish(wires).unwrap();
                    for e in exhaustive(n) {
                        let word = |from: usize, w: usize| {
                            let mut bits = e[from..from + w].to_vec();
                            if order == BitOrder::MsbFirst {
                                bits.reverse();
                            }
                            value(&bits)
                        };
                        let want = match op {
                            WordOp::HalfProduct => word(0, n / 2) * word(n / 2, n / 2),
                            WordOp::Sqrt => word(0, n).isqrt(),
                            WordOp::ProductSign => {
                                let k = n / 2;
                                let signed = |v: u64| v as i64 - if v >> (k - 1) == 1 { 1 << k } else { 0 };
                                let p = signed(word(0, k)) * signed(word(k, k));
                                (p as u64) >> (2 * k - 1) & 1
                            }
                        };
                        let mask = (1u64 << outs.len()) - 1;
                        assert_eq!(value(&c.eval_one(&e)), want & mask, "{op:?} {order:?} {n}");
                    }
                }
            }
        }
    }

    #[test]
    fn fit_finds_the_bit_of_a_noisy_sample_and_its_circuit_is_that_bit() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let n = 20;
        let ex: Vec<Vec<bool>> = (0..2000).map(|_| (0..n).map(|_| rng.random_bool(0.5)).collect()).collect();
        // Bit 7 of the product of the halves, MSB first, complemented, 5% label noise.
        let truth = |e: &[bool]| {
            let w = |s: &[bool]| value(&s.iter().rev().copied().collect::<Vec<_>>());
            (w(&e[..10]) * w(&e[10..])) >> 7 & 1 == 0
        };
        let labels: Vec<Vec<bool>> = ex.iter().map(|e| vec![truth(e) ^ rng.random_bool(0.05)]).collect();
        let (x, y) = (BitMatrix::from_examples(n, &ex), BitMatrix::from_examples(1, &labels));
        let fit = fit_word(WordOp::HalfProduct, BitOrder::MsbFirst, &x, &y).unwrap();
        assert_eq!((fit.bit, fit.inverted), (7, true));
        assert!(fit.correct > 1850, "{}", fit.correct);
        for e in ex.iter().take(300) {
            assert_eq!(fit.circuit.eval_one(e)[0], truth(e));
        }
        assert!(fit_word(WordOp::HalfProduct, BitOrder::LsbFirst, &x, &y).unwrap().correct < 1300);
        assert!(fit_word(WordOp::Sqrt, BitOrder::LsbFirst, &BitMatrix::zeros(65, 64), &y).is_none());
        // The product sign has no width limit: 128 inputs, the XOR of the two top bits
        // (no half is zero in 2,000 random rows).
        let wide: Vec<Vec<bool>> =
            (0..2000).map(|_| (0..128).map(|_| rng.random_bool(0.5)).collect()).collect();
        let labels: Vec<Vec<bool>> = wide.iter().map(|e| vec![e[63] ^ e[127]]).collect();
        let (x, y) = (BitMatrix::from_examples(128, &wide), BitMatrix::from_examples(1, &labels));
        let sign = fit_word(WordOp::ProductSign, BitOrder::LsbFirst, &x, &y).unwrap();
        assert_eq!((sign.correct, sign.inverted), (2000, false));
        assert!(fit_word(WordOp::ProductSign, BitOrder::MsbFirst, &x, &y).unwrap().correct < 1200);
    }
}

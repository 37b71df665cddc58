//! A ring chosen at run time: `z2k:K` (wrapping `K`-bit words), `zp:P` (integers mod a
//! prime) or `sat:N` (integers saturating at `-N` and `N`), as `--ring` names them.
//!
//! Ring models are built once as polynomial circuits over [`RingGate`] (the syntax of
//! [`Poly`], whatever the ring) and interpreted in a [`RingKind`]: [`RingKind::eval`]
//! evaluates a circuit in the ring, property-tested equal to the compile-time rings
//! ([`Z2k`], `Zp`) where they coincide. Constants of a freshly built circuit hold the
//! 64-bit two's complement of a signed value; [`RingKind::canonical`] maps them into the
//! ring, after which every evaluator, bit-blaster and writer reads them the same way.
//!
//! `sat:N` extends the saturating semiring `Sat_N` of [`sat`](super::sat) with negative
//! values: sums and products are clamped to `[-N, N]`, negation is exact, and on `0..=N`
//! it is `Sat_N` itself. Clamped addition is commutative but not associative (that is the
//! price of never wrapping), so results depend on the order a circuit adds in, which a
//! circuit fixes.

use super::ring::{Poly, PolyOp, Z2k};
use crate::circuit::{Circuit, CircuitBuilder, WireId};
use std::fmt;
use std::str::FromStr;

/// The gate type ring models are built with; [`RingKind`] gives it meaning.
pub type RingGate = Poly<Z2k<64>>;

/// A ring (or `sat:N`) chosen at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RingKind {
    /// `Z_(2^K)`, `1 <= K <= 64`.
    Z2k(u32),
    /// `Z_P`, `P` prime below `2^32`.
    Zp(u64),
    /// Integers clamped to `[-N, N]`, `1 <= N <= 2^62`.
    Sat(u64),
}

/// Why a `--ring` value is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RingError {
    /// Not `z2k:K`, `zp:P` or `sat:N`.
    #[error("unknown ring '{0}'; expected z2k:K, zp:P or sat:N")]
    Unknown(String),
    /// `K` outside `1..=64`.
    #[error("z2k:{0}: K must be in 1..=64")]
    Width(String),
    /// `P` not a prime below `2^32`.
    #[error("zp:{0}: P must be a prime below 2^32")]
    NotPrime(String),
    /// `N` outside `1..=2^62`.
    #[error("sat:{0}: N must be in 1..=4611686018427387904 (2^62)")]
    Bound(String),
}

/// Whether `p` is prime (trial division; `p < 2^32`).
#[must_use]
pub fn is_prime(p: u64) -> bool {
    if p < 2 {
        return false;
    }
    let mut d = 2u64;
    while d * d <= p {
        if p.is_multiple_of(d) {
            return false;
        }
        d += 1;
    }
    true
}

impl FromStr for RingKind {
    type Err = RingError;

    fn from_str(s: &str) -> Result<Self, RingError> {
        let (kind, n) = s.split_once(':').ok_or_else(|| RingError::Unknown(s.to_owned()))?;
        match kind {
            "z2k" => match n.parse::<u32>() {
                Ok(k) if (1..=64).contains(&k) => Ok(RingKind::Z2k(k)),
                _ => Err(RingError::Width(n.to_owned())),
            },
            "zp" => match n.parse::<u64>() {
                Ok(p) if p < 1 << 32 && is_prime(p) => Ok(RingKind::Zp(p)),
                _ => Err(RingError::NotPrime(n.to_owned())),
            },
            "sat" => match n.parse::<u64>() {
                Ok(b) if (1..=1 << 62).contains(&b) => Ok(RingKind::Sat(b)),
                _ => Err(RingError::Bound(n.to_owned())),
            },
            _ => Err(RingError::Unknown(s.to_owned())),
        }
    }
}

impl fmt::Display for RingKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RingKind::Z2k(k) => write!(f, "z2k:{k}"),
            RingKind::Zp(p) => write!(f, "zp:{p}"),
            RingKind::Sat(n) => write!(f, "sat:{n}"),
        }
    }
}

impl RingKind {
    /// Bits of an element in hardware: `K`; `ceil(log2 P)`; the two's complement width
    /// of `[-N, N]`.
    #[must_use]
    pub fn width(self) -> usize {
        match self {
            RingKind::Z2k(k) => k as usize,
            RingKind::Zp(p) => super::blast::zp_width(p),
            RingKind::Sat(n) => (u64::BITS - n.leading_zeros()) as usize + 1,
        }
    }

    /// The largest signed reading (`2^(K-1) - 1`, `floor(P / 2)`, `N`).
    #[must_use]
    pub fn max_signed(self) -> i64 {
        match self {
            RingKind::Z2k(k) => ((1u64 << (k - 1)) - 1) as i64,
            RingKind::Zp(p) => (p / 2) as i64,
            RingKind::Sat(n) => n as i64,
        }
    }

    /// The smallest signed reading.
    #[must_use]
    pub fn min_signed(self) -> i64 {
        match self {
            RingKind::Z2k(k) => (1u64 << (k - 1)).wrapping_neg() as i64,
            RingKind::Zp(p) => -(((p - 1) / 2) as i64),
            RingKind::Sat(n) => -(n as i64),
        }
    }

    /// Whether the signed value `v` is an element's reading.
    #[must_use]
    pub fn fits(self, v: i64) -> bool {
        match self {
            RingKind::Z2k(64) => true,
            _ => (self.min_signed()..=self.max_signed()).contains(&v),
        }
    }

    fn mask(k: u32) -> u64 {
        if k >= 64 { u64::MAX } else { (1u64 << k) - 1 }
    }

    /// The canonical representative of a representative.
    #[must_use]
    pub fn reduce(self, v: u64) -> u64 {
        match self {
            RingKind::Z2k(k) => v & Self::mask(k),
            RingKind::Zp(p) => v % p,
            RingKind::Sat(n) => (v as i64).clamp(-(n as i64), n as i64) as u64,
        }
    }

    /// The signed reading of an element.
    #[must_use]
    pub fn signed(self, a: u64) -> i64 {
        match self {
            RingKind::Z2k(k) => {
                let s = 64 - k;
                ((a << s) as i64) >> s
            }
            RingKind::Zp(p) => {
                let a = a % p;
                if a > p / 2 { a as i64 - p as i64 } else { a as i64 }
            }
            RingKind::Sat(_) => a as i64,
        }
    }

    /// The element whose signed reading is `v` (clamped in `sat:N`).
    #[must_use]
    pub fn from_signed(self, v: i64) -> u64 {
        match self {
            RingKind::Z2k(k) => (v as u64) & Self::mask(k),
            RingKind::Zp(p) => v.rem_euclid(p as i64) as u64,
            RingKind::Sat(n) => v.clamp(-(n as i64), n as i64) as u64,
        }
    }

    fn clamp_wide(self, v: i128) -> u64 {
        let RingKind::Sat(n) = self else { unreachable!("sat only") };
        v.clamp(-i128::from(n), i128::from(n)) as i64 as u64
    }

    /// `a + b`.
    #[must_use]
    pub fn add(self, a: u64, b: u64) -> u64 {
        match self {
            RingKind::Z2k(k) => a.wrapping_add(b) & Self::mask(k),
            RingKind::Zp(p) => (a + b) % p,
            RingKind::Sat(_) => self.clamp_wide(i128::from(a as i64) + i128::from(b as i64)),
        }
    }

    /// `a * b`.
    #[must_use]
    pub fn mul(self, a: u64, b: u64) -> u64 {
        match self {
            RingKind::Z2k(k) => a.wrapping_mul(b) & Self::mask(k),
            RingKind::Zp(p) => (a * b) % p,
            RingKind::Sat(_) => self.clamp_wide(i128::from(a as i64) * i128::from(b as i64)),
        }
    }

    /// `-a`.
    #[must_use]
    pub fn neg(self, a: u64) -> u64 {
        match self {
            RingKind::Z2k(k) => a.wrapping_neg() & Self::mask(k),
            RingKind::Zp(p) => (p - a % p) % p,
            RingKind::Sat(_) => (a as i64).wrapping_neg() as u64,
        }
    }

    /// One gate on canonical elements.
    #[must_use]
    pub fn apply(self, op: PolyOp, x: &[u64]) -> u64 {
        match op {
            PolyOp::Const(c) => self.reduce(c),
            PolyOp::Add => self.add(x[0], x[1]),
            PolyOp::Sub => self.add(x[0], self.neg(x[1])),
            PolyOp::Neg => self.neg(x[0]),
            PolyOp::Mul => self.mul(x[0], x[1]),
            PolyOp::Shr(k) => self.from_signed(self.signed(x[0]) >> k),
            PolyOp::Clip(lo, hi) => self.from_signed(self.signed(x[0]).clamp(lo, hi.max(lo))),
        }
    }

    /// Evaluates `c` (constants canonical, see [`canonical`](Self::canonical)) on one
    /// input vector of canonical elements, parameters first.
    ///
    /// # Panics
    /// If `inputs` does not have one value per circuit input.
    #[must_use]
    pub fn eval<R>(self, c: &Circuit<Poly<R>>, inputs: &[u64]) -> Vec<u64>
    where
        Poly<R>: crate::circuit::Signature,
    {
        let mut vals = Vec::with_capacity(inputs.len() + c.n_gates());
        self.eval_into(c, inputs, &mut vals);
        c.outputs().iter().map(|w| vals[w.index()]).collect()
    }

    /// [`eval`](Self::eval) into a reused buffer of wire values (every wire's value
    /// afterwards).
    pub fn eval_into<R>(self, c: &Circuit<Poly<R>>, inputs: &[u64], vals: &mut Vec<u64>)
    where
        Poly<R>: crate::circuit::Signature,
    {
        assert_eq!(inputs.len(), c.n_inputs(), "one value per circuit input");
        vals.clear();
        vals.extend_from_slice(inputs);
        let mut x = [0u64; 2];
        for (_, op, fanins) in c.gates() {
            for (slot, w) in x.iter_mut().zip(fanins) {
                *slot = vals[w.index()];
            }
            let v = self.apply(op.op, &x[..fanins.len()]);
            vals.push(v);
        }
    }

    /// `c` with every constant (a signed 64-bit value, as the model builders write them)
    /// replaced by the ring's element of that value.
    #[must_use]
    pub fn canonical<R>(self, c: &Circuit<Poly<R>>) -> Circuit<Poly<R>>
    where
        R: super::ring::Ring,
    {
        let mut b = CircuitBuilder::<Poly<R>>::new(c.n_params(), c.n_args());
        let mut wires: Vec<WireId> = b.params().into_iter().chain(b.args()).collect();
        for (_, op, fanins) in c.gates() {
            let ins: Vec<WireId> = fanins.iter().map(|w| wires[w.index()]).collect();
            let op = match op.op {
                PolyOp::Const(v) => PolyOp::Const(self.from_signed(v as i64)),
                other => other,
            };
            wires.push(b.gate(Poly::new(op), &ins));
        }
        let outs = c.outputs().iter().map(|w| wires[w.index()]).collect();
        b.finish(outs).expect("relabelling constants keeps a circuit valid")
    }
}

/// A random ring circuit for property tests: `n_in` arguments, then one gate per
/// `(op, i, j)` (operation `op % 7` of the wires `i` and `j`, modulo the wires so far),
/// the last three wires as outputs.
#[cfg(test)]
pub(crate) fn random_circuit(ops: &[(u8, u8, u8)], n_in: usize) -> Circuit<RingGate> {
    use super::ring::PolyBuild;
    let mut b = CircuitBuilder::<RingGate>::new(0, n_in);
    let mut w: Vec<WireId> = b.args();
    for &(o, i, j) in ops {
        let (a, c) = (w[i as usize % w.len()], w[j as usize % w.len()]);
        let op = match o % 7 {
            0 => PolyOp::Add,
            1 => PolyOp::Sub,
            2 => PolyOp::Neg,
            3 => PolyOp::Mul,
            4 => PolyOp::Shr(i % 5),
            5 => PolyOp::Clip(-(i64::from(i)), i64::from(j)),
            _ => PolyOp::Const(u64::from(i) << 7 | u64::from(j)),
        };
        let n = crate::circuit::Signature::arity(&RingGate::new(op));
        w.push(b.poly(op, &[a, c][..n]));
    }
    let out = w[w.len().saturating_sub(3)..].to_vec();
    b.finish(out).expect("a random circuit is valid")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::ring::{PolyBuild, Ring, Zp};
    use proptest::prelude::*;

    #[test]
    fn parses_and_refuses() {
        assert_eq!("z2k:16".parse::<RingKind>(), Ok(RingKind::Z2k(16)));
        assert_eq!("zp:65521".parse::<RingKind>(), Ok(RingKind::Zp(65521)));
        assert_eq!("sat:1000".parse::<RingKind>(), Ok(RingKind::Sat(1000)));
        assert!(matches!("z2k:0".parse::<RingKind>(), Err(RingError::Width(_))));
        assert!(matches!("z2k:65".parse::<RingKind>(), Err(RingError::Width(_))));
        assert!(matches!("zp:91".parse::<RingKind>(), Err(RingError::NotPrime(_))));
        assert!(matches!("zp:1".parse::<RingKind>(), Err(RingError::NotPrime(_))));
        assert!(matches!("sat:0".parse::<RingKind>(), Err(RingError::Bound(_))));
        assert!(matches!("q:3".parse::<RingKind>(), Err(RingError::Unknown(_))));
        assert_eq!(RingKind::Z2k(8).to_string(), "z2k:8");
        assert_eq!(
            (RingKind::Sat(127).width(), RingKind::Sat(128).width(), RingKind::Zp(13).width()),
            (8, 9, 4)
        );
        assert_eq!((RingKind::Z2k(8).min_signed(), RingKind::Z2k(8).max_signed()), (-128, 127));
    }

    #[test]
    fn sat_clamps_instead_of_wrapping() {
        let s = RingKind::Sat(100);
        let v = |x: i64| s.from_signed(x);
        assert_eq!(s.signed(s.add(v(70), v(50))), 100);
        assert_eq!(s.signed(s.mul(v(-20), v(6))), -100);
        assert_eq!(s.signed(s.add(v(-70), v(50))), -20);
        assert_eq!(s.signed(s.neg(v(-100))), 100);
    }

    fn relabel<R: Ring>(c: &Circuit<RingGate>) -> Circuit<Poly<R>> {
        let mut b = CircuitBuilder::<Poly<R>>::new(0, c.n_args());
        let mut w: Vec<WireId> = b.args();
        for (_, op, f) in c.gates() {
            let ins: Vec<WireId> = f.iter().map(|x| w[x.index()]).collect();
            w.push(b.poly(op.op, &ins));
        }
        b.finish(c.outputs().iter().map(|x| w[x.index()]).collect()).unwrap()
    }

    proptest! {
        /// The run-time ring computes what the compile-time ring computes.
        #[test]
        fn run_time_rings_equal_compile_time_rings(
            ops in proptest::collection::vec((0u8..7, 0u8..40, 0u8..40), 3..30),
            x in proptest::collection::vec(any::<u64>(), 3),
        ) {
            let c = random_circuit(&ops, 3);
            let k = RingKind::Z2k(12).canonical(&c);
            let xs: Vec<u64> = x.iter().map(|&v| Z2k::<12>::reduce(v)).collect();
            prop_assert_eq!(RingKind::Z2k(12).eval(&k, &xs), relabel::<Z2k<12>>(&k).eval_one(&xs));
            let p = RingKind::Zp(251).canonical(&c);
            let xs: Vec<u64> = x.iter().map(|&v| Zp::<251>::reduce(v)).collect();
            prop_assert_eq!(RingKind::Zp(251).eval(&p, &xs), relabel::<Zp<251>>(&p).eval_one(&xs));
        }
    }
}

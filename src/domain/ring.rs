//! Polynomial circuits over finite rings: `Z_(2^k)` (wrapping, `k <= 64`) and `Z_p`
//! (`p` prime, below 2^32), after Wilson & Zanasi, *Categories of Differentiable
//! Polynomial Circuits*.
//!
//! Generators: add, sub, negate, multiply, constants (copy and discard are wiring). Two
//! extra operations serve fixed-point arithmetic on signed values (two's complement in
//! `Z_(2^k)`, the centred representatives in `Z_p`): arithmetic shift right by a
//! constant and clipping to a range. They are not polynomial; like the polycirc
//! library they take the straight-through estimator as reverse rule (`dx = dy`), which
//! keeps `R[f](x, -)` linear and the chain rule exact for the rules as written.
//!
//! Reverse rules: add <-> copy (both inputs get `dy`), sub -> `(dy, -dy)`, negate <->
//! negate, mul `(x0, x1, dy) -> (x1 dy, x0 dy)`, constants -> discard.

use crate::cat::ReverseRules;
use crate::circuit::{CircuitBuilder, Semantics, Signature, WireId};
use crate::lanes::WordKernel;
use std::fmt::Debug;
use std::hash::Hash;
use std::marker::PhantomData;

/// A finite commutative ring whose elements are `u64` representatives.
pub trait Ring: Clone + Copy + Debug + Default + PartialEq + Eq + Hash + Send + Sync + 'static {
    /// Short name (`Z2^32`, `Z7`).
    fn name() -> String;
    /// The canonical representative of `v`.
    fn reduce(v: u64) -> u64;
    /// `a + b`.
    fn add(a: u64, b: u64) -> u64;
    /// `a * b`.
    fn mul(a: u64, b: u64) -> u64;
    /// `-a`.
    fn neg(a: u64) -> u64;
    /// The signed reading of `a` (for shifts and clipping).
    fn signed(a: u64) -> i64;
    /// The element whose signed reading is `v`.
    fn from_signed(v: i64) -> u64;
}

/// `Z_(2^K)`, wrapping arithmetic on `K`-bit words (`1 <= K <= 64`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Z2k<const K: u32>;

impl<const K: u32> Z2k<K> {
    const MASK: u64 = if K >= 64 { u64::MAX } else { (1u64 << K) - 1 };
}

impl<const K: u32> Ring for Z2k<K> {
    fn name() -> String {
        format!("Z2^{K}")
    }
    fn reduce(v: u64) -> u64 {
        v & Self::MASK
    }
    fn add(a: u64, b: u64) -> u64 {
        a.wrapping_add(b) & Self::MASK
    }
    fn mul(a: u64, b: u64) -> u64 {
        a.wrapping_mul(b) & Self::MASK
    }
    fn neg(a: u64) -> u64 {
        a.wrapping_neg() & Self::MASK
    }
    fn signed(a: u64) -> i64 {
        // Sign-extend bit K-1.
        let s = 64 - K;
        ((a << s) as i64) >> s
    }
    fn from_signed(v: i64) -> u64 {
        (v as u64) & Self::MASK
    }
}

/// `Z_P` for a prime `P < 2^32` (so products fit in `u64`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Zp<const P: u64>;

impl<const P: u64> Ring for Zp<P> {
    fn name() -> String {
        format!("Z{P}")
    }
    fn reduce(v: u64) -> u64 {
        v % P
    }
    fn add(a: u64, b: u64) -> u64 {
        (a + b) % P
    }
    fn mul(a: u64, b: u64) -> u64 {
        (a * b) % P
    }
    fn neg(a: u64) -> u64 {
        (P - a % P) % P
    }
    fn signed(a: u64) -> i64 {
        let a = a % P;
        if a > P / 2 { a as i64 - P as i64 } else { a as i64 }
    }
    fn from_signed(v: i64) -> u64 {
        v.rem_euclid(P as i64) as u64
    }
}

/// The operations of a polynomial circuit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PolyOp {
    /// A constant (no inputs).
    Const(u64),
    /// `a + b`.
    Add,
    /// `a - b`.
    Sub,
    /// `-a`.
    Neg,
    /// `a * b`.
    Mul,
    /// Arithmetic shift right of the signed reading by a constant (floor division by `2^k`).
    Shr(u8),
    /// The signed reading clipped to `[lo, hi]`.
    Clip(i64, i64),
}

/// A gate of a polynomial circuit over the ring `R`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Poly<R> {
    /// The operation.
    pub op: PolyOp,
    ring: PhantomData<R>,
}

impl<R: Ring> Poly<R> {
    /// The gate for `op`.
    #[must_use]
    pub fn new(op: PolyOp) -> Self {
        Self { op, ring: PhantomData }
    }
}

impl<R: Ring> Signature for Poly<R> {
    fn arity(&self) -> usize {
        match self.op {
            PolyOp::Const(_) => 0,
            PolyOp::Neg | PolyOp::Shr(_) | PolyOp::Clip(..) => 1,
            PolyOp::Add | PolyOp::Sub | PolyOp::Mul => 2,
        }
    }

    fn name(&self) -> String {
        match self.op {
            PolyOp::Const(c) => format!("const{c}"),
            PolyOp::Add => "add".into(),
            PolyOp::Sub => "sub".into(),
            PolyOp::Neg => "neg".into(),
            PolyOp::Mul => "mul".into(),
            PolyOp::Shr(k) => format!("shr{k}"),
            PolyOp::Clip(lo, hi) => format!("clip[{lo},{hi}]"),
        }
    }
}

impl<R: Ring> Semantics<u64> for Poly<R> {
    fn apply(&self, x: &[u64]) -> u64 {
        match self.op {
            PolyOp::Const(c) => R::reduce(c),
            PolyOp::Add => R::add(x[0], x[1]),
            PolyOp::Sub => R::add(x[0], R::neg(x[1])),
            PolyOp::Neg => R::neg(x[0]),
            PolyOp::Mul => R::mul(x[0], x[1]),
            PolyOp::Shr(k) => R::from_signed(R::signed(x[0]) >> k),
            PolyOp::Clip(lo, hi) => R::from_signed(R::signed(x[0]).clamp(lo, hi.max(lo))),
        }
    }
}

impl<R: Ring> WordKernel for Poly<R> {
    /// One example per word (see [`WordMatrix`](crate::lanes::WordMatrix)).
    #[inline(always)]
    fn eval_words<'a>(
        &self,
        row: &impl Fn(usize) -> &'a [u64],
        _tw: usize,
        out: &mut [u64],
        _s: &mut Vec<u64>,
    ) {
        match self.op {
            PolyOp::Const(c) => out.fill(R::reduce(c)),
            PolyOp::Add => map2(out, row(0), row(1), R::add),
            PolyOp::Sub => map2(out, row(0), row(1), |a, b| R::add(a, R::neg(b))),
            PolyOp::Mul => map2(out, row(0), row(1), R::mul),
            PolyOp::Neg => map1(out, row(0), R::neg),
            PolyOp::Shr(k) => map1(out, row(0), |a| R::from_signed(R::signed(a) >> k)),
            PolyOp::Clip(lo, hi) => map1(out, row(0), |a| R::from_signed(R::signed(a).clamp(lo, hi.max(lo)))),
        }
    }
}

/// `out[i] = f(a[i])`.
#[inline(always)]
pub(crate) fn map1(out: &mut [u64], a: &[u64], f: impl Fn(u64) -> u64) {
    for (o, &x) in out.iter_mut().zip(a) {
        *o = f(x);
    }
}

/// `out[i] = f(a[i], b[i])`.
#[inline(always)]
pub(crate) fn map2(out: &mut [u64], a: &[u64], b: &[u64], f: impl Fn(u64, u64) -> u64) {
    for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
        *o = f(x, y);
    }
}

/// Gate-building shorthands for polynomial circuits.
pub trait PolyBuild {
    /// Adds a gate of operation `op`.
    fn poly(&mut self, op: PolyOp, fanins: &[WireId]) -> WireId;
}

impl<R: Ring> PolyBuild for CircuitBuilder<Poly<R>> {
    fn poly(&mut self, op: PolyOp, fanins: &[WireId]) -> WireId {
        self.gate(Poly::new(op), fanins)
    }
}

impl<R: Ring> ReverseRules for Poly<R> {
    fn add(b: &mut CircuitBuilder<Self>, x: WireId, y: WireId) -> WireId {
        b.poly(PolyOp::Add, &[x, y])
    }

    fn zero(b: &mut CircuitBuilder<Self>) -> WireId {
        b.poly(PolyOp::Const(0), &[])
    }

    fn reverse(
        &self,
        b: &mut CircuitBuilder<Self>,
        x: &[WireId],
        _y: WireId,
        dy: WireId,
    ) -> Vec<Option<WireId>> {
        match self.op {
            PolyOp::Const(_) => vec![],
            PolyOp::Add => vec![Some(dy), Some(dy)],
            PolyOp::Sub => vec![Some(dy), Some(b.poly(PolyOp::Neg, &[dy]))],
            PolyOp::Neg => vec![Some(b.poly(PolyOp::Neg, &[dy]))],
            PolyOp::Mul => {
                vec![Some(b.poly(PolyOp::Mul, &[x[1], dy])), Some(b.poly(PolyOp::Mul, &[x[0], dy]))]
            }
            PolyOp::Shr(_) | PolyOp::Clip(..) => vec![Some(dy)],
        }
    }
}

/// Folds a parameter vector into a polynomial circuit: the parameters become constants
/// and the result has no parameter block.
///
/// # Errors
/// [`ArityMismatch`](crate::ArityMismatch) unless there is one value per parameter.
pub fn bind_ring_params<R: Ring>(
    c: &crate::circuit::Circuit<Poly<R>>,
    params: &[u64],
) -> Result<crate::circuit::Circuit<Poly<R>>, crate::error::ArityMismatch> {
    if params.len() != c.n_params() {
        return Err(crate::error::ArityMismatch { left: params.len(), right: c.n_params() });
    }
    let mut b = CircuitBuilder::<Poly<R>>::new(0, c.n_args());
    let mut ins: Vec<WireId> = params.iter().map(|&v| b.poly(PolyOp::Const(R::reduce(v)), &[])).collect();
    ins.extend(b.args());
    let out = b.instantiate(c, &ins)?;
    Ok(b.finish(out).expect("binding keeps a circuit valid"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ring_arithmetic() {
        type Z = Z2k<8>;
        assert_eq!(Z::add(200, 100), 44);
        assert_eq!(Z::mul(16, 17), 16);
        assert_eq!(Z::signed(255), -1);
        assert_eq!(Z::from_signed(-2), 254);
        type F = Zp<7>;
        assert_eq!(F::add(5, 4), 2);
        assert_eq!(F::neg(3), 4);
        assert_eq!(F::signed(6), -1);
        assert_eq!(F::from_signed(-1), 6);
        let shr = Poly::<Z2k<16>>::new(PolyOp::Shr(2));
        assert_eq!(Z2k::<16>::signed(shr.apply(&[Z2k::<16>::from_signed(-5)])), -2);
        let clip = Poly::<Z2k<16>>::new(PolyOp::Clip(-3, 3));
        assert_eq!(Z2k::<16>::signed(clip.apply(&[Z2k::<16>::from_signed(-9)])), -3);
    }
}

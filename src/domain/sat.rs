//! Polynomial circuits over the saturating semiring `Sat_N = {0, ..., N}`, where sums and
//! products are capped at `N` (Wilson & Zanasi's proposal against gradient wrap-around:
//! a large change stays large instead of wrapping to a small or negative one).
//!
//! It is a commutative semiring (capping commutes with distributivity), not a ring: there
//! is no negation, so the generators are add, multiply and constants. Reverse rules as for
//! rings: add <-> copy (sum), mul `(x0, x1, dy) -> (x1 dy, x0 dy)`, constants -> discard.

use super::ring::map2;
use crate::cat::ReverseRules;
use crate::circuit::{CircuitBuilder, Semantics, Signature, WireId};
use crate::lanes::WordKernel;

/// The operations of a `Sat_N` circuit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SatOp {
    /// A constant (capped at `N`).
    Const(u64),
    /// `min(a + b, N)`.
    Add,
    /// `min(a * b, N)`.
    Mul,
}

/// A gate over `Sat_N`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Sat<const N: u64>(pub SatOp);

impl<const N: u64> Sat<N> {
    /// `min(a + b, N)` on values.
    #[must_use]
    pub fn add(a: u64, b: u64) -> u64 {
        a.saturating_add(b).min(N)
    }

    /// `min(a * b, N)` on values.
    #[must_use]
    pub fn mul(a: u64, b: u64) -> u64 {
        a.saturating_mul(b).min(N)
    }
}

impl<const N: u64> Signature for Sat<N> {
    fn arity(&self) -> usize {
        match self.0 {
            SatOp::Const(_) => 0,
            SatOp::Add | SatOp::Mul => 2,
        }
    }

    fn name(&self) -> String {
        match self.0 {
            SatOp::Const(c) => format!("const{}", c.min(N)),
            SatOp::Add => "sadd".into(),
            SatOp::Mul => "smul".into(),
        }
    }
}

impl<const N: u64> Semantics<u64> for Sat<N> {
    fn apply(&self, x: &[u64]) -> u64 {
        match self.0 {
            SatOp::Const(c) => c.min(N),
            SatOp::Add => Self::add(x[0], x[1]),
            SatOp::Mul => Self::mul(x[0], x[1]),
        }
    }
}

impl<const N: u64> ReverseRules for Sat<N> {
    fn add(b: &mut CircuitBuilder<Self>, x: WireId, y: WireId) -> WireId {
        b.gate(Sat(SatOp::Add), &[x, y])
    }

    fn zero(b: &mut CircuitBuilder<Self>) -> WireId {
        b.gate(Sat(SatOp::Const(0)), &[])
    }

    fn reverse(
        &self,
        b: &mut CircuitBuilder<Self>,
        x: &[WireId],
        _y: WireId,
        dy: WireId,
    ) -> Vec<Option<WireId>> {
        match self.0 {
            SatOp::Const(_) => vec![],
            SatOp::Add => vec![Some(dy), Some(dy)],
            SatOp::Mul => {
                vec![Some(b.gate(Sat(SatOp::Mul), &[x[1], dy])), Some(b.gate(Sat(SatOp::Mul), &[x[0], dy]))]
            }
        }
    }
}

impl<const N: u64> WordKernel for Sat<N> {
    /// One example per word (see [`WordMatrix`](crate::lanes::WordMatrix)).
    #[inline(always)]
    fn eval_words<'a>(
        &self,
        row: &impl Fn(usize) -> &'a [u64],
        _tw: usize,
        out: &mut [u64],
        _s: &mut Vec<u64>,
    ) {
        match self.0 {
            SatOp::Const(c) => out.fill(c.min(N)),
            SatOp::Add => map2(out, row(0), row(1), Self::add),
            SatOp::Mul => map2(out, row(0), row(1), Self::mul),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saturates_instead_of_wrapping() {
        assert_eq!(Sat::<100>::add(70, 50), 100);
        assert_eq!(Sat::<100>::mul(20, 6), 100);
        assert_eq!(Sat::<100>(SatOp::Const(500)).apply(&[]), 100);
    }

    /// Distributivity holds exhaustively in `Sat_12`, so `Sat_N` is a semiring.
    #[test]
    fn is_a_semiring() {
        type S = Sat<12>;
        for a in 0..=12 {
            for b in 0..=12 {
                for c in 0..=12 {
                    assert_eq!(S::mul(a, S::add(b, c)), S::add(S::mul(a, b), S::mul(a, c)));
                    assert_eq!(S::add(a, S::add(b, c)), S::add(S::add(a, b), c));
                    assert_eq!(S::mul(a, S::mul(b, c)), S::mul(S::mul(a, b), c));
                }
            }
        }
    }
}

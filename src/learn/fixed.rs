//! Fixed-point learning in a ring: a linear model, a clipped displacement loss and a
//! gradient-descent update, all polynomial circuits (plus shifts and clips), which the
//! lens core composes into one step circuit as for Boolean RDA (`train::RingRule` runs
//! it).
//!
//! Numbers are fixed point with `nbits` fractional bits (`ONE = 2^nbits`) in the signed
//! reading of the ring.

use crate::circuit::{Circuit, CircuitBuilder, WireId};
use crate::domain::ring::{Poly, PolyBuild, PolyOp, Ring};

/// `y = W x` for a `n_out x n_in` parameter matrix `W` (row-major), no bias.
#[must_use]
pub fn linear<R: Ring>(n_out: usize, n_in: usize) -> Circuit<Poly<R>> {
    let mut b = CircuitBuilder::<Poly<R>>::new(n_out * n_in, n_in);
    let x = b.args();
    let outs = (0..n_out)
        .map(|i| {
            let terms: Vec<WireId> = (0..n_in)
                .map(|j| {
                    let w = b.param(i * n_in + j);
                    b.poly(PolyOp::Mul, &[w, x[j]])
                })
                .collect();
            terms
                .into_iter()
                .reduce(|a, t| b.poly(PolyOp::Add, &[a, t]))
                .unwrap_or_else(|| b.poly(PolyOp::Const(0), &[]))
        })
        .collect();
    b.finish(outs).expect("linear layer is valid")
}

/// The displacement `d(ŷ, y) = clip01(ŷ >> nbits) - y`, where `clip01(v) = (clip(v, -ONE,
/// ONE) + ONE) >> 1` maps `[-1, 1]` onto `[0, 1]`: the prediction (a product of two
/// fixed-point numbers, hence the shift) is clipped before it is compared with the label.
#[must_use]
pub fn clipped_displacement<R: Ring>(n: usize, nbits: u8) -> Circuit<Poly<R>> {
    let one = 1i64 << nbits;
    let mut b = CircuitBuilder::<Poly<R>>::new(0, 2 * n);
    let a = b.args();
    let c_one = b.poly(PolyOp::Const(R::from_signed(one)), &[]);
    let outs = (0..n)
        .map(|i| {
            let s = b.poly(PolyOp::Shr(nbits), &[a[i]]);
            let c = b.poly(PolyOp::Clip(-one, one), &[s]);
            let up = b.poly(PolyOp::Add, &[c, c_one]);
            let half = b.poly(PolyOp::Shr(1), &[up]);
            b.poly(PolyOp::Sub, &[half, a[n + i]])
        })
        .collect();
    b.finish(outs).expect("displacement is valid")
}

/// Fixed-point gradient descent: `p - (((dp >> nbits) * lr) >> nbits)` with `lr` a
/// fixed-point learning rate (`ONE >> 7` is `2^-7`).
#[must_use]
pub fn fixed_gd<R: Ring>(n_params: usize, nbits: u8, lr: i64) -> Circuit<Poly<R>> {
    let mut b = CircuitBuilder::<Poly<R>>::new(0, 2 * n_params);
    let a = b.args();
    let rate = b.poly(PolyOp::Const(R::from_signed(lr)), &[]);
    let outs = (0..n_params)
        .map(|i| {
            let s = b.poly(PolyOp::Shr(nbits), &[a[n_params + i]]);
            let m = b.poly(PolyOp::Mul, &[s, rate]);
            let d = b.poly(PolyOp::Shr(nbits), &[m]);
            b.poly(PolyOp::Sub, &[a[i], d])
        })
        .collect();
    b.finish(outs).expect("update is valid")
}

/// [`fixed_gd`] with a further right shift of parameter `i`'s change by `extra[i]` bits:
/// `p - ((((dp >> nbits) * lr) >> nbits) >> extra)`. A layer behind a shift sees its
/// changes scaled up by `2^shift` (the shift's straight-through reverse rule passes `dy`
/// unscaled), which its `extra` undoes.
///
/// # Panics
/// Unless `extra` has one shift per parameter.
#[must_use]
pub fn fixed_gd_scaled<R: Ring>(nbits: u8, lr: i64, extra: &[u8]) -> Circuit<Poly<R>> {
    let n_params = extra.len();
    let mut b = CircuitBuilder::<Poly<R>>::new(0, 2 * n_params);
    let a = b.args();
    let rate = b.poly(PolyOp::Const(R::from_signed(lr)), &[]);
    let outs = (0..n_params)
        .map(|i| {
            let s = b.poly(PolyOp::Shr(nbits), &[a[n_params + i]]);
            let m = b.poly(PolyOp::Mul, &[s, rate]);
            let mut d = b.poly(PolyOp::Shr(nbits), &[m]);
            if extra[i] > 0 {
                d = b.poly(PolyOp::Shr(extra[i]), &[d]);
            }
            b.poly(PolyOp::Sub, &[a[i], d])
        })
        .collect();
    b.finish(outs).expect("update is valid")
}

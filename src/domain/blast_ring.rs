//! Bit-blasting in a run-time ring ([`RingKind`]): every operation of a ring model, in
//! `z2k:K`, `zp:P` and `sat:N`, as a Boolean circuit whose wire `i * W + b` is bit `b`
//! (least significant first) of ring wire `i`, `W` = [`RingKind::width`] — the layout of
//! [`bit_blast`](super::blast::bit_blast), so the word-level Verilog of
//! [`ring_verilog`](crate::io::verilog_ring::ring_verilog) and a testbench built from
//! this circuit fit each other.
//!
//! - `z2k:K`: as [`bit_blast`](super::blast::bit_blast) (ripple-carry, truncated
//!   shift-and-add, wiring for shifts).
//! - `zp:P`: as [`bit_blast_zp`](super::blast::bit_blast_zp) (one conditional
//!   subtraction after sums, restoring division after products); shifts and clips read
//!   the residue as signed (`a > (P-1)/2` means `a - P`) in `W + 1` bits and map back.
//! - `sat:N`: two's complement in `W` bits; sums in `W + 1` and products in `2W` bits are
//!   exact, then clamped to `[-N, N]`.

use super::blast::{BlastStyle, add, mul, neg_zp, reduce_once, signed_less};
use super::boolean::{Bool, BoolBuild};
use super::ring::{Poly, PolyOp};
use super::ring_kind::RingKind;
use crate::circuit::{Circuit, CircuitBuilder, Signature, WireId};

/// Constant wires of the low `n` bits of `v`.
fn konst(v: u64, n: usize, zero: WireId, one: WireId) -> Vec<WireId> {
    // Beyond bit 63, the sign of `v` read as two's complement (unsigned values below
    // 2^63 extend with zeros).
    (0..n).map(|i| if v >> i.min(63) & 1 == 1 { one } else { zero }).collect()
}

/// `x` sign-extended to `n` bits.
fn sext(x: &[WireId], n: usize) -> Vec<WireId> {
    let top = x[x.len() - 1];
    (0..n).map(|i| if i < x.len() { x[i] } else { top }).collect()
}

/// The two's complement word `x` clamped to `[lo, hi]` (`lo <= hi`, both in the word's
/// range).
fn clamp_word(
    b: &mut CircuitBuilder<Bool>,
    s: BlastStyle,
    x: &[WireId],
    lo: i64,
    hi: i64,
    zero: WireId,
    one: WireId,
) -> Vec<WireId> {
    let n = x.len();
    let (min, max) = if n >= 64 { (i64::MIN, i64::MAX) } else { (-(1i64 << (n - 1)), (1i64 << (n - 1)) - 1) };
    let mut v = x.to_vec();
    if lo > min {
        let l = konst(lo as u64, n, zero, one);
        let below = signed_less(b, s, &v, &l, one);
        v = v.iter().zip(&l).map(|(&a, &c)| b.mux(below, a, c)).collect();
    }
    if hi < max {
        let h = konst(hi as u64, n, zero, one);
        let above = signed_less(b, s, &h, &v, one);
        v = v.iter().zip(&h).map(|(&a, &c)| b.mux(above, a, c)).collect();
    }
    v
}

/// The ring's clip `[lo, hi]` of a signed word whose readings span `[min, max]`: a
/// constant when the bounds miss the range, else a clamp to the bounds within it.
/// `wrap` maps an out-of-range bound to the element the ring makes of it.
fn ring_clip(
    b: &mut CircuitBuilder<Bool>,
    s: BlastStyle,
    x: &[WireId],
    (lo, hi): (i64, i64),
    (min, max): (i64, i64),
    wrap: impl Fn(i64) -> u64,
    (zero, one): (WireId, WireId),
) -> Vec<WireId> {
    let hi = hi.max(lo);
    if lo > max {
        return konst(wrap(lo), x.len(), zero, one);
    }
    if hi < min {
        return konst(wrap(hi), x.len(), zero, one);
    }
    clamp_word(b, s, x, lo.max(min), hi.min(max), zero, one)
}

/// The bit-level circuit of `c` (constants canonical, see [`RingKind::canonical`]) in
/// `ring`, for hardware ([`BlastStyle::Hardware`]): the circuit `train` counts and
/// `export` writes.
#[must_use]
pub fn bit_blast_ring<R>(c: &Circuit<Poly<R>>, ring: RingKind) -> Circuit<Bool>
where
    Poly<R>: Signature,
{
    bit_blast_ring_styled(c, ring, BlastStyle::Hardware)
}

/// [`bit_blast_ring`] with every full adder in `style`: the same function, for hardware
/// or for bit-sliced evaluation ([`BlastStyle::Lanes`], what
/// [`ring_lanes::BitSliced`](super::ring_lanes::BitSliced) evaluates).
#[must_use]
pub fn bit_blast_ring_styled<R>(c: &Circuit<Poly<R>>, ring: RingKind, style: BlastStyle) -> Circuit<Bool>
where
    Poly<R>: Signature,
{
    let s = style;
    let w = ring.width();
    let mut b = CircuitBuilder::<Bool>::new(c.n_params() * w, c.n_args() * w);
    let all: Vec<WireId> = b.params().into_iter().chain(b.args()).collect();
    let (zero, one) = (b.constant(false), b.constant(true));
    let mut words: Vec<Vec<WireId>> = all.chunks(w).map(<[WireId]>::to_vec).collect();
    let range = (ring.min_signed(), ring.max_signed());
    for (_, op, fanins) in c.gates() {
        let x: Vec<Vec<WireId>> = fanins.iter().map(|f| words[f.index()].clone()).collect();
        let out = match ring {
            RingKind::Z2k(_) => z2k_gate(&mut b, s, op.op, &x, ring, (zero, one)),
            RingKind::Zp(p) => zp_gate(&mut b, s, op.op, &x, p, ring, (zero, one)),
            RingKind::Sat(n) => sat_gate(&mut b, s, op.op, &x, n, range, (zero, one)),
        };
        words.push(out);
    }
    let outs = c.outputs().iter().flat_map(|o| words[o.index()].clone()).collect();
    b.finish(outs).expect("bit-blasted circuit is valid").pruned()
}

fn z2k_gate(
    b: &mut CircuitBuilder<Bool>,
    s: BlastStyle,
    op: PolyOp,
    x: &[Vec<WireId>],
    ring: RingKind,
    (zero, one): (WireId, WireId),
) -> Vec<WireId> {
    let k = ring.width();
    match op {
        PolyOp::Const(v) => konst(ring.reduce(v), k, zero, one),
        PolyOp::Add => add(b, s, &x[0], &x[1], zero),
        PolyOp::Sub => {
            let nb: Vec<WireId> = x[1].iter().map(|&w| b.not(w)).collect();
            add(b, s, &x[0], &nb, one)
        }
        PolyOp::Neg => {
            let na: Vec<WireId> = x[0].iter().map(|&w| b.not(w)).collect();
            add(b, s, &na, &vec![zero; k], one)
        }
        PolyOp::Mul => mul(b, s, &x[0], &x[1], zero),
        PolyOp::Shr(n) => (0..k).map(|i| x[0][(i + n as usize).min(k - 1)]).collect(),
        PolyOp::Clip(lo, hi) => ring_clip(
            b,
            s,
            &x[0],
            (lo, hi),
            (ring.min_signed(), ring.max_signed()),
            |v| ring.from_signed(v),
            (zero, one),
        ),
    }
}

fn zp_gate(
    b: &mut CircuitBuilder<Bool>,
    s: BlastStyle,
    op: PolyOp,
    x: &[Vec<WireId>],
    p: u64,
    ring: RingKind,
    (zero, one): (WireId, WireId),
) -> Vec<WireId> {
    let w = ring.width();
    let p_wide = konst(p, w + 1, zero, one);
    let wide = |v: &[WireId]| -> Vec<WireId> { v.iter().copied().chain([zero]).collect() };
    match op {
        PolyOp::Const(v) => konst(v % p, w, zero, one),
        PolyOp::Add => {
            let sum = add(b, s, &wide(&x[0]), &wide(&x[1]), zero);
            reduce_once(b, s, &sum, &p_wide, one, w)
        }
        PolyOp::Neg => neg_zp(b, s, &x[0], &p_wide, one, w),
        PolyOp::Sub => {
            let nb = neg_zp(b, s, &x[1], &p_wide, one, w);
            let sum = add(b, s, &wide(&x[0]), &wide(&nb), zero);
            reduce_once(b, s, &sum, &p_wide, one, w)
        }
        PolyOp::Mul => {
            let mut wide_a = x[0].clone();
            wide_a.resize(2 * w, zero);
            let prod = mul(b, s, &wide_a, &x[1], zero);
            let mut r = vec![zero; w];
            for &bit in prod.iter().rev() {
                let mut shifted = vec![bit];
                shifted.extend_from_slice(&r);
                r = reduce_once(b, s, &shifted, &p_wide, one, w);
            }
            r
        }
        PolyOp::Shr(_) | PolyOp::Clip(..) => {
            // The signed reading in w + 1 bits: a - P when a > floor(P / 2).
            let a = wide(&x[0]);
            let half = konst(p / 2, w + 1, zero, one);
            let negative = signed_less(b, s, &half, &a, one);
            let np: Vec<WireId> = p_wide.iter().map(|&v| b.not(v)).collect();
            let minus_p = add(b, s, &a, &np, one);
            let signed: Vec<WireId> = a.iter().zip(&minus_p).map(|(&u, &v)| b.mux(negative, u, v)).collect();
            let r = match op {
                PolyOp::Shr(k) => (0..=w).map(|i| signed[(i + k as usize).min(w)]).collect(),
                PolyOp::Clip(lo, hi) => ring_clip(
                    b,
                    s,
                    &signed,
                    (lo, hi),
                    (ring.min_signed(), ring.max_signed()),
                    |v| {
                        // The bound's element, as a w + 1-bit signed word.
                        ring.signed(ring.from_signed(v)) as u64
                    },
                    (zero, one),
                ),
                _ => unreachable!("shift or clip"),
            };
            // Back to a residue: add P to a negative reading.
            let plus_p = add(b, s, &r, &p_wide, zero);
            (0..w).map(|i| b.mux(r[w], r[i], plus_p[i])).collect()
        }
    }
}

fn sat_gate(
    b: &mut CircuitBuilder<Bool>,
    s: BlastStyle,
    op: PolyOp,
    x: &[Vec<WireId>],
    n: u64,
    range: (i64, i64),
    (zero, one): (WireId, WireId),
) -> Vec<WireId> {
    let n = n as i64;
    let w = (u64::BITS - (n as u64).leading_zeros()) as usize + 1;
    let clamped = |b: &mut CircuitBuilder<Bool>, v: &[WireId]| -> Vec<WireId> {
        clamp_word(b, s, v, -n, n, zero, one)[..w].to_vec()
    };
    let negate = |b: &mut CircuitBuilder<Bool>, v: &[WireId]| -> Vec<WireId> {
        let nv: Vec<WireId> = v.iter().map(|&u| b.not(u)).collect();
        add(b, s, &nv, &vec![zero; v.len()], one)
    };
    match op {
        PolyOp::Const(v) => konst((v as i64).clamp(-n, n) as u64, w, zero, one),
        PolyOp::Add => {
            let sum = add(b, s, &sext(&x[0], w + 1), &sext(&x[1], w + 1), zero);
            clamped(b, &sum)
        }
        PolyOp::Sub => {
            let nb = negate(b, &x[1]);
            let sum = add(b, s, &sext(&x[0], w + 1), &sext(&nb, w + 1), zero);
            clamped(b, &sum)
        }
        PolyOp::Neg => negate(b, &x[0]),
        PolyOp::Mul => {
            let m = mul(b, s, &sext(&x[0], 2 * w), &sext(&x[1], 2 * w), zero);
            clamped(b, &m)
        }
        PolyOp::Shr(k) => (0..w).map(|i| x[0][(i + k as usize).min(w - 1)]).collect(),
        PolyOp::Clip(lo, hi) => {
            ring_clip(b, s, &x[0], (lo, hi), range, |v| v.clamp(-n, n) as u64, (zero, one))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::ring::PolyBuild;
    use crate::domain::ring_kind::RingGate;

    fn bits(words: &[u64], w: usize) -> Vec<bool> {
        words.iter().flat_map(|&v| (0..w).map(move |i| v >> i & 1 == 1)).collect()
    }

    /// Every operation in small rings of each kind, in both styles, exhaustively over two
    /// elements.
    #[test]
    fn each_operation_matches_the_ring_exhaustively() {
        let ops = [
            PolyOp::Add,
            PolyOp::Sub,
            PolyOp::Neg,
            PolyOp::Mul,
            PolyOp::Const(11),
            PolyOp::Const((-3i64) as u64),
            PolyOp::Shr(1),
            PolyOp::Shr(3),
            PolyOp::Clip(-3, 5),
            PolyOp::Clip(-20, 2),
            PolyOp::Clip(9, 12),
            PolyOp::Clip(-40, -30),
        ];
        for ring in [RingKind::Z2k(4), RingKind::Zp(13), RingKind::Zp(2), RingKind::Sat(6), RingKind::Sat(7)]
        {
            let w = ring.width();
            let elements: Vec<u64> =
                (ring.min_signed()..=ring.max_signed()).map(|v| ring.from_signed(v)).collect();
            for op in ops {
                let mut b = CircuitBuilder::<RingGate>::new(0, 2);
                let a = b.args();
                let n = RingGate::new(op).arity();
                let y = b.poly(op, &a[..n]);
                let c = ring.canonical(&b.finish(vec![y]).unwrap());
                for style in [BlastStyle::Hardware, BlastStyle::Lanes] {
                    let blasted = bit_blast_ring_styled(&c, ring, style);
                    for &u in &elements {
                        for &v in &elements {
                            let want = ring.eval(&c, &[u, v]);
                            let mask = |x: u64| if w >= 64 { x } else { x & ((1 << w) - 1) };
                            let (u, v) = (mask(u), mask(v));
                            let got = blasted.eval_one(&bits(&[u, v], w));
                            assert_eq!(
                                got,
                                bits(&[mask(want[0])], w),
                                "{op:?} on {u} {v} in {ring}, {style:?}"
                            );
                        }
                    }
                }
            }
        }
    }
}

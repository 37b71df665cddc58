//! Bit-blasting: a polynomial circuit over `Z_(2^K)` as a Boolean circuit, each ring wire
//! becoming `K` Boolean wires (least significant bit first), so BLIF/AIGER export, Icarus
//! co-simulation and SAT equivalence apply to ring models too.
//!
//! Add and sub are ripple-carry, multiply is shift-and-add truncated to `K` bits, negate
//! is complement-and-increment, the shift is wiring with sign extension, clip compares
//! in two's complement. `Z_p` circuits blast too ([`bit_blast_zp`]): residues in
//! `ceil(log2 p)` bits with a reduction circuit after every operation.
//!
//! Every adder bit is one full adder, built in one of two styles ([`BlastStyle`]): for
//! hardware (the carry as the OR of two ANDs, which an AIG shares with the sum's XORs)
//! or for bit-sliced evaluation (the carry as a multiplexer, fewer Boolean gates).

use super::arith::{full_adder, half_adder};
use super::boolean::{Bool, BoolBuild};
use super::ring::{Poly, PolyOp, Ring, Z2k, Zp};
use crate::circuit::Signature;
use crate::circuit::{Circuit, CircuitBuilder, WireId};

/// How the blaster builds each full adder (sums, differences, products, comparisons):
/// the same function either way, a different circuit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BlastStyle {
    /// For hardware: the carry as `x y | z (x ^ y)`. In an AIG, `x y` and `z (x ^ y)`
    /// are the first ANDs of the two XORs of the sum, so a full adder is 7 ANDs; the
    /// exported and counted circuits use this style.
    #[default]
    Hardware,
    /// For bit-sliced evaluation: the carry as the multiplexer `if x ^ y { z } else { x }`,
    /// 3 Boolean gates a bit (two XORs and a MUX, each one lane operation) instead of 5;
    /// in an AIG the multiplexer shares only one AND with the sum, so it is 8 ANDs a bit.
    Lanes,
}

impl BlastStyle {
    /// `(x ^ y ^ z, carry)` in this style.
    fn full_adder(self, b: &mut CircuitBuilder<Bool>, x: WireId, y: WireId, z: WireId) -> (WireId, WireId) {
        match self {
            BlastStyle::Hardware => full_adder(b, x, y, z),
            BlastStyle::Lanes => {
                let t = b.xor(x, y);
                (b.xor(t, z), b.mux(t, x, z))
            }
        }
    }
}

/// The bit-level circuit of `c`: inputs `i * K + b` is bit `b` of input `i` (the
/// parameter block scales the same way), output `j * K + b` bit `b` of output `j`.
///
/// # Panics
/// If `K` is 0 or above 64.
#[must_use]
pub fn bit_blast<const K: u32>(c: &Circuit<Poly<Z2k<K>>>) -> Circuit<Bool> {
    let s = BlastStyle::Hardware;
    assert!((1..=64).contains(&K), "1 <= K <= 64");
    let k = K as usize;
    let mut b = CircuitBuilder::<Bool>::new(c.n_params() * k, c.n_args() * k);
    let all: Vec<WireId> = b.params().into_iter().chain(b.args()).collect();
    let (zero, one) = (b.constant(false), b.constant(true));
    let mut words: Vec<Vec<WireId>> = all.chunks(k).map(<[WireId]>::to_vec).collect();
    for (_, op, fanins) in c.gates() {
        let x: Vec<&Vec<WireId>> = fanins.iter().map(|w| &words[w.index()]).collect();
        let out = match op.op {
            PolyOp::Const(v) => {
                let v = Z2k::<K>::reduce(v);
                (0..k).map(|i| if v >> i & 1 == 1 { one } else { zero }).collect()
            }
            PolyOp::Add => add(&mut b, s, x[0], x[1], zero),
            PolyOp::Sub => {
                let nb: Vec<WireId> = x[1].iter().map(|&w| b.not(w)).collect();
                add(&mut b, s, x[0], &nb, one)
            }
            PolyOp::Neg => {
                let na: Vec<WireId> = x[0].iter().map(|&w| b.not(w)).collect();
                let zeros = vec![zero; k];
                add(&mut b, s, &na, &zeros, one)
            }
            PolyOp::Mul => mul(&mut b, s, x[0], x[1], zero),
            PolyOp::Shr(n) => (0..k).map(|i| x[0][(i + n as usize).min(k - 1)]).collect(),
            PolyOp::Clip(lo, hi) => clip::<K>(&mut b, s, x[0], lo, hi.max(lo), zero, one),
        };
        words.push(out);
    }
    let outs = c.outputs().iter().flat_map(|w| words[w.index()].clone()).collect();
    b.finish(outs).expect("bit-blasted circuit is valid").pruned()
}

/// Why a circuit cannot be bit-blasted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BlastError {
    /// Fixed-point operations read values as signed, which `Z_p` circuits do not blast.
    #[error("{op} is supported in Z_2^k circuits only")]
    Unsupported {
        /// The operation.
        op: String,
    },
}

/// Bits needed for the residues `0..P`.
#[must_use]
pub const fn zp_width(p: u64) -> usize {
    (u64::BITS - (p - 1).leading_zeros()) as usize
}

/// The bit-level circuit of a `Z_P` circuit (`P` prime): each ring wire becomes
/// [`zp_width`]`(P)` wires holding the residue, least significant bit first. Sums,
/// differences and negations are reduced by one conditional subtraction of `P`; products
/// by restoring division (one compare-and-subtract stage per product bit).
///
/// # Errors
/// [`BlastError::Unsupported`] for the shift and clip operations.
pub fn bit_blast_zp<const P: u64>(c: &Circuit<Poly<Zp<P>>>) -> Result<Circuit<Bool>, BlastError> {
    let s = BlastStyle::Hardware;
    let w = zp_width(P);
    let mut b = CircuitBuilder::<Bool>::new(c.n_params() * w, c.n_args() * w);
    let all: Vec<WireId> = b.params().into_iter().chain(b.args()).collect();
    let (zero, one) = (b.constant(false), b.constant(true));
    let konst = |v: u64, n: usize| -> Vec<WireId> {
        (0..n).map(|i| if v >> i & 1 == 1 { one } else { zero }).collect()
    };
    let mut words: Vec<Vec<WireId>> = all.chunks(w).map(<[WireId]>::to_vec).collect();
    for (_, op, fanins) in c.gates() {
        let x: Vec<Vec<WireId>> = fanins.iter().map(|f| words[f.index()].clone()).collect();
        let out = match op.op {
            PolyOp::Const(v) => konst(v % P, w),
            PolyOp::Add => {
                let sum = add_wide(&mut b, s, &x[0], &x[1], zero);
                reduce_once(&mut b, s, &sum, &konst(P, w + 1), one, w)
            }
            PolyOp::Neg => neg_zp(&mut b, s, &x[0], &konst(P, w + 1), one, w),
            PolyOp::Sub => {
                let nb = neg_zp(&mut b, s, &x[1], &konst(P, w + 1), one, w);
                let sum = add_wide(&mut b, s, &x[0], &nb, zero);
                reduce_once(&mut b, s, &sum, &konst(P, w + 1), one, w)
            }
            PolyOp::Mul => {
                let mut wide_a = x[0].clone();
                wide_a.resize(2 * w, zero);
                let prod = mul(&mut b, s, &wide_a, &x[1], zero);
                // Restoring division, most significant product bit first; r < P throughout.
                let p_wide = konst(P, w + 1);
                let mut r = vec![zero; w];
                for &bit in prod.iter().rev() {
                    let mut shifted = vec![bit];
                    shifted.extend_from_slice(&r);
                    r = reduce_once(&mut b, s, &shifted, &p_wide, one, w);
                }
                r
            }
            PolyOp::Shr(_) | PolyOp::Clip(..) => return Err(BlastError::Unsupported { op: op.name() }),
        };
        words.push(out);
    }
    let outs = c.outputs().iter().flat_map(|o| words[o.index()].clone()).collect();
    Ok(b.finish(outs).expect("bit-blasted circuit is valid").pruned())
}

/// `x + y` with one extra carry bit.
pub(crate) fn add_wide(
    b: &mut CircuitBuilder<Bool>,
    s: BlastStyle,
    x: &[WireId],
    y: &[WireId],
    zero: WireId,
) -> Vec<WireId> {
    let (mut xs, mut ys) = (x.to_vec(), y.to_vec());
    xs.push(zero);
    ys.push(zero);
    add(b, s, &xs, &ys, zero)
}

/// `v - p` if `v >= p` else `v`, for a `w + 1`-bit `v < 2p`; the low `w` bits.
pub(crate) fn reduce_once(
    b: &mut CircuitBuilder<Bool>,
    s: BlastStyle,
    v: &[WireId],
    p: &[WireId],
    one: WireId,
    w: usize,
) -> Vec<WireId> {
    let np: Vec<WireId> = p.iter().map(|&x| b.not(x)).collect();
    // v + !p + 1 = v - p; the carry out is 1 exactly when v >= p (no borrow).
    let mut carry = one;
    let mut diff = Vec::with_capacity(v.len());
    for (&x, &y) in v.iter().zip(&np) {
        let (d, c) = s.full_adder(b, x, y, carry);
        diff.push(d);
        carry = c;
    }
    (0..w).map(|i| b.mux(carry, v[i], diff[i])).collect()
}

/// `(P - a) mod P` for a residue `a`.
pub(crate) fn neg_zp(
    b: &mut CircuitBuilder<Bool>,
    s: BlastStyle,
    a: &[WireId],
    p: &[WireId],
    one: WireId,
    w: usize,
) -> Vec<WireId> {
    let mut na: Vec<WireId> = a.iter().map(|&x| b.not(x)).collect();
    na.push(one);
    // p + !a + 1 = p - a (w + 1 bits, in [1, P]).
    let d = add(b, s, p, &na, one);
    reduce_once(b, s, &d, p, one, w)
}

/// `a + b + cin` truncated to the width of `a`.
pub(crate) fn add(
    b: &mut CircuitBuilder<Bool>,
    s: BlastStyle,
    x: &[WireId],
    y: &[WireId],
    cin: WireId,
) -> Vec<WireId> {
    let mut carry = cin;
    x.iter()
        .zip(y)
        .map(|(&p, &q)| {
            let (sum, c) = s.full_adder(b, p, q, carry);
            carry = c;
            sum
        })
        .collect()
}

/// `x * y` truncated to the width `k` of `x`: the sum of the rows `(x << i) & y_i` for
/// `i < k`, each added only from bit `i` up (its lower bits are known zeros, and the
/// accumulator's are final), the first row being the accumulator itself: `k(k+1)/2`
/// ANDs and `k(k-1)/2` adder bits (a half adder at the bottom of each row), where adding
/// every row in full costs `k^2` of each. A strashed AIG folds the known zeros of the
/// full rows to the same circuit; the Boolean circuit evaluated on lanes is the smaller.
pub(crate) fn mul(
    b: &mut CircuitBuilder<Bool>,
    s: BlastStyle,
    x: &[WireId],
    y: &[WireId],
    zero: WireId,
) -> Vec<WireId> {
    let k = x.len();
    let mut acc = vec![zero; k];
    for (i, &yi) in y.iter().enumerate().take(k) {
        let row: Vec<WireId> = (0..k - i).map(|j| b.and(x[j], yi)).collect();
        if i == 0 {
            acc = row;
        } else {
            let (s0, c0) = half_adder(b, acc[i], row[0]);
            let mut high = vec![s0];
            high.extend(add(b, s, &acc[i + 1..], &row[1..], c0));
            acc.splice(i.., high);
        }
    }
    acc
}

/// `x < y` for two's complement words of equal width.
pub(crate) fn signed_less(
    b: &mut CircuitBuilder<Bool>,
    s: BlastStyle,
    x: &[WireId],
    y: &[WireId],
    one: WireId,
) -> WireId {
    let ny: Vec<WireId> = y.iter().map(|&w| b.not(w)).collect();
    let d = add(b, s, x, &ny, one);
    let k = x.len();
    let (sx, sy, sd) = (x[k - 1], y[k - 1], d[k - 1]);
    // Overflow when the operands' signs differ and the difference's sign differs from x's.
    let signs_differ = b.xor(sx, sy);
    let flipped = b.xor(sd, sx);
    let overflow = b.and(signs_differ, flipped);
    b.xor(sd, overflow)
}

fn constant_word<const K: u32>(v: i64, zero: WireId, one: WireId) -> Vec<WireId> {
    let u = Z2k::<K>::from_signed(v);
    (0..K as usize).map(|i| if u >> i & 1 == 1 { one } else { zero }).collect()
}

/// The signed reading clipped to `[lo, hi]` (with `lo <= hi`).
fn clip<const K: u32>(
    b: &mut CircuitBuilder<Bool>,
    s: BlastStyle,
    x: &[WireId],
    lo: i64,
    hi: i64,
    zero: WireId,
    one: WireId,
) -> Vec<WireId> {
    let (min, max) = (Z2k::<K>::signed(1 << (K - 1)), Z2k::<K>::signed((1u64 << (K - 1)) - 1));
    if lo > max {
        return constant_word::<K>(lo, zero, one);
    }
    let mut v = x.to_vec();
    if lo > min {
        let l = constant_word::<K>(lo, zero, one);
        let below = signed_less(b, s, &v, &l, one);
        v = v.iter().zip(&l).map(|(&a, &c)| b.mux(below, a, c)).collect();
    }
    if hi < max {
        let h = constant_word::<K>(hi, zero, one);
        let above = signed_less(b, s, &h, &v, one);
        v = v.iter().zip(&h).map(|(&a, &c)| b.mux(above, a, c)).collect();
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::ring::PolyBuild;

    fn words_to_bits(words: &[u64], k: usize) -> Vec<bool> {
        words.iter().flat_map(|&w| (0..k).map(move |i| w >> i & 1 == 1)).collect()
    }

    /// Every operation, exhaustively over two 4-bit inputs.
    #[test]
    fn each_operation_matches_the_word_semantics_exhaustively() {
        type R = Z2k<4>;
        let ops = [
            PolyOp::Add,
            PolyOp::Sub,
            PolyOp::Neg,
            PolyOp::Mul,
            PolyOp::Const(11),
            PolyOp::Shr(1),
            PolyOp::Shr(3),
            PolyOp::Clip(-3, 5),
            PolyOp::Clip(-20, 2),
            PolyOp::Clip(9, 12),
        ];
        for op in ops {
            let mut b = CircuitBuilder::<Poly<R>>::new(0, 2);
            let a = b.args();
            let n = crate::circuit::Signature::arity(&Poly::<R>::new(op));
            let y = b.poly(op, &a[..n]);
            let c = b.finish(vec![y]).unwrap();
            let blasted = bit_blast(&c);
            for v in 0..256u64 {
                let words = [v & 15, v >> 4];
                let want = c.eval_one(&words);
                assert_eq!(
                    blasted.eval_one(&words_to_bits(&words, 4)),
                    words_to_bits(&want, 4),
                    "{op:?} on {words:?}"
                );
            }
        }
    }

    /// Every `Z_P` operation, exhaustively over two residues, for a few primes.
    #[test]
    fn zp_operations_match_the_word_semantics_exhaustively() {
        fn check<const P: u64>() {
            let w = zp_width(P);
            for op in [PolyOp::Add, PolyOp::Sub, PolyOp::Neg, PolyOp::Mul, PolyOp::Const(P + 3)] {
                let mut b = CircuitBuilder::<Poly<Zp<P>>>::new(0, 2);
                let a = b.args();
                let n = Poly::<Zp<P>>::new(op).arity();
                let y = b.poly(op, &a[..n]);
                let c = b.finish(vec![y]).unwrap();
                let blasted = bit_blast_zp(&c).unwrap();
                for u in 0..P {
                    for v in 0..P {
                        let want = c.eval_one(&[u, v]);
                        assert_eq!(
                            blasted.eval_one(&words_to_bits(&[u, v], w)),
                            words_to_bits(&want, w),
                            "{op:?} {u} {v} mod {P}"
                        );
                    }
                }
            }
        }
        check::<2>();
        check::<3>();
        check::<13>();
        check::<31>();
        let mut b = CircuitBuilder::<Poly<Zp<7>>>::new(0, 1);
        let a = b.arg(0);
        let y = b.poly(PolyOp::Shr(1), &[a]);
        assert!(bit_blast_zp(&b.finish(vec![y]).unwrap()).is_err());
    }

    #[test]
    fn a_fixed_point_step_circuit_blasts_exactly() {
        use crate::cat::learner::{displacement, feedback, learner, step};
        use crate::learn::fixed::{clipped_displacement, fixed_gd, linear};
        type R = Z2k<16>;
        let model = linear::<R>(2, 2);
        let zero = |b: &mut CircuitBuilder<Poly<R>>| b.poly(PolyOp::Const(0), &[]);
        let loss = displacement(clipped_displacement::<R>(2, 4), zero).unwrap();
        let lens = learner(&model, &loss, &feedback(2)).unwrap();
        let s = step(&lens, 4, &fixed_gd::<R>(4, 4, 2)).unwrap();
        let blasted = bit_blast(&s);
        let mut x = 0x1234_5678_9abc_def0u64;
        for _ in 0..200 {
            let words: Vec<u64> = (0..s.n_inputs())
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    R::reduce(x)
                })
                .collect();
            assert_eq!(blasted.eval_one(&words_to_bits(&words, 16)), words_to_bits(&s.eval_one(&words), 16));
        }
    }
}

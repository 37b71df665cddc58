//! The Boolean reverse derivative category: polynomials over Z2.
//!
//! Generators are XOR, AND and constants (copy and discard are wiring); NOT, OR, MUX and
//! k-input LUTs are derived gates with reverse rules of their own. Every rule is the exact
//! formal derivative, which for a single multilinear gate equals the bit-flip derivative
//! `dR/dx_i = dy & (f(x) ^ f(x ^ e_i))`.
//!
//! A `Lut(k)` gate reads `2^k` table bits then `k` address bits and outputs
//! `table[sum_i x_i 2^i]`; its table bits are usually parameters.

use crate::cat::ReverseRules;
use crate::circuit::{CircuitBuilder, Semantics, Signature, WireId};
use crate::lanes::{WordKernel, WordReverse};
use serde::{Deserialize, Serialize};

/// Largest LUT input count supported.
pub const MAX_LUT_INPUTS: u8 = 12;

/// A Boolean gate type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Bool {
    /// The constant 0 or 1 (no inputs).
    Const(bool),
    /// `a ^ b`.
    Xor,
    /// `a & b`.
    And,
    /// `!a` (= `a ^ 1`).
    Not,
    /// `a | b` (= `a ^ b ^ ab`).
    Or,
    /// `[s, a, b] -> if s { b } else { a }` (= `a ^ s(a ^ b)`).
    Mux,
    /// A k-input lookup table: `2^k` table bits, then `k` address bits (LSB first).
    Lut(u8),
}

impl Signature for Bool {
    fn arity(&self) -> usize {
        match *self {
            Bool::Const(_) => 0,
            Bool::Not => 1,
            Bool::Xor | Bool::And | Bool::Or => 2,
            Bool::Mux => 3,
            Bool::Lut(k) => (1usize << k) + k as usize,
        }
    }

    fn name(&self) -> String {
        match *self {
            Bool::Const(v) => format!("const{}", u8::from(v)),
            Bool::Xor => "xor".into(),
            Bool::And => "and".into(),
            Bool::Not => "not".into(),
            Bool::Or => "or".into(),
            Bool::Mux => "mux".into(),
            Bool::Lut(k) => format!("lut{k}"),
        }
    }
}

impl Semantics<bool> for Bool {
    fn apply(&self, x: &[bool]) -> bool {
        match *self {
            Bool::Const(v) => v,
            Bool::Xor => x[0] ^ x[1],
            Bool::And => x[0] & x[1],
            Bool::Not => !x[0],
            Bool::Or => x[0] | x[1],
            Bool::Mux => {
                if x[0] {
                    x[2]
                } else {
                    x[1]
                }
            }
            Bool::Lut(k) => {
                let n = 1usize << k;
                let addr = x[n..].iter().enumerate().fold(0, |a, (i, &b)| a | (usize::from(b) << i));
                x[addr]
            }
        }
    }
}

impl WordKernel for Bool {
    #[inline(always)]
    fn eval_words<'a>(
        &self,
        row: &impl Fn(usize) -> &'a [u64],
        tw: usize,
        out: &mut [u64],
        scratch: &mut Vec<u64>,
    ) {
        match *self {
            Bool::Const(v) => out.fill(if v { u64::MAX } else { 0 }),
            Bool::Xor => zip2(out, row(0), row(1), |a, b| a ^ b),
            Bool::And => zip2(out, row(0), row(1), |a, b| a & b),
            Bool::Or => zip2(out, row(0), row(1), |a, b| a | b),
            Bool::Not => {
                for (o, a) in out.iter_mut().zip(row(0)) {
                    *o = !a;
                }
            }
            Bool::Mux => {
                // Zipped rather than indexed, so the loop has no bounds checks and
                // vectorises as the two-input gates do.
                let (s, a, b) = (&row(0)[..tw], &row(1)[..tw], &row(2)[..tw]);
                for (((o, &s), &a), &b) in out[..tw].iter_mut().zip(s).zip(a).zip(b) {
                    *o = a ^ (s & (a ^ b));
                }
            }
            Bool::Lut(k) => lut_words(k, row, tw, out, scratch),
        }
    }
}

#[inline(always)]
fn zip2(out: &mut [u64], a: &[u64], b: &[u64], f: impl Fn(u64, u64) -> u64) {
    for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
        *o = f(x, y);
    }
}

/// A LUT over lane words as a mux tree: address bit 0 selects between entries `2j` and
/// `2j+1`, bit 1 between the pairs, and so on. Fan-in `i < 2^k` is table entry `i`,
/// fan-in `2^k + j` is address bit `j`.
#[inline(always)]
fn lut_words<'a>(
    k: u8,
    row: &impl Fn(usize) -> &'a [u64],
    tw: usize,
    out: &mut [u64],
    scratch: &mut Vec<u64>,
) {
    let n = 1usize << k;
    if k == 0 {
        out.copy_from_slice(row(0));
        return;
    }
    let half = n / 2;
    // Level 0 writes every scratch row, so no clearing.
    scratch.resize(half * tw, 0);
    let x0 = row(n);
    for j in 0..half {
        let (a, b) = (row(2 * j), row(2 * j + 1));
        let dst = &mut scratch[j * tw..(j + 1) * tw];
        for i in 0..tw {
            dst[i] = a[i] ^ (x0[i] & (a[i] ^ b[i]));
        }
    }
    fold_mux_tree(usize::from(k), &|bit| row(n + bit), tw, scratch);
    out.copy_from_slice(&scratch[..tw]);
}

/// Levels `1..k` of a LUT's mux tree, in place: `scratch` holds `2^(k-1)` rows of `tw`
/// words, level 0's muxes on address bit 0; level `bit` folds the subtrees at rows
/// `j 2^bit` and `j 2^bit + 2^(bit-1)` into the first, so the LUT's value ends in row 0.
#[inline(always)]
pub(crate) fn fold_mux_tree<'a>(
    k: usize,
    address: &impl Fn(usize) -> &'a [u64],
    tw: usize,
    scratch: &mut [u64],
) {
    let half = 1usize << k.saturating_sub(1);
    for bit in 1..k {
        let x = address(bit);
        let step = 1 << bit;
        for j in (0..half).step_by(step) {
            let (lo, hi) = scratch.split_at_mut((j + step / 2) * tw);
            let a = &mut lo[j * tw..(j + 1) * tw];
            for ((a, b), x) in a.iter_mut().zip(&hi[..tw]).zip(x) {
                *a ^= x & (*a ^ b);
            }
        }
    }
}

impl WordReverse for Bool {
    #[inline(always)]
    fn reverse_words<'a>(
        &self,
        row: &impl Fn(usize) -> &'a [u64],
        adj: &mut impl FnMut(usize) -> Option<&'a mut [u64]>,
        y: &[u64],
        dy: &[u64],
        tw: usize,
        scratch: &mut Vec<u64>,
    ) {
        match *self {
            Bool::Const(_) => {}
            Bool::Xor => {
                acc2(adj(0), dy, dy, |d, _| d);
                acc2(adj(1), dy, dy, |d, _| d);
            }
            Bool::Not => acc2(adj(0), dy, dy, |d, _| d),
            Bool::And => {
                let (a, b) = (row(0), row(1));
                acc2(adj(0), dy, b, |d, x| d & x);
                acc2(adj(1), dy, a, |d, x| d & x);
            }
            Bool::Or => {
                let (a, b) = (row(0), row(1));
                acc2(adj(0), dy, b, |d, x| d & !x);
                acc2(adj(1), dy, a, |d, x| d & !x);
            }
            Bool::Mux => {
                let (s, a, c) = (row(0), row(1), row(2));
                if let Some(t) = adj(0) {
                    for w in 0..tw {
                        t[w] ^= dy[w] & (a[w] ^ c[w]);
                    }
                }
                acc2(adj(1), dy, s, |d, x| d & !x);
                acc2(adj(2), dy, s, |d, x| d & x);
            }
            Bool::Lut(k) => lut_reverse_words(k, row, adj, y, dy, tw, scratch),
        }
    }
}

/// `acc[w] ^= f(dy[w], x[w])` for every word (nothing if the adjoint is not wanted).
#[inline(always)]
fn acc2(acc: Option<&mut [u64]>, dy: &[u64], x: &[u64], f: impl Fn(u64, u64) -> u64) {
    if let Some(acc) = acc {
        for ((a, &d), &v) in acc.iter_mut().zip(dy).zip(x) {
            *a ^= f(d, v);
        }
    }
}

/// `R[lut]` on lane words: table entry `s` gets `dy & [x = s]` (a decoder rooted at
/// `dy`), address bit `i` gets `dy & (y ^ lut(table permuted by s -> s ^ e_i, x))`.
#[inline(always)]
fn lut_reverse_words<'a>(
    k: u8,
    row: &impl Fn(usize) -> &'a [u64],
    adj: &mut impl FnMut(usize) -> Option<&'a mut [u64]>,
    y: &[u64],
    dy: &[u64],
    tw: usize,
    scratch: &mut Vec<u64>,
) {
    let n = 1usize << k;
    if (0..n).any(|s| adj(s).is_some()) {
        lut_table_adjoints(k, row, adj, dy, tw, scratch);
    }
    let mut flipped = vec![0u64; tw];
    for i in 0..k as usize {
        let Some(_) = adj(n + i) else { continue };
        let flip_row = |j: usize| if j < n { row(j ^ (1 << i)) } else { row(j) };
        lut_words(k, &flip_row, tw, &mut flipped, scratch);
        if let Some(a) = adj(n + i) {
            for w in 0..tw {
                a[w] ^= dy[w] & (y[w] ^ flipped[w]);
            }
        }
    }
}

/// Table-entry adjoints of a LUT: entry `s` gets `dy & [x = s]` (entries whose adjoint
/// nobody wants are skipped).
#[inline(always)]
fn lut_table_adjoints<'a>(
    k: u8,
    row: &impl Fn(usize) -> &'a [u64],
    adj: &mut impl FnMut(usize) -> Option<&'a mut [u64]>,
    dy: &[u64],
    tw: usize,
    dec: &mut Vec<u64>,
) {
    let n = 1usize << k;
    decode_words(usize::from(k), &|i| row(n + i), Some(dy), tw, dec);
    for s in 0..n {
        if let Some(a) = adj(s) {
            for (x, d) in a.iter_mut().zip(&dec[s * tw..(s + 1) * tw]) {
                *x ^= d;
            }
        }
    }
}

/// The address decoder of a `k`-input LUT on lane words: row `s` of `dec` (of `2^k`,
/// `tw` words each) is `root & [x = s]`, where `x` is the address `address(0..k)` (LSB
/// first) and `root` is all ones when `None`.
#[inline(always)]
pub(crate) fn decode_words<'a>(
    k: usize,
    address: &impl Fn(usize) -> &'a [u64],
    root: Option<&[u64]>,
    tw: usize,
    dec: &mut Vec<u64>,
) {
    // Every row is written before it is read: no clearing.
    dec.resize((1 << k) * tw, 0);
    match root {
        Some(r) => dec[..tw].copy_from_slice(r),
        None => dec[..tw].fill(u64::MAX),
    }
    // After splitting on address bits k-1..i, entry j holds root & [x_{k-1..i} = j]:
    // entry j splits into 2j and 2j+1, from the top down so that no source is
    // overwritten before it is read.
    let mut len = 1;
    for bit in (0..k).rev() {
        let x = address(bit);
        for j in (1..len).rev() {
            let (lower, upper) = dec.split_at_mut(2 * j * tw);
            let (lo, hi) = upper[..2 * tw].split_at_mut(tw);
            for (((m, x), lo), hi) in lower[j * tw..(j + 1) * tw].iter().zip(x).zip(lo).zip(hi) {
                *lo = m & !x;
                *hi = m & x;
            }
        }
        let (lo, hi) = dec[..2 * tw].split_at_mut(tw);
        for ((lo, hi), x) in lo.iter_mut().zip(hi).zip(x) {
            *hi = *lo & x;
            *lo &= !x;
        }
        len *= 2;
    }
}

/// Gate-building shorthands for Boolean circuits.
pub trait BoolBuild {
    /// Adds a constant gate.
    fn constant(&mut self, v: bool) -> WireId;
    /// Adds `a ^ b`.
    fn xor(&mut self, a: WireId, b: WireId) -> WireId;
    /// Adds `a & b`.
    fn and(&mut self, a: WireId, b: WireId) -> WireId;
    /// Adds `a | b`.
    fn or(&mut self, a: WireId, b: WireId) -> WireId;
    /// Adds `!a`.
    fn not(&mut self, a: WireId) -> WireId;
    /// Adds `if s { b } else { a }`.
    fn mux(&mut self, s: WireId, a: WireId, b: WireId) -> WireId;
    /// Adds a LUT with the given table wires (length `2^k`) and address wires (length `k`).
    fn lut(&mut self, table: &[WireId], addr: &[WireId]) -> WireId;
}

impl BoolBuild for CircuitBuilder<Bool> {
    fn constant(&mut self, v: bool) -> WireId {
        self.gate(Bool::Const(v), &[])
    }
    fn xor(&mut self, a: WireId, b: WireId) -> WireId {
        self.gate(Bool::Xor, &[a, b])
    }
    fn and(&mut self, a: WireId, b: WireId) -> WireId {
        self.gate(Bool::And, &[a, b])
    }
    fn or(&mut self, a: WireId, b: WireId) -> WireId {
        self.gate(Bool::Or, &[a, b])
    }
    fn not(&mut self, a: WireId) -> WireId {
        self.gate(Bool::Not, &[a])
    }
    fn mux(&mut self, s: WireId, a: WireId, b: WireId) -> WireId {
        self.gate(Bool::Mux, &[s, a, b])
    }
    fn lut(&mut self, table: &[WireId], addr: &[WireId]) -> WireId {
        debug_assert_eq!(table.len(), 1 << addr.len());
        let k = u8::try_from(addr.len()).expect("LUT input count fits in u8");
        let fanins: Vec<WireId> = table.iter().chain(addr).copied().collect();
        self.gate(Bool::Lut(k), &fanins)
    }
}

impl ReverseRules for Bool {
    fn add(b: &mut CircuitBuilder<Self>, x: WireId, y: WireId) -> WireId {
        b.xor(x, y)
    }

    fn zero(b: &mut CircuitBuilder<Self>) -> WireId {
        b.constant(false)
    }

    fn reverse(
        &self,
        b: &mut CircuitBuilder<Self>,
        x: &[WireId],
        y: WireId,
        dy: WireId,
    ) -> Vec<Option<WireId>> {
        match *self {
            Bool::Const(_) => vec![],
            Bool::Xor => vec![Some(dy), Some(dy)],
            Bool::Not => vec![Some(dy)],
            Bool::And => vec![Some(b.and(dy, x[1])), Some(b.and(dy, x[0]))],
            Bool::Or => {
                // d/da (a ^ b ^ ab) = 1 ^ b, so da = dy ^ (dy & b).
                let db_ = b.and(dy, x[1]);
                let da_ = b.and(dy, x[0]);
                vec![Some(b.xor(dy, db_)), Some(b.xor(dy, da_))]
            }
            Bool::Mux => {
                // y = a ^ s(a ^ c): ds = dy(a ^ c), da = dy(1 ^ s), dc = dy s.
                let diff = b.xor(x[1], x[2]);
                let ds = b.and(dy, diff);
                let dc = b.and(dy, x[0]);
                let da = b.xor(dy, dc);
                vec![Some(ds), Some(da), Some(dc)]
            }
            Bool::Lut(k) => lut_reverse(b, k, x, y, dy),
        }
    }
}

/// `R[lut]`: table entry `s` gets `dy & [x = s]` (a decoder tree rooted at `dy`);
/// address bit `i` gets `dy & (y ^ lut(table permuted by s -> s ^ e_i, x))`.
fn lut_reverse(
    b: &mut CircuitBuilder<Bool>,
    k: u8,
    x: &[WireId],
    y: WireId,
    dy: WireId,
) -> Vec<Option<WireId>> {
    let n = 1usize << k;
    let (table, addr) = x.split_at(n);
    // Decoder: after splitting on bits k-1..i, entry j holds dy & [x_{k-1..i} = j].
    let mut level = vec![dy];
    for &xi in addr.iter().rev() {
        let mut next = Vec::with_capacity(level.len() * 2);
        for &m in &level {
            let hi = b.and(m, xi);
            let lo = b.xor(m, hi);
            next.push(lo);
            next.push(hi);
        }
        level = next;
    }
    let mut adj: Vec<Option<WireId>> = level.into_iter().map(Some).collect();
    for i in 0..k as usize {
        let flipped: Vec<WireId> = (0..n).map(|s| table[s ^ (1 << i)]).collect();
        let y_flip = b.lut(&flipped, addr);
        let sens = b.xor(y, y_flip);
        adj.push(Some(b.and(dy, sens)));
    }
    adj
}

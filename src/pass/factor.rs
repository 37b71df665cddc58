//! Small functions to small AIGs: the lowering of a truth table (a BLIF cover, a
//! collapsed cone in `refactor`) to AND nodes.
//!
//! [`synthesize`] tries several structures and keeps the one with the fewest AND nodes:
//! the algebraically factored irredundant SOP of the function and of its complement
//! (so OFF-set covers cost what ON-set covers do), an XOR split when a variable enters
//! the function linearly, and, for at most four variables, the minimum structure of
//! the function's NPN class (the table of [`mod@super::rewrite`]).

use super::rewrite::instantiate4;
use crate::aig::{Aig, Lit};
use crate::io::cover::{Cube, TruthTable, isop};

/// Largest function [`synthesize`] accepts (the ISOP works on up to 16 variables).
pub const MAX_FACTOR_VARS: usize = 16;

/// The smallest of the candidate structures for `f`, as an AIG with `f.n_vars()` inputs
/// and one output.
#[must_use]
pub fn synthesize(f: &TruthTable) -> Aig {
    let n = f.n_vars();
    let mut best = sop_aig(f);
    let mut consider = |cand: Aig| {
        if cand.n_ands() < best.n_ands() {
            best = cand;
        }
    };
    if n <= 4 {
        let mut t = 0u16;
        for x in 0..16usize {
            t |= u16::from(f.get(x & ((1 << n) - 1))) << x;
        }
        let mut g = Aig::new(n);
        let mut leaves: Vec<Lit> = (0..n).map(|i| g.input(i)).collect();
        leaves.resize(4, Lit::FALSE);
        let o = instantiate4(&mut g, t, &leaves);
        g.add_output(o);
        consider(g.swept());
    }
    if n >= 2
        && let Some((v, g)) = linear_var(f)
    {
        // f = x_v ^ g(other variables).
        let sub = synthesize(&g);
        let mut h = Aig::new(n);
        let ins: Vec<Lit> = (0..n).filter(|&i| i != v).map(|i| h.input(i)).collect();
        let o = sub.append_into(&mut h, &ins)[0];
        let x = h.input(v);
        let y = h.xor(x, o);
        h.add_output(y);
        consider(h.swept());
    }
    best
}

/// The factored ISOP of `f` or of its complement, whichever is smaller.
#[must_use]
pub fn sop_aig(f: &TruthTable) -> Aig {
    let n = f.n_vars();
    let on = isop(f);
    // No AIG of a function of k variables has fewer than k - 1 AND nodes.
    let support = on.iter().fold(0u32, |a, c| a | c.care).count_ones() as usize;
    let floor = support.saturating_sub(1);
    let off = isop(&f.not());
    // The candidates in order; a later one replaces the best only when strictly smaller,
    // so each is built with the best so far as its limit and abandoned when it reaches it.
    let mut best: Option<Aig> = None;
    let mut sink = Sink { g: Aig::new(n), limit: usize::MAX, cubes: Vec::new(), lits: Vec::new() };
    for (good, cover, neg) in
        [(false, &on, false), (false, &off, true), (true, &on, false), (true, &off, true)]
    {
        if best.as_ref().is_some_and(|b| b.n_ands() <= floor) {
            break;
        }
        sink.g = Aig::new(n);
        sink.limit = best.as_ref().map_or(usize::MAX, Aig::n_ands);
        // `factor` works on the cube stack, `good_factor` on its own vectors.
        sink.cubes.clear();
        if !good {
            sink.cubes.extend_from_slice(cover);
        }
        let k = cover.len();
        let o = if good { good_factor(&mut sink, cover) } else { factor(&mut sink, 0, k) };
        if sink.over() {
            continue;
        }
        let mut g = std::mem::replace(&mut sink.g, Aig::new(0));
        g.add_output(if neg { !o } else { o });
        best = Some(g);
    }
    best.unwrap_or_else(|| Aig::new(n))
}

/// A factoring in progress: the AIG it writes, the node count at which it is abandoned
/// (a candidate that reaches the best one's size cannot replace it; node counts only
/// grow, so a candidate under the limit at the end was never cut short), and scratch
/// stacks of cubes and literals.
struct Sink {
    g: Aig,
    limit: usize,
    cubes: Vec<Cube>,
    lits: Vec<Lit>,
}

impl Sink {
    fn over(&self) -> bool {
        self.g.n_ands() >= self.limit
    }

    /// The AND of a cube's literals (balanced, variables in increasing order).
    fn cube_and(&mut self, c: Cube) -> Lit {
        let mut lits = [Lit::FALSE; 32];
        let mut k = 0;
        let mut care = c.care;
        while care != 0 {
            let v = care.trailing_zeros() as usize;
            care &= care - 1;
            let x = self.g.input(v);
            lits[k] = if c.value >> v & 1 == 1 { x } else { !x };
            k += 1;
        }
        and_tree(&mut self.g, &mut lits[..k])
    }

    /// The OR of the cubes `f` (each cube's AND built in order, then a balanced tree).
    fn sum(&mut self, f: &[Cube]) -> Lit {
        let base = self.lits.len();
        for &c in f {
            let l = self.cube_and(c);
            self.lits.push(!l);
        }
        let r = !and_tree(&mut self.g, &mut self.lits[base..]);
        self.lits.truncate(base);
        r
    }

    /// [`Sink::sum`] of the cubes `lo..hi` of the cube stack.
    fn sum_range(&mut self, lo: usize, hi: usize) -> Lit {
        let base = self.lits.len();
        for i in lo..hi {
            let c = self.cubes[i];
            let l = self.cube_and(c);
            self.lits.push(!l);
        }
        let r = !and_tree(&mut self.g, &mut self.lits[base..]);
        self.lits.truncate(base);
        r
    }
}

/// Whether cube `d`'s literals are all in `c`.
fn divides(d: Cube, c: Cube) -> bool {
    d.care & !c.care == 0 && (c.value ^ d.value) & d.care == 0
}

/// `c` without `d`'s literals.
fn quotient(c: Cube, d: Cube) -> Cube {
    Cube { care: c.care & !d.care, value: c.value & !d.care }
}

/// The largest cube dividing every cube of `f` (the empty cube if none).
fn common_cube(f: &[Cube]) -> Cube {
    let Some(&first) = f.first() else { return Cube::default() };
    f[1..].iter().fold(first, |acc, c| {
        let agree = acc.care & c.care & !(acc.value ^ c.value);
        Cube { care: agree, value: acc.value & agree }
    })
}

/// The literal (code) occurring in the most cubes, with its count.
fn most_frequent(f: &[Cube]) -> (usize, u32) {
    let mut count = [0u32; 64];
    let mut all = 0u32;
    for c in f {
        all |= c.care;
        let mut care = c.care;
        while care != 0 {
            let v = care.trailing_zeros() as usize;
            care &= care - 1;
            count[lit_code(v, c.value >> v & 1 == 1)] += 1;
        }
    }
    // Codes of variables above the highest one present count zero.
    let codes = 2 * (32 - all.leading_zeros() as usize);
    let mut best = (0, count[0]);
    for (i, &c) in count.iter().enumerate().take(codes).skip(1) {
        if c > best.1 {
            best = (i, c);
        }
    }
    best
}

fn literal_cube(code: usize) -> Cube {
    let v = code / 2;
    Cube { care: 1 << v, value: u32::from(code.is_multiple_of(2)) << v }
}

/// The product of two cubes with no variable in common.
fn product(a: Cube, b: Cube) -> Cube {
    Cube { care: a.care | b.care, value: a.value | b.value }
}

/// Algebraic (weak) division: `f = q * d + r`.
fn divide(f: &[Cube], d: &[Cube]) -> (Vec<Cube>, Vec<Cube>) {
    let Some((&d0, rest)) = d.split_first() else { return (Vec::new(), f.to_vec()) };
    // The quotients by `d0`, kept when they are quotients by every other cube of `d`
    // too: `a` is `c / dc` for some `c` of `f` exactly when `a` and `dc` share no
    // variable and `a * dc` is in `f`.
    let mut q: Vec<Cube> = f.iter().filter(|&&c| divides(d0, c)).map(|&c| quotient(c, d0)).collect();
    for &dc in rest {
        if q.is_empty() {
            break;
        }
        q.retain(|&a| a.care & dc.care == 0 && f.contains(&product(a, dc)));
    }
    if q.is_empty() {
        return (Vec::new(), f.to_vec());
    }
    let prods: Vec<Cube> = q.iter().flat_map(|&a| d.iter().map(move |&b| product(a, b))).collect();
    let r = f.iter().copied().filter(|c| !prods.contains(c)).collect();
    (q, r)
}

/// `f` divided by its common cube.
fn cube_free(f: &[Cube]) -> Vec<Cube> {
    let c = common_cube(f);
    f.iter().map(|&x| quotient(x, c)).collect()
}

/// A level-0 kernel of `f` (SIS's quick divisor), if some literal occurs twice.
fn quick_divisor(f: &[Cube]) -> Option<Vec<Cube>> {
    let (mut l, mut k) = most_frequent(f);
    if k < 2 {
        return None;
    }
    let mut g = f.to_vec();
    while k >= 2 {
        let lc = literal_cube(l);
        g.retain(|&c| divides(lc, c));
        for c in &mut g {
            *c = quotient(*c, lc);
        }
        let common = common_cube(&g);
        for c in &mut g {
            *c = quotient(*c, common);
        }
        (l, k) = most_frequent(&g);
    }
    Some(g)
}

/// SIS's good factoring: divide by a quick divisor, then factor quotient, divisor and
/// remainder recursively.
fn good_factor(s: &mut Sink, f: &[Cube]) -> Lit {
    if s.over() || f.is_empty() {
        return Lit::FALSE;
    }
    if f.iter().any(|c| c.care == 0) {
        return Lit::TRUE;
    }
    if f.len() == 1 {
        return s.cube_and(f[0]);
    }
    let Some(d) = quick_divisor(f) else {
        return s.sum(f);
    };
    let (q, _) = divide(f, &d);
    if q.len() == 1 {
        return literal_factor(s, f, q[0]);
    }
    let q = cube_free(&q);
    let (d, r) = divide(f, &q);
    if d.is_empty() || q.is_empty() {
        return s.sum(f);
    }
    if common_cube(&d).care != 0 {
        return literal_factor(s, f, common_cube(&d));
    }
    let fq = good_factor(s, &q);
    let fd = good_factor(s, &d);
    let prod = s.g.and(fq, fd);
    let fr = good_factor(s, &r);
    s.g.or(prod, fr)
}

/// Factoring by the literal of `c` that occurs most often in `f`.
fn literal_factor(s: &mut Sink, f: &[Cube], c: Cube) -> Lit {
    let mut best = (0usize, 0usize);
    let mut care = c.care;
    while care != 0 {
        let v = care.trailing_zeros() as usize;
        care &= care - 1;
        let code = lit_code(v, c.value >> v & 1 == 1);
        let lc = literal_cube(code);
        let k = f.iter().filter(|&&x| divides(lc, x)).count();
        if k > best.1 {
            best = (code, k);
        }
    }
    let lc = literal_cube(best.0);
    let (q, r) = divide(f, &[lc]);
    let common = common_cube(&q);
    let q = cube_free(&q);
    let head = Cube { care: common.care | lc.care, value: common.value | lc.value };
    let h = s.cube_and(head);
    let fq = good_factor(s, &q);
    let prod = s.g.and(h, fq);
    let fr = good_factor(s, &r);
    s.g.or(prod, fr)
}

/// A variable `v` with `f = x_v ^ g`, and `g` over the other variables.
fn linear_var(f: &TruthTable) -> Option<(usize, TruthTable)> {
    let n = f.n_vars();
    (0..n).find_map(|v| {
        if !f.linear_in(v) {
            return None;
        }
        let others: Vec<usize> = (0..n).filter(|&i| i != v).collect();
        // g is the cofactor at x_v = 0, projected onto the other variables.
        let g = TruthTable::from_fn(n - 1, |s| {
            let full = others.iter().enumerate().fold(0, |a, (j, &i)| a | (s >> j & 1) << i);
            f.get(full)
        });
        Some((v, g))
    })
}

/// Literal code of a cube literal: `2 * var + negative`.
fn lit_code(var: usize, positive: bool) -> usize {
    2 * var + usize::from(!positive)
}

/// Algebraic factoring of the cover `lo..hi` of the cube stack: repeatedly divides by
/// the literal that occurs in the most cubes (together with the largest cube common to
/// those cubes). The quotient and the rest are pushed above the cover and popped after.
fn factor(s: &mut Sink, lo: usize, hi: usize) -> Lit {
    if s.over() || lo == hi {
        return Lit::FALSE;
    }
    let cubes = &s.cubes[lo..hi];
    if cubes.iter().any(|c| c.care == 0) {
        return Lit::TRUE;
    }
    if cubes.len() == 1 {
        let c = cubes[0];
        return s.cube_and(c);
    }
    let (best, k) = most_frequent(cubes);
    if k <= 1 {
        return s.sum_range(lo, hi);
    }
    let (var, pos) = (best / 2, best % 2 == 0);
    let with = |c: &Cube| c.literal(var) == Some(pos);
    // Largest cube common to every cube containing the literal.
    let common = cubes.iter().filter(|c| with(c)).fold(None, |acc: Option<Cube>, &c| {
        Some(acc.map_or(c, |a| {
            let agree = a.care & c.care & !(a.value ^ c.value);
            Cube { care: agree, value: a.value & agree }
        }))
    });
    let common = common.unwrap_or_default();
    let mark = s.cubes.len();
    for i in lo..hi {
        let c = s.cubes[i];
        if with(&c) {
            s.cubes.push(quotient(c, common));
        }
    }
    let mid = s.cubes.len();
    for i in lo..hi {
        let c = s.cubes[i];
        if !with(&c) {
            s.cubes.push(c);
        }
    }
    let end = s.cubes.len();
    let d = s.cube_and(common);
    let q = factor(s, mark, mid);
    let left = s.g.and(d, q);
    let r = factor(s, mid, end);
    s.cubes.truncate(mark);
    s.g.or(left, r)
}

/// The AND of `items` as a balanced tree (pairs from the left, level by level), built
/// in place.
fn and_tree(g: &mut Aig, items: &mut [Lit]) -> Lit {
    let mut n = items.len();
    if n == 0 {
        return Lit::TRUE;
    }
    while n > 1 {
        let m = n.div_ceil(2);
        for i in 0..m {
            items[i] = if 2 * i + 1 < n { g.and(items[2 * i], items[2 * i + 1]) } else { items[2 * i] };
        }
        n = m;
    }
    items[0]
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn table_of(g: &Aig) -> TruthTable {
        let n = g.n_inputs();
        TruthTable::from_fn(n, |s| g.eval_one(&(0..n).map(|i| s >> i & 1 == 1).collect::<Vec<_>>())[0])
    }

    #[test]
    fn every_structure_computes_its_function() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for n in 0..=8 {
            for _ in 0..30 {
                let d = rng.random_range(0.0..1.0);
                let f = TruthTable::from_fn(n, |_| rng.random_bool(d));
                assert_eq!(table_of(&synthesize(&f)), f, "n = {n}");
                assert_eq!(table_of(&sop_aig(&f)), f, "n = {n}");
            }
        }
    }

    #[test]
    fn nand_or_and_xor_cost_what_they_should() {
        let nand = TruthTable::from_fn(2, |s| s != 3);
        let or = TruthTable::from_fn(2, |s| s != 0);
        let xor5 = TruthTable::from_fn(5, |s| s.count_ones() % 2 == 1);
        let maj = TruthTable::from_fn(3, |s| s.count_ones() >= 2);
        assert_eq!(synthesize(&nand).n_ands(), 1);
        assert_eq!(synthesize(&or).n_ands(), 1);
        assert_eq!(synthesize(&xor5).n_ands(), 12);
        assert_eq!(synthesize(&maj).n_ands(), 4);
    }
}

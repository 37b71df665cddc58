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
    let build = |cover: &[Cube], neg: bool| {
        let mut g = Aig::new(n);
        let o = factor(&mut g, cover);
        g.add_output(if neg { !o } else { o });
        g
    };
    let build_good = |cover: &[Cube], neg: bool| {
        let mut g = Aig::new(n);
        let o = good_factor(&mut g, cover);
        g.add_output(if neg { !o } else { o });
        g
    };
    let (on_cover, off_cover) = (isop(f), isop(&f.not()));
    [
        build(&on_cover, false),
        build(&off_cover, true),
        build_good(&on_cover, false),
        build_good(&off_cover, true),
    ]
    .into_iter()
    .min_by_key(Aig::n_ands)
    .unwrap_or_else(|| Aig::new(n))
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
    for c in f {
        let mut care = c.care;
        while care != 0 {
            let v = care.trailing_zeros() as usize;
            care &= care - 1;
            count[lit_code(v, c.value >> v & 1 == 1)] += 1;
        }
    }
    count.iter().enumerate().max_by_key(|&(i, &c)| (c, std::cmp::Reverse(i))).map_or((0, 0), |(i, &c)| (i, c))
}

fn literal_cube(code: usize) -> Cube {
    let v = code / 2;
    Cube { care: 1 << v, value: u32::from(code.is_multiple_of(2)) << v }
}

/// Algebraic (weak) division: `f = q * d + r`.
fn divide(f: &[Cube], d: &[Cube]) -> (Vec<Cube>, Vec<Cube>) {
    let mut q: Option<Vec<Cube>> = None;
    for &dc in d {
        let qd: Vec<Cube> = f.iter().filter(|&&c| divides(dc, c)).map(|&c| quotient(c, dc)).collect();
        q = Some(match q {
            None => qd,
            Some(prev) => prev.into_iter().filter(|c| qd.contains(c)).collect(),
        });
        if q.as_ref().is_some_and(Vec::is_empty) {
            return (Vec::new(), f.to_vec());
        }
    }
    let q = q.unwrap_or_default();
    let product: Vec<Cube> = q
        .iter()
        .flat_map(|&a| d.iter().map(move |&b| Cube { care: a.care | b.care, value: a.value | b.value }))
        .collect();
    let r = f.iter().copied().filter(|c| !product.contains(c)).collect();
    (q, r)
}

/// `f` divided by its common cube.
fn cube_free(f: &[Cube]) -> Vec<Cube> {
    let c = common_cube(f);
    f.iter().map(|&x| quotient(x, c)).collect()
}

/// A level-0 kernel of `f` (SIS's quick divisor), if some literal occurs twice.
fn quick_divisor(f: &[Cube]) -> Option<Vec<Cube>> {
    if most_frequent(f).1 < 2 {
        return None;
    }
    let mut g = f.to_vec();
    loop {
        let (l, k) = most_frequent(&g);
        if k < 2 {
            return Some(g);
        }
        let lc = literal_cube(l);
        g = cube_free(&g.iter().filter(|&&c| divides(lc, c)).map(|&c| quotient(c, lc)).collect::<Vec<_>>());
    }
}

/// SIS's good factoring: divide by a quick divisor, then factor quotient, divisor and
/// remainder recursively.
fn good_factor(g: &mut Aig, f: &[Cube]) -> Lit {
    if f.is_empty() {
        return Lit::FALSE;
    }
    if f.iter().any(|c| c.care == 0) {
        return Lit::TRUE;
    }
    if f.len() == 1 {
        return cube_and(g, f[0]);
    }
    let Some(d) = quick_divisor(f) else {
        let terms: Vec<Lit> = f.iter().map(|&c| cube_and(g, c)).collect();
        return or_tree(g, terms);
    };
    let (q, _) = divide(f, &d);
    if q.len() == 1 {
        return literal_factor(g, f, q[0]);
    }
    let q = cube_free(&q);
    let (d, r) = divide(f, &q);
    if d.is_empty() || q.is_empty() {
        let terms: Vec<Lit> = f.iter().map(|&c| cube_and(g, c)).collect();
        return or_tree(g, terms);
    }
    if common_cube(&d).care != 0 {
        return literal_factor(g, f, common_cube(&d));
    }
    let fq = good_factor(g, &q);
    let fd = good_factor(g, &d);
    let prod = g.and(fq, fd);
    let fr = good_factor(g, &r);
    g.or(prod, fr)
}

/// Factoring by the literal of `c` that occurs most often in `f`.
fn literal_factor(g: &mut Aig, f: &[Cube], c: Cube) -> Lit {
    let mut best = (0usize, 0usize);
    for v in 0..32 {
        if let Some(p) = c.literal(v) {
            let lc = literal_cube(lit_code(v, p));
            let k = f.iter().filter(|&&x| divides(lc, x)).count();
            if k > best.1 {
                best = (lit_code(v, p), k);
            }
        }
    }
    let lc = literal_cube(best.0);
    let (q, r) = divide(f, &[lc]);
    let common = common_cube(&q);
    let q = cube_free(&q);
    let head = Cube { care: common.care | lc.care, value: common.value | lc.value };
    let h = cube_and(g, head);
    let fq = good_factor(g, &q);
    let prod = g.and(h, fq);
    let fr = good_factor(g, &r);
    g.or(prod, fr)
}

/// A variable `v` with `f = x_v ^ g`, and `g` over the other variables.
fn linear_var(f: &TruthTable) -> Option<(usize, TruthTable)> {
    let n = f.n_vars();
    (0..n).find_map(|v| {
        let bit = 1usize << v;
        let linear = (0..1usize << n).all(|s| s & bit != 0 || f.get(s) != f.get(s | bit));
        if !linear || !f.depends_on(v) {
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

/// Algebraic factoring of a cover: repeatedly divides by the literal that occurs in the
/// most cubes (together with the largest cube common to those cubes).
fn factor(g: &mut Aig, cubes: &[Cube]) -> Lit {
    if cubes.is_empty() {
        return Lit::FALSE;
    }
    if cubes.iter().any(|c| c.care == 0) {
        return Lit::TRUE;
    }
    if cubes.len() == 1 {
        return cube_and(g, cubes[0]);
    }
    let n = 32;
    let mut count = [0u32; 64];
    for c in cubes {
        for v in 0..n {
            if let Some(p) = c.literal(v) {
                count[lit_code(v, p)] += 1;
            }
        }
    }
    let (best, &k) =
        count.iter().enumerate().max_by_key(|&(i, &c)| (c, std::cmp::Reverse(i))).unwrap_or((0, &0));
    if k <= 1 {
        let terms: Vec<Lit> = cubes.iter().map(|&c| cube_and(g, c)).collect();
        return or_tree(g, terms);
    }
    let (var, pos) = (best / 2, best % 2 == 0);
    let (with, rest): (Vec<Cube>, Vec<Cube>) = cubes.iter().partition(|c| c.literal(var) == Some(pos));
    // Largest cube common to every cube containing the literal.
    let mut common = with[0];
    for c in &with[1..] {
        let agree = common.care & c.care & !(common.value ^ c.value);
        common = Cube { care: agree, value: common.value & agree };
    }
    let quotient: Vec<Cube> =
        with.iter().map(|c| Cube { care: c.care & !common.care, value: c.value & !common.care }).collect();
    let d = cube_and(g, common);
    let q = factor(g, &quotient);
    let left = g.and(d, q);
    let r = factor(g, &rest);
    g.or(left, r)
}

/// The AND of a cube's literals (balanced).
fn cube_and(g: &mut Aig, c: Cube) -> Lit {
    let lits: Vec<Lit> =
        (0..32).filter_map(|v| c.literal(v).map(|p| if p { g.input(v) } else { !g.input(v) })).collect();
    and_tree(g, lits)
}

fn and_tree(g: &mut Aig, mut items: Vec<Lit>) -> Lit {
    if items.is_empty() {
        return Lit::TRUE;
    }
    while items.len() > 1 {
        items = items.chunks(2).map(|p| if p.len() == 2 { g.and(p[0], p[1]) } else { p[0] }).collect();
    }
    items[0]
}

fn or_tree(g: &mut Aig, items: Vec<Lit>) -> Lit {
    !and_tree(g, items.into_iter().map(|l| !l).collect())
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

//! Small functions to small AIGs: the lowering of a truth table (a BLIF cover, a
//! collapsed cone in `refactor`) to AND nodes.
//!
//! [`synthesize`] tries several structures and keeps the one with the fewest AND nodes:
//! the algebraically factored irredundant SOP of the function and of its complement
//! (so OFF-set covers cost what ON-set covers do), an XOR split when a variable enters
//! the function linearly, and, for at most four variables, the minimum structure of
//! the function's NPN class ([`super::rewrite`]'s table).

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
    let on = build(&isop(f), false);
    let off = build(&isop(&f.not()), true);
    if off.n_ands() < on.n_ands() { off } else { on }
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

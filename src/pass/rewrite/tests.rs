//! `rewrite` proven equivalent, the table checked against its classes and a sample
//! regenerated.

use super::generate::{self, entry_of, synthesize};
use super::npn::{Npn4, apply};
use super::*;
use crate::pass::Pass;
use crate::pass::cec::{CecParams, Verdict, cec};

fn tt_of(g: &Aig) -> u16 {
    (0..16usize).fold(0u16, |t, x| {
        let bits: Vec<bool> = (0..4).map(|i| x >> i & 1 == 1).collect();
        t | u16::from(g.eval_one(&bits)[0]) << x
    })
}

#[test]
fn every_table_entry_computes_its_representative() {
    let npn = Npn4::get();
    assert_eq!(table::TABLE.len(), npn.reps().len());
    for (i, (&(rep, _, _, _), s)) in table::TABLE.iter().zip(class_structures()).enumerate() {
        assert_eq!(rep, npn.reps()[i]);
        assert_eq!(tt_of(s), rep, "class {i}");
    }
}

#[test]
fn a_sample_of_the_table_regenerates_identically() {
    let npn = Npn4::get();
    for i in (0..npn.reps().len()).step_by(37) {
        let (nodes, out, exact) = synthesize(npn.reps()[i], generate::EXACT_NODES);
        let &(_, tn, to, te) = &table::TABLE[i];
        assert_eq!((nodes.as_slice(), out, exact), (tn, to, te), "class {i}");
    }
    let xor2 = class_structures()[npn.classify(0x6666).0].n_ands();
    assert_eq!(xor2, 3);
    let _ = entry_of;
}

#[test]
fn instantiation_computes_every_function() {
    for t in (0..=u16::MAX).step_by(97).chain([0x6996, 0x8000, 0xFFFE, 0, 0xFFFF]) {
        let mut g = Aig::new(4);
        let leaves: Vec<Lit> = (0..4).map(|i| g.input(i)).collect();
        let o = instantiate4(&mut g, t, &leaves);
        g.add_output(o);
        assert_eq!(tt_of(&g), t, "{t:#06x}");
        let (c, tr) = Npn4::get().classify(t);
        assert_eq!(apply(Npn4::get().reps()[c], tr), t);
    }
}

fn random_aig(n_inputs: usize, n_nodes: usize, seed: u64) -> Aig {
    use rand::{RngExt, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut g = Aig::new(n_inputs);
    let mut lits: Vec<Lit> = (0..n_inputs).map(|i| g.input(i)).collect();
    for _ in 0..n_nodes {
        let mut pick = || {
            let l = lits[rng.random_range(lits.len().saturating_sub(12)..lits.len())];
            if rng.random::<bool>() { !l } else { l }
        };
        let (a, b, c) = (pick(), pick(), pick());
        let l = match rng.random_range(0..5u8) {
            0 => g.xor(a, b),
            1 => g.mux(a, b, c),
            2 => {
                let o = g.or(a, b);
                let n = g.and(a, b);
                g.and(o, !n)
            }
            _ => g.and(a, b),
        };
        lits.push(l);
    }
    for l in lits.iter().rev().take(5) {
        g.add_output(*l);
    }
    g.swept()
}

#[test]
fn rewrite_is_equivalent_and_never_grows() {
    for (seed, inputs, nodes) in [(1, 6, 80), (2, 10, 300), (3, 14, 600), (4, 30, 500)] {
        let g = random_aig(inputs, nodes, seed);
        for zero_gain in [false, true] {
            let p = Rewrite { params: RewriteParams { zero_gain, ..RewriteParams::default() } };
            let h = p.run(&g);
            let r = cec(&g, &h, &CecParams::default()).unwrap();
            assert_eq!(r.verdict, Verdict::Equivalent, "seed {seed} -z {zero_gain}");
            if !zero_gain {
                assert!(h.n_ands() <= g.n_ands());
            }
        }
    }
}

#[test]
fn rewrite_finds_the_small_xor() {
    // x ^ y built as (x | y) & !(x & y) with a redundant copy: 3 nodes suffice.
    let mut g = Aig::unhashed(2);
    let (x, y) = (g.input(0), g.input(1));
    let o = g.or(x, y);
    let a = g.and(x, y);
    let a2 = g.and(!x, !y);
    let b = g.and(o, !a);
    let c = g.and(b, !a2);
    g.add_output(c);
    let (h, stats) = rewrite(&g, &RewriteParams::default());
    assert_eq!(h.n_ands(), 3, "{stats:?}");
    assert_eq!(cec(&g, &h, &CecParams::default()).unwrap().verdict, Verdict::Equivalent);
}

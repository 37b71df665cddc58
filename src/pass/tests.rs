//! Every pass proven equivalent on random AIGs (exhaustively up to 16 inputs, by SAT
//! beyond), and each pass shown to do its job on a circuit made for it.

use super::*;
use crate::aig::Lit;
use crate::sat::solver::SatLimits;
use crate::verify::{CecMethod, Verdict, cec};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A random AIG with redundancy: random ANDs of random (complemented) earlier nodes,
/// plus some duplicated XORs and long AND chains.
fn random_aig(n_inputs: usize, n_nodes: usize, seed: u64) -> Aig {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut g = Aig::unhashed(n_inputs);
    let mut lits: Vec<Lit> = (0..n_inputs).map(|i| g.input(i)).collect();
    for _ in 0..n_nodes {
        let pick = |rng: &mut ChaCha8Rng, lits: &[Lit]| {
            let l = lits[rng.random_range(0..lits.len())];
            if rng.random::<bool>() { !l } else { l }
        };
        let (a, b) = (pick(&mut rng, &lits), pick(&mut rng, &lits));
        let l = match rng.random_range(0..4u8) {
            0 => g.xor(a, b),
            1 => {
                // The same XOR built another way: (a | b) & !(a & b).
                let o = g.or(a, b);
                let n = g.and(a, b);
                g.and(o, !n)
            }
            2 => {
                let c = pick(&mut rng, &lits);
                let ab = g.and(a, b);
                g.and(ab, c)
            }
            _ => g.and(a, b),
        };
        lits.push(l);
    }
    for l in lits.iter().rev().take(4) {
        g.add_output(*l);
    }
    g
}

fn all_passes(ctx: &PassContext) -> Vec<Box<dyn Pass>> {
    PASSES.iter().filter(|(n, _)| *n != "dc").map(|(n, _)| by_name(n, ctx).unwrap()).collect()
}

#[test]
fn every_pass_is_equivalent_on_random_aigs() {
    let ctx = PassContext::default();
    for (seed, inputs, nodes) in [(1, 6, 60), (2, 10, 200), (3, 16, 400), (4, 24, 300), (5, 40, 500)] {
        let g = random_aig(inputs, nodes, seed);
        for p in all_passes(&ctx) {
            let h = p.run(&g);
            let r = cec(&g, &h, &CecParams::default()).unwrap();
            assert_eq!(r.verdict, Verdict::Equivalent, "{} on seed {seed}", p.name());
            let want = if inputs <= 16 { CecMethod::Exhaustive } else { CecMethod::Sat };
            assert_eq!(r.method, want);
        }
    }
}

#[test]
fn scripts_report_stats_and_checks() {
    let g = random_aig(12, 300, 7);
    let ctx = PassContext::default();
    let script = parse_script("constprop,strash,fraig,balance,sweep", &ctx).unwrap();
    let (h, stats) = run_script(&g, &script, true).unwrap();
    assert_eq!(stats.len(), 5);
    assert!(stats.iter().all(|s| s.checked.as_deref() == Some("exhaustive")));
    assert!(h.n_ands() < g.n_ands(), "{} -> {}", g.n_ands(), h.n_ands());
    assert!(matches!(parse_script("strash,nope", &ctx), Err(PassError::Unknown(n)) if n == "nope"));
    assert!(matches!(parse_script("dc", &ctx), Err(PassError::NoCareSet)));
}

#[test]
fn strash_merges_what_an_unhashed_build_duplicated() {
    let mut g = Aig::unhashed(2);
    let (a, b) = (g.input(0), g.input(1));
    let x = g.and(a, b);
    let y = g.and(b, a);
    let o = g.and(x, !y);
    g.add_output(o);
    g.add_output(x);
    assert_eq!(g.n_ands(), 3);
    let h = Strash.run(&g);
    assert_eq!(h.n_ands(), 1);
    assert_eq!(h.outputs()[0], Lit::FALSE);
}

#[test]
fn fraig_merges_functionally_equal_nodes_that_strash_keeps() {
    let mut g = Aig::new(2);
    let (a, b) = (g.input(0), g.input(1));
    let x1 = g.xor(a, b);
    let (p, q) = (g.and(a, !b), g.and(!a, b));
    let x2 = g.or(p, q);
    g.add_output(x1);
    g.add_output(x2);
    let s = Strash.run(&g);
    let f = Fraig::default().run(&g);
    assert!(f.n_ands() < s.n_ands(), "fraig {} vs strash {}", f.n_ands(), s.n_ands());
    assert_eq!(f.outputs()[0], f.outputs()[1]);
}

#[test]
fn balance_turns_a_chain_into_a_tree() {
    let mut g = Aig::new(16);
    let mut acc = g.input(0);
    for i in 1..16 {
        acc = g.and(acc, g.input(i));
    }
    g.add_output(acc);
    assert_eq!(g.depth(), 15);
    let h = Balance.run(&g);
    assert_eq!(h.depth(), 4);
    assert_eq!(h.n_ands(), 15);
    assert_eq!(cec(&g, &h, &CecParams::default()).unwrap().verdict, Verdict::Equivalent);
}

#[test]
fn balance_joins_new_nodes_first_and_builds_depth_first_from_the_outputs() {
    // A chain over a..e: ABC's balance joins a & b, then c & d, then e with the newer
    // c & d, then a & b with that; the older rule joined e with a & b.
    let mut g = Aig::new(5);
    let x: Vec<Lit> = (0..5).map(|i| g.input(i)).collect();
    let acc = x[1..].iter().fold(x[0], |acc, &l| g.and(acc, l));
    g.add_output(acc);
    let h = Balance.run(&g);
    assert_eq!(h.n_ands(), 4);
    let cd = h.lookup(x[2], x[3]).unwrap();
    assert!(h.lookup(x[4], cd).is_some(), "{:?}", h.ands());
    // Output 1's tree is built before output 0's when output 0 reads it: nodes are in
    // depth-first order from the outputs, each tree's leaves' trees first.
    let mut g = Aig::new(4);
    let x: Vec<Lit> = (0..4).map(|i| g.input(i)).collect();
    let lo = g.and(x[0], x[1]);
    let hi = g.and(x[2], x[3]);
    let top = g.and(!lo, !hi);
    g.add_output(hi);
    g.add_output(top);
    let h = Balance.run(&g);
    assert_eq!(h.ands()[0], (x[2], x[3]));
    assert_eq!(h.ands()[1], (x[0], x[1]));
    assert_eq!(cec(&g, &h, &CecParams::default()).unwrap().verdict, Verdict::Equivalent);
}

#[test]
fn balance_joins_operands_into_existing_nodes_and_folds_contradictions() {
    // x = a & c is an output; t = a & (b & c) balanced as (a & c) & b reuses x.
    let mut g = Aig::new(3);
    let (a, b, c) = (g.input(0), g.input(1), g.input(2));
    let x = g.and(a, c);
    let bc = g.and(b, c);
    let t = g.and(a, bc);
    g.add_output(x);
    g.add_output(t);
    assert_eq!(g.n_ands(), 3);
    let h = Balance.run(&g);
    assert_eq!(h.n_ands(), 2);
    assert_eq!(cec(&g, &h, &CecParams::default()).unwrap().verdict, Verdict::Equivalent);
    // (a & b) & (!a & c) reads a and !a: the constant 0.
    let mut g = Aig::new(3);
    let (a, b, c) = (g.input(0), g.input(1), g.input(2));
    let p = g.and(a, b);
    let q = g.and(!a, c);
    let r = g.and(p, q);
    g.add_output(r);
    let h = Balance.run(&g);
    assert_eq!(h.n_ands(), 0);
    assert_eq!(cec(&g, &h, &CecParams::default()).unwrap().verdict, Verdict::Equivalent);
}

#[test]
fn dc_keeps_outputs_on_the_care_set_and_shrinks() {
    let g = random_aig(10, 300, 11);
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let examples: Vec<Vec<bool>> = (0..40).map(|_| (0..10).map(|_| rng.random()).collect()).collect();
    let care = BitMatrix::from_examples(10, &examples);
    let pass = by_name("dc", &PassContext { care: Some(care.clone()) }).unwrap();
    assert!(!pass.preserves_function());
    let h = pass.run(&Strash.run(&g));
    assert_eq!(g.simulate(&care), h.simulate(&care));
    assert!(h.n_ands() < Strash.run(&g).n_ands());
}

/// The relaxed-gate Iris classifier of `tests/fixtures/fraig` (see its README).
fn iris_classifier() -> Aig {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/fraig/iris-gates400x2.aig");
    let (g, _) = crate::io::aiger_reader::read_aiger(std::path::Path::new(path)).unwrap();
    Strash.run(&g)
}

#[test]
fn fraig_on_a_relaxed_gate_classifier_ends_within_its_budget_and_is_proven() {
    let g = iris_classifier();
    let fraig = Fraig { limits: SatLimits::new(100, 20_000, 60.0), ..Fraig::default() };
    let (h, stats) = fraig.run_with_stats(&g, &RunOptions::default());
    assert!(stats.sat.conflicts <= 20_000 + 1_000, "{stats}");
    assert!(h.n_ands() < g.n_ands(), "{} -> {}", g.n_ands(), h.n_ands());
    assert!(stats.merged_proven > 0, "{stats}");
    let r = cec(&g, &h, &CecParams::default()).unwrap();
    assert_eq!((r.verdict, r.method), (Verdict::Equivalent, CecMethod::Sat));
}

#[test]
fn a_tiny_budget_leaves_candidates_undecided_and_unmerged_never_wrong() {
    let g = iris_classifier();
    let fraig = Fraig { limits: SatLimits::new(1, 3, 60.0), ..Fraig::default() };
    let (h, stats) = fraig.run_with_stats(&g, &RunOptions::default());
    assert!(stats.undecided > 0 && stats.sat.budget_exhausted, "{stats}");
    assert!(stats.sat.conflicts <= 20, "{stats}");
    // Whatever was merged was proven: the result is still the same function.
    let r = cec(&g, &h, &CecParams::default()).unwrap();
    assert_eq!(r.verdict, Verdict::Equivalent);
    // And a check with a tiny budget says so instead of claiming equivalence.
    let tiny = CecParams { limits: SatLimits::new(1, 1, 60.0), ..CecParams::default() };
    let r = cec(&g, &Fraig::default().run(&g), &tiny).unwrap();
    assert!(
        matches!(r.verdict, Verdict::Undecided { ref outputs } if !outputs.is_empty()),
        "{:?}",
        r.verdict
    );
    // A mutant is still caught (by simulation, no SAT budget needed).
    let mut m = h.clone();
    m.set_output(0, !h.outputs()[0]);
    assert!(matches!(cec(&g, &m, &tiny).unwrap().verdict, Verdict::NotEquivalent { .. }));
}

#[test]
fn fraig_refines_classes_with_counterexamples() {
    // The AND of 24 inputs is 0 on every random pattern (almost surely), so it is a
    // candidate for constant 0; SAT refutes that, and the counterexample splits it off.
    let mut g = Aig::new(24);
    let mut acc = g.input(0);
    for i in 1..24 {
        acc = g.and(acc, g.input(i));
    }
    g.add_output(acc);
    let (h, stats) = Fraig::default().run_with_stats(&g, &RunOptions::default());
    assert!(stats.refinements >= 1 && stats.sat.sat >= 1, "{stats}");
    assert_eq!(h.n_ands(), 23);
    assert_eq!(cec(&g, &h, &CecParams::default()).unwrap().verdict, Verdict::Equivalent);
}

#[test]
fn a_check_out_of_budget_is_reported_undecided_not_equivalent() {
    let g = iris_classifier();
    let script = parse_script("balance", &PassContext::default()).unwrap();
    let opts = RunOptions {
        check: true,
        limits: Some(SatLimits::new(1, 1, 60.0)),
        progress: None,
        ..RunOptions::default()
    };
    let (_, stats) = run_script_with(&g, &script, &opts).unwrap();
    let checked = stats[0].checked.as_deref().unwrap();
    assert_eq!(checked, "undecided (limit 1 conflicts / 60 s)");
}
#[test]
fn resyn2_shrinks_and_is_proven_at_every_step() {
    let g = random_aig(14, 500, 21);
    let ctx = PassContext::default();
    let script = parse_script("strash,resyn2", &ctx).unwrap();
    assert_eq!(script.len(), 11);
    let (h, stats) = run_script(&g, &script, true).unwrap();
    assert!(stats.iter().all(|s| s.checked.as_deref() == Some("exhaustive")));
    assert!(h.n_ands() < Strash.run(&g).n_ands(), "{} -> {}", g.n_ands(), h.n_ands());
    assert!(matches!(parse_script("balance -z", &ctx), Err(PassError::Option { .. })));
}

#[test]
fn resub_reexpresses_a_node_through_existing_ones() {
    // y = (a & b) & c built twice, once as a & (b & c): resub (or strash + rewrite)
    // finds one in terms of the other.
    let mut g = Aig::new(3);
    let (a, b, c) = (g.input(0), g.input(1), g.input(2));
    let ab = g.and(a, b);
    let y1 = g.and(ab, c);
    let bc = g.and(b, c);
    let y2 = g.and(a, bc);
    let z = g.and(y2, !a);
    g.add_output(y1);
    g.add_output(y2);
    g.add_output(z);
    let h = Resub::default().run(&g);
    assert!(h.n_ands() < g.n_ands(), "{} -> {}", g.n_ands(), h.n_ands());
    assert_eq!(cec(&g, &h, &CecParams::default()).unwrap().verdict, Verdict::Equivalent);
}

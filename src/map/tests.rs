//! The mapper proven equivalent on random AIGs (exhaustively up to 16 inputs, by SAT
//! beyond), and shown to find the obvious mappings of circuits made for it.

use super::*;
use crate::aig::Lit;
use crate::verify::CecMethod;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A random AIG: ANDs and XORs of random (complemented) earlier literals; some outputs
/// complemented, one an input, one a constant.
fn random_aig(n_inputs: usize, n_nodes: usize, seed: u64) -> Aig {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut g = Aig::new(n_inputs);
    let mut lits: Vec<Lit> = (0..n_inputs).map(|i| g.input(i)).collect();
    for _ in 0..n_nodes {
        let pick = |rng: &mut ChaCha8Rng, lits: &[Lit]| {
            // Favour recent literals: deeper, more reconvergent logic.
            let lo = lits.len().saturating_sub(3 * n_inputs);
            let l = lits[rng.random_range(lo..lits.len())];
            if rng.random::<bool>() { !l } else { l }
        };
        let (a, b) = (pick(&mut rng, &lits), pick(&mut rng, &lits));
        let l = if rng.random_range(0..4u8) == 0 { g.xor(a, b) } else { g.and(a, b) };
        lits.push(l);
    }
    for (j, l) in lits.iter().rev().take(6).enumerate() {
        g.add_output(if j % 2 == 1 { !*l } else { *l });
    }
    g.add_output(!g.input(0));
    g.add_output(Lit::TRUE);
    g.swept()
}

fn proven(g: &Aig, net: &LutNetlist) -> CecMethod {
    match check_mapping(g, net, &CheckParams::default()).unwrap().outcome {
        CheckOutcome::Equivalent(m) => m,
        o => panic!("not proven: {o:?}"),
    }
}

#[test]
fn mappings_are_equivalent_for_every_lut_size() {
    for (seed, inputs, nodes) in [(1, 8, 120), (2, 12, 300), (3, 16, 500), (4, 5, 60)] {
        let g = random_aig(inputs, nodes, seed);
        for k in 2..=MAX_LUT_INPUTS {
            let p = MapParams { lut_size: k, ..MapParams::default() };
            let (net, stats) = map_luts(&g, &p).unwrap();
            assert_eq!(proven(&g, &net), CecMethod::Exhaustive);
            assert!(net.luts().iter().all(|l| l.inputs().len() <= k), "seed {seed} K {k}");
            assert_eq!((stats.luts, stats.depth), (net.luts().len(), net.depth()));
            // Area recovery keeps the depth of the first pass (dropping leaves that a
            // LUT's function ignores can only lower it).
            assert!(stats.depth <= stats.passes[0].depth, "seed {seed} K {k}");
        }
    }
}

#[test]
fn wide_mappings_are_proven_by_sat() {
    let g = random_aig(40, 400, 9);
    let (net, _) = map_luts(&g, &MapParams::default()).unwrap();
    assert_eq!(proven(&g, &net), CecMethod::Sat);
}

#[test]
fn an_and_chain_takes_five_new_inputs_per_lut() {
    let mut g = Aig::new(36);
    let lits: Vec<Lit> = (0..36).map(|i| g.input(i)).collect();
    let mut acc = lits[0];
    for &l in &lits[1..] {
        acc = g.and(acc, l);
    }
    g.add_output(acc);
    let (net, stats) = map_luts(&g, &MapParams::default()).unwrap();
    proven(&g, &net);
    // Mapping does not restructure: a cut of a chain is the previous chain node plus a
    // stretch of inputs, so the first LUT takes 6 inputs, each next one 5 more.
    assert_eq!((stats.luts, stats.depth), (7, 7));
}

#[test]
fn small_functions_fit_one_lut() {
    let mut g = Aig::new(6);
    let x: Vec<Lit> = (0..6).map(|i| g.input(i)).collect();
    let p = x.iter().skip(1).fold(x[0], |a, &b| g.xor(a, b));
    g.add_output(p);
    g.add_output(!p);
    let (net, stats) = map_luts(&g, &MapParams::default()).unwrap();
    proven(&g, &net);
    // The parity LUT and its complemented copy.
    assert_eq!((stats.luts, stats.depth), (2, 1));
    let p4 = MapParams { lut_size: 4, ..MapParams::default() };
    let (net4, stats4) = map_luts(&g, &p4).unwrap();
    proven(&g, &net4);
    assert_eq!(stats4.depth, 2);
}

#[test]
fn area_recovery_never_adds_luts_on_random_logic() {
    for seed in 0..4 {
        let g = random_aig(14, 400, 20 + seed);
        let depth_only = MapParams { flow_passes: 0, area_passes: 0, ..MapParams::default() };
        let (a, sa) = map_luts(&g, &depth_only).unwrap();
        let (b, stats) = map_luts(&g, &MapParams::default()).unwrap();
        proven(&g, &b);
        assert!(b.luts().len() <= a.luts().len(), "seed {seed}: {} > {}", b.luts().len(), a.luts().len());
        assert!(stats.depth <= sa.passes[0].depth);
    }
}

#[test]
fn large_wide_mappings_are_simulated_and_said_so() {
    let g = random_aig(40, 400, 9);
    let (mut net, _) = map_luts(&g, &MapParams::default()).unwrap();
    let p = CheckParams { sat_max_ands: 10, random_vectors: 1000, ..CheckParams::default() };
    let r = check_mapping(&g, &net, &p).unwrap();
    assert_eq!(r.outcome, CheckOutcome::Undecided { vectors: 1000 });
    assert_eq!(r.method(), "simulated");
    // A broken table is caught by the simulation.
    net.flip_for_test(0);
    assert!(matches!(check_mapping(&g, &net, &p).unwrap().outcome, CheckOutcome::NotEquivalent { .. }));
    assert!(matches!(
        check_mapping(&g, &net, &CheckParams::default()).unwrap().outcome,
        CheckOutcome::NotEquivalent { .. }
    ));
}

#[test]
fn bad_parameters_are_errors() {
    let g = random_aig(4, 10, 1);
    assert_eq!(
        map_luts(&g, &MapParams { lut_size: 1, ..MapParams::default() }).unwrap_err(),
        MapError::LutSize(1)
    );
    assert_eq!(
        map_luts(&g, &MapParams { lut_size: 9, ..MapParams::default() }).unwrap_err(),
        MapError::LutSize(9)
    );
    assert_eq!(
        map_luts(&g, &MapParams { cuts_per_node: 0, ..MapParams::default() }).unwrap_err(),
        MapError::NoCuts
    );
}

//! A trained `Z_(2^64)` fixed-point model (the polycirc Iris demo) exported as word-level
//! Verilog simulates in Icarus bit-exact against the Rust evaluator on all 150 rows; the
//! bench's expected outputs come from the bit-blasted circuit, which is itself checked
//! against the word-level evaluator here.

mod common;

use circuitlearn::{
    BitMatrix, IcarusOutcome, Netlist, Tool, bind_ring_params, bit_blast, load_dataset, polycirc_iris,
    run_icarus, write_testbench, z2k_verilog,
};

#[test]
fn trained_ring_model_simulates_bit_exact_in_icarus() {
    let run = polycirc_iris(&load_dataset("iris").unwrap()).unwrap();
    assert!((run.train_accuracy - 0.96).abs() < 1e-9);
    let bound = bind_ring_params(&run.model, &run.params).unwrap();
    let blasted = bit_blast(&bound);
    let rows: Vec<Vec<bool>> = run
        .inputs
        .iter()
        .map(|x| x.iter().flat_map(|&w| (0..64).map(move |i| w >> i & 1 == 1)).collect())
        .collect();
    // The bit-level circuit computes the word-level outputs on every row.
    for (x, bits) in run.inputs.iter().zip(&rows) {
        let want: Vec<bool> =
            bound.eval_one(x).iter().flat_map(|&w| (0..64).map(move |i| w >> i & 1 == 1)).collect();
        assert_eq!(blasted.eval_one(bits), want);
    }
    if !common::have(&[Tool::Iverilog, Tool::Vvp]) {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let design = d.path().join("iris_fixed.v");
    std::fs::write(&design, z2k_verilog(&bound, "iris_fixed")).unwrap();
    let net = Netlist::indexed("iris_fixed", blasted);
    let files = write_testbench(d.path(), &net, &BitMatrix::from_examples(256, &rows), 0).unwrap();
    match run_icarus(d.path(), &files.bench, &design, &files.module).unwrap() {
        IcarusOutcome::Pass { vectors, .. } => assert_eq!(vectors, 150),
        other => panic!("Icarus: {other:?}"),
    }
}

/// The whole training step (shifts, clips, subtraction, products) at 16 bits, with every
/// input of the step as a port: Icarus agrees with the evaluator on random vectors.
#[test]
fn fixed_point_step_simulates_bit_exact_in_icarus() {
    use circuitlearn::{
        CircuitBuilder, Poly, PolyBuild, PolyOp, Z2k, displacement, feedback, fixed::clipped_displacement,
        fixed::fixed_gd, fixed::linear, learner, random_inputs, step,
    };
    type R = Z2k<16>;
    let model = linear::<R>(2, 3);
    let zero = |b: &mut CircuitBuilder<Poly<R>>| b.poly(PolyOp::Const(0), &[]);
    let loss = displacement(clipped_displacement::<R>(2, 4), zero).unwrap();
    let lens = learner(&model, &loss, &feedback(2)).unwrap();
    let s = step(&lens, 6, &fixed_gd::<R>(6, 4, 3)).unwrap().with_params(0).unwrap();
    let blasted = bit_blast(&s);
    if !common::have(&[Tool::Iverilog, Tool::Vvp]) {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let design = d.path().join("fixed_step.v");
    std::fs::write(&design, z2k_verilog(&s, "fixed_step")).unwrap();
    let net = Netlist::indexed("fixed_step", blasted);
    let inputs = random_inputs(net.circuit().n_inputs(), 500, 7);
    let files = write_testbench(d.path(), &net, &inputs, 0).unwrap();
    match run_icarus(d.path(), &files.bench, &design, &files.module).unwrap() {
        IcarusOutcome::Pass { vectors, .. } => assert_eq!(vectors, 500),
        other => panic!("Icarus: {other:?}"),
    }
}

/// A `Z_251` circuit using every ring operation: its word-level Verilog (with `% 251`
/// reductions) simulates bit-exact against the bit-blasted circuit's expected outputs,
/// which are checked against the word-level evaluator first.
#[test]
fn zp_circuit_simulates_bit_exact_in_icarus() {
    use circuitlearn::{
        CircuitBuilder, Poly, PolyBuild, PolyOp, Zp, bit_blast_zp, random_inputs, zp_verilog, zp_width,
    };
    type F = Zp<251>;
    let mut b = CircuitBuilder::<Poly<F>>::new(0, 3);
    let x = b.args();
    let m = b.poly(PolyOp::Mul, &[x[0], x[1]]);
    let c = b.poly(PolyOp::Const(200), &[]);
    let s = b.poly(PolyOp::Sub, &[m, x[2]]);
    let n = b.poly(PolyOp::Neg, &[s]);
    let a = b.poly(PolyOp::Add, &[n, c]);
    let q = b.poly(PolyOp::Mul, &[a, a]);
    let circ = b.finish(vec![q, s, n]).unwrap();
    let w = zp_width(251);
    let blasted = bit_blast_zp(&circ).unwrap();
    // Inputs: residues only (the bench draws random bits; reduce them first).
    let raw = random_inputs(3 * w, 400, 11);
    let rows: Vec<Vec<bool>> = (0..raw.examples())
        .map(|e| {
            let bits = raw.example(e);
            (0..3)
                .flat_map(|i| {
                    let v = (0..w).fold(0u64, |acc, j| acc | u64::from(bits[i * w + j]) << j) % 251;
                    (0..w).map(move |j| v >> j & 1 == 1)
                })
                .collect()
        })
        .collect();
    for r in &rows {
        let words: Vec<u64> =
            (0..3).map(|i| (0..w).fold(0u64, |acc, j| acc | u64::from(r[i * w + j]) << j)).collect();
        let want: Vec<bool> =
            circ.eval_one(&words).iter().flat_map(|&v| (0..w).map(move |j| v >> j & 1 == 1)).collect();
        assert_eq!(blasted.eval_one(r), want);
    }
    if !common::have(&[Tool::Iverilog, Tool::Vvp]) {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let design = d.path().join("zp251.v");
    std::fs::write(&design, zp_verilog(&circ, "zp251").unwrap()).unwrap();
    let net = Netlist::indexed("zp251", blasted);
    let files = write_testbench(d.path(), &net, &BitMatrix::from_examples(3 * w, &rows), 0).unwrap();
    match run_icarus(d.path(), &files.bench, &design, &files.module).unwrap() {
        IcarusOutcome::Pass { vectors, .. } => assert_eq!(vectors, 400),
        other => panic!("Icarus: {other:?}"),
    }
}

/// Bit-blasted ring circuits go through the Boolean tool chain: AIGER out and back in,
/// proven equivalent by SAT (`Z_(2^8)` multiply-accumulate, 24 input bits).
#[test]
fn blasted_ring_circuit_round_trips_through_aiger_proven_by_sat() {
    use circuitlearn::{
        Aig, AigerFormat, CecMethod, CecParams, CircuitBuilder, Poly, PolyBuild, PolyOp, Verdict, Z2k, cec,
        netlist_to_aiger, parse_aiger,
    };
    let mut b = CircuitBuilder::<Poly<Z2k<8>>>::new(0, 3);
    let x = b.args();
    let m = b.poly(PolyOp::Mul, &[x[0], x[1]]);
    let s = b.poly(PolyOp::Add, &[m, x[2]]);
    let blasted = bit_blast(&b.finish(vec![s]).unwrap());
    let bytes = netlist_to_aiger(&Netlist::indexed("mac8", blasted.clone()), AigerFormat::Binary);
    let (back, _) = parse_aiger(&bytes, "mac8.aig", "mac8").unwrap();
    let r = cec(&Aig::from_circuit(&blasted, None), &back, &CecParams::default()).unwrap();
    assert_eq!((r.verdict, r.method), (Verdict::Equivalent, CecMethod::Sat));
}

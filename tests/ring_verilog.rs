//! A trained `Z_(2^64)` fixed-point model (the polycirc Iris demo) exported as word-level
//! Verilog simulates in Icarus bit-exact against the Rust evaluator on all 150 rows; the
//! bench's expected outputs come from the bit-blasted circuit, which is itself checked
//! against the word-level evaluator here.

mod common;

use circuitlearn::data;
use circuitlearn::domain::blast::bit_blast;
use circuitlearn::domain::ring::bind_ring_params;
use circuitlearn::io::Netlist;
use circuitlearn::io::testbench::write_testbench;
use circuitlearn::io::verilog_ring::z2k_verilog;
use circuitlearn::lanes::BitMatrix;
use circuitlearn::learn::fixed::polycirc_iris;
use circuitlearn::tools::{IcarusOutcome, Tool, run_icarus};

#[test]
fn trained_ring_model_simulates_bit_exact_in_icarus() {
    let run = polycirc_iris(&data::load("iris").unwrap()).unwrap();
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
    use circuitlearn::circuit::CircuitBuilder;
    use circuitlearn::domain::ring::{Poly, PolyBuild, PolyOp, Z2k};
    use circuitlearn::io::testbench::random_inputs;
    use circuitlearn::learn::fixed::{clipped_displacement, fixed_gd, linear};
    use circuitlearn::learn::learner::{displacement, feedback, learner, step};
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

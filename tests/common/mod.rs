//! Helpers shared by the integration tests: the external-tool gate, equivalence by
//! simulation, random circuits and a trained Iris model.
#![allow(dead_code)]

pub mod pinned;

use circuitlearn::{
    BitMatrix, Bool, BoolBuild, Circuit, CircuitBuilder, Encoder, Encoding, EvalParams, ModelSpec, Network,
    RdaRule, RdaVariant, Tool, Trainer, VoteParams, WireId, bind_params, eval_lanes, load_dataset,
    random_inputs, stratified_split,
};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output};

/// Whether tests must fail instead of skipping when a tool is missing.
pub fn tools_required() -> bool {
    std::env::var("CIRCUITLEARN_REQUIRE_TOOLS").is_ok_and(|v| v == "1")
}

/// True if every tool is installed. Otherwise prints why the test skips and returns
/// false, or panics when `CIRCUITLEARN_REQUIRE_TOOLS=1`.
pub fn have(tools: &[Tool]) -> bool {
    for t in tools {
        if let Err(e) = t.find() {
            assert!(!tools_required(), "CIRCUITLEARN_REQUIRE_TOOLS=1, but {e}");
            // Straight to the process's stderr: the test harness hides captured output of
            // passing tests, and a skip should be seen.
            let _ = writeln!(
                std::io::stderr(),
                "{}: tool check skipped: {e}",
                std::thread::current().name().unwrap_or("test")
            );
            return false;
        }
    }
    true
}

/// Inputs that decide equivalence: every combination for at most 16 inputs, otherwise
/// 16,384 random vectors.
pub fn proof_inputs(n_inputs: usize) -> BitMatrix {
    random_inputs(n_inputs, 1 << 16.min(n_inputs).max(14), 7)
}

/// Asserts that two circuits with the same interface compute the same function
/// (exhaustively for at most 16 inputs, on random lanes beyond).
pub fn assert_equivalent(a: &Circuit<Bool>, b: &Circuit<Bool>, what: &str) {
    assert_eq!((a.n_inputs(), a.n_outputs()), (b.n_inputs(), b.n_outputs()), "{what}: interfaces differ");
    let x = proof_inputs(a.n_inputs());
    let (ya, yb) = (eval_lanes(a, &x, &EvalParams::default()), eval_lanes(b, &x, &EvalParams::default()));
    for j in 0..a.n_outputs() {
        assert_eq!(ya.row(j), yb.row(j), "{what}: output {j} differs");
    }
}

/// A random parameter-free circuit over every gate type: constants, XOR, AND, OR, NOT,
/// MUX, and LUTs of 1..=4 inputs with constant tables (and, if `wire_tables`, some with
/// tables read from wires).
pub fn random_circuit(seed: u64, n_inputs: usize, n_gates: usize, wire_tables: bool) -> Circuit<Bool> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut b = CircuitBuilder::<Bool>::new(0, n_inputs);
    let mut wires: Vec<WireId> = b.args();
    let zero = b.constant(false);
    let one = b.constant(true);
    wires.push(one);
    for _ in 0..n_gates {
        let pick = |rng: &mut ChaCha8Rng, w: &[WireId]| w[rng.random_range(0..w.len())];
        let (x, y, z) = (pick(&mut rng, &wires), pick(&mut rng, &wires), pick(&mut rng, &wires));
        let w = match rng.random_range(0..7) {
            0 => b.xor(x, y),
            1 => b.and(x, y),
            2 => b.or(x, y),
            3 => b.not(x),
            4 => b.mux(x, y, z),
            _ => {
                let k = rng.random_range(1..=4usize);
                let addr: Vec<WireId> = (0..k).map(|_| pick(&mut rng, &wires)).collect();
                let table: Vec<WireId> = (0..1usize << k)
                    .map(|_| {
                        if wire_tables && rng.random_bool(0.2) {
                            pick(&mut rng, &wires)
                        } else if rng.random_bool(0.5) {
                            one
                        } else {
                            zero
                        }
                    })
                    .collect();
                b.lut(&table, &addr)
            }
        };
        wires.push(w);
    }
    let outs =
        (0..6).map(|i| wires[wires.len() - 1 - i * 3 % wires.len().min(40)]).chain([wires[0], one]).collect();
    b.finish(outs).expect("random circuit is valid")
}

/// The default Iris model trained through the library: the bound circuit and the
/// encoded train and test examples, one after the other.
pub fn trained_iris() -> (Circuit<Bool>, BitMatrix) {
    let iris = load_dataset("iris").expect("embedded iris");
    let (tr, te) = stratified_split(&iris.labels, 0.3, 0);
    let (train, test) = (iris.subset(&tr), iris.subset(&te));
    let enc = Encoder::fit(&Encoding::Thermometer { bits: 8 }, &train).expect("encoder");
    let spec: ModelSpec = "lut:6:64x1,groupsum:3".parse().expect("spec");
    let net = Network::build(spec, enc.n_bits(), 3, 0).expect("network");
    let x = enc.encode(&train).expect("encode train");
    let rule = RdaRule::new(&net, &x, &train.labels, RdaVariant::Votes(VoteParams::for_head(spec.head, 3)));
    let params = Trainer::new().epochs(20).fit(rule).0.into_params();
    let bound = bind_params(&net.circuit, &params).expect("bind");
    let vectors = BitMatrix::concat_examples(&[&x, &enc.encode(&test).expect("encode test")]);
    (bound, vectors)
}

/// Runs the `circuitlearn` binary with `args` in `dir`.
pub fn circuitlearn(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_circuitlearn"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("binary runs")
}

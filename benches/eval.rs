//! Forward and forward+reverse evaluation of a 10k-gate random Boolean circuit over
//! 65,536 examples (1,024 lane words). Throughput is in gate-evaluations (one gate on
//! one example); for the reverse pass it counts the gates of the forward circuit.

use circuitlearn::cat::rdiff;
use circuitlearn::circuit::{Circuit, CircuitBuilder, WireId};
use circuitlearn::domain::Bool;
use circuitlearn::lanes::{BitMatrix, EvalParams, Program, ReverseProgram, eval_lanes};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

const INPUTS: usize = 256;
const GATES: usize = 10_000;
const OUTPUTS: usize = 64;
const EXAMPLES: usize = 1 << 16;

/// Random 2-input gates (AND, XOR, OR) reading from a window of recent wires.
fn random_circuit(seed: u64) -> Circuit<Bool> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut b = CircuitBuilder::<Bool>::new(0, INPUTS);
    for g in 0..GATES {
        let n = (INPUTS + g) as u32;
        let lo = n.saturating_sub(512);
        let a = WireId(rng.random_range(lo..n));
        let c = WireId(rng.random_range(lo..n));
        let op = [Bool::And, Bool::Xor, Bool::Or][rng.random_range(0..3usize)];
        b.gate(op, &[a, c]);
    }
    let total = (INPUTS + GATES) as u32;
    let outs = (0..OUTPUTS as u32).map(|i| WireId(total - 1 - i)).collect();
    b.finish(outs).expect("valid random circuit")
}

fn random_inputs(rows: usize, seed: u64) -> BitMatrix {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut m = BitMatrix::zeros(rows, EXAMPLES);
    for r in 0..rows {
        for w in m.row_mut(r) {
            *w = rng.random();
        }
    }
    m
}

fn bench(c: &mut Criterion) {
    let f = random_circuit(1);
    let r = rdiff(&f);
    eprintln!(
        "forward: {} gates, {} slots; reverse: {} gates, {} slots",
        f.n_gates(),
        Program::new(&f).n_slots(),
        r.n_gates(),
        Program::new(&r).n_slots()
    );
    let x = random_inputs(INPUTS, 2);
    let dy = random_inputs(OUTPUTS, 3);
    let xdy = x.vstack(&dy);
    let fused = ReverseProgram::new(&f);
    let mut g = c.benchmark_group("eval_10k_gates_64k_examples");
    g.throughput(Throughput::Elements((GATES * EXAMPLES) as u64));
    g.sample_size(10);
    let one = EvalParams { tile_words: 0, parallel: false };
    g.bench_function("forward_1core", |b| b.iter(|| eval_lanes(&f, &x, &one)));
    g.bench_function("forward_all_cores", |b| b.iter(|| eval_lanes(&f, &x, &EvalParams::default())));
    g.bench_function("reverse_1core", |b| b.iter(|| eval_lanes(&r, &xdy, &one)));
    g.bench_function("reverse_fused_1core", |b| b.iter(|| fused.eval(&x, &dy, &one)));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

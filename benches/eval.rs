//! Forward and forward+reverse evaluation of a 10k-gate random Boolean circuit over
//! 65,536 examples (1,024 lane words). Throughput is in gate-evaluations (one gate on
//! one example); for the reverse pass it counts the gates of the forward circuit.

use circuitlearn::{
    EvalParams, Program, ReverseProgram, eval_lanes, random_bits, random_gate_circuit, rdiff,
};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const INPUTS: usize = 256;
const GATES: usize = 10_000;
const OUTPUTS: usize = 64;
const EXAMPLES: usize = 1 << 16;

fn bench(c: &mut Criterion) {
    let f = random_gate_circuit(1, INPUTS, GATES, OUTPUTS, 512);
    let r = rdiff(&f);
    eprintln!(
        "forward: {} gates, {} slots; reverse: {} gates, {} slots",
        f.n_gates(),
        Program::new(&f).n_slots(),
        r.n_gates(),
        Program::new(&r).n_slots()
    );
    let x = random_bits(INPUTS, EXAMPLES, 2);
    let dy = random_bits(OUTPUTS, EXAMPLES, 3);
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

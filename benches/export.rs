//! Export throughput: a 1M-gate random circuit (2-input gates, NOT and MUX) streamed to
//! disk as Verilog, BLIF and binary AIGER, and a trained-style layer of 100k bound
//! 6-input LUTs as Verilog in both LUT styles. Each iteration writes the file atomically
//! into a temporary directory, as `circuitlearn export` does.

use circuitlearn::{
    AigerFormat, BlifParams, Bool, BoolBuild, Circuit, CircuitBuilder, LutStyle, Netlist, VerilogParams,
    WireId, write_atomic_with, write_blif, write_netlist_aiger, write_verilog,
};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// `gates` random gates reading from the 1024 most recent wires.
fn random_gates(gates: usize) -> Circuit<Bool> {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let inputs = 1024;
    let mut b = CircuitBuilder::<Bool>::new(0, inputs);
    for g in 0..gates {
        let n = (inputs + g) as u32;
        let lo = n.saturating_sub(1024);
        let mut pick = || WireId(rng.random_range(lo..n));
        let (x, y, z) = (pick(), pick(), pick());
        match g % 8 {
            0..=2 => b.and(x, y),
            3 | 4 => b.xor(x, y),
            5 => b.or(x, y),
            6 => b.not(x),
            _ => b.mux(x, y, z),
        };
    }
    let total = (inputs + gates) as u32;
    let outs = (1..=256).map(|i| WireId(total - i)).collect();
    b.finish(outs).expect("valid random circuit")
}

/// `luts` 6-input LUTs over 256 inputs with random constant tables.
fn lut_layer(luts: usize) -> Circuit<Bool> {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let mut b = CircuitBuilder::<Bool>::new(0, 256);
    let (zero, one) = (b.constant(false), b.constant(true));
    let outs = (0..luts)
        .map(|_| {
            let table: Vec<WireId> = (0..64).map(|_| if rng.random_bool(0.5) { one } else { zero }).collect();
            let addr: Vec<WireId> = (0..6).map(|_| WireId(rng.random_range(0..256))).collect();
            b.lut(&table, &addr)
        })
        .collect();
    b.finish(outs).expect("valid LUT layer")
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temporary directory");
    let big = Netlist::indexed("big", random_gates(1_000_000));
    let mut g = c.benchmark_group("export_1m_gates");
    g.sample_size(10).throughput(Throughput::Elements(1_000_000));
    let path = dir.path().join("big.out");
    g.bench_function("verilog", |bch| {
        bch.iter(|| {
            write_atomic_with(&path, |w| write_verilog(&big, &VerilogParams::default(), w)).expect("write")
        });
    });
    g.bench_function("blif", |bch| {
        bch.iter(|| {
            write_atomic_with(&path, |w| write_blif(&big, &BlifParams::default(), w)).expect("write")
        });
    });
    g.bench_function("aiger", |bch| {
        bch.iter(|| {
            write_atomic_with(&path, |w| write_netlist_aiger(&big, AigerFormat::Binary, w)).expect("write")
        });
    });
    g.finish();
    let luts = Netlist::indexed("luts", lut_layer(100_000));
    let mut g = c.benchmark_group("export_100k_lut6");
    g.sample_size(10).throughput(Throughput::Elements(100_000));
    for (name, lut_style) in [("verilog_table", LutStyle::Table), ("verilog_expr", LutStyle::Expr)] {
        let p = VerilogParams { lut_style, pipeline: 0, valid: false };
        g.bench_function(name, |bch| {
            bch.iter(|| write_atomic_with(&path, |w| write_verilog(&luts, &p, w)).expect("write"));
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

//! Self-checking Verilog testbenches: `<module>_tb.v` plus a vectors file `<module>.mem`
//! read with `$readmemh`, whose expected outputs come from the Rust simulator.
//!
//! Each line of the vectors file is one example in hex: the input bits `x[N-1] .. x[0]`
//! in `ceil(N/4)` digits, an underscore, then the expected outputs `y[M-1] .. y[0]` in
//! `ceil(M/4)` digits. (Hex, not binary: Icarus read Fashion-MNIST's 10,000 vectors of
//! 49,392 bits in 4.6 s instead of 17.8 s, from a file a quarter the size.) The bench
//! applies every vector (for a pipelined module, one per clock, comparing `latency`
//! cycles later), compares with `!==` (so `x`/`z` outputs fail), prints `PASS: <n>
//! vectors` and calls `$finish`, or prints the first mismatches and calls `$fatal(1,
//! ...)` (a plain `vvp` exits 0 even when outputs differ; `$fatal` makes the exit status
//! say so). Run it from the directory holding the vectors file. The plusargs `+step=K`
//! and `+first=F` check vectors F, F+K, F+2K, ... only (a quick sample of a big bench,
//! or one of several runs that share it out; `PASS` then counts the checked ones).

use super::atomic::write_atomic;
use super::netlist::Netlist;
use super::verilog::module_name;
use crate::lanes::{BitMatrix, EvalParams, eval_lanes};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Mismatches the bench prints before giving up.
const MAX_REPORTED: usize = 10;

/// A testbench that cannot be made.
#[derive(Debug, Error)]
pub enum TestbenchError {
    /// The input matrix does not fit the circuit.
    #[error("vectors have {found} input bits, the circuit has {expected} inputs")]
    Width {
        /// Rows of the input matrix.
        found: usize,
        /// Inputs of the circuit.
        expected: usize,
    },
    /// A circuit without inputs or outputs, or no vectors: nothing to check.
    #[error("nothing to check: {inputs} inputs, {outputs} outputs, {vectors} vectors")]
    Empty {
        /// Inputs of the circuit.
        inputs: usize,
        /// Outputs of the circuit.
        outputs: usize,
        /// Vectors given.
        vectors: usize,
    },
    /// A file cannot be written.
    #[error("{path}: {source}")]
    Io {
        /// File.
        path: String,
        /// Cause.
        source: std::io::Error,
    },
}

/// A bench and its vectors, as text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Testbench {
    /// Name of the bench module (`<module>_tb`).
    pub module: String,
    /// The bench, `<module>_tb.v`.
    pub bench: String,
    /// The vectors file the bench reads, `<module>.mem`.
    pub vectors_file: String,
    /// Its content.
    pub vectors: String,
    /// Number of vectors.
    pub n_vectors: usize,
}

/// Paths of a bench written to disk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BenchFiles {
    /// `<dir>/<module>_tb.v`.
    pub bench: PathBuf,
    /// `<dir>/<module>.mem`.
    pub vectors: PathBuf,
    /// Bench module name.
    pub module: String,
    /// Number of vectors.
    pub n_vectors: usize,
}

/// The ports and timing of the module a bench drives.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BenchParams {
    /// Pipeline stages of the module (0: combinational).
    pub latency: usize,
    /// The module has `en`, `valid_in` and `valid_out` (see
    /// [`VerilogParams::valid`](super::verilog::VerilogParams::valid)): the bench stalls
    /// the pipeline (`en = 0`) every third cycle and checks `y` on every enabled edge that
    /// raises `valid_out`, in order.
    pub valid: bool,
}

/// [`testbench_with`] for a module with the ports and timing of `p`.
///
/// # Errors
/// As [`testbench_with`].
pub fn testbench_with(n: &Netlist, inputs: &BitMatrix, p: &BenchParams) -> Result<Testbench, TestbenchError> {
    let latency = p.latency;
    let c = n.circuit();
    let (ni, no, nv) = (c.n_inputs(), c.n_outputs(), inputs.examples());
    if inputs.rows() != ni {
        return Err(TestbenchError::Width { found: inputs.rows(), expected: ni });
    }
    if ni == 0 || no == 0 || nv == 0 {
        return Err(TestbenchError::Empty { inputs: ni, outputs: no, vectors: nv });
    }
    let dut = module_name(&n.names().model);
    let module = format!("{dut}_tb");
    let vectors_file = format!("{dut}.mem");
    let expected = eval_lanes(c, inputs, &EvalParams::default());
    let mut vectors = String::with_capacity(nv * (ni.div_ceil(4) + no.div_ceil(4) + 2));
    for e in 0..nv {
        push_hex(&mut vectors, ni, |r| inputs.get(r, e));
        vectors.push('_');
        push_hex(&mut vectors, no, |r| expected.get(r, e));
        vectors.push('\n');
    }
    let bench = if p.valid && latency > 0 {
        valid_bench_text(&dut, &module, &vectors_file, (ni, no, nv), latency)
    } else {
        bench_text(&dut, &module, &vectors_file, ni, no, nv, latency)
    };
    Ok(Testbench { module, bench, vectors_file, vectors, n_vectors: nv })
}

/// Appends bits `n-1 .. 0` of `bit` as `ceil(n/4)` hex digits, most significant first.
fn push_hex(s: &mut String, n: usize, bit: impl Fn(usize) -> bool) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for d in (0..n.div_ceil(4)).rev() {
        let v = (0..4).filter(|&b| 4 * d + b < n && bit(4 * d + b)).fold(0, |v, b| v | 1 << b);
        s.push(char::from(DIGITS[v]));
    }
}

/// Writes [`testbench_with`]'s files into `dir` (atomically).
///
/// # Errors
/// [`TestbenchError`] as [`testbench_with`], or if a file cannot be written.
pub fn write_testbench(
    dir: &Path,
    n: &Netlist,
    inputs: &BitMatrix,
    latency: usize,
) -> Result<BenchFiles, TestbenchError> {
    write_testbench_with(dir, n, inputs, &BenchParams { latency, valid: false })
}

/// [`write_testbench`] for a module with the ports and timing of `p`.
///
/// # Errors
/// As [`write_testbench`].
pub fn write_testbench_with(
    dir: &Path,
    n: &Netlist,
    inputs: &BitMatrix,
    p: &BenchParams,
) -> Result<BenchFiles, TestbenchError> {
    let tb = testbench_with(n, inputs, p)?;
    let bench = dir.join(format!("{}.v", tb.module));
    let vectors = dir.join(&tb.vectors_file);
    for (path, text) in [(&bench, &tb.bench), (&vectors, &tb.vectors)] {
        write_atomic(path, text.as_bytes())
            .map_err(|source| TestbenchError::Io { path: path.display().to_string(), source })?;
    }
    Ok(BenchFiles { bench, vectors, module: tb.module, n_vectors: tb.n_vectors })
}

/// How a bench reads its plusargs `+step=K` and `+first=F` and counts the vectors
/// `F, F+K, F+2K, ...` below `NV` it checks.
const PLUSARGS: &str = r#"    if (!$value$plusargs("step=%d", step) || step < 1) step = 1;
    if (!$value$plusargs("first=%d", first) || first < 0) first = 0;
    checked = first < NV ? (NV - first + step - 1) / step : 0;
"#;

/// The comments, module line, sizes and vector memory every bench starts with.
fn bench_head(
    dut: &str,
    kind: &str,
    module: &str,
    file: &str,
    (ni, no, nv): (usize, usize, usize),
    latency: usize,
) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "// Self-checking testbench for module {dut}{kind}: {nv} vectors from the circuitlearn simulator."
    );
    let (xw, yw) = (4 * ni.div_ceil(4), 4 * no.div_ceil(4));
    let _ = writeln!(
        s,
        "// Each line of {file}, in hex: x[{}..0], '_', then the expected y[{}..0] (each padded to whole digits).",
        ni - 1,
        no - 1
    );
    let _ = writeln!(
        s,
        "// `vvp BENCH +step=K +first=F` checks vectors F, F+K, F+2K, ... only (default: all, F = 0, K = 1)."
    );
    let _ = writeln!(s, "`timescale 1ns / 1ps");
    let _ = writeln!(s, "module {module};");
    let _ =
        writeln!(s, "  localparam NI = {ni}, NO = {no}, NV = {nv}, LAT = {latency}, XW = {xw}, YW = {yw};");
    s.push_str("  reg [XW+YW-1:0] mem [0:NV-1];\n  reg [NI-1:0] x;\n  wire [NO-1:0] y;\n");
    s
}

fn bench_text(
    dut: &str,
    module: &str,
    file: &str,
    ni: usize,
    no: usize,
    nv: usize,
    latency: usize,
) -> String {
    let mut s = bench_head(dut, "", module, file, (ni, no, nv), latency);
    s.push_str("  integer j, k, first, step, checked, errors;\n");
    if latency == 0 {
        let _ = writeln!(s, "  {dut} dut (.x(x), .y(y));");
    } else {
        let _ = writeln!(s, "  reg clk;\n  {dut} dut (.clk(clk), .x(x), .y(y));");
    }
    let _ = writeln!(s, "  initial begin\n    $readmemh(\"{file}\", mem);\n    errors = 0;");
    s.push_str(PLUSARGS);
    if latency == 0 {
        s.push_str("    for (k = 0; k < checked; k = k + 1) begin\n");
        s.push_str("      x = mem[first + k * step][YW+NI-1:YW];\n      #1;\n      j = first + k * step;\n");
    } else {
        s.push_str("    clk = 0;\n    x = 0;\n");
        s.push_str("    for (k = 0; k < checked + LAT - 1; k = k + 1) begin\n");
        s.push_str(
            "      if (k < checked) x = mem[first + k * step][YW+NI-1:YW];\n      #1 clk = 1;\n      #1 clk = 0;\n",
        );
        s.push_str("      j = first + (k - (LAT - 1)) * step;\n");
    }
    let filled = if latency == 0 { "" } else { "k >= LAT - 1 && " };
    let _ = writeln!(s, "      if ({filled}y !== mem[j][NO-1:0]) begin\n        errors = errors + 1;");
    let _ = writeln!(s, "        if (errors <= {MAX_REPORTED})");
    s.push_str("          $display(\"MISMATCH vector %0d: x = %h, y = %b, expected %b\", j, mem[j][YW+NI-1:YW], y, mem[j][NO-1:0]);\n");
    s.push_str("      end\n    end\n");
    s.push_str("    if (errors != 0) $fatal(1, \"FAIL: %0d of %0d vectors mismatched\", errors, checked);\n");
    s.push_str("    $display(\"PASS: %0d vectors\", checked);\n    $finish;\n  end\nendmodule\n");
    s
}

/// The bench of a pipelined module with a clock enable and valid bits: inputs are
/// offered with `valid_in = 1` and advance on enabled edges; every third cycle has
/// `en = 0` (a stall, which must hold the pipeline); each enabled edge after which
/// `valid_out` is 1 delivers the next expected vector.
fn valid_bench_text(
    dut: &str,
    module: &str,
    file: &str,
    (ni, no, nv): (usize, usize, usize),
    latency: usize,
) -> String {
    let mut s = bench_head(dut, " (clock enable, valid in/out)", module, file, (ni, no, nv), latency);
    s.push_str("  reg clk, en, valid_in;\n  wire valid_out;\n");
    s.push_str("  integer j, k, first, step, checked, errors, seen, cycle;\n");
    let _ = writeln!(
        s,
        "  {dut} dut (.clk(clk), .en(en), .valid_in(valid_in), .x(x), .y(y), .valid_out(valid_out));"
    );
    let _ = writeln!(s, "  initial begin\n    $readmemh(\"{file}\", mem);\n    errors = 0;");
    s.push_str(PLUSARGS);
    s.push_str("    clk = 0;\n    x = 0;\n    k = 0;\n    seen = 0;\n");
    s.push_str(
        "    for (cycle = 0; seen < checked && cycle < 2 * (checked + LAT) + 8; cycle = cycle + 1) begin\n",
    );
    s.push_str("      en = (cycle % 3 != 2);\n      valid_in = (k < checked);\n");
    s.push_str(
        "      if (k < checked) x = mem[first + k * step][YW+NI-1:YW];\n      #1 clk = 1;\n      #1 clk = 0;\n",
    );
    s.push_str("      if (en) begin\n        if (k < checked) k = k + 1;\n        if (valid_out) begin\n");
    s.push_str("          j = first + seen * step;\n          seen = seen + 1;\n");
    s.push_str("          if (y !== mem[j][NO-1:0]) begin\n            errors = errors + 1;\n");
    let _ = writeln!(s, "            if (errors <= {MAX_REPORTED})");
    s.push_str("              $display(\"MISMATCH vector %0d: x = %h, y = %b, expected %b\", j, mem[j][YW+NI-1:YW], y, mem[j][NO-1:0]);\n");
    s.push_str("          end\n        end\n      end\n    end\n");
    s.push_str(
        "    if (seen != checked) $fatal(1, \"FAIL: %0d of %0d results came out valid\", seen, checked);\n",
    );
    s.push_str("    if (errors != 0) $fatal(1, \"FAIL: %0d of %0d vectors mismatched\", errors, checked);\n");
    s.push_str("    $display(\"PASS: %0d vectors\", checked);\n    $finish;\n  end\nendmodule\n");
    s
}

/// `count` input vectors over `n_inputs` bits: every combination, in order, if there
/// are at most `count`; otherwise `count` uniform random ones drawn from `seed`.
#[must_use]
pub fn random_inputs(n_inputs: usize, count: usize, seed: u64) -> BitMatrix {
    if n_inputs < usize::BITS as usize && 1usize << n_inputs <= count {
        let rows: Vec<Vec<bool>> =
            (0..1usize << n_inputs).map(|v| (0..n_inputs).map(|i| v >> i & 1 == 1).collect()).collect();
        return BitMatrix::from_examples(n_inputs, &rows);
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut m = BitMatrix::zeros(n_inputs, count);
    for r in 0..n_inputs {
        for w in m.row_mut(r) {
            *w = rng.random();
        }
        m.clear_tail(r);
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    fn testbench(n: &Netlist, inputs: &BitMatrix, latency: usize) -> Result<Testbench, TestbenchError> {
        testbench_with(n, inputs, &BenchParams { latency, valid: false })
    }
    use crate::circuit::CircuitBuilder;
    use crate::domain::{Bool, BoolBuild};

    #[test]
    fn golden_bench_and_vectors() -> Result<(), Box<dyn std::error::Error>> {
        let mut b = CircuitBuilder::<Bool>::new(0, 2);
        let (x0, x1) = (b.arg(0), b.arg(1));
        let y = b.and(x0, x1);
        let n = Netlist::indexed("g", b.finish(vec![y, x0])?);
        let tb = testbench(&n, &random_inputs(2, 100, 0), 0)?;
        assert_eq!(tb.vectors, "0_0\n1_2\n2_0\n3_3\n");
        assert_eq!((tb.module.as_str(), tb.vectors_file.as_str(), tb.n_vectors), ("g_tb", "g.mem", 4));
        let want = r#"// Self-checking testbench for module g: 4 vectors from the circuitlearn simulator.
// Each line of g.mem, in hex: x[1..0], '_', then the expected y[1..0] (each padded to whole digits).
// `vvp BENCH +step=K +first=F` checks vectors F, F+K, F+2K, ... only (default: all, F = 0, K = 1).
`timescale 1ns / 1ps
module g_tb;
  localparam NI = 2, NO = 2, NV = 4, LAT = 0, XW = 4, YW = 4;
  reg [XW+YW-1:0] mem [0:NV-1];
  reg [NI-1:0] x;
  wire [NO-1:0] y;
  integer j, k, first, step, checked, errors;
  g dut (.x(x), .y(y));
  initial begin
    $readmemh("g.mem", mem);
    errors = 0;
    if (!$value$plusargs("step=%d", step) || step < 1) step = 1;
    if (!$value$plusargs("first=%d", first) || first < 0) first = 0;
    checked = first < NV ? (NV - first + step - 1) / step : 0;
    for (k = 0; k < checked; k = k + 1) begin
      x = mem[first + k * step][YW+NI-1:YW];
      #1;
      j = first + k * step;
      if (y !== mem[j][NO-1:0]) begin
        errors = errors + 1;
        if (errors <= 10)
          $display("MISMATCH vector %0d: x = %h, y = %b, expected %b", j, mem[j][YW+NI-1:YW], y, mem[j][NO-1:0]);
      end
    end
    if (errors != 0) $fatal(1, "FAIL: %0d of %0d vectors mismatched", errors, checked);
    $display("PASS: %0d vectors", checked);
    $finish;
  end
endmodule
"#;
        assert_eq!(tb.bench, want);
        let piped = testbench(&n, &random_inputs(2, 4, 0), 2)?.bench;
        assert!(piped.contains("  reg clk;\n  g dut (.clk(clk), .x(x), .y(y));\n"));
        assert!(piped.contains("      j = first + (k - (LAT - 1)) * step;\n"));
        assert!(piped.contains("      if (k >= LAT - 1 && y !== mem[j][NO-1:0]) begin\n"));
        Ok(())
    }

    #[test]
    fn bad_shapes_are_refused() -> Result<(), Box<dyn std::error::Error>> {
        let b = CircuitBuilder::<Bool>::new(0, 2);
        let n = Netlist::indexed("g", b.finish(vec![])?);
        assert!(matches!(testbench(&n, &random_inputs(3, 4, 0), 0), Err(TestbenchError::Width { .. })));
        assert!(matches!(testbench(&n, &random_inputs(2, 4, 0), 0), Err(TestbenchError::Empty { .. })));
        Ok(())
    }

    #[test]
    fn random_inputs_are_exhaustive_when_they_can_be() {
        assert_eq!(random_inputs(3, 8, 0).examples(), 8);
        let r = random_inputs(40, 100, 7);
        assert_eq!((r.rows(), r.examples()), (40, 100));
        assert_eq!(r, random_inputs(40, 100, 7));
        let both = BitMatrix::concat_examples(&[&random_inputs(2, 4, 0), &random_inputs(2, 4, 0)]);
        assert_eq!(both.example(5), vec![true, false]);
    }
}

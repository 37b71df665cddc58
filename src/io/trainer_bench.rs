//! A testbench that trains a hardware trainer ([`super::verilog_trainer`]) in Icarus.
//!
//! Files (in one directory, the bench run from it):
//! - `<top>_tb.v`: the bench module `<top>_tb`;
//! - `<top>.train.mem`: one line per training example, `{label, x}` in binary, most
//!   significant bit first (`$readmemb`);
//! - `<top>.order.mem`: the example index of every step, hex, one per line
//!   (`$readmemh`): epoch after epoch, the order the Rust trainer visits them in; for a
//!   batched trainer bit 31 marks the last example of a batch (driven on `in_last`).
//!
//! The bench resets the trainer, reads `P_INIT` through the word-serial port, clears the
//! parameters through `p_load`/`p_in` and writes them back word by word (so both load
//! ports and the read port are exercised: a broken one trains from other parameters), streams every step's example with `learn` high through the
//! valid/ready handshake, writes the parameter register to `<top>.trained.mem` (one line,
//! `p[NP-1] .. p[0]`), then streams the training set once with `learn` low and prints
//! `ACCURACY: <correct> <n>` of the `predict` port and `DONE: <steps> steps`.

use super::atomic::write_atomic;
use super::verilog_trainer::{PARAM_WORD_BITS, TrainerDesign, param_words};
use crate::lanes::BitMatrix;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// A trainer bench that cannot be written or read back.
#[derive(Debug, Error)]
pub enum TrainerBenchError {
    /// A file cannot be written or read.
    #[error("{path}: {source}")]
    Io {
        /// File.
        path: String,
        /// Cause.
        source: std::io::Error,
    },
    /// The dumped parameters are not `NP` binary digits.
    #[error("{path}: expected {expected} binary digits on one line, found {found:?}")]
    Dump {
        /// File.
        path: String,
        /// Parameters expected.
        expected: usize,
        /// What the file held (cut short).
        found: String,
    },
    /// An order names an example that is not in the data, or there is nothing to stream.
    #[error("order step {step} names example {index}, the data have {examples}")]
    Order {
        /// Step.
        step: usize,
        /// Example index.
        index: usize,
        /// Examples.
        examples: usize,
    },
}

/// The files of a trainer bench.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrainerBenchFiles {
    /// `<top>_tb.v`.
    pub bench: PathBuf,
    /// Bench module name.
    pub module: String,
    /// `<top>.train.mem`.
    pub train: PathBuf,
    /// `<top>.order.mem`.
    pub order: PathBuf,
    /// `<top>.trained.mem`, written by the bench.
    pub trained: PathBuf,
    /// Steps streamed with `learn` high.
    pub steps: usize,
}

/// Writes the bench of `design` into `dir`: the examples `x` (one row per input bit)
/// with `labels`, visited in `order` (every epoch's order of all the examples,
/// concatenated); a batched design gets batches of `batch` examples, each epoch's last
/// one possibly shorter (as the Rust trainer chunks an epoch).
///
/// # Errors
/// [`TrainerBenchError::Order`] for an index past the examples; `Io` if a file cannot be
/// written.
pub fn write_trainer_bench(
    dir: &Path,
    design: &TrainerDesign,
    x: &BitMatrix,
    labels: &[u32],
    order: &[usize],
    batch: usize,
) -> Result<TrainerBenchFiles, TrainerBenchError> {
    let n = labels.len();
    if let Some((step, &index)) = order.iter().enumerate().find(|(_, i)| **i >= n) {
        return Err(TrainerBenchError::Order { step, index, examples: n });
    }
    let top = &design.top;
    let files = TrainerBenchFiles {
        bench: dir.join(format!("{top}_tb.v")),
        module: format!("{top}_tb"),
        train: dir.join(format!("{top}.train.mem")),
        order: dir.join(format!("{top}.order.mem")),
        trained: dir.join(format!("{top}.trained.mem")),
        steps: order.len(),
    };
    let mut train = String::with_capacity(n * (design.n_x + design.n_label + 1));
    for (e, &l) in labels.iter().enumerate() {
        for k in (0..design.n_label).rev() {
            train.push(if l >> k & 1 == 1 { '1' } else { '0' });
        }
        let bits = x.example(e);
        for i in (0..design.n_x).rev() {
            train.push(if bits[i] { '1' } else { '0' });
        }
        train.push('\n');
    }
    let mut ord = String::with_capacity(order.len() * 6);
    let batch = batch.max(1);
    for (k, &i) in order.iter().enumerate() {
        let at = k % n.max(1);
        let last = design.batched && ((at + 1).is_multiple_of(batch) || at + 1 == n);
        let _ = writeln!(ord, "{:x}", i | usize::from(last) << 31);
    }
    let io = |p: &Path| {
        let path = p.display().to_string();
        move |source| TrainerBenchError::Io { path, source }
    };
    write_atomic(&files.train, train.as_bytes()).map_err(io(&files.train))?;
    write_atomic(&files.order, ord.as_bytes()).map_err(io(&files.order))?;
    let text = bench_text(design, n, order.len());
    write_atomic(&files.bench, text.as_bytes()).map_err(io(&files.bench))?;
    Ok(files)
}

fn bench_text(d: &TrainerDesign, n: usize, steps: usize) -> String {
    let (top, nx, nl, np, ni) = (&d.top, d.n_x, d.n_label, d.n_params, d.n_index);
    let last_port = if d.batched { " .in_last(in_last)," } else { "" };
    let (pw, (nw, aw)) = (PARAM_WORD_BITS, param_words(np));
    let mut s = String::new();
    let _ = write!(
        s,
        "// Generated by circuitlearn: trains {top} on {n} examples for {steps} steps.
`timescale 1ns/1ps
module {top}_tb;
  localparam NX = {nx}, NL = {nl}, NP = {np}, NI = {ni}, N = {n}, STEPS = {steps};
  localparam PW = {pw}, NW = {nw}, AW = {aw};
  reg clk = 1'b0;
  always #5 clk = ~clk;
  reg rst = 1'b1, in_valid = 1'b0, in_last = 1'b0, learn = 1'b0, p_load = 1'b0;
  reg [NX-1:0] in_x = {{NX{{1'b0}}}};
  reg [NL-1:0] in_y = {{NL{{1'b0}}}};
  reg [NP-1:0] p_in = {{NP{{1'b0}}}};
  reg pw_we = 1'b0;
  reg [AW-1:0] pw_addr = {{AW{{1'b0}}}};
  reg [PW-1:0] pw_in = {{PW{{1'b0}}}};
  wire [PW-1:0] pw_out;
  reg [NW*PW-1:0] saved;
  wire in_ready;
  wire [NP-1:0] p_out;
  wire [NI-1:0] predict;
  reg [NL+NX-1:0] data [0:N-1];
  reg [31:0] order [0:(STEPS > 0 ? STEPS : 1)-1];
  integer k, w, f, correct;
  {top} dut (.clk(clk), .rst(rst), .in_valid(in_valid), .in_ready(in_ready), .in_x(in_x),
    .in_y(in_y),{last_port} .learn(learn), .p_load(p_load), .p_in(p_in), .p_out(p_out),
    .pw_we(pw_we), .pw_addr(pw_addr), .pw_in(pw_in), .pw_out(pw_out), .predict(predict));
  // Offers one example and waits for the edge that takes it.
  task offer(input [NL+NX-1:0] ex, input last);
    begin
      {{in_y, in_x}} <= ex;
      in_last <= last;
      in_valid <= 1'b1;
      @(negedge clk);
      while (!in_ready) @(negedge clk);
      @(posedge clk);
    end
  endtask
  initial begin
    $readmemb(\"{top}.train.mem\", data);
    if (STEPS > 0) $readmemh(\"{top}.order.mem\", order);
    @(posedge clk);
    @(posedge clk);
    rst <= 1'b0;
    // Read P_INIT word by word, clear p through p_load, write the words back.
    for (w = 0; w < NW; w = w + 1) begin
      pw_addr = w;
      #1 saved[w*PW +: PW] = pw_out;
    end
    @(posedge clk);
    p_in <= {{NP{{1'b0}}}};
    p_load <= 1'b1;
    @(posedge clk);
    p_load <= 1'b0;
    pw_we <= 1'b1;
    for (w = 0; w < NW; w = w + 1) begin
      pw_addr <= w;
      pw_in <= saved[w*PW +: PW];
      @(posedge clk);
    end
    pw_we <= 1'b0;
    learn <= 1'b1;
    for (k = 0; k < STEPS; k = k + 1) offer(data[order[k][30:0]], order[k][31]);
    in_valid <= 1'b0;
    learn <= 1'b0;
    @(posedge clk);
    f = $fopen(\"{top}.trained.mem\", \"w\");
    $fdisplay(f, \"%b\", p_out);
    $fclose(f);
    correct = 0;
    for (k = 0; k < N; k = k + 1) begin
      {{in_y, in_x}} = data[k];
      #1;
      if (predict == in_y) correct = correct + 1;
    end
    $display(\"ACCURACY: %0d %0d\", correct, N);
    $display(\"DONE: %0d steps\", STEPS);
    $finish;
  end
endmodule
"
    );
    s
}

/// Reads the parameters the bench dumped (`p[NP-1] .. p[0]` on one line).
///
/// # Errors
/// [`TrainerBenchError::Io`] if the file cannot be read, `Dump` if it is not `n_params`
/// binary digits (an `x` or `z` in it included).
pub fn read_trained(path: &Path, n_params: usize) -> Result<Vec<bool>, TrainerBenchError> {
    let text = std::fs::read_to_string(path)
        .map_err(|source| TrainerBenchError::Io { path: path.display().to_string(), source })?;
    let line = text.trim();
    let bad = || TrainerBenchError::Dump {
        path: path.display().to_string(),
        expected: n_params,
        found: line.chars().take(40).collect(),
    };
    if line.len() != n_params {
        return Err(bad());
    }
    line.bytes()
        .rev()
        .map(|b| match b {
            b'0' => Ok(false),
            b'1' => Ok(true),
            _ => Err(bad()),
        })
        .collect()
}

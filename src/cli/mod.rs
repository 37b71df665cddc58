//! The `circuitlearn` command line: one file per subcommand, a shared error-to-exit-code
//! policy (2 for bad input, 1 for a failed check or an I/O failure).

mod bench;
mod cec;
mod common;
mod eval;
mod export;
mod iwls;
mod iwls_mpi;
mod map;
mod opt;
mod plot;
mod repro;
mod repro_mnist;
mod repro_ring;
mod results;
mod ring;
mod sweep;
mod train;
mod trainer_hw;
mod verify;

use clap::{Parser, Subcommand};

/// Learn circuits from data with reverse derivative ascent.
#[derive(Debug, Parser)]
#[command(name = "circuitlearn", version, about)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Train a model (with no arguments: a small LUT network on the embedded Iris data).
    Train(Box<train::TrainArgs>),
    /// Evaluate a saved model on a data set.
    Eval(eval::EvalArgs),
    /// Reproduce a published experiment.
    Repro(repro::ReproArgs),
    /// Export a model or a circuit file as Verilog, BLIF, AIGER or DOT (with a testbench).
    Export(export::ExportArgs),
    /// Check a model's exports with Icarus, Yosys and ABC.
    Verify(verify::VerifyArgs),
    /// Optimise any circuit file with a pass script.
    Opt(opt::OptArgs),
    /// Map a circuit or a complete function onto K-input LUTs (BLIF or Verilog LUT netlist).
    Map(map::MapArgs),
    /// Combinational equivalence of two circuit files (exit 0 equivalent, 1 not, 3 undecided).
    Cec(cec::CecArgs),
    /// Throughput figures of this machine.
    Bench(bench::BenchArgs),
    /// Plot test accuracy against AND nodes for training runs or `.tsv` tables of points (SVG).
    Plot(plot::PlotArgs),
    /// IWLS 2020 learning task: fit, select on the validation split, write AIGER.
    Iwls(iwls::IwlsArgs),
    /// Run `iwls` on every benchmark of a folder (resumable), writing results.tsv.
    IwlsSuite(iwls::IwlsSuiteArgs),
    /// Train every point of a grid of configs (resumable; over the ranks under mpirun), writing results.tsv.
    Sweep(sweep::SweepArgs),
}

/// Runs the parsed command line.
///
/// # Errors
/// Whatever the subcommand reports; [`exit_code`] classifies it.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    // The environment is an option too: checked before any work.
    crate::lanes::SimdLevel::requested().map_err(common::UsageError)?;
    match cli.command {
        Command::Train(a) => train::run(&a),
        Command::Eval(a) => eval::run(&a),
        Command::Repro(a) => repro::run(&a),
        Command::Export(a) => export::run(&a),
        Command::Verify(a) => verify::run(&a),
        Command::Opt(a) => opt::run(&a),
        Command::Map(a) => map::run(&a),
        Command::Cec(a) => cec::run(&a),
        Command::Bench(a) => bench::run(&a),
        Command::Plot(a) => plot::run(&a),
        Command::Iwls(a) => iwls::run(&a),
        Command::IwlsSuite(a) => iwls::run_suite(&a),
        Command::Sweep(a) => sweep::run(&a),
    }
}

pub use common::{error_line, exit_code};
pub use repro::numeric_optics_iris_accuracies as repro_numeric_optics_iris;
pub use repro::polycirc_iris_accuracy as repro_polycirc_iris;

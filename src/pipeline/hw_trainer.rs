//! The hardware trainer against the Rust trainer: train a [`Network`] with the Rust
//! [`Trainer`] and with its Verilog trainer ([`crate::io::verilog_trainer`]) in Icarus,
//! from the same initial parameters, on the same examples in the same order, and
//! compare the trained parameters bit for bit (`verify --trainer`).
//!
//! The order is the one the Rust trainer drew (each epoch's shuffle from the seed, or file
//! order), recorded epoch by epoch and streamed to the hardware as it is. When the Rust
//! run stops early (perfect on the training set, or an epoch with no flip), the hardware
//! streams the epochs the Rust run took.

use crate::io::trainer_bench::{TrainerBenchError, TrainerBenchFiles, read_trained, write_trainer_bench};
use crate::io::verilog_trainer::{TrainerDesign, trainer_verilog};
use crate::io::verilog_trainer_votes::trainer_votes_verilog;
use crate::io::write_atomic;
use crate::lanes::BitMatrix;
use crate::learn::Network;
use crate::learn::head::accuracy;
use crate::learn::predict::predict;
use crate::tools::{Tool, ToolError, ToolLimits};
use crate::train::{HwVoteParams, Init, RdaRule, RdaVariant, StopReason, Trainer};
use serde::Serialize;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The rule both trainers run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum HwMode {
    /// Faithful RDA, one example per clock ([`RdaVariant::Faithful`]).
    Faithful,
    /// Hardware-exact batched votes ([`RdaVariant::HwVotes`]).
    Votes(HwVoteParams),
}

impl HwMode {
    /// The Rust trainer's variant.
    #[must_use]
    pub fn variant(&self) -> RdaVariant {
        match self {
            HwMode::Faithful => RdaVariant::Faithful,
            HwMode::Votes(v) => RdaVariant::HwVotes(*v),
        }
    }

    /// The hardware trainer of `net` in this mode, its parameters reset to `init`.
    #[must_use]
    pub fn design(&self, name: &str, net: &Network, init: &[bool]) -> TrainerDesign {
        match self {
            HwMode::Faithful => trainer_verilog(name, net, init),
            HwMode::Votes(v) => trainer_votes_verilog(name, net, init, v),
        }
    }
}

/// How both trainers run.
#[derive(Clone, Debug, PartialEq)]
pub struct HwTrainParams {
    /// The rule.
    pub mode: HwMode,
    /// Examples per batch (the vote rule; faithful RDA has none).
    pub batch: usize,
    /// Epochs (the Rust run may stop earlier; the hardware then streams as many).
    pub epochs: usize,
    /// Seed of the Rust trainer's generator (the shuffles).
    pub seed: u64,
    /// A fresh random order every epoch (`true`) or file order.
    pub shuffle: bool,
    /// Bound of each tool run (`iverilog`, `vvp`).
    pub limits: ToolLimits,
}

impl Default for HwTrainParams {
    fn default() -> Self {
        Self {
            mode: HwMode::Faithful,
            batch: 32,
            epochs: 3,
            seed: 0,
            shuffle: true,
            limits: ToolLimits::default(),
        }
    }
}

/// What the Rust trainer did.
#[derive(Clone, Debug, PartialEq)]
pub struct RustRun {
    /// The trained parameters.
    pub params: Vec<bool>,
    /// The order of every epoch it ran.
    pub orders: Vec<Vec<usize>>,
    /// Why it stopped.
    pub stop: StopReason,
    /// Flips over the run.
    pub flips: u64,
}

/// Trains `net` from `init` on `x` / `labels` in the Rust trainer, in `p.mode`.
///
/// # Panics
/// If `x` does not fit the network or `init` has the wrong length (callers check).
#[must_use]
pub fn rust_run(net: &Network, init: &[bool], x: &BitMatrix, labels: &[u32], p: &HwTrainParams) -> RustRun {
    let mut rule = RdaRule::new(net, x, labels, p.mode.variant())
        .init(Init::Given(init.to_vec()))
        .shuffle(p.shuffle)
        .batch(p.batch);
    let mut orders = Vec::new();
    let trainer = Trainer::new().epochs(p.epochs).seed(p.seed);
    let report = trainer
        .run(&mut rule, None, |end| {
            orders.push(end.checkpoint().order.iter().map(|&i| i as usize).collect());
        })
        .expect("a fresh start has no checkpoint to mismatch");
    let flips = report.history.iter().map(|e| e.flips).sum();
    RustRun { params: rule.into_params(), orders, stop: report.stop, flips }
}

/// Why the comparison could not be made (a mismatch is a result, not an error).
#[derive(Debug, Error)]
pub enum HwTrainError {
    /// The bench could not be written or its dump read.
    #[error(transparent)]
    Bench(#[from] TrainerBenchError),
    /// Icarus is missing, failed or timed out.
    #[error(transparent)]
    Tool(#[from] ToolError),
    /// The design file could not be written.
    #[error("{path}: {source}")]
    Io {
        /// File.
        path: String,
        /// Cause.
        source: std::io::Error,
    },
    /// The simulation ended without the bench's summary lines.
    #[error("the trainer bench printed no ACCURACY/DONE lines; see {}", log.display())]
    NoSummary {
        /// The simulation log.
        log: PathBuf,
    },
}

/// The outcome of [`check_trainer`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HwTrainCheck {
    /// `pass` (equal bit for bit) or `fail`.
    pub result: String,
    /// Epochs both ran.
    pub epochs: usize,
    /// Examples streamed with learning on.
    pub steps: usize,
    /// Parameters.
    pub params: usize,
    /// Parameters flipped over the run (Rust).
    pub flips: u64,
    /// Parameters whose trained value differs.
    pub differing: usize,
    /// The first differing parameter indices (at most 10).
    pub first_differing: Vec<usize>,
    /// Training-set examples the hardware's `predict` port classifies correctly after
    /// training.
    pub hw_correct: usize,
    /// The same count from the Rust model with the Rust-trained parameters.
    pub rust_correct: usize,
    /// Training examples.
    pub examples: usize,
    /// Why the Rust run stopped.
    pub stop: String,
    /// The Verilog design simulated.
    pub design: PathBuf,
    /// The bench.
    pub bench: PathBuf,
    /// The simulation log.
    pub log: PathBuf,
}

impl HwTrainCheck {
    /// Whether the trained parameters and the predictions agree.
    #[must_use]
    pub fn passed(&self) -> bool {
        self.result == "pass"
    }
}

/// Writes `design` (as `dir/<top>.v`) and its bench into `dir`, trains in Icarus on the
/// Rust run's orders (in batches of `batch` for a batched design), and compares the trained parameters and the predictions on the
/// training set with the Rust run.
///
/// # Errors
/// [`HwTrainError`] if files cannot be written, Icarus fails, or the bench prints no
/// summary. A mismatch is an `Ok` with `result` `fail`.
pub fn check_trainer(
    dir: &Path,
    design: &TrainerDesign,
    net: &Network,
    x: &BitMatrix,
    labels: &[u32],
    rust: &RustRun,
    (batch, limits): (usize, &ToolLimits),
) -> Result<HwTrainCheck, HwTrainError> {
    let order: Vec<usize> = rust.orders.concat();
    let design_file = dir.join(format!("{}.v", design.top));
    write_atomic(&design_file, design.text.as_bytes())
        .map_err(|source| HwTrainError::Io { path: design_file.display().to_string(), source })?;
    let files = write_trainer_bench(dir, design, x, labels, &order, batch)?;
    let log = run_bench(dir, &files, &design_file, limits)?;
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    let summary = text.lines().find_map(|l| {
        let mut w = l.trim().strip_prefix("ACCURACY: ")?.split_whitespace();
        Some((w.next()?.parse::<usize>().ok()?, w.next()?.parse::<usize>().ok()?))
    });
    let Some((hw_correct, _)) = summary.filter(|_| text.contains("DONE: ")) else {
        return Err(HwTrainError::NoSummary { log });
    };
    let hw = read_trained(&files.trained, design.n_params)?;
    let diff: Vec<usize> = (0..hw.len()).filter(|&i| hw[i] != rust.params[i]).collect();
    let rust_pred = predict(net, &rust.params, x);
    let rust_correct = (accuracy(&rust_pred, labels) * labels.len() as f64).round() as usize;
    let ok = diff.is_empty() && hw_correct == rust_correct;
    Ok(HwTrainCheck {
        result: if ok { "pass" } else { "fail" }.into(),
        epochs: rust.orders.len(),
        steps: files.steps,
        params: design.n_params,
        flips: rust.flips,
        differing: diff.len(),
        first_differing: diff.iter().copied().take(10).collect(),
        hw_correct,
        rust_correct,
        examples: labels.len(),
        stop: rust.stop.to_string(),
        design: design_file,
        bench: files.bench,
        log,
    })
}

/// Compiles and runs the bench; returns the simulation log.
fn run_bench(
    dir: &Path,
    files: &TrainerBenchFiles,
    design: &Path,
    limits: &ToolLimits,
) -> Result<PathBuf, HwTrainError> {
    let vvp = dir.join(format!("{}.vvp", files.module));
    let _ = std::fs::remove_file(&vvp);
    let _ = std::fs::remove_file(&files.trained);
    let abs = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let args: Vec<std::ffi::OsString> = vec![
        "-g2005".into(),
        "-s".into(),
        files.module.clone().into(),
        "-o".into(),
        abs(&vvp).into_os_string(),
        abs(&files.bench).into_os_string(),
        abs(design).into_os_string(),
    ];
    Tool::Iverilog.run_ok_limited(&args, dir, &dir.join(format!("{}.iverilog.log", files.module)), limits)?;
    let log = dir.join(format!("{}.vvp.log", files.module));
    Tool::Vvp.run_ok_limited(&["-n".as_ref(), abs(&vvp).as_os_str()], dir, &log, limits)?;
    Ok(log)
}

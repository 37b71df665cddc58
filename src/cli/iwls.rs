//! `circuitlearn iwls` and `iwls-suite`: the IWLS 2020 "learning from examples" task —
//! fit a circuit to a PLA training split and write an AIGER file within an AND-node
//! budget. The portfolio ([`crate::learn::portfolio`]) is scored by k-fold
//! cross-validation over train+valid and the chosen configuration refitted on both
//! ([`crate::pipeline::iwls`]); `--folds 0` selects on valid instead. RDA-trained LUT
//! networks left the portfolio: they won no benchmark within 5,000 ANDs
//! (BENCHMARKS.md).

use super::common::{UsageError, check_output_folder, check_outputs, progress};
use super::results::ResultsTable;
use crate::aig::Aig;
use crate::data::{self, Dataset, Features};
use crate::io::aiger::{AigerFormat, netlist_to_aiger};
use crate::io::{Netlist, write_atomic};
use crate::lanes::BitMatrix;
use crate::learn::portfolio::{FAMILY_NAMES, Family};
use crate::pipeline::iwls::{IwlsParams, select};
use anyhow::Context;
use clap::Args;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Selection options shared by `iwls` and `iwls-suite`.
#[derive(Debug, Args)]
pub struct SelectArgs {
    /// AND-node budget.
    #[arg(long, default_value_t = 5000)]
    pub max_and: usize,
    /// Cross-validation folds over train+valid to choose the model, which is then
    /// refitted on both; 0 chooses on the validation split and keeps the train-only fit.
    #[arg(long, default_value_t = 4)]
    pub folds: usize,
    /// Seed of the fold shuffle.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Model families to score (comma-separated): symmetric, threshold, threshold-xor,
    /// trees, trees-xor, c45, c45-xor, trees-xor-and, c45-xor-and, bagged, word-arith
    /// [default: all].
    #[arg(long, value_delimiter = ',')]
    pub families: Vec<String>,
    /// Time budget, seconds, of the final script (resyn2, fraig) on the chosen AIG, passes
    /// admitted by estimated cost as in `train --synth-budget`; it keeps the result only
    /// when smaller.
    #[arg(long, value_name = "S", default_value_t = 30.0)]
    pub synth_budget: f64,
}

impl SelectArgs {
    fn params(&self) -> anyhow::Result<IwlsParams> {
        if self.folds == 1 {
            return Err(UsageError(
                "--folds: 1 fold leaves nothing to train on (use 0 or at least 2)".into(),
            )
            .into());
        }
        let families = if self.families.is_empty() {
            None
        } else {
            let f: Option<Vec<Family>> = self.families.iter().map(|n| Family::from_name(n)).collect();
            let names: Vec<&str> = FAMILY_NAMES.iter().map(|(n, _)| *n).collect();
            Some(f.ok_or_else(|| UsageError(format!("--families: expected some of {}", names.join(", "))))?)
        };
        let synth_budget = super::common::budget_seconds("--synth-budget", self.synth_budget)?;
        Ok(IwlsParams {
            synth_budget,
            max_and: self.max_and,
            folds: self.folds,
            seed: self.seed,
            families,
            ..IwlsParams::default()
        })
    }
}

/// Arguments of `iwls`.
#[derive(Debug, Args)]
pub struct IwlsArgs {
    /// Training split (`exNN.train.pla[.gz]`).
    #[arg(long)]
    pub train: PathBuf,
    /// Validation split (`exNN.valid.pla[.gz]`).
    #[arg(long)]
    pub valid: PathBuf,
    /// Output AIGER file.
    #[arg(short, long, visible_alias = "out")]
    pub output: PathBuf,
    /// How candidates are scored.
    #[command(flatten)]
    pub select: SelectArgs,
    /// Print the result as one JSON line.
    #[arg(long)]
    pub json: bool,
    /// Most memory the data may take once parsed and encoded (e.g. 4G, 512M) [default:
    /// what the machine has available]; larger data are refused before they are loaded.
    #[arg(long, value_name = "SIZE")]
    pub max_memory: Option<crate::data::MemoryLimit>,
    /// Write even when the output is one of the input files (replacing it).
    #[arg(long)]
    pub force: bool,
}

/// What one benchmark produced.
#[derive(Clone, Debug, Serialize)]
pub struct IwlsResult {
    /// Benchmark name (file stem before `.train`).
    pub name: String,
    /// Input bits.
    pub inputs: usize,
    /// Cross-validation accuracy over train+valid of the chosen configuration (none with
    /// `--folds 0`).
    pub cv_accuracy: Option<f64>,
    /// Validation accuracy of the chosen configuration fitted on train alone.
    pub valid_accuracy: f64,
    /// Accuracy of the written AIG on the validation split (what ABC `&mltest` reports;
    /// a training figure once the model is refitted on train+valid).
    pub aig_valid_accuracy: f64,
    /// AND nodes of the written AIG.
    pub and_nodes: usize,
    /// AND nodes of the chosen AIG before the final script (`--synth-budget`).
    pub and_nodes_before_final: usize,
    /// What the final script did within its budget.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub synthesis: Option<crate::pass::BudgetReport>,
    /// The chosen candidate.
    pub model: String,
    /// Wall-clock seconds.
    pub seconds: f64,
}

fn bits_and_labels(ds: &Dataset, path: &Path) -> anyhow::Result<(BitMatrix, BitMatrix)> {
    let Features::Bits(x) = &ds.features else {
        return Err(UsageError(format!("{}: expected a PLA file", path.display())).into());
    };
    if ds.n_classes() != 2 {
        return Err(UsageError(format!("{}: IWLS benchmarks have one output", path.display())).into());
    }
    let mut y = BitMatrix::zeros(1, ds.n_examples());
    for (e, &l) in ds.labels.iter().enumerate() {
        y.set(0, e, l == 1);
    }
    Ok((x.clone(), y))
}

/// Fits, selects and returns the best AIG for one benchmark.
///
/// # Errors
/// Unreadable or non-PLA input, or mismatched widths.
pub fn solve(
    train: &Path,
    valid: &Path,
    params: &IwlsParams,
    memory: Option<data::MemoryLimit>,
) -> anyhow::Result<(Aig, IwlsResult)> {
    let t0 = Instant::now();
    let load = |p: &Path| {
        data::load_dataset_within(&p.to_string_lossy(), &memory.unwrap_or_else(data::MemoryLimit::available))
    };
    let (dt, dv) = (load(train)?, load(valid)?);
    let (xt, yt) = bits_and_labels(&dt, train)?;
    let (xv, yv) = bits_and_labels(&dv, valid)?;
    if xt.rows() != xv.rows() {
        return Err(UsageError(format!(
            "{} has {} inputs, {} has {}",
            train.display(),
            xt.rows(),
            valid.display(),
            xv.rows()
        ))
        .into());
    }
    let sel = select((&xt, &yt), (&xv, &yv), params)?;
    let name = train
        .file_name()
        .map(|f| f.to_string_lossy().split('.').next().unwrap_or("circuit").to_string())
        .unwrap_or_else(|| "circuit".into());
    let result = IwlsResult {
        name,
        inputs: xt.rows(),
        cv_accuracy: sel.cv_accuracy,
        valid_accuracy: sel.valid_accuracy,
        aig_valid_accuracy: sel.aig_valid_accuracy,
        and_nodes: sel.aig.n_ands(),
        and_nodes_before_final: sel.ands_before_final,
        synthesis: sel.synthesis,
        model: sel.model,
        seconds: t0.elapsed().as_secs_f64(),
    };
    Ok((sel.aig, result))
}

fn write_aig(aig: &Aig, name: &str, path: &Path) -> anyhow::Result<()> {
    let net = Netlist::indexed(&crate::io::verilog::module_name(name), aig.to_circuit());
    write_atomic(path, &netlist_to_aiger(&net, AigerFormat::Binary))
        .with_context(|| format!("writing {}", path.display()))
}

/// Runs `iwls`.
///
/// # Errors
/// Bad input (exit 2) or an unwritable output (exit 1).
pub fn run(a: &IwlsArgs) -> anyhow::Result<()> {
    check_outputs(&[&a.output], &[&a.train, &a.valid], Some(a.force))?;
    let (aig, r) = solve(&a.train, &a.valid, &a.select.params()?, a.max_memory)?;
    write_aig(&aig, &r.name, &a.output)?;
    if a.json {
        println!("{}", serde_json::to_string(&r)?);
    } else {
        let cv = r.cv_accuracy.map_or(String::new(), |c| format!("cross-validation {c:.4}, "));
        println!(
            "{}: {cv}valid accuracy {:.4} (train-only fit), {} ANDs ({}), {:.1}s -> {}",
            r.name,
            r.valid_accuracy,
            r.and_nodes,
            r.model,
            r.seconds,
            a.output.display()
        );
    }
    Ok(())
}

/// Arguments of `iwls-suite`.
#[derive(Debug, Args)]
pub struct IwlsSuiteArgs {
    /// Folder with `exNN.train.pla[.gz]` and `exNN.valid.pla[.gz]`.
    pub dir: PathBuf,
    /// Output folder: one `exNN.aig` per benchmark and `results.tsv`.
    #[arg(short, long, visible_alias = "output")]
    pub out: PathBuf,
    /// Most memory the data may take once parsed and encoded (e.g. 4G, 512M) [default:
    /// what the machine has available]; larger data are refused before they are loaded.
    #[arg(long, value_name = "SIZE")]
    pub max_memory: Option<crate::data::MemoryLimit>,
    /// How candidates are scored.
    #[command(flatten)]
    pub select: SelectArgs,
    /// Only these benchmarks (comma-separated stems, e.g. `ex20,ex30`).
    #[arg(long, value_delimiter = ',')]
    pub only: Vec<String>,
}

/// Runs `iwls-suite`: every benchmark of the folder, skipping those already in
/// `results.tsv` with their `.aig` present (resumable).
///
/// # Errors
/// An unreadable folder, a bad benchmark file, or an unwritable output.
pub fn run_suite(a: &IwlsSuiteArgs) -> anyhow::Result<()> {
    let mut names: Vec<String> = std::fs::read_dir(&a.dir)
        .with_context(|| format!("reading {}", a.dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .filter_map(|f| f.split_once(".train.pla").map(|(n, _)| n.to_string()))
        .collect();
    names.sort();
    names.dedup();
    if !a.only.is_empty() {
        if let Some(missing) = a.only.iter().find(|o| !names.contains(o)) {
            return Err(
                UsageError(format!("--only: no {missing}.train.pla[.gz] in {}", a.dir.display())).into()
            );
        }
        names.retain(|n| a.only.contains(n));
    }
    if names.is_empty() {
        return Err(UsageError(format!("{}: no *.train.pla[.gz] files", a.dir.display())).into());
    }
    check_output_folder(&format!("--out {}", a.out.display()), &a.out)?;
    std::fs::create_dir_all(&a.out).with_context(|| format!("creating {}", a.out.display()))?;
    let tsv = a.out.join("results.tsv");
    let header = "ex\tinputs\tcv_accuracy\tvalid_accuracy\taig_valid_accuracy\tand_nodes\tseconds\tmodel";
    // Rows of an earlier run with the same columns are kept (resuming); others are redone.
    let mut table = ResultsTable::open(&tsv, header);
    let params = a.select.params()?;
    let find = |stem: &str, suffix: &str| -> Option<PathBuf> {
        [format!("{stem}.{suffix}.pla"), format!("{stem}.{suffix}.pla.gz")]
            .into_iter()
            .map(|f| a.dir.join(f))
            .find(|p| p.exists())
    };
    if crate::dist::comm_world().size() > 1 {
        return super::iwls_mpi::run_suite_over_ranks(a, &params, &names, table);
    }
    let bar = progress(names.len() as u64, false, "iwls");
    for name in &names {
        bar.set_message(name.clone());
        let aig_path = a.out.join(format!("{name}.aig"));
        if table.has(name) && aig_path.exists() {
            bar.inc(1);
            continue;
        }
        let (Some(train), Some(valid)) = (find(name, "train"), find(name, "valid")) else {
            return Err(UsageError(format!(
                "{}: {name} needs both a train and a valid file",
                a.dir.display()
            ))
            .into());
        };
        let (aig, r) = solve(&train, &valid, &params, a.max_memory)?;
        write_aig(&aig, name, &aig_path)?;
        let cv = r.cv_accuracy.map_or("-".to_string(), |c| format!("{c:.6}"));
        bar.set_message(format!(
            "{name}: cv {cv}, valid {:.4}, {} ANDs, {:.1}s, {}",
            r.valid_accuracy, r.and_nodes, r.seconds, r.model
        ));
        table.put(result_row(name, &r)).map_err(anyhow::Error::msg)?;
        bar.inc(1);
    }
    bar.finish_and_clear();
    print_suite_summary(table.rows(), &tsv, "");
    Ok(())
}

/// A benchmark's line of `results.tsv` (the columns of the suite's header).
pub(super) fn result_row(name: &str, r: &IwlsResult) -> String {
    let cv = r.cv_accuracy.map_or("-".to_string(), |c| format!("{c:.6}"));
    format!(
        "{name}\t{}\t{cv}\t{:.6}\t{:.6}\t{}\t{:.2}\t{}",
        r.inputs, r.valid_accuracy, r.aig_valid_accuracy, r.and_nodes, r.seconds, r.model
    )
}

/// The suite's closing line: benchmarks, mean cross-validation and valid accuracy.
pub(super) fn print_suite_summary(rows: &[String], tsv: &Path, how: &str) {
    let mean = |col: usize| {
        let v: Vec<f64> = rows.iter().filter_map(|r| r.split('\t').nth(col)?.parse().ok()).collect();
        (v.iter().sum::<f64>() / v.len().max(1) as f64, v.len())
    };
    let ((cv, n_cv), (valid, n)) = (mean(2), mean(3));
    let cv = if n_cv == n { format!("mean cross-validation accuracy {cv:.4}, ") } else { String::new() };
    println!(
        "{n} benchmarks, {cv}mean valid accuracy {valid:.4} (train-only fits{how}); wrote {}",
        tsv.display()
    );
}

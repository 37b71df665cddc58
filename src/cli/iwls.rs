//! `circuitlearn iwls` and `iwls-suite`: the IWLS 2020 "learning from examples" task —
//! fit a circuit to a PLA training split, choose among candidates on the validation
//! split, and write an AIGER file within an AND-node budget.
//!
//! Portfolio (this version): decision trees of several depths and leaf sizes compiled to
//! multiplexers, over the inputs and (up to 64 inputs) also over the XOR of every input
//! pair (sum bits and parities become one test); a symmetric-function model (a table over
//! the input popcount); threshold functions with rounded logistic-regression weights,
//! alone (comparators, carries) and XORed with the pair of inputs found by a Fourier
//! screen (sum bits of adders); majority votes of bagged trees (noisy data); and the
//! constant majority; every candidate is lowered to an AIG,
//! optimised with `strash,fraig,balance` and kept only within `--max-and`. The chosen
//! one maximises validation accuracy (fewer ANDs on ties). No retraining on the
//! validation split, so the reported accuracy is an honest held-out figure.

use super::common::{UsageError, progress, refuse_overwriting_inputs};
use crate::aig::Aig;
use crate::circuit::{Circuit, CircuitBuilder};
use crate::data::{self, Dataset, Features};
use crate::domain::{Bool, BoolBuild};
use crate::io::aiger::{AigerFormat, netlist_to_aiger};
use crate::io::{Netlist, write_atomic};
use crate::lanes::BitMatrix;
use crate::learn::symmetric::Symmetric;
use crate::learn::threshold::{LogisticFit, best_xor_pair};
use crate::learn::tree::{Forest, Tree, TreeParams};
use crate::learn::{ModelSpec, Network};
use crate::pass::LowerParams;
use crate::pass::{PassContext, parse_script, run_script};
use crate::train::{RdaRule, RdaVariant, Trainer, VoteParams};
use anyhow::Context;
use clap::Args;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Instant;

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
    /// AND-node budget.
    #[arg(long, default_value_t = 5000)]
    pub max_and: usize,
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
    /// Accuracy of the written AIG on the validation split.
    pub valid_accuracy: f64,
    /// AND nodes of the written AIG.
    pub and_nodes: usize,
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

fn accuracy(aig: &Aig, x: &BitMatrix, y: &BitMatrix) -> f64 {
    let out = aig.simulate(x);
    let wrong: u64 = out.row(0).iter().zip(y.row(0)).map(|(a, b)| u64::from((a ^ b).count_ones())).sum();
    1.0 - wrong as f64 / x.examples().max(1) as f64
}

/// Fits, selects and returns the best AIG for one benchmark.
///
/// # Errors
/// Unreadable or non-PLA input, or mismatched widths.
pub fn solve(
    train: &Path,
    valid: &Path,
    max_and: usize,
    memory: Option<data::MemoryLimit>,
) -> anyhow::Result<(Aig, IwlsResult)> {
    let t0 = Instant::now();
    let load = |p: &Path| {
        data::load_within(&p.to_string_lossy(), &memory.unwrap_or_else(data::MemoryLimit::available))
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
    let n = xt.rows();
    let script = parse_script("strash,fraig,balance", &PassContext::default())?;
    let ones = yt.count_ones(0);
    let mut best = {
        let mut g = Aig::new(n);
        g.add_output(if 2 * ones >= yt.examples() as u64 {
            crate::aig::Lit::TRUE
        } else {
            crate::aig::Lit::FALSE
        });
        let acc = accuracy(&g, &xv, &yv);
        (acc, g, "constant majority".to_string())
    };
    // Lowers a candidate circuit, optimises it and keeps it if it fits the budget and
    // beats the best so far on validation (fewer ANDs on ties).
    let mut consider_aig = |aig: Aig, describe: &dyn Fn() -> String| -> anyhow::Result<()> {
        if aig.n_ands() > max_and {
            return Ok(());
        }
        let acc = accuracy(&aig, &xv, &yv);
        if acc > best.0 + 1e-12 || ((acc - best.0).abs() <= 1e-12 && aig.n_ands() < best.1.n_ands()) {
            best = (acc, aig, describe());
        }
        Ok(())
    };
    let mut consider = |circuit: &Circuit<Bool>, describe: &dyn Fn() -> String| -> anyhow::Result<()> {
        consider_aig(run_script(&Aig::from_circuit(circuit, None), &script, false)?.0, describe)
    };
    if n <= 255 {
        let sym = Symmetric::fit(&xt, &yt);
        consider(&sym.to_circuit(), &|| "symmetric (table over the input popcount)".to_string())?;
    }
    // Threshold functions (comparators, carries) and, XORed with the best pair of inputs,
    // sum bits of adders.
    let pair = (n <= 512).then(|| best_xor_pair(&xt, &yt)).flatten();
    for xor in std::iter::once(vec![]).chain(pair.map(|((a, b), _)| vec![a, b])) {
        let fit = LogisticFit::fit(&xt, &yt, &xor, 64, 1e-4);
        for bits in [2, 3, 4, 6, 8, 10, 12] {
            let m = fit.round(bits);
            consider(&m.to_circuit(n), &|| {
                let over = if m.xor.is_empty() { String::new() } else { format!(" xor inputs {:?}", m.xor) };
                format!("threshold of {} inputs, {bits}-bit weights{over}", m.terms.len())
            })?;
        }
    }
    // Features: the inputs, and (for up to 64 inputs) the XOR of every pair of inputs,
    // which lets a tree see sum bits of adders and parities.
    let xor = (n <= 64).then(|| xor_features(&xt));
    for depth in [2, 4, 6, 8, 10, 12, 14, 16, 20] {
        for min_leaf in [1, 4, 16] {
            let params = TreeParams { max_depth: depth, min_leaf };
            // The same tree shapes over the plain inputs and, where built, the XOR features.
            let plain = Tree::fit(&xt, &yt, &params);
            consider(&plain.to_circuit(n), &|| {
                format!("tree depth {depth}, min leaf {min_leaf}, {} splits", plain.splits())
            })?;
            if let Some((feat, xf)) = &xor {
                let t = Tree::fit(xf, &yt, &params);
                consider(&feat.then(&t.to_circuit(feat.n_outputs()))?, &|| {
                    format!(
                        "tree depth {depth}, min leaf {min_leaf}, {} splits over inputs and pairwise XORs",
                        t.splits()
                    )
                })?;
            }
        }
    }
    // Bagged trees: majority votes of trees grown on bootstrap samples.
    for (n_trees, depth) in [(7, 8), (15, 8), (7, 10), (15, 10)] {
        let params = TreeParams { max_depth: depth, min_leaf: 1 };
        let forest = Forest::fit_bagged(&xt, &yt, &params, n_trees, 0);
        consider(&forest.to_circuit(n), &|| {
            format!("{n_trees} bagged trees of depth {depth}, {} splits", forest.splits())
        })?;
    }
    // RDA-trained LUT networks (vote counting), the group-sum head in the circuit.
    let labels: Vec<u32> = (0..yt.examples()).map(|e| u32::from(yt.get(0, e))).collect();
    for shape in ["lut:6:16x1", "lut:6:64x1", "lut:4:64x2"] {
        let spec: ModelSpec = format!("{shape},groupsum:2").parse()?;
        let net = Network::build(spec, n, 2, 0)?;
        let rule = RdaRule::new(&net, &xt, &labels, RdaVariant::Votes(VoteParams::for_head(spec.head, 2)));
        let params = Trainer::new().epochs(20).seed(0).fit(rule).0.into_params();
        let lower = LowerParams { exact_inputs: 3, exact_max_nodes: 12 };
        let (aig, _) =
            run_script(&Aig::from_circuit_with(&net.classifier(), Some(&params), &lower), &script, false)?;
        consider_aig(aig, &|| format!("RDA LUT network {spec}, 20 epochs"))?;
    }
    let name = train
        .file_name()
        .map(|f| f.to_string_lossy().split('.').next().unwrap_or("circuit").to_string())
        .unwrap_or_else(|| "circuit".into());
    let result = IwlsResult {
        name,
        inputs: n,
        valid_accuracy: best.0,
        and_nodes: best.1.n_ands(),
        model: best.2,
        seconds: t0.elapsed().as_secs_f64(),
    };
    Ok((best.1, result))
}

/// The feature circuit `n -> n + n(n-1)/2` (inputs, then `x_i ^ x_j` for `i < j`) and
/// its values on `x`.
fn xor_features(x: &BitMatrix) -> (Circuit<Bool>, BitMatrix) {
    let n = x.rows();
    let mut b = CircuitBuilder::<Bool>::new(0, n);
    let mut outs = b.args();
    let mut rows: Vec<Vec<u64>> = (0..n).map(|i| x.row(i).to_vec()).collect();
    for i in 0..n {
        for j in i + 1..n {
            let (a, c) = (b.arg(i), b.arg(j));
            outs.push(b.xor(a, c));
            rows.push(x.row(i).iter().zip(x.row(j)).map(|(p, q)| p ^ q).collect());
        }
    }
    let mut m = BitMatrix::zeros(rows.len(), x.examples());
    for (r, row) in rows.iter().enumerate() {
        m.row_mut(r).copy_from_slice(row);
    }
    (b.finish(outs).expect("feature circuit is valid"), m)
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
    refuse_overwriting_inputs(&[&a.output], &[&a.train, &a.valid], a.force)?;
    let (aig, r) = solve(&a.train, &a.valid, a.max_and, a.max_memory)?;
    write_aig(&aig, &r.name, &a.output)?;
    if a.json {
        println!("{}", serde_json::to_string(&r)?);
    } else {
        println!(
            "{}: valid accuracy {:.4}, {} ANDs ({}), {:.1}s -> {}",
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

    /// AND-node budget.
    #[arg(long, default_value_t = 5000)]
    pub max_and: usize,
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
    if names.is_empty() {
        return Err(UsageError(format!("{}: no *.train.pla[.gz] files", a.dir.display())).into());
    }
    std::fs::create_dir_all(&a.out).with_context(|| format!("creating {}", a.out.display()))?;
    let tsv = a.out.join("results.tsv");
    let header = "ex\tinputs\tvalid_accuracy\tand_nodes\tseconds\tmodel";
    let mut rows: Vec<String> = std::fs::read_to_string(&tsv)
        .map(|t| t.lines().skip(1).map(str::to_string).collect())
        .unwrap_or_default();
    let find = |stem: &str, suffix: &str| -> Option<PathBuf> {
        [format!("{stem}.{suffix}.pla"), format!("{stem}.{suffix}.pla.gz")]
            .into_iter()
            .map(|f| a.dir.join(f))
            .find(|p| p.exists())
    };
    if crate::dist::world().size() > 1 {
        return super::iwls_mpi::run_suite_over_ranks(a, &names, rows, &tsv, header);
    }
    let bar = progress(names.len() as u64, false, "iwls");
    for name in &names {
        bar.set_message(name.clone());
        let aig_path = a.out.join(format!("{name}.aig"));
        let done = rows.iter().any(|r| r.split('\t').next() == Some(name.as_str()));
        if done && aig_path.exists() {
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
        let (aig, r) = solve(&train, &valid, a.max_and, a.max_memory)?;
        write_aig(&aig, name, &aig_path)?;
        rows.retain(|row| row.split('\t').next() != Some(name.as_str()));
        rows.push(format!(
            "{name}\t{}\t{:.6}\t{}\t{:.2}\t{}",
            r.inputs, r.valid_accuracy, r.and_nodes, r.seconds, r.model
        ));
        rows.sort();
        let text =
            std::iter::once(header.to_string()).chain(rows.iter().cloned()).collect::<Vec<_>>().join("\n")
                + "\n";
        write_atomic(&tsv, text.as_bytes()).with_context(|| format!("writing {}", tsv.display()))?;
        bar.inc(1);
    }
    bar.finish_and_clear();
    let accs: Vec<f64> = rows.iter().filter_map(|r| r.split('\t').nth(2)?.parse().ok()).collect();
    let mean = accs.iter().sum::<f64>() / accs.len().max(1) as f64;
    println!("{} benchmarks, mean valid accuracy {:.4}; wrote {}", accs.len(), mean, tsv.display());
    Ok(())
}

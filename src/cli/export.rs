//! `circuitlearn export`: a trained model (parameters bound to constants) or a circuit
//! file (BLIF, AIGER) written as Verilog, BLIF, AIGER or DOT, optionally with a
//! self-checking testbench. Also the export `train` does after training.

use super::common::{UsageError, check_outputs};
use crate::circuit::Circuit;
use crate::domain::{Bool, bind_params};
use crate::io::aiger::{AigerFormat, write_netlist_aiger};
use crate::io::aiger_reader::read_aiger_netlist;
use crate::io::blif::{BlifParams, write_blif};
use crate::io::blif_reader::read_blif;
use crate::io::dot::to_dot;
use crate::io::netlist::model_name_from;
use crate::io::raw_inputs::{FixedPoint, RawInputs};
use crate::io::ring_model::is_ring_model;
use crate::io::testbench::{BenchParams, TestbenchError, random_inputs, write_testbench_with};
use crate::io::verilog::{LutStyle, VerilogParams, module_name, write_verilog, write_verilog_documented};
use crate::io::{ModelFile, Netlist, write_atomic_with};
use crate::lanes::BitMatrix;
use crate::tools::{IcarusOutcome, Tool, ToolError, ToolLimits, run_icarus_limited};
use anyhow::Context;
use clap::{ArgGroup, Args, ValueEnum};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Arguments of `export`.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("source").required(true).args(["model", "circuit", "spec"])))]
pub struct ExportArgs {
    /// A model file written by `train` (`DIR/model.json`); its parameters are bound to constants.
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// A circuit file: .blif, .aig or .aag.
    #[arg(long)]
    pub circuit: Option<PathBuf>,
    /// Output format [default: from the extension of -o: .v, .blif, .aig, .aag, .dot].
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Output file.
    #[arg(short, long, visible_alias = "out")]
    pub output: PathBuf,
    /// Also write a self-checking testbench `<name>_tb.v` and its vectors `<name>.mem` into DIR (Verilog only).
    #[arg(long, value_name = "DIR")]
    pub testbench: Option<PathBuf>,
    /// Vectors in the testbench: random (seed 0), or all 2^n if the n inputs allow at most this many.
    #[arg(long, default_value_t = 1000)]
    pub vectors: usize,
    /// How LUTs are written in Verilog: a constant table indexed by the address, or a sum of products.
    #[arg(long, value_enum)]
    pub lut_style: Option<LutStyleArg>,
    /// Register stages in the Verilog (adds a `clk` port; latency N cycles).
    #[arg(long)]
    pub pipeline: Option<usize>,
    /// With --pipeline: add a clock enable `en` and valid bits `valid_in` -> `valid_out`
    /// that travel with the data.
    #[arg(long)]
    pub valid: bool,
    /// A model's raw feature values as inputs instead of encoded bits: W-bit two's
    /// complement numbers with F fractional bits (e.g. 16.8), feature f in x[f*W +: W].
    /// The module `<name>` then compares them with the encoder's thresholds and
    /// instantiates the classifier as `<name>_core`.
    #[arg(long, value_name = "W.F")]
    pub raw_features: Option<FixedPoint>,
    /// Pass script applied before writing (e.g. strash,fraig,balance; see `opt`). The
    /// circuit is then written as its AIG (AND/NOT gates) instead of LUTs.
    #[arg(long)]
    pub passes: Option<String>,
    /// Module / model name [default: the run directory's name, or the circuit file's stem].
    #[arg(long)]
    pub name: Option<String>,
    /// Which circuit of a model: `classifier`, the AIG the run counted (`DIR/classifier.aig`,
    /// checked to belong to this model.json; its AND nodes are `metrics.json`'s
    /// `and_nodes`), or `luts`, the trained network with its parameters bound, before
    /// synthesis (what `train` writes to `DIR/verilog/`). Without a classifier.aig beside
    /// the model, `luts` is used and a note says so.
    #[arg(long, value_enum, default_value_t = ModelForm::Classifier)]
    pub from: ModelForm,
    /// Write even when an output is the input file (replacing it).
    #[arg(long)]
    pub force: bool,
    /// Write the RDA training step as clocked Verilog (`-o` is then a directory): the
    /// trainer `<name>_trainer.v` and a bench training it on the data in Icarus.
    #[arg(long)]
    pub trainer: bool,
    /// With --trainer: a model spec to build (instead of --model), e.g. `lut:4:16x1,groupsum:3`.
    #[arg(long, requires = "trainer")]
    pub spec: Option<String>,
    /// With --trainer: the data the bench streams [default: the model's data set]; with
    /// --spec it also sets the input width (thermometer:8 encoding) and the classes.
    #[arg(long, requires = "trainer")]
    pub data: Option<String>,
    /// With --trainer --spec and no --data: input bits.
    #[arg(long, requires = "spec")]
    pub inputs: Option<usize>,
    /// With --trainer --spec and no --data: classes.
    #[arg(long, requires = "spec")]
    pub classes: Option<usize>,
    /// With --trainer --spec: seed of the wiring and of the initial parameters.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// With --trainer: epochs the bench trains for (file order).
    #[arg(long, default_value_t = 1)]
    pub epochs: usize,
    /// The hardware rule (with --trainer).
    #[command(flatten)]
    pub rule: super::trainer_hw::HwRuleArgs,
}

/// Output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Verilog-2001, one module.
    Verilog,
    /// Berkeley Logic Interchange Format.
    Blif,
    /// Binary AIGER.
    Aiger,
    /// ASCII AIGER.
    Aag,
    /// Graphviz DOT.
    Dot,
}

/// Which circuit of a trained model `export` writes (`--from`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum ModelForm {
    /// The counted classifier AIG saved by the run (`classifier.aig`).
    #[default]
    Classifier,
    /// The trained LUT network with its parameters bound to constants.
    Luts,
}

/// `--lut-style` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LutStyleArg {
    /// `localparam` table indexed by the address bits.
    Table,
    /// Sum-of-products `assign`.
    Expr,
}

impl From<LutStyleArg> for LutStyle {
    fn from(s: LutStyleArg) -> Self {
        match s {
            LutStyleArg::Table => LutStyle::Table,
            LutStyleArg::Expr => LutStyle::Expr,
        }
    }
}

/// Runs `export`.
///
/// # Errors
/// Bad model or circuit file, bad flag combination (exit 2); failure to write (exit 1).
pub fn run(a: &ExportArgs) -> anyhow::Result<()> {
    if a.trainer {
        return super::trainer_hw::export(a);
    }
    if a.spec.is_some() {
        return Err(UsageError("--spec applies to --trainer only".into()).into());
    }
    let format = match a.format {
        Some(f) => f,
        None => format_of(&a.output)?,
    };
    if format != Format::Verilog
        && (a.lut_style.is_some()
            || a.pipeline.is_some()
            || a.testbench.is_some()
            || a.valid
            || a.raw_features.is_some())
    {
        return Err(UsageError(
            "--lut-style, --pipeline, --valid, --raw-features and --testbench apply to --format verilog only"
                .into(),
        )
        .into());
    }
    if a.valid && a.pipeline.unwrap_or(0) == 0 {
        return Err(
            UsageError("--valid needs --pipeline N (N >= 1): it adds ports to the registers".into()).into()
        );
    }
    if a.raw_features.is_some() && a.model.is_none() {
        return Err(UsageError(
            "--raw-features needs --model: the thresholds are the model's encoder".into(),
        )
        .into());
    }
    let input = a.model.as_deref().or(a.circuit.as_deref()).unwrap_or(Path::new(""));
    check_outputs(&[&a.output], &[input], Some(a.force))?;
    if let Some(m) =
        a.model.as_deref().filter(|m| is_ring_model(&std::fs::read_to_string(m).unwrap_or_default()))
    {
        return super::ring::export(a, m, format);
    }
    let mut net = load_form(a.model.as_deref(), a.circuit.as_deref(), a.name.as_deref(), a.from)?;
    let model = a.model.as_deref().map(ModelFile::read).transpose()?;
    let raw = match (&model, a.raw_features) {
        (Some(m), Some(f)) => {
            Some(RawInputs::new(&m.encoder, f).map_err(|e| UsageError(format!("--raw-features: {e}")))?)
        }
        _ => None,
    };
    if let Some(dir) = &a.testbench {
        let dut = module_name(&net.names().model);
        let (bench, vectors) = (dir.join(format!("{dut}_tb.v")), dir.join(format!("{dut}.mem")));
        check_outputs(&[&bench, &vectors], &[input], Some(a.force))?;
    }
    if let Some(script) = &a.passes {
        let passes = crate::pass::parse_script(script, &crate::pass::PassContext::default())?;
        let aig = crate::aig::Aig::from_circuit(net.circuit(), None);
        let (out, _) = crate::pass::run_script(&aig, &passes, false)?;
        net = Netlist::new(net.names().clone(), out.to_circuit())?;
    }
    let vp = VerilogParams {
        lut_style: a.lut_style.map(LutStyle::from).unwrap_or_default(),
        pipeline: a.pipeline.unwrap_or(0),
        valid: a.valid,
    };
    let doc = model.as_ref().map(ModelFile::port_doc).unwrap_or_default();
    let top = net.names().model.clone();
    let bench_net = match (&raw, &model) {
        (Some(raw), Some(m)) => {
            // The classifier becomes `<name>_core`; `<name>` is the wrapper, and the bench
            // checks it against the comparators and the classifier simulated together.
            let core_name = format!("{}_core", module_name(&top));
            let mut names = net.names().clone();
            names.model = core_name.clone();
            let core = Netlist::new(names, net.circuit().clone())?;
            let names = m.encoder.feature_names().unwrap_or_default().to_vec();
            write_atomic_with(&a.output, |w| {
                write_verilog_documented(&core, &vp, &doc, w)?;
                raw.write_wrapper(&top, &core_name, core.circuit().n_outputs(), &names, &vp, w)
            })
            .with_context(|| format!("writing {}", a.output.display()))?;
            let both = raw.circuit().then(net.circuit()).context("comparators and classifier")?;
            Netlist::indexed(&top, both)
        }
        _ => {
            if format == Format::Verilog {
                write_atomic_with(&a.output, |w| write_verilog_documented(&net, &vp, &doc, w))
                    .with_context(|| format!("writing {}", a.output.display()))?;
            } else {
                export_to(&a.output, &net, format, &vp)?;
            }
            net.clone()
        }
    };
    // One vocabulary: "gates" are a model's trained gates; a written circuit is counted
    // in AND nodes of its AIG (as `metrics.json`'s `and_nodes`).
    println!(
        "wrote {} ({} AND nodes, {} inputs, {} outputs)",
        a.output.display(),
        crate::aig::Aig::from_circuit(net.circuit(), None).n_ands(),
        net.circuit().n_inputs(),
        net.circuit().n_outputs()
    );
    if let Some(dir) = &a.testbench {
        let inputs = match &raw {
            Some(raw) => raw.random_vectors(a.vectors, 0),
            None => random_inputs(net.circuit().n_inputs(), a.vectors, 0),
        };
        let bp = BenchParams { latency: vp.pipeline, valid: vp.valid };
        let files = write_bench(dir, &bench_net, &inputs, &bp)?;
        println!(
            "wrote {} and {} ({} vectors)",
            files.bench.display(),
            files.vectors.display(),
            files.n_vectors
        );
    }
    Ok(())
}

/// The format an output file name asks for.
///
/// # Errors
/// [`UsageError`] for an unknown extension.
pub fn format_of(path: &Path) -> Result<Format, UsageError> {
    match path.extension().and_then(|e| e.to_str()) {
        Some("v") => Ok(Format::Verilog),
        Some("blif") => Ok(Format::Blif),
        Some("aig") => Ok(Format::Aiger),
        Some("aag") => Ok(Format::Aag),
        Some("dot" | "gv") => Ok(Format::Dot),
        _ => Err(UsageError(format!(
            "cannot tell the format of {}; give --format verilog|blif|aiger|aag|dot",
            path.display()
        ))),
    }
}

/// The netlist to export: a model's circuit with its parameters bound (named after the
/// run directory), or a circuit file; `name` overrides the model name.
///
/// # Errors
/// An unreadable model or circuit file; an unknown circuit file extension.
pub fn load(model: Option<&Path>, circuit: Option<&Path>, name: Option<&str>) -> anyhow::Result<Netlist> {
    load_form(model, circuit, name, ModelForm::Luts)
}

/// [`load`] with the circuit of a model chosen by `form`: its saved classifier AIG
/// (when it belongs to this model file; otherwise an error if stale, the LUT form with a
/// note if missing) or its LUT network.
///
/// # Errors
/// As [`load`]; a `classifier.aig` beside the model that was written for another model
/// (exit 2).
pub fn load_form(
    model: Option<&Path>,
    circuit: Option<&Path>,
    name: Option<&str>,
    form: ModelForm,
) -> anyhow::Result<Netlist> {
    let net = match (model, circuit) {
        (Some(m), None) => {
            let file = ModelFile::read(m)?;
            let (network, params) = file.network(m)?;
            let run_dir = m.parent().and_then(Path::file_name).map(|n| n.to_string_lossy().into_owned());
            let name =
                module_name(&name.map(str::to_string).or(run_dir).unwrap_or_else(|| file.dataset.clone()));
            let saved = match form {
                ModelForm::Classifier => crate::pipeline::saved_classifier(m)?,
                ModelForm::Luts => crate::pipeline::SavedClassifier::Missing,
            };
            match saved {
                crate::pipeline::SavedClassifier::Matching(aig) => Netlist::indexed(&name, aig.to_circuit()),
                crate::pipeline::SavedClassifier::Stale(path) => {
                    return Err(UsageError(format!(
                        "{}: written for another model than {} (re-run `train`, or export the model's LUT network with --from luts)",
                        path.display(),
                        m.display()
                    ))
                    .into());
                }
                crate::pipeline::SavedClassifier::Missing => {
                    if form == ModelForm::Classifier {
                        eprintln!(
                            "note: no {} beside {}; exporting the trained LUT network (--from luts)",
                            crate::pipeline::CLASSIFIER_FILE,
                            m.display()
                        );
                    }
                    trained_netlist(&name, &network.classifier(), &params)?
                }
            }
        }
        (None, Some(c)) => {
            let net = match c.extension().and_then(|e| e.to_str()) {
                Some("blif") => read_blif(c)?,
                Some("aig" | "aag") => read_aiger_netlist(c)?,
                _ => {
                    return Err(
                        UsageError(format!("{}: expected a .blif, .aig or .aag file", c.display())).into()
                    );
                }
            };
            let stem = c.file_stem().unwrap_or_default().to_string_lossy().into_owned();
            let mut names = net.names().clone();
            names.model = model_name_from(name.unwrap_or(&stem));
            Netlist::new(names, net.into_circuit())?
        }
        _ => return Err(UsageError("give exactly one of --model and --circuit".into()).into()),
    };
    Ok(net)
}

/// A trained network as it is exported: its parameters bound ([`bind_params`]) and the
/// gates no output reads removed. A network's first layer keeps the LUTs that no later
/// gate chose (5,941 of the 14,000 of the default Fashion-MNIST recipe), and Icarus
/// spent four fifths of its compile of the exported module on them.
///
/// # Errors
/// `params` does not have one value per parameter of `circuit`.
pub fn trained_netlist(name: &str, circuit: &Circuit<Bool>, params: &[bool]) -> anyhow::Result<Netlist> {
    Ok(Netlist::indexed(name, bind_params(circuit, params)?.pruned()))
}

/// Writes the netlist in `format`.
///
/// # Errors
/// Any error of the underlying writer.
pub fn write_format(
    net: &Netlist,
    format: Format,
    verilog: &VerilogParams,
    w: &mut dyn Write,
) -> std::io::Result<()> {
    match format {
        Format::Verilog => write_verilog(net, verilog, w),
        Format::Blif => write_blif(net, &BlifParams::default(), w),
        Format::Aiger => write_netlist_aiger(net, AigerFormat::Binary, w),
        Format::Aag => write_netlist_aiger(net, AigerFormat::Ascii, w),
        Format::Dot => w.write_all(to_dot(net.circuit(), &net.names().model).as_bytes()),
    }
}

/// Streams the netlist in `format` into `path` (atomically).
///
/// # Errors
/// The file cannot be written.
pub fn export_to(path: &Path, net: &Netlist, format: Format, verilog: &VerilogParams) -> anyhow::Result<()> {
    write_atomic_with(path, |w| write_format(net, format, verilog, w))
        .with_context(|| format!("writing {}", path.display()))
}

/// [`write_testbench`] with "nothing to check" reported as bad input.
///
/// # Errors
/// A circuit without inputs or outputs (exit 2); a file that cannot be written.
pub fn write_bench(
    dir: &Path,
    net: &Netlist,
    inputs: &BitMatrix,
    params: &BenchParams,
) -> anyhow::Result<crate::io::testbench::BenchFiles> {
    write_testbench_with(dir, net, inputs, params).map_err(|e| match e {
        TestbenchError::Empty { .. } => UsageError(format!("no testbench: {e}")).into(),
        e => anyhow::Error::from(e),
    })
}

/// What `train` exported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrainedExport {
    /// `<verilog_dir>/<name>.v` (`train`: `OUT/verilog/`).
    pub verilog: PathBuf,
    /// `<bench_dir>/<name>_tb.v`.
    pub bench: PathBuf,
    /// Icarus result: `pass`, `fail`, `skipped` (iverilog not installed), `timeout`
    /// (a run passed its time bound and was killed) or `error`.
    pub icarus: String,
    /// One line for the user.
    pub summary: String,
}

impl TrainedExport {
    /// Whether the Icarus check, if it ran, passed.
    ///
    /// # Errors
    /// A message naming the log when the exported Verilog mismatched the simulator.
    pub fn check(&self) -> anyhow::Result<()> {
        if self.icarus == "fail" {
            anyhow::bail!("exported Verilog does not match the simulator: {}", self.summary);
        }
        Ok(())
    }
}

/// Gate evaluations (vectors times gates) `train` may ask Icarus for: about 40 s of `vvp`
/// on the 2-core machines here, which simulate 6.7 million a second (the default
/// Fashion-MNIST classifier, 18,016 gates, on all 10,000 test images in 27 s, so the
/// default run checks every test image). Beyond it `train` checks evenly spaced vectors
/// of its bench (`+step=K`); running the bench, or `verify --icarus`, checks every vector.
pub const TRAIN_BENCH_BUDGET: usize = 1 << 28;

// The default Fashion-MNIST classifier's 10,000 test images fit the budget.
const _: () = assert!(10_000 * 18_016 <= TRAIN_BENCH_BUDGET);

/// Most vectors the bench `train` writes holds (a line is one example's input and output
/// bits in hex: the 10,000 Fashion-MNIST test images, 49,392 bits each in the default
/// encoding, make a 123 MB vectors file).
pub const TRAIN_BENCH_MAX_VECTORS: usize = 20_000;

/// The examples of `train`'s bench: the training then the test examples when together
/// they are at most [`TRAIN_BENCH_MAX_VECTORS`]; otherwise every test example (evenly
/// spaced ones if there are more than that), as for Fashion-MNIST's 10,000 test images.
#[must_use]
pub fn train_bench_examples(x_train: &BitMatrix, x_test: &BitMatrix) -> BitMatrix {
    if x_train.examples() + x_test.examples() <= TRAIN_BENCH_MAX_VECTORS {
        return BitMatrix::concat_examples(&[x_train, x_test]);
    }
    let total = x_test.examples();
    if total <= TRAIN_BENCH_MAX_VECTORS {
        return x_test.clone();
    }
    let keep = TRAIN_BENCH_MAX_VECTORS;
    x_test.select_examples(&(0..keep).map(|i| i * total / keep).collect::<Vec<_>>())
}

/// The time bound of each tool run (`iverilog`, then `vvp`) of the check `train` runs
/// after training: two minutes, beyond which the check is reported `timeout` (the
/// training is kept). [`export_trained_within`] takes another bound, e.g. the
/// training's own time.
pub const TRAIN_ICARUS_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(120);

/// After training: binds `params` into `circuit`, writes `verilog_dir/<name>.v` (with
/// `doc`, e.g. [`ModelFile::port_doc`], as header comments) and a
/// bench into `bench_dir` over [`train_bench_examples`], and runs Icarus on it if
/// `iverilog` is on PATH: on every vector, or on every K-th one within
/// [`TRAIN_BENCH_BUDGET`] (at least 256 vectors).
///
/// # Errors
/// Failure to bind or write the files. Tool problems are reported in the result.
pub fn export_trained(
    (name, doc): (&str, &[String]),
    circuit: &Circuit<Bool>,
    params: &[bool],
    (x_train, x_test): (&BitMatrix, &BitMatrix),
    verilog_dir: &Path,
    bench_dir: &Path,
    run_icarus: bool,
) -> anyhow::Result<TrainedExport> {
    let limits = run_icarus.then_some(ToolLimits { timeout: TRAIN_ICARUS_TIMEOUT });
    export_trained_within(
        (name, doc),
        circuit,
        params,
        (x_train, x_test),
        verilog_dir,
        bench_dir,
        limits.as_ref(),
    )
}

/// [`export_trained`] with each Icarus run bounded by `limits` (`None`: Icarus not run).
///
/// # Errors
/// As [`export_trained`].
pub fn export_trained_within(
    (name, doc): (&str, &[String]),
    circuit: &Circuit<Bool>,
    params: &[bool],
    (x_train, x_test): (&BitMatrix, &BitMatrix),
    verilog_dir: &Path,
    bench_dir: &Path,
    limits: Option<&ToolLimits>,
) -> anyhow::Result<TrainedExport> {
    let module = module_name(name);
    let net = trained_netlist(&module, circuit, params)?;
    let verilog = verilog_dir.join(format!("{module}.v"));
    write_atomic_with(&verilog, |w| write_verilog_documented(&net, &VerilogParams::default(), doc, w))
        .with_context(|| format!("writing {}", verilog.display()))?;
    let vectors = train_bench_examples(x_train, x_test);
    let files = write_bench(bench_dir, &net, &vectors, &BenchParams::default())?;
    let total = files.n_vectors;
    let keep = (TRAIN_BENCH_BUDGET / net.circuit().n_gates().max(1)).max(256);
    let step = total.div_ceil(keep);
    let of = if step > 1 {
        format!(" of {total}, every {step}th; `vvp` without +step checks all")
    } else {
        String::new()
    };
    let (icarus, detail) = icarus_outcome(bench_dir, &files, &verilog, step, limits, |v| {
        format!("Icarus: pass ({v}{of} vectors)")
    });
    let summary = format!("wrote {} and {}; {detail}", verilog.display(), files.bench.display());
    Ok(TrainedExport { verilog, bench: files.bench, icarus: icarus.into(), summary })
}

/// Runs the bench `files` of `verilog` in Icarus within `limits` (`None`: not run) on
/// every `step`-th vector: the outcome's name for `metrics.json` (`pass`, `fail`,
/// `timeout`, `error`, `skipped`, `not-run`) and a line for the user (`passed` words a
/// pass from its vector count).
pub fn icarus_outcome(
    dir: &Path,
    files: &crate::io::testbench::BenchFiles,
    verilog: &Path,
    step: usize,
    limits: Option<&ToolLimits>,
    passed: impl Fn(usize) -> String,
) -> (&'static str, String) {
    match (Tool::Iverilog.find(), Tool::Vvp.find()) {
        _ if limits.is_none() => ("not-run", "Icarus not run (--hardware export)".to_owned()),
        (Ok(_), Ok(_)) => {
            let limits = limits.copied().unwrap_or_default();
            match run_icarus_limited(dir, &files.bench, verilog, &files.module, step, &limits) {
                Ok(IcarusOutcome::Pass { vectors, .. }) => ("pass", passed(vectors)),
                Ok(IcarusOutcome::Mismatch { log, .. }) => {
                    ("fail", format!("Icarus: MISMATCH, see {}", log.display()))
                }
                Err(e @ ToolError::TimedOut { .. }) => ("timeout", format!("Icarus: {e}")),
                Err(e) => ("error", format!("Icarus: {e}")),
            }
        }
        (Err(e), _) | (_, Err(e)) => ("skipped", format!("Icarus check skipped: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A LUT no output reads is not exported; the outputs are the bound network's.
    #[test]
    fn a_trained_netlist_drops_unread_gates() -> anyhow::Result<()> {
        use crate::circuit::CircuitBuilder;
        use crate::domain::BoolBuild;
        let mut b = CircuitBuilder::<Bool>::new(8, 2);
        let (p, x) = (b.params(), b.args());
        let read = b.lut(&p[..4], &x);
        let _unread = b.lut(&p[4..], &x);
        let c = b.finish(vec![read])?;
        let params = [false, true, true, false, true, true, true, false];
        let net = trained_netlist("m", &c, &params)?;
        let bound = bind_params(&c, &params)?;
        assert_eq!(bound.gate_histogram().iter().find(|(g, _)| g == "lut2").map(|h| h.1), Some(2));
        assert_eq!(net.circuit().gate_histogram().iter().find(|(g, _)| g == "lut2").map(|h| h.1), Some(1));
        for v in 0..4u32 {
            let x = [v & 1 == 1, v & 2 == 2];
            assert_eq!(net.circuit().eval_one(&x), bound.eval_one(&x));
        }
        Ok(())
    }

    #[test]
    fn the_train_bench_keeps_every_test_example_of_big_data() {
        let (small_train, small_test) = (random_inputs(24, 100, 1), random_inputs(24, 50, 2));
        let both = train_bench_examples(&small_train, &small_test);
        assert_eq!(both, BitMatrix::concat_examples(&[&small_train, &small_test]));
        // Fashion-MNIST's shape: 60,000 training and 10,000 test examples.
        let (train, test) = (random_inputs(24, 60_000, 1), random_inputs(24, 10_000, 2));
        assert_eq!(train_bench_examples(&train, &test), test);
        let huge_test = random_inputs(24, 2 * TRAIN_BENCH_MAX_VECTORS, 3);
        let kept = train_bench_examples(&train, &huge_test);
        assert_eq!(kept.examples(), TRAIN_BENCH_MAX_VECTORS);
        assert_eq!(kept.example(1), huge_test.example(2));
    }
}

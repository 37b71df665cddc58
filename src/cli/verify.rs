//! `circuitlearn verify`: exports a model (or a circuit file) into a work directory and
//! checks the exports with external tools: Icarus co-simulation against the Rust
//! simulator, Yosys LUT counts (of mapped netlists ABC proves equivalent to the model),
//! ABC equivalence of the BLIF and AIGER exports. The report (what `--json` prints) is
//! also written to `WORK/verify.json`.

use super::common::{UsageError, set_threads, write_json_file};
use super::export::{Format, LutStyleArg, export_to, load, write_bench};
use crate::aig::Aig;
use crate::data::{self, DataError};
use crate::io::aiger::{AigerFormat, write_aiger};
use crate::io::blif::{BlifParams, CoverStyle, to_blif};
use crate::io::testbench::random_inputs;
use crate::io::verilog::{LutStyle, VerilogParams, module_name};
use crate::io::{ModelFile, Netlist, PortNames, write_atomic, write_atomic_with};
use crate::lanes::BitMatrix;
use crate::pass;
use crate::pass::LowerParams;
use crate::tools::{
    Cec, IcarusOutcome, Matching, ToolLimits, YosysCounts, YosysFlow, abc_cec_limited, run_icarus_limited,
    yosys_counts_limited,
};
use anyhow::Context;
use clap::{ArgGroup, Args, ValueEnum};
use serde::Serialize;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Arguments of `verify`.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("source").required(true).args(["model", "circuit"])))]
pub struct VerifyArgs {
    /// A model file written by `train` (`DIR/model.json`).
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// A circuit file (.blif, .aig, .aag); ABC compares the exports with the file itself.
    #[arg(long)]
    pub circuit: Option<PathBuf>,
    /// Co-simulate the exported Verilog in Icarus against the Rust simulator.
    #[arg(long)]
    pub icarus: bool,
    /// Synthesise with Yosys and report LUT6 and SB_LUT4 counts (ABC proves both mapped
    /// netlists equivalent to the model).
    #[arg(long)]
    pub yosys: bool,
    /// What Yosys reads: `aig`, the circuit's AIG after `--yosys-passes` (minutes on big
    /// classifiers), or `verilog`, the exported module through `synth` (hours on big ones).
    #[arg(long, value_enum, default_value = "aig")]
    pub yosys_flow: YosysFlowArg,
    /// Function-preserving AIG passes run before Yosys reads the AIG (`--yosys-flow aig`).
    #[arg(long, default_value = "strash")]
    pub yosys_passes: String,
    /// Prove the BLIF and AIGER exports equivalent with ABC `cec`.
    #[arg(long)]
    pub abc: bool,
    /// Prove that the run's counted classifier (`DIR/classifier.aig`) is the trained
    /// network: a bounded equivalence check, skipped when the run's passes change the
    /// function off the training data (`dc`).
    #[arg(long)]
    pub classifier: bool,
    /// Random vectors for Icarus, besides the model's data set (all 2^n if n inputs allow).
    #[arg(long, default_value_t = 1000)]
    pub vectors: usize,
    /// Data whose examples Icarus checks, encoded by the model's encoder: a built-in name,
    /// a path, `fashion-mnist` or an IDX directory (its test split) [default: the
    /// model's data set, if it can be found by name].
    #[arg(long)]
    pub data: Option<String>,
    /// LUT style of the checked Verilog.
    #[arg(long, value_enum, default_value = "table")]
    pub lut_style: LutStyleArg,
    /// Register stages in the checked Verilog.
    #[arg(long, default_value_t = 0)]
    pub pipeline: usize,
    /// Work directory for the exports and tool logs [default: DIR/verify for a model, verify/<stem> for a circuit].
    #[arg(long)]
    pub work: Option<PathBuf>,
    /// Print one JSON object as the last line.
    #[arg(long)]
    pub json: bool,
    /// Run even when the work directory holds the input under a name verify writes
    /// (replacing it).
    #[arg(long)]
    pub force: bool,
    /// Most memory the data examples may take once parsed and encoded (e.g. 4G, 512M)
    /// [default: what the machine has available].
    #[arg(long, value_name = "SIZE")]
    pub max_memory: Option<data::MemoryLimit>,
    /// Train the model in its hardware trainer (Icarus) and in the Rust trainer, from the
    /// model's parameters on its data (or --data), and compare the results bit for bit.
    #[arg(long)]
    pub trainer: bool,
    /// With --trainer: epochs of training.
    #[arg(long, default_value_t = 3)]
    pub epochs: usize,
    /// With --trainer: seed of the Rust trainer's shuffles.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// With --trainer: visit the examples in file order instead of a fresh shuffle each epoch.
    #[arg(long)]
    pub file_order: bool,
    /// The hardware rule (with --trainer).
    #[command(flatten)]
    pub rule: super::trainer_hw::HwRuleArgs,
    /// Seconds each external tool run may take before its process group is killed and
    /// the check reported as timed out.
    #[arg(long, value_name = "S", default_value_t = crate::tools::DEFAULT_TOOL_TIMEOUT.as_secs_f64())]
    pub tool_timeout: f64,
}

impl VerifyArgs {
    /// The bound of each tool run (`--tool-timeout`).
    pub(super) fn tool_limits(&self) -> ToolLimits {
        let secs = self.tool_timeout.clamp(0.0, 1e9);
        ToolLimits { timeout: std::time::Duration::from_secs_f64(secs) }
    }
}

/// `--yosys-flow` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum YosysFlowArg {
    /// The AIG (binary AIGER).
    Aig,
    /// The exported Verilog module.
    Verilog,
}

impl From<YosysFlowArg> for YosysFlow {
    fn from(f: YosysFlowArg) -> Self {
        match f {
            YosysFlowArg::Aig => YosysFlow::Aig,
            YosysFlowArg::Verilog => YosysFlow::Verilog,
        }
    }
}

/// A check that ran and failed (exit 1).
#[derive(Debug, Error)]
#[error("verification failed: {0}")]
pub struct CheckFailed(pub String);

/// Icarus part of the report.
#[derive(Debug, Serialize)]
pub struct IcarusReport {
    /// `pass` or `fail`.
    pub result: String,
    /// Vectors in the bench (data examples, then random ones).
    pub vectors: usize,
    /// Of which examples of the data set, encoded by the model's encoder.
    pub data_vectors: usize,
    /// Where they came from (empty when there are none).
    pub data: String,
    /// Simulation log.
    pub log: PathBuf,
}

/// ABC part of the report.
#[derive(Debug, Serialize)]
pub struct AbcReport {
    /// What the exports were compared with.
    pub reference: String,
    /// `equivalent` or `not equivalent`, for the BLIF export.
    pub blif: String,
    /// Same for the binary AIGER export.
    pub aiger: String,
}

/// Yosys part of the report: the counts, what Yosys read, and ABC's verdicts on the
/// mapped netlists.
#[derive(Debug, Serialize)]
pub struct YosysReport {
    /// Counts, scripts and netlists.
    #[serde(flatten)]
    pub counts: YosysCounts,
    /// The file Yosys read.
    pub input: PathBuf,
    /// AIG flow: the passes run on the lowered circuit before it was written.
    pub passes: Option<String>,
    /// AIG flow: AND nodes of the AIG Yosys read.
    pub input_and_nodes: Option<usize>,
    /// What the netlists were compared with (ABC `cec`): for the AIG flow the AIG Yosys
    /// read, itself compared with the model's one-row-per-minterm BLIF; for the Verilog
    /// flow that BLIF (the Verilog itself is Icarus's to check).
    pub reference: String,
    /// AIG flow: `equivalent` or `not equivalent`, the AIG against the model's BLIF.
    pub input_check: Option<String>,
    /// The LUT6 netlist against the reference.
    pub lut6_check: String,
    /// The iCE40 netlist against the reference.
    pub ice40_check: String,
}

/// What `verify --json` prints.
#[derive(Debug, Serialize)]
pub struct VerifyReport {
    /// Module name.
    pub name: String,
    /// Work directory.
    pub work: PathBuf,
    /// Inputs, outputs and gates of the checked circuit.
    pub inputs: usize,
    /// Outputs.
    pub outputs: usize,
    /// Gates.
    pub gates: usize,
    /// Icarus result, if run.
    pub icarus: Option<IcarusReport>,
    /// Yosys counts and checks, if run.
    pub yosys: Option<YosysReport>,
    /// ABC verdicts, if run.
    pub abc: Option<AbcReport>,
    /// The counted classifier against the trained network, if checked.
    pub classifier: Option<String>,
    /// Hardware trainer against the Rust trainer, if run.
    pub trainer: Option<crate::pipeline::HwTrainCheck>,
    /// Whether every check that ran passed.
    pub ok: bool,
}

/// Runs `verify`.
///
/// # Errors
/// Bad input (exit 2); a missing or failing tool, or a failed check (exit 1).
pub fn run(a: &VerifyArgs) -> anyhow::Result<()> {
    if a.tool_timeout.is_nan() || a.tool_timeout <= 0.0 {
        return Err(UsageError(format!(
            "--tool-timeout must be a number of seconds > 0, not {}",
            a.tool_timeout
        ))
        .into());
    }
    set_threads(0);
    if let Some(m) = a
        .model
        .as_deref()
        .filter(|m| crate::io::ring_model::is_ring_model(&std::fs::read_to_string(m).unwrap_or_default()))
    {
        return super::ring::verify(a, m);
    }
    let all = !(a.icarus || a.yosys || a.abc || a.classifier || a.trainer);
    let net = load(a.model.as_deref(), a.circuit.as_deref(), None)?;
    let name = module_name(&net.names().model);
    let work = match (&a.work, &a.model, &a.circuit) {
        (Some(w), _, _) => w.clone(),
        (None, Some(m), _) => m.parent().unwrap_or(Path::new(".")).join("verify"),
        (None, None, _) => PathBuf::from("verify").join(&name),
    };
    super::common::check_output_folder(&format!("--work {}", work.display()), &work)?;
    // Every file verify writes in `work` is `<name>...` or `verify.json`: none of them may
    // be the file being verified.
    let written: Vec<PathBuf> = std::fs::read_dir(&work)
        .map(|dir| {
            dir.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.file_name()
                        .is_some_and(|f| f.to_string_lossy().starts_with(&name) || f == "verify.json")
                })
                .collect()
        })
        .unwrap_or_default();
    let outputs: Vec<&Path> = written.iter().map(PathBuf::as_path).collect();
    let input = a.model.as_deref().or(a.circuit.as_deref()).unwrap_or(Path::new(""));
    super::common::check_outputs(&outputs, &[input], Some(a.force))?;
    std::fs::create_dir_all(&work).with_context(|| format!("creating {}", work.display()))?;
    let work = work.canonicalize().with_context(|| format!("resolving {}", work.display()))?;
    let vp = VerilogParams { lut_style: LutStyle::from(a.lut_style), pipeline: a.pipeline, valid: false };
    let verilog = work.join(format!("{name}.v"));
    export_to(&verilog, &net, Format::Verilog, &vp)?;
    let c = net.circuit();
    let mut report = VerifyReport {
        name: name.clone(),
        work: work.clone(),
        inputs: c.n_inputs(),
        outputs: c.n_outputs(),
        gates: c.n_gates(),
        icarus: None,
        yosys: None,
        abc: None,
        classifier: None,
        trainer: None,
        ok: true,
    };
    let mut failures = Vec::new();
    if a.icarus || all {
        let random = random_inputs(c.n_inputs(), a.vectors, 0);
        let (examples, data) = match data_examples(a, c.n_inputs())? {
            Some((x, from)) => (Some(x), from),
            None => (None, String::new()),
        };
        let data_vectors = examples.as_ref().map_or(0, BitMatrix::examples);
        let inputs = match &examples {
            Some(x) => BitMatrix::concat_examples(&[x, &random]),
            None => random,
        };
        let files = write_bench(
            &work,
            &net,
            &inputs,
            &crate::io::testbench::BenchParams { latency: a.pipeline, valid: false },
        )?;
        let (result, vectors, log) =
            match run_icarus_limited(&work, &files.bench, &verilog, &files.module, 1, &a.tool_limits())? {
                IcarusOutcome::Pass { vectors, log } => ("pass", vectors, log),
                IcarusOutcome::Mismatch { report, log } => {
                    failures.push(format!(
                        "Icarus: the Verilog mismatches the simulator ({})\n{report}",
                        log.display()
                    ));
                    ("fail", files.n_vectors, log)
                }
            };
        let r = IcarusReport { result: result.into(), vectors, data_vectors, data, log };
        if !a.json {
            let from = if r.data_vectors > 0 {
                format!("{} examples of {} + {} random", r.data_vectors, r.data, r.vectors - r.data_vectors)
            } else {
                "random".into()
            };
            println!("icarus: {} on {} vectors ({from}; {})", r.result, r.vectors, r.log.display());
        }
        report.icarus = Some(r);
    }
    if a.yosys || all {
        let r = yosys_checks(a, &net, &work, &verilog, &mut failures)?;
        if !a.json {
            let c = &r.counts;
            println!(
                "yosys ({} read): {} LUT6, {} SB_LUT4; ABC cec against {}: LUT6 netlist {}, iCE40 netlist {}",
                r.input.display(),
                c.lut6,
                c.sb_lut4,
                r.reference,
                r.lut6_check,
                r.ice40_check
            );
        }
        report.yosys = Some(r);
    }
    if a.abc || all {
        let r = abc_checks(a, &net, &work, &name, &mut failures)?;
        if !a.json {
            println!("abc cec against {}: BLIF {}, AIGER {}", r.reference, r.blif, r.aiger);
        }
        report.abc = Some(r);
    }
    if let (Some(m), true) = (&a.model, a.classifier || all) {
        let r = classifier_check(m, &net, &mut failures)?;
        if !a.json {
            println!("classifier.aig against the trained network: {r}");
        }
        report.classifier = Some(r);
    }
    if a.trainer {
        let (r, failure) = super::trainer_hw::verify(a, &work)?;
        if !a.json {
            println!("{}", super::trainer_hw::summary(&r));
        }
        failures.extend(failure);
        report.trainer = Some(r);
    }
    report.ok = failures.is_empty();
    write_json_file(&work.join("verify.json"), &report)?;
    if a.json {
        println!("{}", serde_json::to_string(&report)?);
    }
    if failures.is_empty() { Ok(()) } else { Err(CheckFailed(failures.join("; ")).into()) }
}

/// Whether `DIR/classifier.aig` computes what the trained network `net` computes:
/// `equivalent (...)`, `undecided (...)`, `none` (no classifier saved), `skipped (...)`
/// when the run's pass script changes the function off the training data; a
/// counterexample is a failure.
///
/// # Errors
/// A stale or unreadable classifier file, a run configuration that cannot be read.
fn classifier_check(model: &Path, net: &Netlist, failures: &mut Vec<String>) -> anyhow::Result<String> {
    use crate::pass::cec::{CecParams, Verdict, cec};
    use crate::pipeline::SavedClassifier;
    let aig = match crate::pipeline::saved_classifier(model)? {
        SavedClassifier::Matching(aig) => aig,
        SavedClassifier::Missing => return Ok("none (no classifier.aig beside the model)".into()),
        SavedClassifier::Stale(path) => {
            return Err(UsageError(format!(
                "{}: written for another model than {}",
                path.display(),
                model.display()
            ))
            .into());
        }
    };
    let config = model.with_file_name(super::train::CONFIG_FILE);
    if config.exists() {
        let options = crate::pipeline::TrainOptions::read(&config)?;
        let script = options.passes.as_deref().unwrap_or("");
        let passes = pass::parse_script(
            script,
            &pass::PassContext { care: Some(BitMatrix::zeros(aig.n_inputs(), 0)) },
        )?;
        if passes.iter().any(|p| !p.preserves_function()) {
            return Ok(format!(
                "skipped (the run's passes '{script}' change the function off the training data)"
            ));
        }
    }
    let reference = Aig::from_circuit(net.circuit(), None);
    let r = cec(&reference, &aig, &CecParams::default())?;
    let how = format!("{:?}, {:.2} s", r.method, r.seconds).to_lowercase();
    Ok(match r.verdict {
        Verdict::Equivalent => format!("equivalent ({how})"),
        Verdict::Undecided { outputs } => {
            format!("undecided ({} outputs unproven within the limits; {how})", outputs.len())
        }
        Verdict::NotEquivalent { outputs, .. } => {
            failures.push(format!("classifier.aig differs from the trained network on outputs {outputs:?}"));
            format!("NOT equivalent (outputs {outputs:?} differ)")
        }
    })
}

fn write_file(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    write_atomic(path, bytes).with_context(|| format!("writing {}", path.display()))
}

/// The examples Icarus checks besides random vectors, encoded by the model's own
/// encoder, and where they came from: for image data (`fashion-mnist`, an IDX directory)
/// every image of the test split, for other data every row. `None` without a model, or
/// when the model's data set cannot be found by name and `--data` was not given.
///
/// # Errors
/// `--data` that cannot be read or does not fit the model.
fn data_examples(a: &VerifyArgs, n_inputs: usize) -> anyhow::Result<Option<(BitMatrix, String)>> {
    let Some(m) = &a.model else { return Ok(None) };
    let file = ModelFile::read(m)?;
    let name = a.data.as_deref().unwrap_or(&file.dataset);
    let limit = a.max_memory.unwrap_or_else(data::MemoryLimit::available);
    let load = || -> anyhow::Result<(BitMatrix, String)> {
        let (ds, from) =
            match crate::pipeline::load_images(name, None).map_err(|e| UsageError(e.to_string()))? {
                Some(img) => {
                    let names: Vec<&str> = img.class_names.iter().map(String::as_str).collect();
                    (img.splits.test.to_dataset_within(&img.name, &names, &limit)?, img.test_source)
                }
                None => (data::load_dataset_within(name, &limit)?, name.to_owned()),
            };
        let x = file
            .encoder
            .encode_within(&ds, &limit)
            .with_context(|| format!("encoding {name} for {}", m.display()))?;
        if x.rows() != n_inputs {
            return Err(UsageError(format!(
                "{name} encodes to {} bits, the model {} has {n_inputs} inputs",
                x.rows(),
                m.display()
            ))
            .into());
        }
        Ok((x, from))
    };
    // Without --data, a data set name that is neither built in nor a readable path
    // leaves random vectors only (the report says how many came from data); any other
    // failure (data that no longer fits the model, too large) is an error, not a silent
    // drop of the data vectors.
    match load() {
        Ok(found) => Ok(Some(found)),
        Err(e)
            if a.data.is_none() && matches!(e.downcast_ref::<DataError>(), Some(DataError::Unknown(_))) =>
        {
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// Yosys counts of `--yosys-flow`'s input, and ABC `cec` of the mapped netlists (and of
/// the AIG Yosys read) against the model; a netlist found not equivalent is a failure.
fn yosys_checks(
    a: &VerifyArgs,
    net: &Netlist,
    work: &Path,
    verilog: &Path,
    failures: &mut Vec<String>,
) -> anyhow::Result<YosysReport> {
    let name = &net.names().model;
    let flow = YosysFlow::from(a.yosys_flow);
    let mut check = |reference: &str, file: &str, what: &str| -> anyhow::Result<String> {
        let log = work.join(format!("{name}.cec-{what}.log"));
        cec_verdict(work, reference, file, Matching::Names, (&log, &a.tool_limits()), failures)
    };
    let (input, passes, input_and_nodes, reference, input_check) = match flow {
        YosysFlow::Aig => {
            let script = pass::parse_script(&a.yosys_passes, &pass::PassContext::default())
                .map_err(|e| UsageError(format!("--yosys-passes: {e}")))?;
            if script.iter().any(|p| !p.preserves_function()) {
                return Err(UsageError("--yosys-passes: function-preserving passes only".into()).into());
            }
            // As `train` lowers a model before counting its AND nodes.
            let lowered = Aig::from_circuit_with(
                net.circuit(),
                None,
                &LowerParams { exact_inputs: 3, exact_max_nodes: 12 },
            );
            let (aig, _) = pass::run_script(&lowered, &script, false)?;
            let file = format!("{name}.yosys.aig");
            let path = work.join(&file);
            write_atomic_with(&path, |w| write_aiger(&aig, net.names(), AigerFormat::Binary, w))
                .with_context(|| format!("writing {}", path.display()))?;
            let model = write_minterm_blif(net, work, &format!("{name}.ref.blif"))?;
            let verdict = check(&model, &file, "yosys-input")?;
            (path, Some(a.yosys_passes.clone()), Some(aig.n_ands()), file, Some(verdict))
        }
        YosysFlow::Verilog => {
            // Yosys writes the module's ports under their Verilog names: `x[i]` and
            // `y[j]`, or `x` and `y` for one-bit ports.
            let port = |base: &str, n: usize| -> Vec<String> {
                if n == 1 { vec![base.into()] } else { (0..n).map(|i| format!("{base}[{i}]")).collect() }
            };
            let c = net.circuit();
            let names = PortNames {
                model: name.clone(),
                inputs: port("x", c.n_inputs()),
                outputs: port("y", c.n_outputs()),
            };
            let renamed = Netlist::new(names, c.clone())?;
            let reference = write_minterm_blif(&renamed, work, &format!("{name}.verilog-ref.blif"))?;
            (verilog.to_path_buf(), None, None, reference, None)
        }
    };
    let counts = yosys_counts_limited(&input, name, flow, &a.tool_limits())?;
    let file_name = |p: &Path| p.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
    let lut6_check = check(&reference, &file_name(&counts.lut6_netlist), "lut6")?;
    let ice40_check = check(&reference, &file_name(&counts.ice40_netlist), "ice40")?;
    Ok(YosysReport {
        counts,
        input,
        passes,
        input_and_nodes,
        reference,
        input_check,
        lut6_check,
        ice40_check,
    })
}

/// Writes `net` as a one-row-per-minterm BLIF (a cover written without the ISOP code the
/// BLIF export uses) named `file` in `work`, and returns `file`.
fn write_minterm_blif(net: &Netlist, work: &Path, file: &str) -> anyhow::Result<String> {
    let text = to_blif(net, &BlifParams { cover: CoverStyle::Minterms });
    write_file(&work.join(file), text.as_bytes())?;
    Ok(file.to_owned())
}

/// ABC `cec` of `file` against `reference` (both in `work`, log at `log`): `"equivalent"`,
/// or `"not equivalent"` with the counterexample report added to `failures`.
fn cec_verdict(
    work: &Path,
    reference: &str,
    file: &str,
    matching: Matching,
    (log, limits): (&Path, &ToolLimits),
    failures: &mut Vec<String>,
) -> anyhow::Result<String> {
    Ok(match abc_cec_limited(work, reference, file, matching, log, limits)? {
        Cec::Equivalent => "equivalent".into(),
        Cec::NotEquivalent { report } => {
            failures
                .push(format!("ABC: {file} is not equivalent to {reference} ({})\n{report}", log.display()));
            "not equivalent".into()
        }
    })
}

/// ABC `cec` of the BLIF and AIGER exports against a reference: for a `.blif` or `.aig`
/// circuit file, the file itself; otherwise the one-row-per-minterm BLIF of the circuit
/// (a cover written without the ISOP code the BLIF export uses; the AIGER export goes
/// through the AIG lowering instead).
fn abc_checks(
    a: &VerifyArgs,
    net: &Netlist,
    work: &Path,
    name: &str,
    failures: &mut Vec<String>,
) -> anyhow::Result<AbcReport> {
    // ABC reads BLIF and binary AIGER but not ASCII `.aag`: such a file is compared
    // through the truth-table BLIF of the circuit read from it.
    let original = a.circuit.as_ref().filter(|f| f.extension().is_some_and(|e| e == "blif" || e == "aig"));
    let reference = match original {
        Some(file) => {
            let ext = file.extension().and_then(|e| e.to_str()).unwrap_or("blif");
            let copy = format!("{name}.orig.{ext}");
            let bytes = std::fs::read(file).with_context(|| format!("reading {}", file.display()))?;
            write_file(&work.join(&copy), &bytes)?;
            copy
        }
        None => write_minterm_blif(net, work, &format!("{name}.ref.blif"))?,
    };
    // AIGER files may lack symbols: pair their ports by position (our exports keep it).
    let matching = if reference.ends_with(".blif") { Matching::Names } else { Matching::Positions };
    let mut verdict = |format: Format, ext: &str| -> anyhow::Result<String> {
        let file = format!("{name}.{ext}");
        export_to(&work.join(&file), net, format, &VerilogParams::default())?;
        let log = work.join(format!("{name}.cec-{ext}.log"));
        cec_verdict(work, &reference, &file, matching, (&log, &a.tool_limits()), failures)
    };
    let blif = verdict(Format::Blif, "blif")?;
    let aiger = verdict(Format::Aiger, "aig")?;
    Ok(AbcReport { reference, blif, aiger })
}

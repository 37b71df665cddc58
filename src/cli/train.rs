//! `circuitlearn train`: read the options (flags over `--config FILE.toml` over a preset),
//! run the library pipeline, write the run directory: `config.toml` (the effective
//! options, what `--resume` reads), `model.json` (as soon as training ends),
//! `classifier.aig` (the AIG `and_nodes` counts), `metrics.json`, the Verilog export
//! under `verilog/`, and `checkpoint.bin` with `--checkpoint-every`.

use super::common::{UsageError, check_output_folder, progress, set_threads, write_json_file};
use super::export::export_trained;
use crate::pipeline::{
    self, CHECKPOINT_FILE, Hardware, PRESETS, PipelineError, TrainConfig, TrainOptions, implied_preset,
};
use anyhow::Context;
use clap::Args;
use std::path::{Path, PathBuf};

/// The effective options' file inside the run directory.
pub const CONFIG_FILE: &str = "config.toml";

/// Present in a run directory while a run writes it (and after a run that did not finish).
pub const INCOMPLETE_FILE: &str = "INCOMPLETE";

/// What a fresh run replaces in its directory, so that no file of an earlier run stays
/// beside the new ones.
const RUN_OUTPUTS: [&str; 6] =
    ["model.json", "metrics.json", "classifier.aig", "verilog", CHECKPOINT_FILE, CONFIG_FILE];

/// Holds `DIR/.lock` while a run writes `DIR`: a second run into the same directory is
/// refused instead of interleaving its files. A lock left by a killed run (its process
/// gone) is taken over.
struct RunLock(PathBuf);

impl RunLock {
    fn take(dir: &Path) -> anyhow::Result<Self> {
        let path = dir.join(".lock");
        let me = format!("{}\n", std::process::id());
        for _ in 0..2 {
            if crate::io::create_new(&path, me.as_bytes())
                .with_context(|| format!("creating {}", path.display()))?
            {
                return Ok(Self(path));
            }
            let holder = std::fs::read_to_string(&path).unwrap_or_default();
            let pid: Option<u32> = holder.trim().parse().ok();
            if pid.is_some_and(|p| Path::new(&format!("/proc/{p}")).exists()) {
                return Err(UsageError(format!(
                    "{}: another run (pid {}) is writing this directory; wait for it or choose another --out",
                    dir.display(),
                    pid.unwrap_or(0)
                ))
                .into());
            }
            // The holder is gone (killed): its lock is stale.
            let _ = std::fs::remove_file(&path);
        }
        Err(UsageError(format!("{}: cannot take the run directory's lock", dir.display())).into())
    }
}

impl Drop for RunLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Arguments of `train`.
#[derive(Clone, Debug, Args)]
pub struct TrainArgs {
    /// The run's options.
    #[command(flatten)]
    pub options: TrainOptions,
    /// Read options from a TOML file (keys as the long flags: `input-candidates = 32`);
    /// flags given as well override it.
    #[arg(long, value_name = "FILE.toml")]
    pub config: Option<PathBuf>,
    /// Print the presets with their measured figures and exit.
    #[arg(long)]
    pub list_presets: bool,
    /// Continue the run in DIR from its checkpoint.bin with its config.toml (only
    /// --threads and --json may be given with it); ends with the model an uninterrupted
    /// run writes.
    #[arg(long, value_name = "DIR")]
    pub resume: Option<PathBuf>,
    /// Print the metrics as one JSON object on the last line.
    #[arg(long)]
    pub json: bool,
}

/// Errors of the pipeline as the command line classifies them.
fn cli_error(e: PipelineError) -> anyhow::Error {
    if e.is_bad_input() { UsageError(e.to_string()).into() } else { anyhow::Error::new(e) }
}

/// The options of the run: `--resume DIR`'s config, or flags over `--config`.
fn options(a: &TrainArgs) -> anyhow::Result<TrainOptions> {
    let Some(dir) = &a.resume else {
        let file =
            a.config.as_deref().map(TrainOptions::read).transpose().map_err(|e| UsageError(e.to_string()))?;
        return Ok(file.unwrap_or_default().overlay(&a.options));
    };
    let mut others: Vec<String> = TrainOptions { threads: None, ..a.options.clone() }.given();
    if a.config.is_some() {
        others.push("--config".to_owned());
    }
    if let Some(flag) = others.first() {
        return Err(UsageError(format!(
            "--resume: {flag} cannot be given with it (the run continues with {}; only --threads and --json apply)",
            dir.join(CONFIG_FILE).display()
        ))
        .into());
    }
    let path = dir.join(CONFIG_FILE);
    let mut o = TrainOptions::read(&path).map_err(|e| UsageError(format!("cannot resume: {e}")))?;
    o.out = Some(dir.clone());
    if a.options.threads.is_some() {
        o.threads = a.options.threads;
    }
    Ok(o)
}

/// Runs `train`.
///
/// # Errors
/// Bad data, options or files (exit 2); failure to write the outputs or a failed
/// hardware check (exit 1).
pub fn run(a: &TrainArgs) -> anyhow::Result<()> {
    if a.list_presets {
        for p in &PRESETS {
            println!("{}\n  {}\n", p.name, p.figure);
            for line in p.toml.lines() {
                println!("    {line}");
            }
            println!();
        }
        return Ok(());
    }
    let given = options(a)?;
    let Some(run) = train_options(&given, a.resume.as_deref(), a.json, crate::dist::comm_world())? else {
        return Ok(());
    };
    if a.json {
        println!("{}", serde_json::to_string(&run.metrics)?);
    } else {
        print_summary(&run.metrics, &run.out);
        if let Some(h) = &run.hardware {
            println!("{}", h.summary);
        }
    }
    run.hardware.map_or(Ok(()), |h| h.check())
}

/// A run that finished: its metrics, directory and hardware outcome (checked by the caller).
pub(super) struct FinishedRun {
    /// `metrics.json`'s object.
    pub metrics: serde_json::Value,
    /// The run directory.
    pub out: PathBuf,
    /// The Verilog export and its Icarus outcome, if the run made one.
    pub hardware: Option<super::export::TrainedExport>,
}

/// Trains the run `given` describes (continuing the one in `resume`) over `comm`, writes
/// its directory and returns what it measured; `None` on ranks other than 0, which train
/// alongside rank 0 and write nothing. `quiet` hides the progress and the preset notice.
///
/// # Errors
/// As [`run`].
pub(super) fn train_options(
    given: &TrainOptions,
    resume_dir: Option<&Path>,
    quiet: bool,
    comm: std::rc::Rc<dyn crate::dist::Comm>,
) -> anyhow::Result<Option<FinishedRun>> {
    let cfg = TrainConfig::resolve(given).map_err(|e| UsageError(e.to_string()))?;
    if let Some(p) = &cfg.preset
        && given.preset.is_none()
        && resume_dir.is_none()
        && !quiet
    {
        eprintln!(
            "train: --data {} uses preset {p} (train --list-presets); --preset none for the plain defaults",
            cfg.data
        );
    }
    // The effective options: the preset's keys made explicit under the given ones.
    let effective = match implied_preset(given) {
        Some(name) => {
            let mut e = pipeline::preset(&name).map(|p| p.options()).unwrap_or_default().overlay(given);
            e.preset = Some(name);
            e
        }
        None => given.clone(),
    };
    if let Some(out) = &cfg.out {
        check_output_folder(&format!("--out {}", out.display()), out)?;
    }
    set_threads(crate::dist::threads_per_rank(cfg.threads));
    let data = pipeline::load_data(&cfg).map_err(cli_error)?;
    let out = pipeline::run_dir(&cfg, &data);
    if cfg.out.is_none() {
        // The default folder, `runs/<data>`, is known once the data has its name.
        check_output_folder(&format!("--out (default) {}", out.display()), &out)?;
    }
    let resume = resume_dir.map(|d| d.join(CHECKPOINT_FILE));
    // Under `mpirun -np N` every rank trains its share; only rank 0 touches the directory.
    if comm.rank() != 0 {
        train_as_worker(&cfg, &data, resume.as_deref(), comm)?;
        return Ok(None);
    }
    let _lock = RunLock::take(&out)?;
    let incomplete = out.join(INCOMPLETE_FILE);
    crate::io::write_atomic(
        &incomplete,
        b"a run is writing this directory, or one stopped before it finished\n",
    )
    .with_context(|| format!("writing {}", incomplete.display()))?;
    if resume.is_none() {
        for name in RUN_OUTPUTS {
            let p = out.join(name);
            let _ = if p.is_dir() { std::fs::remove_dir_all(&p) } else { std::fs::remove_file(&p) };
        }
        // A boosted run's finished networks.
        for m in 0..pipeline::MAX_BOOST {
            let _ = std::fs::remove_file(out.join(pipeline::member_checkpoint_file(m)));
        }
        let path = out.join(CONFIG_FILE);
        let text =
            format!("# circuitlearn train: the effective options of this run\n{}", effective.to_toml());
        crate::io::write_atomic(&path, text.as_bytes())
            .with_context(|| format!("writing {}", path.display()))?;
    }
    let bar = progress(cfg.epochs as u64, quiet, "train");
    if let Some(r) = &resume
        && !r.parent().is_some_and(pipeline::has_checkpoint)
    {
        return Err(UsageError(format!(
            "{}: cannot resume: no checkpoint (was the run started with --checkpoint-every?)",
            r.display()
        ))
        .into());
    }
    bar.set_position(0);
    let trained = crate::dist::scope(comm, || {
        pipeline::train(&cfg, &data, resume.as_deref(), &mut |p| {
            if p.teacher {
                // The model's bar stays at 0 while its teacher trains.
                bar.set_message(format!("teacher epoch {}/{}: {}", p.epoch, p.epochs, p.line));
                return;
            }
            bar.set_position(p.epoch as u64 - 1);
            bar.set_message(p.line.clone());
            bar.inc(1);
        })
    })
    .map_err(cli_error)?;
    bar.finish_and_clear();
    // The steps after training took a minute or two of the default Fashion-MNIST run:
    // a bar says which one is running (without a terminal, a line after each that took
    // 2 seconds or more).
    let hardware = cfg.hardware != Hardware::None
        && (trained.circuit().is_some() || matches!(trained.model, pipeline::TrainedModel::Poly { .. }));
    let finish =
        progress(2 + u64::from(hardware), quiet, "finish").silent_below(std::time::Duration::from_secs(2));
    finish.set_message("synthesis of the classifier");
    // The model first: whatever fails after this, the run is not lost.
    trained.write_model(&out.join("model.json"), &cfg).map_err(cli_error)?;
    let synth = pipeline::synthesize(&cfg, &trained).map_err(cli_error)?;
    finish.inc(1);
    if let Some(s) = &synth {
        let (model, path) = (out.join("model.json"), out.join(pipeline::CLASSIFIER_FILE));
        let bytes = std::fs::read(&model).with_context(|| format!("reading {}", model.display()))?;
        pipeline::write_classifier(&path, &s.aig, &bytes)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    if hardware {
        let check = if cfg.hardware == Hardware::Verify { ", checked in Icarus" } else { "" };
        finish.set_message(format!("Verilog and testbench{check}"));
    }
    let hw = match (trained.circuit(), cfg.hardware, &trained.x_train, &trained.x_test) {
        _ if cfg.hardware == Hardware::None => None,
        (None, ..)
            if let (pipeline::TrainedModel::Poly { model, x_train, x_test, .. }, Some(s)) =
                (&trained.model, &synth) =>
        {
            Some(super::ring::train_hardware(
                &module_name(&out, &data.name),
                model,
                &s.aig,
                (x_train, x_test),
                &out.join("verilog"),
                cfg.hardware == Hardware::Verify,
            )?)
        }
        (Some((net, params)), Hardware::Verify | Hardware::Export, Some(xtr), Some(xte)) => {
            let dir = out.join("verilog");
            let doc =
                crate::io::ModelFile::read(&out.join("model.json")).map(|m| m.port_doc()).unwrap_or_default();
            Some(export_trained(
                (&module_name(&out, &data.name), &doc),
                &net.classifier(),
                params,
                (xtr, xte),
                &dir,
                &dir,
                cfg.hardware == Hardware::Verify,
            )?)
        }
        _ => None,
    };
    if hardware {
        finish.inc(1);
    }
    finish.set_message("the figures of metrics.json");
    let icarus = hw.as_ref().map_or(if synth.is_some() { "none" } else { "" }, |h| h.icarus.as_str());
    let metrics = pipeline::metrics(&cfg, &data, &trained, synth.as_ref(), icarus);
    finish.inc(1);
    finish.finish_and_clear();
    write_json_file(&out.join("metrics.json"), &metrics)?;
    std::fs::remove_file(&incomplete).with_context(|| format!("removing {}", incomplete.display()))?;
    Ok(Some(FinishedRun { metrics, out, hardware: hw }))
}

/// A rank other than 0 under `mpirun`: trains alongside rank 0 (the same collectives in
/// the same order) and writes nothing.
fn train_as_worker(
    cfg: &TrainConfig,
    data: &pipeline::TrainData,
    resume: Option<&Path>,
    comm: std::rc::Rc<dyn crate::dist::Comm>,
) -> anyhow::Result<()> {
    if let Some(r) = resume
        && !r.parent().is_some_and(pipeline::has_checkpoint)
    {
        return Err(UsageError(format!("{}: cannot resume: no checkpoint", r.display())).into());
    }
    crate::dist::scope(comm, || pipeline::train(cfg, data, resume, &mut |_| {})).map_err(cli_error)?;
    Ok(())
}

/// The Verilog module's name: the run directory's name.
fn module_name(out: &Path, data: &str) -> String {
    out.file_name().map_or_else(|| data.to_owned(), |n| n.to_string_lossy().into_owned())
}

fn print_summary(m: &serde_json::Value, out: &Path) {
    let four = |v: &serde_json::Value| v.as_f64().map_or_else(|| "n/a".to_owned(), |v| format!("{v:.4}"));
    let f = |k: &str| four(&m[k]);
    // With --valid-fold the `test_*` figures are the held-out fold's.
    let (held, examples) = match m.get("validation") {
        Some(v) => (
            "valid",
            format!(
                "{} examples of validation fold {}/{}; the test split is not evaluated",
                m["test_examples"], v["fold"], v["folds"]
            ),
        ),
        None => ("test", format!("{} test examples", m["test_examples"])),
    };
    let mut line = format!(
        "{} on {} ({}): train {}, {held} {} ({examples})",
        m["model"].as_str().unwrap_or(""),
        m["dataset"].as_str().unwrap_or(""),
        m["domain"].as_str().unwrap_or(""),
        f("train_accuracy"),
        f("test_accuracy"),
    );
    if m["domain"] != "smooth" {
        line += &format!(", {} trained gates", m["gates"]);
    }
    if let Some(a) = m["and_nodes"].as_u64() {
        line += &format!(", {a} AND nodes (whole classifier, classifier.aig)");
    }
    if let Some(b) = m.get("boost") {
        let alone: Vec<String> =
            b["members"].as_array().into_iter().flatten().map(|n| four(&n["test_accuracy"])).collect();
        line += &format!(
            "; {} boosted networks, {held} alone {}, {} live gates",
            b["trained"],
            alone.join(" / "),
            m["live_gates"]
        );
    } else if let Some(c) = m.get("cascade") {
        let classes: Vec<String> =
            c["classes"].as_array().into_iter().flatten().map(ToString::to_string).collect();
        line += &format!(
            "; first network alone {held} {}, specialist for classes {} {held} {} among them, {} live gates",
            four(&c["first"]["test_accuracy"]),
            classes.join(","),
            four(&c["specialist"]["test_accuracy"]),
            m["live_gates"]
        );
    } else if m["domain"] == "relaxed" {
        line += &format!(
            "; relaxed train {} {held} {}, {} live gates",
            f("relaxed_train_accuracy"),
            f("relaxed_test_accuracy"),
            m["live_gates"]
        );
    }
    line += &format!(
        ", {} epochs ({}), {:.2}s",
        m["epochs"],
        m["stop_reason"].as_str().unwrap_or(""),
        m["seconds"].as_f64().unwrap_or(0.0)
    );
    println!("{line}");
    if let Some(i) = m.get("init") {
        println!("started from {} ({held} {})", i["model"].as_str().unwrap_or(""), i["test_accuracy"]);
    }
    println!("wrote {}/model.json and {}/metrics.json", out.display(), out.display());
}

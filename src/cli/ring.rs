//! Ring models (`model.json` with `"domain": "poly"`) on the command line: the hardware
//! `train` writes after a poly run, and what `eval`, `export` and `verify` do with such a
//! model. The Verilog is word-level (one `W`-bit wire per ring wire); BLIF, AIGER and
//! DOT are the counted classifier (`classifier.aig`, the bit-blasted classifier after the
//! run's pass script; the bit-blasted classifier itself when there is none). Every
//! testbench's expected outputs come from that counted circuit, and the bit-blasted
//! circuit is property-tested equal to the ring evaluator, so an Icarus pass means the
//! word-level Verilog and the counted AIG compute the ring model bit for bit.

use super::common::UsageError;
use super::export::{Format, TRAIN_ICARUS_TIMEOUT, TrainedExport, export_to, write_bench};
use crate::domain::blast_ring::bit_blast_ring;
use crate::domain::ring_kind::{RingGate, RingKind};
use crate::io::ring_model::RingModelFile;
use crate::io::verilog::{VerilogParams, module_name};
use crate::io::verilog_ring::ring_verilog;
use crate::io::{Netlist, write_atomic};
use crate::lanes::BitMatrix;
use crate::learn::ring_model::{FeatureCoding, RingModel};
use crate::tools::{Cec, Matching, ToolLimits, abc_cec_limited};
use anyhow::Context;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::Path;

/// Reads a ring model file, bad files as usage errors.
///
/// # Errors
/// [`UsageError`] naming the file.
pub fn read(path: &Path) -> anyhow::Result<(RingModelFile, RingModel, FeatureCoding)> {
    RingModelFile::read(path).map_err(|e| UsageError(e.to_string()).into())
}

/// Encoded examples as input bit rows of the bit-blasted classifier (`W` bits per feature).
#[must_use]
pub fn rows_to_bits(rows: &[Vec<u64>], ring: RingKind) -> BitMatrix {
    let w = ring.width();
    let bits: Vec<Vec<bool>> =
        rows.iter().map(|x| x.iter().flat_map(|&v| (0..w).map(move |i| v >> i & 1 == 1)).collect()).collect();
    BitMatrix::from_examples(rows.first().map_or(0, Vec::len) * w, &bits)
}

/// `count` random examples of valid elements (uniform over the signed range), from seed 0.
#[must_use]
pub fn random_rows(n: usize, count: usize, ring: RingKind) -> Vec<Vec<u64>> {
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    (0..count)
        .map(|_| {
            (0..n)
                .map(|_| ring.from_signed(rng.random_range(ring.min_signed()..=ring.max_signed())))
                .collect()
        })
        .collect()
}

/// The classifier and its bit-blasted netlist named `name`.
fn netlists(model: &RingModel, name: &str) -> (crate::circuit::Circuit<RingGate>, Netlist) {
    let classifier = model.classifier();
    let blasted = bit_blast_ring(&classifier, model.ring);
    (classifier, Netlist::indexed(&module_name(name), blasted))
}

/// The counted classifier of the model at `model_path` named `name`: its
/// `classifier.aig` when it was written for this model file, else (none saved) the
/// bit-blasted classifier, with a note on stderr.
///
/// # Errors
/// A `classifier.aig` written for another model (exit 2), or one that cannot be read.
fn counted(model_path: &Path, model: &RingModel, name: &str) -> anyhow::Result<Netlist> {
    use crate::pipeline::SavedClassifier;
    match crate::pipeline::saved_classifier(model_path)? {
        SavedClassifier::Matching(aig) => Ok(Netlist::indexed(&module_name(name), aig.to_circuit())),
        SavedClassifier::Stale(path) => Err(UsageError(format!(
            "{}: written for another model than {} (re-run `train`)",
            path.display(),
            model_path.display()
        ))
        .into()),
        SavedClassifier::Missing => {
            eprintln!(
                "note: no {} beside {}; using the bit-blasted classifier",
                crate::pipeline::CLASSIFIER_FILE,
                model_path.display()
            );
            Ok(netlists(model, name).1)
        }
    }
}

/// Writes `dir/<name>.v` (word-level) and a bench over `rows` into `dir` whose expected
/// outputs are those of `reference` (the counted classifier, named `name`); runs Icarus on
/// every vector within `limits` (`None`: not run).
///
/// # Errors
/// Files that cannot be written.
pub fn export_ring_trained(
    model: &RingModel,
    reference: &Netlist,
    rows: &[Vec<u64>],
    dir: &Path,
    limits: Option<&ToolLimits>,
) -> anyhow::Result<TrainedExport> {
    let (classifier, net) = (model.classifier(), reference);
    let module = net.names().model.clone();
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let verilog = dir.join(format!("{module}.v"));
    write_atomic(&verilog, ring_verilog(&classifier, model.ring, &module).as_bytes())
        .with_context(|| format!("writing {}", verilog.display()))?;
    let files = write_bench(
        dir,
        net,
        &rows_to_bits(rows, model.ring),
        &crate::io::testbench::BenchParams::default(),
    )?;
    let (icarus, detail) = super::export::icarus_outcome(dir, &files, &verilog, 1, limits, |v| {
        format!("Icarus: pass ({v} vectors, bit-exact)")
    });
    let summary = format!("wrote {} and {}; {detail}", verilog.display(), files.bench.display());
    Ok(TrainedExport { verilog, bench: files.bench, icarus: icarus.into(), summary })
}

/// `train`'s hardware after a poly run: the word-level Verilog checked against the
/// counted classifier `aig` on the training then the test examples.
///
/// # Errors
/// As [`export_ring_trained`].
pub fn train_hardware(
    name: &str,
    model: &RingModel,
    aig: &crate::aig::Aig,
    (x_train, x_test): (&[Vec<u64>], &[Vec<u64>]),
    dir: &Path,
    run_icarus: bool,
) -> anyhow::Result<TrainedExport> {
    let rows: Vec<Vec<u64>> = x_train.iter().chain(x_test).cloned().collect();
    let limits = run_icarus.then_some(ToolLimits { timeout: TRAIN_ICARUS_TIMEOUT });
    let reference = Netlist::indexed(&module_name(name), aig.to_circuit());
    export_ring_trained(model, &reference, &rows, dir, limits.as_ref())
}

/// The module name of a model file: its run directory's name, or `name`.
fn model_module(path: &Path, file: &RingModelFile, name: Option<&str>) -> String {
    let run_dir = path.parent().and_then(Path::file_name).map(|n| n.to_string_lossy().into_owned());
    module_name(&name.map(str::to_string).or(run_dir).unwrap_or_else(|| file.dataset.clone()))
}

/// `export --model` of a ring model.
///
/// # Errors
/// Flags that do not apply (exit 2); files that cannot be written.
pub fn export(a: &super::export::ExportArgs, model_path: &Path, format: Format) -> anyhow::Result<()> {
    if a.lut_style.is_some()
        || a.pipeline.is_some()
        || a.passes.is_some()
        || a.valid
        || a.raw_features.is_some()
        || a.from != super::export::ModelForm::Classifier
    {
        return Err(UsageError(
            "--lut-style, --pipeline, --valid, --raw-features, --from and --passes apply to Boolean models, not ring models"
                .into(),
        )
        .into());
    }
    let (file, model, _) = read(model_path)?;
    let name = model_module(model_path, &file, a.name.as_deref());
    let classifier = model.classifier();
    let net = counted(model_path, &model, &name)?;
    match format {
        Format::Verilog => write_atomic(&a.output, ring_verilog(&classifier, model.ring, &name).as_bytes())
            .with_context(|| format!("writing {}", a.output.display()))?,
        f => export_to(&a.output, &net, f, &VerilogParams::default())?,
    }
    println!(
        "wrote {} ({} in {}: {} ring gates, counted classifier {} AND nodes; {} inputs of {} bits, {} scores)",
        a.output.display(),
        model.spec,
        model.ring,
        classifier.n_gates(),
        crate::aig::Aig::from_circuit(net.circuit(), None).n_ands(),
        model.n_features,
        model.ring.width(),
        model.n_classes
    );
    if let Some(dir) = &a.testbench {
        let rows = random_rows(model.n_features, a.vectors, model.ring);
        let files = write_bench(
            dir,
            &net,
            &rows_to_bits(&rows, model.ring),
            &crate::io::testbench::BenchParams::default(),
        )?;
        println!(
            "wrote {} and {} ({} vectors)",
            files.bench.display(),
            files.vectors.display(),
            files.n_vectors
        );
    }
    Ok(())
}

/// The model's data (or `--data`) encoded by its coding: every example.
fn data_rows(data: &str, coding: &FeatureCoding, ring: RingKind) -> anyhow::Result<Vec<Vec<u64>>> {
    let ds = match crate::pipeline::load_images(data, None).map_err(|e| UsageError(e.to_string()))? {
        Some(img) => {
            let names: Vec<&str> = img.class_names.iter().map(String::as_str).collect();
            img.splits.test.to_dataset(&img.name, &names)?
        }
        None => crate::data::load_dataset(data)?,
    };
    Ok(coding.encode(&ds, ring, data).map_err(|e| UsageError(e.to_string()))?)
}

/// `eval` of a ring model on a data set: its spec and the class it predicts for each
/// example.
///
/// # Errors
/// Data that do not fit the model (exit 2).
pub fn predict(
    model_path: &Path,
    ds: &crate::data::Dataset,
    what: &str,
) -> anyhow::Result<(String, Vec<u32>)> {
    let (file, model, coding) = read(model_path)?;
    if file.class_names != ds.class_names {
        return Err(UsageError(format!(
            "{what}: classes {} do not match the model's {} ({})",
            ds.class_names.join(","),
            file.class_names.join(","),
            model_path.display()
        ))
        .into());
    }
    let rows = coding.encode(ds, model.ring, what).map_err(|e| UsageError(e.to_string()))?;
    Ok((format!("{} in {}", file.model, file.ring), model.predict(&rows)))
}

/// `verify --model` of a ring model: Icarus on every example of the model's data set
/// (or `--data`) and random elements; ABC `cec` of the AIGER export against the BLIF one.
///
/// # Errors
/// Bad input (exit 2); a failed check (exit 1).
pub fn verify(a: &super::verify::VerifyArgs, model_path: &Path) -> anyhow::Result<()> {
    if a.yosys || a.pipeline > 0 {
        return Err(
            UsageError("--yosys and --pipeline apply to Boolean models, not ring models".into()).into()
        );
    }
    let (file, model, coding) = read(model_path)?;
    let name = model_module(model_path, &file, None);
    let work = a.work.clone().unwrap_or_else(|| model_path.parent().unwrap_or(Path::new(".")).join("verify"));
    super::common::check_output_folder(&format!("--work {}", work.display()), &work)?;
    std::fs::create_dir_all(&work).with_context(|| format!("creating {}", work.display()))?;
    let work = work.canonicalize().with_context(|| format!("resolving {}", work.display()))?;
    let all = !(a.icarus || a.abc);
    let mut report =
        serde_json::json!({ "name": name, "work": work, "ring": file.ring, "model": file.model });
    let mut failures = Vec::new();
    if a.icarus || all {
        let data = a.data.clone().unwrap_or_else(|| file.dataset.clone());
        let (mut rows, found) = match data_rows(&data, &coding, model.ring) {
            Ok(rows) => (rows, rows_len_note(&data)),
            Err(e)
                if a.data.is_none()
                    && matches!(
                        e.downcast_ref::<crate::data::DataError>(),
                        Some(crate::data::DataError::Unknown(_))
                    ) =>
            {
                (Vec::new(), String::new())
            }
            Err(e) => return Err(e),
        };
        let data_vectors = rows.len();
        rows.extend(random_rows(model.n_features, a.vectors, model.ring));
        let limits =
            ToolLimits { timeout: std::time::Duration::from_secs_f64(a.tool_timeout.clamp(0.001, 1e9)) };
        let hw =
            export_ring_trained(&model, &counted(model_path, &model, &name)?, &rows, &work, Some(&limits))?;
        if hw.icarus == "skipped" || hw.icarus == "error" {
            anyhow::bail!("{}", hw.summary);
        }
        if hw.icarus != "pass" {
            failures.push(hw.summary.clone());
        }
        if !a.json {
            println!(
                "icarus: {} on {} vectors ({data_vectors} examples{found} + {} random; word-level Verilog against the counted classifier)",
                hw.icarus,
                rows.len(),
                rows.len() - data_vectors
            );
        }
        report["icarus"] = serde_json::json!({"result": hw.icarus, "vectors": rows.len(), "data_vectors": data_vectors, "data": data, "verilog": hw.verilog});
    }
    if a.abc || all {
        // The bit-blasted classifier (BLIF) against the counted one (AIGER): the pass
        // script kept the function.
        let (_, net) = netlists(&model, &name);
        let (blif, aig) = (format!("{name}.blif"), format!("{name}.aig"));
        export_to(&work.join(&blif), &net, Format::Blif, &VerilogParams::default())?;
        export_to(
            &work.join(&aig),
            &counted(model_path, &model, &name)?,
            Format::Aiger,
            &VerilogParams::default(),
        )?;
        let log = work.join(format!("{name}.cec-aig.log"));
        let limits =
            ToolLimits { timeout: std::time::Duration::from_secs_f64(a.tool_timeout.clamp(0.001, 1e9)) };
        let verdict = match abc_cec_limited(&work, &blif, &aig, Matching::Positions, &log, &limits)? {
            Cec::Equivalent => "equivalent".to_owned(),
            Cec::NotEquivalent { report } => {
                failures.push(format!("ABC: {aig} is not equivalent to {blif}\n{report}"));
                "not equivalent".to_owned()
            }
        };
        if !a.json {
            println!("abc cec: {aig} (counted) against {blif} (bit-blasted): {verdict}");
        }
        report["abc"] = serde_json::json!({"blif": blif, "aiger": aig, "result": verdict});
    }
    report["ok"] = serde_json::json!(failures.is_empty());
    super::common::write_json_file(&work.join("verify.json"), &report)?;
    if a.json {
        println!("{}", serde_json::to_string(&report)?);
    }
    if failures.is_empty() { Ok(()) } else { Err(super::verify::CheckFailed(failures.join("; ")).into()) }
}

fn rows_len_note(data: &str) -> String {
    format!(" of {data}")
}

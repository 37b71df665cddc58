//! The hardware trainer on the command line: `export --trainer` (the RDA training step
//! as clocked Verilog, with a bench that trains it in Icarus) and `verify --trainer`
//! (the same training in the Rust trainer and in Icarus, compared bit for bit).

use super::common::UsageError;
use super::export::ExportArgs;
use super::verify::VerifyArgs;
use crate::data::{self, DataError, Encoder, Encoding};
use crate::io::ModelFile;
use crate::io::trainer_bench::write_trainer_bench;
use crate::io::write_atomic;
use crate::lanes::BitMatrix;
use crate::learn::{Body, ModelSpec, Network};
use crate::pipeline::{HwMode, HwTrainCheck, HwTrainParams, check_trainer, rust_run};
use crate::train::{HwVoteParams, VoteParams};
use anyhow::Context;
use clap::{Args, ValueEnum};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::Path;

/// `--trainer-mode` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TrainerMode {
    /// Faithful RDA, one example per clock.
    Faithful,
    /// Batched vote counting as the hardware does it (saturating counters, xorshift
    /// acceptance; the Rust rule `rda-votes-hw`).
    VotesHw,
}

/// The hardware rule's options, shared by `export --trainer` and `verify --trainer`.
#[derive(Args, Clone, Debug)]
pub struct HwRuleArgs {
    /// With --trainer: the rule in hardware.
    #[arg(long, value_enum, default_value = "faithful")]
    pub trainer_mode: TrainerMode,
    /// With --trainer-mode votes-hw: examples per batch.
    #[arg(long, default_value_t = 32)]
    pub batch: usize,
    /// With --trainer-mode votes-hw: bits of each flip and keep counter (they saturate)
    /// [default: enough never to saturate over a batch].
    #[arg(long)]
    pub counter_bits: Option<u32>,
}

impl HwRuleArgs {
    /// The mode for `net`: the vote rule's defaults for its head (`VoteParams::for_head`)
    /// in hardware form, counters of `--counter-bits` bits, the generator seeded by `seed`.
    fn mode(&self, net: &Network, seed: u64) -> anyhow::Result<HwMode> {
        if let crate::learn::Head::Cascade { .. } = net.spec.head {
            return Err(UsageError(format!(
                "{}: a cascade's networks are trained by train --specialist, not by a hardware trainer",
                net.spec
            ))
            .into());
        }
        Ok(match self.trainer_mode {
            TrainerMode::Faithful => HwMode::Faithful,
            TrainerMode::VotesHw => {
                let v = VoteParams::for_head(net.spec.head, net.n_classes);
                HwMode::Votes(
                    HwVoteParams::for_batch(&v, self.counter_bits, self.batch, seed)
                        .map_err(|e| UsageError(e.to_string()))?,
                )
            }
        })
    }
}

/// A network, its initial parameters, its name and (when known) how data are encoded.
struct Source {
    net: Network,
    init: Vec<bool>,
    name: String,
    encoder: Option<Encoder>,
    dataset: Option<String>,
}

/// The trainer's source: a model file (its parameters as the initial ones) or a spec
/// (initial parameters as `train` draws them: zeros for a table, otherwise uniform bits
/// from the seed's generator); the spec takes its widths from `--data` or
/// `--inputs`/`--classes`.
fn source(a: &ExportArgs) -> anyhow::Result<Source> {
    if let Some(m) = &a.model {
        let file = ModelFile::read(m)?;
        let (net, init) = file.network(m)?;
        let run_dir = m.parent().and_then(Path::file_name).map(|n| n.to_string_lossy().into_owned());
        let name = a.name.clone().or(run_dir).unwrap_or_else(|| file.dataset.clone());
        return Ok(Source { net, init, name, encoder: Some(file.encoder), dataset: Some(file.dataset) });
    }
    let Some(spec) = &a.spec else {
        return Err(UsageError("export --trainer needs --model or --spec".into()).into());
    };
    let spec: ModelSpec = spec.parse()?;
    let (n_inputs, n_classes, encoder) = match (&a.data, a.inputs, a.classes) {
        (Some(d), None, None) => {
            let ds = data::load_dataset(d)?;
            let enc = Encoder::fit(&Encoding::Thermometer { bits: 8 }, &ds)?;
            (enc.n_bits(), ds.n_classes(), Some(enc))
        }
        (None, Some(i), Some(c)) => (i, c, None),
        _ => {
            return Err(UsageError(
                "export --trainer --spec needs --data NAME, or --inputs N and --classes C".into(),
            )
            .into());
        }
    };
    let net = Network::build(spec, n_inputs, n_classes, a.seed)?;
    let init = if spec.body == Body::Table {
        vec![false; net.n_params()]
    } else {
        let mut rng = ChaCha8Rng::seed_from_u64(a.seed);
        (0..net.n_params()).map(|_| rng.random::<bool>()).collect()
    };
    let name = a.name.clone().unwrap_or_else(|| "model".into());
    Ok(Source { net, init, name, encoder, dataset: a.data.clone() })
}

/// Encodes `name` with `encoder` for `net`.
fn examples(name: &str, encoder: &Encoder, net: &Network) -> anyhow::Result<(BitMatrix, Vec<u32>)> {
    let ds = data::load_dataset(name)?;
    let x = encoder.encode(&ds).with_context(|| format!("encoding {name}"))?;
    if x.rows() != net.circuit.n_args() || ds.n_classes() > net.n_classes {
        return Err(UsageError(format!(
            "{name} encodes to {} bits and {} classes, the model has {} inputs and {} classes",
            x.rows(),
            ds.n_classes(),
            net.circuit.n_args(),
            net.n_classes
        ))
        .into());
    }
    Ok((x, ds.labels))
}

/// `export --trainer`: writes `DIR/<name>_trainer.v` and, when the data are known (the
/// model's data set, or `--data`), a bench streaming them in file order for `--epochs`
/// epochs.
///
/// # Errors
/// Bad model, spec or data (exit 2); files that cannot be written (exit 1).
pub fn export(a: &ExportArgs) -> anyhow::Result<()> {
    if a.format.is_some()
        || a.lut_style.is_some()
        || a.pipeline.is_some()
        || a.testbench.is_some()
        || a.passes.is_some()
    {
        return Err(UsageError(
            "--trainer writes its own design and bench: --format, --lut-style, --pipeline, --testbench \
             and --passes do not apply"
                .into(),
        )
        .into());
    }
    let dir = &a.output;
    super::common::check_output_folder(&format!("--output {}", dir.display()), dir)?;
    let s = source(a)?;
    let mode = a.rule.mode(&s.net, a.seed)?;
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let design = mode.design(&s.name, &s.net, &s.init);
    let file = dir.join(format!("{}.v", design.top));
    super::common::check_outputs(&[&file], &[a.model.as_deref().unwrap_or(Path::new(""))], Some(a.force))?;
    write_atomic(&file, design.text.as_bytes()).with_context(|| format!("writing {}", file.display()))?;
    println!(
        "wrote {} (top {}: {} input bits, {} label bits, {} parameters, step circuit {} gates)",
        file.display(),
        design.top,
        design.n_x,
        design.n_label,
        design.n_params,
        design.step_gates
    );
    let data_name = a.data.clone().or(s.dataset);
    if let (Some(d), Some(enc)) = (data_name, &s.encoder) {
        match examples(&d, enc, &s.net) {
            Ok((x, labels)) => {
                let order: Vec<usize> = (0..a.epochs).flat_map(|_| 0..labels.len()).collect();
                let files = write_trainer_bench(dir, &design, &x, &labels, &order, a.rule.batch)?;
                println!(
                    "wrote {} with {} and {} ({} examples of {d}, {} epochs in file order); run: cd {} && \
                     iverilog -g2005 -s {} -o tb.vvp {} {} && vvp -n tb.vvp",
                    files.bench.display(),
                    files.train.display(),
                    files.order.display(),
                    labels.len(),
                    a.epochs,
                    dir.display(),
                    files.module,
                    file_name(&files.bench),
                    file_name(&file)
                );
            }
            Err(e)
                if a.data.is_none()
                    && matches!(e.downcast_ref::<DataError>(), Some(DataError::Unknown(_))) =>
            {
                println!("no bench: the data set {d} is not found by name (give --data)");
            }
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

fn file_name(p: &Path) -> String {
    p.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default()
}

/// `verify --trainer`: trains the model's network from its parameters on its data (or
/// `--data`) in the Rust trainer and in Icarus, and compares. Returns the check and, if
/// it failed, the failure line.
///
/// # Errors
/// Bad model or data (exit 2); Icarus missing or failing (exit 1).
pub fn verify(a: &VerifyArgs, work: &Path) -> anyhow::Result<(HwTrainCheck, Option<String>)> {
    let Some(m) = &a.model else {
        return Err(UsageError(
            "verify --trainer needs --model (a circuit file has nothing to train)".into(),
        )
        .into());
    };
    let file = ModelFile::read(m)?;
    let (net, init) = file.network(m)?;
    let name = a.data.as_deref().unwrap_or(&file.dataset);
    let (x, labels) = examples(name, &file.encoder, &net)?;
    let p = HwTrainParams {
        mode: a.rule.mode(&net, a.seed)?,
        batch: a.rule.batch,
        epochs: a.epochs,
        seed: a.seed,
        shuffle: !a.file_order,
        limits: a.tool_limits(),
    };
    let rust = rust_run(&net, &init, &x, &labels, &p);
    let run_name = m
        .parent()
        .and_then(Path::file_name)
        .map_or_else(|| "model".into(), |n| n.to_string_lossy().into_owned());
    let design = p.mode.design(&run_name, &net, &init);
    let check = check_trainer(work, &design, &net, &x, &labels, &rust, (p.batch, &p.limits))?;
    let failure = (!check.passed()).then(|| {
        format!(
            "hardware trainer: {} of {} parameters differ from the Rust trainer's (first {:?}), predict \
             {} vs {} correct; log {}",
            check.differing,
            check.params,
            check.first_differing,
            check.hw_correct,
            check.rust_correct,
            check.log.display()
        )
    });
    Ok((check, failure))
}

/// The line `verify` prints for the check.
#[must_use]
pub fn summary(c: &HwTrainCheck) -> String {
    format!(
        "trainer: {} ({} epochs, {} steps, {} parameters, {} flips; {} differ; predict {}/{} hardware, {}/{} \
         Rust; {}; {})",
        c.result,
        c.epochs,
        c.steps,
        c.params,
        c.flips,
        c.differing,
        c.hw_correct,
        c.examples,
        c.rust_correct,
        c.examples,
        c.stop,
        c.log.display()
    )
}

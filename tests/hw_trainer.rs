//! The hardware trainer (`export --trainer`, `verify --trainer`): Icarus trains exactly
//! as the Rust trainer does, bit for bit, and a one-bit change of the update in the
//! generated Verilog is caught.

mod common;

use circuitlearn::Tool;
use circuitlearn::pipeline::{HwMode, HwTrainParams, check_trainer, rust_run};
use circuitlearn::{
    Encoder, Encoding, HwVoteParams, ModelSpec, Network, VoteParams, load_dataset, trainer_verilog,
};
use common::{circuitlearn, have};
use std::path::Path;

fn json_last_line(out: &std::process::Output) -> serde_json::Value {
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(text.lines().last().unwrap_or("")).expect("JSON last line")
}

fn ok(out: &std::process::Output, what: &str) {
    assert!(
        out.status.success(),
        "{what}: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_iris_default_model_trains_in_icarus_as_in_rust() {
    if !have(&[Tool::Iverilog, Tool::Vvp]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    ok(&circuitlearn(&["train", "--out", "iris", "--json"], dir.path()), "train");
    let out = circuitlearn(
        &["verify", "--model", "iris/model.json", "--trainer", "--epochs", "2", "--json"],
        dir.path(),
    );
    ok(&out, "verify --trainer");
    let t = &json_last_line(&out)["trainer"];
    assert_eq!(t["result"], "pass", "{t}");
    assert_eq!(t["differing"], 0);
    assert_eq!(t["steps"].as_u64(), Some(2 * t["examples"].as_u64().unwrap()));
    // Training moved the parameters: equality is not that of two untouched registers.
    assert!(t["flips"].as_u64().unwrap() > 0, "{t}");
    // `export --trainer` writes the design and a bench over the model's data.
    let out = circuitlearn(&["export", "--model", "iris/model.json", "--trainer", "-o", "hw"], dir.path());
    ok(&out, "export --trainer");
    for f in ["iris_trainer.v", "iris_trainer_tb.v", "iris_trainer.train.mem", "iris_trainer.order.mem"] {
        assert!(dir.path().join("hw").join(f).is_file(), "{f} missing");
    }
}

#[test]
fn a_lut_network_on_an_iwls_benchmark_trains_in_icarus_as_in_rust() {
    if !have(&[Tool::Iverilog, Tool::Vvp]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let pla = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/iwls2020/ex30.valid.pla.gz");
    let pla = pla.to_str().unwrap();
    let train = ["train", "--data", pla, "--model", "lut:4:8x1,groupsum:2", "--epochs", "2", "--out", "ex30"];
    ok(&circuitlearn(&train, dir.path()), "train");
    let verify = [
        "verify",
        "--model",
        "ex30/model.json",
        "--trainer",
        "--data",
        pla,
        "--epochs",
        "2",
        "--seed",
        "5",
        "--json",
    ];
    let out = circuitlearn(&verify, dir.path());
    ok(&out, "verify --trainer");
    let t = &json_last_line(&out)["trainer"];
    assert_eq!(t["result"], "pass", "{t}");
    assert!(t["flips"].as_u64().unwrap() > 0, "{t}");
}

/// The RDA paper's lookup-table model (threshold-encoded Iris, a table per output bit,
/// zeros to start, file order), and a copy of its trainer whose update of one
/// parameter is frozen: the check fails on exactly that parameter.
#[test]
fn the_lookup_table_trainer_matches_and_a_frozen_update_bit_is_caught() {
    if !have(&[Tool::Iverilog, Tool::Vvp]) {
        return;
    }
    let iris = load_dataset("iris").unwrap();
    let enc = Encoder::fit(&Encoding::Threshold, &iris).unwrap();
    let x = enc.encode(&iris).unwrap();
    let spec: ModelSpec = "table".parse().unwrap();
    let net = Network::build(spec, enc.n_bits(), 3, 0).unwrap();
    let init = vec![false; net.n_params()];
    let p = HwTrainParams { epochs: 2, seed: 0, shuffle: false, ..HwTrainParams::default() };
    let rust = rust_run(&net, &init, &x, &iris.labels, &p);
    let design = trainer_verilog("table", &net, &init);
    let dir = tempfile::tempdir().unwrap();
    let good = check_trainer(dir.path(), &design, &net, &x, &iris.labels, &rust, (1, &p.limits)).unwrap();
    assert!(good.passed(), "{good:?}");
    // Freeze the update of a parameter that training changes.
    let i = (0..init.len()).find(|&i| rust.params[i] != init[i]).expect("training changes a parameter");
    let mut bad = design.clone();
    let update = "p <= p ^ dp;";
    assert_eq!(bad.text.matches(update).count(), 1);
    bad.text = bad.text.replace(update, &format!("p <= p ^ (dp & ~({np}'d1 << {i}));", np = design.n_params));
    let caught = check_trainer(dir.path(), &bad, &net, &x, &iris.labels, &rust, (1, &p.limits)).unwrap();
    assert!(!caught.passed());
    assert!(caught.first_differing.contains(&i), "{caught:?}");
}

/// Batched votes in hardware (`rda-votes-hw`) on a small Iris LUT network, with 2-bit
/// counters (they saturate at 3 within a 16-example batch): Icarus takes the same
/// decisions as the Rust rule.
#[test]
fn saturating_vote_counters_decide_alike_in_icarus_and_rust() {
    if !have(&[Tool::Iverilog, Tool::Vvp]) {
        return;
    }
    let iris = load_dataset("iris").unwrap();
    let enc = Encoder::fit(&Encoding::Thermometer { bits: 4 }, &iris).unwrap();
    let x = enc.encode(&iris).unwrap();
    let spec: ModelSpec = "lut:4:12x1,groupsum:3".parse().unwrap();
    let net = Network::build(spec, enc.n_bits(), 3, 0).unwrap();
    let init: Vec<bool> = (0..net.n_params()).map(|i| (i * 7 + 3) % 5 < 2).collect();
    let votes = VoteParams::for_head(spec.head, 3);
    let mode = |bits| HwMode::Votes(HwVoteParams::from_votes(&votes, bits, 7).unwrap());
    let p = HwTrainParams { mode: mode(2), batch: 16, epochs: 2, seed: 3, ..HwTrainParams::default() };
    let rust = rust_run(&net, &init, &x, &iris.labels, &p);
    assert!(rust.flips > 0);
    let design = p.mode.design("votes", &net, &init);
    let dir = tempfile::tempdir().unwrap();
    let check =
        check_trainer(dir.path(), &design, &net, &x, &iris.labels, &rust, (p.batch, &p.limits)).unwrap();
    assert!(check.passed(), "{check:?}");
}

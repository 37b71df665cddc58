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
    // The bench clears p through `p_load` and writes P_INIT back word by word: a
    // word-serial write that stores inverted words trains from other parameters (a
    // dropped write would go unseen here, where P_INIT is all zeros).
    let write = "= pw_in;";
    assert_eq!(design.text.matches(write).count(), 1);
    let mut bad = design.clone();
    bad.text = bad.text.replace(write, "= ~pw_in;");
    let caught = check_trainer(dir.path(), &bad, &net, &x, &iris.labels, &rust, (1, &p.limits)).unwrap();
    assert!(!caught.passed(), "a broken word-serial write is caught");
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

/// `train --optimizer votes-hw --file-order` trains in software what the hardware
/// trainer learns: the trainer `export --trainer` writes for the run's initial model (the
/// same spec, data and seed, so the same wiring and initial parameters), trained in Icarus
/// on the same examples, ends with the parameters of the run's model.json, bit for bit.
/// Counters of 3 bits saturate within a 16-example batch.
#[test]
fn train_votes_hw_learns_what_the_exported_trainer_learns_in_icarus() {
    if !have(&[Tool::Iverilog, Tool::Vvp]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let spec = "lut:4:12x1,groupsum:3";
    let rule = ["--batch", "16", "--counter-bits", "3", "--seed", "3"];
    let mut train = vec!["train", "--data", "iris", "--test", "iris", "--model", spec, "--optimizer"];
    train.extend([
        "votes-hw",
        "--file-order",
        "--epochs",
        "3",
        "--hardware",
        "none",
        "--out",
        "run",
        "--json",
    ]);
    train.extend(rule);
    let out = circuitlearn(&train, dir.path());
    ok(&out, "train --optimizer votes-hw");
    let metrics = json_last_line(&out);
    assert_eq!(metrics["optimizer"], "rda-votes-hw", "{metrics}");
    assert_eq!(metrics["votes_hw"]["counter_bits"], 3, "{metrics}");
    // The hardware streams as many epochs as the run took (it may converge early).
    let epochs = metrics["epochs"].as_u64().unwrap().to_string();
    // Trains the exported trainer for `epochs` in Icarus; the dumped parameters.
    let hardware = |epochs: &str, out: &str| -> Vec<bool> {
        let mut export = vec!["export", "--trainer", "--spec", spec, "--data", "iris", "--trainer-mode"];
        export.extend(["votes-hw", "--epochs", epochs, "-o", out]);
        export.extend(rule);
        ok(&circuitlearn(&export, dir.path()), "export --trainer");
        let hw = dir.path().join(out);
        let tool = |args: &[&str]| {
            let out = std::process::Command::new(args[0]).args(&args[1..]).current_dir(&hw).output().unwrap();
            ok(&out, args[0]);
        };
        tool(&[
            "iverilog",
            "-g2005",
            "-s",
            "model_trainer_tb",
            "-o",
            "tb.vvp",
            "model_trainer_tb.v",
            "model_trainer.v",
        ]);
        tool(&["vvp", "-n", "tb.vvp"]);
        // The dump is p[NP-1] .. p[0] in binary.
        let dump = std::fs::read_to_string(hw.join("model_trainer.trained.mem")).unwrap();
        dump.trim().bytes().rev().map(|b| b == b'1').collect()
    };
    let hw_params = hardware(&epochs, "hw");
    let model: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("run/model.json")).unwrap()).unwrap();
    let sw_params: Vec<bool> = model["params"]
        .as_str()
        .unwrap()
        .chars()
        .flat_map(|c| {
            let v = c.to_digit(16).unwrap();
            (0..4).map(move |k| v >> k & 1 == 1)
        })
        .take(hw_params.len())
        .collect();
    assert_eq!(hw_params.len(), metrics["params"].as_u64().unwrap() as usize);
    assert_eq!(hw_params, sw_params, "Icarus and train --optimizer votes-hw disagree");
    // Training moved the parameters: no epochs in hardware leaves other ones.
    assert_ne!(hardware("0", "hw0"), sw_params, "training changed nothing");
}

//! Relaxed logic from the command line: `train --domain smooth --model gates:WxD` trains
//! a relaxed gate network on thermometer-encoded data, writes the discretised circuit as an
//! ordinary `model.json`, and `eval` and `verify --icarus` read it unchanged.

mod common;

use common::circuitlearn;

use circuitlearn::Tool;
use common::have;
use std::path::Path;
use std::process::Output;

fn last_json(o: &Output) -> Result<serde_json::Value, serde_json::Error> {
    let stdout = String::from_utf8_lossy(&o.stdout);
    serde_json::from_str(stdout.lines().last().unwrap_or_default())
}

/// Each run failed with exit 2 and a message containing its expected text.
fn assert_refused<const N: usize>(runs: [(Output, &str); N]) {
    for (o, why) in runs {
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{why}: {err}");
        assert!(err.contains(why), "{why}: {err}");
    }
}

#[test]
fn relaxed_gates_discretise_export_and_verify() -> Result<(), Box<dyn std::error::Error>> {
    gates_on_wine(1, 1, None)
}

/// Learned input wiring: the first layer's inputs choose among 4 candidates each, and the
/// chosen wiring travels in `model.json` to `eval` and `verify`; the last 2 epochs train
/// with hard gates (straight-through).
#[test]
fn learned_input_wiring_reaches_model_json_eval_and_verify() -> Result<(), Box<dyn std::error::Error>> {
    gates_on_wine(4, 1, None)
}

/// Learned wiring in the second layer (`--hidden-candidates`): the first layer keeps its
/// seeded wiring (an empty entry in `learned_wiring`), the second's chosen sources travel
/// to `eval` and `verify`.
#[test]
fn learned_hidden_wiring_reaches_model_json_eval_and_verify() -> Result<(), Box<dyn std::error::Error>> {
    gates_on_wine(1, 4, None)
}

/// `--straight-through-choice hidden`: the second layer's choice reads its heaviest
/// candidate from the first epoch; the run says so in its metrics, and its wiring reaches
/// `eval` and `verify` as the soft choice's does.
#[test]
fn straight_through_hidden_choice_reaches_model_json_eval_and_verify()
-> Result<(), Box<dyn std::error::Error>> {
    gates_on_wine(1, 4, Some("hidden"))
}

/// A first layer wider than the rest (`lut:K:F/WxD:O`): learned input wiring over it,
/// the layers as wide as the spec says in `model.json`, `eval` and `verify` read it.
#[test]
fn a_wider_first_layer_trains_and_reaches_eval_and_verify() -> Result<(), Box<dyn std::error::Error>> {
    wine_first_layer("lut:4:96/32x3:30", &[], 96 * 4)
}

/// Wider LUTs in the first layer (`lut:K1/K:...`): 6 sources for each first-layer LUT
/// in `model.json`, 4 for the outputs that choose among them, through `eval` and `verify`.
#[test]
fn wider_first_layer_luts_train_and_reach_eval_and_verify() -> Result<(), Box<dyn std::error::Error>> {
    let hidden = ["--hidden-candidates", "4", "--straight-through-choice", "hidden"];
    wine_first_layer("lut:6/4:96x2:30", &hidden, 96 * 6)
}

/// Trains `model` on wine with learned input wiring (and `extra`), checks the spec and
/// the first layer's `first_sources` learned sources in `model.json`, then `eval` and
/// `verify --icarus` on it.
fn wine_first_layer(
    model: &str,
    extra: &[&str],
    first_sources: usize,
) -> Result<(), Box<dyn std::error::Error>> {
    let d = tempfile::tempdir()?;
    let mut train = vec![
        "train",
        "--data",
        "wine",
        "--domain",
        "relaxed",
        "--model",
        model,
        "--epochs",
        "40",
        "--batch",
        "32",
        "--lr",
        "0.05",
        "--input-candidates",
        "4",
        "--out",
        "runs/wide",
        "--json",
    ];
    train.extend_from_slice(extra);
    let o = circuitlearn(&train, d.path());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let m = last_json(&o)?;
    assert_eq!(m["discrete_model"], format!("{model},groupsum:3"), "{m}");
    assert!(m["test_accuracy"].as_f64().ok_or("test")? >= 0.85, "{m}");
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.path().join("runs/wide/model.json"))?)?;
    let learned = saved["learned_wiring"].as_array().ok_or("learned_wiring")?;
    assert_eq!(learned[0].as_array().map_or(0, Vec::len), first_sources, "{saved}");
    let o = circuitlearn(&["eval", "--model", "runs/wide/model.json", "--split", "test", "--json"], d.path());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(last_json(&o)?["accuracy"], m["test_accuracy"]);
    if have(&[Tool::Iverilog, Tool::Vvp]) {
        let o = circuitlearn(&["verify", "--model", "runs/wide/model.json", "--icarus", "--json"], d.path());
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(last_json(&o)?["icarus"]["result"], "pass");
    }
    Ok(())
}

fn gates_on_wine(
    candidates: usize,
    hidden: usize,
    straight_through_choice: Option<&str>,
) -> Result<(), Box<dyn std::error::Error>> {
    let d = tempfile::tempdir()?;
    let (candidates_text, hidden_text) = (candidates.to_string(), hidden.to_string());
    let hard_gates = if candidates > 1 || hidden > 1 { "2" } else { "0" };
    let train = [
        "train",
        "--data",
        "wine",
        "--domain",
        "smooth",
        "--model",
        "gates:128x2",
        "--epochs",
        "60",
        "--batch",
        "32",
        "--lr",
        "0.05",
        "--out",
        "runs/wine",
        "--json",
        "--input-candidates",
        &candidates_text,
        "--hidden-candidates",
        &hidden_text,
        "--hard-gate-epochs",
        hard_gates,
    ];
    let straight = straight_through_choice.map(|c| ["--straight-through-choice", c]);
    let o = circuitlearn(&[&train[..], straight.as_ref().map_or(&[][..], |s| &s[..])].concat(), d.path());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let m = last_json(&o)?;
    assert_eq!(m["domain"], "relaxed");
    assert_eq!(m["discrete_model"], "lut:2:128x2,groupsum:3");
    for key in ["test_accuracy", "relaxed_test_accuracy"] {
        let acc = m[key].as_f64().ok_or(key)?;
        assert!(acc >= 0.85, "{key} {acc}: {m}");
    }
    // The whole classifier: 3 group popcounts and an argmax on top of the gates.
    assert!(m["and_nodes"].as_u64().ok_or("ands")? > 20, "{m}");
    // Thermometer bits: the first layer's tables took the encoder's don't-cares (the
    // Icarus check and eval below see the same function on every row).
    let care = &m["input_dont_cares"];
    let table_ands = |k: &str| care[k].as_u64().ok_or("input_dont_cares");
    assert!(table_ands("table_ands_after")? <= table_ands("table_ands_before")?, "{m}");
    let want = if have(&[Tool::Iverilog, Tool::Vvp]) { "pass" } else { "skipped" };
    assert_eq!(m["icarus"], want, "{m}");
    let model: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.path().join("runs/wine/model.json"))?)?;
    assert_eq!(model["spec"], "lut:2:128x2,groupsum:3");
    assert_eq!(m["input_candidates"], candidates, "{m}");
    assert_eq!(m["relaxed"]["hard_gate_epochs"].to_string(), hard_gates, "{m}");
    assert_eq!(m["hidden_candidates"], hidden, "{m}");
    // The default (every choice soft) is not written, so older metrics read the same.
    assert_eq!(
        m["relaxed"].get("straight_through_choice").and_then(|c| c.as_str()),
        straight_through_choice,
        "{m}"
    );
    if candidates > 1 || hidden > 1 {
        let learned = model["learned_wiring"].as_array().ok_or("learned_wiring")?;
        let sizes: Vec<usize> = learned.iter().map(|l| l.as_array().map_or(0, Vec::len)).collect();
        // The last layer is rounded up to whole groups: 129 gates for 3 classes.
        let want = if hidden > 1 { vec![if candidates > 1 { 256 } else { 0 }, 258] } else { vec![256] };
        assert_eq!(sizes, want);
    } else {
        assert!(model.get("learned_wiring").is_none(), "{model}");
    }

    // eval rebuilds the discretised circuit and agrees with train's figure on all rows.
    let o = circuitlearn(&["eval", "--model", "runs/wine/model.json", "--data", "wine", "--json"], d.path());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let e = last_json(&o)?;
    let (tr, te) = (m["train_accuracy"].as_f64().ok_or("train")?, m["test_accuracy"].as_f64().ok_or("test")?);
    let (ntr, nte) = (m["train_examples"].as_f64().ok_or("n")?, m["test_examples"].as_f64().ok_or("n")?);
    let all = e["accuracy"].as_f64().ok_or("accuracy")?;
    assert!((all - (tr * ntr + te * nte) / (ntr + nte)).abs() < 1e-9, "{e} vs {m}");

    if have(&[Tool::Iverilog, Tool::Vvp]) {
        let o = circuitlearn(&["verify", "--model", "runs/wine/model.json", "--icarus", "--json"], d.path());
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(last_json(&o)?["icarus"]["result"], "pass");
    }
    Ok(())
}

#[test]
fn relaxed_models_refuse_bad_specs_with_exit_2() {
    let d = tempfile::tempdir().expect("tempdir");
    let o = circuitlearn(&["train", "--domain", "smooth", "--model", "gates:16x2,binary"], d.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("groupsum"));
}

/// Flags of relaxed training are refused, not ignored, on the other paths
/// (`--input-radius` is also the Boolean LUT models' local wiring: `tests/cli.rs`).
#[test]
fn relaxed_flags_are_refused_elsewhere() {
    let d = tempfile::tempdir().expect("tempdir");
    for (flag, value) in [
        ("--input-candidates", "4"),
        ("--tau", "3"),
        ("--lr-schedule", "cosine"),
        ("--hard-gate-epochs", "1"),
        ("--narrow-candidates", "4"),
        ("--narrow-after", "2"),
        ("--hidden-candidates", "4"),
        ("--hidden-radius", "1"),
        ("--straight-through-choice", "hidden"),
    ] {
        let o = circuitlearn(
            &["train", "--data", "iris", "--model", "lut:4:8x1,groupsum:3", flag, value],
            d.path(),
        );
        assert_eq!(o.status.code(), Some(2), "{flag}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(flag) && err.contains("relaxed"), "{flag}: {err}");
    }
}

/// Straight-through epochs apply to relaxed LUTs too (their sigmoid tables rounded): the
/// run learns, says so in its metrics, and ends elsewhere than the soft run.
#[test]
fn relaxed_luts_train_straight_through() -> Result<(), Box<dyn std::error::Error>> {
    let d = tempfile::tempdir()?;
    let run = |hard: &str, out: &str| {
        let args = [
            "train",
            "--data",
            "iris",
            "--domain",
            "relaxed",
            "--model",
            "lut:3:32x2",
            "--epochs",
            "30",
            "--lr",
            "0.05",
            "--hard-gate-epochs",
            hard,
            "--hardware",
            "none",
            "--out",
            out,
            "--json",
        ];
        circuitlearn(&args, d.path())
    };
    let (soft, hard) = (run("0", "soft"), run("10", "hard"));
    for o in [&soft, &hard] {
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let m = last_json(&hard)?;
    assert_eq!(m["relaxed"]["hard_gate_epochs"], 10, "{m}");
    let acc = m["test_accuracy"].as_f64().ok_or("test_accuracy")?;
    assert!(acc >= 0.8, "test accuracy after straight-through epochs {acc}: {m}");
    let params = |dir: &str| -> Result<serde_json::Value, Box<dyn std::error::Error>> {
        let text = std::fs::read_to_string(d.path().join(dir).join("model.json"))?;
        Ok(serde_json::from_str::<serde_json::Value>(&text)?["params"].clone())
    };
    assert_ne!(params("soft")?, params("hard")?, "the straight-through epochs changed the tables");
    Ok(())
}

/// `--input-radius` draws a gate's candidates around one pixel: on image data both inputs
/// of every first-layer gate end up within twice the radius of each other (the choice
/// narrowed to 3 candidates for the second of three epochs on the way); without image data or
/// without candidates the choice flags are usage errors.
#[test]
fn input_radius_keeps_first_layer_gates_local() -> Result<(), Box<dyn std::error::Error>> {
    let d = tempfile::tempdir()?;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fashion-tiny");
    let data = dir.to_str().ok_or("path")?;
    let run = |extra: &[&str]| {
        let args =
            ["train", "--data", data, "--model", "gates:60x2", "--encoding", "uniform:3", "--epochs", "3"];
        circuitlearn(&[&args[..], extra, &["--json"]].concat(), d.path())
    };
    let o = run(&["--input-candidates", "8", "--input-radius", "1", "--narrow-candidates", "3"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let j = last_json(&o)?;
    assert_eq!(j["input_radius"], 1);
    assert_eq!(
        (j["relaxed"]["narrow_to"].as_u64(), j["relaxed"]["narrow_after"].as_u64()),
        (Some(3), Some(1))
    );
    let model: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.path().join("runs/fashion-tiny/model.json"))?)?;
    let first = model["learned_wiring"][0].as_array().ok_or("learned wiring")?;
    assert_eq!(first.len(), 60 * 2);
    let place = |v: &serde_json::Value| v.as_u64().map(|b| (b as usize / 3 % 28, b as usize / 3 / 28));
    for gate in first.chunks_exact(2) {
        let ((x0, y0), (x1, y1)) = (place(&gate[0]).ok_or("index")?, place(&gate[1]).ok_or("index")?);
        assert!(x0.abs_diff(x1) <= 2 && y0.abs_diff(y1) <= 2, "gate reads {gate:?}");
    }
    // Hidden candidates near the gate's centre pixel: the second layer's choice lands in
    // model.json, the first layer keeps its seeded wiring.
    let o = run(&["--hidden-candidates", "4", "--hidden-radius", "1", "--narrow-candidates", "2"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        (last_json(&o)?["hidden_candidates"].as_u64(), last_json(&o)?["hidden_radius"].as_u64()),
        (Some(4), Some(1))
    );
    let model: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.path().join("runs/fashion-tiny/model.json"))?)?;
    let learned = model["learned_wiring"].as_array().ok_or("learned wiring")?;
    assert_eq!(learned.iter().map(|l| l.as_array().map_or(0, Vec::len)).collect::<Vec<_>>(), [0, 60 * 2]);
    let iris = [
        "train",
        "--data",
        "iris",
        "--model",
        "gates:16x2",
        "--input-candidates",
        "4",
        "--input-radius",
        "1",
    ];
    let refused = [
        (run(&["--input-radius", "1"]), "--input-radius: applies with --input-candidates 2 or more"),
        (circuitlearn(&iris, d.path()), "--input-radius applies to image data"),
        (
            run(&["--narrow-candidates", "2"]),
            "--narrow-candidates: applies with --input-candidates or --hidden-candidates 2 or more",
        ),
        (run(&["--hidden-radius", "1"]), "--hidden-radius: applies with --hidden-candidates 2 or more"),
        (
            circuitlearn(
                &[
                    "train",
                    "--data",
                    "iris",
                    "--model",
                    "gates:16x2",
                    "--hidden-candidates",
                    "2",
                    "--hidden-radius",
                    "1",
                ],
                d.path(),
            ),
            "--hidden-radius applies to image data",
        ),
        (run(&["--hidden-candidates", "1025"]), "--hidden-candidates: must be at most 1024"),
        (
            run(&["--input-candidates", "8", "--narrow-after", "1"]),
            "--narrow-after: needs --narrow-candidates",
        ),
        (
            run(&["--input-candidates", "8", "--narrow-candidates", "0"]),
            "--narrow-candidates: must be at least 1",
        ),
        (
            run(&["--input-candidates", "8", "--straight-through-choice", "hidden"]),
            "--straight-through-choice: hidden applies with --hidden-candidates 2 or more",
        ),
        (
            run(&["--straight-through-choice", "all"]),
            "--straight-through-choice: all applies with --input-candidates or --hidden-candidates 2 or more",
        ),
        (
            run(&["--hidden-candidates", "2", "--straight-through-choice", "soft"]),
            "--straight-through-choice: unknown 'soft'; expected one of none, hidden, all",
        ),
    ];
    assert_refused(refused);
    Ok(())
}

#[test]
fn gates_models_take_the_relaxed_path_in_the_bool_domain() -> Result<(), Box<dyn std::error::Error>> {
    // No --domain: a gates: model is trained relaxed and discretised, with a cosine
    // learning-rate schedule; metrics.json names the path.
    let d = tempfile::tempdir()?;
    let args = [
        "train",
        "--data",
        "iris",
        "--model",
        "gates:64x2",
        "--epochs",
        "40",
        "--batch",
        "16",
        "--lr",
        "0.05",
        "--lr-schedule",
        "cosine",
        "--out",
        "r",
        "--json",
    ];
    let o = circuitlearn(&args, d.path());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let m = last_json(&o)?;
    assert_eq!(m["training_path"], "relaxed", "{m}");
    assert_eq!(m["relaxed"]["cosine"], true, "{m}");
    assert_eq!(m["epochs"], 40, "{m}");
    assert!(m["test_accuracy"].as_f64().ok_or("acc")? >= 0.8, "{m}");
    let bad =
        circuitlearn(&["train", "--data", "iris", "--model", "gates:8x2", "--lr-schedule", "step"], d.path());
    assert_eq!(bad.status.code(), Some(2));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains("--lr-schedule: unknown 'step'") && err.lines().count() == 1, "{err}");
    // Relaxed runs checkpoint like any other (tests/resume_cli.rs resumes one).
    let ok = circuitlearn(
        &[
            "train",
            "--data",
            "iris",
            "--model",
            "gates:8x2",
            "--epochs",
            "2",
            "--checkpoint-every",
            "1",
            "--out",
            "c",
        ],
        d.path(),
    );
    assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));
    assert!(d.path().join("c/checkpoint.bin").exists());
    Ok(())
}

/// `--teacher SPEC` distils a smooth teacher into the relaxed network: at weight 0 the
/// targets are the labels alone (the same `model.json` as without a teacher), at another
/// weight the tables move and `metrics.json` reports the teacher; on image data a `cnn:`
/// teacher reads the raw images, elsewhere an `mlp:` teacher the features. Its options
/// are refused without it, out of range, or outside relaxed training.
#[test]
fn a_teacher_distils_into_the_relaxed_network() -> Result<(), Box<dyn std::error::Error>> {
    let d = tempfile::tempdir()?;
    let tiny = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fashion-tiny");
    let tiny = tiny.to_str().ok_or("path")?;
    let run = |data: &str, out: &str, extra: &[&str]| {
        let args = [
            "train",
            "--data",
            data,
            "--domain",
            "relaxed",
            "--model",
            "lut:3:32x2",
            "--encoding",
            "uniform:3",
            "--epochs",
            "4",
            "--lr",
            "0.05",
            "--hardware",
            "none",
            "--out",
            out,
            "--json",
        ];
        circuitlearn(&[&args[..], extra].concat(), d.path())
    };
    let params = |dir: &str| -> Result<serde_json::Value, Box<dyn std::error::Error>> {
        let text = std::fs::read_to_string(d.path().join(dir).join("model.json"))?;
        Ok(serde_json::from_str::<serde_json::Value>(&text)?["params"].clone())
    };
    let cnn = ["--teacher", "cnn:3x4:8", "--teacher-epochs", "2"];
    let plain = run(tiny, "plain", &[]);
    let zero = run(tiny, "zero", &[&cnn[..], &["--teacher-weight", "0"]].concat());
    let taught =
        run(tiny, "taught", &[&cnn[..], &["--teacher-weight", "0.8", "--teacher-temperature", "2"]].concat());
    for o in [&plain, &zero, &taught] {
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    assert_eq!(params("plain")?, params("zero")?, "weight 0 trains on the labels alone");
    assert_ne!(params("plain")?, params("taught")?, "the teacher moved the tables");
    let m = last_json(&taught)?;
    assert_eq!(m["teacher"]["params"]["spec"], "cnn:3x4:8", "{m}");
    assert_eq!(m["teacher"]["params"]["temperature"], 2.0, "{m}");
    let acc = m["teacher"]["train_accuracy"].as_f64().ok_or("teacher accuracy")?;
    assert!((0.0..=1.0).contains(&acc), "{m}");
    assert!(last_json(&plain)?.get("teacher").is_none(), "no teacher, no report");
    let mlp = run("iris", "iris", &["--teacher", "mlp:8", "--teacher-weight", "0.5"]);
    assert!(mlp.status.success(), "{}", String::from_utf8_lossy(&mlp.stderr));
    assert_eq!(last_json(&mlp)?["teacher"]["params"]["spec"], "mlp:8");
    let refused = [
        (run("iris", "r", &["--teacher-weight", "0.5"]), "--teacher-weight: needs --teacher SPEC"),
        (run("iris", "r", &["--teacher", "lut:4:8x1"]), "--teacher: lut:4:8x1: expected a smooth model"),
        (
            run("iris", "r", &["--teacher", "mlp:8", "--teacher-weight", "1.5"]),
            "--teacher-weight: must be in [0, 1]",
        ),
        (run("iris", "r", &["--teacher", "mlp:8", "--teacher-temperature", "0"]), "--teacher-temperature"),
        (
            run("iris", "r", &["--teacher", "cnn:3x4:8"]),
            "--teacher cnn:3x4:8: model cnn:3x4:8 needs image inputs",
        ),
        (
            circuitlearn(
                &["train", "--data", "iris", "--model", "lut:4:8x1,groupsum:3", "--teacher", "mlp:8"],
                d.path(),
            ),
            "--teacher: applies to relaxed models",
        ),
    ];
    assert_refused(refused);
    Ok(())
}

/// `--care-set training`: every layer's table entries no training example addresses are
/// filled for fewer ANDs, so the training accuracy is exactly the encoder-only run's, the
/// classifier is no larger, `eval` of the written model agrees with the run, and
/// `metrics.json` counts the fill; `training:F` fills more; bad values and other domains
/// are refused.
#[test]
fn training_dont_cares_keep_the_training_answers() -> Result<(), Box<dyn std::error::Error>> {
    let d = tempfile::tempdir()?;
    let run = |out: &str, extra: &[&str]| {
        let args = [
            "train",
            "--data",
            "iris",
            "--domain",
            "relaxed",
            "--model",
            "lut:4:48x2",
            "--epochs",
            "15",
            "--lr",
            "0.05",
            "--hardware",
            "none",
            "--out",
            out,
            "--json",
        ];
        circuitlearn(&[&args[..], extra].concat(), d.path())
    };
    let (plain, filled) = (run("plain", &[]), run("filled", &["--care-set", "training"]));
    for o in [&plain, &filled] {
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let (p, f) = (last_json(&plain)?, last_json(&filled)?);
    assert_eq!(p["train_accuracy"], f["train_accuracy"], "the training answers are kept");
    let ands = |m: &serde_json::Value| m["and_nodes"].as_u64().ok_or("and_nodes");
    assert!(ands(&f)? < ands(&p)?, "{} ANDs against {}", ands(&f)?, ands(&p)?);
    let fill = &f["training_dont_cares"];
    assert!(fill["luts_changed"].as_u64() > Some(0), "{f}");
    assert!(fill["table_ands_after"].as_u64() < fill["table_ands_before"].as_u64(), "{f}");
    assert!(p.get("training_dont_cares").is_none());
    let e = circuitlearn(&["eval", "--model", "filled/model.json", "--split", "test", "--json"], d.path());
    assert!(e.status.success(), "{}", String::from_utf8_lossy(&e.stderr));
    assert_eq!(last_json(&e)?["accuracy"], f["test_accuracy"], "eval reads the filled tables");
    // training:F frees the entries fewer than a fraction F of the examples reach as well
    // (8 of the 105): no fewer tables filled, fewer table ANDs.
    let approx = run("approx", &["--care-set", "training:0.07"]);
    assert!(approx.status.success(), "{}", String::from_utf8_lossy(&approx.stderr));
    let a = &last_json(&approx)?["training_dont_cares"];
    assert!(
        a["luts_with_dont_cares"].as_u64() >= fill["luts_with_dont_cares"].as_u64(),
        "{a} against {fill}"
    );
    assert!(a["table_ands_after"].as_u64() < fill["table_ands_after"].as_u64(), "{a} against {fill}");
    let refused = [
        (
            run("r", &["--care-set", "test"]),
            "--care-set: unknown 'test'; expected encoder, training or training:F",
        ),
        (run("r", &["--care-set", "training:1"]), "--care-set: unknown 'training:1'"),
        (run("r", &["--care-set", "training:x"]), "--care-set: unknown 'training:x'"),
        (
            circuitlearn(
                &["train", "--data", "iris", "--model", "mlp:8", "--care-set", "training"],
                d.path(),
            ),
            "--care-set: applies to LUT networks",
        ),
        (
            circuitlearn(
                &["train", "--data", "iris", "--optimizer", "votes-hw", "--care-set", "training"],
                d.path(),
            ),
            "--care-set: votes-hw keeps its tables",
        ),
    ];
    assert_refused(refused);
    Ok(())
}

/// Relaxed 3-input LUTs on wine with learned wiring, as the two-network tests train them.
const WINE_LUTS: [&str; 19] = [
    "--data",
    "wine",
    "--domain",
    "relaxed",
    "--model",
    "lut:3:24x2:12",
    "--epochs",
    "15",
    "--batch",
    "32",
    "--lr",
    "0.05",
    "--input-candidates",
    "4",
    "--hidden-candidates",
    "4",
    "--seed",
    "3",
    "--json",
];

/// `train` of [`WINE_LUTS`] and `extra` into `out` under `dir`: its metrics.
fn train_wine_luts(
    dir: &std::path::Path,
    out: &str,
    extra: &[&str],
) -> Result<serde_json::Value, Box<dyn std::error::Error>> {
    let o = circuitlearn(&[&["train", "--out", out][..], &WINE_LUTS, extra].concat(), dir);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    Ok(last_json(&o)?)
}

/// `--boost 2`: two networks, the second with seed + 1 learning with the first one's
/// counts in its scores; `model.json` is one LUT network twice as wide whose head sums
/// both networks' votes; the first network is exactly the one a plain run trains; `eval`
/// and Icarus read the pair like any model.
#[test]
fn boosted_networks_are_one_model() -> Result<(), Box<dyn std::error::Error>> {
    let d = tempfile::tempdir()?;
    let run = |out: &str, extra: &[&str]| train_wine_luts(d.path(), out, extra);
    let plain = run("runs/plain", &["--hardware", "none"])?;
    let pair = run("runs/pair", &["--boost", "2", "--boost-scale", "0.5"])?;
    assert_eq!(pair["discrete_model"], "lut:3:48x2:24,groupsum:3", "{pair}");
    let b = &pair["boost"];
    assert_eq!(
        (b["networks"].as_u64(), b["trained"].as_u64(), b["scale"].as_f64()),
        (Some(2), Some(2), Some(0.5))
    );
    let members = b["members"].as_array().ok_or("members")?;
    assert_eq!(members[0]["seed"], 3);
    assert_eq!(members[1]["seed"], 4);
    for key in ["train_accuracy", "test_accuracy", "relaxed_test_accuracy", "loss_history"] {
        assert_eq!(members[0][key], plain[key], "{key}: the first network is the plain run's");
    }
    assert_eq!(pair["epochs"], 30, "{pair}");
    assert!(pair["test_accuracy"].as_f64().ok_or("test")? >= 0.85, "{pair}");
    let model: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.path().join("runs/pair/model.json"))?)?;
    assert_eq!(model["spec"], "lut:3:48x2:24,groupsum:3");
    let sizes: Vec<usize> = model["learned_wiring"]
        .as_array()
        .ok_or("learned_wiring")?
        .iter()
        .map(|l| l.as_array().map_or(0, Vec::len))
        .collect();
    assert_eq!(sizes, [144, 72]);
    let o = circuitlearn(&["eval", "--model", "runs/pair/model.json", "--split", "test", "--json"], d.path());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(last_json(&o)?["accuracy"], pair["test_accuracy"]);
    let want = if have(&[Tool::Iverilog, Tool::Vvp]) { "pass" } else { "skipped" };
    assert_eq!(pair["icarus"], want, "{pair}");
    Ok(())
}

/// `--specialist 1,2`: a first network (exactly a plain run's) and a specialist trained
/// on classes 1 and 2 alone (seed + 1), one model whose cascade head asks the specialist
/// when the first network names 1 or 2; `eval`, `eval --predictions` and Icarus read it;
/// options that cannot make a cascade are refused before any training.
#[test]
fn a_specialist_makes_a_cascade() -> Result<(), Box<dyn std::error::Error>> {
    let d = tempfile::tempdir()?;
    let run = |out: &str, extra: &[&str]| train_wine_luts(d.path(), out, extra);
    let plain = run("runs/plain", &["--hardware", "none"])?;
    let pair = run("runs/cascade", &["--specialist", "2,1", "--specialist-tau", "2"])?;
    assert_eq!(pair["discrete_model"], "lut:3:48x2:24,cascade:3:1+2", "{pair}");
    let c = &pair["cascade"];
    assert_eq!(c["classes"], serde_json::json!([1, 2]));
    assert_eq!((c["first"]["seed"].as_u64(), c["specialist"]["seed"].as_u64()), (Some(3), Some(4)));
    assert_eq!(c["specialist"]["relaxed"]["tau"], 2.0);
    for key in ["train_accuracy", "test_accuracy", "relaxed_test_accuracy", "loss_history"] {
        assert_eq!(c["first"][key], plain[key], "{key}: the first network is the plain run's");
    }
    assert!(c["specialist"]["test_accuracy"].as_f64().ok_or("specialist")? > 0.5, "{pair}");
    assert_eq!(pair["epochs"], 30, "{pair}");
    assert!(pair["test_accuracy"].as_f64().ok_or("test")? >= 0.85, "{pair}");
    let o = circuitlearn(
        &[
            "eval",
            "--model",
            "runs/cascade/model.json",
            "--split",
            "test",
            "--predictions",
            "p.tsv",
            "--json",
        ],
        d.path(),
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(last_json(&o)?["accuracy"], pair["test_accuracy"]);
    // Every predicted class is its row's argmax (lowest on ties) of the cascade's scores.
    let table = std::fs::read_to_string(d.path().join("p.tsv"))?;
    for row in table.lines().skip(1) {
        let f: Vec<&str> = row.split('\t').collect();
        let scores: Vec<u32> = f[3..].iter().map(|s| s.parse()).collect::<Result<_, _>>()?;
        let best = (0..scores.len()).fold(0, |b, i| if scores[i] > scores[b] { i } else { b });
        assert_eq!(f[2], best.to_string(), "{row}");
    }
    let want = if have(&[Tool::Iverilog, Tool::Vvp]) { "pass" } else { "skipped" };
    assert_eq!(pair["icarus"], want, "{pair}");
    // RDA does not train a cascade further, in software or in hardware.
    let model = "runs/cascade/model.json";
    for args in [
        &["train", "--data", "wine", "--init", model, "--out", "runs/more"][..],
        &["export", "--trainer", "--model", model, "--output", "hw"],
    ] {
        let o = circuitlearn(args, d.path());
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("--specialist") && err.lines().count() == 1, "{args:?}: {err}");
        assert!(!d.path().join("hw").exists() && !d.path().join("runs/more/model.json").exists());
    }
    let refused = [
        (&["--specialist", "0,1,2"][..], "not all of them"),
        (&["--specialist", "1"], "at least two classes"),
        (&["--specialist", "1,1"], "named twice"),
        (&["--specialist", "1,7"], "not one of the 3 classes"),
        (&["--specialist", "1,2", "--boost", "2"], "--boost"),
        (&["--specialist-tau", "2"], "needs --specialist"),
        (&["--specialist", "1,2", "--teacher", "mlp:8"], "--teacher"),
        (&["--specialist-shifts", "1"], "needs --specialist"),
        (&["--specialist", "1,2", "--specialist-shifts", "5"], "0 to 4"),
        (&["--specialist", "1,2", "--specialist-shifts", "1"], "not image data"),
    ];
    let short = ["train", "--data", "wine", "--domain", "relaxed", "--out", "runs/refused"];
    let narrow = ["--model", "lut:3:24x2:8", "--specialist", "1,2"];
    for (extra, why) in refused.into_iter().chain([(&narrow[..], "multiple of 6")]) {
        let model: &[&str] = if extra.contains(&"--model") { &[] } else { &["--model", "lut:3:24x2:12"] };
        let o = circuitlearn(&[&short[..], model, extra].concat(), d.path());
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {err}");
        assert!(err.contains(why) && err.lines().count() == 1, "{extra:?}: {err}");
        assert!(!d.path().join("runs/refused/model.json").exists(), "{extra:?}");
    }
    Ok(())
}

/// The fixture `fashion-tiny` (six 28x28 training images), as a path argument.
fn fashion_tiny() -> Result<String, Box<dyn std::error::Error>> {
    let tiny = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fashion-tiny");
    Ok(tiny.to_str().ok_or("fixture path")?.to_owned())
}

/// A small relaxed LUT network trained on `fashion-tiny` into `dir/out`, with `extra`
/// options; its `--json` metrics.
fn tiny_images_run(
    dir: &Path,
    out: &str,
    extra: &[&str],
) -> Result<serde_json::Value, Box<dyn std::error::Error>> {
    let tiny = fashion_tiny()?;
    let args = [
        "train",
        "--data",
        &tiny,
        "--domain",
        "relaxed",
        "--model",
        "lut:4:40x2:20",
        "--encoding",
        "uniform:3",
        "--epochs",
        "20",
        "--lr",
        "0.1",
        "--hardware",
        "none",
        "--out",
        out,
        "--json",
    ];
    let o = circuitlearn(&[&args[..], extra].concat(), dir);
    assert!(o.status.success(), "{extra:?}: {}", String::from_utf8_lossy(&o.stderr));
    Ok(last_json(&o)?)
}

/// `--specialist-shifts 1`: the specialist also trains on its images moved one pixel
/// right, left, down and up (five times its examples), and the cascade is read like any
/// other; without it the run is the plain cascade's.
#[test]
fn a_specialist_trains_on_moved_images() -> Result<(), Box<dyn std::error::Error>> {
    let d = tempfile::tempdir()?;
    let run = |out: &str, shifts: &str| {
        tiny_images_run(d.path(), out, &["--specialist", "0,2", "--specialist-shifts", shifts])
    };
    let (plain, moved) = (run("runs/plain", "0")?, run("runs/moved", "1")?);
    // Train labels 9 0 0 3 0 2: four images of classes 0 and 2.
    for (m, shifts, examples) in [(&plain, 0, 4), (&moved, 1, 20)] {
        let c = &m["cascade"];
        assert_eq!(c["shifts"], shifts, "{m}");
        assert_eq!(
            (c["first"]["train_examples"].as_u64(), c["specialist"]["train_examples"].as_u64()),
            (Some(6), Some(examples))
        );
    }
    let first = |m: &serde_json::Value| m["cascade"]["first"]["loss_history"].clone();
    assert_eq!(first(&plain), first(&moved), "the first network does not see the copies");
    let params = |dir: &str| -> Result<serde_json::Value, Box<dyn std::error::Error>> {
        let text = std::fs::read_to_string(d.path().join(dir).join("model.json"))?;
        Ok(serde_json::from_str::<serde_json::Value>(&text)?["params"].clone())
    };
    assert!(params("runs/plain")? != params("runs/moved")?, "the copies change the specialist");
    // `--diagonal-moves`: the four diagonal moves too, nine times its examples.
    let diagonal = tiny_images_run(
        d.path(),
        "runs/diagonal",
        &["--specialist", "0,2", "--specialist-shifts", "1", "--diagonal-moves"],
    )?;
    let c = &diagonal["cascade"];
    assert_eq!(
        (c["diagonal_moves"].as_bool(), c["specialist"]["train_examples"].as_u64()),
        (Some(true), Some(36))
    );
    assert_eq!(first(&diagonal), first(&plain), "the first network still does not see the copies");
    assert!(params("runs/diagonal")? != params("runs/moved")?, "the diagonal copies change the specialist");
    let o =
        circuitlearn(&["eval", "--model", "runs/moved/model.json", "--split", "test", "--json"], d.path());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(last_json(&o)?["accuracy"], moved["test_accuracy"]);
    Ok(())
}

/// `--shifts 1`: every network but a specialist also trains on its images moved one pixel
/// right, left, down and up (a boosted run's members too, each on the same examples); a
/// specialist's moves default to the run's. Refused, one line and exit 2: more than 4,
/// data that are not images, and `--teacher`.
#[test]
fn a_network_trains_on_moved_images() -> Result<(), Box<dyn std::error::Error>> {
    let d = tempfile::tempdir()?;
    let tiny = fashion_tiny()?;
    let run = |out: &str, extra: &[&str]| tiny_images_run(d.path(), out, extra);
    let (plain, moved) = (run("runs/plain", &[])?, run("runs/moved", &["--shifts", "1"])?);
    assert_eq!((plain["shifts"].as_u64(), moved["shifts"].as_u64()), (Some(0), Some(1)));
    // The six training images and their 24 copies: the same labels, other losses.
    assert_eq!(moved["train_examples"], 6, "the data's images, as before");
    assert_ne!(plain["loss_history"], moved["loss_history"], "the copies change training");
    let o =
        circuitlearn(&["eval", "--model", "runs/moved/model.json", "--split", "test", "--json"], d.path());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(last_json(&o)?["accuracy"], moved["test_accuracy"]);
    // Each epoch on the images and one of their four copies each: other losses again.
    let drawn = run("runs/drawn", &["--shifts", "1", "--copies-per-epoch", "1"])?;
    assert_eq!((moved["copies_per_epoch"].is_null(), drawn["copies_per_epoch"].as_u64()), (true, Some(1)));
    assert_eq!(drawn["relaxed"]["draws"], serde_json::json!({"copies": 4, "drawn": 1}), "{drawn}");
    assert_ne!(drawn["loss_history"], moved["loss_history"]);
    // Train labels 9 0 0 3 0 2: the specialist of classes 0 and 2 has four images.
    let examples = |c: &serde_json::Value| {
        (c["first"]["train_examples"].as_u64(), c["specialist"]["train_examples"].as_u64())
    };
    let cascade = run("runs/cascade", &["--shifts", "1", "--specialist", "0,2"])?;
    assert_eq!(examples(&cascade["cascade"]), (Some(30), Some(20)), "{cascade}");
    let cascade = run("runs/first", &["--shifts", "1", "--specialist", "0,2", "--specialist-shifts", "0"])?;
    assert_eq!(examples(&cascade["cascade"]), (Some(30), Some(4)), "{cascade}");
    let args = [
        "--shifts",
        "1",
        "--copies-per-epoch",
        "2",
        "--specialist",
        "0,2",
        "--specialist-copies-per-epoch",
        "3",
    ];
    let cascade = run("runs/drawn-cascade", &args)?;
    let draws = |n: &serde_json::Value| n["relaxed"]["draws"]["drawn"].as_u64();
    let c = &cascade["cascade"];
    assert_eq!(
        (draws(&c["first"]), draws(&c["specialist"]), c["copies_per_epoch"].as_u64()),
        (Some(2), Some(3), Some(3))
    );
    let boosted = run("runs/boosted", &["--shifts", "1", "--boost", "2"])?;
    let members = &boosted["boost"]["members"];
    assert_eq!(
        (members[0]["train_examples"].as_u64(), members[1]["train_examples"].as_u64()),
        (Some(30), Some(30))
    );
    let short = ["train", "--domain", "relaxed", "--model", "lut:3:24x2:12", "--out", "runs/refused"];
    for (extra, why) in [
        (&["--data", &tiny, "--shifts", "5"][..], "0 to 4"),
        (&["--data", &tiny, "--shifts", "1", "--copies-per-epoch", "5"], "1 to 4"),
        (&["--data", &tiny, "--shifts", "1", "--diagonal-moves", "--copies-per-epoch", "9"], "1 to 8"),
        (&["--data", "wine", "--shifts", "1"], "not image data"),
        (&["--data", &tiny, "--shifts", "1", "--teacher", "mlp:8"], "--teacher"),
    ] {
        let o = circuitlearn(&[&short[..], extra].concat(), d.path());
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {err}");
        assert!(
            err.contains("--shifts") && err.contains(why) && err.lines().count() == 1,
            "{extra:?}: {err}"
        );
        assert!(!d.path().join("runs/refused/model.json").exists(), "{extra:?}");
    }
    Ok(())
}

/// A boosted run under `--time-limit` stops with the networks it has: the limit bounds
/// their epochs together, and the model holds the ones trained.
#[test]
fn a_time_limit_ends_boosting_early() -> Result<(), Box<dyn std::error::Error>> {
    let d = tempfile::tempdir()?;
    let args = [
        "train",
        "--data",
        "wine",
        "--domain",
        "relaxed",
        "--model",
        "lut:3:24x2:12",
        "--epochs",
        "1000",
        "--boost",
        "3",
        "--time-limit",
        "0.01",
        "--hardware",
        "none",
        "--out",
        "runs/t",
        "--json",
    ];
    let o = circuitlearn(&args, d.path());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let m = last_json(&o)?;
    assert_eq!(m["stop"], "time-limit", "{m}");
    assert_eq!(m["boost"]["trained"], 1, "{m}");
    assert_eq!(m["discrete_model"], "lut:3:24x2:12,groupsum:3", "{m}");
    Ok(())
}

/// `CIRCUITLEARN_OP_TIMES=1`: every epoch's wall time per kind of gate on stderr, the
/// relaxed LUT layers among them; without it, none. The model is the same either way.
#[test]
fn op_times_name_each_epochs_gates() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let timed = std::process::Command::new(env!("CARGO_BIN_EXE_circuitlearn"))
        .args([&["train", "--out", "timed"][..], &WINE_LUTS].concat())
        .env("CIRCUITLEARN_OP_TIMES", "1")
        .current_dir(dir.path())
        .output()?;
    let err = String::from_utf8_lossy(&timed.stderr);
    assert!(timed.status.success(), "{err}");
    for epoch in ["epoch 1, ", "epoch 2, "] {
        assert!(err.lines().any(|l| l.starts_with(epoch) && l.contains(": gates ")), "{epoch}: {err}");
    }
    assert!(
        err.lines().any(|l| l.trim_start().starts_with("RelaxedLut(3)") && l.ends_with(" calls")),
        "{err}"
    );
    let plain = circuitlearn(&[&["train", "--out", "plain"][..], &WINE_LUTS].concat(), dir.path());
    assert!(plain.status.success());
    assert!(!String::from_utf8_lossy(&plain.stderr).contains(": gates "), "off by default");
    let model = |d: &str| std::fs::read(dir.path().join(d).join("model.json"));
    assert_eq!(model("timed")?, model("plain")?, "timing changes no bit");
    Ok(())
}

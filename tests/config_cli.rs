//! `train --config FILE.toml`, presets and the effective config: flags override the file,
//! the run directory records what ran, and a bad file or option is one line, exit 2.

mod common;

use common::circuitlearn;
use std::path::Path;

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn metrics(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("metrics.json")).unwrap()).unwrap()
}

#[test]
fn flags_override_the_file_and_the_run_records_its_options() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("wine.toml"),
        "data = \"wine\"\nepochs = 2\nmodel = \"lut:4:16x1,groupsum:3\"\n",
    )
    .unwrap();
    let o = circuitlearn(
        &["train", "--config", "wine.toml", "--epochs", "3", "--hardware", "none", "--out", "r"],
        d.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let m = metrics(&d.path().join("r"));
    assert_eq!(
        (m["dataset"].as_str(), m["epochs"].as_u64(), m["model"].as_str()),
        (Some("wine"), Some(3), Some("lut:4:16x1,groupsum:3"))
    );
    // The run keeps the AIG it counted: its header's AND count is metrics.json's.
    let aig = std::fs::read(d.path().join("r/classifier.aig")).unwrap();
    let header = String::from_utf8_lossy(&aig[..aig.iter().position(|&b| b == b'\n').unwrap()]).into_owned();
    let ands: u64 = header.split(' ').nth(5).unwrap().parse().unwrap();
    assert_eq!(Some(ands), m["and_nodes"].as_u64(), "{header}");
    // The effective config is a config file: running it again gives the same model.
    let effective = std::fs::read_to_string(d.path().join("r/config.toml")).unwrap();
    assert!(effective.contains("epochs = 3") && effective.contains("data = \"wine\""), "{effective}");
    std::fs::copy(d.path().join("r/config.toml"), d.path().join("again.toml")).unwrap();
    let o = circuitlearn(&["train", "--config", "again.toml", "--out", "r2"], d.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let read = |p: &str| std::fs::read(d.path().join(p)).unwrap();
    assert!(read("r/model.json") == read("r2/model.json"), "the recorded config trains the same model");
}

#[test]
fn a_bad_config_file_names_file_and_line() {
    let d = tempfile::tempdir().unwrap();
    for (text, want) in [
        ("epochs = 2\nmodle = \"lut:4:8x1\"\n", "bad.toml:2: "),
        ("epochs = \"two\"\n", "bad.toml:1: "),
        ("epochs = 2\n[table\n", "bad.toml:2: "),
        ("lr = nan\n", "--lr: "),
    ] {
        std::fs::write(d.path().join("bad.toml"), text).unwrap();
        let o = circuitlearn(&["train", "--config", "bad.toml"], d.path());
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{text}: {err}");
        assert!(err.contains(want) && err.trim().lines().count() == 1, "{text}: {err}");
    }
    let o = circuitlearn(&["train", "--config", "missing.toml"], d.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("missing.toml: cannot read"), "{}", stderr(&o));
}

#[test]
fn invalid_options_are_refused_before_any_work_in_every_domain() {
    let d = tempfile::tempdir().unwrap();
    for (args, option) in [
        (&["--lr", "NaN"][..], "--lr"),
        (&["--lr=-1"], "--lr"),
        (&["--batch", "0"], "--batch"),
        (&["--threads", "100000"], "--threads"),
        (&["--passes", "bogus"], "--passes"),
        (&["--tau", "2"], "--tau"),
        (&["--model", "gates:8x2", "--tau", "0"], "--tau"),
        (&["--model", "gates:8x2", "--residual", "NaN"], "--residual"),
        (&["--model", "gates:8x2", "--margin", "0.1"], "--margin"),
        (&["--domain", "smooth", "--passes", "bogus"], "--passes"),
        (&["--domain", "smooth", "--checkpoint-every", "1", "--passes", "strash"], "--passes"),
        (&["--domain", "smooth", "--tau", "1"], "--tau"),
        (&["--domain", "smooth", "--optimizer", "rda"], "--optimizer"),
        (&["--domain", "ploy"], "--domain"),
        (&["--domain", "poly", "--ring", "zp:91"], "--ring"),
        (&["--preset", "nope"], "--preset"),
        (&["--hardware", "maybe"], "--hardware"),
        (&["--test-fraction", "0"], "--test-fraction"),
        (&["--valid-fold", "0/5"], "--valid-fold"),
        (&["--valid-fold", "6/5"], "--valid-fold"),
        (&["--valid-fold", "3"], "--valid-fold"),
        (&["--valid-fold", "1/1"], "--valid-fold"),
        (&["--valid-fold", "a/b"], "--valid-fold"),
        (&["--domain", "smooth", "--valid-fold", "2/1"], "--valid-fold"),
    ] {
        let o = circuitlearn(&[&["train", "--out", "never"], args].concat(), d.path());
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(option) && err.trim().lines().count() == 1, "{args:?}: {err}");
    }
    // Nothing was written: every check ran before the data were read.
    assert!(!d.path().join("never").exists());
}

#[test]
fn presets_list_with_their_figures() {
    let d = tempfile::tempdir().unwrap();
    let o = circuitlearn(&["train", "--list-presets"], d.path());
    assert!(o.status.success());
    let out = String::from_utf8_lossy(&o.stdout);
    for want in [
        "fashion-mnist\n",
        "fashion-mnist-small\n",
        "fashion-mnist-boosted\n",
        "fashion-mnist-cascade\n",
        "fashion-mnist-cascade-moved\n",
        "fashion-mnist-rda\n",
        "0.8876",
        "0.8214",
        "input-candidates = 32",
        "care-set",
    ] {
        assert!(out.contains(want), "{want}: {out}");
    }
}

#[test]
fn a_preset_applies_under_the_flags_and_metrics_name_it() {
    let d = tempfile::tempdir().unwrap();
    let tiny = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fashion-tiny");
    let args = [
        "train",
        "--preset",
        "fashion-mnist-rda",
        "--data",
        tiny.to_str().unwrap(),
        "--model",
        "lut:4:40x1,groupsum:10",
        // The preset's rewiring needs a hidden layer; 0 turns it off.
        "--rewire",
        "0",
        "--epochs",
        "1",
        "--hardware",
        "none",
        "--out",
        "p",
    ];
    let o = circuitlearn(&args, d.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let m = metrics(&d.path().join("p"));
    assert_eq!(
        (m["preset"].as_str(), m["encoding"].as_str()),
        (Some("fashion-mnist-rda"), Some("thermometer:3"))
    );
    assert_eq!(m["model"], "lut:4:40x1,groupsum:10");
    let effective = std::fs::read_to_string(d.path().join("p/config.toml")).unwrap();
    assert!(
        effective.contains("preset = \"fashion-mnist-rda\"") && effective.contains("batch = 2048"),
        "{effective}"
    );
}

/// A run is refused before it starts when its estimated memory exceeds the limit (the
/// machine's, or --max-memory), instead of growing past it inside epoch 1.
#[test]
fn a_run_too_large_for_memory_is_refused_before_it_starts() {
    let d = tempfile::tempdir().unwrap();
    for args in [
        &["--model", "lut:6:16000000x1"][..],
        &["--max-memory", "64K", "--data", "digits"],
        &["--model", "gates:64x2", "--max-memory", "10K"],
        &["--domain", "smooth", "--model", "mlp:64", "--max-memory", "1K"],
    ] {
        let o = circuitlearn(&[&["train", "--hardware", "none", "--out", "big"], args].concat(), d.path());
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("would take") && err.trim().lines().count() == 1, "{args:?}: {err}");
    }
    let o = circuitlearn(&["train", "--max-memory", "lots"], d.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--max-memory"), "{}", stderr(&o));
}

/// `eval` refuses data whose classes are not the model's (labels are class indices).
#[test]
fn eval_refuses_data_of_other_classes() {
    let d = tempfile::tempdir().unwrap();
    let o = circuitlearn(&["train", "--epochs", "1", "--hardware", "none", "--out", "i"], d.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let o = circuitlearn(&["eval", "--model", "i/model.json", "--data", "wine"], d.path());
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("do not match the model's") && err.trim().lines().count() == 1, "{err}");
    let o = circuitlearn(&["eval", "--model", "i/model.json", "--split", "test", "--json"], d.path());
    assert!(o.status.success(), "{}", stderr(&o));
}

/// Every command that writes takes `-o` and `--out` (and `--output`) alike.
#[test]
fn outputs_are_named_the_same_way_everywhere() {
    let d = tempfile::tempdir().unwrap();
    let blif = Path::new(env!("CARGO_MANIFEST_DIR")).join("circuits/epfl/ctrl.blif");
    let blif = blif.to_str().unwrap();
    for args in [
        &["train", "--epochs", "1", "--hardware", "none", "-o", "t1"][..],
        &["train", "--epochs", "1", "--hardware", "none", "--output", "t2"],
        &["opt", blif, "--passes", "strash", "--out", "a.aig"],
        &["opt", blif, "--passes", "strash", "-o", "b.aig"],
        &["export", "--circuit", blif, "--out", "c.blif"],
    ] {
        let o = circuitlearn(args, d.path());
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    }
    for f in ["t1/model.json", "t2/model.json", "a.aig", "b.aig", "c.blif"] {
        assert!(d.path().join(f).exists(), "{f}");
    }
}

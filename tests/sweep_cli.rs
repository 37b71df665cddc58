//! `sweep --grid GRID.toml -o DIR`: every point of the grid trained into its own run
//! directory, one row each in `results.tsv` (the same model as `train` with the point's
//! options), `--resume` skips the points already done, and a bad point anywhere in the
//! grid is one line naming the file and line, exit 2, before anything is trained.

mod common;

use common::circuitlearn;

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

const GRID: &str =
    "base = \"base.toml\"\n[set]\nhardware = \"none\"\n[grid]\nlr = [0.1, 0.3]\nseed = [0, 1]\n";

#[test]
fn a_sweep_trains_every_point_and_resumes() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("base.toml"),
        "data = \"iris\"\nepochs = 2\nmodel = \"lut:4:16x1,groupsum:3\"\n",
    )
    .unwrap();
    std::fs::write(d.path().join("grid.toml"), GRID).unwrap();
    let o = circuitlearn(&["sweep", "--grid", "grid.toml", "-o", "s"], d.path());
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("sweep 4/4: "), "progress on stderr: {}", stderr(&o));
    let tsv = std::fs::read_to_string(d.path().join("s/results.tsv")).unwrap();
    let rows: Vec<Vec<&str>> = tsv.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(rows[0], ["point", "lr", "seed", "test_accuracy", "and_nodes", "seconds"]);
    let points: Vec<(&str, &str, &str)> = rows[1..].iter().map(|r| (r[0], r[1], r[2])).collect();
    assert_eq!(
        points,
        [("p000", "0.1", "0"), ("p001", "0.1", "1"), ("p002", "0.3", "0"), ("p003", "0.3", "1")]
    );
    // A point is the run `train` makes of its options: same model, same figures.
    let o = circuitlearn(
        &["train", "--config", "base.toml", "--lr", "0.3", "--seed", "1", "--hardware", "none", "--out", "t"],
        d.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let read = |p: &str| std::fs::read(d.path().join(p)).unwrap();
    assert!(read("s/p003/model.json") == read("t/model.json"), "p003 differs from its train run");
    let m: serde_json::Value = serde_json::from_slice(&read("t/metrics.json")).unwrap();
    assert_eq!(rows[4][3], format!("{:.6}", m["test_accuracy"].as_f64().unwrap()));
    assert_eq!(rows[4][4], m["and_nodes"].to_string());
    // Again without --resume: refused; with it, only the point whose run is gone is redone.
    let o = circuitlearn(&["sweep", "--grid", "grid.toml", "-o", "s"], d.path());
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    std::fs::remove_dir_all(d.path().join("s/p001")).unwrap();
    let o = circuitlearn(&["sweep", "--grid", "grid.toml", "-o", "s", "--resume"], d.path());
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("4 points, 1 to train"), "{}", stderr(&o));
    let again = std::fs::read_to_string(d.path().join("s/results.tsv")).unwrap();
    let cols = |t: &str| t.lines().map(|l| l.rsplit_once('\t').unwrap().0.to_owned()).collect::<Vec<_>>();
    assert_eq!(cols(&again), cols(&tsv), "a resumed sweep keeps its results");
    // Another grid into the same folder is refused.
    std::fs::write(d.path().join("grid.toml"), GRID.replace("0.3", "0.5")).unwrap();
    let o = circuitlearn(&["sweep", "--grid", "grid.toml", "-o", "s", "--resume"], d.path());
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn a_bad_point_is_one_line_with_file_and_line_before_any_training() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("base.toml"), "data = \"iris\"\nepochs = 2\n").unwrap();
    // The last point's learning rate is out of range; nothing may be trained.
    std::fs::write(d.path().join("grid.toml"), GRID.replace("0.3]", "0.3,\n  1.5]")).unwrap();
    let o = circuitlearn(&["sweep", "--grid", "grid.toml", "-o", "s"], d.path());
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("error: grid.toml:6: --lr: ") && err.contains("seed = 0"), "{err}");
    assert!(!d.path().join("s").exists(), "nothing is written before every point is valid");
    // A key that is no option, in the base file: its own file and line.
    std::fs::write(d.path().join("base.toml"), "data = \"iris\"\nepoch = 2\n").unwrap();
    std::fs::write(d.path().join("grid.toml"), GRID).unwrap();
    let o = circuitlearn(&["sweep", "--grid", "grid.toml", "-o", "s"], d.path());
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("base.toml:2: "), "{}", stderr(&o));
}

fn row_accuracy(row: &[&str]) -> f64 {
    row[4].parse().unwrap()
}

/// A grid over `valid-fold` is a selection harness: each point holds out its fold of the
/// training examples, `results.tsv` says so in `held_out`, and `test_accuracy` is the fold's.
#[test]
fn a_sweep_over_validation_folds_tabulates_held_out_accuracies() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("grid.toml"),
        "[set]\ndata = \"breast-cancer\"\nepochs = 2\nmodel = \"lut:4:16x1,groupsum:2\"\nhardware = \"none\"\n\
         [grid]\nseed = [0]\nvalid-fold = [\"1/3\", \"2/3\"]\n",
    )
    .unwrap();
    let o = circuitlearn(&["sweep", "--grid", "grid.toml", "-o", "s"], d.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let tsv = std::fs::read_to_string(d.path().join("s/results.tsv")).unwrap();
    let rows: Vec<Vec<&str>> = tsv.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(rows[0], ["point", "seed", "valid-fold", "held_out", "test_accuracy", "and_nodes", "seconds"]);
    assert_eq!(rows.len(), 3, "{tsv}");
    // Stratified folds of breast-cancer's 148 + 250 training examples: 50 + 84, then 49 + 83.
    for ((row, fold), size) in rows[1..].iter().zip(["1/3", "2/3"]).zip([134, 132]) {
        assert_eq!((row[2], row[3]), (fold, format!("valid {fold}").as_str()), "{tsv}");
        let m: serde_json::Value = serde_json::from_slice(
            &std::fs::read(d.path().join("s").join(row[0]).join("metrics.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(row[4], format!("{:.6}", m["test_accuracy"].as_f64().unwrap()));
        assert_eq!(m["test_examples"], size, "{m}");
    }
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("best held-out accuracy") && out.contains(", valid "), "{out}");
    // The figure to choose by: each setting's mean over its repeats (folds and seeds).
    let mean = (row_accuracy(&rows[1]) + row_accuracy(&rows[2])) / 2.0;
    assert!(
        out.contains(&format!("best mean over seed and valid-fold {mean:.4} (every point, 2 runs)")),
        "{out}"
    );
    // Every setting's mean beside results.tsv: here one setting, two runs.
    let settings = std::fs::read_to_string(d.path().join("s/settings.tsv")).unwrap();
    let lines: Vec<&str> = settings.lines().collect();
    assert_eq!(lines[0], "runs\tmean_accuracy\tsd", "{settings}");
    assert!(lines[1].starts_with(&format!("2\t{mean:.6}\t")) && lines.len() == 2, "{settings}");
    assert!(out.contains("settings.tsv"), "{out}");
    assert!(stderr(&o).contains(": valid 1/3 "), "progress names the fold: {}", stderr(&o));
}

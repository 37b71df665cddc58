//! `map` on the EPFL circuits shipped in `circuits/epfl` (proven, re-imported by `cec`,
//! LUT6 counts and depths pinned), complete functions (`.truth`, PLA) through `opt` and
//! `map`, and bad input.

mod common;

use circuitlearn::{Cec, Function, Matching, Tool, abc_cec, parse_truth, read_aiger};
use common::circuitlearn;
use std::path::{Path, PathBuf};

fn epfl(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("circuits/epfl").join(name)
}

/// LUT6 count and depth of `map --lut 6` on each shipped BLIF (2026-12-01). A change
/// that raises either fails; one that lowers them should lower the pin.
const PINNED: &[(&str, u64, u64)] =
    &[("cavlc", 121, 4), ("ctrl", 28, 2), ("dec", 287, 2), ("int2float", 49, 3), ("router", 68, 11)];

fn last_json(o: &std::process::Output) -> serde_json::Value {
    serde_json::from_str(String::from_utf8_lossy(&o.stdout).lines().last().unwrap()).unwrap()
}

#[test]
fn every_shipped_circuit_maps_equivalently_within_its_pinned_luts_and_depth() {
    let d = tempfile::tempdir().unwrap();
    for &(name, luts, depth) in PINNED {
        let src = epfl(&format!("{name}.blif"));
        let out = format!("{name}.lut6.blif");
        let o = circuitlearn(&["map", src.to_str().unwrap(), "--lut", "6", "-o", &out, "--json"], d.path());
        assert!(o.status.success(), "{name}: {}", String::from_utf8_lossy(&o.stderr));
        let s = last_json(&o);
        assert!(matches!(s["checked"].as_str(), Some("exhaustive" | "sat")), "{name}: {s}");
        let (got_luts, got_depth) = (s["luts"].as_u64().unwrap(), s["depth"].as_u64().unwrap());
        assert!(got_luts <= luts, "{name}: {got_luts} LUT6s, pinned {luts}");
        assert!(got_depth <= depth, "{name}: depth {got_depth}, pinned {depth}");
        // One `.names` per LUT, plus one buffer per output at most.
        let text = std::fs::read_to_string(d.path().join(&out)).unwrap();
        let blocks = text.lines().filter(|l| l.starts_with(".names")).count() as u64;
        let n_out = s["lut_sizes"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).sum::<u64>();
        assert_eq!(n_out, got_luts);
        assert!(blocks >= got_luts && blocks <= got_luts + 300, "{name}: {blocks} .names blocks");
        // The LUT netlist re-imports: `cec` reads it back and proves it.
        let c = circuitlearn(&["cec", &out, src.to_str().unwrap()], d.path());
        assert_eq!(c.status.code(), Some(0), "{name}: {}", String::from_utf8_lossy(&c.stdout));
        if common::have(&[Tool::Abc]) {
            let orig = epfl(&format!("{name}.aig"));
            let log = d.path().join(format!("{name}.abc.log"));
            let v = abc_cec(d.path(), orig.to_str().unwrap(), &out, Matching::Names, &log).unwrap();
            assert!(matches!(v, Cec::Equivalent), "ABC disagrees on {name}");
        }
    }
}

#[test]
fn aiger_inputs_and_verilog_outputs() {
    let d = tempfile::tempdir().unwrap();
    let src = epfl("int2float.aig");
    let o = circuitlearn(&["map", src.to_str().unwrap(), "--lut", "4", "-o", "i2f.v", "--json"], d.path());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s = last_json(&o);
    assert_eq!(s["lut_size"], 4);
    assert!(s["lut_sizes"].as_array().unwrap().len() == 5);
    let text = std::fs::read_to_string(d.path().join("i2f.v")).unwrap();
    assert!(text.contains("module int2float"), "{text}");
    if common::have(&[Tool::Iverilog]) {
        let ok = std::process::Command::new("iverilog")
            .args(["-o", "i2f.vvp", "i2f.v"])
            .current_dir(d.path())
            .status()
            .unwrap();
        assert!(ok.success(), "iverilog rejects the LUT netlist");
    }
}

/// A 3-bit adder (6 inputs, 4 outputs) in `.truth` format.
fn adder_truth() -> String {
    (0..4)
        .map(|j| {
            let mut line: String = (0..64usize)
                .rev()
                .map(|s| if ((s & 7) + (s >> 3)) >> j & 1 == 1 { '1' } else { '0' })
                .collect();
            line.push('\n');
            line
        })
        .collect()
}

fn assert_computes(f: &Function, aig_file: &Path) {
    let (g, names) = read_aiger(aig_file).unwrap();
    assert_eq!(names.inputs, f.names().inputs);
    assert_eq!(f.first_mismatch(&g), None);
}

#[test]
fn truth_tables_and_plas_go_through_opt_and_map() {
    let d = tempfile::tempdir().unwrap();
    let text = adder_truth();
    std::fs::write(d.path().join("add3.truth"), &text).unwrap();
    let f = parse_truth(&text, "add3.truth").unwrap();
    let o = circuitlearn(&["opt", "add3.truth", "--passes", "strash", "-o", "add3.aig", "--json"], d.path());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(last_json(&o)["synthesis"]["ands"].as_u64().unwrap() > 0);
    assert_computes(&f, &d.path().join("add3.aig"));
    let m = circuitlearn(&["map", "add3.truth", "--lut", "4", "-o", "add3.blif"], d.path());
    assert!(m.status.success(), "{}", String::from_utf8_lossy(&m.stderr));
    let c = circuitlearn(&["cec", "add3.blif", "add3.aig"], d.path());
    assert_eq!(c.status.code(), Some(0), "{}", String::from_utf8_lossy(&c.stdout));
    // The same adder as a fully specified PLA (one row per minterm, ON-set type f).
    let mut pla = String::from(".i 6\n.o 4\n.ilb a b c d e f\n.ob F0 F1 F2 F3\n");
    for s in 0..64usize {
        let cube: String = (0..6).map(|i| if s >> i & 1 == 1 { '1' } else { '0' }).collect();
        let sum = (s & 7) + (s >> 3);
        let outs: String = (0..4).map(|j| if sum >> j & 1 == 1 { '1' } else { '0' }).collect();
        pla.push_str(&format!("{cube} {outs}\n"));
    }
    pla.push_str(".e\n");
    std::fs::write(d.path().join("add3.pla"), pla).unwrap();
    let o = circuitlearn(&["opt", "add3.pla", "--passes", "strash,balance", "-o", "pla.aig"], d.path());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_computes(&f, &d.path().join("pla.aig"));
    if common::have(&[Tool::Abc]) {
        // ABC reads the same file to the same function.
        let log = d.path().join("abc.log");
        let abc = std::process::Command::new(Tool::Abc.find().unwrap())
            .args(["-c", "read_truth -x -f add3.truth; strash; write_aiger abc.aig"])
            .current_dir(d.path())
            .output()
            .unwrap();
        assert!(abc.status.success());
        let v = abc_cec(d.path(), "abc.aig", "add3.aig", Matching::Positions, &log).unwrap();
        assert!(matches!(v, Cec::Equivalent), "ABC reads add3.truth as another function");
    }
}

#[test]
fn bad_input_is_one_line_naming_file_and_line_with_exit_2() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("bad.truth"), "1000\n10x0\n").unwrap();
    std::fs::write(d.path().join("odd.truth"), "100\n").unwrap();
    std::fs::write(d.path().join("open.pla"), ".i 2\n.o 1\n.type fr\n11 1\n").unwrap();
    std::fs::write(d.path().join("dc.pla"), ".i 2\n.o 1\n1- -\n").unwrap();
    let cavlc = epfl("cavlc.blif");
    let cases: &[(&[&str], &str)] = &[
        (&["map", "bad.truth", "-o", "x.blif"], "bad.truth:2: expected only 0 and 1"),
        (&["opt", "bad.truth", "--passes", "strash", "-o", "x.aig"], "bad.truth:2:"),
        (&["map", "odd.truth", "-o", "x.blif"], "odd.truth:1: a truth table has 2^n bits"),
        (&["opt", "open.pla", "--passes", "strash", "-o", "x.aig"], "must be fully specified"),
        (&["map", "dc.pla", "-o", "x.blif"], "dc.pla:3: output 0 is a don't care"),
        (&["map", cavlc.to_str().unwrap(), "--lut", "9", "-o", "x.blif"], "LUT size 9 is not supported"),
        (&["map", cavlc.to_str().unwrap(), "-o", "x.aig"], "written as .blif or .v"),
        (&["map", "missing.truth", "-o", "x.blif"], "missing.truth"),
        (
            &["opt", "x.v", "--passes", "strash", "-o", "x.aig"],
            "x.v: expected a .blif, .aig, .aag, .truth or .pla file",
        ),
    ];
    for (args, want) in cases {
        let o = circuitlearn(args, d.path());
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

/// `train` reports the LUT6 count of its counted AIG (`OUT/classifier.aig`) as `map --lut 6`
/// finds it, in `metrics.json`.
#[test]
fn train_reports_the_lut6_count_of_map() {
    let d = tempfile::tempdir().unwrap();
    let t = circuitlearn(
        &["train", "--data", "iris", "--epochs", "2", "--out", "run", "--hardware", "none"],
        d.path(),
    );
    assert!(t.status.success(), "{}", String::from_utf8_lossy(&t.stderr));
    let metrics: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.path().join("run/metrics.json")).unwrap()).unwrap();
    let lut6 = &metrics["lut6"];
    let m = circuitlearn(&["map", "run/classifier.aig", "--lut", "6", "-o", "c.blif", "--json"], d.path());
    assert!(m.status.success(), "{}", String::from_utf8_lossy(&m.stderr));
    let s = last_json(&m);
    assert!(s["luts"].as_u64().unwrap() > 0, "{s}");
    assert_eq!(lut6["luts"], s["luts"], "{metrics}");
    assert_eq!(lut6["depth"], s["depth"], "{metrics}");
}

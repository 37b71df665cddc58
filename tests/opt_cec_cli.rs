//! `opt` and `cec` on the EPFL circuits shipped in `circuits/epfl`: every pass script is
//! proven at run time, our `cec` agrees with ABC's on the optimised copies and on
//! mutants, and a mutant's counterexample is confirmed by simulation.

mod common;

use common::circuitlearn;

use circuitlearn::{Aig, Cec, Matching, Tool, abc_cec, read_aiger};
use std::path::{Path, PathBuf};

fn epfl(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("circuits/epfl").join(name)
}

const CIRCUITS: &[&str] = &["cavlc", "ctrl", "dec", "int2float", "router"];

#[test]
fn opt_scripts_are_proven_and_cec_accepts_the_result() {
    let d = tempfile::tempdir().unwrap();
    for name in CIRCUITS {
        let src = epfl(&format!("{name}.blif"));
        let out = format!("{name}.opt.aig");
        let o = circuitlearn(
            &[
                "opt",
                src.to_str().unwrap(),
                "--passes",
                "constprop,strash,fraig,balance,sweep",
                "--check",
                "-o",
                &out,
                "--json",
            ],
            d.path(),
        );
        assert!(o.status.success(), "{name}: {}", String::from_utf8_lossy(&o.stderr));
        let stats: serde_json::Value =
            serde_json::from_str(String::from_utf8_lossy(&o.stdout).lines().last().unwrap()).unwrap();
        for p in stats["passes"].as_array().unwrap() {
            assert!(matches!(p["checked"].as_str(), Some("exhaustive" | "sat")), "{name}: {p}");
        }
        let c = circuitlearn(&["cec", src.to_str().unwrap(), &out], d.path());
        assert_eq!(c.status.code(), Some(0), "{name}: {}", String::from_utf8_lossy(&c.stdout));
        if common::have(&[Tool::Abc]) {
            let orig = epfl(&format!("{name}.aig"));
            let log = d.path().join(format!("{name}.abc.log"));
            let verdict = abc_cec(d.path(), orig.to_str().unwrap(), &out, Matching::Names, &log).unwrap();
            assert!(matches!(verdict, Cec::Equivalent), "ABC disagrees on {name}");
        }
    }
}

/// Complements one fan-in of the middle AND node of an ASCII AIGER file.
fn mutate_aag(text: &str) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let h: Vec<usize> = lines[0].split_whitespace().skip(1).take(5).map(|v| v.parse().unwrap()).collect();
    let k = 1 + h[1] + h[2] + h[3] + h[4] / 2;
    let mut f: Vec<u64> = lines[k].split_whitespace().map(|v| v.parse().unwrap()).collect();
    f[1] ^= 1;
    lines[k] = format!("{} {} {}", f[0], f[1], f[2]);
    lines.join("\n") + "\n"
}

#[test]
fn mutants_are_caught_with_confirmed_counterexamples() {
    let d = tempfile::tempdir().unwrap();
    for name in CIRCUITS {
        let orig = epfl(&format!("{name}.aig"));
        let o = circuitlearn(&["opt", orig.to_str().unwrap(), "--passes", "strash", "-o", "m.aag"], d.path());
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let text = std::fs::read_to_string(d.path().join("m.aag")).unwrap();
        std::fs::write(d.path().join("mut.aag"), mutate_aag(&text)).unwrap();
        let e = circuitlearn(&["export", "--circuit", "mut.aag", "-o", "mut.aig"], d.path());
        assert!(e.status.success(), "{}", String::from_utf8_lossy(&e.stderr));
        let c = circuitlearn(&["cec", orig.to_str().unwrap(), "mut.aig", "--json"], d.path());
        assert_eq!(c.status.code(), Some(1), "{name}: mutant not caught");
        let j: serde_json::Value =
            serde_json::from_str(String::from_utf8_lossy(&c.stdout).lines().last().unwrap()).unwrap();
        let cex: Vec<bool> = j["counterexample"].as_str().unwrap().chars().map(|ch| ch == '1').collect();
        let (a, _) = read_aiger(&orig).unwrap();
        let (b, _) = read_aiger(&d.path().join("mut.aig")).unwrap();
        assert_ne!(
            Aig::eval_one(&a, &cex),
            Aig::eval_one(&b, &cex),
            "{name}: counterexample does not distinguish"
        );
        if common::have(&[Tool::Abc]) {
            let log = d.path().join("abc.log");
            let verdict =
                abc_cec(d.path(), orig.to_str().unwrap(), "mut.aig", Matching::Names, &log).unwrap();
            assert!(matches!(verdict, Cec::NotEquivalent { .. }), "ABC disagrees on the {name} mutant");
        }
    }
}

#[test]
fn cec_refuses_circuits_whose_names_differ() {
    let d = tempfile::tempdir().unwrap();
    let (a, b) = (epfl("ctrl.blif"), epfl("dec.blif"));
    let c = circuitlearn(&["cec", a.to_str().unwrap(), b.to_str().unwrap()], d.path());
    assert_eq!(c.status.code(), Some(2));
    let err = String::from_utf8_lossy(&c.stderr);
    assert!(err.contains("--by-position") && err.lines().count() == 1, "{err}");
}

#[test]
fn export_applies_a_pass_script_and_stays_equivalent() {
    let d = tempfile::tempdir().unwrap();
    let src = epfl("int2float.blif");
    let o = circuitlearn(
        &["export", "--circuit", src.to_str().unwrap(), "--passes", "strash,fraig,balance", "-o", "p.blif"],
        d.path(),
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let c = circuitlearn(&["cec", src.to_str().unwrap(), "p.blif"], d.path());
    assert_eq!(c.status.code(), Some(0), "{}", String::from_utf8_lossy(&c.stdout));
    let bad = circuitlearn(
        &["export", "--circuit", src.to_str().unwrap(), "--passes", "nope", "-o", "q.blif"],
        d.path(),
    );
    assert_eq!(bad.status.code(), Some(2));
}

/// The relaxed-gate Iris classifier of `tests/fixtures/fraig`.
fn iris_classifier() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fraig/iris-gates400x2.aig")
}

#[test]
fn cec_out_of_its_sat_budget_says_undecided_with_exit_3() {
    let d = tempfile::tempdir().unwrap();
    let src = iris_classifier();
    let o =
        circuitlearn(&["opt", src.to_str().unwrap(), "--passes", "strash,balance", "-o", "b.aig"], d.path());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let tiny = ["--sat-conflicts", "1", "--sat-total-conflicts", "1"];
    let mut args = vec!["cec", src.to_str().unwrap(), "b.aig", "--json"];
    args.extend(tiny);
    let c = circuitlearn(&args, d.path());
    assert_eq!(c.status.code(), Some(3), "{}", String::from_utf8_lossy(&c.stdout));
    let out = String::from_utf8_lossy(&c.stdout);
    let v: serde_json::Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    assert_eq!((v["undecided"].as_bool(), v["equivalent"].is_null()), (Some(true), true), "{v}");
    let c = circuitlearn(&args[..3].iter().chain(&tiny).copied().collect::<Vec<_>>(), d.path());
    let out = String::from_utf8_lossy(&c.stdout);
    assert!(out.starts_with("undecided (limit 1 conflicts / 300 s)"), "{out}");
    // With the default limits the same check is decided.
    let c = circuitlearn(&["cec", src.to_str().unwrap(), "b.aig"], d.path());
    assert_eq!(c.status.code(), Some(0), "{}", String::from_utf8_lossy(&c.stdout));
}

#[test]
fn opt_fraig_on_a_relaxed_gate_classifier_reports_its_sat_calls() {
    let d = tempfile::tempdir().unwrap();
    let src = iris_classifier();
    let o = circuitlearn(
        &["opt", src.to_str().unwrap(), "--passes", "strash,fraig", "--check", "-o", "f.aig", "--json"],
        d.path(),
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value =
        serde_json::from_str(String::from_utf8_lossy(&o.stdout).lines().last().unwrap()).unwrap();
    let fraig = &v["passes"][1];
    assert_eq!(fraig["checked"].as_str(), Some("sat"), "{fraig}");
    assert!(fraig["sat"]["unsat"].as_u64().is_some_and(|n| n > 0), "{fraig}");
    assert!(fraig["ands_after"].as_u64() < fraig["ands_before"].as_u64(), "{fraig}");
    assert!(o.stderr.is_empty(), "no progress lines with --json: {}", String::from_utf8_lossy(&o.stderr));
}

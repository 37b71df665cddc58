//! Pins the AND counts of every shipped circuit (`circuits/epfl`, BLIF and AIGER, and
//! `circuits/iscas85`: c17 and nine ISCAS-85 circuits from circuitgraph 0.2.1) under
//! `strash` and each named script. A change that raises a count fails; a change that
//! lowers one is reported, and the pinned value should be lowered to it (keep them
//! exact). Every result is proven equivalent to the input (SAT miter).

mod common;

use circuitlearn::{
    Aig, CecParams, PassContext, Verdict, cec, parse_script, read_aiger, read_blif, run_script,
};
use std::path::Path;

/// (file, strash, resyn2, compress2). 2026-12-01, rewriting on live cuts with ties to
/// the shallowest structure and sharing-aware balance: cavlc 645 -> 642, ctrl 108 ->
/// 102, router 220 -> 199, int2float 208 -> 209 (the one rise, accepted for a geometric
/// mean over EPFL + c17 of 485.4 against 493.8; BENCHMARKS.md).
///
/// 2026-12-02 (later), `balance` shaped as ABC's (depth first from the outputs, new ANDs
/// joined first): resyn2 router 199 -> 186, c7552 1,418 -> 1,395, c3540 932 -> 927,
/// int2float 209 -> 205, c1908 361 -> 359, cavlc 642 -> 640; three rises, accepted for
/// a geometric mean over the 15 BLIF files of 289.3 against 290.9 (ABC resyn2 295.7):
/// c5315 1,319 -> 1,338, c2670 548 -> 555, c432 121 -> 122 (BENCHMARKS.md).
const PINNED: &[(&str, usize, usize, usize)] = &[
    ("iscas85/c17.blif", 6, 6, 6),
    // 2026-12-02: ISCAS-85 from circuitgraph 0.2.1 (circuits/iscas85/README.md); ABC
    // resyn2 gives 136, 386, 314, 386, 362, 580 (BENCHMARKS.md).
    // 2026-12-02 (later): gate-like covers also lowered as ABC builds their SOPs, the
    // smaller AIG kept: c432 strash 209 -> 208 (ABC 208), resyn2 123 -> 121.
    ("iscas85/c432.blif", 208, 122, 122),
    ("iscas85/c499.blif", 396, 378, 378),
    ("iscas85/c880.blif", 324, 305, 305),
    ("iscas85/c1355.blif", 500, 378, 378),
    ("iscas85/c1908.blif", 459, 359, 359),
    ("iscas85/c2670.blif", 716, 555, 555),
    // 2026-12-02: ABC strash 1,038, 1,773, 2,078; ABC resyn2 938, 1,312, 1,425.
    ("iscas85/c3540.blif", 1038, 927, 927),
    ("iscas85/c5315.blif", 1773, 1338, 1338),
    ("iscas85/c7552.blif", 2078, 1395, 1395),
    ("epfl/cavlc.blif", 693, 640, 640),
    ("epfl/ctrl.blif", 174, 102, 102),
    ("epfl/dec.blif", 304, 304, 304),
    ("epfl/int2float.blif", 260, 205, 205),
    ("epfl/router.blif", 257, 186, 186),
    ("epfl/cavlc.aig", 693, 640, 640),
    ("epfl/ctrl.aig", 174, 102, 102),
    ("epfl/dec.aig", 304, 304, 304),
    ("epfl/int2float.aig", 260, 205, 205),
    ("epfl/router.aig", 257, 186, 186),
];

fn load(name: &str) -> Aig {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("circuits").join(name);
    if name.ends_with(".aig") {
        read_aiger(&p).unwrap().0
    } else {
        Aig::from_circuit(read_blif(&p).unwrap().circuit(), None)
    }
}

#[test]
fn and_counts_never_rise() {
    let ctx = PassContext::default();
    let mut report = Vec::new();
    let mut risen = Vec::new();
    for &(name, strash, resyn2, compress2) in PINNED {
        let g = load(name);
        for (script, pinned) in
            [("strash", strash), ("strash,resyn2", resyn2), ("strash,compress2", compress2)]
        {
            let (h, _) = run_script(&g, &parse_script(script, &ctx).unwrap(), false).unwrap();
            assert_eq!(
                cec(&g, &h, &CecParams::default()).unwrap().verdict,
                Verdict::Equivalent,
                "{name} {script}"
            );
            let n = h.n_ands();
            report.push(format!("{name} {script}: {n} (pinned {pinned})"));
            if n > pinned {
                risen.push(format!("{name} {script}: {n} > pinned {pinned}"));
            }
        }
    }
    println!("{}", report.join("\n"));
    assert!(risen.is_empty(), "AND counts rose:\n{}", risen.join("\n"));
}

#[test]
fn opt_takes_a_named_script_and_proves_every_pass() {
    let d = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("circuits/iscas85/c17.blif");
    let o = common::circuitlearn(
        &["opt", src.to_str().unwrap(), "--passes", "resyn2", "--check", "-o", "c17.aig", "--json"],
        d.path(),
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stats: serde_json::Value =
        serde_json::from_str(String::from_utf8_lossy(&o.stdout).lines().last().unwrap()).unwrap();
    assert_eq!(stats["ands"], 6);
    let passes = stats["passes"].as_array().unwrap();
    assert_eq!(passes.len(), 10);
    assert!(passes.iter().all(|p| p["checked"] == "exhaustive"), "{passes:?}");
    let bad = common::circuitlearn(
        &["opt", src.to_str().unwrap(), "--passes", "balance -z", "-o", "x.aig"],
        d.path(),
    );
    assert_eq!(bad.status.code(), Some(2), "{}", String::from_utf8_lossy(&bad.stderr));
}

#[test]
fn opt_json_reports_the_counts_of_every_local_pass() {
    let d = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("circuits/epfl/router.blif");
    let o = common::circuitlearn(
        &[
            "opt",
            src.to_str().unwrap(),
            "--passes",
            "strash,resub,rewrite,refactor -z,balance",
            "-o",
            "r.aig",
            "--json",
        ],
        d.path(),
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stats: serde_json::Value =
        serde_json::from_str(String::from_utf8_lossy(&o.stdout).lines().last().unwrap()).unwrap();
    let passes = stats["passes"].as_array().unwrap();
    for p in passes {
        let name = p["pass"].as_str().unwrap();
        let local = &p["local"];
        if !matches!(name, "rewrite" | "refactor -z" | "resub") {
            assert!(local.is_null(), "{name} has local counts: {p}");
            continue;
        }
        let (before, after) = (p["ands_before"].as_u64().unwrap(), p["ands_after"].as_u64().unwrap());
        let nodes = local["nodes"].as_u64().unwrap();
        let replaced = local["replaced"].as_u64().unwrap();
        assert!(nodes > 0 && nodes <= before, "{name}: {p}");
        assert!(local["tried"].as_u64().unwrap() >= replaced, "{name}: {p}");
        assert!(replaced > 0, "{name} replaced nothing on router: {p}");
        assert_eq!(local["kept_input"], false, "{name}: {p}");
        // A gain-only pass's estimate is what it saved, at least (sharing found later
        // when the graph is rebuilt can only add to it).
        if name != "refactor -z" {
            assert!(before - after >= local["estimated_gain"].as_u64().unwrap(), "{name}: {p}");
        }
        assert!(p["seconds"].as_f64().is_some());
        assert!(p["detail"].as_str().unwrap().contains("replaced"), "{name}: {p}");
    }
    let resub = passes.iter().find(|p| p["pass"] == "resub").unwrap();
    let kinds: u64 = resub["local"]["by_added"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).sum();
    assert_eq!(kinds, resub["local"]["replaced"].as_u64().unwrap());
}

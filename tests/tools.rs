//! Co-simulation and equivalence with the external tools: Icarus runs the exported
//! Verilog against the Rust simulator's vectors, ABC `cec` proves the BLIF and AIGER
//! exports equivalent to the originals, Yosys maps the Verilog and the AIG (and ABC
//! proves its mapped netlists equivalent to what it read). Each test skips with a
//! printed reason when a tool is missing, and fails instead under
//! `CIRCUITLEARN_REQUIRE_TOOLS=1`.

mod common;

use circuitlearn::{
    AigerFormat, BitMatrix, BlifParams, Bool, BoolBuild, CircuitBuilder, CoverStyle, netlist_to_aiger,
    read_blif, to_blif,
};
use circuitlearn::{
    Cec, IcarusOutcome, Matching, Tool, ToolError, ToolLimits, YosysFlow, abc_cec, run_icarus,
    run_icarus_every, run_icarus_limited, run_icarus_parts, yosys_counts,
};
use circuitlearn::{
    LutStyle, Netlist, VerilogParams, module_name, random_inputs, to_verilog, write_atomic, write_testbench,
};
use common::{have, random_circuit, trained_iris};
use std::path::{Path, PathBuf};

type Result<T = ()> = std::result::Result<T, Box<dyn std::error::Error>>;

fn epfl(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("circuits/epfl").join(name)
}

/// Writes the Verilog and a bench over `inputs` into `dir` and runs Icarus.
fn cosimulate(dir: &Path, n: &Netlist, p: &VerilogParams, inputs: &BitMatrix) -> Result<IcarusOutcome> {
    let design = dir.join(format!("{}.v", n.names().model));
    write_atomic(&design, to_verilog(n, p).as_bytes())?;
    let files = write_testbench(dir, n, inputs, p.pipeline)?;
    Ok(run_icarus(dir, &files.bench, &design, &files.module)?)
}

fn assert_pass(outcome: &IcarusOutcome, vectors: usize, what: &str) {
    match outcome {
        IcarusOutcome::Pass { vectors: v, .. } => assert_eq!(*v, vectors, "{what}"),
        IcarusOutcome::Mismatch { report, log } => panic!("{what}: {report} ({})", log.display()),
    }
}

#[test]
fn icarus_matches_the_simulator_on_a_trained_model() -> Result {
    if !have(&[Tool::Iverilog, Tool::Vvp]) {
        return Ok(());
    }
    let d = tempfile::tempdir()?;
    let (bound, data) = trained_iris();
    let n = Netlist::indexed("iris", bound);
    // Every train and test example, then random inputs.
    let inputs = BitMatrix::concat_examples(&[&data, &random_inputs(n.circuit().n_inputs(), 256, 1)]);
    for (lut_style, pipeline) in [(LutStyle::Table, 0), (LutStyle::Expr, 0), (LutStyle::Table, 2)] {
        let p = VerilogParams { lut_style, pipeline, valid: false };
        assert_pass(&cosimulate(d.path(), &n, &p, &inputs)?, inputs.examples(), &format!("{p:?}"));
    }
    Ok(())
}

#[test]
fn icarus_reports_a_wrong_expectation() -> Result {
    if !have(&[Tool::Iverilog, Tool::Vvp]) {
        return Ok(());
    }
    let d = tempfile::tempdir()?;
    let n = Netlist::indexed("g", random_circuit(3, 8, 40, false));
    let p = VerilogParams::default();
    assert_pass(&cosimulate(d.path(), &n, &p, &random_inputs(8, 256, 0))?, 256, "before tampering");
    // Flip the last expected bit of vector 5: the bench must now fail.
    let mem = d.path().join("g.mem");
    let mut lines: Vec<String> = std::fs::read_to_string(&mem)?.lines().map(String::from).collect();
    let last = lines[5].pop().and_then(|c| c.to_digit(16)).ok_or("no hex digit")?;
    lines[5].push(char::from_digit(last ^ 1, 16).ok_or("digit")?);
    std::fs::write(&mem, lines.join("\n") + "\n")?;
    let files_bench = d.path().join("g_tb.v");
    match run_icarus(d.path(), &files_bench, &d.path().join("g.v"), "g_tb")? {
        IcarusOutcome::Mismatch { report, .. } => {
            assert!(report.contains("MISMATCH vector 5"), "{report}");
            assert!(report.contains("FAIL: 1 of 256 vectors mismatched"), "{report}");
        }
        IcarusOutcome::Pass { .. } => panic!("a tampered vector passed"),
    }
    // `+step=K` checks vectors 0, K, 2K, ...: with K = 5 vector 5 is among them, with
    // K = 2 it is not.
    match run_icarus_every(d.path(), &files_bench, &d.path().join("g.v"), "g_tb", 5)? {
        IcarusOutcome::Mismatch { report, .. } => {
            assert!(report.contains("FAIL: 1 of 52 vectors mismatched"), "{report}");
        }
        IcarusOutcome::Pass { .. } => panic!("vector 5 was not checked with step 5"),
    }
    assert_pass(&run_icarus_every(d.path(), &files_bench, &d.path().join("g.v"), "g_tb", 2)?, 128, "step 2");
    // Shared out over several `vvp` runs (`+first`), the same vectors are checked: the
    // tampered one is found whichever run holds it, and the runs' logs become one.
    for parts in 1..=3 {
        for (step, checked) in [(1, 256usize), (5, 52)] {
            match run_icarus_parts(
                d.path(),
                &files_bench,
                &d.path().join("g.v"),
                "g_tb",
                step,
                parts,
                &ToolLimits::default(),
            )? {
                IcarusOutcome::Mismatch { report, log } => {
                    assert!(report.contains("MISMATCH vector 5"), "{parts} parts, step {step}: {report}");
                    let failing = report.lines().filter(|l| l.contains("FAIL: 1 of")).count();
                    assert_eq!(failing, 1, "{parts} parts, step {step}: {report}");
                    assert_eq!(log, d.path().join("g_tb.vvp.log"));
                    assert_eq!(std::fs::read_to_string(&log)?.matches("$ ").count(), parts, "one log");
                }
                IcarusOutcome::Pass { .. } => panic!("{parts} parts, step {step}: a tampered vector passed"),
            }
            let outcome = run_icarus_parts(
                d.path(),
                &files_bench,
                &d.path().join("g.v"),
                "g_tb",
                2 * step,
                parts,
                &ToolLimits::default(),
            )?;
            assert_pass(&outcome, checked.div_ceil(2), &format!("{parts} parts, step {}", 2 * step));
        }
    }
    let leftovers: Vec<_> = std::fs::read_dir(d.path())?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|f| f.starts_with("g_tb.vvp.") && f != "g_tb.vvp.log")
        .collect();
    assert!(leftovers.is_empty(), "part logs left behind: {leftovers:?}");
    Ok(())
}

/// A pipelined bench shared out over runs that start past vector 0 (`+first`) checks
/// every vector once, and none during the pipeline's fill.
#[test]
fn icarus_shares_a_pipelined_bench_out() -> Result {
    if !have(&[Tool::Iverilog, Tool::Vvp]) {
        return Ok(());
    }
    let d = tempfile::tempdir()?;
    let n = Netlist::indexed("p", random_circuit(5, 10, 80, true));
    let p = VerilogParams { lut_style: LutStyle::Table, pipeline: 3, valid: false };
    let design = d.path().join("p.v");
    write_atomic(&design, to_verilog(&n, &p).as_bytes())?;
    let files = write_testbench(d.path(), &n, &random_inputs(10, 500, 3), p.pipeline)?;
    for parts in [1, 3] {
        let outcome = run_icarus_parts(
            d.path(),
            &files.bench,
            &design,
            &files.module,
            1,
            parts,
            &ToolLimits::default(),
        )?;
        assert_pass(&outcome, 500, &format!("{parts} parts"));
    }
    Ok(())
}

#[test]
fn icarus_matches_the_simulator_on_random_and_epfl_circuits() -> Result {
    if !have(&[Tool::Iverilog, Tool::Vvp]) {
        return Ok(());
    }
    let d = tempfile::tempdir()?;
    for seed in 0..4 {
        let n = Netlist::indexed(&format!("r{seed}"), random_circuit(seed, 10, 80, true));
        for (lut_style, pipeline) in [(LutStyle::Table, 0), (LutStyle::Expr, 3)] {
            let p = VerilogParams { lut_style, pipeline, valid: false };
            assert_pass(
                &cosimulate(d.path(), &n, &p, &random_inputs(10, 2000, 0))?,
                1024,
                &format!("r{seed} {p:?}"),
            );
        }
    }
    for name in ["ctrl", "int2float", "cavlc", "dec", "router"] {
        let n = read_blif(&epfl(&format!("{name}.blif")))?;
        let inputs = random_inputs(n.circuit().n_inputs(), 2048, 0);
        assert_pass(&cosimulate(d.path(), &n, &VerilogParams::default(), &inputs)?, inputs.examples(), name);
    }
    Ok(())
}

#[test]
fn abc_proves_the_exports_equivalent_to_the_originals() -> Result {
    if !have(&[Tool::Abc]) {
        return Ok(());
    }
    let d = tempfile::tempdir()?;
    let cec = |a: &str, b: &str, m: Matching| -> Result<Cec> {
        Ok(abc_cec(d.path(), a, b, m, &d.path().join(format!("{a}-{b}.log")))?)
    };
    for name in ["ctrl", "int2float", "cavlc", "dec", "router"] {
        for ext in ["blif", "aig"] {
            let orig = format!("{name}.{ext}");
            std::fs::copy(epfl(&orig), d.path().join(&orig))?;
        }
        let n = read_blif(&epfl(&format!("{name}.blif")))?;
        write_atomic(
            &d.path().join(format!("{name}.re.blif")),
            to_blif(&n, &BlifParams::default()).as_bytes(),
        )?;
        write_atomic(&d.path().join(format!("{name}.re.aig")), &netlist_to_aiger(&n, AigerFormat::Binary))?;
        // (ABC's generic reader does not open `.aag`; the round-trip tests cover it.)
        for (a, b) in [("blif", "re.blif"), ("blif", "re.aig"), ("aig", "re.aig"), ("aig", "re.blif")] {
            let (a, b) = (format!("{name}.{a}"), format!("{name}.{b}"));
            assert_eq!(cec(&a, &b, Matching::Names)?, Cec::Equivalent, "{a} vs {b}");
        }
    }
    // The trained model: BLIF and AIGER against the plain truth-table BLIF.
    let n = Netlist::indexed("iris", trained_iris().0);
    write_atomic(
        &d.path().join("iris.ref.blif"),
        to_blif(&n, &BlifParams { cover: CoverStyle::Minterms }).as_bytes(),
    )?;
    write_atomic(&d.path().join("iris.blif"), to_blif(&n, &BlifParams::default()).as_bytes())?;
    write_atomic(&d.path().join("iris.aig"), &netlist_to_aiger(&n, AigerFormat::Binary))?;
    for b in ["iris.blif", "iris.aig"] {
        assert_eq!(cec("iris.ref.blif", b, Matching::Names)?, Cec::Equivalent, "{b}");
    }
    Ok(())
}

#[test]
fn abc_finds_a_changed_output() -> Result {
    if !have(&[Tool::Abc]) {
        return Ok(());
    }
    let d = tempfile::tempdir()?;
    let n = read_blif(&epfl("ctrl.blif"))?;
    // The same circuit with output 3 inverted.
    let c = n.circuit();
    let mut b = CircuitBuilder::<Bool>::new(0, c.n_inputs());
    let inputs = b.args();
    let mut outs = b.instantiate(c, &inputs)?;
    outs[3] = b.not(outs[3]);
    let mutant = Netlist::new(n.names().clone(), b.finish(outs)?)?;
    std::fs::copy(epfl("ctrl.blif"), d.path().join("ctrl.blif"))?;
    write_atomic(&d.path().join("mutant.aig"), &netlist_to_aiger(&mutant, AigerFormat::Binary))?;
    match abc_cec(d.path(), "ctrl.blif", "mutant.aig", Matching::Names, &d.path().join("cec.log"))? {
        Cec::NotEquivalent { report } => assert!(report.contains(&n.names().outputs[3]), "{report}"),
        Cec::Equivalent => panic!("ABC calls a mutated circuit equivalent"),
    }
    Ok(())
}

#[test]
fn yosys_maps_an_epfl_circuit_from_verilog_and_from_its_aig() -> Result {
    if !have(&[Tool::Yosys, Tool::Abc]) {
        return Ok(());
    }
    let d = tempfile::tempdir()?;
    let n = read_blif(&epfl("int2float.blif"))?;
    // The BLIF's model is named `top`, and so is the module.
    let top = module_name(&n.names().model);
    let v = d.path().join("int2float.v");
    write_atomic(&v, to_verilog(&n, &VerilogParams::default()).as_bytes())?;
    let aig = d.path().join("int2float.aig");
    write_atomic(&aig, &netlist_to_aiger(&n, AigerFormat::Binary))?;
    for (input, flow) in [(&v, YosysFlow::Verilog), (&aig, YosysFlow::Aig)] {
        let counts = yosys_counts(input, &top, flow)?;
        // The suite publishes 49 LUT-6 for int2float (ABC if -K 6).
        assert!((20..=120).contains(&counts.lut6), "{counts:?}");
        assert!(counts.sb_lut4 >= counts.lut6, "{counts:?}");
        assert!(counts.lut6_script.contains("abc -lut 6"), "{counts:?}");
        // The AIG flow's netlists keep the AIG's port names (its symbol table), so ABC
        // can prove them equivalent to it. (The Verilog flow's ports are `x[i]`, `y[j]`;
        // `verify` checks those netlists against a BLIF named like them.)
        if flow == YosysFlow::Aig {
            for netlist in [&counts.lut6_netlist, &counts.ice40_netlist] {
                let file = netlist.file_name().ok_or("netlist name")?.to_string_lossy().into_owned();
                let log = d.path().join(format!("{file}.cec.log"));
                let verdict = abc_cec(d.path(), "int2float.aig", &file, Matching::Names, &log)?;
                assert_eq!(verdict, Cec::Equivalent, "{file}");
            }
        }
    }
    Ok(())
}

#[test]
fn a_timed_out_icarus_compile_leaves_no_vvp_behind() -> Result {
    if !have(&[Tool::Iverilog, Tool::Vvp]) {
        return Ok(());
    }
    let d = tempfile::tempdir()?;
    let n = Netlist::indexed("g", random_circuit(5, 8, 200, false));
    let p = VerilogParams::default();
    // A complete run first: its .vvp must not survive a later, killed compile either.
    assert_pass(&cosimulate(d.path(), &n, &p, &random_inputs(8, 64, 0))?, 64, "complete run");
    assert!(d.path().join("g_tb.vvp").exists());
    let (bench, design) = (d.path().join("g_tb.v"), d.path().join("g.v"));
    let tiny = ToolLimits { timeout: std::time::Duration::from_millis(1) };
    match run_icarus_limited(d.path(), &bench, &design, "g_tb", 1, &tiny) {
        Err(ToolError::TimedOut { tool, log, .. }) => {
            assert_eq!(tool, "iverilog");
            assert!(std::fs::read_to_string(log)?.contains("time bound"));
        }
        other => panic!("expected a timeout, got {other:?}"),
    }
    let left: Vec<String> = std::fs::read_dir(d.path())?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|f| f.contains(".vvp") && !f.ends_with(".log"))
        .collect();
    assert!(left.is_empty(), "a killed compile left {left:?}");
    Ok(())
}

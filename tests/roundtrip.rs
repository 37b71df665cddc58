//! Writer -> reader round trips, proven equivalent by simulation (exhaustive up to 16
//! inputs, random lanes beyond): BLIF and AIGER (both encodings) on random circuits over
//! every gate type, on a trained model, and on the EPFL circuits in `circuits/epfl`.

mod common;

use circuitlearn::{
    Aig, AigerFormat, BlifParams, CoverStyle, Netlist, PortNames, netlist_to_aiger, parse_aiger, parse_blif,
    read_aiger_netlist, read_blif, to_blif,
};
use common::{assert_equivalent, random_circuit, trained_iris};
use std::path::Path;

const EPFL: [&str; 5] = ["ctrl", "int2float", "cavlc", "dec", "router"];

/// Writes `n` as BLIF (both cover styles), `aag` and `aig`, reads each back, and checks
/// names and function.
fn round_trip(n: &Netlist, what: &str) {
    for cover in [CoverStyle::Isop, CoverStyle::Minterms] {
        let text = to_blif(n, &BlifParams { cover });
        let back = parse_blif(&text, what).unwrap_or_else(|e| panic!("{what}: {e}\n{text}"));
        assert_eq!(back.names(), n.names(), "{what}: BLIF names");
        assert_equivalent(n.circuit(), back.circuit(), &format!("{what} via BLIF ({cover:?})"));
    }
    for format in [AigerFormat::Ascii, AigerFormat::Binary] {
        let bytes = netlist_to_aiger(n, format);
        let (aig, names) =
            parse_aiger(&bytes, what, &n.names().model).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(&names, n.names(), "{what}: AIGER symbols");
        assert_eq!(aig, Aig::from_circuit(n.circuit(), None), "{what}: the AIG read is the AIG written");
        assert_equivalent(n.circuit(), &aig.to_circuit(), &format!("{what} via {format:?} AIGER"));
    }
}

#[test]
fn random_circuits_over_every_gate_type() {
    for seed in 0..12 {
        let n_inputs = [3, 8, 12, 40][seed as usize % 4];
        let c = random_circuit(seed, n_inputs, 60, seed % 2 == 0);
        round_trip(&Netlist::indexed("r", c), &format!("random circuit {seed}"));
    }
}

#[test]
fn custom_port_names_survive() -> Result<(), Box<dyn std::error::Error>> {
    let c = random_circuit(99, 5, 30, false);
    let names = PortNames {
        model: "named".into(),
        inputs: vec!["a".into(), "b[0]".into(), "b[1]".into(), "w5".into(), "clk_en".into()],
        outputs: (0..c.n_outputs()).map(|j| format!("out_{j}")).collect(),
    };
    let n = Netlist::new(names, c)?;
    // An input named like an internal wire moves the internal names aside.
    assert!(to_blif(&n, &BlifParams::default()).contains(".names"));
    assert!(to_blif(&n, &BlifParams::default()).contains(" w_"));
    round_trip(&n, "named");
    Ok(())
}

#[test]
fn a_trained_model_round_trips() {
    let (bound, _) = trained_iris();
    round_trip(&Netlist::indexed("iris", bound), "trained iris");
}

#[test]
fn epfl_blif_and_aiger_agree_and_round_trip() -> Result<(), Box<dyn std::error::Error>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("circuits/epfl");
    for name in EPFL {
        let from_blif = read_blif(&dir.join(format!("{name}.blif")))?;
        let from_aig = read_aiger_netlist(&dir.join(format!("{name}.aig")))?;
        assert_eq!(from_blif.names().inputs, from_aig.names().inputs, "{name}: input names");
        assert_eq!(from_blif.names().outputs, from_aig.names().outputs, "{name}: output names");
        assert_equivalent(from_blif.circuit(), from_aig.circuit(), &format!("{name}: BLIF vs AIGER"));
        round_trip(&from_blif, &format!("{name} (from BLIF)"));
        round_trip(&from_aig, &format!("{name} (from AIGER)"));
    }
    Ok(())
}

#[test]
fn readers_survive_mutated_files() -> Result<(), Box<dyn std::error::Error>> {
    use rand::{RngExt, SeedableRng};
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("circuits/epfl");
    let blif = std::fs::read(dir.join("ctrl.blif"))?;
    let aig = std::fs::read(dir.join("ctrl.aig"))?;
    let aag = netlist_to_aiger(&read_blif(&dir.join("ctrl.blif"))?, AigerFormat::Ascii);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
    let mut errors = 0;
    for round in 0..3000 {
        let source = [&blif, &aig, &aag][round % 3];
        let mut bytes = source.clone();
        for _ in 0..rng.random_range(1..4) {
            let at = rng.random_range(0..bytes.len());
            match rng.random_range(0..4) {
                0 => bytes[at] = rng.random(),
                1 => bytes[at] = b"01-\n \\.x2"[rng.random_range(0..9)],
                2 => bytes.truncate(at.max(1)),
                _ => bytes.insert(at, rng.random()),
            }
        }
        // Every outcome is fine except a panic; errors must name the file.
        let err = match round % 3 {
            0 => parse_blif(&String::from_utf8_lossy(&bytes), "m.blif").err().map(|e| e.to_string()),
            _ => parse_aiger(&bytes, "m.aig", "m").err().map(|e| e.to_string()),
        };
        if let Some(e) = err {
            assert!(e.starts_with("m."), "{e}");
            errors += 1;
        }
    }
    assert!(errors > 1000, "mutations should mostly break the files ({errors} errors)");
    Ok(())
}

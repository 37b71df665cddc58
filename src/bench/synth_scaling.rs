//! Synthesis scaling (`circuitlearn bench --synth-scaling`): the `opt` passes timed on
//! AIGs of growing size built from the shipped EPFL circuits, so that seconds per AND
//! node can be compared from 10K to 1M ANDs (issue 21).
//!
//! The AIG is a chain of copies of the five EPFL control circuits in `circuits/epfl`
//! (cavlc, ctrl, dec, int2float, router, in turn): input `j` of copy `i` is an output of
//! copy `i - 1 - (j mod LANES)`, so every copy reads several of its predecessors and
//! the result is one connected circuit whose depth grows with the number of copies over
//! `LANES`, not with the number of copies. Inputs that reach before the first copy are
//! primary inputs; outputs no later copy reads are primary outputs. It is built without
//! structural hashing (as a netlist is read), so `strash` has work to do.

use crate::aig::{Aig, Lit};
use crate::io::aiger_reader::parse_aiger;
use crate::pass::{Balance, Pass, PassContext, Refactor, Rewrite, Strash, parse_script};
use serde::Serialize;
use std::time::Instant;

/// How many earlier copies feed one copy.
pub const LANES: usize = 8;

/// Primary inputs of the chain.
pub const CHAIN_INPUTS: usize = 64;

/// The shipped circuits the chain cycles through (see `circuits/epfl/LICENSE`).
const PARTS: &[(&str, &[u8])] = &[
    ("cavlc", include_bytes!("../../circuits/epfl/cavlc.aig")),
    ("ctrl", include_bytes!("../../circuits/epfl/ctrl.aig")),
    ("dec", include_bytes!("../../circuits/epfl/dec.aig")),
    ("int2float", include_bytes!("../../circuits/epfl/int2float.aig")),
    ("router", include_bytes!("../../circuits/epfl/router.aig")),
];

/// The chain of EPFL copies with at least `target_ands` AND nodes (unhashed; see the
/// module documentation).
///
/// # Panics
/// Never: the embedded circuits parse.
#[must_use]
pub fn epfl_chain(target_ands: usize) -> Aig {
    let parts: Vec<Aig> = PARTS
        .iter()
        .map(|(name, bytes)| parse_aiger(bytes, name, name).expect("shipped EPFL circuit parses").0)
        .collect();
    let mut big = Aig::unhashed(CHAIN_INPUTS);
    // Outputs of every copy so far, and whether a later copy read them.
    let mut outs: Vec<Vec<Lit>> = Vec::new();
    let mut read: Vec<Vec<bool>> = Vec::new();
    let mut pi = 0usize;
    while big.n_ands() < target_ands {
        let i = outs.len();
        assert!(i < 8 + 8 * target_ands, "the chain stopped growing");
        let part = &parts[i % parts.len()];
        let mut map = vec![Lit::FALSE; part.n_inputs() + 1 + part.n_ands()];
        for j in 0..part.n_inputs() {
            let lane = 1 + j % LANES;
            let from_copy = (i >= lane).then(|| (i - lane, (j / LANES + i) % outs[i - lane].len()));
            // A constant output, or a node this copy already reads, would fold the copy's
            // logic away: a primary input stands in for it.
            let fresh =
                |l: Lit, map: &[Lit]| l.node() != 0 && map[1..=j].iter().all(|m| m.node() != l.node());
            map[j + 1] = match from_copy {
                Some((src, k)) if fresh(outs[src][k], &map) => {
                    read[src][k] = true;
                    outs[src][k]
                }
                _ => {
                    pi += 1;
                    big.input((pi - 1) % CHAIN_INPUTS)
                }
            };
        }
        let lit = |map: &[Lit], l: Lit| if l.is_complement() { !map[l.node()] } else { map[l.node()] };
        for (n, &(a, b)) in part.ands().iter().enumerate() {
            let (a, b) = (lit(&map, a), lit(&map, b));
            map[part.n_inputs() + 1 + n] = big.and(a, b);
        }
        outs.push(part.outputs().iter().map(|&o| lit(&map, o)).collect());
        read.push(vec![false; part.outputs().len()]);
    }
    for (o, r) in outs.iter().zip(&read) {
        for (&l, &was_read) in o.iter().zip(r) {
            if !was_read {
                big.add_output(l);
            }
        }
    }
    big
}

/// One pass (or script) timed on one size.
#[derive(Clone, Debug, Serialize)]
pub struct ScalingRow {
    /// AND nodes of the chain as built (before `strash`).
    pub size: usize,
    /// Pass or script name.
    pub pass: String,
    /// AND nodes the pass read.
    pub ands_before: usize,
    /// AND nodes it left.
    pub ands_after: usize,
    /// Wall-clock seconds.
    pub seconds: f64,
}

impl ScalingRow {
    /// Microseconds per AND node read.
    #[must_use]
    pub fn us_per_and(&self) -> f64 {
        self.seconds * 1e6 / self.ands_before.max(1) as f64
    }
}

fn timed(size: usize, name: &str, aig: &Aig, f: impl FnOnce(&Aig) -> Aig) -> (ScalingRow, Aig) {
    let t = Instant::now();
    let out = f(aig);
    let seconds = t.elapsed().as_secs_f64();
    let row = ScalingRow {
        size,
        pass: name.to_string(),
        ands_before: aig.n_ands(),
        ands_after: out.n_ands(),
        seconds,
    };
    (row, out)
}

/// Times `strash` on the chain of `size` ANDs, then `balance`, `rewrite`, `refactor`
/// and the whole `resyn2` script each on the strashed AIG; `report` sees each row as it
/// is measured.
///
/// # Panics
/// Never: `resyn2` is a registered script.
pub fn synth_scaling(size: usize, mut report: impl FnMut(&ScalingRow)) -> Vec<ScalingRow> {
    let chain = epfl_chain(size);
    let size = chain.n_ands();
    let mut rows = Vec::new();
    let (row, hashed) = timed(size, "strash", &chain, |a| Strash.run(a));
    report(&row);
    rows.push(row);
    let single: [(&str, &dyn Pass); 3] =
        [("balance", &Balance), ("rewrite", &Rewrite::default()), ("refactor", &Refactor::default())];
    for (name, p) in single {
        let (row, _) = timed(size, name, &hashed, |a| p.run(a));
        report(&row);
        rows.push(row);
    }
    let script = parse_script("resyn2", &PassContext::default()).expect("resyn2 is a script");
    let (row, _) = timed(size, "resyn2", &hashed, |a| script.iter().fold(a.clone(), |cur, p| p.run(&cur)));
    report(&row);
    rows.push(row);
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chain_is_deterministic_connected_and_as_large_as_asked() {
        let a = epfl_chain(10_000);
        assert!(a.n_ands() >= 10_000 && a.n_ands() < 10_000 + 700, "{}", a.n_ands());
        assert_eq!(a, epfl_chain(10_000));
        // Connected: every AND node is reached from the outputs, so sweeping keeps all.
        assert_eq!(a.swept().n_ands(), a.n_ands());
        // Copies feed copies: far fewer outputs than the copies' outputs together.
        let copies_outputs: usize = 30 * (11 + 26 + 256 + 7 + 30) / 5;
        assert!(a.outputs().len() < copies_outputs, "{} outputs", a.outputs().len());
    }

    #[test]
    fn every_pass_is_timed_on_the_strashed_chain() {
        let rows = synth_scaling(2_000, |_| {});
        let names: Vec<&str> = rows.iter().map(|r| r.pass.as_str()).collect();
        assert_eq!(names, ["strash", "balance", "rewrite", "refactor", "resyn2"]);
        assert!(rows[0].ands_after <= rows[0].ands_before);
        assert!(rows.iter().skip(1).all(|r| r.ands_before == rows[0].ands_after));
        assert!(rows[4].ands_after < rows[4].ands_before);
    }
}

//! SAT sweeping (`fraig`), as ABC's `fraig` does it: random simulation forms candidate
//! classes of nodes whose signatures agree (up to complement); the AIG is then rebuilt
//! in topological order, and each node that has an earlier candidate in its class is
//! checked against it by an incremental SAT solver on the *rebuilt* (already merged)
//! AIG, so proofs stay local. A counterexample is simulated together with 63 neighbours
//! (one input flipped each) and splits every class it distinguishes, not only the pair
//! asked about. Every call has a conflict limit and the pass a total conflict and time
//! budget: a candidate left undecided is simply not merged, and counted.

use super::{Pass, PassRun, RunOptions};
use crate::aig::{Aig, Lit};
use crate::lanes::BitMatrix;
use crate::sat::cnf::LazyCnf;
use crate::sat::solver::{Answer, Budget, SatLimits, SatSolver, SatStats};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// SAT sweeping with `words * 64` random simulation patterns.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fraig {
    /// Words of random patterns for the signatures (fewer on very large AIGs, so the
    /// signatures stay under 64 MiB).
    pub words: usize,
    /// Seed of the patterns.
    pub seed: u64,
    /// Conflicts per SAT call, total conflicts and seconds for the pass.
    pub limits: SatLimits,
}

/// The default limits of `fraig`: 100 conflicts per call (ABC's `fraig -C 100`), two
/// million conflicts and 60 seconds for the pass.
pub const FRAIG_LIMITS: SatLimits =
    SatLimits { conflicts_per_call: 100, conflicts: 2_000_000, seconds: 60.0 };

impl Default for Fraig {
    fn default() -> Self {
        Self { words: 32, seed: 1, limits: FRAIG_LIMITS }
    }
}

/// What a `fraig` run did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct FraigStats {
    /// Nodes in a candidate class of at least two after random simulation.
    pub candidates: usize,
    /// Nodes merged because the rebuilt AIG already had them (structurally).
    pub merged_structural: usize,
    /// Nodes merged after a SAT proof.
    pub merged_proven: usize,
    /// Candidates whose check was undecided (limit hit): not merged.
    pub undecided: usize,
    /// Counterexamples simulated to split classes.
    pub refinements: usize,
    /// The SAT calls.
    pub sat: SatStats,
}

impl std::fmt::Display for FraigStats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} candidates, {} merged structurally, {} proven, {} undecided, {} refinements; {}",
            self.candidates,
            self.merged_structural,
            self.merged_proven,
            self.undecided,
            self.refinements,
            self.sat
        )
    }
}

impl Pass for Fraig {
    fn name(&self) -> &'static str {
        "fraig"
    }

    fn run(&self, aig: &Aig) -> Aig {
        self.run_with_stats(aig, &RunOptions::default()).0
    }

    fn run_observed(&self, aig: &Aig, obs: &RunOptions) -> PassRun {
        let (aig, stats) = self.run_with_stats(aig, obs);
        PassRun { aig, sat: Some(stats.sat), detail: Some(stats.to_string()), local: None }
    }
}

const NONE: u32 = u32::MAX;

/// Candidate classes: members in increasing node order, the first is the representative.
struct Classes {
    of: Vec<u32>,
    members: Vec<Vec<u32>>,
}

impl Classes {
    /// Groups nodes by signature (`w` words per node, node-major), up to complement.
    fn from_signatures(v: &[u64], w: usize, n_nodes: usize, phase: &[bool]) -> Self {
        let norm = |n: usize, i: usize| v[n * w + i] ^ if phase[n] { u64::MAX } else { 0 };
        let mut by_hash: HashMap<u64, Vec<u32>> = HashMap::new();
        let mut members: Vec<Vec<u32>> = Vec::new();
        for n in 0..n_nodes {
            let h =
                (0..w).fold(0xcbf2_9ce4_8422_2325u64, |h, i| (h ^ norm(n, i)).wrapping_mul(0x100_0000_01b3));
            let ids = by_hash.entry(h).or_default();
            let same = ids.iter().copied().find(|&c| {
                let r = members[c as usize][0] as usize;
                (0..w).all(|i| norm(r, i) == norm(n, i))
            });
            match same {
                Some(c) => members[c as usize].push(n as u32),
                None => {
                    ids.push(members.len() as u32);
                    members.push(vec![n as u32]);
                }
            }
        }
        members.retain(|m| m.len() > 1);
        let mut of = vec![NONE; n_nodes];
        for (c, m) in members.iter().enumerate() {
            for &n in m {
                of[n as usize] = c as u32;
            }
        }
        Self { of, members }
    }

    /// Splits every class by one more signature word per node (normalised by `phase`).
    fn refine(&mut self, word: &[u64], phase: &[bool]) {
        let norm = |n: u32| word[n as usize] ^ if phase[n as usize] { u64::MAX } else { 0 };
        for c in 0..self.members.len() {
            let m = &self.members[c];
            if m.len() < 2 || m.iter().all(|&n| norm(n) == norm(m[0])) {
                continue;
            }
            let mut groups: Vec<(u64, Vec<u32>)> = Vec::new();
            for &n in m {
                let k = norm(n);
                match groups.iter_mut().find(|g| g.0 == k) {
                    Some(g) => g.1.push(n),
                    None => groups.push((k, vec![n])),
                }
            }
            let mut groups = groups.into_iter().map(|g| g.1);
            let first = groups.next().unwrap_or_default();
            for &n in &first {
                self.of[n as usize] = if first.len() > 1 { c as u32 } else { NONE };
            }
            self.members[c] = first;
            for g in groups {
                if g.len() > 1 {
                    let id = self.members.len() as u32;
                    for &n in &g {
                        self.of[n as usize] = id;
                    }
                    self.members.push(g);
                } else {
                    self.of[g[0] as usize] = NONE;
                }
            }
        }
    }

    /// The representative of `n`'s class, if `n` has one other than itself.
    fn rep(&self, n: usize) -> Option<usize> {
        let c = self.of[n];
        if c == NONE {
            return None;
        }
        let r = self.members[c as usize][0] as usize;
        (r != n).then_some(r)
    }
}

/// One 64-pattern word of every node of `aig` for the given input words.
fn simulate_word(aig: &Aig, inputs: &[u64], out: &mut Vec<u64>) {
    out.clear();
    out.push(0);
    out.extend_from_slice(inputs);
    let m = |l: Lit| if l.is_complement() { u64::MAX } else { 0 };
    for &(a, b) in aig.ands() {
        let v = (out[a.node()] ^ m(a)) & (out[b.node()] ^ m(b));
        out.push(v);
    }
}

impl Fraig {
    /// Runs the pass and says what it did; `obs` receives progress.
    #[must_use]
    pub fn run_with_stats(&self, aig: &Aig, obs: &RunOptions) -> (Aig, FraigStats) {
        let mut limits = obs.limits.unwrap_or(self.limits);
        if let Some(t) = obs.time_limit {
            limits.seconds = limits.seconds.min(t.as_secs_f64());
        }
        let n_in = aig.n_inputs();
        let base = n_in + 1;
        let n_nodes = base + aig.n_ands();
        let mut stats = FraigStats::default();
        // Random simulation: at most 8M signature words in all.
        let words = self.words.clamp(1, (8 << 20) / n_nodes.max(1)).max(1);
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
        let mut x = BitMatrix::zeros(n_in, words * 64);
        for i in 0..n_in {
            for w in x.row_mut(i) {
                *w = rng.random();
            }
        }
        let v = aig.node_words(&x);
        let phase: Vec<bool> = (0..n_nodes).map(|n| v[n * words] & 1 == 1).collect();
        let mut classes = Classes::from_signatures(&v, words, n_nodes, &phase);
        drop(v);
        stats.candidates = classes.members.iter().map(Vec::len).sum();

        let mut out = Aig::new(n_in);
        let mut map: Vec<Lit> = (0..base).map(|n| Lit((n * 2) as u32)).collect();
        let mut solver = SatSolver::new();
        let mut budget = Budget::new(limits);
        let mut cnf = LazyCnf::new(&out, &mut solver).ok();
        let mut word = Vec::with_capacity(n_nodes);
        let mut last_report = Instant::now();
        let mut reported = false;
        let tr = |map: &[Lit], l: Lit| Lit(map[l.node()].0 ^ u32::from(l.is_complement()));
        for (k, &(a, b)) in aig.ands().iter().enumerate() {
            let n = base + k;
            let lit = out.and(tr(&map, a), tr(&map, b));
            map.push(lit);
            while let Some(r) = classes.rep(n) {
                let target = Lit(map[r].0 ^ u32::from(phase[n] ^ phase[r]));
                if target == lit {
                    stats.merged_structural += 1;
                    break;
                }
                let Some(enc) = cnf.as_mut() else {
                    stats.undecided += 1;
                    break;
                };
                match prove(&out, enc, &mut solver, &mut budget, lit, target) {
                    Proof::Equal => {
                        map[n] = target;
                        stats.merged_proven += 1;
                        break;
                    }
                    Proof::Differ(cex) => {
                        stats.refinements += 1;
                        let inputs = neighbours(&cex, &mut rng);
                        simulate_word(aig, &inputs, &mut word);
                        classes.refine(&word, &phase);
                        if classes.rep(n) == Some(r) {
                            // The counterexample must split n from r; if it does not
                            // (a solver fault), stop asking rather than loop.
                            stats.undecided += 1;
                            break;
                        }
                    }
                    Proof::Undecided => {
                        stats.undecided += 1;
                        break;
                    }
                }
            }
            if let Some(hook) = &obs.progress
                && last_report.elapsed() >= Duration::from_millis(250)
            {
                hook.report("fraig", k + 1, aig.n_ands());
                last_report = Instant::now();
                reported = true;
            }
        }
        if let Some(hook) = obs.progress.as_ref().filter(|_| reported) {
            hook.report("fraig", aig.n_ands(), aig.n_ands());
        }
        for &o in aig.outputs() {
            out.add_output(tr(&map, o));
        }
        stats.sat = budget.stats;
        (out.swept(), stats)
    }
}

enum Proof {
    Equal,
    Differ(Vec<bool>),
    Undecided,
}

/// Whether `a == b` in `g`: two bounded calls (`a & !b`, then `!a & b`).
fn prove(g: &Aig, cnf: &mut LazyCnf, s: &mut SatSolver, budget: &mut Budget, a: Lit, b: Lit) -> Proof {
    if budget.exhausted() {
        // Not even worth encoding the cones.
        budget.skip();
        return Proof::Undecided;
    }
    let (Ok(x), Ok(y)) = (cnf.lit(g, a, s), cnf.lit(g, b, s)) else { return Proof::Undecided };
    for assumps in [[x, !y], [!x, y]] {
        match s.solve(&assumps, budget) {
            Ok(Answer::Unsat) => {}
            Ok(Answer::Sat) => {
                let cex = (0..g.n_inputs()).map(|i| cnf.input(i).is_some_and(|v| s.value(v))).collect();
                return Proof::Differ(cex);
            }
            Ok(Answer::Undecided) | Err(_) => return Proof::Undecided,
        }
    }
    // Proven: tell the solver, which helps later queries through both cones.
    let _ = s.add(&[!x, y]).and_then(|()| s.add(&[x, !y]));
    Proof::Equal
}

/// 64 patterns: `cex` itself, then `cex` with one random input flipped in each lane
/// (ABC's guided, distance-1 simulation), as one word per input.
fn neighbours(cex: &[bool], rng: &mut ChaCha8Rng) -> Vec<u64> {
    let mut words: Vec<u64> = cex.iter().map(|&b| if b { u64::MAX } else { 0 }).collect();
    if !words.is_empty() {
        for lane in 1..64 {
            let i = rng.random_range(0..words.len());
            words[i] ^= 1 << lane;
        }
    }
    words
}

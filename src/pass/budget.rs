//! A pass script under a time budget, decided the same way on every machine: before each
//! pass the runner estimates its cost from the AIG's size and a per-node cost measured for
//! that pass on this project's reference machine ([`estimated_seconds`]); a pass whose
//! estimate would take the script past the budget is skipped with everything after it.
//! So the passes run, and the circuit, depend only on the input and the budget — the
//! reproducibility invariant holds for budgeted synthesis too. A hard wall-clock limit of
//! [`WALL_LIMIT_FACTOR`] times the budget guards against a pass running far over its
//! estimate (a much slower machine, an unusual circuit): a pass cut short by it keeps what
//! it reached (the local passes stop between two nodes, `fraig` stops its SAT calls), and
//! [`ScriptStop::WallLimit`] says so — the one outcome that depends on the machine.
//! `train` runs [`DEFAULT_SYNTH_SCRIPT`] this way.

use super::{Pass, PassError, PassStats, RunOptions, run_one};
use crate::aig::Aig;
use serde::Serialize;
use std::time::Duration;

/// The script `train` runs on a classifier by default: `strash`, then ABC's `resyn2`
/// order (balance; rewrite; refactor; balance; rewrite; rewrite -z; balance; refactor -z;
/// rewrite -z; balance), then `fraig` on what is left of the budget.
pub const DEFAULT_SYNTH_SCRIPT: &str = "strash,resyn2,fraig";

/// The default budget of [`DEFAULT_SYNTH_SCRIPT`] in `train` (`--synth-budget`), seconds.
pub const DEFAULT_SYNTH_BUDGET: f64 = 120.0;

/// Why a budgeted script stopped.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "stop", rename_all = "kebab-case")]
pub enum ScriptStop {
    /// Every pass ran (to its end or to a limit of its own).
    Completed,
    /// The estimated cost of `before_pass` would have taken the script past its budget:
    /// it and the passes after it were skipped (the same on every machine).
    Budget {
        /// The first pass skipped.
        before_pass: String,
    },
    /// The wall-clock guard ([`WALL_LIMIT_FACTOR`] times the budget) ran out during
    /// `in_pass`, which kept what it had reached; the passes after it were skipped. Only
    /// this outcome depends on the machine's speed.
    WallLimit {
        /// The pass running when the guard ran out.
        in_pass: String,
    },
}

/// The hard wall-clock limit of a budgeted script, as a multiple of its budget.
pub const WALL_LIMIT_FACTOR: u32 = 3;

/// Estimated seconds of the pass named `pass` on an AIG of `ands` AND nodes: per-node
/// costs measured on this project's reference machine (2 cores, `opt --json` on EPFL
/// `sin`/`bar` and the Fashion-MNIST classifiers, rounded up to the slowest circuit seen;
/// BENCHMARKS.md), so that a script admitted by its estimate finishes in about its budget.
#[must_use]
pub fn estimated_seconds(pass: &str, ands: usize) -> f64 {
    let micros_per_node = match pass.split_whitespace().next().unwrap_or(pass) {
        "strash" | "sweep" | "constprop" | "balance" => 1.0,
        "rewrite" => 25.0,
        "resub" => 60.0,
        "fraig" => 100.0,
        // refactor, and any other pass (dc): the costliest per node.
        _ => 300.0,
    };
    micros_per_node * ands as f64 * 1e-6
}

/// What a budgeted script did.
#[derive(Clone, Debug)]
pub struct ScriptRun {
    /// The optimised AIG.
    pub aig: Aig,
    /// Every pass that ran, in order.
    pub passes: Vec<PassStats>,
    /// The passes the budget left out, in order.
    pub skipped: Vec<String>,
    /// Why it stopped.
    pub stop: ScriptStop,
    /// Seconds the passes took (checks excluded).
    pub seconds: f64,
}

impl ScriptRun {
    /// The names of the passes that ran, in order.
    #[must_use]
    pub fn ran(&self) -> Vec<&str> {
        self.passes.iter().map(|p| p.pass.as_str()).collect()
    }

    /// What the run says of itself against its `budget` (for `metrics.json`), `script`
    /// being the script as given.
    #[must_use]
    pub fn report(&self, script: &str, budget: Duration) -> BudgetReport {
        BudgetReport {
            script: script.to_owned(),
            budget_seconds: budget.as_secs_f64(),
            seconds: self.seconds,
            stop: self.stop.clone(),
            ran: self.ran().iter().map(|&s| s.to_owned()).collect(),
            skipped: self.skipped.clone(),
        }
    }
}

/// How a budgeted script fared (`metrics.json`'s `synthesis`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BudgetReport {
    /// The script as given.
    pub script: String,
    /// Its time budget, seconds.
    pub budget_seconds: f64,
    /// Seconds the passes took.
    pub seconds: f64,
    /// Why it stopped (`completed`, or `budget` with the pass it stopped in).
    #[serde(flatten)]
    pub stop: ScriptStop,
    /// The passes that ran, in order.
    pub ran: Vec<String>,
    /// The passes the budget left out, in order.
    pub skipped: Vec<String>,
}

/// Runs `passes` in order under `opts`; with `opts.budget`, within that budget (see the
/// module doc). Without a budget every pass runs and the stop is
/// [`ScriptStop::Completed`].
///
/// # Errors
/// [`PassError::NotEquivalent`] if a checked pass changed the function.
pub fn run_budgeted(aig: &Aig, passes: &[Box<dyn Pass>], opts: &RunOptions) -> Result<ScriptRun, PassError> {
    let mut cur = aig.clone();
    let mut stats = Vec::with_capacity(passes.len());
    let (mut estimated, mut spent) = (0.0, Duration::ZERO);
    let mut stop = ScriptStop::Completed;
    let mut skipped = Vec::new();
    for (i, p) in passes.iter().enumerate() {
        let mut o = opts.clone();
        if let Some(b) = opts.budget {
            let cost = estimated_seconds(p.name(), cur.n_ands());
            if estimated + cost > b.as_secs_f64() {
                stop = ScriptStop::Budget { before_pass: p.name().to_string() };
                skipped.extend(passes[i..].iter().map(|p| p.name().to_string()));
                break;
            }
            estimated += cost;
            let left = (b * WALL_LIMIT_FACTOR).saturating_sub(spent);
            o.time_limit = Some(opts.time_limit.map_or(left, |t| t.min(left)));
        }
        let (next, s) = run_one(&cur, p.as_ref(), &o)?;
        spent += Duration::from_secs_f64(s.seconds);
        let cut_short = s.local.as_ref().is_some_and(|l| l.out_of_time);
        stats.push(s);
        cur = next;
        if opts.budget.is_some_and(|b| cut_short || spent >= b * WALL_LIMIT_FACTOR) {
            stop = ScriptStop::WallLimit { in_pass: p.name().to_string() };
            skipped.extend(passes[i + 1..].iter().map(|p| p.name().to_string()));
            break;
        }
    }
    Ok(ScriptRun { aig: cur, passes: stats, skipped, stop, seconds: spent.as_secs_f64() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pass::cec::{CecParams, Verdict, cec};
    use crate::pass::{PassContext, parse_script};

    /// A 12-input circuit with redundancy for the local passes: two copies of a
    /// ripple-carry adder over the same inputs, one built from XORs, one from muxes.
    fn adders() -> Aig {
        let mut g = Aig::new(12);
        let x: Vec<_> = (0..12).map(|i| g.input(i)).collect();
        let mut carry = [crate::aig::Lit::FALSE; 2];
        for i in 0..6 {
            let (a, b) = (x[i], x[i + 6]);
            let s0 = g.xor(a, b);
            let s0 = g.xor(s0, carry[0]);
            let ab = g.and(a, b);
            let t = g.xor(a, b);
            let tc = g.and(t, carry[0]);
            carry[0] = g.or(ab, tc);
            let nb = g.mux(a, b, !b);
            let s1 = g.mux(carry[1], nb, !nb);
            let m = g.mux(carry[1], a, b);
            let n = g.and(a, b);
            carry[1] = g.mux(nb, n, m);
            g.add_output(s0);
            g.add_output(s1);
        }
        g.add_output(carry[0]);
        g.add_output(carry[1]);
        g
    }

    #[test]
    fn a_generous_budget_runs_the_whole_script_as_without_one() {
        let g = adders();
        let script = parse_script(DEFAULT_SYNTH_SCRIPT, &PassContext::default()).unwrap();
        let free = run_budgeted(&g, &script, &RunOptions::default()).unwrap();
        let opts = RunOptions { budget: Some(Duration::from_secs(3600)), ..RunOptions::default() };
        let r = run_budgeted(&g, &script, &opts).unwrap();
        assert_eq!(r.stop, ScriptStop::Completed);
        assert!(r.skipped.is_empty());
        assert_eq!(r.ran().len(), script.len());
        assert_eq!(r.aig.ands(), free.aig.ands());
        assert!(r.aig.n_ands() < g.n_ands(), "{} -> {}", g.n_ands(), r.aig.n_ands());
        assert_eq!(cec(&g, &r.aig, &CecParams::default()).unwrap().verdict, Verdict::Equivalent);
    }

    #[test]
    fn a_small_budget_skips_by_estimate_the_same_way_every_time() {
        let g = adders();
        let script = parse_script(DEFAULT_SYNTH_SCRIPT, &PassContext::default()).unwrap();
        // Room for the linear passes (strash, balance) and not for the first rewrite.
        let n = g.n_ands();
        let room = estimated_seconds("strash", n) + estimated_seconds("balance", n) * 1.5;
        let opts =
            RunOptions { budget: Some(Duration::from_secs_f64(room)), check: true, ..RunOptions::default() };
        let r = run_budgeted(&g, &script, &opts).unwrap();
        assert_eq!(r.stop, ScriptStop::Budget { before_pass: "rewrite".into() });
        assert_eq!(r.ran(), ["strash", "balance"]);
        assert_eq!(r.skipped.len(), script.len() - 2);
        assert_eq!(r.passes[0].checked.as_deref(), Some("exhaustive"));
        assert_eq!(cec(&g, &r.aig, &CecParams::default()).unwrap().verdict, Verdict::Equivalent);
        let again = run_budgeted(&g, &script, &opts).unwrap();
        assert_eq!((again.ran(), again.aig.ands()), (r.ran(), r.aig.ands()));
    }

    #[test]
    fn the_estimate_grows_with_the_circuit_and_ranks_the_passes() {
        assert!(estimated_seconds("rewrite", 2000) > estimated_seconds("rewrite", 1000));
        assert!(estimated_seconds("balance", 1000) < estimated_seconds("rewrite -z", 1000));
        assert!(estimated_seconds("rewrite", 1000) < estimated_seconds("refactor -z", 1000));
        assert_eq!(estimated_seconds("rewrite -z", 1000), estimated_seconds("rewrite", 1000));
    }

    #[test]
    fn a_local_pass_with_no_time_visits_nothing_and_changes_nothing() {
        let g = crate::pass::Strash.run(&adders());
        for name in ["rewrite", "refactor", "resub"] {
            let p = parse_script(name, &PassContext::default()).unwrap().remove(0);
            let opts = RunOptions { time_limit: Some(Duration::ZERO), ..RunOptions::default() };
            let run = p.run_observed(&g, &opts);
            let local = run.local.unwrap();
            assert!(local.out_of_time && local.nodes == 0, "{name}: {local}");
            assert_eq!(run.aig.n_ands(), g.n_ands(), "{name}");
            assert_eq!(cec(&g, &run.aig, &CecParams::default()).unwrap().verdict, Verdict::Equivalent);
        }
    }
}

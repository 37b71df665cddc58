//! The rebuild passes: `constprop`, `strash`, `sweep`.

use super::Pass;
use crate::aig::Aig;

/// Constant propagation: rebuild without merging, folding `x & 0`, `x & 1`, `x & x`,
/// `x & !x`; then drop what no output reaches.
#[derive(Clone, Copy, Debug, Default)]
pub struct ConstProp;

impl Pass for ConstProp {
    fn name(&self) -> &'static str {
        "constprop"
    }
    fn run(&self, aig: &Aig) -> Aig {
        let mut out = Aig::unhashed(aig.n_inputs());
        aig.rebuild_into(&mut out, |_, _| None);
        out.swept()
    }
}

/// Structural hashing: rebuild merging AND nodes with the same (ordered) fan-ins.
#[derive(Clone, Copy, Debug, Default)]
pub struct Strash;

impl Pass for Strash {
    fn name(&self) -> &'static str {
        "strash"
    }
    fn run(&self, aig: &Aig) -> Aig {
        let mut out = Aig::new(aig.n_inputs());
        aig.rebuild_into(&mut out, |_, _| None);
        out.swept()
    }
}

/// Dead-node removal.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sweep;

impl Pass for Sweep {
    fn name(&self) -> &'static str {
        "sweep"
    }
    fn run(&self, aig: &Aig) -> Aig {
        aig.swept()
    }
}

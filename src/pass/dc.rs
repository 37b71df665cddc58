//! Don't-care simplification against a care set: nodes constant on every care pattern
//! become constants, nodes equal (or complementary) on every care pattern to an earlier
//! node are merged into it. Outputs are unchanged on the care set, by construction;
//! outside it the function may change, so the caller reports accuracy before and after.

use super::Pass;
use crate::aig::{Aig, Lit};
use crate::lanes::BitMatrix;
use std::collections::HashMap;

/// Care-set simplification (the training inputs as care set).
#[derive(Clone, Debug)]
pub struct DontCare {
    /// One row per AIG input, one example per care pattern.
    pub care: BitMatrix,
}

impl Pass for DontCare {
    fn name(&self) -> &'static str {
        "dc"
    }

    fn preserves_function(&self) -> bool {
        false
    }

    fn run(&self, aig: &Aig) -> Aig {
        let w = self.care.words();
        let v = aig.node_words(&self.care);
        let tail = crate::lanes::tail_mask(self.care.examples());
        let base = aig.n_inputs() + 1;
        let mut classes: HashMap<Vec<u64>, (usize, bool)> = HashMap::new();
        let mut merges: HashMap<usize, (usize, bool)> = HashMap::new();
        for n in 0..base + aig.n_ands() {
            let mut sig = v[n * w..(n + 1) * w].to_vec();
            if let Some(last) = sig.last_mut() {
                *last &= tail;
            }
            let phase = sig.first().is_some_and(|x| x & 1 == 1);
            if phase {
                for x in &mut sig {
                    *x = !*x;
                }
                if let Some(last) = sig.last_mut() {
                    *last &= tail;
                }
            }
            match classes.get(&sig) {
                Some(&(rep, rep_phase)) if n >= base => {
                    let phase = phase ^ rep_phase;
                    merges.insert(n, (rep, phase));
                }
                Some(_) => {}
                None => {
                    classes.insert(sig, (n, phase));
                }
            }
        }
        let mut out = Aig::new(aig.n_inputs());
        aig.rebuild_into(&mut out, |k, map| {
            merges.get(&(base + k)).map(|&(rep, phase)| Lit(map[rep].0 ^ u32::from(phase)))
        });
        out.swept()
    }
}

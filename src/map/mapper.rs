//! The mapping passes: each visits the AND nodes in topological order, rebuilds their
//! priority cut sets under the pass's order and picks each node's best cut among those
//! that meet its required time; after a pass the chosen cuts reachable from the outputs
//! are the mapping, whose required times bound the next pass.
//!
//! The first pass is depth-oriented (delay first); it fixes the target depth. Area
//! recovery follows without exceeding it: area-flow passes, then exact-local-area passes
//! (see [`area`](super::area)). The previous pass's best cut of a node always competes
//! again, so a node of the mapping can always meet its required time.

use super::cuts::{Cut, Order, insert};
use crate::aig::Aig;

/// A required time no mapping reaches.
pub(super) const UNBOUNDED: u32 = u32::MAX;

/// The mapper's per-node state; node indices are the AIG's (0 the constant, then the
/// inputs, then the AND nodes).
pub(super) struct Mapper<'a> {
    /// The AIG being mapped.
    pub aig: &'a Aig,
    /// LUT size.
    pub k: usize,
    /// Cuts kept per node.
    pub cap: usize,
    /// Priority cuts per node (empty for the constant and inputs).
    pub cuts: Vec<Vec<Cut>>,
    /// The chosen cut per AND node.
    pub best: Vec<Option<Cut>>,
    /// LUT levels of the chosen cut (0 for inputs).
    pub arrival: Vec<u32>,
    /// Area flow of the chosen cut.
    pub flow: Vec<f32>,
    /// Latest arrival the mapping allows.
    pub required: Vec<u32>,
    /// References in the current mapping: LUTs that read the node plus outputs.
    pub refs: Vec<u32>,
    /// Estimated fan-outs in the final mapping (area flow divides by them).
    pub est_refs: Vec<f32>,
    /// Cut merges tried, over all passes.
    pub merges: u64,
}

impl<'a> Mapper<'a> {
    /// A mapper with no cuts yet; estimated fan-outs start at the AIG's.
    pub fn new(aig: &'a Aig, k: usize, cap: usize) -> Self {
        let n = aig.n_inputs() + 1 + aig.n_ands();
        let mut fanouts = vec![0u32; n];
        for &(a, b) in aig.ands() {
            fanouts[a.node()] += 1;
            fanouts[b.node()] += 1;
        }
        for l in aig.outputs() {
            fanouts[l.node()] += 1;
        }
        Self {
            aig,
            k,
            cap,
            cuts: vec![Vec::new(); n],
            best: vec![None; n],
            arrival: vec![0; n],
            flow: vec![0.0; n],
            required: vec![UNBOUNDED; n],
            refs: vec![0; n],
            est_refs: fanouts.iter().map(|&f| f.max(1) as f32).collect(),
            merges: 0,
        }
    }

    /// First AND node.
    pub fn base(&self) -> usize {
        self.aig.n_inputs() + 1
    }

    /// Whether node `n` is an AND node.
    pub fn is_and(&self, n: usize) -> bool {
        n >= self.base()
    }

    /// Delay and area flow of a cut under the current choices of its leaves.
    fn evaluate(&self, c: &mut Cut) {
        let mut delay = 0;
        let mut flow = 1.0f32;
        for &l in c.leaves() {
            let l = l as usize;
            delay = delay.max(self.arrival[l]);
            flow += self.flow[l] / self.est_refs[l].max(1.0);
        }
        c.delay = delay + 1;
        c.flow = flow;
    }

    /// One pass over every AND node under `order`.
    pub fn pass(&mut self, order: Order) {
        let base = self.base();
        let mut set: Vec<Cut> = Vec::with_capacity(self.cap + 1);
        for i in 0..self.aig.n_ands() {
            let n = base + i;
            let (fa, fb) = self.aig.ands()[i];
            let (na, nb) = (fa.node(), fb.node());
            let exact = order == Order::Area && self.refs[n] > 0;
            if exact {
                let c = self.best[n].expect("a mapped node has a cut");
                self.deref_cut(&c);
            }
            set.clear();
            let req = self.required[n];
            let mut ca = std::mem::take(&mut self.cuts[na]);
            ca.push(Cut::trivial(na as u32));
            let mut cb = std::mem::take(&mut self.cuts[nb]);
            cb.push(Cut::trivial(nb as u32));
            for x in &ca {
                for y in &cb {
                    self.merges += 1;
                    let Some(mut m) = Cut::merge(x, y, self.k) else { continue };
                    if set.iter().any(|c| c.subset_of(&m)) {
                        continue;
                    }
                    self.evaluate(&mut m);
                    if order == Order::Area {
                        m.area = self.exact_area(&m);
                    }
                    insert(&mut set, m, order, self.cap);
                }
            }
            ca.pop();
            cb.pop();
            if na == nb {
                self.cuts[na] = ca;
            } else {
                self.cuts[na] = ca;
                self.cuts[nb] = cb;
            }
            let prev = self.best[n].map(|mut p| {
                self.evaluate(&mut p);
                if order == Order::Area {
                    p.area = self.exact_area(&p);
                }
                p
            });
            let mut chosen = set.iter().find(|c| c.delay <= req).copied();
            if let Some(p) = prev
                && p.delay <= req
                && chosen.is_none_or(|c| order.cmp(&p, &c) == std::cmp::Ordering::Less)
            {
                chosen = Some(p);
            }
            let chosen = chosen
                .or(prev)
                .or_else(|| set.iter().min_by_key(|c| c.delay).copied())
                .expect("an AND node has the cut of its two fan-ins");
            if !set.iter().any(|c| c.same_leaves(&chosen)) {
                if set.len() == self.cap {
                    set.pop();
                }
                set.push(chosen);
            }
            self.best[n] = Some(chosen);
            self.arrival[n] = chosen.delay;
            self.flow[n] = chosen.flow;
            if exact {
                self.ref_cut(&chosen);
            }
            self.cuts[n].clone_from(&set);
        }
    }

    /// Recomputes the references of the mapping the chosen cuts make from the outputs.
    pub fn collect_refs(&mut self) {
        self.refs.iter_mut().for_each(|r| *r = 0);
        for l in self.aig.outputs() {
            self.refs[l.node()] += 1;
        }
        for n in (self.base()..self.refs.len()).rev() {
            if self.refs[n] > 0 {
                let c = self.best[n].expect("every AND node has a cut after a pass");
                for &l in c.leaves() {
                    self.refs[l as usize] += 1;
                }
            }
        }
    }

    /// Depth of the mapping: the latest output arrival.
    pub fn depth(&self) -> u32 {
        self.aig.outputs().iter().map(|l| self.arrival[l.node()]).max().unwrap_or(0)
    }

    /// LUTs of the mapping (AND nodes with references).
    pub fn lut_count(&self) -> usize {
        (self.base()..self.refs.len()).filter(|&n| self.refs[n] > 0).count()
    }

    /// Required times of the mapping for outputs due at `target` (needs fresh refs).
    pub fn collect_required(&mut self, target: u32) {
        self.required.iter_mut().for_each(|r| *r = UNBOUNDED);
        for l in self.aig.outputs() {
            self.required[l.node()] = target;
        }
        for n in (self.base()..self.refs.len()).rev() {
            if self.refs[n] > 0 {
                let r = self.required[n];
                let c = self.best[n].expect("every AND node has a cut after a pass");
                for &l in c.leaves() {
                    let l = l as usize;
                    self.required[l] = self.required[l].min(r.saturating_sub(1));
                }
            }
        }
    }
}

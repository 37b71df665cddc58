//! LUT mapping: an AIG covered by K-input LUTs, depth-optimal first, then area recovery.
//!
//! [`map_luts`] enumerates priority cuts (`cuts.rs`), runs one delay-oriented pass that
//! fixes the depth, then area-flow and exact-local-area passes (`area.rs`) that never
//! exceed it (`mapper.rs`), and turns the chosen cuts into a [`LutNetlist`] whose tables
//! come from simulating each cut's cone. [`check_mapping`] proves the result equivalent
//! to the AIG (exhaustive simulation up to 16 inputs, a SAT miter beyond, random
//! simulation only for AIGs too large for the miter).
//!
//! ```
//! use circuitlearn::{Aig, MapParams, map_luts};
//! let mut g = Aig::new(3);
//! let (a, b, c) = (g.input(0), g.input(1), g.input(2));
//! let x = g.xor(a, b);
//! let y = g.mux(c, x, a);
//! g.add_output(y);
//! let (net, stats) = map_luts(&g, &MapParams::default()).unwrap();
//! assert_eq!((net.luts().len(), stats.depth), (1, 1));
//! ```

mod area;
mod check;
mod cuts;
mod mapper;
mod netlist;

pub use check::{CheckOutcome, CheckParams, CheckReport, check_mapping};
pub use cuts::MAX_LUT_INPUTS;
pub use netlist::{Lut, LutNetlist, Signal};

use crate::aig::Aig;
use cuts::Order;
use mapper::Mapper;
use serde::Serialize;
use std::time::Instant;
use thiserror::Error;

/// Options of [`map_luts`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MapParams {
    /// LUT inputs (K), 2 to `MAX_LUT_INPUTS` (8).
    pub lut_size: usize,
    /// Priority cuts kept per node (C).
    pub cuts_per_node: usize,
    /// Area-flow passes after the depth pass.
    pub flow_passes: usize,
    /// Exact-local-area passes after those.
    pub area_passes: usize,
    /// Extra LUT levels area recovery may add beyond the depth-optimal mapping's depth.
    pub depth_slack: u32,
}

impl Default for MapParams {
    fn default() -> Self {
        Self { lut_size: 6, cuts_per_node: 8, flow_passes: 1, area_passes: 2, depth_slack: 0 }
    }
}

/// One pass of the mapper.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PassStats {
    /// `depth`, `flow` or `area`.
    pub pass: &'static str,
    /// LUTs of the mapping after the pass (before complemented outputs are added).
    pub luts: usize,
    /// Depth after the pass.
    pub depth: u32,
    /// Wall-clock seconds.
    pub seconds: f64,
}

/// What [`map_luts`] did.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MapStats {
    /// LUT size K.
    pub lut_size: usize,
    /// AND nodes of the input AIG.
    pub ands: usize,
    /// LUTs of the result.
    pub luts: usize,
    /// LUT levels of the result.
    pub depth: u32,
    /// LUTs per input count (entry `k`: LUTs with `k` inputs).
    pub lut_sizes: Vec<usize>,
    /// Cut merges tried, over all passes.
    pub merges: u64,
    /// Per pass.
    pub passes: Vec<PassStats>,
    /// Wall-clock seconds, all passes and the netlist.
    pub seconds: f64,
}

impl std::fmt::Display for MapStats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ANDs -> {} LUT{}s, depth {}", self.ands, self.luts, self.lut_size, self.depth)?;
        for p in &self.passes {
            write!(f, "; {} {}/{} {:.2}s", p.pass, p.luts, p.depth, p.seconds)?;
        }
        Ok(())
    }
}

/// Parameters [`map_luts`] cannot run with.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum MapError {
    /// K out of range.
    #[error("LUT size {0} is not supported (2 to {max})", max = MAX_LUT_INPUTS)]
    LutSize(usize),
    /// No room for cuts.
    #[error("at least one cut per node is needed")]
    NoCuts,
}

/// Maps `aig` onto K-input LUTs: a depth-optimal mapping under priority cuts, then area
/// recovery at that depth (plus [`MapParams::depth_slack`]).
///
/// # Errors
/// [`MapError`] for a LUT size outside 2 to `MAX_LUT_INPUTS` (8) or zero cuts per node.
pub fn map_luts(aig: &Aig, params: &MapParams) -> Result<(LutNetlist, MapStats), MapError> {
    if !(2..=MAX_LUT_INPUTS).contains(&params.lut_size) {
        return Err(MapError::LutSize(params.lut_size));
    }
    if params.cuts_per_node == 0 {
        return Err(MapError::NoCuts);
    }
    let t0 = Instant::now();
    let mut m = Mapper::new(aig, params.lut_size, params.cuts_per_node);
    let mut passes = Vec::new();
    let plan = std::iter::once(Order::Delay)
        .chain(std::iter::repeat_n(Order::Flow, params.flow_passes))
        .chain(std::iter::repeat_n(Order::Area, params.area_passes));
    let mut target = 0;
    for (i, order) in plan.enumerate() {
        let t = Instant::now();
        m.pass(order);
        m.collect_refs();
        if i == 0 {
            target = m.depth() + params.depth_slack;
        }
        m.collect_required(target);
        m.update_est_refs();
        let pass = match order {
            Order::Delay => "depth",
            Order::Flow => "flow",
            Order::Area => "area",
        };
        passes.push(PassStats {
            pass,
            luts: m.lut_count(),
            depth: m.depth(),
            seconds: t.elapsed().as_secs_f64(),
        });
    }
    let net = LutNetlist::from_mapper(&m);
    let stats = MapStats {
        lut_size: params.lut_size,
        ands: aig.n_ands(),
        luts: net.luts().len(),
        depth: net.depth(),
        lut_sizes: net.size_histogram()[..=params.lut_size].to_vec(),
        merges: m.merges,
        passes,
        seconds: t0.elapsed().as_secs_f64(),
    };
    Ok((net, stats))
}

#[cfg(test)]
mod tests;

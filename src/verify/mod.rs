//! Verification: combinational equivalence checking (exhaustive simulation or a SAT
//! miter via rustsat) and the CNF encoding it shares with SAT sweeping.

pub mod cec;
pub mod cnf;
pub mod solver;

pub use cec::{CEC_LIMITS, CecMethod, CecParams, CecReport, Verdict, cec, cec_with};
pub use solver::{SatLimits, SatStats};

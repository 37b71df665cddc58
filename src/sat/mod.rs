//! SAT, bounded: a solver wrapper whose every call has a conflict and time budget and an
//! honest `Undecided` answer ([`solver`]), and the CNF encoding of AIGs it shares with
//! SAT sweeping, equivalence checking and exact synthesis ([`cnf`]).

pub mod cnf;
pub mod solver;

pub use solver::{SatLimits, SatStats};

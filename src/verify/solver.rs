//! The SAT backend: rustsat's pure-Rust batsat by default, CaDiCaL with the `cadical`
//! cargo feature. Every SAT user in the crate (cec, fraig, exact synthesis) goes through
//! [`Solver`], so switching the feature switches them all.

/// The SAT solver in use.
#[cfg(not(feature = "cadical"))]
pub type Solver = rustsat_batsat::BasicSolver;

/// The SAT solver in use.
#[cfg(feature = "cadical")]
pub type Solver = rustsat_cadical::CaDiCaL<'static, 'static>;

/// Name of the backend, for reports.
pub const BACKEND: &str = if cfg!(feature = "cadical") { "cadical" } else { "batsat" };

/// A fresh solver.
#[must_use]
pub fn new_solver() -> Solver {
    Solver::default()
}

//! `circuitlearn._native`: the Rust half of the Python package. It trains through the
//! library pipeline (`TrainOptions` -> `TrainConfig::resolve` -> `pipeline::train` ->
//! `pipeline::synthesize`), holds the trained model and its AIG, and reads, writes,
//! optimises, maps and checks circuits. The scikit-learn estimators are Python
//! (`circuitlearn/estimators.py`) over these functions.
//!
//! Errors: bad input raises `ValueError`, a file that cannot be read or written `OSError`,
//! anything else `RuntimeError`, each with the library's message. Every entry point runs
//! under [`guarded`], so a panic (a bug) becomes a `RuntimeError`, never an abort.

#![warn(missing_docs)]

mod circuit;
mod errors;
mod model;
mod ring;

use pyo3::prelude::*;

pub(crate) use errors::{bad_input, failure, guarded};

/// The extension module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<model::Model>()?;
    m.add_class::<circuit::Circuit>()?;
    m.add_class::<ring::RingModelPy>()?;
    m.add_function(wrap_pyfunction!(model::fit, m)?)?;
    m.add_function(wrap_pyfunction!(model::load_model, m)?)?;
    m.add_function(wrap_pyfunction!(ring::load_ring_model, m)?)?;
    m.add_function(wrap_pyfunction!(circuit::read_blif, m)?)?;
    m.add_function(wrap_pyfunction!(circuit::read_aiger, m)?)?;
    m.add_function(wrap_pyfunction!(circuit::opt, m)?)?;
    m.add_function(wrap_pyfunction!(circuit::cec, m)?)?;
    m.add_function(wrap_pyfunction!(circuit::map, m)?)?;
    m.add_function(wrap_pyfunction!(circuit::_circuit_from_parts, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}

//! Library errors as Python exceptions, and the panic guard of every entry point.

use pyo3::PyErr;
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use std::error::Error;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// The message of `e` with its causes, each said once (as the command line prints it).
fn message(e: &(dyn Error + 'static)) -> String {
    let mut line = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        let text = c.to_string();
        if !line.ends_with(&text) {
            line.push_str(": ");
            line.push_str(&text);
        }
        cause = c.source();
    }
    line
}

/// Whether an I/O failure is among the causes of `e`.
fn has_io(e: &(dyn Error + 'static)) -> bool {
    let mut cause: Option<&(dyn Error + 'static)> = Some(e);
    while let Some(c) = cause {
        if c.is::<std::io::Error>() {
            return true;
        }
        cause = c.source();
    }
    false
}

/// An error of the user's input: `OSError` when a file could not be read, else
/// `ValueError`.
pub(crate) fn bad_input(e: &(dyn Error + 'static)) -> PyErr {
    if has_io(e) { PyOSError::new_err(message(e)) } else { PyValueError::new_err(message(e)) }
}

/// A failure that is not the input's fault: `OSError` for I/O, else `RuntimeError`.
pub(crate) fn failure(e: &(dyn Error + 'static)) -> PyErr {
    if has_io(e) { PyOSError::new_err(message(e)) } else { PyRuntimeError::new_err(message(e)) }
}

/// Runs `f`, turning a panic (a bug in the library) into a `RuntimeError`.
pub(crate) fn guarded<T>(f: impl FnOnce() -> Result<T, PyErr>) -> Result<T, PyErr> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => {
            let what = payload
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| payload.downcast_ref::<&str>().copied())
                .unwrap_or("a panic");
            Err(PyRuntimeError::new_err(format!("circuitlearn internal error (please report it): {what}")))
        }
    }
}

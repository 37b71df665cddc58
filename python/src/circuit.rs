//! A circuit as Python sees it (`clf.circuit_`, `read_blif`, ...): a named netlist and
//! its AIG, with simulation, the writers, an Icarus co-simulation, and the module
//! functions `read_blif`, `read_aiger`, `opt`, `cec` and `map`.

use crate::{bad_input, failure, guarded};
use circuitlearn::{Aig, AigerFormat, BitMatrix, BlifParams, CEC_LIMITS, CecParams, CheckOutcome, CheckParams, IcarusOutcome, MapParams, Netlist, PassContext, PassError, PortNames, SatLimits, TestbenchError, Tool, ToolLimits, Verdict, VerilogParams, cec_with, check_mapping, map_luts, parse_script, random_inputs, run_icarus_limited, run_script, write_aiger, write_atomic_with, write_blif, write_testbench, write_verilog};
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray2, PyReadonlyArray2};
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use std::path::{Path, PathBuf};

/// What `__reduce__` returns: the function that rebuilds an object and its arguments.
pub(crate) type Reduced<'py, A> = (Bound<'py, PyAny>, A);

/// A pickled circuit: BLIF text, AIGER bytes, LUTs.
type CircuitParts<'py> = (String, Bound<'py, PyBytes>, Option<usize>);

/// A combinational circuit: its named netlist (what the Verilog and BLIF writers print)
/// and its AIG (what `and_nodes` counts, what the AIGER writer and the passes take).
#[pyclass(frozen, module = "circuitlearn._native")]
#[derive(Clone)]
pub struct Circuit {
    netlist: Netlist,
    aig: Aig,
    luts: Option<usize>,
}

/// Examples of a `BitMatrix` (one row per input) as a `(examples, rows)` array.
pub(crate) fn to_array(m: &BitMatrix) -> Array2<bool> {
    Array2::from_shape_fn((m.examples(), m.rows()), |(e, r)| m.get(r, e))
}

/// A 2-D array-like of 0/1 (any dtype numpy turns into bool), one row per example, as a
/// `BitMatrix` with one row per column.
fn bits_of(x: &Bound<'_, PyAny>, columns: usize) -> PyResult<BitMatrix> {
    let np = x.py().import("numpy")?;
    let kwargs = PyDict::new(x.py());
    kwargs.set_item("dtype", "bool")?;
    let arr = np.call_method("ascontiguousarray", (x,), Some(&kwargs))?;
    let arr: PyReadonlyArray2<'_, bool> = arr
        .extract()
        .map_err(|_| PyValueError::new_err("expected a 2-D array of bits, one row per example"))?;
    let a = arr.as_array();
    let (n, k) = a.dim();
    if k != columns {
        return Err(PyValueError::new_err(format!(
            "the array has {k} columns, the circuit {columns} inputs"
        )));
    }
    let mut m = BitMatrix::zeros(k, n);
    for ((e, r), &v) in a.indexed_iter() {
        if v {
            m.set(r, e, true);
        }
    }
    Ok(m)
}

impl Circuit {
    /// The circuit of an AIG with these port names.
    pub(crate) fn from_aig(aig: Aig, names: PortNames) -> Self {
        let c = aig.to_circuit();
        let netlist = match Netlist::new(names.clone(), c.clone()) {
            Ok(n) => n,
            Err(_) => Netlist::indexed(&names.model, c),
        };
        Circuit { netlist, aig, luts: None }
    }

    /// The circuit of a netlist (its AIG by structural hashing).
    fn from_netlist(netlist: Netlist, luts: Option<usize>) -> Self {
        let aig = Aig::from_circuit(netlist.circuit(), None);
        Circuit { netlist, aig, luts }
    }

    /// Binary AIGER of the AIG.
    pub(crate) fn aiger_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        // Writing into memory with names that fit cannot fail.
        let _ = write_aiger(&self.aig, self.netlist.names(), AigerFormat::Binary, &mut out);
        out
    }

    fn write(
        &self,
        path: &Path,
        fill: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
    ) -> PyResult<()> {
        write_atomic_with(path, fill)
            .map_err(|e| PyOSError::new_err(format!("writing {}: {e}", path.display())))
    }
}

#[pymethods]
impl Circuit {
    /// AND nodes of the AIG.
    #[getter]
    fn and_nodes(&self) -> usize {
        self.aig.n_ands()
    }

    /// Levels of the AIG (longest input-to-output path in AND nodes).
    #[getter]
    fn depth(&self) -> u32 {
        self.aig.depth()
    }

    /// Gates of the netlist (LUTs for a mapped circuit, AND/NOT/... for the others).
    #[getter]
    fn gates(&self) -> usize {
        self.netlist.circuit().n_gates()
    }

    /// LUTs of a circuit `map` made (`None` for other circuits).
    #[getter]
    fn luts(&self) -> Option<usize> {
        self.luts
    }

    /// Inputs.
    #[getter]
    fn n_inputs(&self) -> usize {
        self.aig.n_inputs()
    }

    /// Outputs.
    #[getter]
    fn n_outputs(&self) -> usize {
        self.aig.outputs().len()
    }

    /// The model (Verilog module) name.
    #[getter]
    fn name(&self) -> String {
        self.netlist.names().model.clone()
    }

    /// Input names, in order.
    #[getter]
    fn input_names(&self) -> Vec<String> {
        self.netlist.names().inputs.clone()
    }

    /// Output names, in order.
    #[getter]
    fn output_names(&self) -> Vec<String> {
        self.netlist.names().outputs.clone()
    }

    /// Simulates the circuit: `x` is `(examples, n_inputs)` of 0/1, the result
    /// `(examples, n_outputs)` of bool.
    fn predict_bits<'py>(&self, x: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyArray2<bool>>> {
        guarded(|| {
            let bits = bits_of(x, self.aig.n_inputs())?;
            let out = x.py().detach(|| self.aig.simulate(&bits));
            Ok(to_array(&out).into_pyarray(x.py()))
        })
    }

    /// Writes structural Verilog (one module, `assign`s) to `path`.
    fn to_verilog(&self, path: PathBuf) -> PyResult<()> {
        guarded(|| self.write(&path, |w| write_verilog(&self.netlist, &VerilogParams::default(), w)))
    }

    /// Writes BLIF to `path`.
    fn to_blif(&self, path: PathBuf) -> PyResult<()> {
        guarded(|| self.write(&path, |w| write_blif(&self.netlist, &BlifParams::default(), w)))
    }

    /// Writes the AIG as AIGER to `path`: ASCII for a `.aag` name, binary otherwise.
    fn to_aiger(&self, path: PathBuf) -> PyResult<()> {
        guarded(|| {
            let ascii = path.extension().is_some_and(|e| e == "aag");
            let format = if ascii { AigerFormat::Ascii } else { AigerFormat::Binary };
            self.write(&path, |w| write_aiger(&self.aig, self.netlist.names(), format, w))
        })
    }

    /// Exports the Verilog with a self-checking testbench whose expected outputs are the
    /// Rust simulator's, and runs it in Icarus Verilog (`iverilog`, `vvp`): on `vectors`
    /// (`(examples, n_inputs)` of 0/1) or on `n_random` vectors drawn from `seed` (every
    /// input pattern when there are at most that many). Files go to `workdir` (kept) or
    /// a temporary directory. Returns `{"outcome": "pass", "vectors": N, "dir": ...}`.
    ///
    /// Raises `RuntimeError` when the Verilog disagrees with the simulator or a tool
    /// fails or times out, `OSError` when Icarus is not installed.
    #[pyo3(signature = (vectors = None, n_random = 1024, seed = 0, workdir = None, timeout = 120.0))]
    fn verify_icarus<'py>(
        &self,
        py: Python<'py>,
        vectors: Option<&Bound<'py, PyAny>>,
        n_random: usize,
        seed: u64,
        workdir: Option<PathBuf>,
        timeout: f64,
    ) -> PyResult<Bound<'py, PyDict>> {
        guarded(|| {
            let inputs = match vectors {
                Some(v) => bits_of(v, self.aig.n_inputs())?,
                None => random_inputs(self.aig.n_inputs(), n_random, seed),
            };
            if !(timeout.is_finite() && timeout > 0.0) {
                return Err(PyValueError::new_err(format!(
                    "timeout must be a positive number, got {timeout}"
                )));
            }
            for tool in [Tool::Iverilog, Tool::Vvp] {
                tool.find().map_err(|e| PyOSError::new_err(e.to_string()))?;
            }
            let tmp;
            let dir = match &workdir {
                Some(d) => {
                    std::fs::create_dir_all(d)
                        .map_err(|e| PyOSError::new_err(format!("creating {}: {e}", d.display())))?;
                    d.clone()
                }
                None => {
                    tmp = tempfile::tempdir()
                        .map_err(|e| PyOSError::new_err(format!("a temporary directory: {e}")))?;
                    tmp.path().to_path_buf()
                }
            };
            let module = circuitlearn::module_name(&self.netlist.names().model);
            let verilog = dir.join(format!("{module}.v"));
            self.write(&verilog, |w| write_verilog(&self.netlist, &VerilogParams::default(), w))?;
            let files = write_testbench(&dir, &self.netlist, &inputs, 0).map_err(|e| match e {
                TestbenchError::Io { .. } => failure(&e),
                e => bad_input(&e),
            })?;
            let limits = ToolLimits { timeout: std::time::Duration::from_secs_f64(timeout) };
            let outcome =
                py.detach(|| run_icarus_limited(&dir, &files.bench, &verilog, &files.module, 1, &limits));
            match outcome.map_err(|e| failure(&e))? {
                IcarusOutcome::Pass { vectors, .. } => {
                    let d = PyDict::new(py);
                    d.set_item("outcome", "pass")?;
                    d.set_item("vectors", vectors)?;
                    d.set_item("dir", workdir.map(|p| p.display().to_string()))?;
                    Ok(d)
                }
                IcarusOutcome::Mismatch { report, log } => Err(PyRuntimeError::new_err(format!(
                    "the exported Verilog does not match the simulator: {report} (log {})",
                    log.display()
                ))),
            }
        })
    }

    /// Pickling: the BLIF text and the AIGER bytes.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Reduced<'py, CircuitParts<'py>>> {
        let f = py.import("circuitlearn._native")?.getattr("_circuit_from_parts")?;
        let blif = circuitlearn::to_blif(&self.netlist, &BlifParams::default());
        Ok((f, (blif, PyBytes::new(py, &self.aiger_bytes()), self.luts)))
    }

    fn __repr__(&self) -> String {
        let luts = self.luts.map_or(String::new(), |l| format!(", luts={l}"));
        format!(
            "Circuit(name={:?}, inputs={}, outputs={}, and_nodes={}, depth={}{luts})",
            self.netlist.names().model,
            self.aig.n_inputs(),
            self.aig.outputs().len(),
            self.aig.n_ands(),
            self.aig.depth()
        )
    }
}

/// Rebuilds a pickled circuit.
#[pyfunction]
pub fn _circuit_from_parts(blif: &str, aiger: &[u8], luts: Option<usize>) -> PyResult<Circuit> {
    guarded(|| {
        let netlist =
            circuitlearn::parse_blif(blif, "circuit.blif").map_err(|e| bad_input(&e))?;
        let (aig, _) =
            circuitlearn::parse_aiger(aiger, "circuit.aig", &netlist.names().model)
                .map_err(|e| bad_input(&e))?;
        Ok(Circuit { netlist, aig, luts })
    })
}

/// Reads a BLIF file (combinational: `.names`, `.latch`-free).
#[pyfunction]
pub fn read_blif(path: PathBuf) -> PyResult<Circuit> {
    guarded(|| {
        let net = circuitlearn::read_blif(&path).map_err(|e| bad_input(&e))?;
        Ok(Circuit::from_netlist(net, None))
    })
}

/// Reads an AIGER file (`.aig` binary or `.aag` ASCII).
#[pyfunction]
pub fn read_aiger(path: PathBuf) -> PyResult<Circuit> {
    guarded(|| {
        let (aig, names) = circuitlearn::read_aiger(&path).map_err(|e| bad_input(&e))?;
        Ok(Circuit::from_aig(aig, names))
    })
}

fn pass_err(e: &PassError) -> PyErr {
    match e {
        PassError::Unknown(_) | PassError::Option { .. } | PassError::NoCareSet => bad_input(e),
        _ => failure(e),
    }
}

/// Runs a pass script (`opt`'s: `strash,fraig,balance`, `resyn2`, ...) on the circuit's
/// AIG; with `check`, every function-preserving pass is proven equivalent.
#[pyfunction]
#[pyo3(signature = (circuit, passes = "strash,fraig", check = false))]
pub fn opt(py: Python<'_>, circuit: &Circuit, passes: &str, check: bool) -> PyResult<Circuit> {
    guarded(|| {
        let script = parse_script(passes, &PassContext::default()).map_err(|e| pass_err(&e))?;
        let (out, _) = py.detach(|| run_script(&circuit.aig, &script, check)).map_err(|e| pass_err(&e))?;
        Ok(Circuit::from_aig(out, circuit.netlist.names().clone()))
    })
}

/// Combinational equivalence of two circuits, inputs and outputs matched by position:
/// `True` (proven), `False` (a counterexample exists) or `None` (undecided: the SAT
/// limits ran out first). Exhaustive simulation up to 16 inputs, a SAT miter beyond.
#[pyfunction]
#[pyo3(signature = (a, b, conflicts = None, seconds = None))]
pub fn cec(
    py: Python<'_>,
    a: &Circuit,
    b: &Circuit,
    conflicts: Option<u64>,
    seconds: Option<f64>,
) -> PyResult<Option<bool>> {
    guarded(|| {
        if seconds.is_some_and(|s| s.is_nan() || s < 0.0) {
            return Err(PyValueError::new_err("seconds must be a number >= 0"));
        }
        let limits = SatLimits::new(
            conflicts.unwrap_or(CEC_LIMITS.conflicts_per_call),
            conflicts.unwrap_or(CEC_LIMITS.conflicts),
            seconds.unwrap_or(CEC_LIMITS.seconds),
        );
        let params = CecParams { limits, ..CecParams::default() };
        let report = py.detach(|| cec_with(&a.aig, &b.aig, &params, None)).map_err(|e| match e {
            circuitlearn::CecError::Inputs { .. }
            | circuitlearn::CecError::Outputs { .. } => bad_input(&e),
            e => failure(&e),
        })?;
        Ok(match report.verdict {
            Verdict::Equivalent => Some(true),
            Verdict::NotEquivalent { .. } => Some(false),
            Verdict::Undecided { .. } => None,
        })
    })
}

/// Maps the circuit into `lut`-input LUTs (`circuitlearn map`), after an optional pass
/// script, and proves the mapping equivalent to the input (SAT up to 20,000 AND nodes,
/// random simulation beyond). The result's `luts` counts them; write it with `to_blif`
/// or `to_verilog`.
#[pyfunction]
#[pyo3(signature = (circuit, lut = 6, passes = None))]
pub fn map(py: Python<'_>, circuit: &Circuit, lut: usize, passes: Option<&str>) -> PyResult<Circuit> {
    guarded(|| {
        let aig = match passes {
            Some(p) => {
                let script = parse_script(p, &PassContext::default()).map_err(|e| pass_err(&e))?;
                py.detach(|| run_script(&circuit.aig, &script, false)).map_err(|e| pass_err(&e))?.0
            }
            None => circuit.aig.clone(),
        };
        let params = MapParams { lut_size: lut, ..MapParams::default() };
        let (luts, stats) = py.detach(|| map_luts(&aig, &params)).map_err(|e| bad_input(&e))?;
        let report = py
            .detach(|| check_mapping(&circuit.aig, &luts, &CheckParams::default()))
            .map_err(|e| failure(&e))?;
        if let CheckOutcome::NotEquivalent { outputs } = &report.outcome {
            return Err(PyRuntimeError::new_err(format!(
                "the LUT mapping differs from the input on outputs {outputs:?} (a bug)"
            )));
        }
        let netlist =
            Netlist::new(circuit.netlist.names().clone(), luts.to_circuit()).map_err(|e| failure(&e))?;
        Ok(Circuit::from_netlist(netlist, Some(stats.luts)))
    })
}

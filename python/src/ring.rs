//! A trained ring (fixed-point, `--domain poly`) model: features standardised into the
//! ring, predictions and signed class scores by the ring model, its bit-blasted
//! classifier as the circuit (inputs: each feature's ring word, least significant bit
//! first; outputs: each class's score word), its `model.json` and metrics.

use crate::circuit::{Circuit, Reduced};
use crate::{bad_input, guarded};
use circuitlearn::{Aig, Dataset, FeatureCoding, Features, PortNames, RingModel, RingModelFile, parse_aiger};
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// A trained ring model with its classifier circuit.
#[pyclass(frozen, name = "RingModel", module = "circuitlearn._native")]
pub struct RingModelPy {
    model: RingModel,
    coding: FeatureCoding,
    class_names: Vec<String>,
    circuit: Circuit,
    model_json: String,
    metrics_json: String,
}

/// The port names of a ring classifier's AIG: the ones `circuitlearn train` gives it.
pub(crate) fn ring_names(aig: &Aig) -> PortNames {
    PortNames::indexed("classifier", aig.n_inputs(), aig.outputs().len())
}

impl RingModelPy {
    /// A model from its parts.
    pub(crate) fn new(
        (model, coding): (RingModel, FeatureCoding),
        class_names: Vec<String>,
        aig: Aig,
        model_json: String,
        metrics_json: String,
    ) -> Self {
        let names = ring_names(&aig);
        Self { model, coding, class_names, circuit: Circuit::from_aig(aig, names), model_json, metrics_json }
    }

    /// The rows of `x` as ring elements (refusing values the ring cannot hold).
    fn encode(&self, x: &PyReadonlyArray2<'_, f64>) -> PyResult<Vec<Vec<u64>>> {
        let x = x.as_array();
        let (n, n_features) = x.dim();
        if n_features != self.model.n_features {
            return Err(PyValueError::new_err(format!(
                "X has {n_features} features, but the model was trained on {}",
                self.model.n_features
            )));
        }
        let ds = Dataset {
            name: "numpy".to_owned(),
            features: Features::Real {
                n_features,
                values: x.iter().copied().collect(),
                names: (0..n_features).map(|i| format!("x{i}")).collect(),
            },
            labels: vec![0; n],
            class_names: self.class_names.clone(),
        };
        self.coding.encode(&ds, self.model.ring, "X").map_err(|e| bad_input(&e))
    }
}

/// Rebuilds a ring model from its `model.json` text, the AIGER bytes of its circuit and
/// its metrics (what pickling stores).
///
/// # Errors
/// `ValueError` if the text or bytes are not a ring model this build reads.
#[pyfunction]
pub fn load_ring_model(model_json: &str, aiger: &[u8], metrics_json: &str) -> PyResult<RingModelPy> {
    guarded(|| {
        let (file, model, coding) =
            RingModelFile::parse(model_json, "model.json").map_err(|e| bad_input(&e))?;
        let (aig, _) = parse_aiger(aiger, "circuit.aig", "classifier").map_err(|e| bad_input(&e))?;
        Ok(RingModelPy::new(
            (model, coding),
            file.class_names.clone(),
            aig,
            model_json.to_owned(),
            metrics_json.to_owned(),
        ))
    })
}

#[pymethods]
impl RingModelPy {
    /// Predicted class indices of the rows of `x` (the highest score, lowest class on ties).
    fn predict<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'py, f64>,
    ) -> PyResult<Bound<'py, PyArray1<u32>>> {
        guarded(|| {
            let xs = self.encode(&x)?;
            Ok(py.detach(|| self.model.predict(&xs)).into_pyarray(py))
        })
    }

    /// Signed fixed-point class scores of the rows of `x`, shape `(rows, classes)` (the
    /// score is the value times 2^frac_bits).
    fn scores<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'py, f64>,
    ) -> PyResult<Bound<'py, PyArray2<i64>>> {
        guarded(|| {
            let xs = self.encode(&x)?;
            let c = self.model.n_classes;
            let s: Vec<i64> = py.detach(|| {
                let circuit = self.model.circuit();
                xs.iter().flat_map(|row| self.model.scores(&circuit, row)).collect()
            });
            let a =
                Array2::from_shape_vec((xs.len(), c), s).map_err(|e| PyValueError::new_err(e.to_string()))?;
            Ok(a.into_pyarray(py))
        })
    }

    /// The bits the circuit reads for the rows of `x`, shape `(rows, input_bits)`: each
    /// feature's ring word, least significant bit first.
    fn encode_bits<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'py, f64>,
    ) -> PyResult<Bound<'py, PyArray2<bool>>> {
        guarded(|| {
            let xs = self.encode(&x)?;
            let w = self.model.ring.width();
            let n = self.model.n_features;
            let a = Array2::from_shape_fn((xs.len(), n * w), |(e, b)| xs[e][b / w] >> (b % w) & 1 == 1);
            Ok(a.into_pyarray(py))
        })
    }

    /// The bit-blasted classifier's AIG after the pass script.
    #[getter]
    fn circuit(&self) -> Circuit {
        self.circuit.clone()
    }

    /// The `model.json` text (`circuitlearn eval --model` reads it).
    #[getter]
    fn model_json(&self) -> &str {
        &self.model_json
    }

    /// The run's metrics as JSON text.
    #[getter]
    fn metrics_json(&self) -> &str {
        &self.metrics_json
    }

    /// The model spec (`linear`, `mlp:H`).
    #[getter]
    fn spec(&self) -> String {
        self.model.spec.to_string()
    }

    /// Bits the circuit reads (features times the ring's word width).
    #[getter]
    fn input_bits(&self) -> usize {
        self.model.n_features * self.model.ring.width()
    }

    /// Fraction bits of the fixed point.
    #[getter]
    fn frac_bits(&self) -> u8 {
        self.model.frac_bits
    }

    /// Pickling: the model file, the circuit and the metrics.
    fn __reduce__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<Reduced<'py, (String, Bound<'py, PyBytes>, String)>> {
        crate::model::reduce_trained(
            py,
            "load_ring_model",
            &self.model_json,
            &self.circuit,
            &self.metrics_json,
        )
    }
}

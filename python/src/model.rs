//! Training from numpy arrays through the library pipeline, and the trained model:
//! predictions, class scores, the synthesised circuit, its `model.json` and metrics.

use crate::circuit::{Circuit, Reduced};
use crate::ring::RingModelPy;
use crate::{bad_input, failure, guarded};
use circuitlearn::pipeline;
use circuitlearn::pipeline::ModelConfig;
use circuitlearn::pipeline::PipelineError;
use circuitlearn::pipeline::TrainConfig;
use circuitlearn::pipeline::TrainData;
use circuitlearn::pipeline::TrainOptions;
use circuitlearn::pipeline::TrainedModel;
use circuitlearn::{
    Aig, BitMatrix, Dataset, Encoder, Features, ModelFile, Network, PortNames, forward, parse_aiger, predict,
};
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::path::Path;

/// The name the data of a fit carry (in `model.json` and the metrics).
const DATA_NAME: &str = "numpy";

/// The port names of a trained classifier's AIG: the ones `circuitlearn train` gives
/// `classifier.aig`.
fn classifier_names(aig: &Aig) -> PortNames {
    PortNames::indexed("classifier", aig.n_inputs(), aig.outputs().len())
}

/// A pipeline error as Python sees it: bad input is a `ValueError`.
fn pipeline_err(e: &PipelineError) -> PyErr {
    if e.is_bad_input() { bad_input(e) } else { failure(e) }
}

/// A trained Boolean classifier: its network and parameters, the encoder of its inputs,
/// and its AIG after the pass script (the circuit whose AND nodes the metrics count).
#[pyclass(frozen, module = "circuitlearn._native")]
pub struct Model {
    net: Network,
    params: Vec<bool>,
    encoder: Encoder,
    class_names: Vec<String>,
    circuit: Circuit,
    model_json: String,
    metrics_json: String,
}

/// Real-valued rows as a data set the encoder reads (labels are not needed to encode).
fn dataset(values: Vec<f64>, n_features: usize, labels: Vec<u32>, class_names: Vec<String>) -> Dataset {
    Dataset {
        name: DATA_NAME.to_owned(),
        features: Features::Real {
            n_features,
            values,
            names: (0..n_features).map(|i| format!("x{i}")).collect(),
        },
        labels,
        class_names,
    }
}

/// What [`fit`] trained: a classifier of bits ([`Model`]) or a ring model.
#[derive(IntoPyObject)]
#[expect(clippy::large_enum_variant, reason = "made once per fit and handed straight to Python")]
pub enum Fitted {
    /// A Boolean or relaxed (discretised) classifier.
    Lut(Model),
    /// A ring (`--domain poly`) model.
    Ring(RingModelPy),
}

/// Trains a Boolean, relaxed or ring classifier on `x` (rows of real features) and `y` (class
/// indices into `class_names`) with the options `options_json` (a JSON object whose keys
/// are `circuitlearn train`'s long flags: `{"model": "lut:6:64x1,groupsum:2", "epochs": 5}`),
/// on `n_jobs` threads (0: one per core). The GIL is released while it trains.
///
/// # Errors
/// `ValueError` for options or data the pipeline refuses (with its message).
#[pyfunction]
#[pyo3(signature = (x, y, class_names, options_json, n_jobs = 0))]
pub fn fit(
    py: Python<'_>,
    x: PyReadonlyArray2<'_, f64>,
    y: PyReadonlyArray1<'_, i64>,
    class_names: Vec<String>,
    options_json: &str,
    n_jobs: usize,
) -> PyResult<Fitted> {
    guarded(|| {
        let x = x.as_array();
        let (n, n_features) = x.dim();
        let values: Vec<f64> = x.iter().copied().collect();
        let n_classes = class_names.len();
        let labels = y
            .as_array()
            .iter()
            .map(|&v| u32::try_from(v).ok().filter(|&c| (c as usize) < n_classes))
            .collect::<Option<Vec<u32>>>()
            .ok_or_else(|| PyValueError::new_err(format!("y must hold class indices in 0..{n_classes}")))?;
        if labels.len() != n {
            return Err(PyValueError::new_err(format!("X has {n} rows but y has {} labels", labels.len())));
        }
        let mut options: TrainOptions =
            serde_json::from_str(options_json).map_err(|e| PyValueError::new_err(format!("options: {e}")))?;
        options.data = Some(DATA_NAME.to_owned());
        options.hardware = Some("none".to_owned());
        let cfg = TrainConfig::resolve(&options).map_err(|e| bad_input(&e))?;
        if matches!(cfg.model, ModelConfig::Smooth(_)) {
            return Err(PyValueError::new_err(
                "a smooth model is not a circuit; use domain bool, relaxed or poly",
            ));
        }
        let train = dataset(values, n_features, labels, class_names.clone());
        let data = TrainData {
            name: DATA_NAME.to_owned(),
            test: train.subset(&[]),
            train,
            test_source: "none".to_owned(),
            grid: None,
            images: None,
        };
        let run = move || -> Result<Fitted, PipelineError> {
            let trained = pipeline::train(&cfg, &data, None, &mut |_| {})?;
            let synth = pipeline::synthesize(&cfg, &trained)?.ok_or_else(|| {
                PipelineError::Invalid(
                    "a smooth model is not a circuit; use domain bool, relaxed or poly".into(),
                )
            })?;
            let metrics = pipeline::metrics(&cfg, &data, &trained, Some(&synth), "none");
            let dir = tempfile::tempdir()
                .map_err(|source| PipelineError::Io { path: "a temporary directory".into(), source })?;
            let path = dir.path().join("model.json");
            trained.write_model(&path, &cfg)?;
            let model_json = std::fs::read_to_string(&path)
                .map_err(|source| PipelineError::Io { path: path.display().to_string(), source })?;
            let (net, params, encoder) = match trained.model {
                TrainedModel::Bool { net, params, encoder, .. } => (net, params, encoder),
                TrainedModel::Relaxed { discrete, params, encoder, .. } => (discrete, params, encoder),
                TrainedModel::Poly { model, coding, .. } => {
                    return Ok(Fitted::Ring(RingModelPy::new(
                        (model, coding),
                        trained.class_names,
                        synth.aig,
                        model_json,
                        metrics.to_string(),
                    )));
                }
                TrainedModel::Smooth { .. } => unreachable!("smooth models are refused before training"),
            };
            let names = classifier_names(&synth.aig);
            Ok(Fitted::Lut(Model {
                net,
                params,
                encoder,
                class_names: trained.class_names,
                circuit: Circuit::from_aig(synth.aig, names),
                model_json,
                metrics_json: metrics.to_string(),
            }))
        };
        let result = py.detach(move || {
            if n_jobs == 0 {
                run()
            } else {
                match rayon::ThreadPoolBuilder::new().num_threads(n_jobs).build() {
                    Ok(pool) => pool.install(run),
                    Err(e) => Err(PipelineError::Invalid(format!("n_jobs {n_jobs}: {e}"))),
                }
            }
        });
        result.map_err(|e| pipeline_err(&e))
    })
}

/// Rebuilds a [`Model`] from its `model.json` text, the AIGER bytes of its circuit and
/// its metrics (what pickling a model stores).
///
/// # Errors
/// `ValueError` if the text or bytes are not a model this build reads.
#[pyfunction]
pub fn load_model(model_json: &str, aiger: &[u8], metrics_json: &str) -> PyResult<Model> {
    guarded(|| {
        let file = ModelFile::parse(model_json, "model.json").map_err(|e| bad_input(&e))?;
        let (net, params) = file.network(Path::new("model.json")).map_err(|e| bad_input(&e))?;
        let (aig, names) = parse_aiger(aiger, "circuit.aig", "classifier").map_err(|e| bad_input(&e))?;
        Ok(Model {
            net,
            params,
            encoder: file.encoder,
            class_names: file.class_names,
            circuit: Circuit::from_aig(aig, names),
            model_json: model_json.to_owned(),
            metrics_json: metrics_json.to_owned(),
        })
    })
}

impl Model {
    /// Encodes rows of real features with the model's encoder.
    fn encode(&self, x: &PyReadonlyArray2<'_, f64>) -> PyResult<BitMatrix> {
        let x = x.as_array();
        let (n, n_features) = x.dim();
        if n_features != self.encoder.n_features() {
            return Err(PyValueError::new_err(format!(
                "X has {n_features} features, but the model was trained on {}",
                self.encoder.n_features()
            )));
        }
        let ds = dataset(x.iter().copied().collect(), n_features, vec![0; n], self.class_names.clone());
        self.encoder.encode(&ds).map_err(|e| bad_input(&e))
    }
}

#[pymethods]
impl Model {
    /// Predicted class indices of the rows of `x`.
    fn predict<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'py, f64>,
    ) -> PyResult<Bound<'py, PyArray1<u32>>> {
        guarded(|| {
            let bits = self.encode(&x)?;
            let p = py.detach(|| predict(&self.net, &self.params, &bits));
            Ok(p.into_pyarray(py))
        })
    }

    /// Class scores of the rows of `x`, shape `(rows, classes)`: for a `groupsum` head the
    /// ones of each class's group of outputs; for `binary` / `onehot` heads 1 for the
    /// decoded class.
    fn scores<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'py, f64>,
    ) -> PyResult<Bound<'py, PyArray2<u32>>> {
        guarded(|| {
            let bits = self.encode(&x)?;
            let n = bits.examples();
            let c = self.net.n_classes;
            let s = py.detach(|| {
                let out = forward(&self.net.circuit, &self.params, &bits);
                self.net.spec.head.scores(&out, c)
            });
            let a = Array2::from_shape_vec((n, c), s).map_err(|e| PyValueError::new_err(e.to_string()))?;
            Ok(a.into_pyarray(py))
        })
    }

    /// The encoded input bits of the rows of `x`, shape `(rows, input_bits)`: what the
    /// circuit reads.
    fn encode_bits<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'py, f64>,
    ) -> PyResult<Bound<'py, PyArray2<bool>>> {
        guarded(|| {
            let bits = self.encode(&x)?;
            Ok(crate::circuit::to_array(&bits).into_pyarray(py))
        })
    }

    /// The trained classifier's AIG (inputs: the encoded bits; outputs: the class index
    /// in binary, least significant bit first).
    #[getter]
    fn circuit(&self) -> Circuit {
        self.circuit.clone()
    }

    /// The `model.json` text (`circuitlearn eval --model` and `export --model` read it).
    #[getter]
    fn model_json(&self) -> &str {
        &self.model_json
    }

    /// The run's metrics as JSON text (the fields of `metrics.json`).
    #[getter]
    fn metrics_json(&self) -> &str {
        &self.metrics_json
    }

    /// The model spec it trained (with its head).
    #[getter]
    fn spec(&self) -> String {
        self.net.spec.to_string()
    }

    /// Encoded input bits.
    #[getter]
    fn input_bits(&self) -> usize {
        self.encoder.n_bits()
    }

    /// Pickling: the model file, the circuit and the metrics.
    fn __reduce__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<Reduced<'py, (String, Bound<'py, PyBytes>, String)>> {
        reduce_trained(py, "load_model", &self.model_json, &self.circuit, &self.metrics_json)
    }
}

/// What pickling a trained model stores: `circuitlearn._native.LOADER(model_json, the
/// circuit's AIGER bytes, metrics_json)` rebuilds it.
pub(crate) fn reduce_trained<'py>(
    py: Python<'py>,
    loader: &str,
    model_json: &str,
    circuit: &Circuit,
    metrics_json: &str,
) -> PyResult<Reduced<'py, (String, Bound<'py, PyBytes>, String)>> {
    let f = py.import("circuitlearn._native")?.getattr(loader)?;
    let bytes = PyBytes::new(py, &circuit.aiger_bytes());
    Ok((f, (model_json.to_owned(), bytes, metrics_json.to_owned())))
}

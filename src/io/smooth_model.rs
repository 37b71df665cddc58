//! The smooth `model.json` (`"domain": "smooth"`): an f32 tensor model as its spec, input
//! shape, class names and parameter tensors. Not a circuit: `export` and `verify` refuse
//! it with that reason.

use super::atomic::write_atomic;
use super::model_file::ModelFileError;
use crate::smooth::Tensor;
use crate::smooth::layers::{SmoothModel, SmoothSpec, WeightInit};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Version of the smooth `model.json` layout.
pub const SMOOTH_FORMAT_VERSION: u32 = 1;

/// One parameter tensor in `model.json`.
#[derive(Debug, Serialize, Deserialize)]
struct ParamTensor {
    shape: Vec<usize>,
    data: Vec<f32>,
}

/// The smooth `model.json`.
#[derive(Debug, Serialize, Deserialize)]
struct SmoothModelFile {
    format_version: u32,
    domain: String,
    dataset: String,
    spec: String,
    seed: u64,
    input_shape: Vec<usize>,
    class_names: Vec<String>,
    params: Vec<ParamTensor>,
}

/// Whether model-file text is a smooth model (`"domain": "smooth"`).
#[must_use]
pub fn is_smooth_model(text: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .and_then(|v| v.get("domain").and_then(|d| d.as_str().map(|d| d == "smooth")))
        .unwrap_or(false)
}

/// Writes `model` (trained from `spec` with `seed` on `dataset`) atomically.
///
/// # Errors
/// [`ModelFileError::Io`] if the file cannot be written.
pub fn write_smooth_model(
    path: &Path,
    model: &SmoothModel,
    dataset: &str,
    spec: &str,
    seed: u64,
    class_names: &[String],
) -> Result<(), ModelFileError> {
    let file = SmoothModelFile {
        format_version: SMOOTH_FORMAT_VERSION,
        domain: "smooth".into(),
        dataset: dataset.into(),
        spec: spec.into(),
        seed,
        input_shape: model.input_shape.clone(),
        class_names: class_names.to_vec(),
        params: model
            .params
            .iter()
            .map(|t| ParamTensor { shape: t.shape().to_vec(), data: t.data().to_vec() })
            .collect(),
    };
    let text = serde_json::to_string(&file).expect("a model serializes") + "\n";
    write_atomic(path, text.as_bytes())
        .map_err(|source| ModelFileError::Io { path: path.display().to_string(), source })
}

/// Reads a smooth `model.json` back into a model with its trained parameters, and its
/// class names.
///
/// # Errors
/// [`ModelFileError`] naming the file: unreadable, malformed, a newer format version, or
/// parameters that do not fit the spec.
pub fn read_smooth_model(path: &Path) -> Result<(SmoothModel, Vec<String>), ModelFileError> {
    let p = path.display().to_string();
    let bad = |msg: String| ModelFileError::Params { path: p.clone(), msg };
    let text =
        std::fs::read_to_string(path).map_err(|source| ModelFileError::Io { path: p.clone(), source })?;
    let f: SmoothModelFile = serde_json::from_str(&text).map_err(|e| ModelFileError::Json {
        path: p.clone(),
        line: e.line(),
        column: e.column(),
        msg: format!("not a smooth model file: {e}"),
    })?;
    if f.format_version > SMOOTH_FORMAT_VERSION {
        return Err(ModelFileError::Version { path: p, found: u64::from(f.format_version) });
    }
    let spec: SmoothSpec = f.spec.parse().map_err(|e| bad(format!("spec {}: {e}", f.spec)))?;
    let mut model =
        SmoothModel::from_spec(&spec, &f.input_shape, f.class_names.len(), WeightInit::FanIn, f.seed)
            .map_err(|e| bad(format!("spec {}: {e}", f.spec)))?;
    if f.params.len() != model.params.len() {
        return Err(bad(format!(
            "{} parameter tensors, the spec needs {}",
            f.params.len(),
            model.params.len()
        )));
    }
    for (i, (slot, t)) in model.params.iter_mut().zip(f.params).enumerate() {
        if t.shape != slot.shape() || t.data.len() != t.shape.iter().product::<usize>() {
            return Err(bad(format!(
                "parameter {i} has shape {:?}, the spec needs {:?}",
                t.shape,
                slot.shape()
            )));
        }
        *slot = Tensor::new(t.shape, t.data);
    }
    Ok((model, f.class_names))
}

//! `model.json`: a trained model as a small, versioned JSON document. The circuit is
//! rebuilt from the spec, input width, class count and seed (the wiring is a function of
//! the seed, except for layers whose wiring was learned, stored as `learned_wiring`); the
//! parameters are stored as a hex string.

use super::atomic::write_atomic;
use crate::data::Encoder;
use crate::learn::{ModelError, ModelSpec, Network, param_count};
use serde::{Deserialize, Serialize};
use std::path::Path;
use thiserror::Error;

/// The format version this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;

/// A saved model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelFile {
    /// Format version ([`FORMAT_VERSION`]).
    pub format_version: u32,
    /// Data set the model was trained on.
    pub dataset: String,
    /// Model spec, e.g. `lut:6:64x1,groupsum:3`.
    pub spec: String,
    /// Seed of the wiring and of training.
    pub seed: u64,
    /// Input bits after encoding.
    pub n_inputs: usize,
    /// Class names, in label order.
    pub class_names: Vec<String>,
    /// How raw features become input bits.
    pub encoder: Encoder,
    /// Optimiser used (`rda`, `rda-votes`).
    pub optimizer: String,
    /// Parameter bits, hex, four per digit, parameter 0 in the lowest bit of the first digit.
    pub params: String,
    /// Learned wiring: entry `l`, when not empty, replaces the seeded wiring of LUT layer
    /// `l` (`k` source indices per LUT; see [`Network::build_with_wiring`]). Absent in
    /// models whose wiring is all drawn from the seed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub learned_wiring: Vec<Vec<u32>>,
}

/// A `model.json` that cannot be used.
#[derive(Debug, Error)]
pub enum ModelFileError {
    /// The file cannot be read or written.
    #[error("{path}: {source}")]
    Io {
        /// File.
        path: String,
        /// Cause.
        source: std::io::Error,
    },
    /// The file is not a model document.
    #[error("{path}:{line}:{column}: {msg}")]
    Json {
        /// File.
        path: String,
        /// Line (1-based).
        line: usize,
        /// Column (1-based).
        column: usize,
        /// What was wrong.
        msg: String,
    },
    /// Written by a newer or older format.
    #[error("{path}: model format version {found}, this build reads version {FORMAT_VERSION}")]
    Version {
        /// File.
        path: String,
        /// Version in the file.
        found: u64,
    },
    /// A smooth (f32 tensor) model where a circuit model is needed.
    #[error("{path}: a smooth model (f32 tensors) is not a circuit; only `eval` reads it")]
    NotACircuit {
        /// File.
        path: String,
    },
    /// The stored spec or shape does not build.
    #[error("{path}: {source}")]
    Model {
        /// File.
        path: String,
        /// Cause.
        source: ModelError,
    },
    /// The parameter string does not fit the model.
    #[error("{path}: {msg}")]
    Params {
        /// File.
        path: String,
        /// What was wrong.
        msg: String,
    },
}

/// Parameters as hex, four bits per digit, parameter 0 in the lowest bit of digit 0.
#[must_use]
pub fn params_to_hex(params: &[bool]) -> String {
    params
        .chunks(4)
        .map(|c| {
            let v = c.iter().enumerate().fold(0u32, |a, (i, &b)| a | (u32::from(b) << i));
            char::from_digit(v, 16).unwrap_or('0')
        })
        .collect()
}

/// Inverse of [`params_to_hex`] for `n` parameters; `None` on a bad digit or length.
#[must_use]
pub fn params_from_hex(hex: &str, n: usize) -> Option<Vec<bool>> {
    if hex.len() != n.div_ceil(4) {
        return None;
    }
    let mut out = Vec::with_capacity(n);
    for ch in hex.chars() {
        let v = ch.to_digit(16)?;
        for i in 0..4 {
            if out.len() < n {
                out.push(v >> i & 1 == 1);
            }
        }
    }
    Some(out)
}

impl ModelFile {
    /// Reads and checks a model file.
    ///
    /// # Errors
    /// [`ModelFileError`] naming the file (and line for malformed JSON).
    pub fn read(path: &Path) -> Result<Self, ModelFileError> {
        let p = path.display().to_string();
        let text =
            std::fs::read_to_string(path).map_err(|source| ModelFileError::Io { path: p.clone(), source })?;
        Self::parse(&text, &p)
    }

    /// Parses and checks model-file text; `path` names it in errors.
    ///
    /// # Errors
    /// [`ModelFileError::Json`] for malformed JSON or a missing field,
    /// [`ModelFileError::Version`] for another format version.
    pub fn parse(text: &str, path: &str) -> Result<Self, ModelFileError> {
        // Check the version before the full shape, so a newer file says so.
        let v: serde_json::Value = serde_json::from_str(text).map_err(|e| json_err(path, &e))?;
        if v.get("domain").and_then(serde_json::Value::as_str) == Some("smooth") {
            return Err(ModelFileError::NotACircuit { path: path.to_owned() });
        }
        if let Some(found) = v.get("format_version").and_then(serde_json::Value::as_u64)
            && found != u64::from(FORMAT_VERSION)
        {
            return Err(ModelFileError::Version { path: path.to_owned(), found });
        }
        serde_json::from_str(text).map_err(|e| json_err(path, &e))
    }

    /// Writes the model atomically, pretty-printed.
    ///
    /// # Errors
    /// [`ModelFileError::Io`] if the file cannot be written.
    pub fn write(&self, path: &Path) -> Result<(), ModelFileError> {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        write_atomic(path, text.as_bytes())
            .map_err(|source| ModelFileError::Io { path: path.display().to_string(), source })
    }

    /// Rebuilds the network and its trained parameters.
    ///
    /// # Errors
    /// [`ModelFileError`] if the spec does not build or the parameters do not fit it.
    pub fn network(&self, path: &Path) -> Result<(Network, Vec<bool>), ModelFileError> {
        let p = path.display().to_string();
        let spec: ModelSpec = self
            .spec
            .parse()
            .map_err(|e| ModelFileError::Model { path: p.clone(), source: ModelError::Spec(e) })?;
        // The parameter string bounds the network's size, so a hostile `n_inputs` or spec
        // is refused before anything is built from it.
        let n_classes = self.class_names.len();
        let n_params = param_count(spec, self.n_inputs, n_classes).unwrap_or(usize::MAX);
        if n_params.div_ceil(4) != self.params.len() {
            return Err(ModelFileError::Params {
                path: p,
                msg: if n_params == usize::MAX {
                    format!("model {spec} over {} inputs is too large", self.n_inputs)
                } else {
                    format!("params must be {} hex digits for {n_params} parameters", n_params.div_ceil(4))
                },
            });
        }
        let net = Network::build_with_wiring(spec, self.n_inputs, n_classes, self.seed, &self.learned_wiring)
            .map_err(|source| ModelFileError::Model { path: p.clone(), source })?;
        let params = params_from_hex(&self.params, n_params)
            .ok_or_else(|| ModelFileError::Params { path: p, msg: "params must be hex digits".into() })?;
        Ok((net, params))
    }
}

fn json_err(path: &str, e: &serde_json::Error) -> ModelFileError {
    ModelFileError::Json { path: path.to_string(), line: e.line(), column: e.column(), msg: e.to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trips() {
        let bits: Vec<bool> = (0..11).map(|i| i % 3 == 0).collect();
        let h = params_to_hex(&bits);
        assert_eq!(h.len(), 3);
        assert_eq!(params_from_hex(&h, 11).unwrap(), bits);
        assert!(params_from_hex("zz", 5).is_none());
        assert!(params_from_hex("0", 5).is_none());
    }

    /// `learned_wiring` survives the JSON round trip, rebuilds the network with it, and is
    /// refused with the file's name when it does not fit the spec.
    #[test]
    fn learned_wiring_round_trips_and_is_checked() {
        let ds = crate::data::load("iris").unwrap();
        let encoder = Encoder::fit(&crate::data::Encoding::Thermometer { bits: 2 }, &ds).unwrap();
        let spec: ModelSpec = "lut:2:6x1,groupsum:3".parse().unwrap();
        let n_params = param_count(spec, 8, 3).unwrap();
        let wiring: Vec<u32> = (0..12).map(|i| (i * 3 % 8) as u32).collect();
        let mut file = ModelFile {
            format_version: FORMAT_VERSION,
            dataset: "iris".into(),
            spec: spec.to_string(),
            seed: 1,
            n_inputs: 8,
            class_names: ds.class_names.clone(),
            encoder,
            optimizer: "relaxed-adam".into(),
            params: params_to_hex(&vec![true; n_params]),
            learned_wiring: vec![wiring.clone()],
        };
        let text = serde_json::to_string(&file).unwrap();
        let back = ModelFile::parse(&text, "m.json").unwrap();
        assert_eq!(back, file);
        let (net, _) = back.network(Path::new("m.json")).unwrap();
        let want = Network::build_with_wiring(spec, 8, 3, 1, &[wiring]).unwrap();
        assert_eq!(net, want);
        assert_ne!(net, Network::build(spec, 8, 3, 1).unwrap());
        file.learned_wiring = vec![vec![9; 12]];
        let e = file.network(Path::new("m.json")).unwrap_err().to_string();
        assert!(e.starts_with("m.json: learned wiring of layer 0: source 9"), "{e}");
        // Files without the field read as before.
        file.learned_wiring.clear();
        assert!(!serde_json::to_string(&file).unwrap().contains("learned_wiring"));
    }
}

//! Checkpoints: where a [`Trainer`](super::Trainer) run stood after an epoch — the
//! rule's parameters and optimiser state, the figures so far, the random generator's
//! position and the visiting order — in a compact binary file: a JSON header, then each
//! array little-endian (Boolean parameters bit-packed, 64 to a word; f32 as 4 bytes).

use bitvec::prelude::{BitVec, Lsb0};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// The file's first bytes.
const MAGIC: &[u8] = b"circuitlearn checkpoint\n";

/// The binary layout this build writes and reads.
pub const CHECKPOINT_VERSION: u32 = 2;

/// A checkpoint that cannot be read or does not fit the run it is to continue.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CheckpointError {
    /// Not a checkpoint, truncated, or of another layout version.
    #[error("not a readable checkpoint: {0}")]
    Malformed(String),
    /// Readable, but for another rule, model or data.
    #[error("checkpoint does not fit this training: {0}")]
    Mismatch(String),
}

/// One array of a rule's state.
#[derive(Clone, Debug, PartialEq)]
pub enum Blob {
    /// Bits (Boolean parameters), stored 64 to a word.
    Bits(Vec<bool>),
    /// Single-precision floats.
    F32(Vec<f32>),
    /// Unsigned 64-bit words (ring elements).
    U64(Vec<u64>),
    /// Unsigned 32-bit words (indices).
    U32(Vec<u32>),
}

impl Blob {
    fn kind(&self) -> &'static str {
        match self {
            Blob::Bits(_) => "bits",
            Blob::F32(_) => "f32",
            Blob::U64(_) => "u64",
            Blob::U32(_) => "u32",
        }
    }

    fn len(&self) -> usize {
        match self {
            Blob::Bits(v) => v.len(),
            Blob::F32(v) => v.len(),
            Blob::U64(v) => v.len(),
            Blob::U32(v) => v.len(),
        }
    }

    fn write(&self, out: &mut Vec<u8>) {
        match self {
            Blob::Bits(v) => {
                let packed: BitVec<u64, Lsb0> = v.iter().copied().collect();
                for w in packed.as_raw_slice() {
                    out.extend_from_slice(&w.to_le_bytes());
                }
            }
            Blob::F32(v) => v.iter().for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
            Blob::U64(v) => v.iter().for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
            Blob::U32(v) => v.iter().for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
        }
    }

    fn bytes(kind: &str, len: usize) -> Option<usize> {
        match kind {
            "bits" => Some(len.div_ceil(64) * 8),
            "f32" | "u32" => len.checked_mul(4),
            "u64" => len.checked_mul(8),
            _ => None,
        }
    }

    fn read(kind: &str, len: usize, data: &[u8]) -> Blob {
        let words = |n: usize| data.chunks_exact(n);
        match kind {
            "bits" => {
                let raw: Vec<u64> =
                    words(8).map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes"))).collect();
                let bits = BitVec::<u64, Lsb0>::from_vec(raw);
                Blob::Bits(bits.iter().by_vals().take(len).collect())
            }
            "f32" => {
                Blob::F32(words(4).map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes"))).collect())
            }
            "u64" => {
                Blob::U64(words(8).map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes"))).collect())
            }
            _ => Blob::U32(words(4).map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes"))).collect()),
        }
    }
}

/// A rule's saved state: named arrays and small values (step counts, phase flags).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RuleState {
    /// Named arrays, in the order they were added.
    pub arrays: Vec<(String, Blob)>,
    /// Small values, as JSON.
    pub values: serde_json::Map<String, serde_json::Value>,
}

impl RuleState {
    /// Adds an array.
    pub fn put(&mut self, name: &str, blob: Blob) {
        self.arrays.push((name.to_owned(), blob));
    }

    /// Adds a small value.
    ///
    /// # Panics
    /// If the value does not serialize to JSON (plain numbers, flags and lists do).
    pub fn set<T: Serialize>(&mut self, name: &str, value: &T) {
        let v = serde_json::to_value(value).expect("a checkpoint value serializes");
        self.values.insert(name.to_owned(), v);
    }

    /// Whether there is an array `name`.
    #[must_use]
    pub fn has(&self, name: &str) -> bool {
        self.arrays.iter().any(|(n, _)| n == name)
    }

    /// Takes the array `name` out.
    ///
    /// # Errors
    /// [`CheckpointError::Mismatch`] if there is none.
    pub fn take(&mut self, name: &str) -> Result<Blob, CheckpointError> {
        let i = self
            .arrays
            .iter()
            .position(|(n, _)| n == name)
            .ok_or_else(|| CheckpointError::Mismatch(format!("no array '{name}'")))?;
        Ok(self.arrays.remove(i).1)
    }

    /// Reads the small value `name`.
    ///
    /// # Errors
    /// [`CheckpointError::Mismatch`] if it is missing or of another type.
    pub fn get<T: DeserializeOwned>(&self, name: &str) -> Result<T, CheckpointError> {
        let v =
            self.values.get(name).ok_or_else(|| CheckpointError::Mismatch(format!("no value '{name}'")))?;
        serde_json::from_value(v.clone())
            .map_err(|e| CheckpointError::Mismatch(format!("value '{name}': {e}")))
    }

    /// The f32 array `name`, which must have `len` elements (`None`: any length).
    ///
    /// # Errors
    /// [`CheckpointError::Mismatch`] if it is missing, of another type or length.
    pub fn take_f32(&mut self, name: &str, len: Option<usize>) -> Result<Vec<f32>, CheckpointError> {
        match self.take(name)? {
            Blob::F32(v) if len.is_none_or(|n| n == v.len()) => Ok(v),
            b => Err(wrong(name, &b, "f32", len)),
        }
    }

    /// The bit array `name` of `len` bits.
    ///
    /// # Errors
    /// [`CheckpointError::Mismatch`] if it is missing, of another type or length.
    pub fn take_bits(&mut self, name: &str, len: usize) -> Result<Vec<bool>, CheckpointError> {
        match self.take(name)? {
            Blob::Bits(v) if v.len() == len => Ok(v),
            b => Err(wrong(name, &b, "bits", Some(len))),
        }
    }

    /// The u64 array `name` of `len` words.
    ///
    /// # Errors
    /// [`CheckpointError::Mismatch`] if it is missing, of another type or length.
    pub fn take_u64(&mut self, name: &str, len: usize) -> Result<Vec<u64>, CheckpointError> {
        match self.take(name)? {
            Blob::U64(v) if v.len() == len => Ok(v),
            b => Err(wrong(name, &b, "u64", Some(len))),
        }
    }

    /// The u32 array `name`, of any length.
    ///
    /// # Errors
    /// [`CheckpointError::Mismatch`] if it is missing or of another type.
    pub fn take_u32(&mut self, name: &str) -> Result<Vec<u32>, CheckpointError> {
        match self.take(name)? {
            Blob::U32(v) => Ok(v),
            b => Err(wrong(name, &b, "u32", None)),
        }
    }
}

fn wrong(name: &str, b: &Blob, kind: &str, len: Option<usize>) -> CheckpointError {
    let want = len.map_or_else(|| kind.to_owned(), |n| format!("{n} {kind}"));
    CheckpointError::Mismatch(format!(
        "array '{name}' holds {} {}, the model needs {want}",
        b.len(),
        b.kind()
    ))
}

/// Where a run stood after an epoch: enough to continue it exactly.
#[derive(Clone, Debug, PartialEq)]
pub struct Checkpoint<E> {
    /// The rule's name ([`Rule::name`](super::Rule::name)).
    pub rule: String,
    /// The figures of the completed epochs.
    pub history: Vec<E>,
    /// Their wall times, seconds.
    pub epoch_seconds: Vec<f64>,
    /// Position of the trainer's random generator, in 32-bit words.
    pub rng_word_pos: u128,
    /// The last epoch's visiting order.
    pub order: Vec<u32>,
    /// The rule's parameters and optimiser state.
    pub state: RuleState,
}

#[derive(Serialize, Deserialize)]
struct Header {
    rule: String,
    history: serde_json::Value,
    epoch_seconds: Vec<f64>,
    /// Decimal: JSON readers cannot all hold a `u128`.
    rng_word_pos: String,
    order: usize,
    values: serde_json::Map<String, serde_json::Value>,
    arrays: Vec<(String, String, usize)>,
}

impl<E: Serialize + DeserializeOwned> Checkpoint<E> {
    /// Epochs completed.
    #[must_use]
    pub fn epoch(&self) -> usize {
        self.history.len()
    }

    /// The checkpoint as bytes.
    ///
    /// # Panics
    /// If the rule's figures do not serialize to JSON (they are plain data).
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let header = Header {
            rule: self.rule.clone(),
            history: serde_json::to_value(&self.history).expect("epoch figures serialize"),
            epoch_seconds: self.epoch_seconds.clone(),
            rng_word_pos: self.rng_word_pos.to_string(),
            order: self.order.len(),
            values: self.state.values.clone(),
            arrays: self
                .state
                .arrays
                .iter()
                .map(|(n, b)| (n.clone(), b.kind().to_owned(), b.len()))
                .collect(),
        };
        let json = serde_json::to_vec(&header).expect("a header serializes");
        let mut out = Vec::with_capacity(json.len() + 64);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&CHECKPOINT_VERSION.to_le_bytes());
        out.extend_from_slice(&(json.len() as u64).to_le_bytes());
        out.extend_from_slice(&json);
        Blob::U32(self.order.clone()).write(&mut out);
        for (_, b) in &self.state.arrays {
            b.write(&mut out);
        }
        out
    }

    /// Reads [`to_bytes`](Self::to_bytes)' output.
    ///
    /// # Errors
    /// [`CheckpointError::Malformed`] for anything else (sizes are checked against the
    /// data before anything is allocated).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, CheckpointError> {
        let bad = |why: &str| CheckpointError::Malformed(why.to_owned());
        let rest = bytes.strip_prefix(MAGIC).ok_or_else(|| bad("no checkpoint header"))?;
        let (version, rest) = rest.split_at_checked(4).ok_or_else(|| bad("truncated"))?;
        let version = u32::from_le_bytes(version.try_into().expect("4 bytes"));
        if version != CHECKPOINT_VERSION {
            return Err(CheckpointError::Malformed(format!(
                "layout version {version}, this build reads version {CHECKPOINT_VERSION}"
            )));
        }
        let (len, rest) = rest.split_at_checked(8).ok_or_else(|| bad("truncated"))?;
        let len = usize::try_from(u64::from_le_bytes(len.try_into().expect("8 bytes")))
            .map_err(|_| bad("header too long"))?;
        let (json, mut data) = rest.split_at_checked(len).ok_or_else(|| bad("truncated header"))?;
        let h: Header = serde_json::from_slice(json).map_err(|e| bad(&format!("header: {e}")))?;
        let history: Vec<E> = serde_json::from_value(h.history).map_err(|e| bad(&format!("history: {e}")))?;
        let rng_word_pos = h.rng_word_pos.parse::<u128>().map_err(|_| bad("rng_word_pos is not a number"))?;
        let mut take = |kind: &str, n: usize| -> Result<Blob, CheckpointError> {
            let size = Blob::bytes(kind, n).ok_or_else(|| bad(&format!("unknown array type '{kind}'")))?;
            let (this, next) = data.split_at_checked(size).ok_or_else(|| bad("truncated arrays"))?;
            data = next;
            Ok(Blob::read(kind, n, this))
        };
        let Blob::U32(order) = take("u32", h.order)? else { unreachable!("read as u32") };
        let mut arrays = Vec::with_capacity(h.arrays.len());
        for (name, kind, n) in &h.arrays {
            arrays.push((name.clone(), take(kind, *n)?));
        }
        if !data.is_empty() {
            return Err(bad("trailing bytes"));
        }
        Ok(Checkpoint {
            rule: h.rule,
            history,
            epoch_seconds: h.epoch_seconds,
            rng_word_pos,
            order,
            state: RuleState { arrays, values: h.values },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checkpoint_round_trips_through_bytes() {
        let mut state = RuleState::default();
        state.put("p", Blob::Bits((0..131).map(|i| i % 3 == 0).collect()));
        state.put("w", Blob::F32(vec![1.5, -0.0, f32::MIN_POSITIVE]));
        state.put("r", Blob::U64(vec![u64::MAX, 7]));
        state.set("t", &12u32);
        let c = Checkpoint {
            rule: "x".into(),
            history: vec![1u32, 2, 3],
            epoch_seconds: vec![0.5; 3],
            rng_word_pos: u128::MAX - 3,
            order: vec![2, 0, 1],
            state,
        };
        let bytes = c.to_bytes();
        assert_eq!(Checkpoint::<u32>::from_bytes(&bytes).unwrap(), c);
        // 131 bits take three words.
        assert!(bytes.len() < 400, "{}", bytes.len());
        for cut in [0, 10, bytes.len() - 1] {
            assert!(matches!(
                Checkpoint::<u32>::from_bytes(&bytes[..cut]),
                Err(CheckpointError::Malformed(_))
            ));
        }
    }
}

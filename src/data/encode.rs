//! Encoding numeric features as bits, with thresholds learned from training rows.

use serde::{Deserialize, Serialize};

use super::{DataError, Dataset, Features, MemoryLimit};
use crate::lanes::{BitMatrix, LANES};
use rayon::prelude::*;

/// How each numeric feature becomes bits.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Encoding {
    /// One bit per feature: `(v - min) / (max - min) > 0.5`, with `min` and `max` over the
    /// fitted rows (the RDA paper's Iris protocol); always 0 for a constant feature.
    Threshold,
    /// `bits` bits per feature: bit `i` is `v > t_i`, where `t_i` is the `(i + 1) / (bits + 1)`
    /// quantile of the fitted rows' values, linearly interpolated between sorted values
    /// (numpy's default `linear` method). Coinciding thresholds are kept, so every feature
    /// has exactly `bits` bits.
    Thermometer {
        /// Bits per feature (at least 1).
        bits: usize,
    },
    /// `bits` bits per feature: bit `i` is `v > lo + (i + 1) (hi - lo) / (bits + 1)`, with
    /// `lo` and `hi` the smallest and largest value of every feature of the fitted rows
    /// (one range for all features, so pixels in `[0, 1]` get `1/(B+1), ..., B/(B+1)`).
    /// Unlike quantiles, rare bright pixels still get all their thresholds.
    Uniform {
        /// Bits per feature (at least 1).
        bits: usize,
    },
}

/// Most bits an encoder gives (the input width of the widest model,
/// `learn::MAX_INPUT_BITS`): a wider encoding is refused before anything is allocated.
pub const MAX_ENCODED_BITS: usize = 1 << 24;

impl std::fmt::Display for Encoding {
    /// As written on the command line: `threshold`, `thermometer:B`, `uniform:B`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Threshold => write!(f, "threshold"),
            Self::Thermometer { bits } => write!(f, "thermometer:{bits}"),
            Self::Uniform { bits } => write!(f, "uniform:{bits}"),
        }
    }
}

/// A fitted encoder: turns a [`Dataset`] into a [`BitMatrix`] with one row per bit.
///
/// Rows are feature-major: all bits of feature 0 first, then feature 1, and so on.
/// For [`Features::Bits`] data the encoder is the identity, whatever the encoding.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Encoder {
    encoding: Encoding,
    input: Input,
}

/// What the encoder was fitted on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
enum Input {
    /// Boolean inputs passed through unchanged.
    Bits { n: usize },
    /// Numeric features with one code per feature.
    Real { names: Vec<String>, codes: Vec<Code> },
}

/// The learned parameters of one numeric feature.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
enum Code {
    /// Range over the fitted rows.
    Threshold { min: f64, max: f64 },
    /// Ascending thresholds, one per bit.
    Thermometer { thresholds: Vec<f64> },
}

impl Code {
    fn width(&self) -> usize {
        match self {
            Self::Threshold { .. } => 1,
            Self::Thermometer { thresholds } => thresholds.len(),
        }
    }

    /// The rule of bit `i` of this feature.
    fn rule(&self, i: usize) -> BitRule {
        match self {
            #[allow(clippy::float_cmp)] // exact equality is the degenerate case being excluded
            Self::Threshold { min, max } if max == min => BitRule::Never,
            Self::Threshold { min, max } => BitRule::Scaled { min: *min, max: *max },
            Self::Thermometer { thresholds } => BitRule::Above(thresholds[i]),
        }
    }

    /// Bit `i` of this feature for value `v`.
    fn bit(&self, i: usize, v: f64) -> bool {
        self.rule(i).holds(v)
    }
}

/// When one encoded bit of a numeric feature `v` is 1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BitRule {
    /// `v > t`.
    Above(f64),
    /// `(v - min) / (max - min) > 0.5` (the `threshold` encoding), that is `v` above the
    /// midpoint of the fitted range up to floating-point rounding.
    Scaled {
        /// Smallest fitted value.
        min: f64,
        /// Largest fitted value.
        max: f64,
    },
    /// Never (a feature that was constant when fitted).
    Never,
}

impl BitRule {
    /// Whether the bit is 1 for value `v` (what the encoder computes).
    #[must_use]
    pub fn holds(self, v: f64) -> bool {
        match self {
            Self::Above(t) => v > t,
            Self::Scaled { min, max } => (v - min) / (max - min) > 0.5,
            Self::Never => false,
        }
    }

    /// The threshold `t` the rule compares with (`v > t`), the midpoint for
    /// [`BitRule::Scaled`]; `None` for [`BitRule::Never`].
    #[must_use]
    pub fn threshold(self) -> Option<f64> {
        match self {
            Self::Above(t) => Some(t),
            Self::Scaled { min, max } => Some(min + (max - min) / 2.0),
            Self::Never => None,
        }
    }
}

/// Feature count, values and names of a real-valued data set.
type RealParts<'a> = (usize, &'a [f64], &'a [String]);

/// Checks that a real-valued data set's value array matches its shape.
fn real_parts(data: &Dataset) -> Result<Option<RealParts<'_>>, DataError> {
    match &data.features {
        Features::Bits(_) => Ok(None),
        Features::Real { n_features, values, names } => {
            let n = data.n_examples();
            if values.len() != n * n_features || names.len() != *n_features {
                return Err(DataError::Encode(format!(
                    "data set '{}' is inconsistent: {} values and {} names for {n} examples of {n_features} features",
                    data.name,
                    values.len(),
                    names.len()
                )));
            }
            Ok(Some((*n_features, values, names)))
        }
    }
}

impl Encoder {
    /// Learns per-feature parameters from the rows of `data` (normally the training rows),
    /// within the memory the machine has now ([`MemoryLimit::available`]).
    ///
    /// # Errors
    /// As [`fit_within`](Self::fit_within).
    pub fn fit(encoding: &Encoding, data: &Dataset) -> Result<Encoder, DataError> {
        Self::fit_within(encoding, data, &MemoryLimit::available())
    }

    /// [`fit`](Self::fit), first checking that the thresholds and the encoded bits of
    /// `data` (bits per feature x features x examples) fit `limit`.
    ///
    /// # Errors
    /// [`DataError::Encode`] if `data` has real features but no examples, if a thermometer
    /// asks for 0 bits, or if the data set's arrays disagree with its shape;
    /// [`DataError::TooLarge`] past `limit`.
    pub fn fit_within(
        encoding: &Encoding,
        data: &Dataset,
        limit: &MemoryLimit,
    ) -> Result<Encoder, DataError> {
        if let Encoding::Thermometer { bits: 0 } | Encoding::Uniform { bits: 0 } = encoding {
            return Err(DataError::Encode(
                "thermometer and uniform encodings need at least 1 bit per feature".into(),
            ));
        }
        if let Features::Real { n_features, .. } = &data.features {
            let bits = match encoding {
                Encoding::Threshold => 1,
                Encoding::Thermometer { bits } | Encoding::Uniform { bits } => *bits,
            };
            let n = data.n_examples() as u64;
            let n_bits = (bits as u64).checked_mul(*n_features as u64);
            if n_bits.is_none_or(|b| b > MAX_ENCODED_BITS as u64) {
                return Err(DataError::Encode(format!(
                    "{}: encoding {encoding} of {n_features} features gives {} bits; at most {MAX_ENCODED_BITS} are supported",
                    data.name,
                    n_bits.map_or_else(|| "more than 2^64".into(), |b| b.to_string())
                )));
            }
            // Thresholds, one sorted column, and the encoded matrix of `data`.
            let need = n_bits.and_then(|b| {
                b.checked_mul(8)?
                    .checked_add(n * 8)?
                    .checked_add(b.checked_mul(n.div_ceil(LANES as u64) * 8)?)
            });
            limit.check(
                &data.name,
                &format!("encoding {encoding} ({bits} bits x {n_features} features x {n} examples)"),
                need,
            )?;
        }
        let Some((nf, values, names)) = real_parts(data)? else {
            let n = match &data.features {
                Features::Bits(m) => m.rows(),
                Features::Real { .. } => 0,
            };
            return Ok(Encoder { encoding: encoding.clone(), input: Input::Bits { n } });
        };
        let n = data.n_examples();
        if n == 0 {
            return Err(DataError::Encode(format!(
                "cannot fit an encoder on data set '{}': it has no examples",
                data.name
            )));
        }
        let column = |f: usize| (0..n).map(move |e| values[e * nf + f]);
        let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let codes = (0..nf)
            .map(|f| match encoding {
                Encoding::Threshold => {
                    let min = column(f).fold(f64::INFINITY, f64::min);
                    let max = column(f).fold(f64::NEG_INFINITY, f64::max);
                    Code::Threshold { min, max }
                }
                Encoding::Thermometer { bits } => {
                    let mut sorted: Vec<f64> = column(f).collect();
                    sorted.sort_by(f64::total_cmp);
                    let thresholds =
                        (0..*bits).map(|i| quantile(&sorted, (i + 1) as f64 / (bits + 1) as f64)).collect();
                    Code::Thermometer { thresholds }
                }
                Encoding::Uniform { bits } => {
                    let step = (hi - lo) / (bits + 1) as f64;
                    Code::Thermometer { thresholds: (1..=*bits).map(|i| lo + i as f64 * step).collect() }
                }
            })
            .collect();
        Ok(Encoder { encoding: encoding.clone(), input: Input::Real { names: names.to_vec(), codes } })
    }

    /// Checks an encoder read from a file (a hand-edited `model.json`): one name per
    /// feature, every feature coded as its encoding says (`threshold`: a finite range;
    /// `thermometer:B` / `uniform:B`: exactly `B` finite thresholds), so that
    /// [`n_bits`](Self::n_bits) is what [`fit`](Self::fit) would have produced.
    ///
    /// # Errors
    /// [`DataError::Encode`] saying which feature is wrong and what was expected.
    pub fn check(&self) -> Result<(), DataError> {
        let Input::Real { names, codes } = &self.input else { return Ok(()) };
        if names.len() != codes.len() {
            return Err(DataError::Encode(format!(
                "encoder has {} feature names for {} features",
                names.len(),
                codes.len()
            )));
        }
        let bad =
            |f: usize, what: String| DataError::Encode(format!("encoder feature {f} ({}): {what}", names[f]));
        for (f, code) in codes.iter().enumerate() {
            match (&self.encoding, code) {
                (Encoding::Threshold, Code::Threshold { min, max }) => {
                    if !(min.is_finite() && max.is_finite() && min <= max) {
                        return Err(bad(f, format!("range [{min}, {max}] is not a finite interval")));
                    }
                }
                (
                    Encoding::Thermometer { bits } | Encoding::Uniform { bits },
                    Code::Thermometer { thresholds },
                ) => {
                    if thresholds.len() != *bits {
                        return Err(bad(
                            f,
                            format!("{} thresholds, the encoding gives {bits} per feature", thresholds.len()),
                        ));
                    }
                    if let Some(t) = thresholds.iter().find(|t| !t.is_finite()) {
                        return Err(bad(f, format!("threshold {t} is not a finite number")));
                    }
                }
                (e, _) => {
                    return Err(bad(f, format!("coded for another encoding than {e:?}")));
                }
            }
        }
        Ok(())
    }

    /// The encoding this encoder was fitted with.
    #[must_use]
    pub fn encoding(&self) -> &Encoding {
        &self.encoding
    }

    /// Number of features (or input bits) the encoder expects.
    #[must_use]
    pub fn n_features(&self) -> usize {
        match &self.input {
            Input::Bits { n } => *n,
            Input::Real { codes, .. } => codes.len(),
        }
    }

    /// Number of output bits (rows of [`encode`](Self::encode)'s matrix).
    #[must_use]
    pub fn n_bits(&self) -> usize {
        match &self.input {
            Input::Bits { n } => *n,
            Input::Real { codes, .. } => codes.iter().map(Code::width).sum(),
        }
    }

    /// A readable name per output bit: `petal_length>3.95` for numeric features (the
    /// threshold rounded to 6 significant digits; `name(constant)` for a feature that was
    /// constant when fitted, whose bit is always 0), `x17` for Boolean inputs.
    #[must_use]
    pub fn bit_names(&self) -> Vec<String> {
        match &self.input {
            Input::Bits { n } => (0..*n).map(|i| format!("x{i}")).collect(),
            Input::Real { names, codes } => names
                .iter()
                .zip(codes)
                .flat_map(|(name, code)| match code {
                    #[allow(clippy::float_cmp)]
                    Code::Threshold { min, max } if max == min => vec![format!("{name}(constant)")],
                    Code::Threshold { min, max } => {
                        vec![format!("{name}>{}", short(min + (max - min) / 2.0))]
                    }
                    Code::Thermometer { thresholds } => {
                        thresholds.iter().map(|t| format!("{name}>{}", short(*t))).collect()
                    }
                })
                .collect(),
        }
    }

    /// Each output bit as `(feature, rule)` for numeric features (`None` for Boolean
    /// inputs, passed through).
    #[must_use]
    pub fn bit_rules(&self) -> Option<Vec<(usize, BitRule)>> {
        let Input::Real { codes, .. } = &self.input else { return None };
        Some(
            codes
                .iter()
                .enumerate()
                .flat_map(|(f, code)| (0..code.width()).map(move |i| (f, code.rule(i))))
                .collect(),
        )
    }

    /// The names of the numeric features (`None` for Boolean inputs).
    #[must_use]
    pub fn feature_names(&self) -> Option<&[String]> {
        match &self.input {
            Input::Real { names, .. } => Some(names),
            Input::Bits { .. } => None,
        }
    }

    /// Encodes every example of `data`: one row per bit (feature-major), one lane per example.
    ///
    /// # Errors
    /// [`DataError::Encode`] if `data` has a different kind or number of features than the
    /// data the encoder was fitted on, or its arrays disagree with its shape.
    pub fn encode(&self, data: &Dataset) -> Result<BitMatrix, DataError> {
        self.encode_within(data, &MemoryLimit::available())
    }

    /// [`encode`](Self::encode), first checking that the encoded bits fit `limit`.
    ///
    /// # Errors
    /// As [`encode`](Self::encode), and [`DataError::TooLarge`] past `limit`.
    pub fn encode_within(&self, data: &Dataset, limit: &MemoryLimit) -> Result<BitMatrix, DataError> {
        let parts = real_parts(data)?;
        if let (Input::Real { .. }, Some(_)) = (&self.input, &parts) {
            let n = data.n_examples() as u64;
            let need = (self.n_bits() as u64).checked_mul(n.div_ceil(LANES as u64) * 8);
            limit.check(&data.name, &format!("{} encoded bits x {n} examples", self.n_bits()), need)?;
        }
        match (&self.input, &data.features, parts) {
            (Input::Bits { n }, Features::Bits(m), _) if m.rows() == *n => {
                if m.examples() == data.n_examples() {
                    Ok(m.clone())
                } else {
                    Err(DataError::Encode(format!(
                        "data set '{}' is inconsistent: {} labels for {} examples of input bits",
                        data.name,
                        data.n_examples(),
                        m.examples()
                    )))
                }
            }
            (Input::Real { codes, .. }, _, Some((nf, values, _))) if nf == codes.len() => {
                let n = data.n_examples();
                let mut out = BitMatrix::zeros(self.n_bits(), n);
                let words = out.words();
                // Each feature's rows are one block of words, filled by one thread.
                let mut blocks = Vec::with_capacity(codes.len());
                let mut rest = out.words_mut();
                for code in codes {
                    let (block, tail) = rest.split_at_mut(code.width() * words);
                    blocks.push(block);
                    rest = tail;
                }
                blocks.into_par_iter().zip(codes).enumerate().for_each(|(f, (block, code))| {
                    for e in 0..n {
                        let v = values[e * nf + f];
                        for i in 0..code.width() {
                            block[i * words + e / LANES] |= u64::from(code.bit(i, v)) << (e % LANES);
                        }
                    }
                });
                Ok(out)
            }
            _ => Err(DataError::Encode(format!(
                "encoder was fitted on {}, but data set '{}' has {}",
                self.describe(),
                data.name,
                describe_features(&data.features)
            ))),
        }
    }

    fn describe(&self) -> String {
        match &self.input {
            Input::Bits { n } => format!("{n} input bits"),
            Input::Real { codes, .. } => format!("{} real features", codes.len()),
        }
    }
}

fn describe_features(f: &Features) -> String {
    match f {
        Features::Bits(m) => format!("{} input bits", m.rows()),
        Features::Real { n_features, .. } => format!("{n_features} real features"),
    }
}

/// The `q` quantile of ascending non-empty `sorted`, interpolating linearly between the
/// values at `floor(q * (n - 1))` and the next index.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    let last = sorted.len().saturating_sub(1);
    let pos = q * last as f64;
    // `pos` lies in `[0, last]`, so the truncating cast is exact on the floor.
    let lo = (pos.floor() as usize).min(last);
    let hi = (lo + 1).min(last);
    let frac = pos - lo as f64;
    sorted[lo] + (sorted[hi] - sorted[lo]) * frac
}

/// `x` rounded to 6 significant digits, without trailing zeros.
fn short(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let magnitude = x.abs().log10().floor();
    let decimals = (5.0 - magnitude).max(0.0) as usize;
    let s = format!("{x:.decimals$}");
    if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_owned() } else { s }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::data::builtin;

    fn iris() -> Dataset {
        match builtin("iris") {
            Some(Ok(d)) => d,
            _ => panic!("iris is built in"),
        }
    }

    fn real(values: Vec<f64>, n_features: usize) -> Dataset {
        let n = values.len() / n_features;
        Dataset {
            name: "t".into(),
            features: Features::Real {
                n_features,
                values,
                names: (0..n_features).map(|i| format!("f{i}")).collect(),
            },
            labels: vec![0; n],
            class_names: vec!["c".into()],
        }
    }

    /// The RDA paper: "the training set only contains 8 distinct 4-bit codes".
    #[test]
    fn iris_threshold_codes_match_rda_paper() -> Result<(), DataError> {
        let d = iris();
        let enc = Encoder::fit(&Encoding::Threshold, &d)?;
        assert_eq!(enc.n_bits(), 4);
        let bits = enc.encode(&d)?;
        let train: Vec<usize> = (0..3).flat_map(|c| c * 50..c * 50 + 25).collect();
        let codes: BTreeSet<Vec<bool>> = train.iter().map(|&e| bits.example(e)).collect();
        assert_eq!(codes.len(), 8);
        let as_bits = |s: &str| s.chars().map(|c| c == '1').collect::<Vec<bool>>();
        let expected: BTreeSet<Vec<bool>> = ["0000", "0001", "0010", "0011", "0100", "1010", "1011", "1111"]
            .iter()
            .map(|s| as_bits(s))
            .collect();
        assert_eq!(codes, expected);
        let all: BTreeSet<Vec<bool>> = (0..150).map(|e| bits.example(e)).collect();
        assert_eq!(all.len(), 9);
        assert_eq!(
            enc.bit_names(),
            vec!["sepal_length>6.1", "sepal_width>3.2", "petal_length>3.95", "petal_width>1.3"]
        );
        Ok(())
    }

    #[test]
    fn uniform_thresholds_share_the_data_range() -> Result<(), DataError> {
        // Range [0, 1] over both features: thresholds 0.25, 0.5, 0.75 for each, even for
        // feature 1, whose own values never exceed 0.3 (quantiles would crowd there).
        let d = real(vec![0.0, 0.1, 1.0, 0.3, 0.6, 0.2], 2);
        let enc = Encoder::fit(&Encoding::Uniform { bits: 3 }, &d)?;
        assert_eq!(enc.n_bits(), 6);
        assert_eq!(enc.bit_names(), vec!["f0>0.25", "f0>0.5", "f0>0.75", "f1>0.25", "f1>0.5", "f1>0.75"]);
        let m = enc.encode(&d)?;
        assert_eq!(m.example(1), vec![true, true, true, true, false, false]);
        assert_eq!(m.example(2), vec![true, true, false, false, false, false]);
        assert!(Encoder::fit(&Encoding::Uniform { bits: 0 }, &d).is_err());
        Ok(())
    }

    #[test]
    fn threshold_rule_is_exact() -> Result<(), DataError> {
        // min 0.1, max 0.7: 0.4 sits at the midpoint in exact arithmetic, but in f64
        // (0.4 - 0.1) / (0.7 - 0.1) = 0.5000000000000001 > 0.5.
        let d = real(vec![0.1, 5.0, 0.7, 5.0, 0.4, 5.0], 2);
        let enc = Encoder::fit(&Encoding::Threshold, &d)?;
        let m = enc.encode(&d)?;
        assert_eq!((m.rows(), m.examples()), (2, 3));
        let expected = (0.4f64 - 0.1) / (0.7 - 0.1) > 0.5;
        assert_eq!(m.example(2), vec![expected, false]);
        assert_eq!(m.example(1), vec![true, false]);
        assert_eq!(enc.bit_names()[1], "f1(constant)");
        Ok(())
    }

    #[test]
    fn thermometer_widths_and_order() -> Result<(), DataError> {
        let d = real((0..10).flat_map(|i| [f64::from(i), 7.0]).collect(), 2);
        let enc = Encoder::fit(&Encoding::Thermometer { bits: 3 }, &d)?;
        assert_eq!(enc.n_bits(), 6);
        // Quantiles 0.25, 0.5, 0.75 of 0..=9 interpolate to 2.25, 4.5, 6.75.
        assert_eq!(enc.bit_names(), vec!["f0>2.25", "f0>4.5", "f0>6.75", "f1>7", "f1>7", "f1>7"]);
        let m = enc.encode(&d)?;
        assert_eq!(m.example(5), vec![true, true, false, false, false, false]);
        assert_eq!(m.count_ones(0), 7);
        let digits = match builtin("digits") {
            Some(Ok(d)) => d,
            _ => panic!("digits is built in"),
        };
        let enc = Encoder::fit(&Encoding::Thermometer { bits: 4 }, &digits)?;
        assert_eq!(enc.n_bits(), 64 * 4);
        let m = enc.encode(&digits)?;
        for e in 0..digits.n_examples() {
            let ex = m.example(e);
            for pair in ex.chunks(4) {
                assert!(pair.windows(2).all(|w| w[0] || !w[1]), "thermometer code not monotone");
            }
        }
        Ok(())
    }

    #[test]
    fn bits_are_identity_and_kinds_are_checked() -> Result<(), DataError> {
        let m = BitMatrix::from_examples(3, &[[true, false, true], [false, false, true]]);
        let d = Dataset {
            name: "b".into(),
            features: Features::Bits(m.clone()),
            labels: vec![0, 1],
            class_names: vec!["0".into(), "1".into()],
        };
        let enc = Encoder::fit(&Encoding::Thermometer { bits: 5 }, &d)?;
        assert_eq!(enc.n_bits(), 3);
        assert_eq!(enc.bit_names(), vec!["x0", "x1", "x2"]);
        assert_eq!(enc.encode(&d)?, m);
        let msg = enc.encode(&iris()).err().map(|e| e.to_string());
        assert_eq!(
            msg.as_deref(),
            Some("encoder was fitted on 3 input bits, but data set 'iris' has 4 real features")
        );
        let iris_enc = Encoder::fit(&Encoding::Threshold, &iris())?;
        let msg = iris_enc.encode(&real(vec![1.0; 6], 2)).err().map(|e| e.to_string());
        assert_eq!(
            msg.as_deref(),
            Some("encoder was fitted on 4 real features, but data set 't' has 2 real features")
        );
        assert!(Encoder::fit(&Encoding::Thermometer { bits: 0 }, &iris()).is_err());
        assert!(Encoder::fit(&Encoding::Threshold, &real(vec![], 2)).is_err());
        Ok(())
    }

    #[test]
    fn fit_on_subset_and_json_roundtrip() -> Result<(), Box<dyn std::error::Error>> {
        let d = iris();
        let train = d.subset(&(0..150).step_by(2).collect::<Vec<_>>());
        let enc = Encoder::fit(&Encoding::Thermometer { bits: 2 }, &train)?;
        // Exact f64 round trips need serde_json's `float_roundtrip` feature.
        let json = serde_json::to_string(&enc)?;
        let back: Encoder = serde_json::from_str(&json)?;
        assert_eq!(back, enc);
        assert_eq!(back.encode(&d)?, enc.encode(&d)?);
        Ok(())
    }

    /// Huge thermometer and uniform widths are refused before any threshold is stored:
    /// beyond the widest model's inputs, or beyond the memory limit.
    #[test]
    fn huge_encodings_are_refused_before_allocation() {
        let d = iris();
        for bits in [4_294_967_296, usize::MAX, 100_000_000] {
            let e = Encoder::fit(&Encoding::Uniform { bits }, &d)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            assert!(e.starts_with(&format!("iris: encoding uniform:{bits} of 4 features gives ")), "{e}");
        }
        let e = Encoder::fit_within(&Encoding::Thermometer { bits: 1000 }, &d, &MemoryLimit::bytes(1 << 10))
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert_eq!(
            e,
            "iris: encoding thermometer:1000 (1000 bits x 4 features x 150 examples) would take 126.2 KiB, \
             more than the 1.0 KiB --max-memory limit"
        );
        let enc = Encoder::fit(&Encoding::Thermometer { bits: 1000 }, &d).unwrap();
        assert!(enc.encode_within(&d, &MemoryLimit::bytes(1 << 10)).is_err());
        assert!(enc.encode_within(&d, &MemoryLimit::bytes(1 << 20)).is_ok());
    }

    #[test]
    fn short_numbers() {
        assert_eq!(short(1065.0), "1065");
        assert_eq!(short(0.006_193), "0.006193");
        assert_eq!(short(3.949_999_999_999_999_7), "3.95");
        assert_eq!(short(-2.5), "-2.5");
        assert_eq!(short(0.0), "0");
    }
}

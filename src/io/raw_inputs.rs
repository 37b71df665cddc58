//! Raw feature values into an exported classifier: the encoder's comparisons as
//! fixed-point comparators, so a hardware engineer feeds sensor or register values
//! instead of encoded bits.
//!
//! Feature `f` arrives as a `W`-bit two's-complement number `k` with `F` fractional bits
//! (value `k / 2^F`) in `x[f*W +: W]`. An encoded bit `v > t` becomes `k > floor(t 2^F)`,
//! which for integer `k` is exactly `k / 2^F > t`; constants beyond the range fold to 0
//! or 1. The same comparators are built as a Boolean circuit ([`RawInputs::circuit`]),
//! which testbenches simulate, and written as a readable Verilog wrapper
//! ([`RawInputs::write_wrapper`]) around the classifier module.

use super::verilog::{VerilogParams, module_name};
use crate::circuit::{Circuit, CircuitBuilder, WireId};
use crate::data::{BitRule, Encoder};
use crate::domain::Bool;
use crate::lanes::BitMatrix;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::io::{self, Write};
use thiserror::Error;

/// A fixed-point format: `width` bits, two's complement, `frac` of them fractional.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FixedPoint {
    /// Total bits, 2 to 62.
    pub width: u32,
    /// Fractional bits, less than `width`.
    pub frac: u32,
}

/// Raw inputs that cannot be made.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum RawInputError {
    /// A format that is not `W.F` with `2 <= W <= 62`, `F < W`.
    #[error(
        "bad fixed-point format '{0}': expected W.F (total and fractional bits), 2 <= W <= 62, F < W, e.g. 16.8"
    )]
    Format(String),
    /// A model that reads bits, not numeric features.
    #[error("the model reads input bits, not numeric features: there are no raw values to compare")]
    NotNumeric,
}

impl std::str::FromStr for FixedPoint {
    type Err = RawInputError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || RawInputError::Format(s.to_owned());
        let (w, f) = s.split_once('.').ok_or_else(bad)?;
        let (width, frac): (u32, u32) = (w.parse().map_err(|_| bad())?, f.parse().map_err(|_| bad())?);
        if !(2..=62).contains(&width) || frac >= width {
            return Err(bad());
        }
        Ok(Self { width, frac })
    }
}

impl std::fmt::Display for FixedPoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.width, self.frac)
    }
}

impl FixedPoint {
    fn min(self) -> i64 {
        -(1i64 << (self.width - 1))
    }

    fn max(self) -> i64 {
        (1i64 << (self.width - 1)) - 1
    }

    /// The nearest representable number to `v` (saturating at the range's ends).
    #[must_use]
    pub fn quantize(self, v: f64) -> i64 {
        let k = (v * (2f64).powi(self.frac as i32)).round();
        if k.is_nan() { 0 } else { (k.max(self.min() as f64).min(self.max() as f64)) as i64 }
    }

    /// The value of the number `k`.
    #[must_use]
    pub fn value(self, k: i64) -> f64 {
        k as f64 / (2f64).powi(self.frac as i32)
    }
}

/// What one encoded bit computes from its feature's number `k`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Comparison {
    /// A constant (the threshold lies beyond the format's range, or the bit never fires).
    Const(bool),
    /// `k > c` (signed).
    Greater(i64),
}

/// The comparators of every encoded bit of a model, in one fixed-point format.
#[derive(Clone, Debug, PartialEq)]
pub struct RawInputs {
    /// The format of every feature.
    pub format: FixedPoint,
    /// Number of features.
    pub n_features: usize,
    /// Per encoded bit: its feature and comparison.
    pub bits: Vec<(usize, Comparison)>,
    /// Per encoded bit: the encoder's rule, for comments.
    rules: Vec<BitRule>,
}

impl RawInputs {
    /// The comparators of `encoder`'s bits for features in `format`.
    ///
    /// # Errors
    /// [`RawInputError::NotNumeric`] for an encoder of Boolean inputs.
    pub fn new(encoder: &Encoder, format: FixedPoint) -> Result<Self, RawInputError> {
        let rules = encoder.bit_rules().ok_or(RawInputError::NotNumeric)?;
        let scale = (2f64).powi(format.frac as i32);
        let bits = rules
            .iter()
            .map(|&(f, rule)| {
                let cmp = match rule.threshold() {
                    None => Comparison::Const(false),
                    Some(t) => {
                        let c = (t * scale).floor();
                        if c.is_nan() || c >= format.max() as f64 {
                            Comparison::Const(false)
                        } else if c < format.min() as f64 {
                            Comparison::Const(true)
                        } else {
                            Comparison::Greater(c as i64)
                        }
                    }
                };
                (f, cmp)
            })
            .collect();
        Ok(Self {
            format,
            n_features: encoder.n_features(),
            bits,
            rules: rules.into_iter().map(|r| r.1).collect(),
        })
    }

    /// Input bits of the raw module: `n_features * width`.
    #[must_use]
    pub fn n_inputs(&self) -> usize {
        self.n_features * self.format.width as usize
    }

    /// The comparators as a circuit from the raw inputs to the encoded bits.
    ///
    /// # Panics
    /// Never for a value built by [`RawInputs::new`] (the circuit is well formed by
    /// construction).
    #[must_use]
    pub fn circuit(&self) -> Circuit<Bool> {
        let w = self.format.width as usize;
        let mut b = CircuitBuilder::<Bool>::new(0, self.n_inputs());
        let (zero, one) = (b.gate(Bool::Const(false), &[]), b.gate(Bool::Const(true), &[]));
        let mut outs = Vec::with_capacity(self.bits.len());
        for &(f, cmp) in &self.bits {
            let out = match cmp {
                Comparison::Const(v) => {
                    if v {
                        one
                    } else {
                        zero
                    }
                }
                Comparison::Greater(c) => {
                    // Signed k > c is unsigned (k ^ 2^(W-1)) > (c ^ 2^(W-1)); from the
                    // least significant bit, gt = u & gt where the constant has a 1,
                    // u | gt where it has a 0.
                    let biased = (c - self.format.min()) as u64;
                    let mut gt: Option<WireId> = None;
                    for i in 0..w {
                        let mut u = b.arg(f * w + i);
                        if i == w - 1 {
                            u = b.gate(Bool::Not, &[u]);
                        }
                        gt = match (biased >> i & 1 == 1, gt) {
                            (true, None) => None,
                            (true, Some(g)) => Some(b.gate(Bool::And, &[u, g])),
                            (false, None) => Some(u),
                            (false, Some(g)) => Some(b.gate(Bool::Or, &[u, g])),
                        };
                    }
                    gt.unwrap_or(zero)
                }
            };
            outs.push(out);
        }
        b.finish(outs).expect("comparators are a well-formed circuit")
    }

    /// Writes the wrapper module `name`: raw features in `x`, the comparisons, and the
    /// classifier module `core` instantiated on them (with the clock, enable and valid
    /// ports of `p` passed through).
    ///
    /// # Errors
    /// Any error of the underlying writer.
    pub fn write_wrapper(
        &self,
        name: &str,
        core: &str,
        n_outputs: usize,
        feature_names: &[String],
        p: &VerilogParams,
        w: &mut dyn Write,
    ) -> io::Result<()> {
        let (fw, fp) = (self.format.width, self.format);
        let (name, core) = (module_name(name), module_name(core));
        writeln!(w, "// Raw-feature wrapper of {core}: feature f is x[f*{fw} +: {fw}], two's complement")?;
        writeln!(
            w,
            "// with {} fractional bits (value = x / 2^{}); each encoded bit compares one feature",
            fp.frac, fp.frac
        )?;
        writeln!(
            w,
            "// with floor(threshold * 2^{}), which is exact for every representable value.",
            fp.frac
        )?;
        let valid = p.valid && p.pipeline > 0;
        let mut ports = Vec::new();
        if p.pipeline > 0 {
            ports.push("  input wire clk".to_owned());
        }
        if valid {
            ports.push("  input wire en".to_owned());
            ports.push("  input wire valid_in".to_owned());
        }
        ports.push(format!("  input wire [{}:0] x", self.n_inputs() - 1));
        ports.push(format!("  output wire [{}:0] y", n_outputs.max(1) - 1));
        if valid {
            ports.push("  output wire valid_out".to_owned());
        }
        writeln!(w, "module {name} (\n{}\n);", ports.join(",\n"))?;
        for f in 0..self.n_features {
            let fname = feature_names.get(f).map_or(String::new(), |n| format!(" // {n}"));
            writeln!(
                w,
                "  wire signed [{}:0] f{f} = x[{}:{}];{fname}",
                fw - 1,
                (f + 1) * fw as usize - 1,
                f * fw as usize
            )?;
        }
        writeln!(w, "  wire [{}:0] b;", self.bits.len().max(1) - 1)?;
        for (i, (&(f, cmp), rule)) in self.bits.iter().zip(&self.rules).enumerate() {
            let why = match rule.threshold() {
                Some(t) => format!(" // > {t}"),
                None => String::new(),
            };
            match cmp {
                Comparison::Const(v) => writeln!(w, "  assign b[{i}] = 1'b{};{why}", u8::from(v))?,
                Comparison::Greater(c) => {
                    let bits = (c as u64) & ((1u64 << fw) - 1);
                    writeln!(w, "  assign b[{i}] = f{f} > {fw}'sh{bits:x};{why}")?;
                }
            }
        }
        let mut conns = Vec::new();
        if p.pipeline > 0 {
            conns.push(".clk(clk)".to_owned());
        }
        if valid {
            conns.push(".en(en)".to_owned());
            conns.push(".valid_in(valid_in)".to_owned());
        }
        conns.push(".x(b)".to_owned());
        conns.push(".y(y)".to_owned());
        if valid {
            conns.push(".valid_out(valid_out)".to_owned());
        }
        writeln!(w, "  {core} core ({});", conns.join(", "))?;
        writeln!(w, "endmodule")
    }

    /// `count` raw input vectors, each feature drawn uniformly (from `seed`) over its
    /// thresholds' span widened by a quarter on each side, so that every comparison is
    /// seen both ways.
    #[must_use]
    pub fn random_vectors(&self, count: usize, seed: u64) -> BitMatrix {
        let w = self.format.width as usize;
        let mut span: Vec<Option<(i64, i64)>> = vec![None; self.n_features];
        for &(f, cmp) in &self.bits {
            if let Comparison::Greater(c) = cmp {
                let s = span[f].get_or_insert((c, c));
                *s = (s.0.min(c), s.1.max(c));
            }
        }
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut m = BitMatrix::zeros(self.n_inputs(), count);
        for (f, s) in span.iter().enumerate() {
            let (lo, hi) = s.unwrap_or((0, 0));
            let margin = ((hi - lo) / 4).max(2);
            let (lo, hi) = ((lo - margin).max(self.format.min()), (hi + margin).min(self.format.max()));
            for e in 0..count {
                let k = rng.random_range(lo..=hi) as u64;
                for i in 0..w {
                    if k >> i & 1 == 1 {
                        m.set(f * w + i, e, true);
                    }
                }
            }
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{Encoding, builtin};
    use crate::lanes::{EvalParams, eval_lanes};

    #[test]
    fn formats_parse_and_refuse() {
        assert_eq!("16.8".parse::<FixedPoint>(), Ok(FixedPoint { width: 16, frac: 8 }));
        for bad in ["16", "8.8", "1.0", "63.2", "a.b", "16.-1"] {
            assert!(bad.parse::<FixedPoint>().is_err(), "{bad}");
        }
    }

    /// The comparator circuit computes exactly the encoder's bits of every representable
    /// value near the thresholds, for every iris feature.
    #[test]
    fn comparators_equal_the_encoder_on_representable_values() -> Result<(), Box<dyn std::error::Error>> {
        let iris = builtin("iris").ok_or("iris")??;
        for encoding in
            [Encoding::Thermometer { bits: 8 }, Encoding::Threshold, Encoding::Uniform { bits: 5 }]
        {
            let enc = Encoder::fit(&encoding, &iris)?;
            for format in [FixedPoint { width: 12, frac: 6 }, FixedPoint { width: 5, frac: 1 }] {
                let raw = RawInputs::new(&enc, format)?;
                let x = raw.random_vectors(2000, 3);
                let got = eval_lanes(&raw.circuit(), &x, &EvalParams::default());
                let rules = enc.bit_rules().ok_or("numeric")?;
                let w = format.width as usize;
                for e in 0..x.examples() {
                    for (i, &(f, rule)) in rules.iter().enumerate() {
                        let mut k = (0..w).fold(0i64, |k, b| k | i64::from(x.get(f * w + b, e)) << b);
                        if k >> (w - 1) & 1 == 1 {
                            k -= 1 << w;
                        }
                        assert_eq!(
                            got.get(i, e),
                            rule.holds(format.value(k)),
                            "{encoding} {format} bit {i} k {k}"
                        );
                    }
                }
            }
        }
        Ok(())
    }

    #[test]
    fn boolean_inputs_have_no_raw_form() -> Result<(), Box<dyn std::error::Error>> {
        let pla = crate::data::parse_pla(".i 2\n.o 1\n10 1\n01 0\n.e\n", "t")?;
        let enc = Encoder::fit(&Encoding::Threshold, &pla)?;
        assert_eq!(RawInputs::new(&enc, FixedPoint { width: 8, frac: 2 }), Err(RawInputError::NotNumeric));
        Ok(())
    }
}

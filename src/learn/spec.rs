//! Model specifications: `"lut:6:64x1,groupsum:3"`, `"table,onehot"`, `"pseudolinear"`.
//!
//! A spec is a body and an optional head separated by a comma.
//! - `table`: one lookup table from all input bits to each label bit (the RDA paper's Iris model).
//! - `pseudolinear`: per label bit `[popcount(p & x) <= popcount(p) div 4]` (the RDA paper's MNIST model).
//! - `lut:K:WxD`: `D` layers of `W` learned `K`-input LUTs, wiring drawn from the seed;
//!   `lut:K:WxD:O` makes the last of them `O` wide (a narrow output layer keeps the
//!   `groupsum` popcount small in hardware), `lut:K:F/WxD` the first of them `F` wide
//!   (the layer that reads the inputs), both with `lut:K:F/WxD:O` (`D` >= 3: with 2 no
//!   layer would be `W` wide, and the spec is refused); `lut:K1/K:...` gives the first
//!   layer `K1`-input LUTs and the others `K`-input ones (wide LUTs where the network
//!   reads its inputs, e.g. `lut:6/4:6000x2:1000` for LUT6-counted FPGA targets).
//! - heads: `binary` (label bits are the class index in binary; the default), `onehot`
//!   (one bit per class), `groupsum:C` (outputs split into `C` groups; class = group with
//!   the most ones), `cascade:C:S1+S2+...` (two networks' votes, a first network's over
//!   all `C` classes and a specialist's over the classes `S`; `train --specialist` makes
//!   it, see [`Head::Cascade`]).

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;
use thiserror::Error;

/// The structure before the head.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Body {
    /// One `n`-input lookup table per label bit.
    Table,
    /// `[popcount(p & x) <= popcount(p) div 4]` per label bit.
    PseudoLinear,
    /// `depth` layers of `width` `k`-input LUTs.
    Lut {
        /// Inputs per LUT.
        k: u8,
        /// Inputs per LUT of the first layer, if not `k`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        first_k: Option<u8>,
        /// Width of the first layer, if not `width` (then `depth >= 2`).
        first: Option<usize>,
        /// LUTs per layer.
        width: usize,
        /// Layers.
        depth: usize,
        /// Width of the last layer, if not `width`.
        last: Option<usize>,
    },
}

impl Body {
    /// A `lut` body's layers as runs of equal layers `(count, width)`, first to last (the
    /// head may widen the last one); `None` for other bodies.
    #[must_use]
    pub fn lut_runs(&self) -> Option<[(usize, usize); 3]> {
        match *self {
            Self::Lut { first, width, depth, last, .. } => {
                let inner = depth - 1 - usize::from(first.is_some());
                Some([
                    (usize::from(first.is_some()), first.unwrap_or(0)),
                    (inner, width),
                    (1, last.unwrap_or(width)),
                ])
            }
            _ => None,
        }
    }
}

/// How output bits are read as a class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Head {
    /// The class index in binary.
    Binary,
    /// One bit per class; correct only on an exact match.
    OneHot,
    /// `C` groups of outputs; the class is the group with the most ones.
    GroupSum(usize),
    /// Two networks' votes: the first half of the outputs in `classes` groups (a first
    /// network's), the second in one group per class of `set` (a specialist's, lowest
    /// class first). The class is the first network's (its fullest group), unless that
    /// is in `set`: then it is the class of `set` with the most votes of both networks
    /// together. Lowest class on ties, as everywhere.
    Cascade {
        /// Classes of the first network.
        classes: usize,
        /// The specialist's classes, one bit each (bit `c` for class `c`).
        set: u64,
    },
}

/// The most classes a [`Head::Cascade`] has (its set is a 64-bit mask).
pub const MAX_CASCADE_CLASSES: usize = 64;

impl Head {
    /// A cascade head over `classes` classes whose specialist has the classes `set`.
    ///
    /// # Errors
    /// Why the set does not fit: a class outside `0..classes`, fewer than two classes or
    /// all of them, or more than 64 classes (its set is a 64-bit mask).
    pub fn cascade(classes: usize, set: &[u32]) -> Result<Self, String> {
        if classes > MAX_CASCADE_CLASSES {
            return Err(format!("a cascade has at most {MAX_CASCADE_CLASSES} classes, not {classes}"));
        }
        let mut mask = 0u64;
        for &c in set {
            if c as usize >= classes {
                return Err(format!("class {c} is not one of the {classes} classes (0 to {})", classes - 1));
            }
            if mask >> c & 1 == 1 {
                return Err(format!("class {c} is named twice"));
            }
            mask |= 1 << c;
        }
        let n = mask.count_ones() as usize;
        if n < 2 || n >= classes {
            return Err(format!(
                "a specialist needs at least 2 of the {classes} classes and not all of them, got {n}"
            ));
        }
        Ok(Self::Cascade { classes, set: mask })
    }

    /// A cascade head's specialist classes, lowest first (empty for other heads).
    #[must_use]
    pub fn specialist_classes(self) -> Vec<u32> {
        match self {
            Self::Cascade { set, .. } => (0..64).filter(|c| set >> c & 1 == 1).collect(),
            _ => Vec::new(),
        }
    }
}

/// A parsed model specification.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelSpec {
    /// The body.
    pub body: Body,
    /// The head.
    pub head: Head,
}

/// A model specification that does not parse.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error(
    "bad model spec '{spec}': {why} (examples: lut:6:64x1,groupsum:3  table,onehot  pseudolinear; relaxed: gates:1000x2)"
)]
pub struct SpecError {
    /// The text given.
    pub spec: String,
    /// What was wrong.
    pub why: String,
}

impl FromStr for ModelSpec {
    type Err = SpecError;

    fn from_str(s: &str) -> Result<Self, SpecError> {
        let err = |why: &str| SpecError { spec: s.to_string(), why: why.to_string() };
        let mut parts = s.split(',').map(str::trim);
        let body_text = parts.next().unwrap_or("");
        let body = parse_body(body_text).map_err(|w| err(&w))?;
        let head = match parts.next() {
            None => Head::Binary,
            Some(h) => parse_head(h).map_err(|w| err(&w))?,
        };
        if parts.next().is_some() {
            return Err(err("expected at most one head after the body"));
        }
        Ok(Self { body, head })
    }
}

fn parse_body(t: &str) -> Result<Body, String> {
    let fields: Vec<&str> = t.split(':').collect();
    match fields.as_slice() {
        ["table"] => Ok(Body::Table),
        ["pseudolinear"] => Ok(Body::PseudoLinear),
        ["lut", k, shape] | ["lut", k, shape, _] => {
            let lut_size = |k: &str| -> Result<u8, String> {
                let k: u8 = k.parse().map_err(|_| format!("LUT size '{k}' is not a number"))?;
                if !(1..=crate::domain::boolean::MAX_LUT_INPUTS).contains(&k) {
                    return Err(format!("LUT size {k} is outside 1..=12"));
                }
                Ok(k)
            };
            let (first_k, k) = match k.split_once('/') {
                None => (None, lut_size(k)?),
                Some((fk, k)) => (Some(lut_size(fk)?), lut_size(k)?),
            };
            // The same size twice is the plain spec.
            let first_k = first_k.filter(|&fk| fk != k);
            let (first, shape) = match shape.split_once('/') {
                None => (None, *shape),
                Some((f, rest)) => match f.parse::<usize>() {
                    Ok(f) if f >= 1 => (Some(f), rest),
                    _ => return Err(format!("first-layer width '{f}' is not a number >= 1")),
                },
            };
            let (w, d) = shape.split_once('x').ok_or("shape must be WIDTHxDEPTH, e.g. 64x2")?;
            let width: usize = w.parse().map_err(|_| format!("width '{w}' is not a number"))?;
            let depth: usize = d.parse().map_err(|_| format!("depth '{d}' is not a number"))?;
            if width == 0 || depth == 0 {
                return Err("width and depth must be at least 1".into());
            }
            if first.is_some() && depth < 2 {
                return Err(
                    "a first-layer width F/WxD needs depth 2 or more (else write F as the width)".into()
                );
            }
            let last = match fields.get(3) {
                None => None,
                Some(o) => match o.parse::<usize>() {
                    Ok(o) if o >= 1 => Some(o),
                    _ => return Err(format!("last-layer width '{o}' is not a number >= 1")),
                },
            };
            if let (Some(fk), 1) = (first_k, depth) {
                return Err(format!(
                    "a first-layer LUT size K1/K needs depth 2 or more (else write lut:{fk}:...)"
                ));
            }
            if let (Some(f), Some(o), 2) = (first, last, depth) {
                return Err(format!(
                    "in F/WxD:O with depth 2 no layer is {width} wide (the first is F, the last O): \
                     write lut:{k}:{f}x2:{o}"
                ));
            }
            Ok(Body::Lut { k, first_k, first, width, depth, last })
        }
        _ => Err(format!("unknown body '{t}'; expected table, pseudolinear or lut:[K1/]K:[F/]WxD[:O]")),
    }
}

fn parse_head(t: &str) -> Result<Head, String> {
    match t.split_once(':') {
        None if t == "binary" => Ok(Head::Binary),
        None if t == "onehot" => Ok(Head::OneHot),
        Some(("groupsum", c)) => {
            let c: usize = c.parse().map_err(|_| format!("class count '{c}' is not a number"))?;
            if c < 2 {
                return Err("groupsum needs at least 2 classes".into());
            }
            Ok(Head::GroupSum(c))
        }
        Some(("cascade", rest)) => {
            let (c, set) = rest.split_once(':').ok_or("a cascade head is cascade:C:S1+S2+...")?;
            let c: usize = c.parse().map_err(|_| format!("class count '{c}' is not a number"))?;
            let set = set
                .split('+')
                .map(|s| s.parse::<u32>().map_err(|_| format!("specialist class '{s}' is not a number")))
                .collect::<Result<Vec<u32>, String>>()?;
            Head::cascade(c, &set)
        }
        _ => Err(format!("unknown head '{t}'; expected binary, onehot, groupsum:C or cascade:C:S1+S2+...")),
    }
}

impl fmt::Display for ModelSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.body {
            Body::Table => write!(f, "table")?,
            Body::PseudoLinear => write!(f, "pseudolinear")?,
            Body::Lut { k, first_k, first, width, depth, last } => {
                write!(f, "lut:")?;
                if let Some(fk) = first_k {
                    write!(f, "{fk}/")?;
                }
                write!(f, "{k}:")?;
                if let Some(w) = first {
                    write!(f, "{w}/")?;
                }
                write!(f, "{width}x{depth}")?;
                if let Some(o) = last {
                    write!(f, ":{o}")?;
                }
            }
        }
        match self.head {
            Head::Binary => write!(f, ",binary"),
            Head::OneHot => write!(f, ",onehot"),
            Head::GroupSum(c) => write!(f, ",groupsum:{c}"),
            Head::Cascade { classes, .. } => {
                let set: Vec<String> = self.head.specialist_classes().iter().map(u32::to_string).collect();
                write!(f, ",cascade:{classes}:{}", set.join("+"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_round_trip() {
        for s in [
            "lut:6:64x2,groupsum:3",
            "lut:2:64x3:30,groupsum:3",
            "lut:4:128/64x3:30,groupsum:3",
            "lut:4:128/64x2,binary",
            "lut:6/4:6000x2:1000,groupsum:10",
            "lut:4:12000x2:2000,cascade:10:0+2+4+6",
            "lut:3/2:9/5x3:6,onehot",
            "table,onehot",
            "pseudolinear,binary",
        ] {
            let m: ModelSpec = s.parse().unwrap();
            assert_eq!(m.to_string(), s);
        }
        assert_eq!("table".parse::<ModelSpec>().unwrap().head, Head::Binary);
        let runs = |s: &str| s.parse::<ModelSpec>().unwrap().body.lut_runs();
        assert_eq!(runs("lut:4:6000/3000x3:1000"), Some([(1, 6000), (1, 3000), (1, 1000)]));
        assert_eq!(runs("lut:4:3000x3:1000"), Some([(0, 0), (2, 3000), (1, 1000)]));
        assert_eq!(runs("lut:4:9/5x2"), Some([(1, 9), (0, 5), (1, 5)]));
        assert_eq!(runs("table"), None);
        let first_k = |s: &str| match s.parse::<ModelSpec>().unwrap().body {
            Body::Lut { k, first_k, .. } => (first_k, k),
            b => panic!("{b:?}"),
        };
        assert_eq!(first_k("lut:6/4:6000x2:1000"), (Some(6), 4));
        assert_eq!(first_k("lut:4/4:6000x2:1000"), (None, 4), "the same size twice is the plain spec");
        assert_eq!("lut:4/4:8x2".parse::<ModelSpec>().unwrap().to_string(), "lut:4:8x2,binary");
    }

    #[test]
    fn rejects_bad_specs_with_reasons() {
        for (s, why) in [
            ("lut:6:64", "WIDTHxDEPTH"),
            ("lut:0:4x1", "outside"),
            ("lut:13/4:4x2", "outside"),
            ("lut:6/x:4x2", "not a number"),
            ("lut:6/4:4x1", "write lut:6:"),
            ("lut:2:4x2:0", "last-layer width"),
            ("lut:2:0/4x2", "first-layer width"),
            ("lut:2:8/4x1", "depth 2 or more"),
            ("lut:4:6000/3000x2:1000", "write lut:4:6000x2:1000"),
            ("mlp", "unknown body"),
            ("table,groupsum:1", "at least 2"),
            ("table,foo", "unknown head"),
            ("lut:2:4x1,cascade:10", "cascade:C:S1+S2"),
            ("lut:2:4x1,cascade:10:0+10", "not one of the 10"),
            ("lut:2:4x1,cascade:10:3", "at least 2"),
            ("lut:2:4x1,cascade:3:0+1+2", "not all"),
            ("lut:2:4x1,cascade:10:1+1", "twice"),
            ("lut:2:4x1,cascade:10:1+x", "not a number"),
        ] {
            let e = s.parse::<ModelSpec>().unwrap_err();
            assert!(e.to_string().contains(why), "{e}");
        }
    }
}

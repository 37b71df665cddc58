//! `Network`: a model spec made concrete as a parametrised Boolean circuit `P x A -> B`
//! for a given input width and class count.

use super::head::binary_width;
use super::spec::{Body, Head, ModelSpec};
use super::vote_weights::VoteWeights;
use crate::circuit::{Circuit, CircuitBuilder, WireId};
use crate::domain::arith::{less_equal, popcount};
use crate::domain::{Bool, BoolBuild};
use crate::domain::{LutLayer, LutLayers};
use crate::lanes::{BitMatrix, LANES};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use thiserror::Error;

/// Largest input count the `table` model accepts (its table has `2^n` entries per bit).
pub const MAX_TABLE_INPUTS: usize = 16;

/// Most input bits a network may have (a model file's `n_inputs` is not backed by data,
/// and the wiring draws from a pool of every input).
pub const MAX_INPUT_BITS: usize = 1 << 24;

/// Most parameters a network may have (a spec or model file asking for more is refused
/// before anything is allocated).
pub const MAX_PARAMS: usize = 1 << 30;

/// Why a spec cannot be built for the data at hand.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ModelError {
    /// The spec text is malformed.
    #[error(transparent)]
    Spec(#[from] super::spec::SpecError),
    /// A `table` over too many inputs.
    #[error(
        "table model over {inputs} input bits needs 2^{inputs} entries per label bit; at most {MAX_TABLE_INPUTS} inputs are allowed (use lut:K:WxD)"
    )]
    TableTooWide {
        /// Input bits of the data.
        inputs: usize,
    },
    /// `groupsum:C` with `C` different from the data's class count.
    #[error("head groupsum:{head} does not match the data's {data} classes")]
    ClassMismatch {
        /// Classes named by the head.
        head: usize,
        /// Classes in the data.
        data: usize,
    },
    /// Data with no input bits.
    #[error("the data has no input bits")]
    NoInputs,
    /// More input bits than [`MAX_INPUT_BITS`].
    #[error("{inputs} input bits; at most {MAX_INPUT_BITS} are supported")]
    TooManyInputs {
        /// Input bits asked for.
        inputs: usize,
    },
    /// Learned wiring that does not fit the spec's LUT layers.
    #[error("learned wiring of layer {layer}: {why}")]
    Wiring {
        /// Layer (0 = the one reading the inputs).
        layer: usize,
        /// What is wrong.
        why: String,
    },
    /// Image locality asked of input bits that are not whole pixels of the image.
    #[error("{inputs} input bits are not a whole number of bits per pixel of {width}x{height} images")]
    NotAnImage {
        /// Input bits of the data.
        inputs: usize,
        /// Pixels per row.
        width: usize,
        /// Rows.
        height: usize,
    },
    /// More parameters than [`MAX_PARAMS`].
    #[error("model {spec} over {inputs} input bits needs more than {MAX_PARAMS} parameters")]
    TooLarge {
        /// The spec.
        spec: String,
        /// Input bits of the data.
        inputs: usize,
    },
}

/// A concrete parametrised circuit with its head.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Network {
    /// The spec it was built from.
    pub spec: ModelSpec,
    /// `P x A -> B`: parameters (LUT tables / masks), input bits, label bits.
    pub circuit: Circuit<Bool>,
    /// Number of classes.
    pub n_classes: usize,
    /// The layers `circuit` was built from, for LUT bodies (`None` for `table`,
    /// `pseudolinear` and circuits built by hand).
    pub layers: Option<LutLayers>,
    /// Weights on a `groupsum` head's votes, fitted after training (`None`: every
    /// output's vote counts one).
    pub vote_weights: Option<VoteWeights>,
}

impl Network {
    /// Builds `spec` for `n_inputs` input bits and `n_classes` classes; LUT wiring is drawn
    /// from `seed`.
    ///
    /// # Errors
    /// [`ModelError`] if the spec does not fit the data.
    pub fn build(spec: ModelSpec, n_inputs: usize, n_classes: usize, seed: u64) -> Result<Self, ModelError> {
        Self::build_with_wiring(spec, n_inputs, n_classes, seed, &[])
    }

    /// [`build`](Self::build), except that each non-empty `learned[l]` replaces the seeded
    /// wiring of LUT layer `l`: `k` source indices per LUT, LUT by LUT (address bit `i` of
    /// LUT `j` reads `learned[l][j * k + i]` of the previous layer or the inputs). Relaxed
    /// training with learned input choice ([`RelaxedNet`](crate::RelaxedNet)) produces these.
    ///
    /// # Errors
    /// [`ModelError`] if the spec does not fit the data or the wiring does not fit the spec.
    pub fn build_with_wiring(
        spec: ModelSpec,
        n_inputs: usize,
        n_classes: usize,
        seed: u64,
        learned: &[Vec<u32>],
    ) -> Result<Self, ModelError> {
        if n_inputs == 0 {
            return Err(ModelError::NoInputs);
        }
        if let Head::GroupSum(c) | Head::Cascade { classes: c, .. } = spec.head
            && c != n_classes
        {
            return Err(ModelError::ClassMismatch { head: c, data: n_classes });
        }
        if matches!(spec.head, Head::Cascade { .. }) && !matches!(spec.body, Body::Lut { .. }) {
            return Err(ModelError::Wiring {
                layer: 0,
                why: format!("{spec}: a cascade head reads LUT layers"),
            });
        }
        if n_inputs > MAX_INPUT_BITS {
            return Err(ModelError::TooManyInputs { inputs: n_inputs });
        }
        if param_count(spec, n_inputs, n_classes).is_none_or(|p| p > MAX_PARAMS) {
            return Err(ModelError::TooLarge { spec: spec.to_string(), inputs: n_inputs });
        }
        let (circuit, layers) = match spec.body {
            Body::Table => (table(n_inputs, spec.head.n_outputs(n_classes, n_classes))?, None),
            Body::PseudoLinear => (pseudolinear(n_inputs, spec.head.n_outputs(n_classes, n_classes)), None),
            Body::Lut { k, first_k, .. } => {
                let runs = spec.body.lut_runs().expect("a lut body");
                let widths = runs.iter().flat_map(|&(count, w)| std::iter::repeat_n(w, count)).collect();
                let ks = (first_k.unwrap_or(k), k);
                let layers = lut_layers(n_inputs, ks, widths, spec.head, n_classes, seed, learned)?;
                (layers.circuit(), Some(layers))
            }
        };
        if !matches!(spec.body, Body::Lut { .. }) && learned.iter().any(|l| !l.is_empty()) {
            return Err(ModelError::Wiring { layer: 0, why: format!("model {spec} has no LUT layers") });
        }
        Ok(Self { spec, circuit, n_classes, layers, vote_weights: None })
    }

    /// Number of parameters.
    #[must_use]
    pub fn n_params(&self) -> usize {
        self.circuit.n_params()
    }

    /// The whole classifier `P x A -> index`: the body followed by the head's circuit
    /// (group popcounts and argmax, ...), whose outputs are the predicted class index in
    /// binary ([`class_of_index`](crate::class_of_index) decodes it). This is what `train`
    /// counts AND nodes of and what exports write.
    ///
    /// # Panics
    /// Never for a network made by [`Network::build`] (the head fits the body).
    #[must_use]
    pub fn classifier(&self) -> Circuit<Bool> {
        let head = match &self.vote_weights {
            Some(v) => v.to_circuit(),
            None => self.spec.head.to_circuit(self.circuit.n_outputs(), self.n_classes),
        };
        self.circuit.then(&head).expect("the head reads every body output")
    }

    /// Target output bits for the given labels (one row per output): each class's lanes
    /// are gathered once and OR-ed into the rows whose target is 1 for that class.
    #[must_use]
    pub fn targets(&self, labels: &[u32]) -> BitMatrix {
        let n_out = self.circuit.n_outputs();
        let mut t = BitMatrix::zeros(n_out, labels.len());
        let mut by_class: Vec<(u32, usize)> = labels.iter().enumerate().map(|(e, &l)| (l, e)).collect();
        by_class.sort_unstable();
        let mut lanes: Vec<(usize, u64)> = Vec::new();
        for class in by_class.chunk_by(|a, b| a.0 == b.0) {
            lanes.clear();
            for &(_, e) in class {
                match lanes.last_mut() {
                    Some((w, bits)) if *w == e / LANES => *bits |= 1 << (e % LANES),
                    _ => lanes.push((e / LANES, 1 << (e % LANES))),
                }
            }
            for j in 0..n_out {
                if self.spec.head.target(j, n_out, class[0].0) {
                    let row = t.row_mut(j);
                    for &(w, bits) in &lanes {
                        row[w] |= bits;
                    }
                }
            }
        }
        t
    }
}

/// `members` — networks of one LUT spec with a `groupsum` head, each with its parameters
/// — as one network whose head counts every member's votes (boosting's sum of votes).
/// Each layer holds the members' LUTs one member after another, each reading its own
/// member's LUTs below, except the last, which is ordered class group by class group and
/// member by member within a group, so that a class's popcount is the sum of the
/// members'. Returns the network and its parameters; every layer's wiring is the
/// members', none the seed's (`model.json` stores each layer's sources).
///
/// # Errors
/// [`ModelError::Wiring`] if the members differ in spec or input width, have no LUT
/// layers, no `groupsum` head, or a layer whose LUTs read fewer inputs than the spec
/// says (a layer below narrower than the fan-in, which the wider network would not be).
pub fn side_by_side(members: &[(&Network, &[bool])]) -> Result<(Network, Vec<bool>), ModelError> {
    let Some(&(first, _)) = members.first() else {
        return Err(wrong("no networks to put side by side".into()));
    };
    for (net, _) in members {
        if net.spec != first.spec {
            let why = format!("networks of {} and {} cannot be put side by side", first.spec, net.spec);
            return Err(wrong(why));
        }
    }
    let Head::GroupSum(c) = first.spec.head else {
        return Err(wrong(format!("{}: side by side needs LUT layers and a groupsum head", first.spec)));
    };
    merge(members, Some(c), first.spec.head, first.n_classes)
}

/// A first network and a specialist trained on some of its classes (`set`, in the
/// specialist's class order), each with its parameters, as one network with a
/// [`Head::Cascade`]: the first network's layers, then the specialist's beside them,
/// each reading its own below; the last layer the first network's outputs, then the
/// specialist's. Returns the network and its parameters.
///
/// # Errors
/// [`ModelError::Wiring`] if the two differ in body or input width, have no LUT layers
/// or no `groupsum` heads, the specialist's classes are not `set`'s count, or `set` is
/// no cascade's (see [`Head::cascade`]), or the last layers are not whole groups of both.
pub fn cascade(
    first: (&Network, &[bool]),
    specialist: (&Network, &[bool]),
    set: &[u32],
) -> Result<(Network, Vec<bool>), ModelError> {
    let head = Head::cascade(first.0.n_classes, set).map_err(wrong)?;
    let (a, b) = (first.0.spec, specialist.0.spec);
    if a.body != b.body || first.0.circuit.n_args() != specialist.0.circuit.n_args() {
        return Err(wrong(format!("networks of {a} and {b} cannot make a cascade")));
    }
    if !matches!(a.head, Head::GroupSum(_)) || b.head != Head::GroupSum(set.len()) {
        return Err(wrong(format!(
            "a cascade needs groupsum heads of all classes and of {} classes",
            set.len()
        )));
    }
    let (last, unit) = (first.0.circuit.n_outputs(), head.group_unit().unwrap_or(1) / 2);
    if last % unit != 0 || specialist.0.circuit.n_outputs() != last {
        return Err(wrong(format!(
            "a cascade needs last layers of a multiple of {unit} outputs, not {last}"
        )));
    }
    merge(&[first, specialist], None, head, first.0.n_classes)
}

fn wrong(why: String) -> ModelError {
    ModelError::Wiring { layer: 0, why }
}

/// Members of one LUT body side by side under `head`: each layer the members' LUTs one
/// member after another, each reading its own member's below; the last layer too, or,
/// with `groups`, class group by class group and member by member within a group.
fn merge(
    members: &[(&Network, &[bool])],
    groups: Option<usize>,
    head: Head,
    n_classes: usize,
) -> Result<(Network, Vec<bool>), ModelError> {
    let Some(&(first, _)) = members.first() else {
        return Err(wrong("no networks to put side by side".into()));
    };
    let spec = first.spec;
    let Body::Lut { k, first_k, first: first_width, depth, .. } = spec.body else {
        return Err(wrong(format!("{spec}: side by side needs LUT layers and a groupsum head")));
    };
    fn layers_of(net: &Network) -> Result<&LutLayers, ModelError> {
        net.layers.as_ref().ok_or_else(|| wrong(format!("{} has no LUT layers", net.spec)))
    }
    let shape = layers_of(first)?;
    for (l, layer) in shape.layers.iter().enumerate() {
        let want = usize::from(if l == 0 { first_k.unwrap_or(k) } else { k });
        if layer.k != want {
            return Err(ModelError::Wiring {
                layer: l,
                why: format!("{} inputs per LUT where {spec} says {want}", layer.k),
            });
        }
    }
    for (net, _) in members {
        if layers_of(net)?.n_inputs != first.circuit.n_args() {
            let why = format!(
                "networks of {} and {} inputs cannot be put side by side",
                first.circuit.n_args(),
                net.circuit.n_args()
            );
            return Err(wrong(why));
        }
    }
    let n = members.len();
    let widths: Vec<usize> = shape.layers.iter().map(LutLayer::width).collect();
    let mut wiring = vec![Vec::new(); widths.len()];
    let mut params = Vec::with_capacity(first.n_params() * n);
    let mut starts = vec![0; n];
    for (l, (&width, layer)) in widths.iter().zip(&shape.layers).enumerate() {
        let (k, below) = (layer.k, if l == 0 { 0 } else { widths[l - 1] });
        // The LUTs of each member in this layer, in the merged order: (member, LUT).
        let order: Vec<(usize, usize)> = match groups.filter(|_| l + 1 == widths.len()) {
            None => (0..n).flat_map(|m| (0..width).map(move |j| (m, j))).collect(),
            Some(c) => {
                let per = width / c;
                (0..c)
                    .flat_map(|g| (0..n).flat_map(move |m| (g * per..(g + 1) * per).map(move |j| (m, j))))
                    .collect()
            }
        };
        for (m, j) in order {
            let (net, p) = members[m];
            let sources = &layers_of(net)?.layers[l].sources[j * k..(j + 1) * k];
            // `below` < 2^32: it is a layer's width of a network that was built.
            wiring[l].extend(sources.iter().map(|&s| s + (m * below) as u32));
            params.extend_from_slice(&p[starts[m] + (j << k)..starts[m] + ((j + 1) << k)]);
        }
        starts.iter_mut().for_each(|s| *s += width << k);
    }
    let (middle, last) = (widths[usize::from(first_width.is_some())], widths[widths.len() - 1]);
    let body = Body::Lut {
        k,
        first_k,
        first: first_width.map(|_| widths[0] * n),
        width: middle * n,
        depth,
        last: (last != middle).then_some(last * n),
    };
    let merged = ModelSpec { body, head };
    let net = Network::build_with_wiring(merged, first.circuit.n_args(), n_classes, 0, &wiring)?;
    Ok((net, params))
}

/// One `n`-input LUT per output bit, reading every input.
fn table(n: usize, outputs: usize) -> Result<Circuit<Bool>, ModelError> {
    if n > MAX_TABLE_INPUTS {
        return Err(ModelError::TableTooWide { inputs: n });
    }
    let size = 1usize << n;
    let mut b = CircuitBuilder::<Bool>::new(outputs * size, n);
    let x = b.args();
    let outs = (0..outputs)
        .map(|j| {
            let t: Vec<WireId> = (0..size).map(|s| b.param(j * size + s)).collect();
            b.lut(&t, &x)
        })
        .collect();
    Ok(b.finish(outs).expect("table circuit is valid"))
}

/// The number of parameters [`Network::build`] gives `spec` over `n_inputs` bits and
/// `n_classes` classes, computed without building (`None` if it overflows `usize`).
#[must_use]
pub fn param_count(spec: ModelSpec, n_inputs: usize, n_classes: usize) -> Option<usize> {
    let outputs = spec.head.n_outputs(n_classes, n_classes);
    match spec.body {
        Body::Table => outputs.checked_mul(1usize.checked_shl(u32::try_from(n_inputs).ok()?)?),
        Body::PseudoLinear => outputs.checked_mul(n_inputs),
        Body::Lut { k, first_k, .. } => {
            // Runs of equal layers (count, width), as `build` and `lut_net` lay them out.
            let [first, inner, (_, last)] = spec.body.lut_runs()?;
            let runs = match spec.head.group_unit() {
                Some(u) => [first, inner, (1, last.div_ceil(u).checked_mul(u)?), (0, 0)],
                None => [first, inner, (1, last), (1, outputs)],
            };
            let table = |k: u8, from: usize| 1usize << usize::from(k).min(from);
            let (mut total, mut prev, mut layer_k) = (0usize, n_inputs, first_k.unwrap_or(k));
            for (count, w) in runs.into_iter().filter(|r| r.0 > 0) {
                let rest = (count - 1).checked_mul(w)?.checked_mul(table(k, w))?;
                total = total.checked_add(w.checked_mul(table(layer_k, prev))?)?.checked_add(rest)?;
                (prev, layer_k) = (w, k);
            }
            Some(total)
        }
    }
}

/// Per output `j`: `[popcount(p_j & x) <= popcount(p_j) div 4]`.
fn pseudolinear(n: usize, outputs: usize) -> Circuit<Bool> {
    let mut b = CircuitBuilder::<Bool>::new(outputs * n, n);
    let x = b.args();
    let outs = (0..outputs)
        .map(|j| {
            let p: Vec<WireId> = (0..n).map(|i| b.param(j * n + i)).collect();
            let px: Vec<WireId> = p.iter().zip(&x).map(|(&pi, &xi)| b.and(pi, xi)).collect();
            let s = popcount(&mut b, &px);
            let t = popcount(&mut b, &p);
            let quarter = if t.len() > 2 { t[2..].to_vec() } else { Vec::new() };
            less_equal(&mut b, &s, &quarter)
        })
        .collect();
    b.finish(outs).expect("pseudolinear circuit is valid")
}

/// Layers of LUTs, `widths[l]` wide, with random, evenly spread wiring; the last layer
/// is the head's outputs (`groupsum`) or feeds one extra LUT per label bit. `ks` is
/// (inputs per LUT of the first layer, of the others).
fn lut_layers(
    n: usize,
    ks: (u8, u8),
    mut widths: Vec<usize>,
    head: Head,
    n_classes: usize,
    seed: u64,
    learned: &[Vec<u32>],
) -> Result<LutLayers, ModelError> {
    let depth = widths.len();
    match head {
        Head::GroupSum(_) | Head::Cascade { .. } => {
            widths[depth - 1] = head.n_outputs(n_classes, widths[depth - 1])
        }
        Head::Binary => widths.push(binary_width(n_classes)),
        Head::OneHot => widths.push(n_classes),
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    // Wiring first, so the parameter count is known before building.
    let mut prev_width = n;
    let mut layers: Vec<Vec<Vec<usize>>> = Vec::new();
    for &w in &widths {
        let k = if layers.is_empty() { ks.0 } else { ks.1 };
        let kk = usize::from(k).min(prev_width);
        layers.push(random_wiring(&mut rng, prev_width, w, kk));
        if let Some(sources) = learned.get(layers.len() - 1).filter(|l| !l.is_empty()) {
            let layer = layers.len() - 1;
            let why = if sources.len() != w * kk {
                Some(format!("{} sources for {w} LUTs of {kk} inputs", sources.len()))
            } else {
                sources
                    .iter()
                    .find(|&&s| s as usize >= prev_width)
                    .map(|s| format!("source {s} of {prev_width}"))
            };
            if let Some(why) = why {
                return Err(ModelError::Wiring { layer, why });
            }
            layers[layer] =
                sources.chunks_exact(kk).map(|c| c.iter().map(|&s| s as usize).collect()).collect();
        }
        prev_width = w;
    }
    if learned.len() > layers.len() {
        return Err(ModelError::Wiring {
            layer: layers.len(),
            why: format!("the model has {} layers", layers.len()),
        });
    }
    let layers = layers
        .into_iter()
        .map(|luts| LutLayer {
            k: luts.first().map_or(1, Vec::len),
            sources: luts.into_iter().flatten().map(|s| s as u32).collect(),
        })
        .collect();
    Ok(LutLayers { n_inputs: n, layers })
}

/// `luts` groups of `k` distinct indices below `from`, drawn from concatenated shuffles
/// so that every source is used as evenly as possible.
fn random_wiring(rng: &mut ChaCha8Rng, from: usize, luts: usize, k: usize) -> Vec<Vec<usize>> {
    let mut pool: Vec<usize> = Vec::new();
    let mut out = Vec::with_capacity(luts);
    for _ in 0..luts {
        let mut ins: Vec<usize> = Vec::with_capacity(k);
        let mut skipped = Vec::new();
        while ins.len() < k {
            if pool.is_empty() {
                pool = (0..from).collect();
                pool.shuffle(rng);
            }
            let i = pool.pop().unwrap_or(0);
            if ins.contains(&i) {
                skipped.push(i);
            } else {
                ins.push(i);
            }
        }
        pool.extend(skipped);
        out.push(ins);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Learned wiring replaces a layer's seeded sources; the seeded sources themselves give
    /// the seeded network back, and wiring that does not fit is refused.
    #[test]
    fn learned_wiring_replaces_the_seeded_one() {
        // The inputs the six first-layer 2-LUTs read (their fanins after the 4 table bits).
        let first_layer = |net: &Network| -> Vec<u32> {
            let gates = net.circuit.gates().take(6);
            gates
                .flat_map(|(_, _, fanins)| fanins[4..].iter().map(|w| (w.index() - net.n_params()) as u32))
                .collect()
        };
        let spec: ModelSpec = "lut:2:6x2,groupsum:3".parse().unwrap();
        let seeded = Network::build(spec, 10, 3, 4).unwrap();
        let first = first_layer(&seeded);
        assert_eq!(Network::build_with_wiring(spec, 10, 3, 4, std::slice::from_ref(&first)).unwrap(), seeded);
        let other: Vec<u32> = (0..12).map(|i| (i * 7 % 10) as u32).collect();
        let rewired = Network::build_with_wiring(spec, 10, 3, 4, std::slice::from_ref(&other)).unwrap();
        assert_ne!(rewired, seeded);
        assert_eq!(first_layer(&rewired), other);
        for bad in [
            vec![other[..11].to_vec()],
            vec![[vec![10], other[1..].to_vec()].concat()],
            vec![vec![], vec![], vec![]],
        ] {
            let e = Network::build_with_wiring(spec, 10, 3, 4, &bad).unwrap_err();
            assert!(matches!(e, ModelError::Wiring { .. }), "{e}");
        }
    }

    /// Networks side by side: the merged network's class counts are the sum of the
    /// members' on every input, for specs with a wider first layer, a narrower last one
    /// and groups rounded up; members that differ, or a network without groupsum, are refused.
    #[test]
    fn side_by_side_sums_the_members_votes() {
        use crate::learn::predict::forward;
        use rand::RngExt;
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let examples: Vec<Vec<bool>> =
            (0..200).map(|_| (0..12).map(|_| rng.random_bool(0.5)).collect()).collect();
        let x = BitMatrix::from_examples(12, &examples);
        for (text, n) in
            [("lut:3:8x2:5,groupsum:3", 2), ("lut:2/3:10/6x3:4,groupsum:2", 3), ("lut:4:9x1,groupsum:3", 2)]
        {
            let spec: ModelSpec = text.parse().unwrap();
            let c = match spec.head {
                Head::GroupSum(c) => c,
                _ => unreachable!(),
            };
            let members: Vec<(Network, Vec<bool>)> = (0..n)
                .map(|m| {
                    let net = Network::build(spec, 12, c, m as u64).unwrap();
                    let params = (0..net.n_params()).map(|_| rng.random_bool(0.5)).collect();
                    (net, params)
                })
                .collect();
            let refs: Vec<(&Network, &[bool])> = members.iter().map(|(n, p)| (n, &p[..])).collect();
            let (merged, params) = side_by_side(&refs).unwrap();
            assert_eq!(merged.n_params(), members[0].0.n_params() * n, "{text}");
            let wiring: Vec<Vec<u32>> =
                merged.layers.as_ref().unwrap().layers.iter().map(|l| l.sources.clone()).collect();
            let rebuilt = Network::build_with_wiring(merged.spec, 12, c, 77, &wiring).unwrap();
            assert_eq!(rebuilt, merged, "{text}: the wiring is all of it, whatever the seed");
            let mut sum = vec![0u32; 200 * c];
            for (net, p) in &members {
                let s = spec.head.scores(&forward(&net.circuit, p, &x), c);
                sum.iter_mut().zip(s).for_each(|(a, b)| *a += b);
            }
            assert_eq!(merged.spec.head.scores(&forward(&merged.circuit, &params, &x), c), sum, "{text}");
        }
        let spec: ModelSpec = "lut:3:8x2,groupsum:3".parse().unwrap();
        let other: ModelSpec = "lut:3:8x2:6,groupsum:3".parse().unwrap();
        let net = |spec| Network::build(spec, 12, 3, 0).unwrap();
        let (a, b, onehot) = (net(spec), net(other), net("lut:3:8x2,onehot".parse().unwrap()));
        let zeros = |n: &Network| vec![false; n.n_params()];
        let (pa, pb, po) = (zeros(&a), zeros(&b), zeros(&onehot));
        assert!(side_by_side(&[(&a, &pa[..]), (&b, &pb[..])]).is_err());
        assert!(side_by_side(&[(&onehot, &po[..])]).is_err());
        assert!(side_by_side(&[]).is_err());
    }

    /// A cascade: the merged network's class is the first network's unless it names one
    /// of the specialist's classes, then the argmax over them of both networks' votes;
    /// the head circuit agrees; mismatched networks are refused.
    #[test]
    fn cascade_asks_the_specialist_about_its_classes() {
        use crate::learn::predict::forward;
        use rand::RngExt;
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let examples: Vec<Vec<bool>> =
            (0..300).map(|_| (0..12).map(|_| rng.random_bool(0.5)).collect()).collect();
        let x = BitMatrix::from_examples(12, &examples);
        let set = [1u32, 3];
        let random = |spec: &str, c: usize, seed: u64, rng: &mut ChaCha8Rng| {
            let net = Network::build(spec.parse().unwrap(), 12, c, seed).unwrap();
            let params: Vec<bool> = (0..net.n_params()).map(|_| rng.random_bool(0.5)).collect();
            (net, params)
        };
        let (a, pa) = random("lut:3:10/6x3:8,groupsum:4", 4, 1, &mut rng);
        let (b, pb) = random("lut:3:10/6x3:8,groupsum:2", 2, 2, &mut rng);
        let (merged, params) = cascade((&a, &pa), (&b, &pb), &set).unwrap();
        assert_eq!(merged.spec.to_string(), "lut:3:20/12x3:16,cascade:4:1+3");
        let first = Head::GroupSum(4).scores(&forward(&a.circuit, &pa, &x), 4);
        let second = Head::GroupSum(2).scores(&forward(&b.circuit, &pb, &x), 2);
        let want: Vec<u32> = (0..300)
            .map(|e| {
                let named = crate::learn::head::argmax_rows(&first[e * 4..(e + 1) * 4], 4)[0];
                if !set.contains(&named) {
                    return named;
                }
                let sums: Vec<u32> = set
                    .iter()
                    .enumerate()
                    .map(|(i, &c)| first[e * 4 + c as usize] + second[e * 2 + i])
                    .collect();
                set[crate::learn::head::argmax_rows(&sums, 2)[0] as usize]
            })
            .collect();
        assert!(want.iter().any(|&c| c == 1 || c == 3) && want.iter().any(|&c| c == 0 || c == 2));
        let out = forward(&merged.circuit, &params, &x);
        assert_eq!(merged.spec.head.predict(&out, 4), want);
        let index = forward(&merged.classifier(), &params, &x);
        assert_eq!(crate::learn::head::classes_of_indices(&index, 4), want, "the head circuit");
        // Refused: a specialist of another body, of the wrong class count, or a set of one.
        let (c, pc) = random("lut:3:10/6x3:9,groupsum:2", 2, 2, &mut rng);
        assert!(cascade((&a, &pa), (&c, &pc), &set).is_err());
        let (d, pd) = random("lut:3:10/6x3:8,groupsum:4", 4, 2, &mut rng);
        assert!(cascade((&a, &pa), (&d, &pd), &set).is_err());
        assert!(cascade((&a, &pa), (&b, &pb), &[1]).is_err());
        // A last layer of 6 is not whole groups of 4 and of 2 in each half.
        let (e, pe) = random("lut:3:10/6x3:6,groupsum:2", 2, 2, &mut rng);
        let (f, pf) = random("lut:3:10/6x3:6,groupsum:4", 4, 2, &mut rng);
        assert!(
            f.circuit.n_outputs() != e.circuit.n_outputs() || cascade((&f, &pf), (&e, &pe), &set).is_err()
        );
    }

    #[test]
    fn lut_net_shapes() {
        let spec: ModelSpec = "lut:4:10x2,groupsum:3".parse().unwrap();
        let net = Network::build(spec, 16, 3, 1).unwrap();
        assert_eq!(net.circuit.n_outputs(), 12);
        assert_eq!(net.circuit.n_gates(), 22);
        assert_eq!(net.n_params(), 22 * 16);
        let spec: ModelSpec = "lut:2:10x3:5,groupsum:3".parse().unwrap();
        let net = Network::build(spec, 16, 3, 1).unwrap();
        assert_eq!((net.circuit.n_gates(), net.circuit.n_outputs()), (26, 6));
        let spec: ModelSpec = "lut:6:8x1,binary".parse().unwrap();
        let net = Network::build(spec, 4, 3, 1).unwrap();
        assert_eq!(net.circuit.n_outputs(), 2);
    }

    /// The layers are the structure the circuit is built from: the fused kernel made from
    /// them equals the one recognised in the circuit, for every body shape and head.
    #[test]
    fn layers_are_the_circuits_structure() {
        for (spec, inputs) in [
            ("lut:4:10x2,groupsum:3", 16),
            ("lut:2:10x3:5,groupsum:3", 16),
            ("lut:6:8x1,binary", 4),
            ("lut:3:7x2,onehot", 9),
        ] {
            let net = Network::build(spec.parse().unwrap(), inputs, 3, 7).unwrap();
            let layers = net.layers.as_ref().expect("a LUT body has layers");
            assert_eq!(layers.circuit(), net.circuit, "{spec}");
            assert_eq!(layers.n_params(), net.n_params(), "{spec}");
            let recognised = crate::domain::LutNetwork::new(&net.circuit).expect("a LUT network");
            assert_eq!(crate::domain::LutNetwork::from_layers(layers), recognised, "{spec}");
        }
        let learned = vec![(0..20u32).map(|i| i % 16).collect::<Vec<_>>()];
        let spec: ModelSpec = "lut:2:10x2,groupsum:2".parse().unwrap();
        let net = Network::build_with_wiring(spec, 16, 2, 1, &learned).unwrap();
        let layers = net.layers.as_ref().unwrap();
        assert_eq!(layers.layers[0].sources, learned[0]);
        assert_eq!(
            crate::domain::LutNetwork::from_layers(layers),
            crate::domain::LutNetwork::new(&net.circuit).unwrap()
        );
        assert!(Network::build("table".parse().unwrap(), 4, 2, 0).unwrap().layers.is_none());
    }

    #[test]
    fn wiring_is_even_and_distinct() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let w = random_wiring(&mut rng, 12, 12, 4);
        let mut uses = vec![0; 12];
        for ins in &w {
            let mut s = ins.clone();
            s.sort_unstable();
            s.dedup();
            assert_eq!(s.len(), 4);
            for &i in ins {
                uses[i] += 1;
            }
        }
        assert!(uses.iter().all(|&u| u == 4), "{uses:?}");
    }

    #[test]
    fn pseudolinear_matches_its_formula() {
        let spec: ModelSpec = "pseudolinear".parse().unwrap();
        let net = Network::build(spec, 5, 2, 0).unwrap();
        for v in 0..1u32 << 10 {
            let bits: Vec<bool> = (0..10).map(|i| v >> i & 1 == 1).collect();
            let (p, x) = bits.split_at(5);
            let px = p.iter().zip(x).filter(|(a, b)| **a && **b).count();
            let pc = p.iter().filter(|a| **a).count();
            assert_eq!(net.circuit.eval_one(&bits)[0], px <= pc / 4);
        }
    }

    #[test]
    fn param_count_matches_the_built_network() {
        for (spec, n, c) in [
            ("lut:4:10x2,groupsum:3", 16, 3),
            ("lut:6:8x1,binary", 4, 3),
            ("lut:3:5x3,onehot", 2, 4),
            ("lut:2:7x1,groupsum:2", 9, 2),
            ("lut:2:10x3:5,groupsum:3", 16, 3),
            ("lut:3:6x2:4,binary", 8, 3),
            ("lut:6:9x1:4,onehot", 8, 3),
            ("lut:4:20/10x3:5,groupsum:3", 16, 3),
            ("lut:3:2/6x2,binary", 8, 3),
            ("lut:2:9/4x4:3,onehot", 8, 3),
            ("lut:6/4:20x2:6,groupsum:3", 16, 3),
            ("lut:3/2:20/10x3:5,binary", 16, 3),
            ("lut:2/3:2x2,onehot", 8, 3),
            ("table,onehot", 5, 3),
            ("pseudolinear", 7, 5),
        ] {
            let spec: ModelSpec = spec.parse().unwrap();
            let net = Network::build(spec, n, c, 0).unwrap();
            assert_eq!(param_count(spec, n, c), Some(net.n_params()), "{spec}");
            if let Some(runs) = spec.body.lut_runs() {
                // The layers are the runs' widths (the last widened to whole groups).
                let mut widths: Vec<usize> =
                    runs.iter().flat_map(|&(n, w)| std::iter::repeat_n(w, n)).collect();
                match spec.head {
                    Head::GroupSum(c) => *widths.last_mut().unwrap() = widths.last().unwrap().div_ceil(c) * c,
                    Head::Binary => widths.push(binary_width(c)),
                    Head::OneHot => widths.push(c),
                    Head::Cascade { .. } => unreachable!("no cascade spec here"),
                }
                let built: Vec<usize> =
                    net.layers.as_ref().unwrap().layers.iter().map(LutLayer::width).collect();
                assert_eq!(built, widths, "{spec}");
                // The first layer's LUTs have `K1` inputs, the others `K` (fewer where the
                // layer below is narrower).
                let Body::Lut { k, first_k, .. } = spec.body else { unreachable!() };
                let ks: Vec<usize> = net.layers.as_ref().unwrap().layers.iter().map(|l| l.k).collect();
                let below = std::iter::once(n).chain(widths.iter().copied());
                let want: Vec<usize> = below
                    .zip(0..ks.len())
                    .map(|(from, l)| usize::from(if l == 0 { first_k.unwrap_or(k) } else { k }).min(from))
                    .collect();
                assert_eq!(ks, want, "{spec}");
            }
        }
        let huge: ModelSpec = "lut:6:1000000000x1000000000".parse().unwrap();
        assert_eq!(param_count(huge, 8, 2), None);
        assert!(matches!(Network::build(huge, 8, 2, 0), Err(ModelError::TooLarge { .. })));
        let wide: ModelSpec = "pseudolinear,onehot".parse().unwrap();
        assert_eq!(param_count(wide, 1 << 24, 100), Some(100 << 24));
        assert!(matches!(Network::build(wide, 1 << 24, 100, 0), Err(ModelError::TooLarge { .. })));
        // Few parameters, but the wiring would draw from 2^40 inputs.
        let narrow: ModelSpec = "lut:1:1x1".parse().unwrap();
        assert_eq!(param_count(narrow, 1 << 40, 2), Some(4));
        assert_eq!(Network::build(narrow, 1 << 40, 2, 0), Err(ModelError::TooManyInputs { inputs: 1 << 40 }));
    }

    #[test]
    fn errors_are_specific() {
        let t: ModelSpec = "table".parse().unwrap();
        assert_eq!(Network::build(t, 20, 2, 0).unwrap_err(), ModelError::TableTooWide { inputs: 20 });
        let g: ModelSpec = "lut:2:4x1,groupsum:3".parse().unwrap();
        assert!(matches!(Network::build(g, 4, 2, 0), Err(ModelError::ClassMismatch { .. })));
    }
}

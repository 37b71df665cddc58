//! `Netlist`: a parameter-free Boolean circuit with a model name and port names, the
//! value readers produce and writers consume; plus the per-gate views writers share
//! (which wires are constants, the function of a gate over its distinct fan-ins).

use super::cover::{MAX_TABLE_VARS, TruthTable};
use crate::circuit::{Circuit, Semantics, WireId};
use crate::domain::Bool;
use thiserror::Error;

/// Names of a circuit's model and ports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PortNames {
    /// Model (module) name.
    pub model: String,
    /// One name per input.
    pub inputs: Vec<String>,
    /// One name per output.
    pub outputs: Vec<String>,
}

/// Port names that cannot label a circuit.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum NameError {
    /// Wrong number of names.
    #[error("{what}: {found} names for {expected} ports")]
    Count {
        /// `inputs` or `outputs`.
        what: &'static str,
        /// Names given.
        found: usize,
        /// Ports of the circuit.
        expected: usize,
    },
    /// Empty, or containing white space or `#` (netlist formats separate names by spaces;
    /// BLIF comments start with `#`).
    #[error("name {0:?} is empty or contains white space or '#'")]
    Malformed(String),
    /// Two ports share a name.
    #[error("port name {0:?} is used twice")]
    Duplicate(String),
}

/// A valid model name made from any text (a file stem, a run directory): white space
/// and `#` become `_`; empty text becomes `top`.
#[must_use]
pub fn model_name_from(text: &str) -> String {
    if text.is_empty() {
        return "top".into();
    }
    text.chars().map(|c| if c.is_whitespace() || c == '#' { '_' } else { c }).collect()
}

impl PortNames {
    /// `x[0] .. x[n-1]` and `y[0] .. y[m-1]`: the names of the Verilog buses.
    #[must_use]
    pub fn indexed(model: &str, n_inputs: usize, n_outputs: usize) -> Self {
        Self {
            model: model.to_string(),
            inputs: (0..n_inputs).map(|i| format!("x[{i}]")).collect(),
            outputs: (0..n_outputs).map(|j| format!("y[{j}]")).collect(),
        }
    }

    /// Checks the names against a circuit's shape: a model name and one name per port,
    /// none empty or with white space or `#`, no port name used twice, except that an
    /// output may carry the name of the input it is.
    ///
    /// # Errors
    /// [`NameError`] naming the first problem.
    pub fn check(&self, n_inputs: usize, outputs: &[WireId]) -> Result<(), NameError> {
        let count = |what, found, expected| {
            if found == expected { Ok(()) } else { Err(NameError::Count { what, found, expected }) }
        };
        count("inputs", self.inputs.len(), n_inputs)?;
        count("outputs", self.outputs.len(), outputs.len())?;
        let malformed = |n: &str| n.is_empty() || n.chars().any(|c| c.is_whitespace() || c == '#');
        if malformed(&self.model) {
            return Err(NameError::Malformed(self.model.clone()));
        }
        let mut seen = std::collections::HashMap::new();
        for (i, name) in self.inputs.iter().enumerate() {
            if malformed(name) {
                return Err(NameError::Malformed(name.clone()));
            }
            if seen.insert(name.as_str(), Some(i)).is_some() {
                return Err(NameError::Duplicate(name.clone()));
            }
        }
        for (name, w) in self.outputs.iter().zip(outputs) {
            if malformed(name) {
                return Err(NameError::Malformed(name.clone()));
            }
            match seen.insert(name.as_str(), None) {
                None => {}
                Some(Some(i)) if i == w.index() => {}
                Some(_) => return Err(NameError::Duplicate(name.clone())),
            }
        }
        Ok(())
    }

    /// A prefix for internal wire names (`w` followed by the wire id) that no port name
    /// can be confused with: `w`, or `w_`, `w__`, ... if a port is named like `w12`.
    #[must_use]
    pub fn internal_prefix(&self) -> String {
        let mut prefix = String::from("w");
        let clashes = |p: &str| {
            self.inputs.iter().chain(&self.outputs).any(|n| {
                n.strip_prefix(p)
                    .is_some_and(|rest| !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit()))
            })
        };
        while clashes(&prefix) {
            prefix.push('_');
        }
        prefix
    }
}

/// A parameter-free Boolean circuit with names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Netlist {
    names: PortNames,
    circuit: Circuit<Bool>,
}

impl Netlist {
    /// Names a circuit. Parameters, if any, count as ordinary inputs (bind them first with
    /// [`bind_params`](crate::domain::bind_params) to export a trained model).
    ///
    /// # Errors
    /// [`NameError`] if the names do not fit the circuit.
    pub fn new(names: PortNames, circuit: Circuit<Bool>) -> Result<Self, NameError> {
        names.check(circuit.n_inputs(), circuit.outputs())?;
        Ok(Self { names, circuit })
    }

    /// A circuit with the indexed names `x[i]`, `y[j]`.
    #[must_use]
    pub fn indexed(model: &str, circuit: Circuit<Bool>) -> Self {
        let names = PortNames::indexed(model, circuit.n_inputs(), circuit.n_outputs());
        Self { names, circuit }
    }

    /// The names.
    #[must_use]
    pub fn names(&self) -> &PortNames {
        &self.names
    }

    /// The circuit.
    #[must_use]
    pub fn circuit(&self) -> &Circuit<Bool> {
        &self.circuit
    }

    /// Takes the circuit out.
    #[must_use]
    pub fn into_circuit(self) -> Circuit<Bool> {
        self.circuit
    }
}

/// Per wire: `Some(v)` if a `Const(v)` gate drives it.
#[must_use]
pub fn constant_wires(c: &Circuit<Bool>) -> Vec<Option<bool>> {
    let mut k = vec![None; c.n_inputs()];
    k.extend(c.gates().map(|(_, op, _)| match *op {
        Bool::Const(v) => Some(v),
        _ => None,
    }));
    k
}

/// What a gate computes over its distinct non-constant fan-ins.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GateFunction {
    /// The distinct non-constant fan-in wires, in order of first appearance.
    pub inputs: Vec<WireId>,
    /// The function, variable `i` being `inputs[i]`.
    pub table: TruthTable,
}

/// The function of a gate with the given fan-ins over its distinct non-constant fan-ins,
/// or `None` if there are more than [`MAX_TABLE_VARS`] of them (a LUT whose table bits
/// are not constants).
#[must_use]
pub fn gate_function(op: &Bool, fanins: &[WireId], consts: &[Option<bool>]) -> Option<GateFunction> {
    let mut inputs: Vec<WireId> = Vec::new();
    let mut slot = Vec::with_capacity(fanins.len());
    for w in fanins {
        slot.push(match consts[w.index()] {
            Some(v) => Err(v),
            None => Ok(inputs.iter().position(|i| i == w).unwrap_or_else(|| {
                inputs.push(*w);
                inputs.len() - 1
            })),
        });
        if inputs.len() > MAX_TABLE_VARS {
            return None;
        }
    }
    // Fast path: a LUT with a constant table and distinct variable address bits.
    if let Bool::Lut(k) = *op {
        let n = 1usize << k;
        let (table, addr) = slot.split_at(n);
        if table.iter().all(Result::is_err) && addr.iter().enumerate().all(|(i, s)| *s == Ok(i)) {
            let table = TruthTable::from_fn(usize::from(k), |s| table[s] == Err(true));
            return Some(GateFunction { inputs, table });
        }
    }
    let mut vals = vec![false; fanins.len()];
    let table = TruthTable::from_fn(inputs.len(), |s| {
        for (v, sl) in vals.iter_mut().zip(&slot) {
            *v = match *sl {
                Err(c) => c,
                Ok(i) => s >> i & 1 == 1,
            };
        }
        op.apply(&vals)
    });
    Some(GateFunction { inputs, table })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::circuit::CircuitBuilder;
    use crate::domain::BoolBuild;

    #[test]
    fn gate_functions_fold_constants_and_merge_repeated_fanins() -> Result<(), Box<dyn std::error::Error>> {
        let mut b = CircuitBuilder::<Bool>::new(0, 2);
        let (x0, x1) = (b.arg(0), b.arg(1));
        let one = b.constant(true);
        let zero = b.constant(false);
        let a = b.and(x0, one);
        let t = b.lut(&[zero, one, one, zero], &[x1, x0]);
        let r = b.lut(&[zero, one, one, one], &[x0, x0]);
        let c = b.finish(vec![a, t, r])?;
        let k = constant_wires(&c);
        let f = |g: u32| {
            let g = crate::circuit::GateId(g);
            gate_function(c.op(g), c.fanins(g), &k)
        };
        let fa = f(2).ok_or("and")?;
        assert_eq!(fa.inputs, vec![x0]);
        assert_eq!(fa.table, TruthTable::from_fn(1, |s| s == 1));
        let ft = f(3).ok_or("lut")?;
        assert_eq!(ft.inputs, vec![x1, x0]);
        assert_eq!(ft.table, TruthTable::from_fn(2, |s| s == 1 || s == 2));
        // A LUT reading x0 on both address bits can only reach entries 0 and 3.
        let fr = f(4).ok_or("repeated")?;
        assert_eq!(fr.inputs, vec![x0]);
        assert_eq!(fr.table, TruthTable::from_fn(1, |s| s == 1));
        Ok(())
    }

    #[test]
    fn names_are_checked() {
        let outs = [WireId(0), WireId(3)];
        let mut n = PortNames::indexed("m", 2, 2);
        assert_eq!(n.check(2, &outs), Ok(()));
        n.outputs[0] = "x[0]".into();
        assert_eq!(n.check(2, &outs), Ok(()), "an output may be the input it names");
        n.outputs[0] = "x[1]".into();
        assert_eq!(n.check(2, &outs), Err(NameError::Duplicate("x[1]".into())));
        n.outputs[0] = "a b".into();
        assert!(matches!(n.check(2, &outs), Err(NameError::Malformed(_))));
        n.outputs[0] = "a#b".into();
        assert!(matches!(n.check(2, &outs), Err(NameError::Malformed(_))));
        assert!(matches!(n.check(3, &outs), Err(NameError::Count { .. })));
        assert_eq!(model_name_from("my run #2"), "my_run__2");
        assert_eq!(model_name_from(""), "top");
        n.outputs[0] = "w17".into();
        assert_eq!(n.internal_prefix(), "w_");
    }
}

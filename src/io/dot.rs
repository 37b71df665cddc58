//! Graphviz DOT writer for small circuits: inputs as boxes (parameters shaded), gates as
//! ellipses labelled with their type, outputs as double circles.

use crate::circuit::{Circuit, Signature};
use std::fmt::Write;

/// The circuit as a DOT digraph named `name`.
#[must_use]
pub fn to_dot<S: Signature>(c: &Circuit<S>, name: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "digraph \"{name}\" {{\n  rankdir=LR;");
    for i in 0..c.n_inputs() {
        if i < c.n_params() {
            let _ = writeln!(s, "  w{i} [shape=box, style=filled, fillcolor=lightgrey, label=\"p{i}\"];");
        } else {
            let _ = writeln!(s, "  w{i} [shape=box, label=\"x{}\"];", i - c.n_params());
        }
    }
    for (g, op, fanins) in c.gates() {
        let w = c.gate_wire(g);
        let _ = writeln!(s, "  {w} [label=\"{}\"];", op.name());
        for (port, f) in fanins.iter().enumerate() {
            let _ = writeln!(s, "  {f} -> {w} [headlabel=\"{port}\", fontsize=8];");
        }
    }
    for (j, w) in c.outputs().iter().enumerate() {
        let _ = writeln!(s, "  y{j} [shape=doublecircle, label=\"y{j}\"];\n  {w} -> y{j};");
    }
    s.push_str("}\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::circuit::CircuitBuilder;
    use crate::domain::{Bool, BoolBuild};

    #[test]
    fn golden_text_of_a_parametrised_and() {
        let mut b = CircuitBuilder::<Bool>::new(1, 1);
        let (p, x) = (b.param(0), b.arg(0));
        let y = b.and(p, x);
        let c = b.finish(vec![y]).unwrap();
        let want = "digraph \"t\" {\n  rankdir=LR;\n  w0 [shape=box, style=filled, fillcolor=lightgrey, label=\"p0\"];\n  w1 [shape=box, label=\"x0\"];\n  w2 [label=\"and\"];\n  w0 -> w2 [headlabel=\"0\", fontsize=8];\n  w1 -> w2 [headlabel=\"1\", fontsize=8];\n  y0 [shape=doublecircle, label=\"y0\"];\n  w2 -> y0;\n}\n";
        assert_eq!(to_dot(&c, "t"), want);
    }
}

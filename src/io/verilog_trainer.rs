//! The RDA training step as synthesizable, clocked Verilog: a learner in hardware.
//!
//! [`trainer_verilog`] writes three modules for a [`Network`]:
//! - `<name>_step`: the faithful RDA step circuit `P x (A, Y) -> P`
//!   ([`rda_step`]), combinational, with the conventions of [`super::verilog`]
//!   (`x = {y, a, p}`, `y = p'`);
//! - `<name>_predict`: the classifier `P x A -> class index` with the parameters as
//!   inputs (`x = {a, p}`), combinational;
//! - `<name>_trainer`: the top, with the parameter register `p`, the example stream
//!   and the update `p <- p ^ dp`, one example per clock.
//!
//! Ports of `<name>_trainer` (widths `NX` input bits, `NL` label bits, `NP` parameters,
//! `NI` class-index bits):
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clk` | in | 1 | rising-edge clock |
//! | `rst` | in | 1 | synchronous, active high: `p <= P_INIT` |
//! | `in_valid` | in | 1 | an example `(in_x, in_y)` is offered |
//! | `in_ready` | out | 1 | the trainer takes it at this rising edge (`!rst && !p_load && !pw_we`) |
//! | `in_x` | in | `NX` | the example's input bits (encoded, `x[i]` = input bit `i`) |
//! | `in_y` | in | `NL` | its class label, binary (the head's targets are made inside) |
//! | `learn` | in | 1 | 1: an accepted example updates `p`; 0: inference only |
//! | `p_load` | in | 1 | `p <= p_in` at this edge (wins over the stream) |
//! | `p_in` | in | `NP` | parameters to load |
//! | `p_out` | out | `NP` | the parameter register (`p_out[i]` = parameter `i`) |
//! | `pw_we` | in | 1 | word-serial load: `p[pw_addr*PW +: PW] <= pw_in` at this edge (after `p_load`) |
//! | `pw_addr` | in | `AW` | word index, `0 .. NW-1` (`NW = ceil(NP / PW)`) |
//! | `pw_in` | in | `PW` | the word to write (bits past `NP` in the last word are dropped) |
//! | `pw_out` | out | `PW` | word `pw_addr` of `p` (zero past `NP` and past the last word) |
//! | `predict` | out | `NI` | class index the current `p` gives `in_x` (combinational) |
//!
//! The word-serial port (`PW` = [`PARAM_WORD_BITS`]) loads and reads the parameters
//! `PW` bits per clock where `NP` pins are too many; `p_load`/`p_in` remain for loading
//! all at once.
//!
//! The update of an accepted example with `learn` high is `p <= p ^ dp` where
//! `p ^ dp = step(p, in_x, targets(in_y))`: exactly one step of faithful RDA, the
//! update [`crate::train::RdaVariant::Faithful`] applies per example.

use super::netlist::Netlist;
use super::verilog::{VerilogParams, module_name, write_verilog};
use crate::learn::head::{binary_width, group_of};
use crate::learn::rda::rda_step;
use crate::learn::{Head, Network};
use std::fmt::Write as _;

/// Figures of a written trainer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrainerDesign {
    /// The Verilog text (all modules).
    pub text: String,
    /// The top module's name (`<name>_trainer`).
    pub top: String,
    /// Input bits `NX`.
    pub n_x: usize,
    /// Label bits `NL`.
    pub n_label: usize,
    /// Parameters `NP`.
    pub n_params: usize,
    /// Class-index bits `NI` of `predict`.
    pub n_index: usize,
    /// Gates of the step circuit (for the vote trainer: of one gradient copy).
    pub step_gates: usize,
    /// Whether the top has `in_last` (the batched vote trainer,
    /// [`super::verilog_trainer_votes`]).
    pub batched: bool,
}

/// Bits of the label port for `n_classes` classes.
#[must_use]
pub fn label_width(n_classes: usize) -> usize {
    binary_width(n_classes)
}

/// Writes the trainer of `net` whose parameter register resets to `init` (the
/// `P_INIT` parameter of the top), as modules named `<name>_step`, `<name>_predict`
/// and `<name>_trainer` (see the module documentation).
///
/// # Panics
/// If `init` does not have one bit per parameter of `net`.
#[must_use]
pub fn trainer_verilog(name: &str, net: &Network, init: &[bool]) -> TrainerDesign {
    assert_eq!(init.len(), net.n_params(), "one initial value per parameter");
    let base = module_name(name);
    let step = rda_step(&net.circuit).pruned();
    let step_gates = step.n_gates();
    let (n_x, n_y, n_params) = (net.circuit.n_args(), net.circuit.n_outputs(), net.n_params());
    let mut out = Vec::new();
    // Writing to a Vec cannot fail.
    let _ =
        write_verilog(&Netlist::indexed(&format!("{base}_step"), step), &VerilogParams::default(), &mut out);
    let classifier = net.classifier();
    let n_index = classifier.n_outputs();
    let _ = write_verilog(
        &Netlist::indexed(&format!("{base}_predict"), classifier),
        &VerilogParams::default(),
        &mut out,
    );
    let mut text = String::from_utf8_lossy(&out).into_owned();
    let n_label = label_width(net.n_classes);
    let top = format!("{base}_trainer");
    let _ = writeln!(
        text,
        "// RDA trainer (faithful, one example per clock): {n_x} input bits, {n_label} label bits, \
         {n_params} parameters, {n_index} class-index bits; model {}.",
        net.spec
    );
    let _ = writeln!(
        text,
        "module {top} #(\n  parameter [{}:0] P_INIT = {}\n) (",
        n_params - 1,
        hex_literal(init)
    );
    let _ = writeln!(
        text,
        "  input  wire clk,\n  input  wire rst,\n  input  wire in_valid,\n  output wire in_ready,\n  \
         input  wire [{}:0] in_x,\n  input  wire [{}:0] in_y,\n  input  wire learn,\n  \
         input  wire p_load,\n  input  wire [{}:0] p_in,\n  output wire [{}:0] p_out,\n{}  \
         output wire [{}:0] predict\n);",
        n_x - 1,
        n_label - 1,
        n_params - 1,
        n_params - 1,
        word_ports(n_params),
        n_index - 1
    );
    let _ = writeln!(text, "  reg [{}:0] p;", n_params - 1);
    text.push_str(&targets_verilog(net, n_y, n_label));
    let _ = writeln!(text, "  wire [{}:0] p_step;", n_params - 1);
    let _ = writeln!(text, "  {base}_step step_u (.x({{tgt, in_x, p}}), .y(p_step));");
    let _ = writeln!(text, "  {base}_predict predict_u (.x({{in_x, p}}), .y(predict));");
    let _ = writeln!(text, "  wire [{}:0] dp = p_step ^ p;", n_params - 1);
    text.push_str(&word_port_logic(n_params));
    text.push_str("  assign in_ready = !rst && !p_load && !pw_we;\n  assign p_out = p;\n");
    text.push_str("  always @(posedge clk) begin\n");
    text.push_str(
        "    if (rst) p <= P_INIT;\n    else if (p_load) p <= p_in;\n    else if (pw_we) p <= p_written;\n",
    );
    text.push_str("    else if (in_valid && learn) p <= p ^ dp;\n  end\nendmodule\n");
    TrainerDesign { text, top, n_x, n_label, n_params, n_index, step_gates, batched: false }
}

/// Bits per word of the word-serial parameter port (`PW`).
pub const PARAM_WORD_BITS: usize = 32;

/// Words of the word-serial port for `np` parameters (`NW`) and the width of its
/// address (`AW`).
#[must_use]
pub fn param_words(np: usize) -> (usize, usize) {
    let nw = np.div_ceil(PARAM_WORD_BITS).max(1);
    (nw, (usize::BITS - (nw - 1).leading_zeros()).max(1) as usize)
}

/// The word-serial port's declarations in a trainer's port list.
pub(super) fn word_ports(np: usize) -> String {
    let (_, aw) = param_words(np);
    format!(
        "  input  wire pw_we,\n  input  wire [{}:0] pw_addr,\n  input  wire [{}:0] pw_in,\n  \
         output wire [{}:0] pw_out,\n",
        aw - 1,
        PARAM_WORD_BITS - 1,
        PARAM_WORD_BITS - 1
    )
}

/// `pw_out` and `p_written` (the parameters with word `pw_addr` replaced by `pw_in`).
pub(super) fn word_port_logic(np: usize) -> String {
    let (nw, _) = param_words(np);
    let (pw, npw) = (PARAM_WORD_BITS, nw * PARAM_WORD_BITS);
    let pad = if npw > np { format!("{{{}'b0, p}}", npw - np) } else { "p".into() };
    format!(
        "  wire [{m}:0] p_pad = {pad};
  assign pw_out = (pw_addr < {nw}) ? p_pad[pw_addr*{pw} +: {pw}] : {pw}'b0;
  reg [{m}:0] p_wr;
  always @* begin
    p_wr = p_pad;
    if (pw_addr < {nw}) p_wr[pw_addr*{pw} +: {pw}] = pw_in;
  end
  wire [{}:0] p_written = p_wr[{}:0];
",
        np - 1,
        np - 1,
        m = npw - 1
    )
}

/// `tgt`, the head's target bits of the label `in_y` (what [`Network::targets`] gives).
pub(super) fn targets_verilog(net: &Network, n_y: usize, n_label: usize) -> String {
    let mut s = format!("  wire [{}:0] tgt;\n", n_y - 1);
    for j in 0..n_y {
        let _ = match net.spec.head {
            Head::Binary => writeln!(s, "  assign tgt[{j}] = in_y[{j}];"),
            Head::OneHot => writeln!(s, "  assign tgt[{j}] = (in_y == {n_label}'d{j});"),
            Head::GroupSum(c) => {
                writeln!(s, "  assign tgt[{j}] = (in_y == {n_label}'d{});", group_of(j, n_y, c))
            }
            Head::Cascade { classes, .. } => {
                let class = (0..classes as u32).find(|&c| net.spec.head.target(j, n_y, c)).unwrap_or(0);
                writeln!(s, "  assign tgt[{j}] = (in_y == {n_label}'d{class});")
            }
        };
    }
    s
}

/// `N'h...` with bit `i` of the literal equal to `bits[i]`; beyond 1024 bits a
/// concatenation of 1024-bit literals, one per line (Icarus's scanner refuses very long
/// tokens).
#[must_use]
pub fn hex_literal(bits: &[bool]) -> String {
    const CHUNK: usize = 1024;
    if bits.len() > CHUNK {
        let parts: Vec<String> = bits.chunks(CHUNK).rev().map(hex_literal).collect();
        return format!("{{\n    {}\n  }}", parts.join(",\n    "));
    }
    let digits: String = bits
        .chunks(4)
        .rev()
        .map(|c| {
            let v = c.iter().enumerate().fold(0u32, |a, (k, &b)| a | (u32::from(b) << k));
            char::from_digit(v, 16).unwrap_or('0')
        })
        .collect();
    format!("{}'h{digits}", bits.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_literals_put_parameter_zero_in_the_lowest_bit() {
        assert_eq!(hex_literal(&[true, false, false, false, true]), "5'h11");
        assert_eq!(hex_literal(&[false, true]), "2'h2");
        let mut long = vec![false; 1030];
        long[1024] = true;
        assert_eq!(hex_literal(&long), format!("{{\n    6'h01,\n    1024'h{}\n  }}", "0".repeat(256)));
    }

    #[test]
    fn the_trainer_has_its_ports_and_the_update() {
        let net = Network::build("lut:2:4x1,groupsum:2".parse().unwrap(), 3, 2, 1).unwrap();
        let d = trainer_verilog("t", &net, &vec![false; net.n_params()]);
        assert_eq!((d.top.as_str(), d.n_x, d.n_label, d.n_params), ("t_trainer", 3, 1, 16));
        for needle in [
            "module t_step",
            "module t_predict",
            "module t_trainer",
            "output wire [15:0] p_out",
            "else if (in_valid && learn) p <= p ^ dp;",
            "assign tgt[3] = (in_y == 1'd1);",
        ] {
            assert!(d.text.contains(needle), "{needle} missing from\n{}", d.text);
        }
    }
}

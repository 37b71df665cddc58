//! The batched vote trainer as clocked Verilog: the hardware form of
//! [`crate::train::RdaVariant::HwVotes`], deciding exactly as the Rust rule does.
//!
//! Modules: `<name>_body` (`P x A -> B`, `x = {a, p}`), `<name>_grad` (`R[f]` restricted
//! to the parameters, `x = {dy, a, p}`, `y = dp`), `<name>_predict` (the classifier) and
//! the top `<name>_trainer`, whose ports are those of the faithful trainer
//! ([`super::verilog_trainer`]) plus `in_last`, high on the last example of a batch.
//!
//! Per accepted example (one per clock, `learn` high) the forward outputs, their error
//! against the label's targets and the example's activity (misclassified, or for a
//! group head within the margin) give four adjoints; four copies of `<name>_grad` turn
//! them into per-parameter votes, and each parameter adds `w * c0 + c1` to its flip
//! counter and `w * c2 + c3` to its keep counter (`W`-bit unsigned, saturating at
//! `2^W - 1`). On the `in_last` example the counters including it decide: a parameter
//! flips when `flip > keep` and its 16-bit draw from the xorshift64 register `s` is
//! below `ACCEPT`; then the counters clear and `s` steps. `rst` restores `P_INIT`,
//! `RNG_SEED` and zero counters; `p_load` loads `p_in` and clears the counters; a
//! word-serial write (`pw_we`) changes one word of `p` and leaves the counters. The
//! parameters do not change inside a batch.
//!
//! Registers: `NP` parameter bits, `2 * NP * W` counter bits, 64 generator bits.

use super::netlist::Netlist;
use super::verilog::{VerilogParams, module_name, write_verilog};
use super::verilog_trainer::{
    TrainerDesign, hex_literal, label_width, targets_verilog, word_port_logic, word_ports,
};
use crate::learn::Network;
use crate::learn::rda::param_gradient;
use crate::train::{ACCEPT_BITS, HwVoteParams, group_margin, salt};
use std::fmt::Write as _;

/// Writes the vote trainer of `net` under `v`, its parameters reset to `init`.
///
/// # Panics
/// If `init` does not have one bit per parameter of `net`.
#[must_use]
pub fn trainer_votes_verilog(name: &str, net: &Network, init: &[bool], v: &HwVoteParams) -> TrainerDesign {
    assert_eq!(init.len(), net.n_params(), "one initial value per parameter");
    let base = module_name(name);
    let grad = param_gradient(&net.circuit);
    let step_gates = grad.n_gates();
    let (n_x, n_y, np) = (net.circuit.n_args(), net.circuit.n_outputs(), net.n_params());
    let classifier = net.classifier();
    let n_index = classifier.n_outputs();
    let mut out = Vec::new();
    let vp = VerilogParams::default();
    let _ = write_verilog(&Netlist::indexed(&format!("{base}_body"), net.circuit.clone()), &vp, &mut out);
    let _ = write_verilog(&Netlist::indexed(&format!("{base}_grad"), grad), &vp, &mut out);
    let _ = write_verilog(&Netlist::indexed(&format!("{base}_predict"), classifier), &vp, &mut out);
    let mut t = String::from_utf8_lossy(&out).into_owned();
    let n_label = label_width(net.n_classes);
    let top = format!("{base}_trainer");
    let w = v.counter_bits as usize;
    let weight = v.positive_weight;
    let _ = writeln!(
        t,
        "// RDA trainer (hardware-exact votes): {n_x} input bits, {n_label} label bits, {np} parameters, \
         {w}-bit saturating flip/keep counters, weight {weight}, accept {}/{}, model {}.",
        v.accept,
        1u32 << ACCEPT_BITS,
        net.spec
    );
    let _ = writeln!(
        t,
        "module {top} #(\n  parameter [{}:0] P_INIT = {},\n  parameter [63:0] RNG_SEED = 64'h{:016x}\n) (",
        np - 1,
        hex_literal(init),
        v.initial_state()
    );
    let _ = writeln!(
        t,
        "  input  wire clk,\n  input  wire rst,\n  input  wire in_valid,\n  output wire in_ready,\n  \
         input  wire [{}:0] in_x,\n  input  wire [{}:0] in_y,\n  input  wire in_last,\n  input  wire learn,\n  \
         input  wire p_load,\n  input  wire [{}:0] p_in,\n  output wire [{}:0] p_out,\n{}  \
         output wire [{}:0] predict\n);",
        n_x - 1,
        n_label - 1,
        np - 1,
        np - 1,
        word_ports(np),
        n_index - 1
    );
    let _ = writeln!(t, "  localparam NP = {np};");
    let _ = writeln!(t, "  reg [NP-1:0] p;\n  reg [63:0] s;");
    t.push_str(&targets_verilog(net, n_y, n_label));
    let _ = writeln!(t, "  wire [{}:0] out;", n_y - 1);
    let _ = writeln!(t, "  {base}_body body_u (.x({{in_x, p}}), .y(out));");
    let _ = writeln!(t, "  {base}_predict predict_u (.x({{in_x, p}}), .y(predict));");
    t.push_str(&active_verilog(net, v, n_y));
    let _ = writeln!(t, "  wire keep_on = {};", if v.keep_from_all { "1'b1" } else { "active" });
    let _ = writeln!(t, "  wire [{}:0] err = out ^ tgt;", n_y - 1);
    let _ = writeln!(t, "  wire [{0}:0] act = {{{1}{{active}}}}, kon = {{{1}{{keep_on}}}};", n_y - 1, n_y);
    t.push_str("  wire [NP-1:0] g0, g1, g2, g3;\n");
    for (q, dy) in
        ["err & tgt & act", "err & ~tgt & act", "~err & tgt & kon", "~err & ~tgt & kon"].iter().enumerate()
    {
        let _ = writeln!(t, "  {base}_grad grad{q}_u (.x({{{dy}, in_x, p}}), .y(g{q}));");
    }
    t.push_str(&votes_verilog(np, w, weight, v.accept));
    t.push_str("  wire [63:0] s1 = s ^ (s << 13);\n  wire [63:0] s2 = s1 ^ (s1 >> 7);\n");
    t.push_str("  wire [63:0] s_next = s2 ^ (s2 << 17);\n");
    t.push_str(&word_port_logic(np));
    t.push_str("  assign in_ready = !rst && !p_load && !pw_we;\n  assign p_out = p;\n");
    let regs: Vec<String> =
        ["fc", "kc"].iter().flat_map(|c| (0..w).map(move |k| format!("{c}{k}"))).collect();
    let clear =
        |pad: &str| -> String { regs.iter().map(|r| format!("{pad}{r} <= {{NP{{1'b0}}}};\n")).collect() };
    let next: String = regs.iter().map(|r| format!("        {r} <= {r}n;\n")).collect();
    let _ = write!(
        t,
        "  always @(posedge clk) begin
    if (rst) begin
      p <= P_INIT;
      s <= RNG_SEED;
{c6}    end else if (p_load) begin
      p <= p_in;
{c6}    end else if (pw_we) begin
      p <= p_written;
    end else if (in_valid && learn) begin
      if (in_last) begin
        p <= p ^ flip;
        s <= s_next;
{c8}      end else begin
{next}      end
    end
  end
endmodule
",
        c6 = clear("      "),
        c8 = clear("        "),
    );
    TrainerDesign { text: t, top, n_x, n_label, n_params: np, n_index, step_gates, batched: true }
}

/// The counters and the batch-end decision, bit-sliced: register `fcK` (`kcK`) holds bit
/// `K` of every parameter's flip (keep) counter, so each step below is one `NP`-wide
/// vector operation (a simulator evaluates a few hundred of them per clock, not `NP`
/// copies of the per-parameter logic, whose wide partial drivers Icarus re-propagates
/// whole on every bit change). Per parameter it computes exactly
/// - `fcKn`: bit `K` of `min(fc + (g0 ? weight : 0) + g1, 2^W - 1)` (a ripple adder
///   with `g1` as carry-in; any carry past bit `W - 1` saturates), likewise `kcKn`
///   from `g2`, `g3`;
/// - `flip = (fcn > kcn) && (draw < accept)`, `draw` bit `K` being
///   `s[(i + K) mod 64] ^ salt(i)[K]` for parameter `i` (the Rust rule's
///   `rotr(s, i mod 64) as u16 ^ salt(i)`).
fn votes_verilog(np: usize, w: usize, weight: u32, accept: u32) -> String {
    let mut t = String::new();
    let regs: Vec<String> =
        ["fc", "kc"].iter().flat_map(|c| (0..w).map(move |k| format!("{c}{k}"))).collect();
    let _ = writeln!(t, "  reg [NP-1:0] {};", regs.join(", "));
    let zero = "{NP{1'b0}}";
    for (c, a, b) in [("fc", "g0", "g1"), ("kc", "g2", "g3")] {
        let _ = writeln!(t, "  wire [NP-1:0] {c}_cy0 = {b};");
        for k in 0..w {
            if (u64::from(weight) >> k) & 1 == 1 {
                let _ = writeln!(t, "  wire [NP-1:0] {c}_s{k} = {c}{k} ^ {a} ^ {c}_cy{k};");
                let _ = writeln!(
                    t,
                    "  wire [NP-1:0] {c}_cy{} = ({c}{k} & {a}) | ({c}_cy{k} & ({c}{k} ^ {a}));",
                    k + 1
                );
            } else {
                let _ = writeln!(t, "  wire [NP-1:0] {c}_s{k} = {c}{k} ^ {c}_cy{k};");
                let _ = writeln!(t, "  wire [NP-1:0] {c}_cy{} = {c}{k} & {c}_cy{k};", k + 1);
            }
        }
        // A weight with bits at or past the counter width saturates whenever it is added.
        let wide = if u64::from(weight) >> w != 0 { format!(" | {a}") } else { String::new() };
        let _ = writeln!(t, "  wire [NP-1:0] {c}_ov = {c}_cy{w}{wide};");
        for k in 0..w {
            let _ = writeln!(t, "  wire [NP-1:0] {c}{k}n = {c}_s{k} | {c}_ov;");
        }
    }
    // fcn > kcn, from the most significant bit down.
    let _ = writeln!(t, "  wire [NP-1:0] gt{w} = {zero}, eq{w} = {{NP{{1'b1}}}};");
    for k in (0..w).rev() {
        let _ = writeln!(t, "  wire [NP-1:0] gt{k} = gt{} | (eq{} & fc{k}n & ~kc{k}n);", k + 1, k + 1);
        let _ = writeln!(t, "  wire [NP-1:0] eq{k} = eq{} & ~(fc{k}n ^ kc{k}n);", k + 1);
    }
    // The draws, one plane per bit, and draw < accept.
    let rep = np.div_ceil(64);
    t.push_str("  wire [127:0] ss = {s, s};\n");
    for k in 0..ACCEPT_BITS as usize {
        let salt_plane: Vec<bool> = (0..np).map(|i| salt(i) >> k & 1 == 1).collect();
        let _ = writeln!(t, "  wire [{}:0] rr{k} = {{{rep}{{ss[{k} +: 64]}}}};", 64 * rep - 1);
        let _ = writeln!(t, "  wire [NP-1:0] r{k} = rr{k}[NP-1:0] ^ {};", hex_literal(&salt_plane));
    }
    if accept >= 1 << ACCEPT_BITS {
        let _ = writeln!(t, "  wire [NP-1:0] lt0 = {{NP{{1'b1}}}};");
    } else {
        let top = ACCEPT_BITS as usize;
        let _ = writeln!(t, "  wire [NP-1:0] lt{top} = {zero}, aq{top} = {{NP{{1'b1}}}};");
        for k in (0..top).rev() {
            let (lt, aq) = if accept >> k & 1 == 1 {
                (format!("lt{} | (aq{} & ~r{k})", k + 1, k + 1), format!("aq{} & r{k}", k + 1))
            } else {
                (format!("lt{}", k + 1), format!("aq{} & ~r{k}", k + 1))
            };
            let _ = writeln!(t, "  wire [NP-1:0] lt{k} = {lt}, aq{k} = {aq};");
        }
    }
    t.push_str("  wire [NP-1:0] flip = gt0 & lt0;\n");
    t
}

/// `active`: the example carries error. Group heads: `own - rival <= T` over the group
/// popcounts of `out` (own = the label's group); other heads: `predict != in_y`.
fn active_verilog(net: &Network, v: &HwVoteParams, n_y: usize) -> String {
    let Some((per, th)) = group_margin(net, v) else {
        return "  wire active = (predict != in_y);\n".into();
    };
    let c = n_y / per;
    let cw = (usize::BITS - per.leading_zeros()) as usize + 1;
    let mut s = String::new();
    for g in 0..c {
        let terms: Vec<String> = (g * per..(g + 1) * per).map(|j| format!("out[{j}]")).collect();
        let _ = writeln!(s, "  wire [{}:0] sc{g} = {};", cw - 1, terms.join(" + "));
    }
    let lw = label_width(net.n_classes);
    let mut own = String::from("sc0");
    for g in 1..c {
        own = format!("(in_y == {lw}'d{g}) ? sc{g} : {own}");
    }
    let _ = writeln!(s, "  wire [{}:0] own = {own};", cw - 1);
    // Rival of each label: the largest other group score.
    let mut rival = String::new();
    for l in 0..c {
        let mut m = format!("{{{cw}{{1'b0}}}}");
        for g in (0..c).filter(|&g| g != l) {
            let _ = writeln!(s, "  wire [{}:0] rv{l}_{g} = (sc{g} > {m}) ? sc{g} : {m};", cw - 1);
            m = format!("rv{l}_{g}");
        }
        rival = if l == 0 { m } else { format!("(in_y == {lw}'d{l}) ? {m} : {rival}") };
    }
    let _ = writeln!(s, "  wire [{}:0] rival = {rival};", cw - 1);
    let test = if th < -(per as i64) {
        "1'b0".to_string()
    } else if th >= 0 {
        format!("({{1'b0, own}} <= {{1'b0, rival}} + {}'d{th})", cw + 1)
    } else {
        format!("({{1'b0, own}} + {}'d{} <= {{1'b0, rival}})", cw + 1, -th)
    };
    let _ = writeln!(s, "  wire active = {test};");
    s
}

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
//! `RNG_SEED` and zero counters; `p_load` loads `p_in` and clears the counters. The
//! parameters do not change inside a batch.
//!
//! Registers: `NP` parameter bits, `2 * NP * W` counter bits, 64 generator bits.

use super::netlist::Netlist;
use super::verilog::{VerilogParams, module_name, write_verilog};
use super::verilog_trainer::{TrainerDesign, hex_literal, label_width, targets_verilog};
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
    // Sum width: the counter plus the largest increment `w + 1`, plus a bit.
    let sw = w + (u32::BITS - (weight + 1).leading_zeros()) as usize + 1;
    let salts: Vec<bool> = (0..np).flat_map(|i| (0..16).map(move |k| salt(i) >> k & 1 == 1)).collect();
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
         input  wire p_load,\n  input  wire [{}:0] p_in,\n  output wire [{}:0] p_out,\n  \
         output wire [{}:0] predict\n);",
        n_x - 1,
        n_label - 1,
        np - 1,
        np - 1,
        n_index - 1
    );
    let _ = writeln!(t, "  localparam W = {w}, SW = {sw}, NP = {np};");
    let _ = writeln!(t, "  localparam [SW-1:0] CAP = {{SW{{1'b0}}}} | {{W{{1'b1}}}};");
    let _ = writeln!(t, "  localparam [SW-1:0] WEIGHT = {weight};");
    let _ = writeln!(t, "  localparam [16:0] ACCEPT = 17'd{};", v.accept);
    let _ = writeln!(t, "  localparam [{}:0] SALTS = {};", 16 * np - 1, hex_literal(&salts));
    let _ = writeln!(t, "  reg [NP-1:0] p;\n  reg [63:0] s;\n  reg [NP*W-1:0] fc, kc;");
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
    t.push_str(
        "  wire [NP*W-1:0] fc_next, kc_next;
  wire [NP-1:0] flip;
  wire [127:0] ss = {s, s};
  genvar i;
  generate
    for (i = 0; i < NP; i = i + 1) begin : vote
      wire [SW-1:0] fsum = fc[i*W +: W] + (g0[i] ? WEIGHT : {SW{1'b0}}) + g1[i];
      wire [SW-1:0] ksum = kc[i*W +: W] + (g2[i] ? WEIGHT : {SW{1'b0}}) + g3[i];
      assign fc_next[i*W +: W] = (fsum > CAP) ? CAP[W-1:0] : fsum[W-1:0];
      assign kc_next[i*W +: W] = (ksum > CAP) ? CAP[W-1:0] : ksum[W-1:0];
      wire [15:0] r = ss[(i % 64) +: 16] ^ SALTS[16*i +: 16];
      assign flip[i] = (fc_next[i*W +: W] > kc_next[i*W +: W]) && ({1'b0, r} < ACCEPT);
    end
  endgenerate
  wire [63:0] s1 = s ^ (s << 13);
  wire [63:0] s2 = s1 ^ (s1 >> 7);
  wire [63:0] s_next = s2 ^ (s2 << 17);
  assign in_ready = !rst && !p_load;
  assign p_out = p;
  always @(posedge clk) begin
    if (rst) begin
      p <= P_INIT;
      s <= RNG_SEED;
      fc <= {NP*W{1'b0}};
      kc <= {NP*W{1'b0}};
    end else if (p_load) begin
      p <= p_in;
      fc <= {NP*W{1'b0}};
      kc <= {NP*W{1'b0}};
    end else if (in_valid && learn) begin
      if (in_last) begin
        p <= p ^ flip;
        s <= s_next;
        fc <= {NP*W{1'b0}};
        kc <= {NP*W{1'b0}};
      end else begin
        fc <= fc_next;
        kc <= kc_next;
      end
    end
  end
endmodule
",
    );
    TrainerDesign { text: t, top, n_x, n_label, n_params: np, n_index, step_gates, batched: true }
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

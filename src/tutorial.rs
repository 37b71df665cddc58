//! A tutorial for researchers: from a hand-built circuit to a trained, optimised AIG.
//!
//! This module has no items; it is a walk through the library in runnable examples
//! (each block is a doctest, `cargo test --doc tutorial`). It follows the path every
//! model takes in circuitlearn: a parametrised Boolean circuit `f : P x A -> B`, its
//! reverse derivative `R[f]` (also a circuit), an update rule built from it, the
//! [`Trainer`](crate::Trainer) that runs the rule, and the lowering of the
//! trained circuit to an AIG that the optimisation passes work on.
//!
//! # 1. Building a circuit
//!
//! A [`Circuit<S>`](crate::Circuit) is a flat arena of gates over a signature
//! `S`; for Boolean circuits `S` is [`Bool`](crate::Bool). A
//! [`CircuitBuilder`](crate::CircuitBuilder) is created with the number of
//! parameter inputs and argument inputs (parameters come first), gates are added by the
//! [`BoolBuild`](crate::BoolBuild) methods (`and`, `xor`, `or`, `not`, `mux`,
//! `lut`, `constant`), and `finish` names the outputs. `eval_one` evaluates one example.
//!
//! ```
//! use circuitlearn::{Bool, BoolBuild, CircuitBuilder};
//!
//! // A full adder: (a, b, c) -> (sum, carry). No parameters, three arguments.
//! let mut b = CircuitBuilder::<Bool>::new(0, 3);
//! let x = b.args();
//! let ab = b.xor(x[0], x[1]);
//! let sum = b.xor(ab, x[2]);
//! let g = b.and(x[0], x[1]);
//! let p = b.and(ab, x[2]);
//! let carry = b.or(g, p);
//! let adder = b.finish(vec![sum, carry])?;
//!
//! assert_eq!((adder.n_inputs(), adder.n_outputs()), (3, 2));
//! assert_eq!(adder.eval_one(&[true, true, false]), vec![false, true]); // 1 + 1 = 0b10
//! assert_eq!(adder.eval_one(&[true, true, true]), vec![true, true]); // 1 + 1 + 1 = 0b11
//!
//! // Circuits compose in sequence (`then`) and in parallel (`tensor`).
//! let both = adder.tensor(&adder); // 6 inputs, 4 outputs
//! assert_eq!(both.eval_one(&[true, false, false, false, true, true]), vec![true, false, false, true]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! A *parametrised* circuit reserves its first inputs for parameters. The workhorse of
//! the learned models is the LUT whose table is the parameters:
//!
//! ```
//! use circuitlearn::{Bool, BoolBuild, CircuitBuilder};
//!
//! // P x A -> B with P = 4 table bits, A = 2 address bits.
//! let mut b = CircuitBuilder::<Bool>::new(4, 2);
//! let (table, x) = (b.params(), b.args());
//! let y = b.lut(&table, &x);
//! let lut2 = b.finish(vec![y])?;
//! assert_eq!((lut2.n_params(), lut2.n_args()), (4, 2));
//! // Inputs are the parameters, then the arguments; address bit 0 is the first argument.
//! // Table 0110 (entry s at position s) is XOR:
//! let xor_table = [false, true, true, false];
//! for (a0, a1) in [(false, false), (false, true), (true, false), (true, true)] {
//!     let mut inputs = xor_table.to_vec();
//!     inputs.extend([a0, a1]);
//!     assert_eq!(lut2.eval_one(&inputs), vec![a0 ^ a1]);
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # 2. The reverse derivative `R[f]`
//!
//! [`rdiff`](crate::rdiff) turns `f : X -> Y` into `R[f] : X x Y -> X`, again a
//! circuit over the same signature: its inputs are `f`'s inputs (parameters included)
//! followed by one change `dy` per output, its outputs one change per input. Over `Z2`,
//! `R[and](a, b, dy) = (dy & b, dy & a)`: a change of the output is sent to an input
//! exactly where that input can flip the output.
//!
//! ```
//! use circuitlearn::{Bool, BoolBuild, CircuitBuilder, rdiff};
//!
//! let mut b = CircuitBuilder::<Bool>::new(0, 2);
//! let x = b.args();
//! let y = b.and(x[0], x[1]);
//! let and = b.finish(vec![y])?;
//! let r = rdiff(&and);
//! assert_eq!((r.n_inputs(), r.n_outputs()), (3, 2)); // (a, b, dy) -> (da, db)
//! assert_eq!(r.eval_one(&[true, false, true]), vec![false, true]); // only b can flip a & b
//! assert_eq!(r.eval_one(&[true, true, false]), vec![false, false]); // no change asked
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Training evaluates `R[f]` on many examples at once. A
//! [`BitMatrix`](crate::BitMatrix) holds one row per circuit input and one bit
//! per example, 64 examples per `u64` word; [`eval_lanes`](crate::eval_lanes)
//! (or a compiled [`Program`](crate::Program)) evaluates a circuit on every
//! example bit-parallel, and gives the same bits as `eval_one` example by example.
//!
//! ```
//! use circuitlearn::{BitMatrix, Bool, BoolBuild, CircuitBuilder, EvalParams, eval_lanes, rdiff};
//!
//! // f(p, x) = LUT_p(x0, x1): R[f] tells which table entry and which address bit an
//! // output change reaches.
//! let mut b = CircuitBuilder::<Bool>::new(4, 2);
//! let (table, x) = (b.params(), b.args());
//! let y = b.lut(&table, &x);
//! let f = b.finish(vec![y])?;
//! let r = rdiff(&f); // inputs: 4 table bits, 2 address bits, dy; outputs: 6 changes
//!
//! // Every input of R[f]: all 2^7 patterns, one example each.
//! let examples: Vec<Vec<bool>> = (0..128u32).map(|v| (0..7).map(|i| v >> i & 1 == 1).collect()).collect();
//! let lanes = BitMatrix::from_examples(7, &examples);
//! let out = eval_lanes(&r, &lanes, &EvalParams::default());
//! assert_eq!((out.rows(), out.examples()), (6, 128));
//! for (e, ex) in examples.iter().enumerate() {
//!     assert_eq!(out.example(e), r.eval_one(ex));
//!     // The change of table entry s is dy where the address is s, else 0.
//!     let address = usize::from(ex[4]) | usize::from(ex[5]) << 1;
//!     for s in 0..4 {
//!         assert_eq!(out.example(e)[s], ex[6] && s == address);
//!     }
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Reverse derivative ascent (RDA) uses exactly this: with `dy = y ^ f(p, x)` (the
//! error), the parameter part `R[f]((p, x), dy)_P` is the change that moves `p`
//! towards the target. [`rda_step`](crate::rda_step) builds the whole step
//! `P x (A, Y) -> P` as one circuit, composed from lenses
//! (`(model ⊗ id_Y) ; xor_loss ; error_feedback`):
//!
//! ```
//! use circuitlearn::{Bool, BoolBuild, CircuitBuilder, rda_step};
//!
//! let mut b = CircuitBuilder::<Bool>::new(4, 2);
//! let (table, x) = (b.params(), b.args());
//! let y = b.lut(&table, &x);
//! let step = rda_step(&b.finish(vec![y])?);
//! // Parameters in; (x0, x1, target) as arguments; the updated parameters out.
//! assert_eq!((step.n_params(), step.n_args(), step.n_outputs()), (4, 3, 4));
//! // From an all-zero table, the example (x = 11, target 1) sets entry 3.
//! assert_eq!(step.eval_one(&[false, false, false, false, true, true, true]), vec![false, false, false, true]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # 3. A model and the training engine
//!
//! A model is a [`Network`](crate::Network): a parametrised circuit from input
//! bits to output bits plus a head that reads the outputs as a class. The usual way to
//! get one is a [`ModelSpec`](crate::ModelSpec) (the `--model` strings of the
//! command line); [`RdaRule`](crate::RdaRule) is the update rule of the RDA
//! family, and a [`Trainer`](crate::Trainer) runs any rule: epochs, the visiting
//! order, the random generator, limits, hooks and checkpoints.
//!
//! ```
//! use circuitlearn::{BitMatrix, Init, Network, RdaRule, RdaVariant, StopReason, Trainer, predict};
//!
//! // 3-input majority, every input pattern once.
//! let examples: Vec<[bool; 3]> = (0..8).map(|v| [v & 1 == 1, v & 2 == 2, v & 4 == 4]).collect();
//! let labels: Vec<u32> = examples.iter().map(|e| u32::from(e.iter().filter(|b| **b).count() >= 2)).collect();
//! let inputs = BitMatrix::from_examples(3, &examples);
//!
//! // One lookup table over all input bits, label bits read as the class index.
//! let net = Network::build("table".parse()?, 3, 2, 0)?;
//! let rule = RdaRule::new(&net, &inputs, &labels, RdaVariant::Faithful).init(Init::Zeros).shuffle(false);
//! let (rule, report) = Trainer::new().epochs(5).seed(0).fit(rule);
//! // One pass of faithful RDA writes every table entry; the run stops as soon as it is perfect.
//! assert_eq!(report.stop, StopReason::Perfect { epoch: 1 });
//! assert_eq!(predict(&net, rule.params(), &inputs), labels);
//! println!("{report}"); // rda: 1 epochs, perfect on the training set after epoch 1 (...)
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Layered LUT networks train with vote counting ([`RdaVariant::Votes`]), where each
//! batch evaluates `R[f]_P` bit-parallel and each parameter flips when its flip votes
//! outweigh its keep votes ([`VoteParams`]). The hook of
//! [`Trainer::run`](crate::Trainer::run) sees every epoch's end; a
//! [`Checkpoint`](crate::Checkpoint) taken there, stored as bytes and restored,
//! continues to exactly the parameters of an uninterrupted run:
//!
//! [`RdaVariant::Votes`]: crate::RdaVariant::Votes
//! [`VoteParams`]: crate::VoteParams
//!
//! ```
//! use circuitlearn::{BitMatrix, Checkpoint, Head, Network, RdaEpoch, RdaRule, RdaVariant, Trainer, VoteParams};
//!
//! // y = (x0 & x1) | (x2 ^ x3) on all 16 patterns, two copies each.
//! let examples: Vec<Vec<bool>> = (0..32u32).map(|v| (0..4).map(|i| v >> i & 1 == 1).collect()).collect();
//! let labels: Vec<u32> = examples.iter().map(|x| u32::from((x[0] && x[1]) || (x[2] ^ x[3]))).collect();
//! let inputs = BitMatrix::from_examples(4, &examples);
//!
//! // Two layers of 2-input LUTs (wiring drawn from seed 7), 8 outputs summed in 2 groups.
//! let net = Network::build("lut:2:8x2,groupsum:2".parse()?, 4, 2, 7)?;
//! let votes = RdaVariant::Votes(VoteParams::for_head(Head::GroupSum(2), 2));
//! let rule = || RdaRule::new(&net, &inputs, &labels, votes).batch(8);
//! let trainer = Trainer::new().epochs(6).seed(1);
//!
//! // An uninterrupted run, keeping the checkpoint taken after epoch 3.
//! let mut whole = rule();
//! let mut saved: Option<Vec<u8>> = None;
//! let report = trainer.run(&mut whole, None, |end| {
//!     if end.epoch() == 3 {
//!         saved = Some(end.checkpoint().to_bytes());
//!     }
//! })?;
//! println!("{report}");
//!
//! // A second run resumed from the bytes ends with the same parameters and history.
//! let start = Checkpoint::<RdaEpoch>::from_bytes(&saved.expect("the run reached epoch 3"))?;
//! assert_eq!(start.epoch(), 3);
//! let mut resumed = rule();
//! let again = trainer.run(&mut resumed, Some(start), |_| {})?;
//! assert_eq!(resumed.params(), whole.params());
//! assert_eq!(again.history, report.history);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # 4. A hand-built model
//!
//! Any parametrised Boolean circuit can be trained: wrap it in a `Network` with a head
//! that fits its outputs. Here a "gated LUT" `y = LUT_t(x0, x1) & (x2 | m)` with a
//! learned table `t` and a learned mask bit `m` (5 parameters) learns
//! `y = (x0 ^ x1) & x2` with faithful RDA; the engine sees only the circuit, so the
//! generic `R[f]` is what trains it.
//!
//! ```
//! use circuitlearn::{BitMatrix, Bool, BoolBuild, CircuitBuilder, Init, ModelSpec, Network, RdaRule, RdaVariant, Trainer, predict};
//!
//! let mut b = CircuitBuilder::<Bool>::new(5, 3);
//! let (p, x) = (b.params(), b.args());
//! let t = b.lut(&p[..4], &x[..2]);
//! let gate = b.or(x[2], p[4]);
//! let y = b.and(t, gate);
//! let circuit = b.finish(vec![y])?;
//!
//! // One output bit read as the class index (the `binary` head) over 2 classes.
//! let spec: ModelSpec = "table,binary".parse()?; // only its head is read here
//! let net = Network { spec, circuit, n_classes: 2, layers: None, vote_weights: None };
//!
//! let examples: Vec<Vec<bool>> = (0..8u32).map(|v| (0..3).map(|i| v >> i & 1 == 1).collect()).collect();
//! let labels: Vec<u32> = examples.iter().map(|x| u32::from((x[0] ^ x[1]) && x[2])).collect();
//! let inputs = BitMatrix::from_examples(3, &examples);
//!
//! let rule = RdaRule::new(&net, &inputs, &labels, RdaVariant::Faithful).init(Init::Zeros);
//! let (rule, report) = Trainer::new().epochs(20).seed(3).fit(rule);
//! assert_eq!(predict(&net, rule.params(), &inputs), labels, "{report}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # 5. From the trained circuit to an optimised AIG
//!
//! [`Network::classifier`](crate::Network::classifier) is the whole classifier
//! (body and head, output the class index in binary). Lowered with its trained
//! parameters folded in ([`Aig::from_circuit_with`](crate::Aig::from_circuit_with)),
//! it becomes an AIG; a pass script ([`parse_script`](crate::parse_script))
//! runs on it ([`run_script`](crate::run_script)), with every
//! function-preserving pass proven equivalent when `check` is set. This is what
//! `circuitlearn train` counts as `and_nodes`.
//!
//! ```
//! use circuitlearn::{Aig, BitMatrix, Init, LowerParams, Network, PassContext, RdaRule, RdaVariant, Trainer, classes_of_indices, parse_script, predict, run_script};
//!
//! let examples: Vec<[bool; 3]> = (0..8).map(|v| [v & 1 == 1, v & 2 == 2, v & 4 == 4]).collect();
//! let labels: Vec<u32> = examples.iter().map(|e| u32::from(e.iter().filter(|b| **b).count() >= 2)).collect();
//! let inputs = BitMatrix::from_examples(3, &examples);
//! let net = Network::build("table".parse()?, 3, 2, 0)?;
//! let rule = RdaRule::new(&net, &inputs, &labels, RdaVariant::Faithful).init(Init::Zeros);
//! let (rule, _) = Trainer::new().epochs(5).fit(rule);
//!
//! let lower = LowerParams { exact_inputs: 3, exact_max_nodes: 12 };
//! let aig = Aig::from_circuit_with(&net.classifier(), Some(rule.params()), &lower);
//! let script = parse_script("strash,fraig,balance", &PassContext::default())?;
//! let (optimised, stats) = run_script(&aig, &script, true)?;
//! for s in &stats {
//!     println!("{}: {} -> {} ANDs", s.pass, s.ands_before, s.ands_after);
//! }
//! // Majority of three needs 4 AND nodes, and exact synthesis finds them.
//! assert_eq!(optimised.n_ands(), 4);
//! // The AIG computes the trained classifier's class index on every example.
//! let by_aig = classes_of_indices(&optimised.simulate(&inputs), net.n_classes);
//! assert_eq!(by_aig, predict(&net, rule.params(), &inputs));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! From here the writers ([`to_verilog`](crate::to_verilog), [`to_blif`](crate::to_blif), [`write_aiger`](crate::write_aiger)) export the AIG or the bound circuit as
//! Verilog, BLIF or AIGER, and [`cec`](crate::cec) proves two circuits equivalent.
//! The whole path from options to files is [`pipeline`](crate::pipeline), which is what
//! `circuitlearn train` runs.
//!
//! # 6. The same core over rings
//!
//! Nothing above is specific to `Z2`: circuits, lenses and `R[-]` are generic over the
//! gate signature. [`Poly`](crate::Poly) gives polynomial circuits over
//! `Z_(2^k)` and `Z_p`, where `R[f]` is the usual derivative (sums and products of the
//! ring), and [`train::RingRule`](crate::RingRule) trains them in fixed point:
//!
//! ```rust
//! use circuitlearn::{CircuitBuilder, Poly, PolyBuild, PolyOp, Zp, rdiff};
//!
//! // f(x0, x1) = x0 * x1 + x0 over Z_251; R[f](x, dy) = (dy * (x1 + 1), dy * x0).
//! let mut b = CircuitBuilder::<Poly<Zp<251>>>::new(0, 2);
//! let x = b.args();
//! let m = b.poly(PolyOp::Mul, &[x[0], x[1]]);
//! let y = b.poly(PolyOp::Add, &[m, x[0]]);
//! let r = rdiff(&b.finish(vec![y])?);
//! assert_eq!(r.eval_one(&[3, 5, 2]), vec![12, 6]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

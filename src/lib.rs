#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

// The implementation lives in private modules; the crate root below is the whole public API,
// grouped by what a user does with it. Two modules are public: `pipeline` (the library form of
// `circuitlearn train`) and `tutorial` (documentation only).

mod aig;
mod bench;
mod cat;
mod circuit;
mod cli;
mod data;
mod dist;
mod domain;
mod error;
mod io;
mod lanes;
mod learn;
mod map;
mod pass;
pub mod pipeline;
mod sat;
mod smooth;
mod tools;
mod train;
pub mod tutorial;
mod verify;

// Circuits, their semantics, and the reverse derivative category.
pub use cat::learner::{displacement, feedback, learner, step};
pub use cat::{Lens, ReverseRules, rdiff};
pub use circuit::{Circuit, CircuitBuilder, GateId, Semantics, Signature, WireId};
pub use error::{ArityMismatch, InvalidCircuit};

// Domains: Boolean circuits (polynomials over Z2), polynomial circuits over finite rings,
// their bit-blasting, and bit-sliced ring evaluation.
pub use domain::blast::{BlastError, BlastStyle, bit_blast, bit_blast_zp, zp_width};
pub use domain::blast_ring::{bit_blast_ring, bit_blast_ring_styled};
pub use domain::ring::{Poly, PolyBuild, PolyOp, Ring, Z2k, Zp, bind_ring_params};
pub use domain::ring_kind::RingKind;
pub use domain::ring_lanes;
pub use domain::sat::{Sat, SatOp};
pub use domain::{Bool, BoolBuild, LutLayer, LutLayers, LutNetwork, Propagation, SUM_MAX, bind_params};

// Bit-parallel evaluation: 64 examples per `u64` lane word.
pub use lanes::{
    BitMatrix, EvalParams, LANES, MAX_TILE_WORDS, Program, ReverseProgram, SIMD_ENV, SimdLevel, TILE_BYTES,
    WordMatrix, all_patterns, eval_lanes, words_for,
};

// Data: built-in and file datasets, encoders to bits, image sets.
pub use data::idx::{
    FASHION_MNIST_CLASSES, FASHION_MNIST_DIR, IdxArray, LabelledImages, encode_u8, parse_idx_bytes, read_idx,
    read_image_dir, read_images, read_labels,
};
pub use data::{
    BUILTIN_NAMES, BitRule, DataError, Dataset, Encoder, Encoding, Features, FoldError, MAX_ENCODED_BITS,
    MAX_TEXT_BYTES, MemoryLimit, ValidFold, builtin, decode_text, first_per_class, load_dataset,
    load_dataset_within, parse_csv, parse_pla, random_split, read_csv, read_csv_within, read_pla,
    read_pla_within, stratified_split,
};

// Models: LUT networks and their heads, relaxed gate networks, fixed-point ring models.
pub use learn::fixed;
pub use learn::head::{accuracy, class_of_index, classes_of_indices};
pub use learn::network::MAX_INPUT_BITS;
pub use learn::portfolio::{FAMILY_NAMES, Family, PAIR_XOR_MAX_INPUTS};
pub use learn::predict::{forward, predict};
pub use learn::rda::rda_step;
pub use learn::relaxed::{PixelGrid, RelaxedNet, RelaxedSpec, StraightThroughChoice};
pub use learn::ring_model::{FeatureCoding, RingModel, RingModelError, RingModelSpec};
pub use learn::spec::SpecError;
pub use learn::vote_weights::VoteWeights;
pub use learn::{Body, Head, MAX_PARAMS, ModelError, ModelSpec, Network};

// The training engine: one `Trainer` over update rules, checkpoints, reports.
pub use train::{
    Checkpoint, CheckpointError, Draws, EarlyStop, EpochEnd, FixedRun, HwVoteError, HwVoteParams, Init,
    IrisRing, Order, Phase, RdaEpoch, RdaRule, RdaVariant, RelaxedEpoch, RelaxedParams, RelaxedRule, Report,
    RewireParams, RewireStats, RingBatchRule, RingEpoch, RingLanes, RingRule, Rule, Schedule, SmoothEpoch,
    SmoothParams, SmoothRule, StopReason, TeacherParams, TeacherReport, TeacherTargets, Trainer, VoteParams,
    numeric_optics_iris, polycirc_iris, teacher_targets, train_relaxed,
};

// Smooth (f32) models, for comparison and for the relaxed gates.
pub use smooth::examples::Examples;
pub use smooth::layers::{SmoothModel, SmoothSpec, WeightInit};
pub use smooth::loss;
pub use smooth::lut::{
    lut_choice_grad_weights, lut_grad_inputs, lut_grad_tables, soft_choice, soft_choice_grad_weights,
    soft_lut,
};
pub use smooth::optim::{
    AdaGrad, Adam, Momentum, Nesterov, Optimizer, OptimizerSpec, OptimizerState, Sgd, StateMismatch,
};
pub use smooth::{
    PackedBits, SmoothCircuit, SmoothError, SmoothOp, Tensor, check_shapes, eval_tensors, op_times,
    parameter_changes, retain_freed_memory,
};

// And-inverter graphs, optimisation passes, LUT mapping and equivalence checking.
pub use aig::{Aig, Lit};
pub use map::{
    CheckOutcome, CheckParams, CheckReport, Lut, LutNetlist, MapError, MapParams, MapStats, Signal,
    check_mapping, map_luts,
};
pub use pass::cec::CecError;
pub use pass::cec::{CEC_LIMITS, CecMethod, CecParams, CecReport, Verdict, cec, cec_with};
pub use pass::input_care::{CareFill, fill_data_dont_cares, fill_input_dont_cares};
pub use pass::{
    Balance, ConstProp, DontCare, Fraig, FraigStats, LocalPass, LocalStats, LowerParams, PASSES, Pass,
    PassContext, PassError, PassStats, Refactor, RefactorParams, Resub, ResubParams, Rewrite, RewriteParams,
    RunOptions, SCRIPTS, Strash, Sweep, by_name, parse_script, refactor, resub, rewrite, run_script,
    run_script_with,
};
pub use pass::{
    BudgetReport, DEFAULT_SYNTH_BUDGET, DEFAULT_SYNTH_SCRIPT, ScriptRun, ScriptStop, WALL_LIMIT_FACTOR,
    estimated_seconds, run_budgeted,
};
pub use sat::{SatLimits, SatStats};

// Files: netlists, models, Verilog, BLIF, AIGER, truth tables, testbenches; atomic writes.
pub use io::aiger::{AigerFormat, netlist_to_aiger, write_aiger, write_netlist_aiger};
pub use io::aiger_reader::{AigerError, parse_aiger, read_aiger, read_aiger_netlist};
pub use io::blif::{BlifParams, CoverStyle, to_blif, write_blif};
pub use io::blif_reader::{BlifError, parse_blif, read_blif};
pub use io::netlist::NameError;
pub use io::ring_model::RingModelFile;
pub use io::testbench::{
    BenchFiles, BenchParams, Testbench, TestbenchError, random_inputs, testbench_with, write_testbench,
    write_testbench_with,
};
pub use io::truth::{Function, MAX_FUNCTION_INPUTS, TruthError, parse_truth, read_truth};
pub use io::verilog::{LutStyle, VerilogParams, module_name, to_verilog, write_verilog};
pub use io::verilog_ring::{z2k_verilog, zp_verilog};
pub use io::verilog_trainer::trainer_verilog;
pub use io::{ModelFile, ModelFileError, Netlist, PortNames, write_atomic, write_atomic_with};

// External tools: Icarus, Yosys, ABC, each run with resource limits.
pub use tools::{
    Cec, IcarusOutcome, MAX_VVP_PARTS, Matching, Tool, ToolError, ToolLimits, YosysCounts, YosysFlow,
    abc_cec, run_icarus, run_icarus_every, run_icarus_limited, run_icarus_parts, vvp_parts, yosys_counts,
};

// Scale-out: the communicator (MPI with feature `mpi`, one process otherwise).
#[cfg(feature = "mpi")]
pub use dist::MpiComm;
pub use dist::{Comm, Local, Session, comm_world, init_mpi};

// The command line, as a library call, and the paper reproductions it runs.
pub use cli::{Cli, error_line, exit_code, repro_numeric_optics_iris, repro_polycirc_iris, run};

// Benchmark fixtures (`circuitlearn bench`, `benches/`).
pub use bench::synth_scaling::{ScalingRow, epfl_chain, synth_scaling};
pub use bench::{TRAIN_REFERENCE_MODEL, TrainReference, random_bits, random_gate_circuit, random_ring_rows};

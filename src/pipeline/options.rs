//! The options of a training run as given: command-line flags, keys of a
//! `--config FILE.toml` and presets are one struct ([`TrainOptions`]), every field
//! optional, so that layers can be stacked (defaults < preset < file < flags) and the
//! effective configuration written back as a file that `--resume` reads.

use clap::Args;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Options of `train`, as flags (`--input-candidates 32`) or TOML keys
/// (`input-candidates = 32`). Unset options take the defaults of the domain
/// ([`TrainConfig::resolve`](super::TrainConfig::resolve) documents them).
#[derive(Clone, Debug, Default, PartialEq, Args, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct TrainOptions {
    /// A named recipe (`train --list-presets`) under the other options: fashion-mnist,
    /// fashion-mnist-small, fashion-mnist-boosted, fashion-mnist-cascade,
    /// fashion-mnist-cascade-moved, fashion-mnist-rda;
    /// `none` for no preset [default: fashion-mnist-cascade for --data
    /// fashion-mnist with no --model, --optimizer, --domain or --init; fashion-mnist-rda
    /// for --data fashion-mnist with a Boolean --optimizer and no --model].
    #[arg(long)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preset: Option<String>,
    /// Training data: iris, wine, breast-cancer, digits, fashion-mnist (Debian's
    /// dataset-fashion-mnist), a directory of MNIST-layout IDX files (its t10k-* files
    /// are the test set), or a .csv, .csv.gz, .pla or .pla.gz file [default: iris].
    #[arg(long)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<String>,
    /// Separate test data (same format); without it a stratified --test-fraction of
    /// --data is held out.
    #[arg(long)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub test: Option<String>,
    /// Fraction of --data held out for testing when --test is not given, in (0, 1)
    /// [default: 0.3].
    #[arg(long)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub test_fraction: Option<f64>,
    /// Choose settings without the test split: the training examples (image data's
    /// training images; otherwise what --test or --test-fraction leaves) of each class, in
    /// the order loaded, cut into F contiguous parts of near-equal size; part I of every
    /// class (1 <= I <= F, F >= 2) is scored in the test split's place, which is not
    /// evaluated, and the rest train (stratified folds, the same for every seed). `sweep`
    /// over valid-fold = ["1/5", "2/5", ...] tabulates the folds.
    #[arg(long, value_name = "I/F")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub valid_fold: Option<String>,
    /// Domain: bool (Boolean circuits trained by RDA), relaxed (relaxed logic gates or
    /// LUTs trained by Adam and discretised), smooth (f32 tensor models), poly
    /// (fixed-point polynomial circuits over --ring) [default: poly with --ring; from
    /// --model: gates:... is relaxed, mlp:/cnn:/conv/linear/dense/hidden:N smooth, else bool;
    /// --domain smooth with a gates: or lut: model means relaxed].
    #[arg(long)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    /// Model spec. bool: table | pseudolinear | `lut:[K1/]K:[F/]WxD[:O]` (K1: first
    /// layer's LUT inputs, F: its width, O: last layer's width), with a head ,binary
    /// ,onehot or ,groupsum:C [default: lut:6:64x1,groupsum:C for C classes]; relaxed:
    /// `gates:[F/]WxD[:O]` or `lut:[K1/]K:[F/]WxD[:O]`; smooth: mlp:H1xH2..., cnn:F1xF2:H, conv,
    /// linear, dense, hidden:N [default: mlp:256x128]; poly: linear or mlp:H [default: linear].
    #[arg(long)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// bool: rda (faithful on table, votes otherwise), faithful, votes, parity, votes-hw
    /// (votes as the hardware trainer counts them, `export --trainer`); relaxed:
    /// adam; smooth: sgd, momentum, nesterov, adagrad, adam [default: rda; adam].
    #[arg(long)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub optimizer: Option<String>,
    /// poly: the ring the model computes in: z2k:K (K-bit wrapping words, K in 1..=64),
    /// zp:P (integers mod a prime P < 2^32) or sat:N (integers saturating at -N and N,
    /// N in 1..=2^62); implies --domain poly [default: z2k:32].
    #[arg(long)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ring: Option<String>,
    /// poly: fraction bits F of the fixed-point numbers (features are standardised, then
    /// scaled by 2^F and rounded), 1..=24 [default: 8].
    #[arg(long, value_name = "F")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frac_bits: Option<u8>,
    /// bool: xor; smooth: softmax-ce or mse [default: xor; softmax-ce].
    #[arg(long)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loss: Option<String>,
    /// Numeric feature encoding (bool, relaxed): threshold | thermometer:B (B per-feature
    /// quantile thresholds) | uniform:B (B equally spaced thresholds), B in 1..=4096
    /// [default: thermometer:8].
    #[arg(long)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encoding: Option<String>,
    /// Passes over the training data [default: 20; 30 poly].
    #[arg(long)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub epochs: Option<usize>,
    /// Examples per batch, at least 1 [default: 1024 bool; 128 relaxed and smooth]. Under
    /// mpirun, relaxed and smooth batches split over ranks in chunks of 128 examples.
    #[arg(long)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub batch: Option<usize>,
    /// bool votes: probability that a winning flip is applied, in (0, 1]; relaxed and
    /// smooth: the optimiser's step size, > 0; poly: the fixed-point gradient step, at
    /// least 2^-F [default: 0.3; 0.01 relaxed; 0.001 smooth adam/adagrad, 0.01 other
    /// smooth optimisers; 0.05 poly].
    #[arg(long)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lr: Option<f64>,
    /// Seed of the split, the wiring, the initial parameters and training [default: 0].
    #[arg(long)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Worker threads, 0 = one per core, at most 1024 (results do not depend on it)
    /// [default: 0].
    #[arg(long)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub threads: Option<usize>,
    /// Refuse a run whose estimated peak memory (the encoded data plus the model's
    /// parameters, optimiser state and working set: about 48 bytes per Boolean
    /// parameter, 20 bytes per relaxed logit plus 32 bytes per node and example of a
    /// batch, 16 bytes per smooth weight) exceeds this, e.g. 4G [default: the memory
    /// available].
    #[arg(long, value_name = "SIZE")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_memory: Option<String>,
    /// Stop after the first epoch that ends past this many seconds of training.
    #[arg(long, value_name = "SECONDS")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_limit: Option<f64>,
    /// bool votes: an example carries error while its margin (true group minus best rival,
    /// over the group size) is at most this, in [0, 1] [default: 0.1].
    #[arg(long)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub margin: Option<f64>,
    /// bool votes: weight of votes from outputs whose target is 1, > 0 [default:
    /// classes - 1 for groupsum, else 1].
    #[arg(long)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub positive_weight: Option<f64>,
    /// bool votes on LUT networks: add the votes of a LUT's readers instead of their XOR.
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sum_fanouts: Option<bool>,
    /// bool votes on LUT networks of two or more layers: after every epoch but the last,
    /// offer this fraction of the output LUTs (at random), and each of their hidden-layer
    /// sources in turn new sources, chosen among --rewire-candidates by the vote rule's
    /// score of what the output wants of it (given its other sources as they stand), and
    /// a table fitted to that, kept where it scores higher; in [0, 1] (model.json stores
    /// the wiring; 0: none) [default: 1 in the fashion-mnist-rda preset, else no
    /// rewiring].
    #[arg(long, value_name = "F")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rewire: Option<f64>,
    /// bool, with --rewire: random candidate sources scored per offered LUT, at most 4096
    /// (at least the LUT's fan-in are drawn) [default: 128].
    #[arg(long, value_name = "C")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rewire_candidates: Option<usize>,
    /// bool, with --rewire: the best F candidates by their score alone compete for a LUT's
    /// sources one at a time (each the one under which the table fitted to the sources so
    /// far and it scores highest); at most --rewire-candidates, and F <= the fan-in takes
    /// the best by score alone [default: 24, at most the candidates].
    #[arg(long, value_name = "F")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rewire_finalists: Option<usize>,
    /// bool, with --rewire: a fitted table entry addressed by fewer than N of the examples
    /// its output is sensitive to takes the value of its entry over one source fewer (the
    /// table a tree over the sources in their chosen order, N its minimum leaf size);
    /// fewer AIG ANDs [default: 0, each entry fitted alone].
    #[arg(long, value_name = "N")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rewire_min_examples: Option<u32>,
    /// bool votes-hw: width of each saturating flip and keep counter, 1..=32 [default:
    /// wide enough never to saturate over a batch].
    #[arg(long, value_name = "BITS")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub counter_bits: Option<u32>,
    /// bool: visit the training examples in file order every epoch, as a hardware
    /// trainer streaming them from memory does, instead of a fresh shuffle.
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file_order: Option<bool>,
    /// bool, groupsum head: after training, weigh each output's vote by an integer fitted
    /// on the training examples (a class's score is the weighted sum of its outputs plus a
    /// constant; the head stays popcounts and an argmax) [default: false].
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vote_weights: Option<bool>,
    /// relaxed: GroupSum temperature (class score = group sum / tau), > 0 [default: sqrt
    /// of the group size].
    #[arg(long)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tau: Option<f64>,
    /// relaxed: added at initialisation to the logit of the pass-through function
    /// [default: 0].
    #[arg(long)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub residual: Option<f64>,
    /// relaxed: learning-rate schedule, constant or cosine [default: constant].
    #[arg(long)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lr_schedule: Option<String>,
    /// relaxed: learned input wiring: each input of a first-layer gate reads a softmax
    /// mixture of C candidate input bits and, discretised, the heaviest one; 1 keeps the
    /// random wiring, at most 1024 [default: 1].
    #[arg(long, value_name = "C")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_candidates: Option<usize>,
    /// relaxed, with --input-candidates on image data: a first-layer gate's candidates
    /// come from the pixels within R rows and columns of one centre pixel. bool LUT
    /// models on image data: each first-layer LUT reads input bits of pixels within R
    /// rows and columns of its centre (a local receptive field; model.json stores the
    /// wiring) [default: random wiring].
    #[arg(long, value_name = "R")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_radius: Option<usize>,
    /// relaxed: learned wiring in every layer after the first: each input of a gate reads
    /// a softmax mixture of C candidate nodes of the previous layer and, discretised, the
    /// heaviest one; 1 keeps the random wiring, at most 1024 [default: 1].
    #[arg(long, value_name = "C")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hidden_candidates: Option<usize>,
    /// relaxed, with --hidden-candidates on image data: a gate's candidates are the nodes
    /// whose centre pixel is within R rows and columns of its own (a first-layer gate's
    /// centre: the pixel of its first input).
    #[arg(long, value_name = "R")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hidden_radius: Option<usize>,
    /// relaxed, with --input-candidates or --hidden-candidates: after --narrow-after epochs
    /// each input keeps only its K heaviest candidates.
    #[arg(long, value_name = "K")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub narrow_candidates: Option<usize>,
    /// relaxed, with --narrow-candidates: epochs before the choice narrows [default: 1].
    #[arg(long, value_name = "N")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub narrow_after: Option<usize>,
    /// relaxed, with --input-candidates: the last N epochs train with each input fixed
    /// to its heaviest candidate [default: 1 with a learned choice].
    #[arg(long, value_name = "N")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hard_choice_epochs: Option<usize>,
    /// relaxed: the last N epochs compute with each node's discretised table (a gate's
    /// most likely function, a LUT's entries rounded) and learn through the softmax or
    /// sigmoid (straight-through) [default: 0].
    #[arg(long, value_name = "N")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hard_gate_epochs: Option<usize>,
    /// relaxed, with learned wiring: which choices read each input's heaviest candidate
    /// in the forward pass from the first epoch, learning through the softmax
    /// (straight-through) instead of reading the softmax mixture of the candidates:
    /// none, hidden (the layers after the first; needs --hidden-candidates) or all
    /// [default: none].
    #[arg(long, value_name = "CHOICES")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub straight_through_choice: Option<String>,
    /// relaxed: distil from a smooth teacher (a smooth spec such as cnn:16x32:128 or
    /// mlp:256x128) trained first on the same training examples with Adam: each example's
    /// target mixes its one-hot label with the teacher's class probabilities
    /// (--teacher-weight, --teacher-temperature); the teacher is not part of the circuit.
    #[arg(long, value_name = "SPEC")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub teacher: Option<String>,
    /// relaxed, with --teacher: the teacher's training epochs [default: 8].
    #[arg(long, value_name = "N")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub teacher_epochs: Option<usize>,
    /// relaxed, with --teacher: the teacher's Adam rate [default: 0.002].
    #[arg(long, value_name = "X")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub teacher_lr: Option<f64>,
    /// relaxed, with --teacher: weight of the teacher's probabilities in each target,
    /// in [0, 1] (0: the labels alone) [default: 0.5].
    #[arg(long, value_name = "W")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub teacher_weight: Option<f64>,
    /// relaxed, with --teacher: softmax temperature of the teacher's logits, > 0
    /// [default: 1].
    #[arg(long, value_name = "T")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub teacher_temperature: Option<f64>,
    /// relaxed: train N networks of --model one after another and sum their votes
    /// (boosting): each network after the first learns with the class counts of the
    /// circuits before it added to its class scores (scaled by --boost-scale), so it
    /// learns where they are unsure; member m trains with seed --seed + m; model.json is
    /// one LUT network holding them all, the groupsum head counting every member's votes
    /// [default: 1].
    #[arg(long, value_name = "N")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub boost: Option<usize>,
    /// relaxed, with --boost 2 or more: weight of the earlier members' counts in each later
    /// member's class scores, > 0 (1: its scores start from theirs in full) [default: 0.25].
    #[arg(long, value_name = "S")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub boost_scale: Option<f64>,
    /// relaxed: a specialist for some of the classes (their indices, e.g. 0,2,4,6): a
    /// second network of --model, trained with seed --seed + 1 on those classes' training
    /// examples alone, and asked when the first network names one of them; the class is
    /// then the one of them with the most votes of both networks together (a cascade).
    /// model.json is one LUT network holding both, its head `cascade:C:S1+S2+...`.
    #[arg(long, value_name = "C1,C2,...", value_delimiter = ',')]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub specialist: Option<Vec<u32>>,
    /// relaxed, with --specialist: the specialist's GroupSum temperature, > 0 [default:
    /// --tau x sqrt(classes / specialist classes), its groups being that much larger;
    /// without --tau the square root of its group size].
    #[arg(long, value_name = "T")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub specialist_tau: Option<f64>,
    /// relaxed, image data: each network also trains on copies of its training images
    /// moved by 1 to N pixels right, left, down and up (4N copies, the pixels moved in
    /// black), 0 to 4; a specialist's as --specialist-shifts says [default: 0].
    #[arg(long, value_name = "N")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shifts: Option<usize>,
    /// relaxed, with --specialist, image data: the specialist also trains on copies of its
    /// training images moved by 1 to N pixels right, left, down and up (4N copies, the
    /// pixels moved in black), 0 to 4 [default: --shifts].
    #[arg(long, value_name = "N")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub specialist_shifts: Option<usize>,
    /// relaxed, with --shifts or --specialist-shifts N: the moved copies also move
    /// diagonally, by every offset of up to N pixels across and down ((2N + 1)^2 - 1
    /// copies instead of 4N) [default: false].
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diagonal_moves: Option<bool>,
    /// relaxed, with --shifts: each epoch trains on every image and K of its 4N moved
    /// copies (with --diagonal-moves (2N + 1)^2 - 1), drawn at random per image and epoch:
    /// an epoch costs (1 + K) / (1 + copies) of one over every copy [default: all]; a
    /// specialist's as --specialist-copies-per-epoch says.
    #[arg(long, value_name = "K")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub copies_per_epoch: Option<usize>,
    /// relaxed, with --specialist and its shifts: each of the specialist's epochs trains on
    /// every one of its images and K of its moved copies, drawn at random [default:
    /// --copies-per-epoch when its shifts are those of --shifts, else all].
    #[arg(long, value_name = "K")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub specialist_copies_per_epoch: Option<usize>,
    /// bool: start from a trained model.json's parameters (its spec, wiring and encoder;
    /// --model / --encoding, when given, must match).
    #[arg(long, value_name = "FILE")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub init: Option<PathBuf>,
    /// Pass script (or a script name such as resyn2) run on the trained classifier's AIG
    /// before its AND nodes are counted; `dc` uses the training inputs as care set
    /// (bool only) [default: strash,resyn2,fraig; ring models: strash].
    #[arg(long)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub passes: Option<String>,
    /// Time budget of the pass script, seconds: a pass runs when its estimated cost (the
    /// AIG's size times a per-node cost measured for that pass) still fits, so the circuit
    /// is the same on every machine; a wall-clock guard at 3x the budget stops a pass that
    /// runs far over (rewrite, refactor and resub stop between two nodes keeping what they
    /// reached, fraig stops its SAT calls); metrics.json says which ran [default: 120].
    #[arg(long, value_name = "S")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub synth_budget: Option<f64>,
    /// Which table entries of a trained LUT network are don't-cares, filled to give each
    /// table (at most 4 inputs) its cheapest AIG: encoder (the first layer's addresses no
    /// encoded input can produce; the function is unchanged on every input) or training
    /// (every layer's addresses no training example reaches; the function is unchanged on
    /// the training examples, and may change elsewhere) or training:F (the addresses fewer
    /// than a fraction F of the training examples reach, F in [0, 1): an approximation,
    /// the answers on those few may change) [default: encoder].
    #[arg(long, value_name = "SET")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub care_set: Option<String>,
    /// Trained LUT cofactors of at most this many inputs, 0..=4, are lowered as minimum
    /// AIGs (exact synthesis) [default: 3].
    #[arg(long)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exact_inputs: Option<usize>,
    /// Prove every pass equivalent at run time.
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub check: Option<bool>,
    /// Hardware after training: verify (export the Verilog and its testbench into
    /// OUT/verilog/ and run it in Icarus when installed), export (write them only) or
    /// none [default: verify].
    #[arg(long)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hardware: Option<String>,
    /// Output directory [default: runs/NAME, NAME the data set's name].
    #[arg(short, long, visible_alias = "output")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub out: Option<PathBuf>,
    /// Write OUT/checkpoint.bin every N epochs (0 = never; `--resume OUT` continues; with
    /// --boost also each finished network's OUT/checkpoint-network-M.bin) [default: 0].
    #[arg(long, value_name = "N")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checkpoint_every: Option<usize>,
}

/// A configuration file that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum OptionsError {
    /// The file could not be read.
    #[error("{path}: cannot read: {source}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// Not valid TOML, or keys that are not train options.
    #[error("{path}:{line}: {message}")]
    Parse {
        /// The file.
        path: String,
        /// Line of the error, from 1.
        line: usize,
        /// What is wrong.
        message: String,
    },
}

impl TrainOptions {
    /// `self` with every option set in `over` replaced by `over`'s.
    #[must_use]
    pub fn overlay(&self, over: &TrainOptions) -> TrainOptions {
        // Through TOML values, which keep NaN and infinities (JSON would drop them).
        let mut out = toml::Table::try_from(self).expect("options serialize");
        out.extend(toml::Table::try_from(over).expect("options serialize"));
        out.try_into().expect("merged options deserialize")
    }

    /// The names of the options set, as flags (`--input-candidates`).
    #[must_use]
    pub fn given(&self) -> Vec<String> {
        let t = toml::Table::try_from(self).expect("options serialize");
        t.keys().map(|k| format!("--{k}")).collect()
    }

    /// Parses TOML text (`path` names it in errors).
    ///
    /// # Errors
    /// [`OptionsError::Parse`] with the line of the first error: bad TOML, a key that is
    /// no train option, a value of the wrong type.
    pub fn from_toml(text: &str, path: &str) -> Result<Self, OptionsError> {
        toml::from_str(text).map_err(|e| {
            let line = e.span().map_or(1, |s| text[..s.start.min(text.len())].matches('\n').count() + 1);
            OptionsError::Parse { path: path.to_owned(), line, message: e.message().trim().to_owned() }
        })
    }

    /// Reads a TOML file of options.
    ///
    /// # Errors
    /// [`OptionsError`] naming the file (and line).
    pub fn read(path: &Path) -> Result<Self, OptionsError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path)
            .map_err(|source| OptionsError::Read { path: shown.clone(), source })?;
        Self::from_toml(&text, &shown)
    }

    /// The options as TOML.
    #[must_use]
    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("options serialize to TOML")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toml_errors_name_the_line_and_the_key() {
        let e = TrainOptions::from_toml("epochs = 3\nmodle = \"lut:6:8x1\"\n", "x.toml").unwrap_err();
        let text = e.to_string();
        assert!(text.starts_with("x.toml:2: ") && text.contains("modle"), "{text}");
        let e = TrainOptions::from_toml("epochs = \"three\"\n", "x.toml").unwrap_err();
        assert!(e.to_string().starts_with("x.toml:1: "), "{e}");
    }

    #[test]
    fn layers_overlay_and_round_trip() {
        let base = TrainOptions::from_toml("epochs = 3\nmodel = \"lut:6:8x1\"\ncheck = true\n", "a").unwrap();
        let flags = TrainOptions { epochs: Some(5), ..TrainOptions::default() };
        let both = base.overlay(&flags);
        assert_eq!(
            (both.epochs, both.model.as_deref(), both.check),
            (Some(5), Some("lut:6:8x1"), Some(true))
        );
        assert_eq!(TrainOptions::from_toml(&both.to_toml(), "b").unwrap(), both);
        assert_eq!(flags.given(), vec!["--epochs".to_owned()]);
    }
}

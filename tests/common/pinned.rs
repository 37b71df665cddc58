//! Pinned run recipes: small `train` runs of published recipes with the length and FNV-1a
//! hash of the `model.json` the build without the `mpi` feature writes. `tests/golden.rs`
//! checks that releases keep them; `tests/mpi_cli.rs` that any number of ranks gives them.
#![allow(dead_code)]

/// A `train` run and the `model.json` it must write.
pub struct Pinned {
    /// What the run is, for messages.
    pub what: &'static str,
    /// The arguments after `train`.
    pub args: &'static [&'static str],
    /// `model.json`'s length in bytes.
    pub len: usize,
    /// `model.json`'s FNV-1a hash.
    pub hash: u64,
}

impl Pinned {
    /// The pin as a pair.
    pub fn pin(&self) -> (usize, u64) {
        (self.len, self.hash)
    }
}

/// FNV-1a, 64 bits.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// The Iris default (lut:6:64x1, votes).
pub const IRIS_DEFAULT: Pinned =
    Pinned { what: "train (Iris default)", args: &[], len: 2868, hash: 0x96ed_e3f4_16c5_4810 };

/// Relaxed gates, random wiring.
pub const RELAXED_GATES: Pinned = Pinned {
    what: "relaxed gates, random wiring",
    args: &["--data", "iris", "--model", "gates:64x2", "--epochs", "3"],
    len: 1945,
    hash: 0x5c3a_e0a6_103f_f8ce,
};

/// Learned input choice, narrowed, then hard choice and hard gates, cosine rate: every
/// scheduled phase of relaxed training.
pub const RELAXED_PHASES: Pinned = Pinned {
    what: "relaxed gates, every phase",
    args: &[
        "--domain",
        "smooth",
        "--data",
        "iris",
        "--model",
        "gates:64x2",
        "--input-candidates",
        "4",
        "--narrow-candidates",
        "2",
        "--narrow-after",
        "1",
        "--hard-choice-epochs",
        "1",
        "--hard-gate-epochs",
        "1",
        "--epochs",
        "4",
        "--lr-schedule",
        "cosine",
    ],
    len: 3238,
    hash: 0x9025_71f0_e7ed_140c,
};

/// A smooth MLP (dense layers, Adam).
pub const SMOOTH_MLP: Pinned = Pinned {
    what: "smooth mlp:16",
    args: &["--domain", "smooth", "--data", "iris", "--model", "mlp:16", "--epochs", "3"],
    len: 1759,
    hash: 0xd056_afcd_bc52_c536,
};

/// Boosting: two relaxed LUT networks with learned wiring, the second on the first one's
/// counts, written as one network.
pub const RELAXED_BOOSTED: Pinned = Pinned {
    what: "relaxed LUTs, boosted pair",
    args: &[
        "--data",
        "iris",
        "--domain",
        "relaxed",
        "--model",
        "lut:3:16x2:6",
        "--input-candidates",
        "4",
        "--hidden-candidates",
        "4",
        "--boost",
        "2",
        "--epochs",
        "3",
    ],
    len: 3239,
    hash: 0x5dce_c360_1aeb_d62d,
};

/// A cascade: a relaxed LUT network with learned wiring and a specialist for two of the
/// three classes, written as one network with a cascade head.
pub const RELAXED_CASCADE: Pinned = Pinned {
    what: "relaxed LUTs, a cascade",
    args: &[
        "--data",
        "iris",
        "--domain",
        "relaxed",
        "--model",
        "lut:3:16x2:6",
        "--input-candidates",
        "4",
        "--hidden-candidates",
        "4",
        "--specialist",
        "1,2",
        "--epochs",
        "3",
    ],
    len: 3243,
    hash: 0x5820_d682_755a_817e,
};

//! Named recipes: the tuned option sets behind the published figures, as TOML in the
//! same keys as `--config` files (`train --preset NAME`, `train --list-presets`).

use super::TrainOptions;

/// A named recipe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Preset {
    /// The name `--preset` takes.
    pub name: &'static str,
    /// What it trains and what it measured (BENCHMARKS.md has the runs).
    pub figure: &'static str,
    /// Its options, as TOML.
    pub toml: &'static str,
}

impl Preset {
    /// The preset's options.
    ///
    /// # Panics
    /// Never: the presets are tested to parse.
    #[must_use]
    pub fn options(&self) -> TrainOptions {
        TrainOptions::from_toml(self.toml, self.name).expect("presets parse")
    }
}

/// The `fashion-mnist-small` recipe, which `fashion-mnist-boosted` trains twice and
/// `fashion-mnist-cascade` trains as its first network and its specialist.
macro_rules! fashion_mnist_small {
    () => {
        r#"data = "fashion-mnist"
domain = "relaxed"
model = "lut:4:6000x2:1000"
encoding = "uniform:63"
epochs = 12
lr = 0.1
lr-schedule = "cosine"
tau = 5.0
residual = 2.0
input-candidates = 32
input-radius = 2
hidden-candidates = 8
straight-through-choice = "hidden"
narrow-candidates = 4
narrow-after = 2
hard-choice-epochs = 3
hard-gate-epochs = 1
care-set = "training:0.002"
"#
    };
}

/// The `fashion-mnist-cascade` recipe, which `fashion-mnist-cascade-moved` trains with its
/// first network on moved images too.
macro_rules! fashion_mnist_cascade {
    () => {
        concat!(
            fashion_mnist_small!(),
            "specialist = [0, 2, 4, 6]\nspecialist-tau = 8.0\nspecialist-shifts = 1\n"
        )
    };
}

/// Every preset.
pub const PRESETS: [Preset; 6] = [
    Preset {
        name: "fashion-mnist",
        figure: "relaxed lut:4:3000x3:1000 on Fashion-MNIST (4-input LUTs, sigmoid tables), first \
                 layer's wiring learned among 32 local candidates (radius 2, narrowed to 4 after 2 \
                 epochs), 12 epochs (the last 3 on the chosen wiring, the last with rounded tables), \
                 table entries fewer than 0.2% of the training images reach filled as don't-cares: \
                 test 0.8876 / 0.8901 / 0.8882 on seeds 0-2 at 32.4-32.6K AIG ANDs for the whole \
                 classifier after the default strash,resyn2,fraig, 7.5K LUT6, 4-4.5 minutes of \
                 training on 2 cores (2026-12-04; 41.1-41.2K ANDs without the training care set)",
        toml: r#"data = "fashion-mnist"
domain = "relaxed"
model = "lut:4:3000x3:1000"
encoding = "uniform:63"
epochs = 12
lr = 0.1
lr-schedule = "cosine"
tau = 5.0
residual = 2.0
input-candidates = 32
input-radius = 2
narrow-candidates = 4
narrow-after = 2
hard-choice-epochs = 3
hard-gate-epochs = 1
care-set = "training:0.002"
"#,
    },
    Preset {
        name: "fashion-mnist-small",
        figure: "the fashion-mnist preset without its hidden layer, lut:4:6000x2:1000: a first \
                 layer of 6,000 LUTs as a pool that the 1,000 output LUTs pick their sources \
                 among (learned wiring, 8 candidates, straight-through: each reads its heaviest \
                 candidate), so only the first-layer LUTs read reach the circuit: test 0.8867 / \
                 0.8880 / 0.8874 on seeds 0-2 at 22.0-22.2K AIG ANDs for the whole classifier \
                 after the default strash,resyn2,fraig (fashion-mnist: 0.8876 / 0.8901 / 0.8882 \
                 at 32.4-32.6K), 4.9K LUT6, 3.5 minutes of training on 2 cores (2026-12-05)",
        toml: fashion_mnist_small!(),
    },
    Preset {
        name: "fashion-mnist-boosted",
        figure: "two fashion-mnist-small networks boosted (--boost 2 --boost-scale 0.25): the \
                 second, seed + 1, trains with the first one's circuit counts over tau / 4 added \
                 to its class scores, and the classifier sums both networks' votes, one LUT \
                 network lut:4:12000x2:2000 with one groupsum head: test 0.8926 / 0.8938 / \
                 0.8934 on seeds 0-2 at 44.9-45.3K AIG ANDs before the pass script (export's \
                 count; the default strash,resyn2,fraig takes 0.6% off on the fold), 9.8K LUT6 \
                 (fashion-mnist: 0.8876 / 0.8901 / 0.8882 at 32.5K); 0.8983 on validation fold \
                 6/6 at 44,114 ANDs after 243 s of training on 2 cores for its 50,000 images \
                 (2026-12-05; time 2026-12-06)",
        toml: concat!(fashion_mnist_small!(), "boost = 2\nboost-scale = 0.25\n"),
    },
    Preset {
        name: "fashion-mnist-cascade",
        figure: "a fashion-mnist-small network and a specialist of the same recipe for the four \
                 tops (T-shirt, pullover, coat, shirt: --specialist 0,2,4,6, seed + 1, \
                 --specialist-tau 8), trained on their 24,000 training images and those images \
                 moved one pixel right, left, down and up (--specialist-shifts 1), and asked \
                 when the first network names a top, the class then the top with the most votes \
                 of both; one LUT network lut:4:12000x2:2000,cascade:10:0+2+4+6: test 0.8997 / \
                 0.8977 / 0.8997 on seeds 0-2 at 45.6-45.7K AIG ANDs for the whole classifier \
                 after the default strash,resyn2,fraig, 9.9K LUT6, 374 s of training on 2 cores \
                 (2026-12-07; without the moved images 0.8932 / 0.8967 / 0.8956 at 44.2-44.4K); \
                 the default recipe for --data fashion-mnist",
        toml: fashion_mnist_cascade!(),
    },
    Preset {
        name: "fashion-mnist-cascade-moved",
        figure: "fashion-mnist-cascade with its first network, too, trained on its 60,000 \
                 training images and those images moved one pixel right, left, down and up \
                 (--shifts 1, 300,000 examples): test 0.9030 / 0.8981 / 0.8997 on seeds 0-2 at \
                 46.6-46.8K AIG ANDs for the whole classifier after the default \
                 strash,resyn2,fraig, 10.0-10.1K LUT6, 705 s of training on 2 cores, twice the \
                 default recipe's (2026-12-07; fashion-mnist-cascade 0.8997 / 0.8977 / 0.8997 \
                 at 45.6-45.7K)",
        toml: concat!(fashion_mnist_cascade!(), "shifts = 1\n"),
    },
    Preset {
        name: "fashion-mnist-rda",
        figure: "pure RDA (vote counting) on Fashion-MNIST, lut:6:9000x2:1500,groupsum:10 over a \
                 3-threshold thermometer, batch 2048, positive weight 2, margin 0.05, 10 epochs, \
                 after each epoch but the last every output's hidden sources refitted in turn \
                 (rewire 1), then integer weights on the votes fitted by an averaged \
                 perceptron (vote-weights): test 0.8530 / 0.8555 / 0.8516 on seeds 0-2 at \
                 211-212K AIG ANDs after the default strash,resyn2,fraig, 5-7 minutes on 2 \
                 cores (2026-12-05; 0.8334 at 272,869 ANDs with equal votes, 0.8214 \
                 without rewiring, 0.8538 / 0.8522 / 0.8516 with the logistic fit of \
                 2026-12-04)",
        toml: r#"data = "fashion-mnist"
domain = "bool"
model = "lut:6:9000x2:1500,groupsum:10"
optimizer = "rda"
encoding = "thermometer:3"
batch = 2048
positive-weight = 2.0
margin = 0.05
rewire = 1.0
epochs = 10
vote-weights = true
"#,
    },
];

/// The preset called `name`.
#[must_use]
pub fn preset(name: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_parses_and_resolves() {
        for p in &PRESETS {
            let o = p.options();
            assert_eq!(o.preset, None, "{}: a preset does not name another", p.name);
            super::super::TrainConfig::resolve(&o).unwrap_or_else(|e| panic!("{}: {e}", p.name));
        }
    }

    /// The Fashion-MNIST classifiers are counted after the same budgeted script as every
    /// other `train` run (BENCHMARKS.md: 46,032 -> 45,813 ANDs for the relaxed recipe's
    /// seed 0), not after `strash` alone.
    #[test]
    fn the_presets_run_the_default_synthesis_script() {
        for p in &PRESETS {
            let cfg = super::super::TrainConfig::resolve(&p.options()).unwrap();
            assert_eq!(cfg.passes, crate::pass::DEFAULT_SYNTH_SCRIPT, "{}", p.name);
        }
    }
}

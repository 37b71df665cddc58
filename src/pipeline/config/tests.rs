//! Every option is checked before any data is read, and names itself when it is wrong.

use super::*;

fn resolve(toml: &str) -> Result<TrainConfig, ConfigError> {
    TrainConfig::resolve(&TrainOptions::from_toml(toml, "t").unwrap())
}

fn refused(toml: &str, option: &str) {
    match resolve(toml) {
        Err(e) => assert_eq!(e.option, option, "{toml}: {e}"),
        Ok(c) => panic!("{toml}: accepted as {c:?}"),
    }
}

#[test]
fn the_default_run_resolves_to_boolean_votes_on_iris() {
    let c = resolve("").unwrap();
    assert_eq!((c.data.as_str(), c.epochs, c.seed, c.domain()), ("iris", 20, 0, Domain::Bool));
    assert_eq!(c.preset, None);
}

#[test]
fn domains_follow_the_model() {
    assert_eq!(resolve("model = \"gates:8x2\"").unwrap().domain(), Domain::Relaxed);
    assert_eq!(resolve("model = \"mlp:8\"").unwrap().domain(), Domain::Smooth);
    assert_eq!(resolve("domain = \"smooth\"\nmodel = \"lut:4:8x1\"").unwrap().domain(), Domain::Relaxed);
    assert_eq!(resolve("model = \"lut:4:8x1\"").unwrap().domain(), Domain::Bool);
    refused("domain = \"bool\"\nmodel = \"gates:8x2\"", "--model");
    assert_eq!(resolve("domain = \"poly\"").unwrap().domain(), Domain::Poly);
    assert_eq!(resolve("ring = \"zp:2147483647\"").unwrap().domain(), Domain::Poly);
    refused("domain = \"ploy\"", "--domain");
}

#[test]
fn bad_numbers_are_refused_before_any_work() {
    for (toml, option) in [
        ("lr = nan", "--lr"),
        ("lr = -1.0", "--lr"),
        ("lr = inf", "--lr"),
        ("lr = 1.5", "--lr"),
        ("batch = 0", "--batch"),
        ("threads = 100000", "--threads"),
        ("exact-inputs = 100", "--exact-inputs"),
        ("test-fraction = 0.0", "--test-fraction"),
        ("test-fraction = 1.0", "--test-fraction"),
        ("margin = 2.0", "--margin"),
        ("encoding = \"thermometer:4294967296\"", "--encoding"),
        ("encoding = \"uniform:0\"", "--encoding"),
        ("time-limit = 0.0", "--time-limit"),
        ("model = \"gates:8x2\"\ntau = 0.0", "--tau"),
        ("model = \"gates:8x2\"\ntau = nan", "--tau"),
        ("model = \"gates:8x2\"\nresidual = nan", "--residual"),
        ("model = \"gates:8x2\"\nlr = nan", "--lr"),
        ("model = \"mlp:8\"\nlr = -1.0", "--lr"),
    ] {
        refused(toml, option);
    }
}

#[test]
fn options_of_another_domain_are_refused_not_ignored() {
    for (toml, option) in [
        ("tau = 2.0", "--tau"),
        ("input-candidates = 4", "--input-candidates"),
        ("model = \"gates:8x2\"\nmargin = 0.1", "--margin"),
        ("model = \"gates:8x2\"\noptimizer = \"sgd\"", "--optimizer"),
        ("model = \"gates:8x2\"\npasses = \"dc\"", "--passes"),
        ("model = \"mlp:8\"\ntau = 2.0", "--tau"),
        ("model = \"mlp:8\"\npasses = \"bogus\"", "--passes"),
        ("model = \"mlp:8\"\npasses = \"strash\"", "--passes"),
        ("model = \"mlp:8\"\nencoding = \"threshold\"", "--encoding"),
        ("model = \"mlp:8\"\nhardware = \"verify\"", "--hardware"),
        ("passes = \"bogus\"", "--passes"),
        ("model = \"table\"\nlr = 0.5", "--lr"),
        ("optimizer = \"faithful\"\nmargin = 0.2", "--margin"),
        ("loss = \"mse\"", "--loss"),
        ("model = \"gates:8x2\"\ninput-radius = 2", "--input-radius"),
        ("model = \"gates:8x2\"\ninput-candidates = 4\nnarrow-after = 2", "--narrow-after"),
        ("test = \"x.csv\"\ntest-fraction = 0.2", "--test-fraction"),
        ("hardware = \"maybe\"", "--hardware"),
        ("preset = \"nope\"", "--preset"),
    ] {
        refused(toml, option);
    }
}

#[test]
fn fashion_mnist_picks_its_preset_and_flags_override_it() {
    let c = resolve("data = \"fashion-mnist\"").unwrap();
    assert_eq!(c.preset.as_deref(), Some("fashion-mnist-cascade"));
    let ModelConfig::Relaxed(r) = &c.model else { panic!("{c:?}") };
    assert_eq!(
        (r.spec.as_str(), r.input_candidates, r.input_radius, r.hidden_candidates, c.epochs),
        ("lut:4:6000x2:1000", 32, Some(2), 8, 12)
    );
    let s = r.specialist.as_ref().expect("the cascade's specialist");
    assert_eq!(
        (r.boost, r.shifts, s.classes.as_slice(), s.tau, s.shifts),
        (1, 0, &[0, 2, 4, 6][..], Some(8.0), 1)
    );
    assert_eq!(
        (r.hard_choice_epochs, r.hard_gate_epochs, r.narrow_candidates, r.narrow_after),
        (3, 1, Some(4), 2)
    );
    assert_eq!(
        (r.lr, r.tau, r.residual, r.cosine, c.passes.as_str()),
        (0.1, Some(5.0), 2.0, true, "strash,resyn2,fraig")
    );
    let rda = resolve("data = \"fashion-mnist\"\noptimizer = \"rda\"").unwrap();
    assert_eq!(rda.preset.as_deref(), Some("fashion-mnist-rda"));
    let ModelConfig::Bool(b) = &rda.model else { panic!("{rda:?}") };
    assert_eq!((b.batch, b.margin, b.positive_weight, b.accept), (2048, 0.05, Some(2.0), 0.3));
    let custom = resolve("data = \"fashion-mnist\"\nmodel = \"gates:100x2\"").unwrap();
    assert_eq!(custom.preset, None);
    let plain = resolve("data = \"fashion-mnist\"\npreset = \"none\"").unwrap();
    assert_eq!((plain.preset.as_deref(), plain.domain()), (None, Domain::Bool));
    let longer = resolve("data = \"fashion-mnist\"\nepochs = 20").unwrap();
    assert_eq!((longer.preset.as_deref(), longer.epochs), (Some("fashion-mnist-cascade"), 20));
    let deep = resolve("data = \"fashion-mnist\"\npreset = \"fashion-mnist\"").unwrap();
    let ModelConfig::Relaxed(r) = &deep.model else { panic!("{deep:?}") };
    assert_eq!((r.spec.as_str(), r.boost), ("lut:4:3000x3:1000", 1));
}

#[test]
fn poly_runs_resolve_and_bad_rings_are_refused() {
    let c = resolve("domain = \"poly\"").unwrap();
    let ModelConfig::Poly(p) = &c.model else { panic!("a poly config") };
    assert_eq!(
        (p.ring.to_string(), p.spec.to_string(), p.frac_bits, c.epochs),
        ("z2k:32".into(), "linear".into(), 8, 30)
    );
    assert_eq!(c.passes, crate::pass::DEFAULT_SYNTH_SCRIPT);
    for (toml, option) in [
        ("ring = \"zp:91\"", "--ring"),
        ("ring = \"z2k:0\"", "--ring"),
        ("ring = \"z2k:65\"", "--ring"),
        ("ring = \"sat:0\"", "--ring"),
        ("ring = \"q:5\"", "--ring"),
        ("ring = \"z2k:16\"", "--ring"),
        ("domain = \"poly\"\nmodel = \"lut:6:8x1\"", "--model"),
        ("domain = \"poly\"\nfrac-bits = 0", "--frac-bits"),
        ("domain = \"poly\"\nlr = 0.0001", "--lr"),
        ("domain = \"poly\"\nencoding = \"threshold\"", "--encoding"),
        ("domain = \"poly\"\noptimizer = \"adam\"", "--optimizer"),
        ("domain = \"poly\"\npasses = \"dc\"", "--passes"),
        ("domain = \"bool\"\nring = \"z2k:32\"", "--ring"),
        ("model = \"mlp:8\"\nfrac-bits = 4", "--frac-bits"),
    ] {
        refused(toml, option);
    }
}

#[test]
fn votes_hw_takes_the_vote_options_in_hardware_form() {
    let c = resolve("optimizer = \"votes-hw\"\ncounter-bits = 5\nfile-order = true\npositive-weight = 3.0")
        .unwrap();
    let ModelConfig::Bool(b) = &c.model else { panic!("{c:?}") };
    assert_eq!(
        (b.optimizer, b.counter_bits, b.file_order, b.positive_weight),
        (BoolOptimizer::VotesHw, Some(5), true, Some(3.0))
    );
    assert_eq!(
        resolve("optimizer = \"rda-votes-hw\"").unwrap().model,
        resolve("optimizer = \"votes-hw\"").unwrap().model
    );
    for (toml, option) in [
        ("optimizer = \"votes-hw\"\npositive-weight = 1.5", "--positive-weight"),
        ("optimizer = \"votes-hw\"\nsum-fanouts = true", "--sum-fanouts"),
        ("optimizer = \"votes-hw\"\ncounter-bits = 0", "--counter-bits"),
        ("optimizer = \"votes-hw\"\ncounter-bits = 33", "--counter-bits"),
        ("optimizer = \"votes\"\ncounter-bits = 8", "--counter-bits"),
        ("optimizer = \"faithful\"\ncounter-bits = 8", "--counter-bits"),
        ("model = \"mlp:8\"\nfile-order = true", "--file-order"),
        ("model = \"gates:8x2\"\nfile-order = true", "--file-order"),
        ("domain = \"poly\"\nfile-order = true", "--file-order"),
        ("domain = \"poly\"\ncounter-bits = 4", "--counter-bits"),
    ] {
        refused(toml, option);
    }
}

/// `--input-radius` is the local first-layer wiring of Boolean LUT models too; it needs a
/// radius of at least 1, a LUT model and no `--init` (whose model brings its wiring).
#[test]
fn input_radius_applies_to_boolean_lut_models() {
    let c = resolve("model = \"lut:6:60x2,groupsum:3\"\ninput-radius = 3").unwrap();
    let ModelConfig::Bool(b) = &c.model else { panic!("{c:?}") };
    assert_eq!(b.input_radius, Some(3));
    refused("model = \"lut:6:60x2,groupsum:3\"\ninput-radius = 0", "--input-radius");
    refused("model = \"table\"\ninput-radius = 2", "--input-radius");
    refused("init = \"m.json\"\ninput-radius = 2", "--input-radius");
    refused("domain = \"poly\"\ninput-radius = 2", "--input-radius");
}

/// `--rewire F` is the vote rule's rewiring of a LUT model's last hidden layer: F in
/// (0, 1] (0: none, on any model), 128 candidates unless `--rewire-candidates` (1 to 4096) says otherwise, of which
/// 24 finalists unless `--rewire-finalists` (at most the candidates) says otherwise, no
/// minimum leaf size unless `--rewire-min-examples` says otherwise; refused
/// for other optimisers, models without a hidden layer and other domains.
#[test]
fn rewire_applies_to_the_vote_rule_on_layered_lut_models() {
    let rewire = |toml: &str| match resolve(toml).unwrap().model {
        ModelConfig::Bool(b) => b.rewire,
        m => panic!("{m:?}"),
    };
    let two = "model = \"lut:6:60x2,groupsum:3\"\n";
    assert_eq!(rewire(two), None);
    let p = rewire(&format!("{two}rewire = 0.25")).unwrap();
    assert_eq!((p.fraction, p.candidates, p.finalists, p.min_examples), (0.25, 128, 24, 0));
    assert_eq!(rewire(&format!("{two}rewire = 0.25\nrewire-min-examples = 30")).unwrap().min_examples, 30);
    assert_eq!(rewire(&format!("{two}rewire = 0.25\nrewire-finalists = 0")).unwrap().finalists, 0);
    let p = rewire(&format!("{two}rewire = 1.0\nrewire-candidates = 7\noptimizer = \"votes\""));
    assert_eq!(
        p.map(|p| (p.candidates, p.finalists)),
        Some((7, 7)),
        "finalists default to at most the candidates"
    );
    assert!(rewire("model = \"lut:6:60x1,binary\"\nrewire = 0.5").is_some());
    // 0 is no rewiring, on any model: it turns off a preset's.
    assert_eq!(rewire(&format!("{two}rewire = 0")), None);
    assert_eq!(rewire("model = \"lut:6:60x1,groupsum:3\"\nrewire = 0"), None);
    for (toml, option) in [
        (format!("{two}rewire = -0.1"), "--rewire"),
        (format!("{two}rewire = 0\nrewire-candidates = 8"), "--rewire-candidates"),
        (format!("{two}rewire = 1.5"), "--rewire"),
        (format!("{two}rewire = 0.5\nrewire-candidates = 0"), "--rewire-candidates"),
        (format!("{two}rewire = 0.5\nrewire-candidates = 5000"), "--rewire-candidates"),
        (format!("{two}rewire-candidates = 8"), "--rewire-candidates"),
        (format!("{two}rewire-finalists = 8"), "--rewire-finalists"),
        (format!("{two}rewire-min-examples = 8"), "--rewire-min-examples"),
        (format!("{two}rewire = 0\nrewire-min-examples = 8"), "--rewire-min-examples"),
        (format!("{two}rewire = 0.5\nrewire-candidates = 16\nrewire-finalists = 17"), "--rewire-finalists"),
        (format!("{two}rewire = 0.5\noptimizer = \"parity\""), "--rewire"),
        (format!("{two}rewire = 0.5\noptimizer = \"votes-hw\""), "--rewire"),
        ("model = \"lut:6:60x1,groupsum:3\"\nrewire = 0.5".to_owned(), "--rewire"),
        ("rewire = 0.5".to_owned(), "--rewire"),
        ("model = \"table\"\nrewire = 0.5".to_owned(), "--rewire"),
        ("model = \"gates:8x2\"\nrewire = 0.5".to_owned(), "--rewire"),
        ("domain = \"poly\"\nrewire = 0.5".to_owned(), "--rewire"),
    ] {
        refused(&toml, option);
    }
}

/// `valid-fold = "I/F"` holds out fold I of F of the training examples, in every domain, with
/// --test or --test-fraction alike; a value that is no fold is refused naming the option.
#[test]
fn valid_fold_is_a_fold_of_at_least_two() {
    use crate::data::ValidFold;
    assert_eq!(resolve("").unwrap().valid_fold, None);
    for toml in [
        "valid-fold = \"2/3\"",
        "valid-fold = \"2/3\"\nmodel = \"gates:8x2\"",
        "valid-fold = \"2/3\"\nmodel = \"mlp:8\"",
        "valid-fold = \"2/3\"\ndomain = \"poly\"",
        "valid-fold = \"2/3\"\ntest = \"x.csv\"",
        "valid-fold = \"2/3\"\ntest-fraction = 0.2",
    ] {
        assert_eq!(resolve(toml).unwrap().valid_fold, Some(ValidFold::new(2, 3).unwrap()), "{toml}");
    }
    for value in ["0/5", "6/5", "3", "1/1", "a/b", "1/0", "", "2/-3", "1/2/3"] {
        refused(&format!("valid-fold = \"{value}\""), "--valid-fold");
    }
    // A number is not the text I/F.
    assert!(TrainOptions::from_toml("valid-fold = 3", "t").is_err());
}

/// `--vote-weights` is Boolean training's, on a groupsum head (the default head included),
/// off by default; refused for votes-hw (whose model is the hardware trainer's), other
/// heads and other domains.
#[test]
fn vote_weights_apply_to_boolean_groupsum_heads() {
    let weighted = |toml: &str| match resolve(toml).unwrap().model {
        ModelConfig::Bool(b) => b.vote_weights,
        m => panic!("{m:?}"),
    };
    assert!(!weighted("model = \"lut:6:60x2,groupsum:3\""));
    assert!(weighted("model = \"lut:6:60x2,groupsum:3\"\nvote-weights = true"));
    assert!(weighted("vote-weights = true"));
    for toml in [
        "model = \"lut:6:60x2,groupsum:3\"\nvote-weights = true\noptimizer = \"votes-hw\"",
        "model = \"lut:6:60x1,binary\"\nvote-weights = true",
        "domain = \"relaxed\"\nmodel = \"lut:4:60x2\"\nvote-weights = true",
        "domain = \"smooth\"\nvote-weights = true",
        "domain = \"poly\"\nvote-weights = true",
    ] {
        refused(toml, "--vote-weights");
    }
}

#[test]
fn each_kind_of_run_refuses_the_options_of_the_others() {
    let relaxed = [
        ("tau", "5.0"),
        ("narrow-after", "2"),
        ("teacher-temperature", "3.0"),
        ("teacher-epochs", "4"),
        ("boost", "2"),
        ("boost-scale", "0.5"),
    ];
    let votes = [("margin", "2.0"), ("rewire-min-examples", "8"), ("counter-bits", "6")];
    let boolean = [("vote-weights", "true"), ("file-order", "true")];
    let runs = [
        ("domain = \"poly\"", &relaxed[..]),
        ("domain = \"poly\"", &votes[..]),
        ("domain = \"poly\"", &boolean[..]),
        ("model = \"lut:4:8x1\"", &relaxed[..]),
        ("model = \"gates:8x2\"", &votes[..]),
        ("model = \"gates:8x2\"", &boolean[..]),
        ("model = \"mlp:8\"", &relaxed[..]),
        ("model = \"mlp:8\"", &votes[..]),
    ];
    for (run, options) in runs {
        for (key, value) in options {
            refused(&format!("{run}\n{key} = {value}"), &format!("--{key}"));
        }
    }
}

#[test]
fn boosting_is_checked_before_any_work() {
    let relaxed = "domain = \"relaxed\"\nmodel = \"lut:4:8x2\"\n";
    let c = resolve(&format!("{relaxed}boost = 3\nboost-scale = 0.5")).unwrap();
    let ModelConfig::Relaxed(r) = c.model else { panic!("{c:?}") };
    assert_eq!((r.boost, r.boost_scale), (3, 0.5));
    let ModelConfig::Relaxed(r) = resolve(relaxed).unwrap().model else { panic!("relaxed") };
    assert_eq!((r.boost, r.boost_scale), (1, 0.25));
    for (toml, option) in [
        ("boost = 0", "--boost"),
        ("boost = 17", "--boost"),
        ("boost-scale = 0.5", "--boost-scale"),
        ("boost = 1\nboost-scale = 0.5", "--boost-scale"),
        ("boost = 2\nboost-scale = 0.0", "--boost-scale"),
        ("boost = 2\nboost-scale = nan", "--boost-scale"),
    ] {
        refused(&format!("{relaxed}{toml}"), option);
    }
    assert!(resolve(&format!("{relaxed}boost = 2\ncheckpoint-every = 1")).is_ok());
}

/// A relaxed LUT network to resolve options against.
const RELAXED: &str = "domain = \"relaxed\"\nmodel = \"lut:4:40x2:20\"\n";

#[test]
fn a_specialist_moves_its_images_as_the_run_does_unless_told() {
    let moves = |toml: &str| {
        let c = resolve(&format!("{RELAXED}specialist = [0, 2]\n{toml}")).unwrap();
        let ModelConfig::Relaxed(r) = &c.model else { panic!("{c:?}") };
        (r.shifts, r.specialist.as_ref().map(|s| s.shifts))
    };
    assert_eq!(moves(""), (0, Some(0)));
    assert_eq!(moves("shifts = 2"), (2, Some(2)));
    assert_eq!(moves("shifts = 2\nspecialist-shifts = 0"), (2, Some(0)));
    assert_eq!(moves("specialist-shifts = 1"), (0, Some(1)));
    for (toml, why) in [("shifts = 5", "0 to 4"), ("shifts = 1\nteacher = \"mlp:8\"", "--teacher")] {
        let e = resolve(&format!("{RELAXED}{toml}")).unwrap_err().to_string();
        assert!(e.contains("--shifts") && e.contains(why), "{toml}: {e}");
    }
    let e = resolve("domain = \"bool\"\nshifts = 1").unwrap_err().to_string();
    assert!(e.contains("--shifts"), "{e}");
}

#[test]
fn copies_per_epoch_need_copies_and_the_specialist_follows_the_run() {
    let draws = |toml: &str| {
        let c = resolve(&format!("{RELAXED}specialist = [0, 2]\n{toml}")).map_err(|e| e.to_string())?;
        let ModelConfig::Relaxed(r) = &c.model else { panic!("{c:?}") };
        Ok::<_, String>((r.copies_per_epoch, r.specialist.as_ref().and_then(|s| s.copies_per_epoch)))
    };
    assert_eq!(draws("shifts = 1"), Ok((None, None)));
    assert_eq!(draws("shifts = 1\ncopies-per-epoch = 1"), Ok((Some(1), Some(1))));
    assert_eq!(draws("shifts = 2\ncopies-per-epoch = 8"), Ok((Some(8), Some(8))));
    assert_eq!(
        draws("shifts = 1\ncopies-per-epoch = 1\nspecialist-copies-per-epoch = 2"),
        Ok((Some(1), Some(2)))
    );
    // Other shifts than the run's: its own copies per epoch, all unless told.
    assert_eq!(draws("shifts = 1\nspecialist-shifts = 1\ncopies-per-epoch = 1"), Ok((Some(1), Some(1))));
    assert_eq!(draws("shifts = 2\ncopies-per-epoch = 5\nspecialist-shifts = 1"), Ok((Some(5), None)));
    assert_eq!(draws("specialist-shifts = 1\nspecialist-copies-per-epoch = 3"), Ok((None, Some(3))));
    for (toml, option, why) in [
        ("copies-per-epoch = 1", "--copies-per-epoch", "needs moved copies (--shifts 1 or more)"),
        ("shifts = 1\ncopies-per-epoch = 5", "--copies-per-epoch", "1 to 4 "),
        ("shifts = 1\ncopies-per-epoch = 0", "--copies-per-epoch", "got 0"),
        ("shifts = 1\nspecialist-copies-per-epoch = 9", "--specialist-copies-per-epoch", "1 to 4 "),
        (
            "shifts = 1\nspecialist-shifts = 0\nspecialist-copies-per-epoch = 1",
            "--specialist-copies-per-epoch",
            "--specialist-shifts 1",
        ),
    ] {
        let e = draws(toml).unwrap_err();
        assert!(e.contains(option) && e.contains(why), "{toml}: {e}");
    }
    let e = resolve(&format!("{RELAXED}specialist-copies-per-epoch = 1")).unwrap_err().to_string();
    assert!(e.contains("needs --specialist"), "{e}");
}

#[test]
fn diagonal_moves_add_every_offset_within_the_shifts() {
    use super::move_offsets;
    assert_eq!(move_offsets(1, false), [(1, 0), (-1, 0), (0, 1), (0, -1)]);
    assert_eq!(move_offsets(1, true)[4..], [(1, 1), (-1, 1), (1, -1), (-1, -1)]);
    for n in 0..=super::MAX_SHIFTS {
        let square = move_offsets(n, true);
        assert_eq!(move_offsets(n, false).len(), 4 * n);
        assert_eq!(square.len(), (2 * n + 1).pow(2) - 1, "n = {n}");
        // Each offset once, none of them the image itself, all within n pixels each way.
        let mut sorted = square.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), square.len());
        assert!(square.iter().all(|&(x, y)| (x, y) != (0, 0) && x.unsigned_abs().max(y.unsigned_abs()) <= n));
    }
    let moves = |toml: &str| {
        let c = resolve(&format!("{RELAXED}specialist = [0, 2]\n{toml}")).map_err(|e| e.to_string())?;
        let ModelConfig::Relaxed(r) = &c.model else { panic!("{c:?}") };
        let s = r.specialist.as_ref().unwrap();
        Ok::<_, String>((r.diagonal_moves, s.diagonal_moves, s.copies_per_epoch))
    };
    assert_eq!(moves("specialist-shifts = 1\ndiagonal-moves = true"), Ok((true, true, None)));
    assert_eq!(
        moves("specialist-shifts = 1\ndiagonal-moves = true\nspecialist-copies-per-epoch = 8"),
        Ok((true, true, Some(8)))
    );
    let e = moves("specialist-shifts = 1\nspecialist-copies-per-epoch = 8").unwrap_err();
    assert!(e.contains("1 to 4 "), "{e}");
    let e = moves("diagonal-moves = true").unwrap_err();
    assert!(e.contains("--diagonal-moves") && e.contains("needs moved copies"), "{e}");
}

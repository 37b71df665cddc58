//! Relaxed gate networks on Fashion-MNIST (BENCHMARKS.md, "Relaxed logic"): pixels as a
//! uniform thermometer, relaxed training, and after every `--eval-every` epochs the
//! discretised circuit's accuracy and AND counts (gate network alone, and the whole
//! classifier with popcount and argmax). One JSON line per evaluation on stdout.
//!
//! ```sh
//! cargo run --release --example fashion_relaxed -- --model gates:12000x4:1000 --bits 3 \
//!     --epochs 15 --eval-every 3 --tau 6 --residual 2
//! ```
//!
//! `--limit N` trains on the first `N` training images; `--valid V` holds out the last `V`
//! training images and reports accuracy on them (`valid`, `relaxed_valid`) instead of the
//! test set's (`test`, `relaxed_test`), for comparing variants.
//!
//! Reads `--dir` (default: Debian's `dataset-fashion-mnist` location). `train --data
//! fashion-mnist` trains the same way (its default model, `--lr-schedule cosine`); this
//! example adds the accuracy curve of the discretised circuit during training.

use circuitlearn::{
    Aig, BitMatrix, Encoder, Encoding, FASHION_MNIST_CLASSES, FASHION_MNIST_DIR, Features, LabelledImages,
    LowerParams, PassContext, PixelGrid, RelaxedNet, RelaxedParams, RelaxedSpec, StraightThroughChoice,
    accuracy, bind_params, parse_script, predict, read_image_dir, run_script, train_relaxed,
};
use std::time::Instant;

/// Images `from..to` of `set` (clamped to its size) as bits through `encoder`, with their
/// labels.
fn encode(set: &LabelledImages, encoder: &Encoder, from: usize, to: usize) -> (BitMatrix, Vec<u32>) {
    let mut data =
        set.to_dataset("fashion-mnist", &FASHION_MNIST_CLASSES).expect("labels of the ten classes");
    let to = data.labels.len().min(to);
    let from = from.min(to);
    data.labels = data.labels[from..to].to_vec();
    if let Features::Real { n_features, values, .. } = &mut data.features {
        *values = values[from * *n_features..to * *n_features].to_vec();
    }
    (encoder.encode(&data).expect("images of the fitted size"), data.labels)
}

fn arg(name: &str, default: &str) -> String {
    let args: Vec<String> = std::env::args().collect();
    args.iter().position(|a| a == name).map_or(default.to_string(), |i| args[i + 1].clone())
}

fn main() {
    circuitlearn::retain_freed_memory();
    let model = arg("--model", "gates:12000x4:1000");
    let bits: usize = arg("--bits", "3").parse().unwrap();
    let limit: usize = arg("--limit", "60000").parse().unwrap();
    let epochs: usize = arg("--epochs", "15").parse().unwrap();
    let eval_every: usize = arg("--eval-every", "3").parse().unwrap();
    let passes = arg("--passes", "strash");
    let p = RelaxedParams {
        epochs,
        batch: arg("--batch", "128").parse().unwrap(),
        lr: arg("--lr", "0.01").parse().unwrap(),
        tau: arg("--tau", "6").parse().unwrap(),
        seed: arg("--seed", "0").parse().unwrap(),
        residual: arg("--residual", "2").parse().unwrap(),
        cosine: arg("--lr-schedule", "constant") == "cosine",
        hard_choice_epochs: arg("--hard-choice-epochs", "0").parse().unwrap(),
        hard_gate_epochs: arg("--hard-gate-epochs", "0").parse().unwrap(),
        narrow_after: arg("--narrow-after", "0").parse().unwrap(),
        narrow_to: arg("--narrow-to", "0").parse().unwrap(),
        straight_through_choice: StraightThroughChoice::parse(&arg("--straight-through-choice", "none"))
            .expect("--straight-through-choice none, hidden or all"),
        draws: None,
    };
    let splits = read_image_dir(arg("--dir", FASHION_MNIST_DIR).as_ref()).expect("Fashion-MNIST files");
    // `uniform:B` thresholds over the pixel range: i / (B + 1) of full brightness.
    let train_set = splits.train.to_dataset("fashion-mnist", &FASHION_MNIST_CLASSES).expect("labels");
    let encoder = Encoder::fit(&Encoding::Uniform { bits }, &train_set).expect("an encoder");
    // `--valid V`: the last V training images are held out and evaluated instead of the
    // test set (for choosing between variants without looking at the test set).
    let valid: usize = arg("--valid", "0").parse().unwrap();
    let n_train = splits.train.labels.len();
    let (x, y) = encode(&splits.train, &encoder, 0, limit.min(n_train.saturating_sub(valid)));
    let (xt, yt) = if valid > 0 {
        encode(&splits.train, &encoder, n_train.saturating_sub(valid), n_train)
    } else {
        encode(&splits.test, &encoder, 0, usize::MAX)
    };
    let held_out = if valid > 0 { "valid" } else { "test" };
    let spec = RelaxedSpec::parse(&model, 10).unwrap();
    let candidates: usize = arg("--candidates", "1").parse().unwrap();
    let net = RelaxedNet::build(spec, x.rows(), 10, p.seed).unwrap();
    // `--radius R`: candidates near one pixel per gate (`train --input-radius`).
    let net = match arg("--radius", "none").as_str() {
        "none" => net.with_input_choice(candidates, p.seed),
        r => {
            let grid = PixelGrid { width: splits.train.images.cols, height: splits.train.images.rows };
            net.with_local_input_choice(candidates, p.seed, grid, r.parse().unwrap()).unwrap()
        }
    };
    // `--hidden-candidates C [--hidden-radius R]`: learned wiring in the later layers
    // (`train --hidden-candidates`, `--hidden-radius`).
    let hidden: usize = arg("--hidden-candidates", "1").parse().unwrap();
    let hidden_local = match arg("--hidden-radius", "none").as_str() {
        "none" => None,
        r => {
            let grid = PixelGrid { width: splits.train.images.cols, height: splits.train.images.rows };
            Some((grid, r.parse().unwrap()))
        }
    };
    let net = net.with_hidden_choice(hidden, p.seed, hidden_local).unwrap();
    let t0 = Instant::now();
    train_relaxed(&net, &x, &y, &p, |h, l| {
        let epoch = h.epoch;
        let secs = t0.elapsed().as_secs_f64();
        eprintln!("epoch {epoch} loss {:.4} running {:.4} {secs:.1}s", h.loss, h.running_accuracy);
        if epoch % eval_every == 0 || epoch == epochs {
            let params = net.discretise(l);
            let network = net.discrete_network(l);
            let soft = accuracy(&net.soft_predict(l, &xt), &yt);
            let hard = accuracy(&predict(&network, &params, &xt), &yt);
            let hard_train = accuracy(&predict(&network, &params, &x), &y);
            let lp = LowerParams { exact_inputs: 0, exact_max_nodes: 12 };
            let script = parse_script(&passes, &PassContext { care: None }).unwrap();
            let body = Aig::from_circuit_with(&network.circuit, Some(&params), &lp);
            let (body, _) = run_script(&body, &script, false).unwrap();
            let cls = bind_params(&network.classifier(), &params).unwrap();
            let cls = Aig::from_circuit_with(&cls, None, &lp);
            let (cls, _) = run_script(&cls, &script, false).unwrap();
            let row = serde_json::json!({
                "model": model, "bits": bits, "relaxed": p, "epoch": epoch, "seconds": secs,
                format!("relaxed_{held_out}"): soft, held_out: hard, "train": hard_train,
                "live": net.live_nodes(l), "candidates": candidates, "radius": arg("--radius", "none"),
                "hidden_candidates": hidden, "hidden_radius": arg("--hidden-radius", "none"), "body_ands": body.n_ands(), "classifier_ands": cls.n_ands(),
            });
            println!("{row}");
        }
    });
}

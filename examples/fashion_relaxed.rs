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
//! Reads `--dir` (default: Debian's `dataset-fashion-mnist` location). `train --data
//! fashion-mnist` trains the same way (its default model, `--lr-schedule cosine`); this
//! example adds the accuracy curve of the discretised circuit during training.

use circuitlearn::{
    Aig, BitMatrix, Encoder, Encoding, FASHION_MNIST_CLASSES, FASHION_MNIST_DIR, Features, LabelledImages,
    LowerParams, PassContext, PixelGrid, RelaxedNet, RelaxedParams, RelaxedSpec, accuracy, bind_params,
    parse_script, predict, read_image_dir, run_script, train_relaxed,
};
use std::time::Instant;

/// The first `limit` images of `set` as bits through `encoder`, with their labels.
fn encode(set: &LabelledImages, encoder: &Encoder, limit: usize) -> (BitMatrix, Vec<u32>) {
    let mut data =
        set.to_dataset("fashion-mnist", &FASHION_MNIST_CLASSES).expect("labels of the ten classes");
    let n = data.labels.len().min(limit);
    data.labels.truncate(n);
    if let Features::Real { n_features, values, .. } = &mut data.features {
        values.truncate(n * *n_features);
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
    };
    let splits = read_image_dir(arg("--dir", FASHION_MNIST_DIR).as_ref()).expect("Fashion-MNIST files");
    // `uniform:B` thresholds over the pixel range: i / (B + 1) of full brightness.
    let train_set = splits.train.to_dataset("fashion-mnist", &FASHION_MNIST_CLASSES).expect("labels");
    let encoder = Encoder::fit(&Encoding::Uniform { bits }, &train_set).expect("an encoder");
    let (x, y) = encode(&splits.train, &encoder, limit);
    let (xt, yt) = encode(&splits.test, &encoder, usize::MAX);
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
                "relaxed_test": soft, "test": hard, "train": hard_train,
                "live": net.live_nodes(l), "candidates": candidates, "radius": arg("--radius", "none"), "body_ands": body.n_ands(), "classifier_ands": cls.n_ands(),
            });
            println!("{row}");
        }
    });
}

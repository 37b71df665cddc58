//! Train the default LUT network on the embedded Iris data through the library.
//!
//! `cargo run --release --example rda_iris -- --seed 3`

use anyhow::Result;
use circuitlearn::{
    Encoder, Encoding, ModelSpec, Network, RdaRule, RdaVariant, Trainer, VoteParams, accuracy, load_dataset,
    predict, stratified_split,
};
use clap::Parser;

/// Options.
#[derive(Parser)]
struct Args {
    /// Seed of the split, wiring and training.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Model spec.
    #[arg(long, default_value = "lut:6:64x1,groupsum:3")]
    model: String,
}

fn main() -> Result<()> {
    let args = Args::parse();
    let iris = load_dataset("iris")?;
    let (tr, te) = stratified_split(&iris.labels, 0.3, args.seed);
    let (train, test) = (iris.subset(&tr), iris.subset(&te));
    let enc = Encoder::fit(&Encoding::Thermometer { bits: 8 }, &train)?;
    let spec: ModelSpec = args.model.parse()?;
    let net = Network::build(spec, enc.n_bits(), 3, args.seed)?;
    let x = enc.encode(&train)?;
    let mut rule =
        RdaRule::new(&net, &x, &train.labels, RdaVariant::Votes(VoteParams::for_head(spec.head, 3)));
    let report = Trainer::new().epochs(20).seed(args.seed).run(&mut rule, None, |end| {
        let s = end.figures();
        println!("epoch {:2}: {:5} flips, train accuracy {:.3}", s.epoch, s.flips, s.train_accuracy);
    })?;
    let acc = accuracy(&predict(&net, rule.params(), &enc.encode(&test)?), &test.labels);
    println!("stopped: {}; test accuracy {acc:.3} on {} rows", report.stop, test.labels.len());
    Ok(())
}

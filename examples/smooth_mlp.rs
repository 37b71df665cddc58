//! Library use of the smooth domain: an MLP on Iris as a smooth circuit, its learner lens
//! `(model ⊗ id) ; softmax cross-entropy ; learning rate`, the parameter-change circuit
//! taken from that lens, and Adam as the stateful reparametrisation that applies it.
//!
//! `cargo run --release --example smooth_mlp -- --epochs 200`

use circuitlearn::{
    Adam, Examples, Optimizer, SmoothModel, SmoothSpec, WeightInit, eval_tensors, loss, parameter_changes,
};
use clap::Parser;

/// Arguments.
#[derive(Parser)]
struct Args {
    /// Full-batch steps.
    #[arg(long, default_value_t = 200)]
    epochs: usize,
    /// Seed of the initial weights.
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let iris = Examples::from_dataset(&circuitlearn::load_dataset("iris")?).map_err(anyhow::Error::msg)?;
    // Standardise the four features so one learning rate suits all of them.
    let mut data = iris.clone();
    for f in 0..4 {
        let col: Vec<f32> = data.x.iter().skip(f).step_by(4).copied().collect();
        let mean = col.iter().sum::<f32>() / col.len() as f32;
        let sd = (col.iter().map(|v| (v - mean).powi(2)).sum::<f32>() / col.len() as f32).sqrt();
        data.x.iter_mut().skip(f).step_by(4).for_each(|v| *v = (*v - mean) / sd);
    }
    let spec: SmoothSpec = "mlp:16".parse().map_err(anyhow::Error::msg)?;
    let mut model = SmoothModel::from_spec(&spec, &data.shape, data.classes, WeightInit::FanIn, args.seed)
        .map_err(anyhow::Error::msg)?;
    println!("model circuit: {} gates {:?}", model.circuit.n_gates(), model.circuit.gate_histogram());

    // The learner lens and the circuit of parameter changes it proposes (the gradient:
    // learning rate 1, Adam scales it).
    let learner = loss::learner(&model.circuit, &loss::softmax_cross_entropy(), 1.0)?;
    let changes = parameter_changes(&learner, model.params.len());
    println!("gradient circuit: {} gates {:?}", changes.n_gates(), changes.gate_histogram());

    let rows: Vec<usize> = (0..data.len()).collect();
    let (x, y) = data.batch(&rows);
    let mut adam: Vec<Adam> = model.params.iter().map(|_| Adam::new(0.05)).collect();
    for epoch in 1..=args.epochs {
        let mut inputs: Vec<_> = model.params.iter().collect();
        inputs.extend([&x, &y]);
        let grads = eval_tensors(&changes, &inputs);
        for ((p, g), opt) in model.params.iter_mut().zip(&grads).zip(&mut adam) {
            opt.step(p.data_mut(), g.data());
        }
        if epoch % 50 == 0 || epoch == args.epochs {
            println!("step {epoch}: training accuracy {:.3}", model.accuracy(&data));
        }
    }
    Ok(())
}

//! Local first-layer wiring for LUT networks over images: each first-layer LUT reads
//! input bits of pixels near one centre pixel (a convolution's receptive field, without
//! shared tables).
//!
//! The wiring is a function of the seeded wiring, the image grid, the radius and the seed;
//! `train` stores it in `model.json` as `learned_wiring`, so exports and checks rebuild
//! exactly the trained network.

use super::network::ModelError;
use super::relaxed::PixelGrid;
use crate::domain::LutLayers;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The local wiring of the first layer of `layers` (the seeded wiring of a network over
/// images of `grid`, input bits feature-major as [`Encoder`](crate::data::Encoder) writes
/// them), in the form [`Network::build_with_wiring`](super::Network::build_with_wiring)
/// takes for layer 0.
///
/// A LUT keeps its first seeded source, whose pixel is its centre (the seeded sources are
/// spread evenly over the input bits, so the centres are spread evenly over the image);
/// its other inputs are distinct bits (any threshold) of pixels drawn uniformly within
/// `radius` rows and columns of the centre, inside the image.
///
/// # Errors
/// [`ModelError::NotAnImage`] if the input bits are not a whole number of bits per pixel
/// of `grid`; [`ModelError::Wiring`] if a radius of 0, or one whose neighbourhood at a
/// corner holds fewer input bits than a LUT has inputs, is asked for.
pub fn local_wiring(
    layers: &LutLayers,
    grid: PixelGrid,
    radius: usize,
    seed: u64,
) -> Result<Vec<u32>, ModelError> {
    let inputs = layers.n_inputs;
    let (width, height) = (grid.width, grid.height);
    if width * height == 0 || !inputs.is_multiple_of(width * height) {
        return Err(ModelError::NotAnImage { inputs, width, height });
    }
    let bits = inputs / (width * height);
    let Some(first) = layers.layers.first() else { return Ok(Vec::new()) };
    let k = first.k;
    let r = radius.min(width.max(height));
    // The smallest neighbourhood is a corner's.
    let corner = (r + 1).min(width) * (r + 1).min(height) * bits;
    if r == 0 || corner < k {
        return Err(ModelError::Wiring {
            layer: 0,
            why: format!("radius {radius} leaves {corner} input bits at a corner, fewer than {k} per LUT"),
        });
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x0010_ca1e_51d3);
    let ri = r as i64;
    let mut sources = Vec::with_capacity(first.sources.len());
    for lut in first.sources.chunks_exact(k) {
        let pixel = lut[0] as usize / bits;
        let (cx, cy) = ((pixel % width) as i64, (pixel / width) as i64);
        let start = sources.len();
        sources.push(lut[0]);
        while sources.len() - start < k {
            let (x, y) = (cx + rng.random_range(-ri..=ri), cy + rng.random_range(-ri..=ri));
            if x < 0 || y < 0 || x >= width as i64 || y >= height as i64 {
                continue;
            }
            let s = ((y as usize * width + x as usize) * bits + rng.random_range(0..bits)) as u32;
            if !sources[start..].contains(&s) {
                sources.push(s);
            }
        }
    }
    Ok(sources)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::{ModelSpec, Network};

    fn layers(spec: &str, inputs: usize, seed: u64) -> LutLayers {
        let spec: ModelSpec = spec.parse().unwrap();
        Network::build(spec, inputs, 10, seed).unwrap().layers.unwrap()
    }

    /// Every LUT reads distinct bits within the radius of its first (seeded) source, the
    /// wiring is a function of the seed, and the network rebuilt with it reads it.
    #[test]
    fn first_layer_luts_read_near_their_centre() {
        let grid = PixelGrid { width: 28, height: 28 };
        let seeded = layers("lut:6:500x2:100,groupsum:10", 784 * 3, 5);
        let w = local_wiring(&seeded, grid, 2, 5).unwrap();
        assert_eq!(w.len(), seeded.layers[0].sources.len());
        let place = |b: u32| (b as usize / 3 % 28, b as usize / 3 / 28);
        for (lut, given) in w.chunks_exact(6).zip(seeded.layers[0].sources.chunks_exact(6)) {
            assert_eq!(lut[0], given[0], "the centre is the seeded first source");
            let mut d = lut.to_vec();
            d.sort_unstable();
            d.dedup();
            assert_eq!(d.len(), 6, "{lut:?}");
            let (cx, cy) = place(lut[0]);
            for &s in lut {
                let (x, y) = place(s);
                assert!(x.abs_diff(cx) <= 2 && y.abs_diff(cy) <= 2, "{lut:?}");
            }
        }
        assert_eq!(local_wiring(&seeded, grid, 2, 5).unwrap(), w);
        assert_ne!(local_wiring(&seeded, grid, 2, 6).unwrap(), w);
        let spec: ModelSpec = "lut:6:500x2:100,groupsum:10".parse().unwrap();
        let net = Network::build_with_wiring(spec, 784 * 3, 10, 5, std::slice::from_ref(&w)).unwrap();
        assert_eq!(net.layers.unwrap().layers[0].sources, w);
    }

    #[test]
    fn impossible_neighbourhoods_are_refused() {
        let grid = PixelGrid { width: 28, height: 28 };
        let seeded = layers("lut:6:50x1,groupsum:10", 784, 1);
        // One bit per pixel: a corner within radius 1 holds 4 bits, too few for a 6-LUT.
        assert!(matches!(local_wiring(&seeded, grid, 1, 1), Err(ModelError::Wiring { .. })));
        assert!(matches!(local_wiring(&seeded, grid, 0, 1), Err(ModelError::Wiring { .. })));
        assert!(local_wiring(&seeded, grid, 2, 1).is_ok());
        let odd = PixelGrid { width: 27, height: 28 };
        assert!(matches!(local_wiring(&seeded, odd, 2, 1), Err(ModelError::NotAnImage { .. })));
    }
}

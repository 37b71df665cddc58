//! Files in and out: atomic writes, model files, DOT.

pub mod atomic;
pub mod dot;
pub mod model_file;

pub use atomic::write_atomic;
pub use model_file::{ModelFile, ModelFileError};

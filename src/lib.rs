#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

pub mod aig;
pub mod bench;
pub mod cat;
pub mod circuit;
pub mod cli;
pub mod data;
pub mod dist;
pub mod domain;
pub mod error;
pub mod io;
pub mod lanes;
pub mod learn;
pub mod map;
pub mod pass;
pub mod pipeline;
pub mod sat;
pub mod smooth;
pub mod tools;
pub mod train;
pub mod tutorial;
pub mod verify;

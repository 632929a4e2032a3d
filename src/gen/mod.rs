//! Synthetic traces in each format's native schema, deterministic for a seed.

pub mod itp;
pub mod rng;

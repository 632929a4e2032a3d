//! Synthetic traces in each format's native schema, deterministic for a seed.

pub mod acme;
pub(crate) mod dist;
pub mod itp;
pub mod pai;
pub mod philly;
pub mod rng;

//! GPU sharing as FGD's simulator places it (`docs/openb.md`): pods that ask
//! one node for CPU, memory and a share of one GPU or whole GPUs; the six
//! placements of "Beware of Fragmentation" (ATC '23); its fragmentation
//! measure against the trace's typical pods; and its arrival-only
//! "inflation" experiment, binned by percent of arrived workload as its
//! analysis scripts bin it.

mod bins;
mod frag;
mod inflate;
mod node;
mod rules;
mod typical;

pub use bins::{discrete, round2, Discrete, BINS};
pub use frag::{node_frag, Fragmentation};
pub use inflate::{arrival_order, inflate, Attempt, Inflation, Setup};
pub(crate) use node::tag;
pub use node::{Ask, Node};
pub use rules::{Ranking, Scored, SharingRule, RANKED};
pub use typical::{typical_pods, Typical};

#[cfg(test)]
mod tests;

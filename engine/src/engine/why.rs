//! Why a waiting job waits, as an operator asks it: its GPUs are not free
//! (and, where they are in number, no machine has the block it needs), or
//! they are and it waits its turn behind the head of the policy's order,
//! or behind the head's reservation, or for its recorded start, or for the
//! policy to start it. A query: the cluster is probed on a copy.

use super::{Engine, Phase};
use crate::cluster::TypeFilter;
use crate::placement::place_asking;
use crate::policy::Walk;
use crate::waits::{Blocked, Reserved};
use tracetui_model::{Demand, Secs, MILLI_PER_GPU};

impl Engine {
    /// The backfill reservation in force, if the head still waits.
    pub fn reserved(&self) -> Option<Reserved> {
        let r = self
            .reservation
            .as_ref()
            .filter(|_| self.seat.walk == Walk::Backfill)?;
        (self.jobs.get(r.head as usize)?.phase == Phase::Queued).then(|| Reserved {
            head: r.head,
            from: (r.shadow != Secs::MAX).then_some(r.shadow),
            machines: r.machines().collect(),
        })
    }

    /// Why waiting `job` has not started (`None` unless it waits).
    pub fn blocked(&self, job: u32) -> Option<Blocked> {
        if self.jobs.get(job as usize)?.phase != Phase::Queued {
            return None;
        }
        if self.seat.walk == Walk::Recorded {
            let segs = &self.trace.jobs[job as usize].segments;
            let start = self.trace.segments[segs.start as usize..segs.end as usize]
                .iter()
                .map(|s| s.start)
                .min();
            return Some(Blocked::Record { start });
        }
        let class = self.shapes.class_of[job as usize];
        let (demand, filter) = &self.shapes.shapes[class as usize];
        let asks = self.shapes.asks[class as usize];
        let mut probe = self.cluster.clone();
        if place_asking(&mut probe, self.placement, demand, *filter, asks).is_none() {
            // It would fit asking GPUs alone: CPU or memory holds it back.
            let none = crate::shape_classes::Asks::default();
            let asks_host = asks != none
                || matches!(demand, Demand::Instances(u) if u.iter().any(|u| u.asks_host()));
            if asks_host
                && place_asking(&mut probe, self.placement, &bare(demand), *filter, none).is_some()
            {
                return Some(Blocked::Host);
            }
            return Some(self.no_room(demand, *filter));
        }
        // Held in --rounds' rounds, the policy decides only at the next.
        if self.gated() {
            return Some(Blocked::Round {
                next: self.gate_wakeup(),
            });
        }
        let head = self.queue_in_order(1).first().copied();
        Some(match (self.seat.walk, head) {
            (Walk::Backfill, Some(h)) if h != job => Blocked::Reservation {
                head: h,
                shadow: self
                    .reservation
                    .as_ref()
                    .filter(|r| r.head == h && r.shadow != Secs::MAX)
                    .map(|r| r.shadow),
            },
            (Walk::Strict | Walk::Backfill, Some(h)) if h != job => Blocked::Turn { head: h },
            _ => Blocked::Policy,
        })
    }

    /// It does not fit now: too few GPUs free, or no block big enough.
    fn no_room(&self, demand: &Demand, filter: TypeFilter) -> Blocked {
        let free = self.cluster.free_gpus(filter);
        let (needs, block) = match demand {
            Demand::Gang { gpus } => {
                let one = *gpus <= self.cluster.max_gpus(filter);
                (*gpus as u64, one.then_some(*gpus))
            }
            Demand::Instances(units) => {
                let whole = |m: u32| m.div_ceil(MILLI_PER_GPU);
                let needs = units
                    .iter()
                    .map(|u| u.count as u64 * (u.milli / MILLI_PER_GPU) as u64)
                    .sum();
                (needs, units.iter().map(|u| whole(u.milli)).max())
            }
        };
        match block {
            Some(block) if free >= needs => Blocked::Locality {
                block,
                largest: self.largest_free_block(filter),
            },
            _ => Blocked::Room { needs, free },
        }
    }

    /// The most whole GPUs free on one machine of a type `filter` allows.
    fn largest_free_block(&self, filter: TypeFilter) -> u32 {
        (0..self.cluster.machine_count() as u32)
            .filter(|&m| filter.allows(self.cluster.machine_type(m)))
            .map(|m| self.cluster.free(m))
            .max()
            .unwrap_or(0)
    }
}

/// `d` asking GPUs alone: its instances' CPU and memory left out.
fn bare(d: &Demand) -> Demand {
    match d {
        Demand::Instances(units) => Demand::Instances(
            units
                .iter()
                .filter(|u| u.milli > 0)
                .map(|u| tracetui_model::Unit::gpus(u.count, u.milli))
                .collect(),
        ),
        d => d.clone(),
    }
}

//! Scheduling passes: how each policy walks the queue.

use super::{Asking, Engine, Hook};
use crate::backfill::Reservation;
use crate::cluster::Grant;
use crate::placement::place_into;
use crate::policy::Walk;
use crate::view::NoAnswer;

impl Engine {
    pub(super) fn pass(&mut self) {
        let decided = match self.seat.passive {
            true => Ok(None),
            false => self.with_view(|b, v| b.decide(v)),
        };
        match decided {
            Ok(Some(answer)) => self.policy_apply(answer),
            Ok(None) => {}
            Err(NoAnswer::Ask(question)) => {
                self.asking = Some(Asking {
                    question: *question,
                    hook: Hook::Decide,
                });
                return;
            }
            Err(NoAnswer::Failed(why)) => {
                // Falling back runs a pass under the policy before.
                self.policy_failed(why);
                return;
            }
        }
        match self.seat.walk {
            Walk::Strict => self.walk_strict(),
            Walk::Greedy => self.walk_greedy(),
            Walk::Backfill => {
                self.walk_strict();
                if !self.queue.is_empty() {
                    self.backfill();
                }
            }
            Walk::Preemptive => self.walk_preemptive(),
            Walk::Recorded | Walk::Explicit => {}
        }
        self.after_pass();
    }

    /// The policy's word on what the walk did (an external policy's keys).
    pub(super) fn after_pass(&mut self) {
        if self.seat.passive {
            return;
        }
        match self.with_view(|b, v| b.after_pass(v)) {
            Ok(Some(keys)) => self.policy_apply(keys),
            Ok(None) => {}
            Err(NoAnswer::Ask(question)) => {
                self.asking = Some(Asking {
                    question: *question,
                    hook: Hook::AfterPass,
                })
            }
            Err(NoAnswer::Failed(why)) => self.policy_failed(why),
        }
    }

    /// The placement for class `c` now, remembering a failure for this epoch.
    pub(super) fn try_class(&mut self, c: u32) -> Option<Vec<Grant>> {
        self.fits(c).then(|| self.placed.clone())
    }

    /// Whether class `c` fits now (its grants in `placed`), remembering a
    /// failure for this epoch.
    fn fits(&mut self, c: u32) -> bool {
        if self.queue.classes[c as usize].failed_epoch == Some(self.epoch) {
            return false;
        }
        let (demand, filter) = &self.shapes.shapes[c as usize];
        let asks = self.shapes.asks[c as usize];
        let placed = &mut self.placed;
        let fits = place_into(
            &mut self.cluster,
            self.placement,
            demand,
            *filter,
            asks,
            placed,
        );
        if !fits {
            self.queue.classes[c as usize].failed_epoch = Some(self.epoch);
        }
        fits
    }

    /// Starts the waiting job of rank `rank` and key `key` on the grants
    /// `fits` left in `placed`.
    fn start_placed(&mut self, key: u64, rank: u32) {
        let job = self.shapes.arrival[rank as usize];
        self.dequeue_keyed(job, key);
        let placed = std::mem::take(&mut self.placed);
        self.launch(job, &placed);
        self.placed = placed;
    }

    /// The first waiting job in policy order: (key, rank, class).
    fn global_head(&self, skip_failed: bool) -> Option<(u64, u32, u32)> {
        self.queue
            .active
            .iter()
            .filter(|&c| {
                !skip_failed || self.queue.classes[c as usize].failed_epoch != Some(self.epoch)
            })
            .filter_map(|c| self.queue.head(c).map(|(k, r)| (k, r, c)))
            .min()
    }

    fn walk_strict(&mut self) {
        while let Some((key, rank, class)) = self.global_head(false) {
            if !self.fits(class) {
                break;
            }
            self.start_placed(key, rank);
        }
    }

    pub(super) fn walk_greedy(&mut self) {
        while let Some((key, rank, class)) = self.global_head(true) {
            if self.fits(class) {
                self.start_placed(key, rank);
            }
        }
    }

    fn backfill(&mut self) {
        let Some((_, head_rank, _)) = self.global_head(false) else {
            return;
        };
        let head = self.shapes.arrival[head_rank as usize];
        // An estimate's shadow time can pass with the head still waiting
        // (a job ran past its estimate): it is planned again.
        let stale = |r: &Reservation| {
            r.head != head || (!self.tuning.estimate.is_oracle() && r.shadow < self.now)
        };
        if self.reservation.as_ref().is_none_or(stale) {
            let expected = self.expected_ends();
            let ends = match &expected {
                Some(e) => e,
                None => self.completions.ordered(),
            };
            self.reservation = Some(Reservation::compute(
                head,
                &self.trace.jobs[head as usize].demand,
                {
                    let c = self.shapes.class_of[head as usize] as usize;
                    (self.shapes.shapes[c].1, self.shapes.asks[c])
                },
                self.placement,
                &mut self.cluster,
                ends,
                &self.running,
            ));
        }
        // One walk in arrival order behind the head: each job is looked at
        // once, in the state the jobs started before it left.
        let mut cursor = head_rank;
        loop {
            let mut best: Option<(u32, Vec<Grant>)> = None;
            let active: Vec<u32> = self.queue.active.iter().collect();
            for c in active {
                let Some(g) = self.try_class(c) else { continue };
                let res = self.reservation.as_ref().expect("computed above");
                let class = &self.queue.classes[c as usize];
                let rank = if res.admits(&g, &self.cluster) {
                    class.order.after((0, cursor + 1), true).map(|(_, r)| r)
                } else if res.shadow >= self.now {
                    let members = &self.shapes.members().of[c as usize];
                    let from = members.partition_point(|&r| r <= cursor);
                    let tree = class.short.as_ref().expect("backfill trees");
                    tree.first_at_most(from, (res.shadow - self.now) as u64)
                        .map(|p| members[p])
                } else {
                    None
                };
                if let Some(r) = rank {
                    if best.as_ref().is_none_or(|(b, _)| r < *b) {
                        best = Some((r, g));
                    }
                }
            }
            let Some((rank, g)) = best else { break };
            cursor = rank;
            let job = self.shapes.arrival[rank as usize];
            // On the GPUs it is given (a job with a speed runs at theirs).
            let ends = self
                .estimated_left_on(job, Some(&g))
                .map(|r| self.now + r.max(0));
            let res = self.reservation.as_mut().expect("computed above");
            if ends.is_none_or(|e| e > res.shadow) {
                res.consume(&g, &self.cluster);
            }
            self.start(job, &g);
        }
    }
}

//! The host's priority bit (thesis §7.2) and its statistics: each request is high or low
//! priority (its hint against `priority.high_hint_max`, or the power mode); the Netbook
//! scenario's battery / wall power modes alternate by request counts; latency is kept per
//! priority class and per power mode, work energy per power mode. Designs read a
//! request's class (`Request::high`) and the mode (`Priority::on_battery`); the baseline
//! gets the same statistics, so a design is compared on equal terms.

use super::host::record_request;
use super::*;
use crate::stats::{PowerModeSummary, PriorityClassSummary, PrioritySummary};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

pub(crate) struct Priority {
    high_hint_max: u8,
    modes: Option<PowerModes>,
    /// Kept only when the config asks for it (`Priority::reported`): ~1.2 MB each.
    stats: Option<Box<[RunStats; 4]>>,
}

/// Battery and wall power in alternating segments of requests (battery first).
struct PowerModes {
    battery: bool,
    /// Requests left in the current segment, and the length of the pair's segments.
    left: u64,
    length: u64,
    mean: u64,
    rng: Pcg64Mcg,
    switches: u64,
    /// Work energy (nJ) and simulated time when the current mode began, and the totals
    /// of each mode (0 wall, 1 battery).
    energy_at_switch: f64,
    since_ns: u64,
    energy_nj: [f64; 2],
    time_ns: [u64; 2],
    requests: [u64; 2],
}

const LOW: usize = 0;
const HIGH: usize = 1;
const WALL: usize = 2;
const BATTERY: usize = 3;

impl Priority {
    pub(crate) fn new(config: &Config) -> Priority {
        let p = &config.priority;
        let modes = p.power_modes().then(|| {
            let mut rng = Pcg64Mcg::seed_from_u64(crate::rng::derive(config.seed, "power-modes"));
            let mean = p.power_segment_requests;
            let length = segment(&mut rng, mean);
            PowerModes {
                battery: true,
                left: length,
                length,
                mean,
                rng,
                switches: 0,
                energy_at_switch: 0.0,
                since_ns: 0,
                energy_nj: [0.0; 2],
                time_ns: [0; 2],
                requests: [0; 2],
            }
        });
        let reported = p.report
            || p.power_modes()
            || config.mix.enabled()
            || config.mango.enabled()
            || config.flows.iter().any(|f| f.hint.is_some());
        let stats = || RunStats { dominated_writes: vec![0; config.bits_per_cell()], ..RunStats::default() };
        let stats = reported.then(|| Box::new([stats(), stats(), stats(), stats()]));
        Priority { high_hint_max: p.high_hint_max, modes, stats }
    }

    /// Whether the drive runs on battery now (the Netbook scenario's fast mode).
    pub(crate) fn on_battery(&self) -> bool {
        self.modes.as_ref().is_some_and(|m| m.battery)
    }

    /// The class of a request arriving now, and the power mode it arrives in (counting
    /// it into its segment; the mode switches after the segment's last request).
    fn arrive(&mut self, hint: Option<u8>, work_energy_nj: f64, now: u64) -> (bool, bool) {
        let Some(m) = self.modes.as_mut() else {
            return (hint.is_some_and(|h| h <= self.high_hint_max), false);
        };
        let battery = m.battery;
        m.requests[battery as usize] += 1;
        m.left -= 1;
        if m.left == 0 {
            m.energy_nj[battery as usize] += work_energy_nj - m.energy_at_switch;
            m.time_ns[battery as usize] += now - m.since_ns;
            m.energy_at_switch = work_energy_nj;
            m.since_ns = now;
            m.switches += 1;
            m.battery = !battery;
            // A wall segment as long as the battery one before it; a new length per pair.
            if m.battery {
                m.length = segment(&mut m.rng, m.mean);
            }
            m.left = m.length;
        }
        (battery, battery)
    }
}

/// A segment length: uniform from half to one and a half times the mean (at least 1).
fn segment(rng: &mut Pcg64Mcg, mean: u64) -> u64 {
    rng.random_range(mean.div_ceil(2)..=mean + mean / 2).max(1)
}

impl Simulator<'_> {
    /// The work energy spent so far (reads, programs, erases, transfers), nJ.
    fn work_energy_nj(&self) -> f64 {
        let e = &self.energy;
        e.read + e.program + e.erase + e.transfer
    }

    /// A request arrives: its priority class and power mode.
    pub(crate) fn request_priority(&mut self, hint: Option<u8>) -> (bool, bool) {
        let energy = self.work_energy_nj();
        self.host_priority.arrive(hint, energy, self.now)
    }

    /// A request completed: its latency into its class's and its mode's statistics.
    pub(crate) fn priority_request_done(&mut self, r: &Request, latency: u64, completion: u64) {
        let modes = self.host_priority.modes.is_some();
        let Some(stats) = self.host_priority.stats.as_mut() else { return };
        record_request(&mut stats[if r.high { HIGH } else { LOW }], r, latency, completion);
        if modes {
            record_request(&mut stats[if r.battery { BATTERY } else { WALL }], r, latency, completion);
        }
    }

    pub(crate) fn priority_summary(&self) -> Option<PrioritySummary> {
        let stats = self.host_priority.stats.as_ref()?;
        let op = |s: &RunStats| {
            let interval = s.last_completion_ns.saturating_sub(s.first_arrival_ns.unwrap_or(0));
            (s.reads.summary(interval), s.writes.summary(interval), s.all.summary(interval))
        };
        let classes = [("high", HIGH), ("low", LOW)]
            .into_iter()
            .map(|(name, k)| {
                let (read, write, all) = op(&stats[k]);
                PriorityClassSummary { name: name.into(), read, write, all }
            })
            .collect();
        let mut power_modes = Vec::new();
        let mut switches = 0;
        if let Some(m) = self.host_priority.modes.as_ref() {
            let mut energy = m.energy_nj;
            let mut time = m.time_ns;
            // The mode the run ended in: up to now.
            energy[m.battery as usize] += self.work_energy_nj() - m.energy_at_switch;
            time[m.battery as usize] += self.now.saturating_sub(m.since_ns);
            switches = m.switches;
            for (name, k, mode) in [("battery", BATTERY, 1), ("wall", WALL, 0)] {
                let (read, write, all) = op(&stats[k]);
                power_modes.push(PowerModeSummary {
                    name: name.into(),
                    requests: m.requests[mode],
                    time_ns: time[mode],
                    work_energy_nj: energy[mode],
                    read,
                    write,
                    all,
                });
            }
        }
        Some(PrioritySummary {
            high_hint_max: self.host_priority.high_hint_max,
            classes,
            power_modes,
            power_switches: switches,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn power_segments_pair_up_so_each_mode_gets_half() {
        let mut c = Config::default();
        c.priority.power_segment_requests = 100;
        let mut p = Priority::new(&c);
        let mut battery = 0;
        let mut pairs_done = 0;
        for i in 0..100_000u64 {
            let (high, on_battery) = p.arrive(None, i as f64, i);
            assert_eq!(high, on_battery, "every battery request is high priority, every wall one low");
            battery += on_battery as u64;
            let m = p.modes.as_ref().unwrap();
            if m.battery && m.left == m.length {
                pairs_done += 1;
                assert_eq!(battery * 2, i + 1, "after each battery + wall pair, exactly half on battery");
            }
        }
        assert!((400..=600).contains(&pairs_done), "pairs of 100..300 requests: {pairs_done} pairs");
        let m = p.modes.as_ref().unwrap();
        assert_eq!(m.requests[0] + m.requests[1], 100_000);
    }

    #[test]
    fn hints_up_to_the_threshold_are_high_priority() {
        let mut c = Config::default();
        c.priority.high_hint_max = 1;
        let mut p = Priority::new(&c);
        assert!(p.stats.is_none(), "nothing asks for the statistics");
        let classes: Vec<bool> = [None, Some(0), Some(1), Some(2)].into_iter().map(|h| p.arrive(h, 0.0, 0).0).collect();
        assert_eq!(classes, [false, true, true, false]);
    }
}

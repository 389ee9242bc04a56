//! The host's priority bit (thesis §7.2) and its statistics: each request is high or low
//! priority (its hint against `priority.high_hint_max`, or the power mode); the Netbook
//! scenario's battery / wall power modes alternate by request counts; latency is kept per
//! priority class and per power mode, work energy per power mode. Designs read a
//! request's class (`Request::high`) and the mode (`Priority::on_battery`); the baseline
//! gets the same statistics, so a design is compared on equal terms.
//!
//! Beside the response time it keeps each request's flash service time, the thesis' own
//! latency measure (§7.2: "the latency for each operation (including garbage collection
//! time if the operation needed to wait for it)", on a simulator that served one
//! operation at a time): the time its page's own command took (transfers, the array
//! step, a read's decode) plus the GC commands its die ran while the page waited in the
//! die's queue since the die last did other work. GC that ran before other queued work
//! delayed that work (and counts in its service time); waiting behind other work is left
//! out. So on a die that does A, GC, B, GC, C with all three queued, B waited for the
//! second GC and C for none. A request's is its slowest
//! page's; a request served without flash (a cache hit, a buffered write) has its
//! response time. A read-modify-write counts its program only.

use super::host::record_request;
use super::*;
use crate::stats::{LatencyStats, PowerModeSummary, PriorityClassSummary, PrioritySummary};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

pub(crate) struct Priority {
    high_hint_max: u8,
    modes: Option<PowerModes>,
    /// Kept only when the config asks for it (`Priority::new`'s `reported`).
    stats: Option<Box<Reported>>,
}

/// The statistics: latency per class and per power mode (`LOW`, `HIGH`, `WALL`,
/// `BATTERY`; ~1.2 MB each) and the flash service time.
struct Reported {
    runs: [RunStats; 4],
    service: Service,
}

/// Flash service time accounting: per queueing unit (a die; a chip when its dies run one
/// command at a time), the GC time it finished and the command it runs; the service
/// times of reads and writes by class (`LOW`/`HIGH` × read, write).
struct Service {
    units: Vec<Unit>,
    dies_per_unit: u32,
    stats: [[LatencyStats; 2]; 2],
}

#[derive(Clone, Copy, Default)]
struct Unit {
    cleaned_ns: u64,
    /// `cleaned_ns` when the unit last finished other work than GC.
    cleaned_at_other_ns: u64,
    started_ns: u64,
    cleaning: bool,
}

impl Service {
    /// The GC time the unit has done by `now`, but for the command under way: a page
    /// queued now waits only for the rest of it.
    fn seen(&self, unit: usize, now: u64) -> u64 {
        let u = &self.units[unit];
        u.cleaned_ns + if u.cleaning { now - u.started_ns } else { 0 }
    }
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
        let g = &config.geometry;
        let dies_per_unit =
            if config.flash.die_scheduling == DieScheduling::ChipSerial { g.dies_per_chip.max(1) } else { 1 };
        let dies = g.channels * g.chips_per_channel * g.dies_per_chip;
        let stats = reported.then(|| {
            let run = || RunStats { dominated_writes: vec![0; config.bits_per_cell()], ..RunStats::default() };
            Box::new(Reported {
                runs: [run(), run(), run(), run()],
                service: Service {
                    units: vec![Unit::default(); dies.div_ceil(dies_per_unit) as usize],
                    dies_per_unit,
                    stats: Default::default(),
                },
            })
        });
        Priority { high_hint_max: p.high_hint_max, modes, stats }
    }

    fn service(&self) -> Option<&Service> {
        self.stats.as_ref().map(|s| &s.service)
    }

    fn service_mut(&mut self) -> Option<&mut Service> {
        self.stats.as_mut().map(|s| &mut s.service)
    }

    /// Whether requests are reported per class (a priority report asked for).
    #[inline]
    pub(crate) fn reported(&self) -> bool {
        self.stats.is_some()
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

    /// A transaction was queued (or moved to another die's queue): the GC time its die
    /// has done so far, to tell later how much of it the transaction waited for.
    pub(crate) fn service_queued(&mut self, t: u32) {
        let Some(s) = self.host_priority.service() else { return };
        let unit = self.ftl.addr.die_of_plane(self.txns[t as usize].plane) / s.dies_per_unit;
        self.txns[t as usize].cleaning_seen_ns = s.seen(unit as usize, self.now);
    }

    /// A command starts on `die`.
    pub(crate) fn service_command_started(&mut self, die: u32) {
        if self.host_priority.stats.is_none() {
            return;
        }
        let cleaning = self.gc_command(die);
        let s = self.host_priority.service_mut().expect("checked");
        let u = &mut s.units[(die / s.dies_per_unit) as usize];
        u.started_ns = self.now;
        u.cleaning = cleaning;
    }

    /// `die`'s command completes (still in `dies[die].command`): each host page in it has
    /// its service time, its request the longest of its pages'.
    pub(crate) fn service_command_ended(&mut self, die: u32) {
        let Some(s) = self.host_priority.service() else { return };
        let u = s.units[(die / s.dies_per_unit) as usize];
        for &t in &self.dies[die as usize].command.txns {
            let txn = &self.txns[t as usize];
            let host =
                matches!(txn.kind, TxnKind::Read | TxnKind::Write | TxnKind::PartialProgram | TxnKind::Reprogram);
            // (An acknowledged write's request may be gone: it was served by the buffer.)
            if !host || txn.request == NO_REQUEST || txn.acked {
                continue;
            }
            let decode = if txn.kind == TxnKind::Read { txn.decode_ns as u64 } else { 0 };
            let waited = u.cleaned_ns.saturating_sub(txn.cleaning_seen_ns.max(u.cleaned_at_other_ns));
            let service = self.now - u.started_ns + decode + waited;
            let r = &mut self.requests[txn.request as usize];
            r.service_ns = r.service_ns.max(service);
        }
    }

    /// `die` goes idle: the GC command it ran (or lost to a power failure) counts; any
    /// other command ends the GC a queued page waited for so far.
    pub(crate) fn service_idle(&mut self, die: u32) {
        let now = self.now;
        let Some(s) = self.host_priority.service_mut() else { return };
        let u = &mut s.units[(die / s.dies_per_unit) as usize];
        if u.cleaning {
            u.cleaned_ns += now - u.started_ns;
            u.cleaning = false;
        } else {
            u.cleaned_at_other_ns = u.cleaned_ns;
        }
    }

    /// A request completed: its latency into its class's and its mode's statistics.
    pub(crate) fn priority_request_done(&mut self, r: &Request, latency: u64, completion: u64) {
        let modes = self.host_priority.modes.is_some();
        let Some(stats) = self.host_priority.stats.as_mut() else { return };
        let op = match r.op {
            Op::Read => Some(0),
            Op::Write => Some(1),
            _ => None,
        };
        if let Some(op) = op {
            let service = if r.service_ns > 0 { r.service_ns } else { latency };
            stats.service.stats[r.high as usize][op].record(service, r.size_bytes);
        }
        let runs = &mut stats.runs;
        record_request(&mut runs[if r.high { HIGH } else { LOW }], r, latency, completion);
        if modes {
            record_request(&mut runs[if r.battery { BATTERY } else { WALL }], r, latency, completion);
        }
    }

    pub(crate) fn priority_summary(&self) -> Option<PrioritySummary> {
        let Reported { runs: stats, service } = &**self.host_priority.stats.as_ref()?;
        let op = |s: &RunStats| {
            let interval = s.last_completion_ns.saturating_sub(s.first_arrival_ns.unwrap_or(0));
            (s.reads.summary(interval), s.writes.summary(interval), s.all_summary(interval))
        };
        let classes = [("high", HIGH), ("low", LOW)]
            .into_iter()
            .map(|(name, k)| {
                let (read, write, all) = op(&stats[k]);
                let [r, w] = &service.stats[(k == HIGH) as usize];
                PriorityClassSummary {
                    name: name.into(),
                    read,
                    write,
                    all,
                    read_service_ns: r.summary(0).latency_ns,
                    write_service_ns: w.summary(0).latency_ns,
                }
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

//! The run's report: statistics, counters and the configuration that produced them.

use super::*;

/// The report's `config_hash`: FNV-1a of the config as TOML (the config as given, before
/// `Config::device_view`).
pub(crate) fn config_hash(config: &Config) -> String {
    let text = toml::to_string(config).unwrap_or_default();
    format!("{:016x}", fnv1a(text.as_bytes()))
}

/// How the note (and, when the run's GC ran, the warning) on a short run after the rapid
/// fill begins.
const NOT_STEADY_NOTE: &str = "WAF has not reached steady state";

impl Simulator<'_> {
    pub(crate) fn finish(&mut self) -> (Report, Vec<SeriesRow>) {
        self.judge_steady_state();
        if self.config.output.series_interval_ns > 0 && (self.series_acc.reads + self.series_acc.writes) > 0 {
            self.flush_series_row();
        }
        let start = self.total.first_arrival_ns.unwrap_or(0);
        let interval = self.total.last_completion_ns.saturating_sub(start);
        let addr = &self.ftl.addr;
        let dominated_writes: u64 = self.total.dominated_writes.iter().sum();
        let bits = self.ftl.bits_per_cell;
        let erase_counts: Vec<u32> = self.ftl.blocks.iter().map(|b| b.erase_count).collect();
        let erase_summary = erase_summary(&erase_counts);
        let f = &self.flash_counters;
        // The headline WAF is by bytes, as other simulators and papers report it: a 2 KiB
        // write that programs an 8 KiB page writes 8 KiB of flash. The page-program
        // ratio (GC's copies only) is kept beside it.
        let waf_pages = if f.user_programs == 0 {
            0.0
        } else {
            (f.user_programs + f.gc_programs + f.mapping_programs) as f64 / f.user_programs as f64
        };
        let host_bytes = self.total.writes.bytes;
        let waf = if host_bytes == 0 { 0.0 } else { f.programmed_bytes as f64 / host_bytes as f64 };
        // Idle power only while a chip has no command in flight. With super-pages the
        // engine's chips are gangs of physical chips that are busy together.
        let gang = self.physical_chips as f64 / self.chip_busy.len().max(1) as f64;
        let idle_chip_ns: f64 = self
            .chip_busy
            .iter()
            .map(|c| {
                let busy = c.busy_ns + if c.dies_busy > 0 { self.now - c.since_ns } else { 0 };
                interval.saturating_sub(busy) as f64
            })
            .sum();
        self.energy.idle = self.config.energy.idle_power_mw_per_chip * gang * idle_chip_ns / 1e3;
        let work = self.energy.read + self.energy.program + self.energy.erase + self.energy.transfer;
        self.energy.gc = self.energy_gc;
        self.energy.user = work - self.energy_gc;
        self.energy.total = work + self.energy.idle;
        self.energy.per_request = self.energy.total / self.total.all.count.max(1) as f64;
        let runs = self
            .per_run
            .iter()
            .enumerate()
            .map(|(i, slot)| match slot {
                // A single run records its requests in the total only (`finish_sub_request`).
                RunSlot::Open { .. } if self.config.host.runs <= 1 => run_summary(i as u32, &self.total),
                RunSlot::Open { stats, .. } => run_summary(i as u32, stats),
                RunSlot::Closed(summary) => summary.clone(),
            })
            .collect();
        let mut report = Report {
            schema_version: 1,
            ssdlab_version: env!("CARGO_PKG_VERSION").to_string(),
            seed: self.config.seed,
            config_hash: self.config_hash.clone(),
            workload: self.workload_name.clone(),
            device: DeviceSummary {
                preset: self.config.name.clone(),
                cell: format!("{:?}", self.config.flash.cell).to_lowercase(),
                channels: addr.channels,
                chips: addr.chips(),
                dies: addr.dies(),
                planes: addr.planes(),
                blocks: addr.blocks(),
                pages_per_block: addr.pages_per_block,
                page_size_bytes: addr.page_size_bytes,
                physical_bytes: self.config.physical_bytes(),
                logical_bytes: self.logical_bytes,
                mapping_table_bytes: self.ftl.mapping_memory_bytes(self.config.ftl.mapping_entry_bytes),
                super_page_pages: (self.super_page_pages > 1).then_some(self.super_page_pages),
            },
            host: HostSummary {
                requests: self.next_request_id,
                sub_requests: self.host_counters.sub_requests,
                unwritten_reads: self.host_counters.unwritten_reads,
                unwritten_pages_preplaced: self.precondition_report.footprint_pages,
                unwritten_read_policy: kebab(&self.config.host.unwritten_reads),
                buffer_reads: self.host_counters.buffer_reads,
                reads_after_pending_write: self.host_counters.reads_after_pending_write,
                address_remapped: self.host_counters.address_remapped,
                address_policy: kebab(&self.config.host.address_overflow),
                unaligned: self.host_counters.unaligned,
                out_of_order: self.host_counters.out_of_order,
                skipped_records: self.skipped_total,
                skipped_by_reason: self.skipped_by_reason,
                runs: self.run + 1,
                replay: kebab(&self.config.host.replay),
            },
            simulated_ns: interval,
            partial: None,
            read: self.total.reads.summary(interval),
            write: self.total.writes.summary(interval),
            trim: self.total.trims.summary(interval),
            all: self.total.all_summary(interval),
            dominated_write_share: (0..bits)
                .map(|t| self.total.dominated_writes[t] as f64 / dominated_writes.max(1) as f64)
                .collect(),
            dominated_writes,
            waf,
            waf_pages,
            programmed_bytes: f.programmed_bytes,
            gc: GcSummary {
                victims: self.ftl.counters.gc_victims,
                moved_pages: self.ftl.counters.gc_moved_pages,
                erases: self.ftl.counters.erases,
                slc_erases: self.ftl.counters.slc_erases,
                emergency_steps: self.gc_emergency_steps,
                background_steps: self.gc_background_steps,
                rerouted_writes: self.gc_rerouted_writes,
            },
            erase_counts: erase_summary,
            flash: FlashSummary {
                page_reads: f.page_reads,
                user_page_programs: f.user_programs,
                gc_page_programs: f.gc_programs,
                programs_by_page_type: f.programs_by_type.clone(),
                slc_programs: f.slc_programs,
                slc_hit_ratio: if f.user_programs == 0 {
                    0.0
                } else {
                    f.slc_user_programs as f64 / f.user_programs as f64
                },
                multi_plane_commands: f.multi_plane,
                copybacks: f.copybacks,
                update_reads: f.update_reads,
                partial_programs: self.ftl.counters.partial_programs,
                wasted_pages: self.ftl.counters.wasted_pages,
                read_retries: f.read_retries,
                uncorrectable_reads: self.errors.as_ref().map_or(0, |m| m.uncorrectable()),
            },
            energy_nj: self.energy.clone(),
            precondition: self.precondition_report.clone(),
            start_state: self.start_state.clone(),
            warnings: self.warnings(),
            runs,
            pa: None,
            burst: (self.config.host.replay == ReplayMode::Burst).then(|| {
                let b = &self.burst;
                BurstSummary {
                    bursts: b.count,
                    write_bursts: b.write_bursts,
                    gap_threshold_ns: self.config.host.burst_gap_ns,
                    mean_bandwidth_mib_s: b.bandwidth_sum / b.write_bursts.max(1) as f64,
                    mean_read_bandwidth_mib_s: b.read_bandwidth_sum / b.read_bursts.max(1) as f64,
                    aggregate_bandwidth_mib_s: if b.total_ns == 0 {
                        0.0
                    } else {
                        b.total_bytes as f64 / (b.total_ns as f64 / 1e9) / 1048576.0
                    },
                    mean_duration_ns: b.total_ns as f64 / b.count.max(1) as f64,
                    idle_ns: b.idle_ns,
                }
            }),
            power: self.power_summary(),
            hybrid: None,
            mapping: (self.ftl.unit_shift != 0).then(|| MappingSummary {
                kind: kebab(&self.config.ftl.mapping),
                units_per_page: self.ftl.units_per_page(),
                interleaved_pairs: f.interleaved_pairs,
                packed_programs: f.packed_programs,
                gc_compactions: f.compactions,
                extra_page_reads: self.host_counters.extra_page_reads,
                split_logical_pages: self.ftl.split_logical_pages(),
            }),
            errors: self.error_summary(),
            dir: self.dir_summary(),
            ipu: None,
            gordon: None,
            harey: None,
            mango: None,
            priority: self.priority_summary(),
            bypass: self.bypass.as_ref().map(|b| crate::stats::BypassSummary {
                merged_reads: b.merged_reads,
                buffer_reads: b.buffer_reads,
                combined_writes: b.combined_writes,
            }),
            scrub: None,
            wom: None,
            designs: std::collections::BTreeMap::new(),
            cache: self.cache.as_ref().map(|c| c.summary(&self.dram, &self.config)),
            link: self.link_summary(),
            cmt: self.cmt_summary(),
            flows: self.flow_summaries(),
            fairness: None,
            events: self.events_processed,
        };
        self.report(&mut report);
        (report, std::mem::take(&mut self.series))
    }

    /// Judges the run against steady-state preconditioning (`SteadyStateReport::judge_run`)
    /// and updates the start state's note to say so; without steady state, a run that
    /// wrote less than one drive write after the rapid fill gets a note that its WAF has
    /// not reached steady state (a note; `warnings` repeats it as a warning when the run's
    /// GC moved pages, since most runs are short and measure latency, not write amplification).
    fn judge_steady_state(&mut self) {
        let pc = &self.config.precondition;
        let written = self.total.writes.bytes;
        let Some(steady) = self.precondition_report.steady_state.as_mut() else {
            let noted = self.start_state.notes.iter().any(|n| n.starts_with(NOT_STEADY_NOTE));
            if pc.used_fraction > 0.0 && (1..self.logical_bytes).contains(&written) && !noted {
                self.start_state.notes.push(format!(
                    "{NOT_STEADY_NOTE}: the run wrote {:.1} % of one drive write after the rapid fill, \
                     whose invalid pages lie at random, not where GC leaves them; for write amplification set \
                     precondition.steady_state = true (docs/sweep.md, \"Sweeping over-provisioning\") or write more \
                     than the drive's logical capacity",
                    written as f64 * 100.0 / self.logical_bytes as f64
                ));
            }
            return;
        };
        let f = &self.flash_counters;
        let min_pages = crate::ftl::steady::JUDGED_BLOCKS_PER_PLANE
            * self.ftl.addr.planes() as u64
            * self.ftl.addr.pages_per_block as u64;
        let before = steady.note(self.config.precondition.steady_state_max_rounds);
        steady.judge_run(f.user_programs, f.gc_programs, min_pages);
        let after = steady.note(self.config.precondition.steady_state_max_rounds);
        for note in self.start_state.notes.iter_mut().filter(|n| **n == before) {
            note.clone_from(&after);
        }
    }

    /// Warnings for the report: GC in a run without host writes; a run's WAF far from
    /// the steady state it started in; a short run after a rapid fill; flows of an
    /// interference run that did not run together.
    pub(crate) fn warnings(&self) -> Vec<String> {
        let mut warnings = Vec::new();
        let c = &self.ftl.counters;
        let gc = c.gc_victims > 0 || c.erases > 0 || c.gc_moved_pages > 0;
        if self.flash_counters.user_programs == 0 && self.total.writes.count == 0 && gc {
            let why = if self.precondition_report.invalid_pages > 0 && c.gc_moved_pages == 0 {
                "the drive was aged SSDSim-style to sit at its GC threshold (precondition.aged_invalid_fraction), and \
                 GC reclaimed aged blocks in idle time: that is the aging model"
                    .to_string()
            } else if self.ftl.has_slc && self.config.precondition.slc_filled {
                "the SLC cache started full (precondition.slc_filled) and its data migrated".to_string()
            } else {
                format!(
                    "the drive started with {} plane(s) needing GC; its latencies include that GC",
                    self.start_state.planes_needing_gc
                )
            };
            warnings.push(format!(
                "a run without host writes did GC ({} victims, {} pages moved, {} erases): {why}",
                c.gc_victims, c.gc_moved_pages, c.erases
            ));
        }
        // (An implausible arrival rate explains the saturation too: one warning, not two.)
        if let Some(w) = self.arrival_rate_warning() {
            warnings.push(w);
        } else if let Some(w) = self.saturation_warning() {
            warnings.push(w);
        }
        let remapped = self.host_counters.address_remapped;
        if remapped > 0 {
            let how = match self.config.host.address_overflow {
                AddressOverflow::Scale => "scaled to the drive's logical capacity (host.address_overflow = \"scale\")",
                _ => "wrapped modulo the drive's logical capacity (host.address_overflow = \"modulo\")",
            };
            warnings.push(format!(
                "{remapped} of {} requests addressed beyond the drive's {} logical bytes and were {how}: the trace's \
                 footprint exceeds the drive, so those requests land on data other requests use",
                self.next_request_id, self.logical_bytes
            ));
        }
        // A short run after the rapid fill whose GC moved pages: its WAF is a number a
        // reader may take for the drive's (issue 46). Runs whose GC moved nothing (WAF 1)
        // keep it as a note only.
        if c.gc_moved_pages > 0 {
            let short = self.start_state.notes.iter().find(|n| n.starts_with(NOT_STEADY_NOTE));
            warnings.extend(short.cloned());
        }
        if let Some(w) = flows::flows_apart_warning(&self.flow_summaries()) {
            warnings.push(w);
        }
        let steady = self.precondition_report.steady_state.as_ref();
        if let Some(steady) = steady.filter(|s| s.agrees_with_run == Some(false)) {
            let mut warning = steady.note(self.config.precondition.steady_state_max_rounds);
            if let Some(cause) = self.steady_state_gap_cause() {
                warning.push_str("; ");
                warning.push_str(&cause);
            }
            warnings.push(warning);
        }
        warnings
    }

    /// Why a run's WAF exceeds its steady state's, when the run's background GC explains
    /// it: the rounds run foreground GC only (they have no idle time), so a background
    /// reserve the run keeps is spare space the rounds could use. The usual case is a
    /// background threshold above what a plane can hold free once the logical space is
    /// written (SSDSim-style thresholds, allowed on purpose): background GC then never
    /// reaches its target and compacts whenever a die is idle.
    fn steady_state_gap_cause(&self) -> Option<String> {
        let (background, emergency) = (self.gc_background_steps, self.gc_emergency_steps);
        let steady = self.precondition_report.steady_state.as_ref()?;
        if background == 0 || steady.run_waf_pages? <= steady.window_waf {
            return None;
        }
        let ftl = &self.ftl;
        let logical_per_plane = (ftl.logical_pages as u64).div_ceil(ftl.addr.planes() as u64);
        let data_blocks = logical_per_plane.div_ceil(ftl.data_pages_per_block().max(1) as u64);
        let spare = (ftl.normal_blocks_per_plane as u64).saturating_sub(data_blocks);
        let target = ftl.background_free_blocks as u64;
        let share = format!("{background} of its {} GC steps were background steps", background + emergency);
        let fix = "for the workload's textbook steady state, GC at one threshold: ftl.gc_background_free_fraction = \
                   ftl.gc_emergency_free_fraction (docs/sweep.md)";
        Some(if target >= spare {
            format!(
                "the cause is the run's background GC, which aims at {target} free blocks per plane, at least the \
                 {spare} spare blocks a plane has once the logical space is written: it can never reach its target \
                 and compacts whenever a die is idle ({share}), while the rounds run foreground GC only; {fix}"
            )
        } else {
            format!(
                "the run's background GC keeps up to {target} free blocks per plane of its {spare} spare ({share}), \
                 a reserve the rounds (foreground GC only) leave to data; {fix}"
            )
        })
    }

    /// Outstanding requests from which an open-loop device counts as saturated: the host
    /// queue depth when there is one, else four requests per plane (every plane with a
    /// queue of its own: latency is then mostly queueing).
    fn saturation_limit(&self) -> u64 {
        match self.config.host.queue_depth {
            0 => 4 * self.ftl.addr.planes() as u64,
            d => d as u64,
        }
    }

    /// The outstanding count is about to change: the time since the last change counts
    /// as saturated if the count was at the limit.
    pub(crate) fn note_queue_length(&mut self) {
        if self.outstanding >= self.saturation_limit() {
            self.host_counters.saturated_ns += self.now - self.host_counters.queue_changed_ns;
        }
        self.host_counters.queue_changed_ns = self.now;
    }

    /// Open loop: a warning when the device was saturated for most of the run.
    fn saturation_warning(&self) -> Option<String> {
        const SHARE: f64 = 0.5;
        if self.config.host.replay != ReplayMode::OpenLoop || self.total.all.count < 100 {
            return None;
        }
        let start = self.total.first_arrival_ns?;
        let span = self.total.last_completion_ns.saturating_sub(start);
        if span == 0 {
            return None;
        }
        let share = self.host_counters.saturated_ns as f64 / span as f64;
        if share <= SHARE {
            return None;
        }
        let limit = self.saturation_limit();
        let what = if self.config.host.queue_depth > 0 {
            format!("the host queue depth of {limit}")
        } else {
            format!("{limit} requests outstanding (4 per plane)")
        };
        Some(format!(
            "the device was saturated for {:.0}% of the run (at or above {what}): the offered load exceeds what it \
             sustains, so latencies measure the queue more than the device (slow the replay with \
             host.speed_factor < 1, or replay closed loop with --closed-loop N)",
            share * 100.0
        ))
    }

    /// Open loop: a trace whose arrivals come far faster than the device could ever serve
    /// them most likely has its time column in a larger unit than it was read in (seconds
    /// read as nanoseconds is the most common case); the latencies then measure a queue,
    /// not the device. The bound is generous: every plane sensing its fastest page
    /// back to back, with no channel or program time.
    fn arrival_rate_warning(&self) -> Option<String> {
        const MIN_REQUESTS: u64 = 1000;
        const FACTOR: f64 = 100.0;
        let requests = self.total.all.count;
        if self.config.host.replay != ReplayMode::OpenLoop || requests < MIN_REQUESTS {
            return None;
        }
        self.total.first_arrival_ns?;
        // Measured from the start of the run, which is the earliest record's time, not from
        // the first record's arrival: when the first record is not the earliest, the
        // records stamped before it are replayed as they are read, at its time (issue 45,
        // item 1), and the span from it says nothing about the time unit. (Records out of
        // order have their own warning, which names --sort-window.)
        let span_ns = self.last_arrival_ns;
        let t = &self.timing;
        let fastest_ns = (0..self.ftl.bits_per_cell as u8)
            .map(|ty| t.read_ns(ty, false))
            .chain(self.ftl.has_slc.then_some(t.slc_read_ns))
            .min()
            .unwrap_or(1)
            .max(1);
        let peak_per_s = self.ftl.addr.planes() as f64 * 1e9 / fastest_ns as f64;
        let offered_per_s = if span_ns == 0 { f64::INFINITY } else { (requests - 1) as f64 * 1e9 / span_ns as f64 };
        if offered_per_s <= FACTOR * peak_per_s {
            return None;
        }
        Some(format!(
            "the workload offered {requests} requests within {span_ns} ns of simulated time ({offered_per_s:.3e} \
             requests/s), more than {FACTOR}x what this device could serve even with every plane sensing back to \
             back ({peak_per_s:.3e} page reads/s): the trace's time column is probably in a larger unit than it was \
             read in (e.g. seconds read as nanoseconds); name the unit with --time-unit (host.speed_factor scales \
             time too). The latencies below measure the queue, not the device."
        ))
    }
}

/// What the report shows of one run of a multi-run replay.
pub(crate) fn run_summary(run: u32, r: &RunStats) -> RunSummary {
    let interval = r.last_completion_ns.saturating_sub(r.first_arrival_ns.unwrap_or(0));
    RunSummary { run, interval_ns: interval, read: r.reads.summary(interval), write: r.writes.summary(interval) }
}

pub(crate) fn kebab<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_value(value).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

fn erase_summary(counts: &[u32]) -> EraseSummary {
    let min = counts.iter().copied().min().unwrap_or(0);
    let max = counts.iter().copied().max().unwrap_or(0);
    let mean = counts.iter().map(|&c| c as f64).sum::<f64>() / counts.len().max(1) as f64;
    let width = ((max - min) / 10).max(1);
    let mut histogram: Vec<(u32, u64)> = (0..10).map(|i| (min + i * width, 0)).collect();
    for &c in counts {
        let i = (((c - min) / width) as usize).min(9);
        histogram[i].1 += 1;
    }
    histogram.retain(|&(_, n)| n > 0);
    EraseSummary { min, mean, max, histogram }
}

/// Diagnostics for a run that cannot go on (a stall, an exhausted event budget).
impl Simulator<'_> {
    /// Why nothing can run: each plane with user writes waiting that it cannot take.
    pub(crate) fn stall_summary(&self) -> String {
        let mut waiting = vec![0u32; self.ftl.addr.planes() as usize];
        for d in &self.dies {
            for &t in &d.writes {
                waiting[self.txns[t as usize].plane as usize] += 1;
            }
        }
        let planes: Vec<String> = (0..self.ftl.addr.planes())
            .filter(|&p| waiting[p as usize] > 0 && !self.ftl.can_allocate_user(p))
            .map(|p| format!("plane {p}: {} writes waiting, {}", waiting[p as usize], self.plane_summary(p)))
            .collect();
        let unbound = self.at_service.as_ref().map_or(0, |s| s.waiting.len());
        if unbound > 0 {
            format!("{unbound} writes waiting for a die to take them (at-service); {}", planes.join("; "))
        } else if planes.is_empty() {
            "no plane has writes it cannot take".to_string()
        } else {
            format!("full planes where GC finds nothing to clean: {}", planes.join("; "))
        }
    }

    /// What keeps the run busy when it exceeds its event budget: planes in GC.
    pub(crate) fn busy_summary(&self) -> String {
        let c = &self.ftl.counters;
        let planes: Vec<String> = (0..self.ftl.addr.planes())
            .filter(|&p| self.ftl.gc_need(p) != GcNeed::None)
            .take(8)
            .map(|p| format!("plane {p}: {:?} GC, {}", self.ftl.gc_need(p), self.plane_summary(p)))
            .collect();
        format!(
            "{} GC moves, {} erases, {} wasted pages so far; {}",
            c.gc_moved_pages,
            c.erases,
            c.wasted_pages,
            if planes.is_empty() { "no plane needs GC".to_string() } else { planes.join("; ") }
        )
    }

    fn plane_summary(&self, plane: u32) -> String {
        let f = &self.ftl;
        let first = f.addr.first_block_of_plane(plane);
        let blocks = &f.blocks[first as usize..(first + f.addr.blocks_per_plane) as usize];
        let valid: u64 = blocks.iter().map(|b| b.valid_pages as u64).sum();
        let pages: u64 = (first..first + f.addr.blocks_per_plane).map(|b| f.pages_in_block(b) as u64).sum();
        format!("{} free blocks, {valid} of {pages} pages valid", f.free_blocks(plane))
    }
}

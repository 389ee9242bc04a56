//! The discrete-event engine: one event queue keyed by (time, insertion sequence), one
//! dispatcher (`Simulator::handle`) that reads top to bottom, and the per-die scheduler
//! that turns queued transactions into flash commands.
//!
//! Timing model (SPEC §1.1): a die runs one command at a time (multi-plane commands
//! included); a channel carries one transfer at a time, FIFO among waiting dies; a read
//! senses then transfers out; a program transfers in then programs; a copyback move
//! senses then programs without the channel. A write sub-request completes when its data
//! is programmed. FTL state changes (allocation, mapping, erase) happen when a command
//! starts; because a die serialises its commands, this is equivalent to changing them at
//! completion for every observer that must wait for the die anyway.

mod hybrid;
pub mod occupancy;
mod power;

use crate::config::{
    AddressOverflow, Config, PartialPageWrites, QueueKind, ReplayMode, WhatIfUnwritten, WriteAcknowledge,
};
use crate::flash::{Ppn, Timing, NO_PAGE};
use crate::ftl::allocation::PlaneAllocator;
use crate::ftl::precondition::{PageOp, PreconditionReport, WorkloadFootprint};
use crate::ftl::{Ftl, GcNeed, GcStep};
use crate::policies::hybrid::WriteMode;
use crate::policies::pa_ssd::{PaPolicy, WriteContext};
use crate::stats::*;
use ssdlab_trace::{Op, Record, RecordSource, TraceError};
use std::collections::{BinaryHeap, VecDeque};

const NO_REQUEST: u32 = u32::MAX;
const NO_TYPE: u8 = u8::MAX;
/// How far into a die's queue the scheduler looks for multi-plane partners.
const MULTI_PLANE_SCAN: usize = 64;
/// Records the host reads ahead of the one it submits (see `read_ahead`).
const READ_AHEAD: usize = 64;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Event {
    /// The pending host record is due.
    Arrival,
    /// The array phase (sense, program, erase) of a die's current command ended.
    DieDone { die: u32 },
    /// A channel finished its current transfer.
    ChannelDone { channel: u32 },
    /// ECC decoding of a read sub-request finished.
    Decoded { txn: u32 },
    /// Closed loop: a completion freed a slot. Open loop: a held request may enter.
    Refill,
    /// Re-examine a die for background GC after its idle delay.
    GcIdle { die: u32 },
    /// One-shot: a plane's oldest buffered write reached the program delay.
    ProgramDelay { die: u32 },
    /// Power fails (`power.loss_at_ns`).
    PowerLoss,
    /// Recovery after a power loss is over: the drive serves requests again.
    PowerRestored,
    /// Pages became invalid in a plane of an idle die that had found nothing to clean.
    Wake { die: u32 },
    /// GC erased a block while stuck writes waited for room.
    RoomFreed,
    /// Hybrid drives: the device may have been idle long enough to migrate SLC data.
    MigrationCheck,
}

/// An event in the queue, ordered by (time, insertion sequence): equal times keep
/// insertion order. The sequence is unique, so the event never decides the order. The
/// pair is compared as one 128-bit number (two instructions, no branch) and the order is
/// reversed because `BinaryHeap` pops its greatest element.
#[derive(Clone, Copy, Debug)]
struct Scheduled {
    time: u64,
    seq: u64,
    event: Event,
}

impl Scheduled {
    fn key(&self) -> u128 {
        (self.time as u128) << 64 | self.seq as u128
    }
}

impl PartialEq for Scheduled {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}

impl Eq for Scheduled {}

impl PartialOrd for Scheduled {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Scheduled {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        other.key().cmp(&self.key())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TxnKind {
    Read,
    /// Read of the old page before a partial-page write (read-modify-write).
    UpdateRead,
    /// Partial program of new subpages into the SLC-mode page holding the old data.
    PartialProgram,
    Write,
    GcMove,
    /// Cross-plane migration: pages read out of a plane wholly in SLC mode, on their way
    /// to another plane's die (then a `GcMove` there).
    MigrateRead,
    Erase,
}

#[derive(Clone, Copy, Debug)]
struct Txn {
    kind: TxnKind,
    request: u32,
    lpn: u32,
    /// Reads: the page to read. Writes/moves: the page programmed. Erase: block number.
    ppn: Ppn,
    /// GC move: source page. User write: the copy it supersedes (NO_PAGE if none).
    from: Ppn,
    plane: u32,
    page_type: u8,
    slc: bool,
    /// Subpages a partial-page write covers (0 = the whole page).
    subpages: u8,
    /// Page type the write asks for (PA-SSD); NO_TYPE when allocation is type-blind.
    want: u8,
    /// Data version a user write carries (`--verify`).
    version: u32,
    enqueued_ns: u64,
    /// The host was told this write completed before it was programmed (DRAM buffer).
    acked: bool,
    /// Hybrid drives: the blocks the allocation policy meant the write for.
    mode: WriteMode,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    Array(u64),
    /// Bytes moved from the die to the controller.
    ChannelOut(u64),
    /// Bytes moved from the controller to the die.
    ChannelIn(u64),
}

/// The command a die is executing: its transactions and remaining steps.
#[derive(Clone, Debug, Default)]
struct Command {
    txns: Vec<u32>,
    steps: [Option<Step>; 4],
    next: usize,
}

#[derive(Clone, Debug, Default)]
struct Die {
    reads: VecDeque<u32>,
    writes: VecDeque<u32>,
    busy: bool,
    command: Command,
    last_user_ns: u64,
    gc_idle_pending: bool,
    delay_pending: bool,
    /// The die went idle because a plane needing GC had nothing worth cleaning; only an
    /// invalidation from elsewhere (another die's write, a trim) can change that, so it
    /// wakes the die (`Event::Wake`, pending while `wake_pending`).
    gc_starved: bool,
    wake_pending: bool,
}

#[derive(Clone, Debug, Default)]
struct Channel {
    /// Die whose transfer is on the bus (NO_REQUEST = idle).
    holder: Option<u32>,
    waiting: VecDeque<u32>,
}

#[derive(Clone, Copy, Debug)]
struct Request {
    id: u64,
    arrival_ns: u64,
    offset_bytes: u64,
    size_bytes: u64,
    op: Op,
    pending: u32,
    pages: u32,
    dominant_type: i32,
    run: u32,
    /// Page type assigned by the PA-SSD scheme (NO_TYPE without one).
    want: u8,
}

/// Opens the workload afresh for each run of a multi-run replay.
pub type SourceFactory<'a> = Box<dyn FnMut() -> Result<Box<dyn RecordSource>, TraceError> + 'a>;

/// Why a run stopped early.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error("{0}")]
    Trace(#[from] TraceError),
    #[error("data integrity violated at {time_ns} ns: {message}")]
    Integrity { time_ns: u64, message: String },
    #[error("invariant violated at {time_ns} ns: {message}")]
    Invariant { time_ns: u64, message: String },
    #[error("request {id} ({op} at byte {offset}): {message}")]
    Request { id: u64, op: &'static str, offset: u64, message: String },
    #[error("simulation stalled at {time_ns} ns with {outstanding} requests outstanding: {message}")]
    Stalled { time_ns: u64, outstanding: u64, message: String },
    /// The run processed more events than `Simulator::set_event_budget` allows: events
    /// that keep making more events without the workload progressing (a livelock).
    #[error(
        "event budget of {events} events exhausted at {time_ns} ns with {outstanding} requests outstanding \
         (a livelock?): {message}"
    )]
    EventBudget { time_ns: u64, events: u64, outstanding: u64, message: String },
    #[error("{0}")]
    Setup(String),
}

/// Optional observers of a run: progress and per-request records. The core does no I/O
/// itself; the CLI passes closures that do.
#[derive(Default)]
pub struct Observers<'a> {
    /// Called every `progress_every` completed requests with (completed, simulated ns).
    pub progress: Option<ProgressObserver<'a>>,
    pub progress_every: u64,
    pub requests: Option<RequestObserver<'a>>,
}

pub type ProgressObserver<'a> = Box<dyn FnMut(u64, u64) + 'a>;
pub type RequestObserver<'a> = Box<dyn FnMut(&RequestRecord) + 'a>;

pub struct Simulator<'a> {
    config: Config,
    timing: Timing,
    pub ftl: Ftl,
    planes_alloc: PlaneAllocator,
    now: u64,
    seq: u64,
    events: BinaryHeap<Scheduled>,
    txns: Vec<Txn>,
    free_txns: Vec<u32>,
    requests: Vec<Request>,
    free_requests: Vec<u32>,
    dies: Vec<Die>,
    channels: Vec<Channel>,
    // Host
    factory: SourceFactory<'a>,
    source: Option<Box<dyn RecordSource>>,
    pending_record: Option<Record>,
    /// Records (or errors) already read from `source`, in order, and whether the source
    /// has ended (or failed) after them.
    read_ahead: VecDeque<Result<Record, TraceError>>,
    source_ended: bool,
    host_waiting: VecDeque<(Record, u64)>,
    skipped_total: u64,
    run: u32,
    run_offset_ns: u64,
    trace_base_ns: Option<u64>,
    last_trace_ns: u64,
    first_trace_ns: u64,
    trace_records_in_run: u64,
    outstanding: u64,
    next_request_id: u64,
    host_done: bool,
    workload_name: String,
    // Stats
    total: RunStats,
    per_run: Vec<RunStats>,
    series: Vec<SeriesRow>,
    series_acc: SeriesAccumulator,
    host_counters: HostCounters,
    flash_counters: FlashCounters,
    energy: EnergySummary,
    events_processed: u64,
    /// The run fails once it has processed more events than this (`set_event_budget`).
    event_budget: u64,
    gc_emergency_steps: u64,
    gc_background_steps: u64,
    gc_rerouted_writes: u64,
    /// Dies with stuck writes that found no plane with room (see `reroute_stuck_writes`).
    waiting_for_room: Vec<u32>,
    room_event_pending: bool,
    precondition_report: PreconditionReport,
    /// The drive's state when the run started (after preconditioning).
    start_state: StartState,
    check: bool,
    completed_since_check: u64,
    observers: Observers<'a>,
    priority: Vec<QueueKind>,
    logical_bytes: u64,
    burst: BurstState,
    pa: Option<PaPolicy>,
    verify: bool,
    /// User write pages waiting in DRAM to be programmed (PA-SSD's WBS reads it).
    buffered_write_pages: u64,
    pa_typed_allocations: u64,
    pa_typed_successes: u64,
    /// Dies that received sub-requests of the request being submitted; they are started
    /// only after the whole request is queued so its pages can share multi-plane commands.
    kick_list: Vec<u32>,
    /// DRAM-buffer acknowledgement: buffered writes not yet acknowledged because the
    /// buffer was full when they arrived, oldest first.
    ack_waiting: VecDeque<u32>,
    /// When the drive serves requests again after the last power loss.
    powered_at_ns: u64,
    power_loss_records: Vec<crate::stats::PowerLossRecord>,
    /// SLC/TLC hybrid drives (any SLC-mode blocks): policy state and counters.
    hybrid: Option<Box<hybrid::HybridState>>,
    /// Cross-plane migration: pages read from a plane wholly in SLC mode, waiting at the
    /// destination die to be transferred in and programmed, as (txns, count, program ns).
    migrate_in: Vec<VecDeque<([u32; 4], u8, u64)>>,
    /// The resource-occupancy checker (with checking on).
    occupancy: Option<Box<occupancy::Occupancy>>,
}

/// Burst replay bookkeeping.
#[derive(Default)]
struct BurstState {
    /// Trace time of the last record issued in this run.
    previous_trace_ns: Option<u64>,
    /// The next burst waits for this burst to complete, then this idle gap.
    pending_gap_ns: Option<u64>,
    start_ns: Option<u64>,
    bytes: u64,
    count: u64,
    total_bytes: u64,
    total_ns: u64,
    bandwidth_sum: f64,
    idle_ns: u64,
}

#[derive(Default)]
struct HostCounters {
    sub_requests: u64,
    unwritten_reads: u64,
    address_remapped: u64,
    unaligned: u64,
    out_of_order: u64,
}

#[derive(Default)]
struct FlashCounters {
    page_reads: u64,
    user_programs: u64,
    gc_programs: u64,
    programs_by_type: Vec<u64>,
    slc_programs: u64,
    slc_user_programs: u64,
    multi_plane: u64,
    copybacks: u64,
    update_reads: u64,
}

impl<'a> Simulator<'a> {
    /// Builds the device, preconditions it and opens the first run of the workload.
    /// The config must be valid (`Config::validate`).
    pub fn new(config: Config, mut factory: SourceFactory<'a>, observers: Observers<'a>) -> Result<Self, SimError> {
        if let Err(errors) = config.validate() {
            let text: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
            return Err(SimError::Setup(text.join("; ")));
        }
        let timing = Timing::new(&config);
        let mut ftl = Ftl::new(&config);
        if !config.power.loss_at_ns.is_empty() {
            // Every page, preconditioned ones included, must carry its OOB for recovery.
            ftl.track_oob();
        }
        let mut planes_alloc = PlaneAllocator::new(config.ftl.plane_allocation, &config.ftl.allocation_order);
        // All placement happens before the run: a pre-pass over the workload (opened once
        // more) finds the pages it reads before writing them, and preconditioning places
        // them with the fill, before calibrating the fill to the GC thresholds.
        let footprint = workload_footprint(&config, &ftl, &mut factory)?;
        let precondition_report = ftl.precondition(&config, &mut planes_alloc, &footprint).map_err(SimError::Setup)?;
        drop(footprint);
        let start_state = ftl.start_state(&config, &precondition_report);
        // The relaxed constraints start with the run (after preconditioning, which writes
        // in the strict order like an aged conventional drive).
        let pa = config.pa.enabled().then(|| PaPolicy::new(&config.pa, config.bits_per_cell(), config.seed));
        let source = factory()?;
        let workload_name = source.format_name().to_string();
        let dies = ftl.addr.dies() as usize;
        let channels = ftl.addr.channels as usize;
        let bits = config.bits_per_cell();
        let logical_bytes = ftl.logical_pages as u64 * ftl.addr.page_size_bytes as u64;
        let mut dies_vec = vec![Die::default(); dies];
        for d in dies_vec.iter_mut() {
            d.command.txns.reserve(ftl.addr.planes_per_die as usize * bits);
        }
        let priority = config.ftl.queue_priority.clone();
        let mut sim = Simulator {
            timing,
            ftl,
            planes_alloc,
            now: 0,
            seq: 0,
            events: BinaryHeap::with_capacity(1024),
            txns: Vec::with_capacity(4096),
            free_txns: Vec::new(),
            requests: Vec::with_capacity(1024),
            free_requests: Vec::new(),
            dies: dies_vec,
            channels: vec![Channel::default(); channels],
            factory,
            source: Some(source),
            pending_record: None,
            read_ahead: VecDeque::with_capacity(READ_AHEAD),
            source_ended: false,
            host_waiting: VecDeque::new(),
            skipped_total: 0,
            run: 0,
            run_offset_ns: 0,
            trace_base_ns: None,
            last_trace_ns: 0,
            first_trace_ns: 0,
            trace_records_in_run: 0,
            outstanding: 0,
            next_request_id: 0,
            host_done: false,
            workload_name,
            total: RunStats { dominated_writes: vec![0; bits], ..RunStats::default() },
            per_run: vec![RunStats { dominated_writes: vec![0; bits], ..RunStats::default() }],
            series: Vec::new(),
            series_acc: SeriesAccumulator::default(),
            host_counters: HostCounters::default(),
            flash_counters: FlashCounters { programs_by_type: vec![0; bits], ..FlashCounters::default() },
            energy: EnergySummary::default(),
            events_processed: 0,
            event_budget: u64::MAX,
            gc_emergency_steps: 0,
            gc_background_steps: 0,
            gc_rerouted_writes: 0,
            waiting_for_room: Vec::new(),
            room_event_pending: false,
            precondition_report,
            start_state,
            check: false,
            completed_since_check: 0,
            observers,
            priority,
            logical_bytes,
            kick_list: Vec::with_capacity(64),
            burst: BurstState::default(),
            pa,
            verify: false,
            buffered_write_pages: 0,
            pa_typed_allocations: 0,
            pa_typed_successes: 0,
            ack_waiting: VecDeque::new(),
            powered_at_ns: 0,
            power_loss_records: Vec::new(),
            hybrid: None,
            migrate_in: Vec::new(),
            occupancy: None,
            config,
        };
        sim.series_acc.erases_at_start = sim.ftl.counters.erases;
        // TPJ-PA etc. also run on a drive without SLC (TPJ-PA then fills page sets first).
        if sim.ftl.has_slc || sim.config.hybrid.allocation != crate::config::HybridAllocation::Pf {
            sim.hybrid = Some(Box::new(hybrid::HybridState::new(&sim.config, sim.ftl.addr.planes())));
            sim.migrate_in = vec![VecDeque::new(); dies];
        }
        Ok(sim)
    }

    /// Turns on version-tagged data checking (`--verify`): verified at every check point,
    /// after every GC erase in debug builds, and at the end of the run.
    pub fn set_verify(&mut self, on: bool) {
        self.verify = on;
        if on {
            self.ftl.track_versions();
        }
    }

    /// Fails the run with `SimError::EventBudget` once it has processed more than `events`
    /// events: a deterministic guard against livelocks for callers that run many
    /// generated cases (the swarm), where a case that never ends must fail, not hang.
    pub fn set_event_budget(&mut self, events: u64) {
        self.event_budget = events;
    }

    /// Turns on checking: the FTL's invariants (every `output.check_every` completions
    /// and at the end), program order, and the resource-occupancy checker, which fails the
    /// run the moment a die, plane or channel is used against the timing model's rules.
    pub fn set_check(&mut self, on: bool) {
        self.check = on;
        if on {
            self.ftl.track_program_order();
            if self.occupancy.is_none() {
                let a = &self.ftl.addr;
                self.occupancy = Some(Box::new(occupancy::Occupancy::new(
                    a.dies() as usize,
                    a.planes() as usize,
                    a.channels as usize,
                    self.timing.ecc_decode_ns,
                )));
            }
        } else {
            self.occupancy = None;
        }
    }

    /// Turns on checking and keeps every die, plane and channel interval of the run, for
    /// tests that assert exact start and end times (`occupancy_log`). Memory grows with
    /// the run.
    pub fn record_occupancy(&mut self) {
        self.set_check(true);
        self.occupancy.as_mut().expect("checking is on").keep_log();
    }

    /// The intervals recorded since `record_occupancy`, in the order they ended.
    pub fn occupancy_log(&self) -> Option<&[occupancy::Interval]> {
        self.occupancy.as_ref().and_then(|o| o.log())
    }

    pub fn now_ns(&self) -> u64 {
        self.now
    }

    /// Requests in the device (submitted, not completed): the queue length policies see.
    pub fn device_queue_length(&self) -> u64 {
        self.outstanding
    }

    fn push(&mut self, at: u64, event: Event) {
        self.seq += 1;
        self.events.push(Scheduled { time: at, seq: self.seq, event });
    }

    /// Runs the workload to the end and returns the report.
    pub fn run(mut self) -> Result<(Report, Vec<SeriesRow>), SimError> {
        self.run_to_end()
    }

    /// As [`run`](Self::run), but the simulator stays alive: freeing a large drive's
    /// map and reverse map takes tens of milliseconds, which a caller timing the
    /// simulation (the CLI's speed figures) should not count.
    pub fn run_to_end(&mut self) -> Result<(Report, Vec<SeriesRow>), SimError> {
        if self.pa.is_some() && self.ftl.relaxed.is_none() {
            self.ftl.enable_relaxed();
        }
        for i in 0..self.config.power.loss_at_ns.len() {
            self.push(self.config.power.loss_at_ns[i], Event::PowerLoss);
        }
        self.start_host()?;
        while let Some(Scheduled { time, seq, event }) = self.events.pop() {
            debug_assert!(time >= self.now, "time went backwards");
            self.now = time;
            if let Some(o) = self.occupancy.as_mut() {
                let check = o.event(time, seq);
                o.note(check);
            }
            self.events_processed += 1;
            if self.events_processed > self.event_budget {
                return Err(SimError::EventBudget {
                    time_ns: self.now,
                    events: self.event_budget,
                    outstanding: self.outstanding,
                    message: self.busy_summary(),
                });
            }
            self.handle(event)?;
            if let Some(message) = self.occupancy.as_mut().and_then(|o| o.take_failure()) {
                return Err(SimError::Invariant { time_ns: self.now, message });
            }
            if self.host_done && self.outstanding == 0 {
                break;
            }
        }
        if !(self.host_done && self.outstanding == 0) {
            return Err(SimError::Stalled {
                time_ns: self.now,
                outstanding: self.outstanding,
                message: format!("no event can make progress; {}", self.stall_summary()),
            });
        }
        if self.check {
            self.check_now()?;
        }
        self.verify_now("end of run")?;
        Ok(self.finish())
    }

    /// Why nothing can run: each plane with user writes waiting that it cannot take.
    fn stall_summary(&self) -> String {
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
        if planes.is_empty() {
            "no plane has writes it cannot take".to_string()
        } else {
            format!("full planes where GC finds nothing to clean: {}", planes.join("; "))
        }
    }

    /// What keeps the run busy when it exceeds its event budget: planes in GC.
    fn busy_summary(&self) -> String {
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

    fn handle(&mut self, event: Event) -> Result<(), SimError> {
        match event {
            Event::Arrival => self.on_arrival()?,
            Event::Refill => self.on_refill()?,
            Event::DieDone { die } => self.advance_command(die)?,
            Event::ChannelDone { channel } => self.on_channel_done(channel)?,
            Event::Decoded { txn } => self.complete_txn(txn)?,
            Event::GcIdle { die } => {
                self.dies[die as usize].gc_idle_pending = false;
                self.schedule_die(die)?;
            }
            Event::ProgramDelay { die } => {
                self.dies[die as usize].delay_pending = false;
                self.schedule_die(die)?;
            }
            Event::PowerLoss => self.on_power_loss()?,
            Event::PowerRestored => self.on_power_restored()?,
            Event::Wake { die } => {
                self.dies[die as usize].wake_pending = false;
                self.schedule_die(die)?;
            }
            Event::RoomFreed => self.on_room_freed()?,
            Event::MigrationCheck => self.on_migration_check()?,
        }
        Ok(())
    }

    // ----------------------------------------------------------------- host side

    fn start_host(&mut self) -> Result<(), SimError> {
        match self.config.host.replay {
            ReplayMode::OpenLoop | ReplayMode::Burst => {
                if self.fetch_record()? {
                    let at = self.pending_arrival_ns();
                    self.push(at, Event::Arrival);
                }
            }
            ReplayMode::ClosedLoop => {
                for _ in 0..self.config.host.queue_depth {
                    if !self.fetch_record()? {
                        break;
                    }
                    let record = self.pending_record.take().expect("fetched");
                    self.submit(record, 0)?;
                }
                if self.pending_record.is_none() {
                    self.fetch_record()?;
                }
                if self.pending_record.is_some() && self.outstanding < self.config.host.queue_depth as u64 {
                    self.push(self.now, Event::Refill);
                }
            }
        }
        self.update_host_done();
        Ok(())
    }

    /// Pulls the next record into `pending_record`, moving to the next run when a run's
    /// source is exhausted. Returns false when the whole workload is exhausted.
    fn fetch_record(&mut self) -> Result<bool, SimError> {
        loop {
            if self.source.is_none() {
                return Ok(false);
            }
            if self.read_ahead.is_empty() {
                self.read_ahead();
            }
            match self.read_ahead.pop_front() {
                Some(record) => {
                    let record = record?;
                    if self.trace_base_ns.is_none() {
                        self.trace_base_ns = Some(record.arrival_ns);
                        self.first_trace_ns = record.arrival_ns;
                    }
                    self.last_trace_ns = self.last_trace_ns.max(record.arrival_ns);
                    self.trace_records_in_run += 1;
                    self.pending_record = Some(record);
                    return Ok(true);
                }
                None => {
                    self.host_counters_skipped_add();
                    if self.run + 1 >= self.config.host.runs || self.trace_records_in_run == 0 {
                        self.source = None;
                        return Ok(false);
                    }
                    // Next run starts one mean inter-arrival gap after this run's span.
                    let span = self.last_trace_ns - self.first_trace_ns;
                    let gap = if self.trace_records_in_run > 1 { span / (self.trace_records_in_run - 1) } else { 0 };
                    let scaled = ((span + gap) as f64 / self.config.host.speed_factor) as u64;
                    self.run_offset_ns += scaled;
                    self.run += 1;
                    self.per_run
                        .push(RunStats { dominated_writes: vec![0; self.ftl.bits_per_cell], ..RunStats::default() });
                    self.trace_base_ns = None;
                    self.last_trace_ns = 0;
                    self.trace_records_in_run = 0;
                    self.source = Some((self.factory)()?);
                    self.source_ended = false;
                }
            }
        }
    }

    /// Reads the next `READ_AHEAD` records of the current run and touches the flash
    /// state their first pages will need: the mapping entry, the block holding the data
    /// (reads sense it, updates invalidate it) and its reverse-map entry. On a large drive
    /// with random addresses each of these is a cache miss; touched here together for
    /// many records, the loads overlap in the memory system instead of stalling `submit`
    /// and the die scheduler one at a time. Only what is loaded changes, not any result
    /// (a record's page may have moved by the time it is used: then its touch was wasted).
    fn read_ahead(&mut self) {
        let Some(source) = self.source.as_mut() else { return };
        // A source is not asked again once it has ended or failed.
        while !self.source_ended && self.read_ahead.len() < READ_AHEAD {
            match source.next() {
                Some(item) => {
                    self.source_ended = item.is_err();
                    self.read_ahead.push_back(item);
                }
                None => self.source_ended = true,
            }
        }
        let page = self.ftl.addr.page_size_bytes as u64;
        let logical = self.ftl.logical_pages as u64;
        let mut touched = 0u32;
        for record in self.read_ahead.iter().flatten() {
            let lpn = (record.offset_bytes / page % logical) as usize;
            let ppn = self.ftl.map[lpn];
            if ppn != NO_PAGE {
                let block = self.ftl.addr.block_of(ppn) as usize;
                touched ^= self.ftl.blocks.get(block).map_or(0, |b| b.valid_pages);
                touched ^= self.ftl.reverse.get(ppn as usize).copied().unwrap_or(0);
            }
        }
        std::hint::black_box(touched);
    }

    fn host_counters_skipped_add(&mut self) {
        if let Some(source) = self.source.as_ref() {
            self.skipped_total += source.skipped();
        }
    }

    fn pending_arrival_ns(&self) -> u64 {
        let record = self.pending_record.as_ref().expect("pending record");
        let base = self.trace_base_ns.unwrap_or(record.arrival_ns);
        let rel = record.arrival_ns.saturating_sub(base);
        self.run_offset_ns + (rel as f64 / self.config.host.speed_factor) as u64
    }

    fn on_arrival(&mut self) -> Result<(), SimError> {
        if self.config.host.replay == ReplayMode::Burst {
            return self.on_burst_arrival();
        }
        let record = self.pending_record.take().expect("arrival without record");
        let depth = self.config.host.queue_depth as u64;
        if (depth > 0 && self.outstanding >= depth) || self.now < self.powered_at_ns {
            self.host_waiting.push_back((record, self.now));
        } else {
            self.submit(record, self.now)?;
        }
        if self.fetch_record()? {
            let mut at = self.pending_arrival_ns();
            if at < self.now {
                self.host_counters.out_of_order += 1;
                at = self.now;
            }
            self.push(at, Event::Arrival);
        }
        self.update_host_done();
        Ok(())
    }

    /// Burst replay: issue this record, then the next at once if the trace gap is short,
    /// or after this burst completes plus the gap if it is long.
    fn on_burst_arrival(&mut self) -> Result<(), SimError> {
        let record = self.pending_record.take().expect("arrival without record");
        self.burst.start_ns.get_or_insert(self.now);
        self.burst.bytes += record.size_bytes;
        self.burst.previous_trace_ns = Some(record.arrival_ns);
        let run = self.run;
        let depth = self.config.host.queue_depth as u64;
        if (depth > 0 && self.outstanding >= depth) || self.now < self.powered_at_ns {
            self.host_waiting.push_back((record, self.now));
        } else {
            self.submit(record, self.now)?;
        }
        if self.fetch_record()? {
            let next = self.pending_record.as_ref().expect("fetched").arrival_ns;
            // A new run of a multi-run starts a new burst without idle time.
            let gap = match self.burst.previous_trace_ns {
                Some(prev) if self.run == run => next.saturating_sub(prev),
                _ => u64::MAX,
            };
            if gap < self.config.host.burst_gap_ns {
                self.push(self.now, Event::Arrival);
            } else {
                let idle = if gap == u64::MAX { 0 } else { (gap as f64 / self.config.host.speed_factor) as u64 };
                self.burst.pending_gap_ns = Some(idle);
                self.maybe_end_burst();
            }
        } else {
            self.maybe_end_burst();
        }
        self.update_host_done();
        Ok(())
    }

    /// Closes the current burst once all of it has completed, and schedules the next.
    fn maybe_end_burst(&mut self) {
        let burst_over = self.outstanding == 0
            && self.host_waiting.is_empty()
            && (self.burst.pending_gap_ns.is_some() || self.pending_record.is_none());
        if !burst_over {
            return;
        }
        // (A burst whose requests all completed instantly may already have been closed.)
        if let Some(start) = self.burst.start_ns.take() {
            let duration = self.now - start;
            self.burst.count += 1;
            self.burst.total_bytes += self.burst.bytes;
            self.burst.total_ns += duration;
            if duration > 0 {
                self.burst.bandwidth_sum += self.burst.bytes as f64 / (duration as f64 / 1e9) / 1048576.0;
            }
            self.burst.bytes = 0;
        }
        if let Some(gap) = self.burst.pending_gap_ns.take() {
            self.burst.idle_ns += gap;
            self.push(self.now + gap, Event::Arrival);
        }
    }

    fn update_host_done(&mut self) {
        self.host_done = self.pending_record.is_none() && self.source.is_none() && self.host_waiting.is_empty();
    }

    /// A request enters the device: it is split into page sub-requests.
    fn submit(&mut self, record: Record, arrival_ns: u64) -> Result<(), SimError> {
        if self.hybrid.is_some() {
            self.hybrid_on_arrival()?;
        }
        let id = self.next_request_id;
        self.next_request_id += 1;
        let page = self.ftl.addr.page_size_bytes as u64;
        let size = record.size_bytes.max(1);
        let (offset, remapped) = self.map_offset(id, &record)?;
        if remapped {
            self.host_counters.address_remapped += 1;
        }
        if !offset.is_multiple_of(page) || !size.is_multiple_of(page) {
            self.host_counters.unaligned += 1;
        }
        let first = offset / page;
        let last = (offset + size - 1) / page;
        let pages = (last - first + 1) as u32;
        let slot = self.alloc_request(Request {
            id,
            arrival_ns,
            offset_bytes: offset,
            size_bytes: size,
            op: record.op,
            pending: pages,
            pages,
            dominant_type: -1,
            run: self.run,
            want: NO_TYPE,
        });
        if let Some(o) = self.occupancy.as_mut() {
            let check = o.request_submitted(slot, id, pages);
            o.note(check);
        }
        if record.op == Op::Write {
            if let Some(policy) = self.pa.as_mut() {
                let ctx = WriteContext {
                    pages,
                    hint: record.hint,
                    queue_length: self.outstanding,
                    buffered_pages: self.buffered_write_pages,
                    free_pages_by_type: &self.ftl.free_pages_by_type,
                };
                self.requests[slot as usize].want = policy.assign(&ctx);
            }
        }
        self.outstanding += 1;
        let stats = &mut self.per_run[self.run as usize];
        stats.first_arrival_ns.get_or_insert(arrival_ns);
        self.total.first_arrival_ns.get_or_insert(arrival_ns);
        let logical = self.ftl.logical_pages as u64;
        for k in 0..pages as u64 {
            let lpn = ((first + k) % logical) as u32;
            self.host_counters.sub_requests += 1;
            match record.op {
                Op::Write => {
                    let page_start = (first + k) * page;
                    let partial = offset > page_start || offset + size < page_start + page;
                    let subpages = if partial { self.subpages_covered(offset, size, page_start) } else { 0 };
                    match self.ftl.lookup(lpn) {
                        // An update that fits the free subpages of its SLC-mode page is
                        // partially programmed there (IPU §1), without moving the data.
                        Some(old) if partial && self.ftl.can_partial_program(old, subpages) => {
                            let plane = self.ftl.addr.plane_of(old);
                            let txn = self.alloc_txn(TxnKind::PartialProgram, slot, lpn, old, plane);
                            self.txns[txn as usize].subpages = subpages;
                            let die = self.ftl.addr.die_of_plane(plane);
                            self.dies[die as usize].writes.push_back(txn);
                            self.dies[die as usize].last_user_ns = self.now;
                            self.kick_list.push(die);
                        }
                        // The rest of the page must be read before it is rewritten.
                        Some(old)
                            if partial && self.config.ftl.partial_page_writes == PartialPageWrites::ReadModifyWrite =>
                        {
                            let plane = self.ftl.addr.plane_of(old);
                            let txn = self.alloc_txn(TxnKind::UpdateRead, slot, lpn, old, plane);
                            let die = self.ftl.addr.die_of_plane(plane);
                            self.dies[die as usize].reads.push_back(txn);
                            self.dies[die as usize].last_user_ns = self.now;
                            self.kick_list.push(die);
                        }
                        Some(_) => {
                            let die = self.enqueue_write(slot, lpn, 0)?;
                            self.kick_list.push(die);
                        }
                        // Nothing to merge with: only the written subpages are programmed.
                        None => {
                            let die = self.enqueue_write(slot, lpn, subpages)?;
                            self.kick_list.push(die);
                        }
                    }
                }
                Op::Read => {
                    let ppn = match self.ftl.lookup(lpn) {
                        Some(ppn) => ppn,
                        None => {
                            self.host_counters.unwritten_reads += 1;
                            match self.config.host.unwritten_reads {
                                // Preconditioning placed every page the workload reads
                                // before writing it; a page unmapped now was trimmed (or
                                // the source could not be foreseen). A read never places
                                // data during the run: the controller answers it, as a real
                                // drive answers a read of an unmapped page, without flash.
                                WhatIfUnwritten::Precondition | WhatIfUnwritten::Controller => {
                                    self.finish_sub_request(slot)?;
                                    continue;
                                }
                                WhatIfUnwritten::Error => {
                                    return Err(SimError::Request {
                                        id,
                                        op: "read",
                                        offset,
                                        message: format!(
                                            "reads logical page {lpn}, never written (host.unwritten_reads = \"error\")"
                                        ),
                                    })
                                }
                            }
                        }
                    };
                    let die = self.enqueue_read(slot, lpn, ppn);
                    self.kick_list.push(die);
                }
                Op::Trim => {
                    if let Some(old) = self.ftl.lookup(lpn) {
                        self.ftl.trim(lpn);
                        self.note_invalidated(old);
                    }
                    self.ftl.acknowledge_trim(lpn);
                    self.finish_sub_request(slot)?;
                }
            }
        }
        for i in 0..self.kick_list.len() {
            let die = self.kick_list[i];
            self.kick(die)?;
        }
        self.kick_list.clear();
        Ok(())
    }

    /// Queues the read of `lpn` at `ppn` at that page's die.
    fn enqueue_read(&mut self, slot: u32, lpn: u32, ppn: Ppn) -> u32 {
        let plane = self.ftl.addr.plane_of(ppn);
        let txn = self.alloc_txn(TxnKind::Read, slot, lpn, ppn, plane);
        let die = self.ftl.addr.die_of_plane(plane);
        self.dies[die as usize].reads.push_back(txn);
        self.dies[die as usize].last_user_ns = self.now;
        die
    }

    /// GC erased a block: dies holding stuck writes that found no plane with room try
    /// again (as an event, since the erase is decided while its die's command is being
    /// built).
    fn note_erased(&mut self) {
        if self.waiting_for_room.is_empty() || self.room_event_pending {
            return;
        }
        self.room_event_pending = true;
        self.push(self.now, Event::RoomFreed);
    }

    fn on_room_freed(&mut self) -> Result<(), SimError> {
        self.room_event_pending = false;
        for die in std::mem::take(&mut self.waiting_for_room) {
            self.kick(die)?;
        }
        Ok(())
    }

    /// Picks the plane of a user write (PLAlloc) and queues it at that plane's die.
    fn enqueue_write(&mut self, slot: u32, lpn: u32, subpages: u8) -> Result<u32, SimError> {
        let loads = &self.dies;
        let ftl = &self.ftl;
        let plane = self.planes_alloc.choose(
            &self.ftl.addr,
            lpn,
            |d| {
                let die = &loads[d as usize];
                die.reads.len() + die.writes.len() + usize::from(die.busy)
            },
            |p| ftl.gc_need(p) != GcNeed::Emergency,
        );
        let (plane, mode) = if self.hybrid_policy_places() {
            self.hybrid_choose(plane, self.requests[slot as usize].size_bytes)
        } else {
            (plane, WriteMode::Auto)
        };
        let txn = self.alloc_txn(TxnKind::Write, slot, lpn, NO_PAGE, plane);
        self.txns[txn as usize].subpages = subpages;
        self.txns[txn as usize].want = self.requests[slot as usize].want;
        self.txns[txn as usize].mode = mode;
        self.hybrid_enqueued(plane, mode);
        self.buffered_write_pages += 1;
        let die = self.ftl.addr.die_of_plane(plane);
        self.dies[die as usize].writes.push_back(txn);
        self.dies[die as usize].last_user_ns = self.now;
        if self.config.power.write_acknowledge == WriteAcknowledge::Buffer {
            // Buffered pages are the queued writes not waiting for a slot.
            if self.ack_waiting.is_empty() && self.buffered_write_pages <= self.config.power.write_buffer_pages as u64 {
                self.acknowledge_buffered(txn)?;
            } else {
                self.ack_waiting.push_back(txn);
            }
        }
        Ok(die)
    }

    /// DRAM-buffer acknowledgement: the host is told the write is done; its program
    /// follows later (and is guaranteed by power-loss protection).
    fn acknowledge_buffered(&mut self, txn: u32) -> Result<(), SimError> {
        self.txns[txn as usize].acked = true;
        self.finish_sub_request(self.txns[txn as usize].request)
    }

    /// Subpages of the page starting at `page_start` that a request covers.
    fn subpages_covered(&self, offset: u64, size: u64, page_start: u64) -> u8 {
        let sub = self.timing.page_size_bytes / self.ftl.subpages_per_page as u64;
        let start = offset.max(page_start) - page_start;
        let end = (offset + size).min(page_start + self.timing.page_size_bytes) - page_start;
        (end.div_ceil(sub) - start / sub) as u8
    }

    fn map_offset(&self, id: u64, record: &Record) -> Result<(u64, bool), SimError> {
        map_offset(&self.config, self.logical_bytes, self.ftl.addr.page_size_bytes as u64, id, record)
    }

    fn alloc_request(&mut self, r: Request) -> u32 {
        if let Some(slot) = self.free_requests.pop() {
            self.requests[slot as usize] = r;
            slot
        } else {
            self.requests.push(r);
            (self.requests.len() - 1) as u32
        }
    }

    fn alloc_txn(&mut self, kind: TxnKind, request: u32, lpn: u32, ppn: Ppn, plane: u32) -> u32 {
        let t = Txn {
            kind,
            request,
            lpn,
            ppn,
            from: NO_PAGE,
            plane,
            page_type: 0,
            slc: false,
            subpages: 0,
            want: NO_TYPE,
            version: 0,
            enqueued_ns: self.now,
            acked: false,
            mode: WriteMode::Auto,
        };
        let slot = if let Some(slot) = self.free_txns.pop() {
            self.txns[slot as usize] = t;
            slot
        } else {
            self.txns.push(t);
            (self.txns.len() - 1) as u32
        };
        if let Some(o) = self.occupancy.as_mut() {
            let role = match kind {
                TxnKind::Write | TxnKind::PartialProgram => occupancy::TxnRole::UserProgram,
                TxnKind::UpdateRead => occupancy::TxnRole::UpdateRead,
                _ => occupancy::TxnRole::Other,
            };
            let id = if request == NO_REQUEST { u64::MAX } else { self.requests[request as usize].id };
            let check = o.txn_created(slot, role, id, lpn);
            o.note(check);
        }
        slot
    }

    /// One page of a request is done; the request completes with its last page.
    fn finish_sub_request(&mut self, slot: u32) -> Result<(), SimError> {
        if let Some(o) = self.occupancy.as_mut() {
            let check = o.sub_request_finished(slot);
            o.note(check);
        }
        let r = &mut self.requests[slot as usize];
        r.pending -= 1;
        if r.pending > 0 {
            return Ok(());
        }
        let r = *r;
        if let Some(o) = self.occupancy.as_mut() {
            let check = o.request_completed(slot, r.id);
            o.note(check);
        }
        self.free_requests.push(slot);
        self.outstanding -= 1;
        if self.outstanding == 0 && self.hybrid.is_some() {
            self.hybrid_on_idle();
        }
        let completion = self.now + self.config.host.request_overhead_ns;
        let latency = completion - r.arrival_ns;
        for stats in [&mut self.total, &mut self.per_run[r.run as usize]] {
            match r.op {
                Op::Read => stats.reads.record(latency, r.size_bytes),
                Op::Write => {
                    stats.writes.record(latency, r.size_bytes);
                    if r.dominant_type >= 0 {
                        stats.dominated_writes[r.dominant_type as usize] += 1;
                    }
                }
                Op::Trim => stats.trims.record(latency, r.size_bytes),
            }
            stats.all.record(latency, r.size_bytes);
            stats.last_completion_ns = stats.last_completion_ns.max(completion);
        }
        self.record_series(completion, r.op, latency, r.size_bytes);
        if let Some(observer) = self.observers.requests.as_mut() {
            observer(&RequestRecord {
                id: r.id,
                run: r.run,
                op: r.op.name(),
                offset_bytes: r.offset_bytes,
                size_bytes: r.size_bytes,
                arrival_ns: r.arrival_ns,
                completion_ns: completion,
                latency_ns: latency,
                pages: r.pages,
                dominant_page_type: r.dominant_type,
            });
        }
        let completed = self.total.all.count;
        if let Some(progress) = self.observers.progress.as_mut() {
            if self.observers.progress_every > 0 && completed.is_multiple_of(self.observers.progress_every) {
                progress(completed, self.now);
            }
        }
        if self.check && self.config.output.check_every > 0 {
            self.completed_since_check += 1;
            if self.completed_since_check >= self.config.output.check_every {
                self.completed_since_check = 0;
                self.check_now()?;
            }
        }
        // A slot opened in the device queue. Refilling goes through an event, not a
        // nested call, so long runs of instantly-completing requests cannot recurse.
        let refill = match self.config.host.replay {
            // (The pending record may be momentarily taken by a submit in progress.)
            ReplayMode::ClosedLoop => self.pending_record.is_some() || self.source.is_some(),
            ReplayMode::OpenLoop | ReplayMode::Burst => !self.host_waiting.is_empty(),
        };
        if self.config.host.replay == ReplayMode::Burst {
            self.maybe_end_burst();
        }
        if refill {
            self.push(self.now, Event::Refill);
        }
        Ok(())
    }

    fn on_refill(&mut self) -> Result<(), SimError> {
        match self.config.host.replay {
            ReplayMode::ClosedLoop => {
                let depth = self.config.host.queue_depth as u64;
                if self.outstanding < depth {
                    if let Some(record) = self.pending_record.take() {
                        self.submit(record, self.now)?;
                        self.fetch_record()?;
                    }
                }
                // Requests that complete inside `submit` (trims, controller-served reads)
                // leave the queue short: keep refilling until it is full again.
                if self.outstanding < depth && self.pending_record.is_some() {
                    self.push(self.now, Event::Refill);
                }
            }
            ReplayMode::OpenLoop | ReplayMode::Burst => {
                let depth = self.config.host.queue_depth as u64;
                if self.outstanding < depth {
                    if let Some((record, arrival)) = self.host_waiting.pop_front() {
                        // Latency counts from the arrival, including the wait in the host.
                        self.submit(record, arrival)?;
                    }
                }
            }
        }
        self.update_host_done();
        Ok(())
    }

    fn record_series(&mut self, completion: u64, op: Op, latency: u64, bytes: u64) {
        let interval = self.config.output.series_interval_ns;
        if interval == 0 {
            return;
        }
        let bucket = completion / interval;
        while bucket > self.series_acc.bucket {
            self.flush_series_row();
        }
        let acc = &mut self.series_acc;
        match op {
            Op::Read => {
                acc.reads += 1;
                acc.read_bytes += bytes;
                acc.read_latency_sum_ns += latency as u128;
            }
            Op::Write => {
                acc.writes += 1;
                acc.write_bytes += bytes;
                acc.write_latency_sum_ns += latency as u128;
            }
            Op::Trim => {}
        }
    }

    fn flush_series_row(&mut self) {
        let interval = self.config.output.series_interval_ns;
        let acc = std::mem::take(&mut self.series_acc);
        let seconds = interval as f64 / 1e9;
        let mean = |sum: u128, n: u64| if n == 0 { 0.0 } else { sum as f64 / n as f64 };
        let free_blocks: u64 = self.ftl.planes.iter().map(|p| p.free.len() as u64).sum();
        self.series.push(SeriesRow {
            start_ns: acc.bucket * interval,
            end_ns: (acc.bucket + 1) * interval,
            reads: acc.reads,
            writes: acc.writes,
            read_bytes: acc.read_bytes,
            write_bytes: acc.write_bytes,
            read_latency_mean_ns: mean(acc.read_latency_sum_ns, acc.reads),
            write_latency_mean_ns: mean(acc.write_latency_sum_ns, acc.writes),
            iops: (acc.reads + acc.writes) as f64 / seconds,
            bandwidth_mib_s: (acc.read_bytes + acc.write_bytes) as f64 / seconds / 1048576.0,
            free_blocks,
            erases: self.ftl.counters.erases - acc.erases_at_start,
            free_pages_by_type: self.ftl.free_pages_by_type.clone(),
            slc_user_pages: self.flash_counters.slc_user_programs - acc.slc_user_at_start,
            slc_free_pages: if self.ftl.has_slc {
                (0..self.ftl.addr.planes()).map(|p| self.ftl.slc_room(p)).sum()
            } else {
                0
            },
        });
        self.series_acc.bucket = acc.bucket + 1;
        self.series_acc.erases_at_start = self.ftl.counters.erases;
        self.series_acc.slc_user_at_start = self.flash_counters.slc_user_programs;
    }

    // ------------------------------------------------------------ die scheduler

    /// Starts work on an idle die.
    fn kick(&mut self, die: u32) -> Result<(), SimError> {
        if !self.dies[die as usize].busy {
            self.schedule_die(die)?;
        }
        Ok(())
    }

    fn die_planes(&self, die: u32) -> std::ops::Range<u32> {
        let n = self.ftl.addr.planes_per_die;
        die * n..die * n + n
    }

    /// Chooses and starts the die's next command: emergency GC first (thesis §4.2.2),
    /// then the queues in the configured priority; background GC only when the die has
    /// no user work and has been idle for `gc_idle_ns`.
    fn schedule_die(&mut self, die: u32) -> Result<(), SimError> {
        if self.dies[die as usize].busy {
            return Ok(());
        }
        self.dies[die as usize].gc_starved = false;
        for plane in self.die_planes(die) {
            if self.ftl.gc_need(plane) == GcNeed::Emergency && self.start_gc_step(die, plane, true)? {
                return Ok(());
            }
        }
        if self.hybrid.is_some() && self.start_migration_work(die)? {
            return Ok(());
        }
        for i in 0..self.priority.len() {
            let started = match self.priority[i] {
                QueueKind::UserRead => self.start_read(die)?,
                QueueKind::UserWrite => self.start_write(die)?,
                QueueKind::Gc => self.start_background_gc(die)?,
            };
            if started {
                return Ok(());
            }
        }
        self.reroute_stuck_writes(die)
    }

    /// Called on an idle die that could start nothing. A queued write whose plane cannot
    /// take it is then stuck: its plane is in emergency GC (a user write never takes the
    /// last free block) and GC found nothing worth cleaning, so only invalidations from
    /// elsewhere could free room, and the rest of the workload need not bring any. With
    /// dynamic allocation a plane can fill up with valid data this way (nothing bounds a
    /// plane's share of it); a controller then writes elsewhere, and so does this one:
    /// each stuck write goes to the plane with the most room left after the writes
    /// already queued for it (so that a crowd of stuck writes does not swamp one plane
    /// and bounce on), preferring planes not in emergency GC.
    fn reroute_stuck_writes(&mut self, die: u32) -> Result<(), SimError> {
        let stuck = |s: &Self, t: u32| s.txns[t as usize].kind == TxnKind::Write && !s.write_has_room(t);
        if !self.dies[die as usize].writes.iter().any(|&t| stuck(self, t)) {
            return Ok(());
        }
        // Room per plane: pages user writes can still take, less the writes queued for it.
        let planes = self.ftl.addr.planes();
        let mut room: Vec<i64> = (0..planes).map(|p| self.ftl.user_room(p) as i64).collect();
        for d in &self.dies {
            for &t in &d.writes {
                if self.txns[t as usize].kind == TxnKind::Write {
                    room[self.txns[t as usize].plane as usize] -= 1;
                }
            }
        }
        let mut i = 0;
        let mut kicked = Vec::new();
        while i < self.dies[die as usize].writes.len() {
            let t = self.dies[die as usize].writes[i];
            if !stuck(self, t) {
                i += 1;
                continue;
            }
            let from = self.txns[t as usize].plane;
            let mut best: Option<((bool, i64), u32)> = None;
            for k in 1..planes {
                let plane = (from + k) % planes;
                if room[plane as usize] <= 0 || !self.ftl.can_allocate_user(plane) {
                    continue;
                }
                let key = (self.ftl.gc_need(plane) == GcNeed::Emergency, -room[plane as usize]);
                if best.is_none_or(|(b, _)| key < b) {
                    best = Some((key, plane));
                }
            }
            let Some((_, target)) = best else {
                // No plane has room to spare yet: try again when GC erases a block.
                if !self.waiting_for_room.contains(&die) {
                    self.waiting_for_room.push(die);
                }
                break;
            };
            room[target as usize] -= 1;
            room[from as usize] += 1;
            self.dies[die as usize].writes.remove(i);
            self.txns[t as usize].plane = target;
            self.hybrid_moved(t, from);
            let to = self.ftl.addr.die_of_plane(target);
            self.dies[to as usize].writes.push_back(t);
            self.gc_rerouted_writes += 1;
            if !kicked.contains(&to) {
                kicked.push(to);
            }
        }
        for to in kicked {
            self.kick(to)?;
        }
        Ok(())
    }

    /// Whether the queued write `t` could get a page in its plane now (a write meant for
    /// TLC pages needs normal blocks).
    fn write_has_room(&self, t: u32) -> bool {
        let txn = &self.txns[t as usize];
        if txn.mode == WriteMode::Tlc {
            self.ftl.can_allocate_normal(txn.plane)
        } else {
            self.ftl.can_allocate_user(txn.plane)
        }
    }

    /// Wakes the idle die of `ppn`'s plane if it went idle for want of anything to clean:
    /// the page just became invalid, so there may be something now.
    fn note_invalidated(&mut self, ppn: Ppn) {
        let die = self.ftl.addr.die_of_plane(self.ftl.addr.plane_of(ppn));
        let d = &mut self.dies[die as usize];
        if d.gc_starved && !d.busy && !d.wake_pending {
            d.wake_pending = true;
            self.push(self.now, Event::Wake { die });
        }
    }

    /// Background GC. Reached in priority order, so every queue ranked above it had
    /// nothing it could start. With no user work at the die it waits `gc_idle_ns` of
    /// idleness; with user work (ranked below GC, or blocked) it runs at once.
    fn start_background_gc(&mut self, die: u32) -> Result<bool, SimError> {
        let d = &self.dies[die as usize];
        let user_work = !d.reads.is_empty() || !d.writes.is_empty();
        if !self.die_planes(die).any(|p| self.ftl.gc_need(p) >= GcNeed::Background) {
            return Ok(false);
        }
        let ready_at = d.last_user_ns + self.config.ftl.gc_idle_ns;
        if !user_work && self.now < ready_at {
            if !self.dies[die as usize].gc_idle_pending {
                self.dies[die as usize].gc_idle_pending = true;
                self.push(ready_at, Event::GcIdle { die });
            }
            return Ok(false);
        }
        for plane in self.die_planes(die) {
            if self.ftl.gc_need(plane) >= GcNeed::Background && self.start_gc_step(die, plane, false)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Starts one cleanup operation on `plane`; false if there is nothing to do.
    fn start_gc_step(&mut self, die: u32, plane: u32, emergency: bool) -> Result<bool, SimError> {
        let victim = self.ftl.planes[plane as usize].victim;
        if !self.ftl.has_normal(plane)
            && (victim == NO_PAGE || self.ftl.blocks[victim as usize].valid_pages > 0)
            && self.migration_target(plane).is_none()
        {
            // Nowhere to migrate to until another plane's GC frees blocks.
            return Ok(false);
        }
        let Some(step) = self.ftl.gc_next_step(plane, self.now) else {
            self.dies[die as usize].gc_starved = true;
            return Ok(false);
        };
        if emergency {
            self.gc_emergency_steps += 1;
        } else {
            self.gc_background_steps += 1;
        }
        match step {
            GcStep::Erase { block } => {
                let mut cmd = std::mem::take(&mut self.dies[die as usize].command);
                cmd.txns.clear();
                let index = self.ftl.addr.block_in_plane(block);
                for other in self.die_planes(die) {
                    // Multi-plane erase: other planes of the die whose victim is a block with
                    // the same address and no valid page left are erased in the same command.
                    if other != plane
                        && self.config.flash.multi_plane
                        && self.ftl.planes[other as usize].victim == NO_PAGE
                        && self.ftl.gc_need(other) >= GcNeed::Background
                    {
                        // Let that plane choose its victim now (as its next step would).
                        self.ftl.ensure_victim(other, self.now);
                    }
                    let victim = self.ftl.planes[other as usize].victim;
                    let joins = other != plane
                        && self.config.flash.multi_plane
                        && victim != NO_PAGE
                        && self.ftl.addr.block_in_plane(victim) == index
                        && self.ftl.erasable(victim);
                    if other == plane || joins {
                        let target = if other == plane { block } else { victim };
                        let slc = self.ftl.blocks[target as usize].slc;
                        self.ftl.erase(target);
                        if slc && self.hybrid.is_some() {
                            self.on_slc_reclaimed(other);
                        }
                        if cfg!(debug_assertions) && self.verify {
                            self.verify_now(&format!("after GC erased block {target} of plane {other}"))?;
                        }
                        self.energy.erase += self.timing.erase_nj;
                        let txn = self.alloc_txn(TxnKind::Erase, NO_REQUEST, 0, target, other);
                        cmd.txns.push(txn);
                    }
                }
                if cmd.txns.len() > 1 {
                    self.flash_counters.multi_plane += 1;
                }
                self.note_erased();
                cmd.steps = [Some(Step::Array(self.timing.erase_ns)), None, None, None];
                cmd.next = 0;
                self.dies[die as usize].command = cmd;
            }
            GcStep::Move { ppn, lpn } if !self.ftl.has_normal(plane) => {
                // A plane wholly in SLC mode: its data moves to another plane.
                return self.start_cross_plane_move(die, plane, ppn, lpn);
            }
            GcStep::Move { ppn, lpn } => {
                let summaries = self.ftl.counters.summary_programs;
                let dest = match self.pa.as_mut() {
                    Some(policy) => {
                        let want = policy.assign_gc(&self.ftl.free_pages_by_type);
                        self.ftl.allocate_typed(plane, want, 0, self.now).map(|(a, _)| a)
                    }
                    None => self.ftl.allocate_gc(plane, self.now),
                };
                let Some(dest) = dest else {
                    return Err(SimError::Stalled {
                        time_ns: self.now,
                        outstanding: self.outstanding,
                        message: format!("plane {plane} has no free page for a GC move"),
                    });
                };
                let src_type = self.ftl.page_type(ppn);
                let src_slc = self.ftl.is_slc(ppn);
                self.ftl.commit_move(lpn, ppn, dest.ppn);
                let mut sense = self.timing.read_ns(src_type, src_slc);
                let mut program = self.program_ns(dest.page_type, dest.slc);
                self.count_read(src_type, src_slc);
                self.count_program(dest.page_type, dest.slc, false);
                let txn = self.alloc_txn(TxnKind::GcMove, NO_REQUEST, lpn, dest.ppn, plane);
                self.txns[txn as usize].from = ppn;
                let mut cmd = std::mem::take(&mut self.dies[die as usize].command);
                cmd.txns.clear();
                cmd.txns.push(txn);
                if self.timing.one_shot && !dest.slc {
                    // One-shot: a page set is programmed at once, so the move gathers up to a
                    // full set of valid pages, across victims if need be (one sense each, one
                    // program); moving page by page would waste the rest of every wordline,
                    // and GC could then consume more pages than it frees.
                    sense += self.gather_page_set(&mut cmd, plane, plane, dest.ppn, TxnKind::GcMove);
                }
                program += self.summary_ns(summaries);
                let pages = cmd.txns.len() as u64;
                if src_slc {
                    if let Some(h) = self.hybrid.as_mut() {
                        h.migrated_pages += pages;
                    }
                }
                let copyback = self.config.flash.copyback;
                if copyback {
                    self.flash_counters.copybacks += pages;
                }
                cmd.steps = if copyback {
                    [Some(Step::Array(sense)), Some(Step::Array(program)), None, None]
                } else {
                    [
                        Some(Step::Array(sense)),
                        Some(Step::ChannelOut(pages * self.timing.page_size_bytes)),
                        Some(Step::ChannelIn(pages * self.timing.page_size_bytes)),
                        Some(Step::Array(program)),
                    ]
                };
                cmd.next = 0;
                self.dies[die as usize].command = cmd;
            }
        }
        self.dies[die as usize].busy = true;
        self.advance_command(die)?;
        Ok(true)
    }

    /// One-shot GC: fills the rest of the wordline of `first` (a GC page of `dest_plane`)
    /// with further valid pages of `source`'s victims, adding a `kind` transaction for each
    /// to `cmd`, then skips what is left of the wordline. Returns the extra sense time.
    fn gather_page_set(&mut self, cmd: &mut Command, source: u32, dest_plane: u32, first: Ppn, kind: TxnKind) -> u64 {
        let mut sense = 0;
        let mut last = first;
        while cmd.txns.len() < self.ftl.bits_per_cell && self.ftl.wordline_has_room(last) {
            let Some((ppn, lpn)) = self.ftl.gc_gather_move(source, self.now) else { break };
            let Some(next) = self.ftl.allocate_gc(dest_plane, self.now) else { break };
            let (t, slc) = (self.ftl.page_type(ppn), self.ftl.is_slc(ppn));
            self.ftl.commit_move(lpn, ppn, next.ppn);
            sense += self.timing.read_ns(t, slc);
            self.count_read(t, slc);
            self.count_program(next.page_type, next.slc, false);
            let txn = self.alloc_txn(kind, NO_REQUEST, lpn, next.ppn, dest_plane);
            self.txns[txn as usize].from = ppn;
            cmd.txns.push(txn);
            last = next.ppn;
        }
        self.ftl.skip_rest_of_wordline(last);
        sense
    }

    fn program_ns(&self, page_type: u8, slc: bool) -> u64 {
        if self.timing.one_shot && !slc {
            self.timing.one_shot_ns
        } else {
            self.timing.program_ns(page_type, slc)
        }
    }

    /// Program time (and energy) of the block summaries that the allocations since the
    /// summary count was `before` wrote: each follows its block's last data page.
    fn summary_ns(&mut self, before: u64) -> u64 {
        let written = self.ftl.counters.summary_programs - before;
        if written == 0 {
            return 0;
        }
        let (page_type, slc) = self.ftl.last_summary;
        self.energy.program += written as f64 * self.timing.program_nj(page_type, slc);
        written * self.program_ns(page_type, slc)
    }

    fn count_read(&mut self, page_type: u8, slc: bool) {
        self.flash_counters.page_reads += 1;
        self.energy.read += self.timing.read_nj(page_type, slc);
    }

    fn count_program(&mut self, page_type: u8, slc: bool, user: bool) {
        if user {
            self.flash_counters.user_programs += 1;
            if slc {
                self.flash_counters.slc_user_programs += 1;
            }
        } else {
            self.flash_counters.gc_programs += 1;
        }
        if slc {
            self.flash_counters.slc_programs += 1;
        }
        self.flash_counters.programs_by_type[page_type as usize] += 1;
        // One-shot programs a page set with one operation; energy is per page either way.
        self.energy.program += self.timing.program_nj(page_type, slc);
    }

    /// Starts a (possibly multi-plane) read of the oldest queued read.
    fn start_read(&mut self, die: u32) -> Result<bool, SimError> {
        let Some(&first) = self.dies[die as usize].reads.front() else { return Ok(false) };
        let first_ppn = self.current_ppn(first);
        let addr = &self.ftl.addr;
        let key = (addr.block_in_plane(addr.block_of(first_ppn)), addr.page_in_block(first_ppn));
        let mut cmd = std::mem::take(&mut self.dies[die as usize].command);
        cmd.txns.clear();
        self.dies[die as usize].reads.pop_front();
        self.txns[first as usize].ppn = first_ppn;
        cmd.txns.push(first);
        if self.config.flash.multi_plane && self.ftl.addr.planes_per_die > 1 {
            let mut used_planes = 1u64 << (self.txns[first as usize].plane % 64);
            let mut i = 0;
            while i < self.dies[die as usize].reads.len().min(MULTI_PLANE_SCAN) {
                let t = self.dies[die as usize].reads[i];
                let ppn = self.current_ppn(t);
                let plane_bit = 1u64 << (self.txns[t as usize].plane % 64);
                let a = &self.ftl.addr;
                if used_planes & plane_bit == 0 && (a.block_in_plane(a.block_of(ppn)), a.page_in_block(ppn)) == key {
                    used_planes |= plane_bit;
                    self.txns[t as usize].ppn = ppn;
                    cmd.txns.push(t);
                    self.dies[die as usize].reads.remove(i);
                } else {
                    i += 1;
                }
            }
        }
        let mut sense = 0;
        for &t in &cmd.txns {
            let ppn = self.txns[t as usize].ppn;
            let (page_type, slc) = (self.ftl.page_type(ppn), self.ftl.is_slc(ppn));
            sense = sense.max(self.timing.read_ns(page_type, slc));
            self.count_read(page_type, slc);
        }
        if cmd.txns.len() > 1 {
            self.flash_counters.multi_plane += 1;
        }
        let pages = cmd.txns.len() as u32;
        cmd.steps =
            [Some(Step::Array(sense)), Some(Step::ChannelOut(pages as u64 * self.timing.page_size_bytes)), None, None];
        cmd.next = 0;
        self.dies[die as usize].command = cmd;
        self.dies[die as usize].busy = true;
        self.advance_command(die)?;
        Ok(true)
    }

    /// The page a queued read should sense now: its logical page's current location if
    /// that is still in the same plane (GC moves within a plane), else the page it was
    /// queued for (the host overwrote it meanwhile; the old data is read).
    fn current_ppn(&self, txn: u32) -> Ppn {
        let t = &self.txns[txn as usize];
        match self.ftl.lookup(t.lpn) {
            Some(ppn) if self.ftl.addr.plane_of(ppn) == t.plane => ppn,
            _ => t.ppn,
        }
    }

    /// Starts a program of queued writes: page by page (with multi-plane partners at
    /// the same block and page address) or, for one-shot flash, a page set per plane.
    fn start_write(&mut self, die: u32) -> Result<bool, SimError> {
        if self.dies[die as usize].writes.is_empty() {
            return Ok(false);
        }
        if self.timing.one_shot {
            return self.start_one_shot(die);
        }
        // The oldest write whose plane has room; writes to a full plane wait for GC.
        let queue_len = self.dies[die as usize].writes.len();
        let mut chosen = None;
        for i in 0..queue_len {
            let t = self.dies[die as usize].writes[i];
            if self.txns[t as usize].kind == TxnKind::PartialProgram {
                if self.partial_program_still_fits(t) {
                    let t = self.dies[die as usize].writes.remove(i).expect("index in range");
                    return self.start_partial_program(die, t);
                }
                // GC moved the page or it filled up meanwhile: write a whole new page (a
                // write buffered like any other from now on; its completion counts it out).
                self.txns[t as usize].kind = TxnKind::Write;
                self.txns[t as usize].subpages = 0;
                self.buffered_write_pages += 1;
            }
            if self.write_has_room(t) {
                chosen = Some(i);
                break;
            }
        }
        let Some(index) = chosen else { return Ok(false) };
        let first = self.dies[die as usize].writes.remove(index).expect("index in range");
        if self.ftl.relaxed.is_some() {
            return self.start_typed_write(die, first);
        }
        let first_plane = self.txns[first as usize].plane;
        let key = self.ftl.peek_user(first_plane);
        let mut cmd = std::mem::take(&mut self.dies[die as usize].command);
        cmd.txns.clear();
        cmd.txns.push(first);
        // (Writes placed by a hybrid policy carry a mode of their own; they are not paired.)
        if self.config.flash.multi_plane && self.ftl.addr.planes_per_die > 1 && !self.hybrid_policy_places() {
            let mut used_planes = 1u64 << (first_plane % 64);
            let mut i = 0;
            while i < self.dies[die as usize].writes.len().min(MULTI_PLANE_SCAN) {
                let t = self.dies[die as usize].writes[i];
                let plane = self.txns[t as usize].plane;
                let plane_bit = 1u64 << (plane % 64);
                let is_write = self.txns[t as usize].kind == TxnKind::Write;
                if is_write && used_planes & plane_bit == 0 && self.ftl.peek_user(plane) == key {
                    used_planes |= plane_bit;
                    cmd.txns.push(t);
                    self.dies[die as usize].writes.remove(i);
                } else {
                    i += 1;
                }
            }
        }
        let mut program = 0;
        let summaries = self.ftl.counters.summary_programs;
        for k in 0..cmd.txns.len() {
            let t = cmd.txns[k];
            let plane = self.txns[t as usize].plane;
            let a = if self.txns[t as usize].mode == WriteMode::Tlc {
                self.ftl.allocate_normal(plane, self.now)
            } else {
                self.ftl.allocate_user(plane, self.now)
            };
            let a = a.expect("room was checked");
            program = program.max(self.program_ns(a.page_type, a.slc));
            self.bind_write(t, a.ppn, a.page_type, a.slc);
        }
        program += self.summary_ns(summaries);
        if cmd.txns.len() > 1 {
            self.flash_counters.multi_plane += 1;
        }
        let pages = cmd.txns.len() as u32;
        cmd.steps =
            [Some(Step::ChannelIn(pages as u64 * self.timing.page_size_bytes)), Some(Step::Array(program)), None, None];
        cmd.next = 0;
        self.dies[die as usize].command = cmd;
        self.dies[die as usize].busy = true;
        self.advance_command(die)?;
        Ok(true)
    }

    /// PA-SSD: one sub-request, its page chosen by pa-BLAlloc for the assigned type.
    /// (Type-specified writes are not combined into multi-plane commands.)
    fn start_typed_write(&mut self, die: u32, txn: u32) -> Result<bool, SimError> {
        let (plane, want) = (self.txns[txn as usize].plane, self.txns[txn as usize].want);
        let (a, matched) = self.ftl.allocate_typed(plane, want, 1, self.now).expect("room was checked");
        self.pa_typed_allocations += 1;
        self.pa_typed_successes += u64::from(matched);
        let program = self.program_ns(a.page_type, a.slc);
        self.bind_write(txn, a.ppn, a.page_type, a.slc);
        let mut cmd = std::mem::take(&mut self.dies[die as usize].command);
        cmd.txns.clear();
        cmd.txns.push(txn);
        cmd.steps = [Some(Step::ChannelIn(self.timing.page_size_bytes)), Some(Step::Array(program)), None, None];
        cmd.next = 0;
        self.dies[die as usize].command = cmd;
        self.dies[die as usize].busy = true;
        self.advance_command(die)?;
        Ok(true)
    }

    fn partial_program_still_fits(&self, txn: u32) -> bool {
        let t = &self.txns[txn as usize];
        self.ftl.lookup(t.lpn) == Some(t.ppn) && self.ftl.can_partial_program(t.ppn, t.subpages)
    }

    /// Programs a write's subpages into the free subpages of the page that already holds
    /// the logical page: only those subpages cross the channel, at SLC program latency.
    fn start_partial_program(&mut self, die: u32, txn: u32) -> Result<bool, SimError> {
        let (ppn, subpages, request) = {
            let t = &self.txns[txn as usize];
            (t.ppn, t.subpages, t.request)
        };
        self.ftl.partial_program(ppn, subpages);
        let lpn = self.txns[txn as usize].lpn;
        self.ftl.oob_partial_program(lpn, ppn);
        self.txns[txn as usize].version = self.ftl.tag_write(lpn, ppn);
        self.count_program(0, true, true);
        let r = &mut self.requests[request as usize];
        r.dominant_type = r.dominant_type.max(0);
        let bytes = subpages as u64 * self.timing.page_size_bytes / self.ftl.subpages_per_page as u64;
        let mut cmd = std::mem::take(&mut self.dies[die as usize].command);
        cmd.txns.clear();
        cmd.txns.push(txn);
        cmd.steps = [Some(Step::ChannelIn(bytes)), Some(Step::Array(self.timing.slc_program_ns)), None, None];
        cmd.next = 0;
        self.dies[die as usize].command = cmd;
        self.dies[die as usize].busy = true;
        self.advance_command(die)?;
        Ok(true)
    }

    /// Maps a user write to its page and records its page type on the request.
    fn bind_write(&mut self, txn: u32, ppn: Ppn, page_type: u8, slc: bool) {
        let t = &mut self.txns[txn as usize];
        t.ppn = ppn;
        t.page_type = page_type;
        t.slc = slc;
        let (lpn, request, subpages, acked) = (t.lpn, t.request, t.subpages, t.acked);
        if slc {
            self.ftl.mark_programmed(ppn, subpages);
        }
        let old = self.ftl.lookup(lpn);
        if let Some(old) = old {
            self.ftl.pin(old);
        }
        self.txns[txn as usize].from = old.unwrap_or(NO_PAGE);
        self.ftl.commit_write(lpn, ppn);
        if let Some(old) = old {
            self.note_invalidated(old);
        }
        self.txns[txn as usize].version = self.ftl.tag_write(lpn, ppn);
        self.count_program(page_type, slc, true);
        if self.hybrid.is_some() {
            self.hybrid_started(txn, slc);
        }
        // An acknowledged write's request slot may already serve another request.
        if !acked {
            let r = &mut self.requests[request as usize];
            r.dominant_type = r.dominant_type.max(page_type as i32);
        }
    }

    /// One-shot (SPA §II-A): a plane's buffered writes are programmed as one page set
    /// when a full set is gathered or the oldest has waited the program delay.
    fn start_one_shot(&mut self, die: u32) -> Result<bool, SimError> {
        let bits = self.ftl.bits_per_cell;
        let delay = self.timing.program_delay_ns;
        let mut oldest_wait = u64::MAX;
        for plane in self.die_planes(die) {
            // SLC-mode blocks program page by page: the plane's first write bound for SLC
            // goes alone. The others wait in DRAM for a page set of normal blocks.
            let slc_room = self.ftl.slc_blocks[plane as usize] > 0 && self.ftl.slc_room(plane) > 0;
            let to_slc = |t: &Txn| slc_room && t.mode != WriteMode::Tlc;
            let mut count = 0;
            let mut oldest = u64::MAX;
            let mut slc_first = None;
            for (i, &t) in self.dies[die as usize].writes.iter().enumerate() {
                let txn = &self.txns[t as usize];
                if txn.plane != plane {
                    continue;
                }
                if to_slc(txn) {
                    slc_first = slc_first.or(Some(i));
                } else {
                    count += 1;
                    oldest = oldest.min(txn.enqueued_ns);
                }
            }
            let slc_next = slc_first.is_some();
            if !slc_next && (count == 0 || !self.ftl.can_allocate_normal(plane)) {
                continue;
            }
            let due = oldest.saturating_add(delay);
            // A set fills the rest of the write point's wordline: less than a whole one
            // when the write point was left inside a wordline (preconditioning and reads of
            // never-written pages place single pages), and never more than the plane has.
            let set = if slc_next { 1 } else { self.ftl.user_page_set(plane) as usize };
            debug_assert!(set > 0, "a plane that can take a user write has room for a set");
            if count >= set || self.now >= due || slc_next {
                let take = if slc_next { 1 } else { count.min(set) };
                let mut cmd = std::mem::take(&mut self.dies[die as usize].command);
                cmd.txns.clear();
                if let Some(i) = slc_first {
                    let t = self.dies[die as usize].writes.remove(i).expect("index in range");
                    cmd.txns.push(t);
                }
                let mut i = 0;
                while cmd.txns.len() < take {
                    let t = self.dies[die as usize].writes[i];
                    let txn = &self.txns[t as usize];
                    if txn.plane == plane && !to_slc(txn) {
                        cmd.txns.push(t);
                        self.dies[die as usize].writes.remove(i);
                    } else {
                        i += 1;
                    }
                }
                let mut last = NO_PAGE;
                let mut program = 0;
                let summaries = self.ftl.counters.summary_programs;
                for k in 0..cmd.txns.len() {
                    let t = cmd.txns[k];
                    let a = if slc_next {
                        self.ftl.allocate_user(plane, self.now)
                    } else {
                        self.ftl.allocate_normal(plane, self.now)
                    };
                    let a = a.expect("room was checked");
                    program = program.max(self.program_ns(a.page_type, a.slc));
                    last = a.ppn;
                    self.bind_write(t, a.ppn, a.page_type, a.slc);
                }
                if !slc_next && cmd.txns.len() < bits && self.ftl.wordline_has_room(last) {
                    if let Some(h) = self.hybrid.as_mut() {
                        h.partial_page_sets += 1;
                    }
                }
                if !slc_next && cmd.txns.len() < bits {
                    self.ftl.skip_rest_of_wordline(last);
                }
                program += self.summary_ns(summaries);
                let pages = cmd.txns.len() as u32;
                cmd.steps = [
                    Some(Step::ChannelIn(pages as u64 * self.timing.page_size_bytes)),
                    Some(Step::Array(program)),
                    None,
                    None,
                ];
                cmd.next = 0;
                self.dies[die as usize].command = cmd;
                self.dies[die as usize].busy = true;
                self.advance_command(die)?;
                return Ok(true);
            }
            oldest_wait = oldest_wait.min(due);
        }
        if oldest_wait != u64::MAX && !self.dies[die as usize].delay_pending {
            self.dies[die as usize].delay_pending = true;
            self.push(oldest_wait, Event::ProgramDelay { die });
        }
        Ok(false)
    }

    /// Tells the occupancy checker which step the die runs next (and, for a new command,
    /// what the command is).
    fn check_step(&mut self, die: u32) {
        let d = &self.dies[die as usize];
        let index = d.command.next;
        let now = self.now;
        let channel = self.ftl.addr.channel_of_die(die);
        if index == 0 {
            let a = &self.ftl.addr;
            let steps: Vec<occupancy::StepDesc> = d
                .command
                .steps
                .iter()
                .map_while(|s| {
                    s.map(|s| match s {
                        Step::Array(ns) => occupancy::StepDesc::Array(ns),
                        Step::ChannelOut(b) => occupancy::StepDesc::Out(b),
                        Step::ChannelIn(b) => occupancy::StepDesc::In(b),
                    })
                })
                .collect();
            let txns: Vec<(u32, u32, (u32, u32))> = d
                .command
                .txns
                .iter()
                .map(|&t| {
                    let txn = &self.txns[t as usize];
                    match txn.kind {
                        TxnKind::Erase => (t, txn.plane, (a.block_in_plane(txn.ppn), 0)),
                        _ => {
                            // A page read out for another plane is sensed in its source plane.
                            let ppn = if txn.kind == TxnKind::MigrateRead { txn.from } else { txn.ppn };
                            (t, a.plane_of(ppn), (a.block_in_plane(a.block_of(ppn)), a.page_in_block(ppn)))
                        }
                    }
                })
                .collect();
            let kind = match d.command.txns.first().map(|&t| self.txns[t as usize].kind) {
                Some(TxnKind::Read | TxnKind::UpdateRead) => occupancy::CommandKind::Read,
                Some(TxnKind::Write) => occupancy::CommandKind::Program,
                Some(TxnKind::PartialProgram) => occupancy::CommandKind::PartialProgram,
                Some(TxnKind::MigrateRead) => occupancy::CommandKind::MigrateRead,
                Some(TxnKind::Erase) => occupancy::CommandKind::Erase,
                Some(TxnKind::GcMove) | None => occupancy::CommandKind::GcMove,
            };
            let desc = occupancy::CommandDesc {
                kind,
                steps: &steps,
                txns: &txns,
                planes: self.die_planes(die),
                any_address: false,
            };
            let o = self.occupancy.as_mut().expect("checking is on");
            let check = o.command_started(die, now, &desc);
            o.note(check);
        }
        let o = self.occupancy.as_mut().expect("checking is on");
        let check = o.step(die, index, now, channel);
        o.note(check);
    }

    /// Runs the current command's next step, or completes the command.
    fn advance_command(&mut self, die: u32) -> Result<(), SimError> {
        if self.occupancy.is_some() {
            self.check_step(die);
        }
        let d = &mut self.dies[die as usize];
        let step = if d.command.next < 4 { d.command.steps[d.command.next] } else { None };
        d.command.next += 1;
        match step {
            Some(Step::Array(ns)) => {
                self.push(self.now + ns, Event::DieDone { die });
            }
            Some(Step::ChannelOut(_)) | Some(Step::ChannelIn(_)) => {
                let channel = self.ftl.addr.channel_of_die(die);
                let ch = &mut self.channels[channel as usize];
                if ch.holder.is_some() {
                    ch.waiting.push_back(die);
                } else {
                    self.start_transfer(channel, die);
                }
            }
            None => self.complete_command(die)?,
        }
        Ok(())
    }

    fn start_transfer(&mut self, channel: u32, die: u32) {
        let d = &self.dies[die as usize];
        let bytes = match d.command.steps[d.command.next - 1] {
            Some(Step::ChannelOut(bytes)) | Some(Step::ChannelIn(bytes)) => bytes,
            _ => unreachable!("transfer step expected"),
        };
        self.channels[channel as usize].holder = Some(die);
        self.energy.transfer += self.timing.transfer_nj_per_byte * bytes as f64;
        let ns = self.timing.transfer_bytes_ns(bytes);
        if let Some(o) = self.occupancy.as_mut() {
            let check = o.transfer_started(channel, die, self.now, ns);
            o.note(check);
        }
        self.push(self.now + ns, Event::ChannelDone { channel });
    }

    fn on_channel_done(&mut self, channel: u32) -> Result<(), SimError> {
        if let Some(o) = self.occupancy.as_mut() {
            let check = o.transfer_ended(channel, self.now);
            o.note(check);
        }
        let ch = &mut self.channels[channel as usize];
        let holder = ch.holder.take().expect("channel holder");
        if let Some(next) = ch.waiting.pop_front() {
            self.start_transfer(channel, next);
        }
        self.advance_command(holder)
    }

    fn complete_command(&mut self, die: u32) -> Result<(), SimError> {
        let cmd = std::mem::take(&mut self.dies[die as usize].command);
        self.dies[die as usize].busy = false;
        // (Decided before completing: a completion can start commands that reuse the slots.)
        let migrated_out = cmd.txns.first().is_some_and(|&t| self.txns[t as usize].kind == TxnKind::MigrateRead);
        for &t in &cmd.txns {
            let txn = self.txns[t as usize];
            match txn.kind {
                TxnKind::Read | TxnKind::UpdateRead if self.timing.ecc_decode_ns > 0 => {
                    self.push(self.now + self.timing.ecc_decode_ns, Event::Decoded { txn: t });
                }
                _ => self.complete_txn(t)?,
            }
        }
        // Pages read out for another plane go on to their destination die (which may be
        // this one: a plane wholly in SLC mode beside a TLC plane of the same die).
        if migrated_out {
            self.forward_migration(&cmd.txns)?;
        }
        // Completing a transaction can start the next command on this very die (an
        // update read queues its write); only an idle die gets the old buffer back.
        if self.dies[die as usize].busy {
            return Ok(());
        }
        let mut cmd = cmd;
        cmd.txns.clear();
        self.dies[die as usize].command = cmd;
        self.schedule_die(die)
    }

    fn complete_txn(&mut self, t: u32) -> Result<(), SimError> {
        let txn = self.txns[t as usize];
        if txn.kind == TxnKind::MigrateRead {
            // Not freed: the destination die programs it (`forward_migration`).
            return Ok(());
        }
        if let Some(o) = self.occupancy.as_mut() {
            let decoded = matches!(txn.kind, TxnKind::Read | TxnKind::UpdateRead) && self.timing.ecc_decode_ns > 0;
            let check = o.txn_completed(t, self.now, decoded);
            o.note(check);
        }
        self.free_txns.push(t);
        match txn.kind {
            TxnKind::Write => {
                self.buffered_write_pages -= 1;
                if self.hybrid.is_some() {
                    self.hybrid_completed(txn.plane)?;
                }
                self.ftl.acknowledge(txn.lpn, txn.version);
                self.release_superseded(txn.from)?;
                if self.config.power.write_acknowledge == WriteAcknowledge::Buffer {
                    return self.buffered_write_programmed(t, txn.acked, txn.request);
                }
                self.finish_sub_request(txn.request)
            }
            TxnKind::PartialProgram => {
                self.ftl.partial_program_done(txn.ppn);
                self.ftl.acknowledge(txn.lpn, txn.version);
                self.finish_sub_request(txn.request)
            }
            TxnKind::Read => self.finish_sub_request(txn.request),
            TxnKind::UpdateRead => {
                self.flash_counters.update_reads += 1;
                let die = self.enqueue_write(txn.request, txn.lpn, 0)?;
                self.kick(die)
            }
            TxnKind::GcMove | TxnKind::Erase => Ok(()),
            TxnKind::MigrateRead => unreachable!("handled above"),
        }
    }

    /// A user write is programmed: the copy it superseded may now be erased by GC.
    fn release_superseded(&mut self, old: Ppn) -> Result<(), SimError> {
        if old == NO_PAGE || self.ftl.pinned.is_empty() {
            return Ok(());
        }
        self.ftl.unpin(old);
        // GC of that block may be waiting for exactly this.
        let die = self.ftl.addr.die_of_plane(self.ftl.addr.plane_of(old));
        self.kick(die)
    }

    /// DRAM-buffer acknowledgement: a buffered page was programmed, so its buffer slot
    /// frees and the oldest write waiting for one is acknowledged.
    /// (`txn` is already freed: its slot may have been reused, so the caller passes what
    /// is needed.)
    fn buffered_write_programmed(&mut self, txn: u32, acked: bool, request: u32) -> Result<(), SimError> {
        if !acked {
            // Still waiting for a slot when its own program finished (it never held
            // one): done now.
            if let Some(i) = self.ack_waiting.iter().position(|&w| w == txn) {
                self.ack_waiting.remove(i);
            }
            return self.finish_sub_request(request);
        }
        match self.ack_waiting.pop_front() {
            Some(next) => self.acknowledge_buffered(next),
            None => Ok(()),
        }
    }

    fn check_now(&self) -> Result<(), SimError> {
        self.ftl.check_invariants().map_err(|message| SimError::Invariant { time_ns: self.now, message })?;
        self.verify_now("check point")
    }

    fn verify_now(&self, context: &str) -> Result<(), SimError> {
        if !self.verify {
            return Ok(());
        }
        self.ftl.verify_data(context).map_err(|message| SimError::Integrity { time_ns: self.now, message })
    }

    // ----------------------------------------------------------------- report

    fn finish(&mut self) -> (Report, Vec<SeriesRow>) {
        if self.config.output.series_interval_ns > 0 && (self.series_acc.reads + self.series_acc.writes) > 0 {
            self.flush_series_row();
        }
        let start = self.total.first_arrival_ns.unwrap_or(0);
        let interval = self.total.last_completion_ns.saturating_sub(start);
        let addr = &self.ftl.addr;
        let writes_total = self.total.writes.count.max(1);
        let bits = self.ftl.bits_per_cell;
        let erase_counts: Vec<u32> = self.ftl.blocks.iter().map(|b| b.erase_count).collect();
        let erase_summary = erase_summary(&erase_counts);
        let f = &self.flash_counters;
        let waf =
            if f.user_programs == 0 { 0.0 } else { (f.user_programs + f.gc_programs) as f64 / f.user_programs as f64 };
        let chips = addr.chips() as f64;
        self.energy.idle = self.config.energy.idle_power_mw_per_chip * chips * interval as f64 / 1e3;
        self.energy.total =
            self.energy.read + self.energy.program + self.energy.erase + self.energy.transfer + self.energy.idle;
        self.energy.per_request = self.energy.total / self.total.all.count.max(1) as f64;
        let runs = self
            .per_run
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let interval = r.last_completion_ns.saturating_sub(r.first_arrival_ns.unwrap_or(0));
                RunSummary {
                    run: i as u32,
                    interval_ns: interval,
                    read: r.reads.summary(interval),
                    write: r.writes.summary(interval),
                }
            })
            .collect();
        let config_text = toml::to_string(&self.config).unwrap_or_default();
        let report = Report {
            schema_version: 1,
            ssdlab_version: env!("CARGO_PKG_VERSION").to_string(),
            seed: self.config.seed,
            config_hash: format!("{:016x}", fnv1a(config_text.as_bytes())),
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
            },
            host: HostSummary {
                requests: self.next_request_id,
                sub_requests: self.host_counters.sub_requests,
                unwritten_reads: self.host_counters.unwritten_reads,
                unwritten_pages_preplaced: self.precondition_report.footprint_pages,
                unwritten_read_policy: kebab(&self.config.host.unwritten_reads),
                address_remapped: self.host_counters.address_remapped,
                address_policy: kebab(&self.config.host.address_overflow),
                unaligned: self.host_counters.unaligned,
                out_of_order: self.host_counters.out_of_order,
                skipped_records: self.skipped_total,
                runs: self.run + 1,
                replay: kebab(&self.config.host.replay),
            },
            simulated_ns: interval,
            read: self.total.reads.summary(interval),
            write: self.total.writes.summary(interval),
            trim: self.total.trims.summary(interval),
            all: self.total.all.summary(interval),
            dominated_write_share: (0..bits)
                .map(|t| self.total.dominated_writes[t] as f64 / writes_total as f64)
                .collect(),
            waf,
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
                read_retries: 0,
                uncorrectable_reads: 0,
            },
            energy_nj: self.energy.clone(),
            precondition: self.precondition_report.clone(),
            start_state: self.start_state.clone(),
            warnings: self.warnings(),
            runs,
            pa: self.pa.as_ref().map(|p| PaSummary {
                scheme: self.config.pa.scheme.clone(),
                assigned_by_type: p.assigned.clone(),
                typed_allocations: self.pa_typed_allocations,
                type_matched: self.pa_typed_successes,
                success_rate: self.pa_typed_successes as f64 / self.pa_typed_allocations.max(1) as f64,
                unprogrammed_pages_reclaimed: self.ftl.counters.unprogrammed_reclaimed,
            }),
            burst: (self.config.host.replay == ReplayMode::Burst).then(|| {
                let b = &self.burst;
                BurstSummary {
                    bursts: b.count,
                    gap_threshold_ns: self.config.host.burst_gap_ns,
                    mean_bandwidth_mib_s: b.bandwidth_sum / b.count.max(1) as f64,
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
            hybrid: self.hybrid_summary(),
            events: self.events_processed,
        };
        (report, std::mem::take(&mut self.series))
    }
}

/// Where a request lands on the logical space (`host.address_overflow`), and whether it
/// was remapped.
fn map_offset(
    config: &Config,
    logical_bytes: u64,
    page: u64,
    id: u64,
    record: &Record,
) -> Result<(u64, bool), SimError> {
    // No address policy can make a request larger than the drive fit.
    if record.size_bytes > logical_bytes {
        return Err(SimError::Request {
            id,
            op: record.op.name(),
            offset: record.offset_bytes,
            message: format!(
                "is {} bytes, larger than the logical capacity of {} bytes",
                record.size_bytes, logical_bytes
            ),
        });
    }
    let end = record.offset_bytes.saturating_add(record.size_bytes.max(1));
    if end <= logical_bytes {
        return Ok((record.offset_bytes, false));
    }
    match config.host.address_overflow {
        // Page numbers wrap modulo the logical capacity in `submit`.
        AddressOverflow::Modulo => Ok((record.offset_bytes % logical_bytes, true)),
        AddressOverflow::Scale => {
            let span = config.host.trace_span_bytes.max(end) as u128;
            let scaled = record.offset_bytes as u128 * logical_bytes as u128 / span;
            let scaled = (scaled as u64 / page * page).min(logical_bytes.saturating_sub(record.size_bytes));
            Ok((scaled, true))
        }
        AddressOverflow::Error => Err(SimError::Request {
            id,
            op: record.op.name(),
            offset: record.offset_bytes,
            message: format!(
                "ends at byte {end}, beyond the logical capacity of {} bytes (host.address_overflow = \"error\")",
                logical_bytes
            ),
        }),
    }
}

/// The pre-pass: opens the workload once more and records the logical pages it reads
/// before writing them (with `host.unwritten_reads = "precondition"`) and, for
/// steady-state preconditioning, its write stream. The pre-pass stops quietly at a record
/// the run itself would stop at (a trace error, `address_overflow = "error"`): the run
/// reports it there.
fn workload_footprint(
    config: &Config,
    ftl: &Ftl,
    factory: &mut SourceFactory<'_>,
) -> Result<WorkloadFootprint, SimError> {
    let mut footprint = WorkloadFootprint::default();
    let reads = config.host.unwritten_reads == WhatIfUnwritten::Precondition;
    let steady = config.precondition.steady_state;
    if !reads && !steady {
        return Ok(footprint);
    }
    let logical = ftl.logical_pages as u64;
    let page = ftl.addr.page_size_bytes as u64;
    let logical_bytes = logical * page;
    // One bit per logical page: seen (written or read) before.
    let mut seen = vec![0u64; (logical as usize).div_ceil(64)];
    let source = factory()?;
    for (id, record) in source.enumerate() {
        let Ok(record) = record else { break };
        if record.size_bytes > logical_bytes {
            break;
        }
        let Ok((offset, _)) = map_offset(config, logical_bytes, page, id as u64, &record) else { break };
        let first = offset / page;
        let last = (offset + record.size_bytes.max(1) - 1) / page;
        for p in first..=last {
            let lpn = (p % logical) as u32;
            match record.op {
                Op::Write if steady => footprint.writes.push(PageOp::Write(lpn)),
                Op::Trim if steady => footprint.writes.push(PageOp::Trim(lpn)),
                _ => {}
            }
            let (word, bit) = (lpn as usize / 64, 1u64 << (lpn % 64));
            if seen[word] & bit != 0 {
                continue;
            }
            seen[word] |= bit;
            if reads && record.op == Op::Read {
                footprint.read_before_written.push(lpn);
            }
        }
    }
    footprint.read_before_written.sort_unstable();
    Ok(footprint)
}

impl Simulator<'_> {
    /// Warnings for the report: GC in a run without host writes.
    fn warnings(&self) -> Vec<String> {
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
        warnings
    }
}

fn kebab<T: serde::Serialize>(value: &T) -> String {
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

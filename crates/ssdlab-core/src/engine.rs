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

mod accounting;
mod at_service;
mod bypass;
mod cache;
mod channel_gate;
mod chip_queue;
mod cmt;
mod codewords;
mod cold;
mod command;
mod errors;
mod flows;
mod host;
mod link;
pub(crate) mod lpn_hash;
mod lru;
mod maintenance;
pub mod occupancy;
mod partial;
mod pending;
mod power;
pub(crate) mod priority;
mod queue;
#[cfg(test)]
mod queue_tests;
mod reads;
mod report;
mod reprogram;
mod reroute;
mod scheduler;

pub(crate) use accounting::ProgramOf;
pub(crate) use queue::{EventQueue, Scheduled};
pub(crate) use report::kebab;

use crate::config::{
    AddressOverflow, Config, DieScheduling, Mapping, PartialPageWrites, PlaneAllocation, QueueKind, ReplayMode,
    WhatIfUnwritten, WriteAcknowledge,
};
use crate::designs::{Designs, Hook, MoveTarget};
use crate::flash::{Ppn, Timing, NO_PAGE};
use crate::ftl::allocation::PlaneAllocator;
use crate::ftl::precondition::{PageOp, PreconditionReport, WorkloadFootprint};
use crate::ftl::{Ftl, GcNeed, GcStep, WriteMode};
use crate::stats::*;
use ssdlab_trace::{Op, Record, RecordSource, TraceError};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

pub(crate) const NO_REQUEST: u32 = u32::MAX;
pub(crate) const NO_TYPE: u8 = u8::MAX;
/// How far into a die's queue the scheduler looks for multi-plane partners.
pub(crate) const MULTI_PLANE_SCAN: usize = 64;
/// Records the host reads ahead of the one it submits (see `read_ahead`).
pub(crate) const READ_AHEAD: usize = 64;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Event {
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
    /// The controller's DRAM channel finished its oldest transfer (`cache.rs`).
    DramDone,
    /// The oldest request crossing the host link reached the device (`link.rs`).
    LinkIn,
    /// Dies given mapping I/O while a command was being built start now (`cmt.rs`).
    CmtKick,
    /// A flow's next record is due, or its queue has room (`flows.rs`).
    FlowArrival { flow: u16 },
    /// A timer design `slot` scheduled (`Simulator::schedule_design_timer`), with its tag.
    Design { slot: u8, tag: u8 },
    /// A design failed (`Simulator::fail_design`): the run ends with its error.
    DesignFailed,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TxnKind {
    Read,
    /// Read of the old page before a partial-page write (read-modify-write).
    UpdateRead,
    /// Partial program of new subpages into the SLC-mode page holding the old data.
    PartialProgram,
    /// A whole-page user write programmed in place into the page holding the old data,
    /// after reading it (`reprogram.rs`).
    Reprogram,
    Write,
    GcMove,
    /// A GC move to another plane: pages read out of their plane, on their way to the
    /// destination plane's die (then a `GcMove` there).
    MoveOut,
    Erase,
    /// A stale page programmed to all zeros in place (a scrub, `maintenance.rs`). Its
    /// `lpn` carries the tag of the design that started it.
    Scrub,
    /// A read of a block's summary page or of its pages' out-of-band areas (a scan,
    /// `maintenance.rs`). Its `lpn` carries the tag of the design that started it.
    ScanRead,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Txn {
    pub(crate) kind: TxnKind,
    pub(crate) request: u32,
    pub(crate) lpn: u32,
    /// Reads: the page to read. Writes/moves: the page programmed. Erase: block number.
    pub(crate) ppn: Ppn,
    /// GC move: source page. User write: the copy it supersedes (NO_PAGE if none).
    pub(crate) from: Ppn,
    pub(crate) plane: u32,
    pub(crate) page_type: u8,
    pub(crate) slc: bool,
    /// Subpages a partial-page write covers (0 = the whole page).
    pub(crate) subpages: u8,
    /// Mapping units (`ftl.mapping`) it concerns: a write places units `unit..unit +
    /// units` of its logical page; a read senses the page holding unit `unit`.
    pub(crate) unit: u8,
    pub(crate) units: u8,
    /// Page type the write asks for (a design's choice); NO_TYPE when allocation is
    /// type-blind.
    pub(crate) want: u8,
    /// Data version a user write carries (`--verify`).
    pub(crate) version: u32,
    pub(crate) enqueued_ns: u64,
    /// Cleaning (GC) time its die had finished when it was queued, not counting the part
    /// of a GC command already done then (`priority.rs`: the flash service time).
    pub(crate) cleaning_seen_ns: u64,
    /// The host was told this write completed before it was programmed (DRAM buffer).
    pub(crate) acked: bool,
    /// The write stream (blocks) the design placing the write meant it for.
    pub(crate) mode: WriteMode,
    /// Reads: soft-sensing retries it took, and its final decode time (`errors.rs`).
    pub(crate) retries: u8,
    pub(crate) decode_ns: u32,
    /// 512-byte sectors that cross the channel (0 = the page): the sectors the host
    /// asked for with `flash.transfer_requested_bytes`, a translation-page read's
    /// `cmt.read_bytes`.
    pub(crate) sectors: u16,
}

/// One step of a command. A command is any sequence of them: a read is sense + transfer
/// out (+ per retry: the failed decode, a soft sense and another transfer out), a
/// program transfer in + program, a copyback sense + program, an erase one array step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// The die is busy for this long (sense, program, erase, or a decode it waits for).
    Array(u64),
    /// Bytes moved from the die to the controller.
    ChannelOut(u64),
    /// Bytes moved from the controller to the die.
    ChannelIn(u64),
}

/// The command a die is executing: its transactions and its steps (`next` is the index
/// of the step to run next). The buffers are reused from command to command.
#[derive(Clone, Debug, Default)]
pub(crate) struct Command {
    pub(crate) txns: Vec<u32>,
    pub(crate) steps: Vec<Step>,
    pub(crate) next: usize,
}

impl Command {
    /// Replaces the steps and starts from the first.
    pub(crate) fn set_steps(&mut self, steps: &[Step]) {
        self.steps.clear();
        self.steps.extend_from_slice(steps);
        self.next = 0;
    }
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Die {
    pub(crate) reads: VecDeque<u32>,
    pub(crate) writes: VecDeque<u32>,
    pub(crate) busy: bool,
    pub(crate) command: Command,
    pub(crate) last_user_ns: u64,
    pub(crate) gc_idle_pending: bool,
    pub(crate) delay_pending: bool,
    /// The die went idle because a plane needing GC had nothing worth cleaning; only an
    /// invalidation from elsewhere (another die's write, a trim) can change that, so it
    /// wakes the die (`Event::Wake`, pending while `wake_pending`).
    pub(crate) gc_starved: bool,
    pub(crate) wake_pending: bool,
}

impl Die {
    /// Queued work and the command under way: how busy the allocators see the die.
    pub(crate) fn load(&self) -> usize {
        self.reads.len() + self.writes.len() + usize::from(self.busy)
    }
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Channel {
    /// Die whose transfer is on the bus (NO_REQUEST = idle).
    pub(crate) holder: Option<u32>,
    pub(crate) waiting: VecDeque<u32>,
    /// The chip offered the channel first when it goes idle (`flash.issue_on_idle_channel`).
    pub(crate) turn: u32,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Request {
    pub(crate) id: u64,
    pub(crate) arrival_ns: u64,
    pub(crate) offset_bytes: u64,
    pub(crate) size_bytes: u64,
    pub(crate) op: Op,
    pub(crate) pending: u32,
    pub(crate) pages: u32,
    pub(crate) dominant_type: i32,
    pub(crate) run: u32,
    /// Soft-sensing retries of its page reads so far.
    pub(crate) retries: u32,
    /// Page type a design assigned to the request's writes (NO_TYPE without one).
    pub(crate) want: u8,
    /// The host flow it came from (`flows::NO_FLOW` for the single workload).
    pub(crate) flow: u16,
    /// High priority (the thesis' priority bit), and whether it arrived on battery power.
    pub(crate) high: bool,
    pub(crate) battery: bool,
    /// Flash service time so far: the longest of its pages' own commands plus the GC it
    /// waited for (`priority.rs`; 0 until a page of it completes on flash).
    pub(crate) service_ns: u64,
    /// The NVMe status it completes with (0: success); a failed command counts in no
    /// latency statistics (a zoned drive's protocol violations, `designs/zns`).
    pub(crate) status: u16,
}

/// One run of a multi-run replay: its accumulators (latency histograms, about 1.2 MB)
/// while requests of it may still complete, then only the summary the report shows, so
/// memory does not grow with the number of runs.
pub(crate) enum RunSlot {
    /// The run being replayed, or an earlier one with requests still in the device.
    Open {
        stats: Box<RunStats>,
        outstanding: u64,
    },
    Closed(RunSummary),
}

impl RunSlot {
    pub(crate) fn open(bits: usize) -> RunSlot {
        RunSlot::Open {
            stats: Box::new(RunStats { dominated_writes: vec![0; bits], ..RunStats::default() }),
            outstanding: 0,
        }
    }
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
    /// A design failed (`Simulator::fail_design`): an exception in a design written in
    /// Python, an answer out of range.
    #[error("design {design} failed at {time_ns} ns: {message}")]
    Design { time_ns: u64, design: String, message: String },
}

/// Optional observers of a run: progress, per-request records and time-series rows. The
/// core does no I/O itself; the CLI passes closures that do.
#[derive(Default)]
pub struct Observers<'a> {
    /// Called every `progress_every` completed requests with (completed, simulated ns).
    pub progress: Option<ProgressObserver<'a>>,
    pub progress_every: u64,
    pub requests: Option<RequestObserver<'a>>,
    /// Called with each time-series row as soon as it is complete (in time order, idle
    /// gaps folded into one row). With it set the run keeps no rows: `run` returns none.
    pub series: Option<SeriesObserver<'a>>,
}

pub type ProgressObserver<'a> = Box<dyn FnMut(u64, u64) + 'a>;
pub type RequestObserver<'a> = Box<dyn FnMut(&RequestRecord) + 'a>;
pub type SeriesObserver<'a> = Box<dyn FnMut(&SeriesRow) + 'a>;

pub struct Simulator<'a> {
    pub(crate) config: Config,
    pub(crate) timing: Timing,
    pub ftl: Ftl,
    pub(crate) planes_alloc: PlaneAllocator,
    pub(crate) now: u64,
    pub(crate) seq: u64,
    pub(crate) events: EventQueue,
    pub(crate) txns: Vec<Txn>,
    pub(crate) free_txns: Vec<u32>,
    pub(crate) requests: Vec<Request>,
    pub(crate) free_requests: Vec<u32>,
    pub(crate) dies: Vec<Die>,
    /// Command buffers not in use (`complete_command`).
    pub(crate) spare_commands: Vec<Command>,
    pub(crate) channels: Vec<Channel>,
    // Host
    pub(crate) factory: SourceFactory<'a>,
    pub(crate) source: Option<Box<dyn RecordSource>>,
    pub(crate) pending_record: Option<Record>,
    /// Records (or errors) already read from `source`, in order, and whether the source
    /// has ended (or failed) after them.
    pub(crate) read_ahead: VecDeque<Result<Record, TraceError>>,
    pub(crate) source_ended: bool,
    pub(crate) host_waiting: VecDeque<(Record, u64)>,
    pub(crate) skipped_total: u64,
    /// `skipped_total` by reason.
    pub(crate) skipped_by_reason: crate::stats::SkippedByReason,
    pub(crate) run: u32,
    pub(crate) run_offset_ns: u64,
    pub(crate) trace_base_ns: Option<u64>,
    pub(crate) last_trace_ns: u64,
    pub(crate) first_trace_ns: u64,
    /// The workload's earliest arrival stamp (from the pre-pass; `None` without one).
    pub(crate) earliest_trace_ns: Option<u64>,
    pub(crate) trace_records_in_run: u64,
    pub(crate) outstanding: u64,
    pub(crate) next_request_id: u64,
    pub(crate) host_done: bool,
    pub(crate) workload_name: String,
    // Stats
    pub(crate) total: RunStats,
    pub(crate) per_run: Vec<RunSlot>,
    pub(crate) series: Vec<SeriesRow>,
    pub(crate) series_acc: SeriesAccumulator,
    pub(crate) host_counters: HostCounters,
    pub(crate) flash_counters: FlashCounters,
    pub(crate) energy: EnergySummary,
    pub(crate) events_processed: u64,
    /// The run fails once it has processed more events than this (`set_event_budget`).
    pub(crate) event_budget: u64,
    /// Set from outside (Ctrl-C): the run stops after the event in progress.
    pub(crate) stop: Option<Arc<AtomicBool>>,
    pub(crate) gc_emergency_steps: u64,
    pub(crate) gc_background_steps: u64,
    pub(crate) gc_rerouted_writes: u64,
    /// Dies with stuck writes that found no plane with room (see `reroute_stuck_writes`).
    pub(crate) waiting_for_room: Vec<u32>,
    pub(crate) room_event_pending: bool,
    pub(crate) precondition_report: PreconditionReport,
    /// The drive's state when the run started (after preconditioning).
    pub(crate) start_state: StartState,
    pub(crate) check: bool,
    pub(crate) completed_since_check: u64,
    pub(crate) observers: Observers<'a>,
    pub(crate) priority: Vec<QueueKind>,
    pub(crate) logical_bytes: u64,
    pub(crate) burst: BurstState,
    pub(crate) verify: bool,
    /// User write pages waiting in DRAM to be programmed (a design may read it).
    pub(crate) buffered_write_pages: u64,
    /// Dies that received sub-requests of the request being submitted; they are started
    /// only after the whole request is queued so its pages can share multi-plane commands.
    pub(crate) kick_list: Vec<u32>,
    /// `ftl.plane_allocation = "at-service"`: user writes waiting unbound (at_service.rs).
    pub(crate) at_service: Option<at_service::AtService>,
    /// DRAM-buffer acknowledgement: buffered writes not yet acknowledged because the
    /// buffer was full when they arrived, oldest first.
    pub(crate) ack_waiting: VecDeque<u32>,
    /// When the drive serves requests again after the last power loss.
    pub(crate) powered_at_ns: u64,
    /// The latest arrival time of a submitted request (for the arrival-rate warning).
    pub(crate) last_arrival_ns: u64,
    pub(crate) power_loss_records: Vec<crate::stats::PowerLossRecord>,
    /// Writes not yet programmed, by logical page (read-your-writes; `pending.rs`).
    /// Never iterated, so the hash order cannot reach a result.
    pub(crate) pending_writes: lpn_hash::LpnMap<pending::PendingWrites>,
    /// The active designs (`crate::designs`): their states; the engine calls them through
    /// the hook dispatchers.
    pub(crate) designs: Designs,
    /// A design's failure (`fail_design`), which `Event::DesignFailed` turns into the run's
    /// error.
    pub(crate) design_error: Option<(String, String)>,
    /// GC moves to another plane: pages read out of their plane, waiting at the
    /// destination die to be transferred in and programmed, as (txns, count, program ns).
    pub(crate) moves_in: Vec<VecDeque<([u32; 4], u8, u64)>>,
    /// The resource-occupancy checker (with checking on).
    pub(crate) occupancy: Option<Box<occupancy::Occupancy>>,
    /// Pages the request being submitted reads already (unit maps: reads share pages).
    pub(crate) request_pages: Vec<Ppn>,
    /// The codewords of the half-page read command being started (`codewords.rs`).
    pub(crate) codewords: Vec<codewords::Codeword>,
    /// Superseded copies a user write pinned beyond its `Txn::from` (a unit map's write
    /// can supersede units on several pages), by transaction. Never iterated.
    pub(crate) extra_pins: lpn_hash::LpnMap<Vec<Ppn>>,
    /// The config as given (the engine runs on its `device_view`): its hash, physical
    /// pages per super-page, and physical chips (idle power).
    pub(crate) config_hash: String,
    pub(crate) super_page_pages: u32,
    pub(crate) physical_chips: u32,
    /// The error model's stream and statistics (`reliability.enabled`; `errors.rs`).
    pub(crate) errors: Option<Box<errors::ErrorModel>>,
    /// Per chip: dies with a command in flight, since when the chip is busy, and its
    /// busy time so far (idle power is charged only to idle chips).
    pub(crate) chip_busy: Vec<ChipBusy>,
    /// Energy of GC work (its reads, programs, transfers and all erases), nJ.
    pub(crate) energy_gc: f64,
    /// Requests' priority classes and power modes (`[priority]`).
    pub(crate) host_priority: priority::Priority,
    /// The DRAM data cache (`[cache]`; `cache.rs`) and the DRAM channel.
    pub(crate) cache: Option<Box<cache::DataCache>>,
    /// `cache.flush = "ssdsim"`: a write waiting for an evicted page is answered when the
    /// page's data is in the chip (checked at every transfer's end, hence a field).
    pub(crate) cache_answers_at_transfer: bool,
    pub(crate) dram: cache::Dram,
    /// Set while a flush out of the cache queues its flash transactions (`alloc_txn`
    /// marks them: no request waits for them).
    pub(crate) flushing: bool,
    /// During a unit map's flush, the units of the page it writes (all its runs; 0
    /// otherwise): a design that merges a partial write with the page's other units must
    /// not merge units the same flush is writing (their copy on flash is stale).
    pub(crate) flush_units: u32,
    /// `ftl.partial_page_writes = "read-uncovered"`: eighths of each logical page written.
    pub(crate) held_eighths: Vec<u8>,
    /// The host link (`[link]`; `link.rs`).
    pub(crate) link: link::Link,
    /// The cached mapping table (`[cmt]`; `cmt.rs`) and the dies it gave mapping I/O.
    pub(crate) cmt: Option<Box<cmt::Cmt>>,
    /// Read bypassing and write combining (`ftl.read_bypass`, `ftl.write_combining`).
    pub(crate) bypass: Option<Box<bypass::Bypass>>,
    pub(crate) cmt_kicks: Vec<u32>,
    /// Several host flows (`[[flows]]`; `flows.rs`), and the flow whose request is being
    /// submitted.
    pub(crate) flows: Option<Box<flows::Flows>>,
    pub(crate) submitting_flow: u16,
    /// Sectors of the page being split off a request (`Txn::sectors`; 0 = all).
    pub(crate) page_sectors: u16,
}

#[derive(Clone, Copy, Default)]
pub(crate) struct ChipBusy {
    pub(crate) dies_busy: u32,
    pub(crate) since_ns: u64,
    pub(crate) busy_ns: u64,
}

/// Burst replay bookkeeping.
#[derive(Default)]
pub(crate) struct BurstState {
    /// Trace time of the last record issued in this run.
    pub(crate) previous_trace_ns: Option<u64>,
    /// The next burst waits for this burst to complete, then this idle gap.
    pub(crate) pending_gap_ns: Option<u64>,
    pub(crate) start_ns: Option<u64>,
    /// Bytes written / read by this burst's requests.
    pub(crate) bytes: u64,
    pub(crate) read_bytes: u64,
    pub(crate) count: u64,
    /// Bursts that wrote / read anything, and the sums of their bandwidths.
    pub(crate) write_bursts: u64,
    pub(crate) read_bursts: u64,
    pub(crate) read_bandwidth_sum: f64,
    pub(crate) total_bytes: u64,
    pub(crate) total_ns: u64,
    pub(crate) bandwidth_sum: f64,
    pub(crate) idle_ns: u64,
}

#[derive(Default)]
pub(crate) struct HostCounters {
    pub(crate) sub_requests: u64,
    pub(crate) unwritten_reads: u64,
    pub(crate) address_remapped: u64,
    pub(crate) unaligned: u64,
    pub(crate) out_of_order: u64,
    /// Reads served from the write buffer (a write of the page not yet programmed).
    pub(crate) buffer_reads: u64,
    /// Reads of a page whose first write was not yet programmed: they waited for it.
    pub(crate) reads_after_pending_write: u64,
    /// Page reads beyond one per logical page read: the other pages holding units of
    /// an interleaved or packed logical page (`ftl.mapping`).
    pub(crate) extra_page_reads: u64,
    /// Logical pages read from flash (not from the write buffer, not unwritten).
    pub(crate) flash_page_reads_asked: u64,
    /// Simulated time with at least `saturation_limit()` requests outstanding, and when
    /// the outstanding count last changed.
    pub(crate) saturated_ns: u64,
    pub(crate) queue_changed_ns: u64,
}

#[derive(Default)]
pub(crate) struct FlashCounters {
    pub(crate) page_reads: u64,
    pub(crate) user_programs: u64,
    pub(crate) gc_programs: u64,
    pub(crate) programs_by_type: Vec<u64>,
    pub(crate) slc_programs: u64,
    pub(crate) slc_user_programs: u64,
    pub(crate) multi_plane: u64,
    pub(crate) copybacks: u64,
    pub(crate) update_reads: u64,
    /// Soft-sensing retries of page reads (one per retry per page).
    pub(crate) read_retries: u64,
    /// User page reads started (dummy sub-requests included), and those in multi-plane
    /// read commands.
    pub(crate) user_read_pages: u64,
    pub(crate) multi_plane_read_pages: u64,
    /// One-shot page sets programmed with fewer pages than a full set.
    pub(crate) partial_page_sets: u64,
    /// Half-page map: pairs of logical pages interleaved over two pages of a multi-plane
    /// program.
    pub(crate) interleaved_pairs: u64,
    /// Subpage map: page programs carrying more than one write (packed).
    pub(crate) packed_programs: u64,
    /// Unit maps: GC moves that packed the valid units of partly valid pages.
    pub(crate) compactions: u64,
    /// Pages GC moved out of SLC-mode blocks (migration), for the time series.
    pub(crate) slc_gc_moved_pages: u64,
    /// Translation-page programs of a cached mapping table.
    pub(crate) mapping_programs: u64,
    /// Programs a design started on already programmed pages (scrubs).
    pub(crate) in_place_programs: u64,
    /// Bytes the user, GC and translation-page programs wrote (a page each, a partial
    /// program its subpages): the numerator of the byte WAF.
    pub(crate) programmed_bytes: u64,
}

impl<'a> Simulator<'a> {
    /// Builds the device, preconditions it and opens the first run of the workload.
    /// The config must be valid (`Config::validate`).
    pub fn new(config: Config, factory: SourceFactory<'a>, observers: Observers<'a>) -> Result<Self, SimError> {
        Self::new_with_flows(config, factory, Vec::new(), observers)
    }

    /// As [`Simulator::new`], with the sources of `config.flows` (one per flow, in order).
    /// With flows, `factory` gives all their records (any order) for preconditioning's
    /// pre-pass only: the flows replay from their own sources.
    pub fn new_with_flows(
        config: Config,
        mut factory: SourceFactory<'a>,
        flow_sources: Vec<Box<dyn RecordSource>>,
        observers: Observers<'a>,
    ) -> Result<Self, SimError> {
        if flow_sources.len() != config.flows.len() {
            return Err(SimError::Setup(format!(
                "{} flow sources for {} flows in the config",
                flow_sources.len(),
                config.flows.len()
            )));
        }
        if let Err(errors) = config.validate() {
            let text: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
            return Err(SimError::Setup(text.join("; ")));
        }
        // With super-pages the engine manages gangs of dies as dies (`Config::device_view`).
        let config_hash = report::config_hash(&config);
        let super_page_pages = config.super_page_pages();
        let physical_chips = config.geometry.channels * config.geometry.chips_per_channel;
        let (config, lanes) = config.resolved().device_view();
        let timing = Timing::new(&config).with_lanes(lanes);
        let mut ftl = Ftl::new(&config);
        if !config.power.loss_at_ns.is_empty() {
            // Every page, preconditioned ones included, must carry its OOB for recovery.
            ftl.track_oob();
        }
        crate::designs::prepare_ftl(&config, &mut ftl);
        let mut planes_alloc = PlaneAllocator::new(config.ftl.plane_allocation, &config.ftl.allocation_order);
        planes_alloc.balance_for(&ftl.addr, ftl.units_per_page());
        for f in config.flows.iter().filter(|f| f.is_partitioned()) {
            let page = u64::from(config.geometry.page_size_bytes);
            let (first, end) = (f.offset_bytes / page, (f.offset_bytes + f.size_bytes) / page);
            planes_alloc.add_zone(&ftl.addr, first as u32, end as u32, [&f.channels, &f.chips, &f.dies, &f.planes]);
        }
        // A cached mapping table's translation pages are on flash from the start.
        ftl.place_translation_pages(&planes_alloc).map_err(SimError::Setup)?;
        // All placement happens before the run: a pre-pass over the workload (opened once
        // more) finds the pages it reads before writing them, and preconditioning places
        // them with the fill, before calibrating the fill to the GC thresholds.
        let mut footprint = host::workload_footprint(&config, &ftl, &mut factory)?;
        let precondition_report =
            ftl.precondition(&config, &mut planes_alloc, &mut footprint).map_err(SimError::Setup)?;
        let earliest_trace_ns = footprint.earliest_arrival_ns;
        drop(footprint);
        let start_state = ftl.start_state(&config, &precondition_report);
        let designs = Designs::new(&config, &ftl)?;
        let at_service = (config.ftl.plane_allocation == PlaneAllocation::AtService)
            .then(|| at_service::AtService::new(ftl.addr.channels, ftl.addr.chips(), ftl.addr.dies()));
        if at_service.is_some() && (designs.implemented(Hook::PlaceWrite) || designs.implemented(Hook::SplitWrite)) {
            return Err(SimError::Setup(
                "ftl.plane_allocation = \"at-service\" is not modelled with a design that places writes itself".into(),
            ));
        }
        // A zoned drive's host layer turns the application's records into zone commands.
        let mut factory = crate::designs::zns::through_host_layer(&designs, factory);
        let cmt = config.cmt.enabled().then(|| Box::new(cmt::Cmt::new(&config, &ftl)));
        let flows = (!config.flows.is_empty())
            .then(|| Box::new(flows::Flows::new(&config, flow_sources, ftl.addr.dies() as usize)));
        // With flows the single-workload host stays idle.
        let source = if config.flows.is_empty() { Some(factory()?) } else { None };
        let workload_name = source.as_ref().map_or_else(|| "flows".to_string(), |s| s.format_name().to_string());
        let dies = ftl.addr.dies() as usize;
        let planes = ftl.addr.planes();
        let chips = dies / ftl.addr.dies_per_chip.max(1) as usize;
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
            events: EventQueue::new(),
            txns: Vec::with_capacity(4096),
            free_txns: Vec::new(),
            requests: Vec::with_capacity(1024),
            free_requests: Vec::new(),
            dies: dies_vec,
            spare_commands: Vec::new(),
            channels: vec![Channel::default(); channels],
            factory,
            source,
            pending_record: None,
            read_ahead: VecDeque::with_capacity(READ_AHEAD),
            source_ended: false,
            host_waiting: VecDeque::new(),
            skipped_total: 0,
            skipped_by_reason: Default::default(),
            run: 0,
            run_offset_ns: 0,
            trace_base_ns: None,
            last_trace_ns: 0,
            first_trace_ns: 0,
            earliest_trace_ns,
            trace_records_in_run: 0,
            outstanding: 0,
            next_request_id: 0,
            host_done: false,
            workload_name,
            total: RunStats { dominated_writes: vec![0; bits], ..RunStats::default() },
            per_run: vec![RunSlot::open(bits)],
            series: Vec::new(),
            series_acc: SeriesAccumulator::default(),
            host_counters: HostCounters::default(),
            flash_counters: FlashCounters { programs_by_type: vec![0; bits], ..FlashCounters::default() },
            energy: EnergySummary::default(),
            events_processed: 0,
            event_budget: u64::MAX,
            stop: None,
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
            at_service,
            burst: BurstState::default(),
            verify: false,
            buffered_write_pages: 0,
            ack_waiting: VecDeque::new(),
            powered_at_ns: 0,
            last_arrival_ns: 0,
            power_loss_records: Vec::new(),
            pending_writes: Default::default(),
            designs,
            design_error: None,
            moves_in: vec![VecDeque::new(); dies],
            occupancy: None,
            request_pages: Vec::new(),
            codewords: Vec::new(),
            extra_pins: Default::default(),
            config_hash,
            super_page_pages,
            physical_chips,
            errors: None,
            chip_busy: vec![ChipBusy::default(); chips],
            energy_gc: 0.0,
            host_priority: priority::Priority::new(&config),
            cache: config.cache.enabled().then(|| Box::new(cache::DataCache::new(&config, planes))),
            cache_answers_at_transfer: config.cache.enabled()
                && config.cache.flush == crate::config::CacheFlush::Ssdsim,
            dram: cache::Dram::default(),
            flushing: false,
            flush_units: 0,
            held_eighths: Vec::new(),
            link: link::Link::default(),
            cmt,
            bypass: bypass::Bypass::new(&config),
            cmt_kicks: Vec::new(),
            flows,
            submitting_flow: flows::NO_FLOW,
            page_sectors: 0,
            config,
        };
        if sim.config.reliability.enabled {
            sim.ftl.enable_wear(sim.config.precondition.retention_age_days * 86_400.0);
            sim.errors = Some(Box::new(errors::ErrorModel::new(&sim.config)));
        }
        sim.series_acc.erases_at_start = sim.ftl.counters.erases;
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

    /// Stops the run after the event in progress once `flag` is set (by another thread or
    /// a signal handler; checked with one relaxed load per event). The run then returns
    /// `Ok` with a report of the simulated time so far, marked by `Report::partial`.
    pub fn set_stop_flag(&mut self, flag: Arc<AtomicBool>) {
        self.stop = Some(flag);
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
                    match self.config.ecc.scheme {
                        crate::config::EccScheme::Bch => {
                            (self.config.ecc.bch_min_decode_ns, self.config.ecc.bch_max_decode_ns)
                        }
                        _ => (self.timing.ecc_decode_ns, self.timing.ecc_decode_ns),
                    },
                )));
                if self.config.flash.die_scheduling == DieScheduling::ChipSerial {
                    let per_chip = self.ftl.addr.dies_per_chip;
                    self.occupancy.as_mut().expect("just set").chip_serial(per_chip);
                }
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

    /// What preconditioning did (also in the run's report).
    pub fn precondition_report(&self) -> &PreconditionReport {
        &self.precondition_report
    }

    pub fn now_ns(&self) -> u64 {
        self.now
    }

    /// Requests in the device (submitted, not completed): the queue length policies see.
    pub fn device_queue_length(&self) -> u64 {
        self.outstanding
    }

    #[inline]
    pub(crate) fn push(&mut self, at: u64, event: Event) {
        self.seq += 1;
        self.events.push(Scheduled { time: at, seq: self.seq, event });
    }

    /// Runs the workload to the end and returns the report and the time series (empty when
    /// an `Observers::series` observer took the rows; idle gaps folded, see `SeriesRow`).
    pub fn run(mut self) -> Result<(Report, Vec<SeriesRow>), SimError> {
        self.run_to_end()
    }

    /// As [`run`](Self::run), but the simulator stays alive: freeing a large drive's
    /// map and reverse map takes tens of milliseconds, which a caller timing the
    /// simulation (the CLI's speed figures) should not count.
    pub fn run_to_end(&mut self) -> Result<(Report, Vec<SeriesRow>), SimError> {
        self.start_run()?;
        let mut stopped = false;
        while let Some(Scheduled { time, seq, event }) = self.events.pop() {
            debug_assert!(time >= self.now, "time went backwards");
            self.now = time;
            if self.occupancy.is_some() {
                self.occupancy_event(time, seq);
            }
            self.events_processed += 1;
            if self.events_processed > self.event_budget {
                return Err(self.over_budget());
            }
            self.handle(event)?;
            if self.occupancy.is_some() {
                self.occupancy_failure()?;
            }
            // (A design may issue work of its own once the workload is done.)
            if self.host_done && self.outstanding == 0 && !self.host_finished()? {
                break;
            }
            if self.stop.as_ref().is_some_and(|f| f.load(Ordering::Relaxed)) {
                stopped = true;
                break;
            }
        }
        self.end_run(stopped)
    }

    /// The run's first events (kept out of `run_to_end`, whose loop is the hot path).
    #[inline(never)]
    fn start_run(&mut self) -> Result<(), SimError> {
        self.run_starting();
        for i in 0..self.config.power.loss_at_ns.len() {
            self.push(self.config.power.loss_at_ns[i], Event::PowerLoss);
        }
        self.start_host()?;
        if self.flows.is_some() {
            self.start_flows()?;
        }
        Ok(())
    }

    /// The run's checks and report once the event loop has stopped.
    #[inline(never)]
    fn end_run(&mut self, stopped: bool) -> Result<(Report, Vec<SeriesRow>), SimError> {
        let finished = self.host_done && self.outstanding == 0;
        if !(stopped || finished) {
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
        let (mut report, series) = self.finish();
        if stopped {
            report.partial = Some(PartialRun {
                stopped_at_ns: self.now,
                completed_requests: self.total.all.count,
                outstanding_requests: self.outstanding,
                waiting_requests: self.host_waiting.len() as u64,
            });
        }
        Ok((report, series))
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
            Event::Wake { die } => {
                self.dies[die as usize].wake_pending = false;
                self.schedule_die(die)?;
            }
            Event::DramDone => self.on_dram_done()?,
            Event::LinkIn => self.on_link_in()?,
            Event::CmtKick => self.on_cmt_kick()?,
            // (Power loss, design timers, flows, room freed, program delays: out of line,
            // so that the common events' code stays dense in the instruction cache.)
            _ => self.handle_rare(event)?,
        }
        Ok(())
    }

    pub(crate) fn check_now(&self) -> Result<(), SimError> {
        self.ftl.check_invariants().map_err(|message| SimError::Invariant { time_ns: self.now, message })?;
        self.verify_now("check point")
    }

    pub(crate) fn verify_now(&self, context: &str) -> Result<(), SimError> {
        if !self.verify {
            return Ok(());
        }
        // The pages whose newest data is in DRAM, gathered once (the check visits every
        // logical unit); sorted, so the hash maps' order cannot matter.
        let mut in_dram: Vec<u32> = Vec::new();
        if self.acks_from_dram() {
            in_dram.extend(self.pending_writes.keys().copied());
            if let Some(c) = self.cache.as_ref() {
                c.newer_pages(&mut in_dram);
            }
            in_dram.sort_unstable();
        }
        self.ftl.verify_data(context, &in_dram).map_err(|message| SimError::Integrity { time_ns: self.now, message })
    }
}

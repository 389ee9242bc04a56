//! The resource-occupancy checker (`--check`, every test run, the swarm): an independent
//! record of what each die, plane and channel does, fed by the engine at every timing
//! transition, that fails the run the moment the timing model's rules are broken.
//!
//! The rules it holds the engine to (ARCHITECTURE.md, "Timing model"):
//! - A die runs one command at a time; a command's steps run in order, each for exactly
//!   its stated time, and the die is not released before its last step (its transfer
//!   included) has ended.
//! - A command uses only planes of its own die, at most one command per plane; in a
//!   command over several planes every plane's page (block, for an erase) has the same
//!   address (the conventional multi-plane restriction).
//! - A channel carries one transfer at a time, granted to waiting dies in the order they
//!   asked (FIFO); a transfer lasts exactly its stated time.
//! - A transaction completes only after the command that served it has ended (plus the
//!   ECC decode time for reads); a write of a read-modify-write starts only after its
//!   read has completed.
//! - A request completes only with its last sub-request.
//! - Events run in (time, insertion sequence) order.
//!
//! It keeps only the current state of each resource and request (memory does not grow
//! with the run) unless a log of every interval is asked for (`Simulator::record_occupancy`),
//! which closed-form tests use to assert exact start and end times.

use std::collections::{BTreeSet, VecDeque};

/// A resource whose use is recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Resource {
    Die(u32),
    Plane(u32),
    Channel(u32),
}

/// What a command does, named by its first transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CommandKind {
    /// Host reads, and reads of the old page before a partial-page write.
    Read,
    /// Host writes (page by page, multi-plane, or a one-shot page set).
    Program,
    /// A partial program of free subpages.
    PartialProgram,
    /// A user write read and reprogrammed in place.
    Reprogram,
    /// A GC move (copyback or read + program), or pages another die read
    /// out being programmed here.
    GcMove,
    /// Pages read out of their plane for a GC move to another plane.
    MoveOut,
    Erase,
    /// Stale pages programmed to zeros in place.
    Scrub,
    /// A read of a block's summary page or out-of-band areas.
    ScanRead,
}

/// What a resource was doing during an interval.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Activity {
    /// A die or plane from the start to the end of a command.
    Command(CommandKind),
    /// A die's array phase (sense, program, erase) of a command.
    Array,
    /// A die holding its command while it waits for the channel.
    ChannelWait,
    /// A channel carrying bytes to a die (`die`), or from it.
    TransferIn {
        die: u32,
    },
    TransferOut {
        die: u32,
    },
}

/// One recorded interval.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interval {
    pub resource: Resource,
    pub start_ns: u64,
    pub end_ns: u64,
    pub activity: Activity,
    /// Commands are numbered in the order they start; every interval of a command
    /// (its die, planes, array phases, waits and transfers) carries its number.
    pub command: u64,
}

/// One step of a command, as the engine describes it: an array phase of its length, or a
/// transfer out of or into the die (its length comes with the grant).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepDesc {
    Array(u64),
    Out,
    In,
}

/// What the engine tells the checker about a command when it starts.
pub(crate) struct CommandDesc<'a> {
    pub kind: CommandKind,
    pub steps: &'a [StepDesc],
    /// Per transaction: (slot, plane it occupies, address within the plane that must be
    /// equal across planes: (block, page), or (block, 0) for an erase).
    pub txns: &'a [(u32, u32, (u32, u32))],
    /// The die's planes.
    pub planes: std::ops::Range<u32>,
    /// Whether planes may use different addresses in one command (never today).
    pub any_address: bool,
    /// Whether planes may use different blocks (the page must still agree).
    pub any_block: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Before the first step or after a step ended.
    Ready,
    Array {
        end: u64,
    },
    Waiting {
        channel: u32,
        since: u64,
    },
    Transfer {
        channel: u32,
        end: u64,
    },
}

#[derive(Clone, Debug)]
struct ActiveCommand {
    id: u64,
    kind: CommandKind,
    start: u64,
    steps: Vec<StepDesc>,
    /// Index of the step running now (or next to run in `Ready`).
    next: usize,
    phase: Phase,
    phase_start: u64,
    txns: Vec<u32>,
    planes: Vec<u32>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TxnState {
    Free,
    Queued,
    InCommand,
    /// Its command ended at this time.
    Done(u64),
}

/// What the checker remembers of a transaction. The request is named by its id, not its
/// slot: a write acknowledged from the DRAM buffer outlives its request's slot.
#[derive(Clone, Copy, Debug)]
struct TxnTrace {
    state: TxnState,
    request: u64,
    lpn: u32,
    user_program: bool,
}

/// How a transaction was created.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TxnRole {
    /// Programs host data (a write or a partial program).
    UserProgram,
    /// Reads the old page of a read-modify-write; the write must wait for it.
    UpdateRead,
    Other,
}

#[derive(Clone, Copy, Debug, Default)]
struct RequestTrace {
    live: bool,
    id: u64,
    pages: u32,
    finished: u32,
}

#[derive(Default)]
pub(crate) struct Occupancy {
    dies: Vec<Option<ActiveCommand>>,
    planes: Vec<Option<u64>>,
    /// Per channel, the transfer on it: (die, start, end).
    channels: Vec<Option<(u32, u64, u64)>>,
    /// Dies waiting for each channel, in the order they asked.
    channel_queues: Vec<VecDeque<u32>>,
    txns: Vec<TxnTrace>,
    requests: Vec<RequestTrace>,
    /// Read-modify-writes whose read has not completed: (request id, logical page).
    update_reads: BTreeSet<(u64, u32)>,
    next_command: u64,
    last_event: (u64, u64),
    /// Shortest and longest final decode of a read (`ecc`).
    decode_range_ns: (u64, u64),
    log: Option<Vec<Interval>>,
    /// The first broken rule; the engine fails the run with it after the current event.
    failure: Option<String>,
    /// With chip-serial dies (`flash.die_scheduling`): dies per chip, whose commands must
    /// never overlap (0 = dies are independent).
    chip_serial_dies: u32,
}

pub(crate) type Check = Result<(), String>;

fn fail<T>(message: String) -> Result<T, String> {
    Err(format!("timing: {message}"))
}

impl Occupancy {
    pub fn new(dies: usize, planes: usize, channels: usize, decode_range_ns: (u64, u64)) -> Self {
        Occupancy {
            dies: vec![None; dies],
            planes: vec![None; planes],
            channels: vec![None; channels],
            channel_queues: vec![VecDeque::new(); channels],
            decode_range_ns,
            ..Occupancy::default()
        }
    }

    /// Keeps the first failure of a hook called where the engine cannot return an error.
    pub fn note(&mut self, check: Check) {
        if let Err(message) = check {
            self.failure.get_or_insert(message);
        }
    }

    pub fn take_failure(&mut self) -> Option<String> {
        self.failure.take()
    }

    /// Checks that the dies of a chip (`dies_per_chip` consecutive dies) never run
    /// commands at the same time.
    pub fn chip_serial(&mut self, dies_per_chip: u32) {
        self.chip_serial_dies = dies_per_chip;
    }

    pub fn keep_log(&mut self) {
        self.log.get_or_insert_with(Vec::new);
    }

    pub fn log(&self) -> Option<&[Interval]> {
        self.log.as_deref()
    }

    fn record(&mut self, resource: Resource, start_ns: u64, end_ns: u64, activity: Activity, command: u64) {
        if let Some(log) = self.log.as_mut() {
            log.push(Interval { resource, start_ns, end_ns, activity, command });
        }
    }

    /// Events must come in (time, sequence) order.
    pub fn event(&mut self, time: u64, seq: u64) -> Check {
        if (time, seq) <= self.last_event {
            return fail(format!(
                "event (time {time} ns, sequence {seq}) ran after (time {} ns, sequence {})",
                self.last_event.0, self.last_event.1
            ));
        }
        self.last_event = (time, seq);
        Ok(())
    }

    pub fn txn_created(&mut self, slot: u32, role: TxnRole, request: u64, lpn: u32) -> Check {
        let s = slot as usize;
        if s >= self.txns.len() {
            let free = TxnTrace { state: TxnState::Free, request: u64::MAX, lpn: 0, user_program: false };
            self.txns.resize(s + 1, free);
        }
        if !matches!(self.txns[s].state, TxnState::Free) {
            return fail(format!("transaction slot {slot} reused while {:?}", self.txns[s].state));
        }
        self.txns[s] = TxnTrace { state: TxnState::Queued, request, lpn, user_program: role == TxnRole::UserProgram };
        if role == TxnRole::UpdateRead {
            self.update_reads.insert((request, lpn));
        }
        Ok(())
    }

    /// A transaction is done (its slot may be reused from now on): only after its command
    /// ended, and a read only after its ECC decode too.
    /// `decode_ns` is the read's final ECC decode (0 for other transactions): it must lie
    /// within the configured decode times.
    pub fn txn_completed(&mut self, slot: u32, now: u64, decode_ns: u64) -> Check {
        let Some(trace) = self.txns.get(slot as usize).copied() else {
            return fail(format!("transaction {slot} completed but was never created"));
        };
        match trace.state {
            TxnState::Done(end) => {
                let (low, high) = self.decode_range_ns;
                if decode_ns != 0 && !(low..=high).contains(&decode_ns) {
                    return fail(format!(
                        "transaction {slot} decoded in {decode_ns} ns, outside the ECC's {:?} ns",
                        self.decode_range_ns
                    ));
                }
                let expected = end + decode_ns;
                if now != expected {
                    return fail(format!(
                        "transaction {slot} completed at {now} ns, its command ended at {end} ns (expected {expected} ns)"
                    ));
                }
            }
            other => return fail(format!("transaction {slot} completed while {other:?}, before its command ended")),
        }
        self.txns[slot as usize].state = TxnState::Free;
        self.update_reads.remove(&(trace.request, trace.lpn));
        Ok(())
    }

    pub fn command_started(&mut self, die: u32, now: u64, desc: &CommandDesc) -> Check {
        if let Some(active) = &self.dies[die as usize] {
            return fail(format!(
                "die {die} started a {:?} command at {now} ns while its {:?} command {} (started {} ns) runs",
                desc.kind, active.kind, active.id, active.start
            ));
        }
        if self.chip_serial_dies > 1 {
            let first = die - die % self.chip_serial_dies;
            if let Some(other) =
                (first..first + self.chip_serial_dies).find(|&d| d != die && self.dies[d as usize].is_some())
            {
                return fail(format!(
                    "die {die} started a {:?} command at {now} ns while die {other} of its chip runs one (chip-serial)",
                    desc.kind
                ));
            }
        }
        if desc.steps.is_empty() || desc.txns.is_empty() {
            return fail(format!("die {die} started an empty {:?} command at {now} ns", desc.kind));
        }
        let mut planes: Vec<u32> = desc.txns.iter().map(|t| t.1).collect();
        planes.sort_unstable();
        planes.dedup();
        for &plane in &planes {
            if !desc.planes.contains(&plane) {
                return fail(format!("die {die} ran a {:?} command on plane {plane} of another die", desc.kind));
            }
            if let Some(other) = self.planes[plane as usize] {
                return fail(format!("plane {plane} used by command {other} and a new {:?} command", desc.kind));
            }
        }
        if planes.len() > 1 && !desc.any_address {
            // The first page of each plane (one-shot sets hold several pages per plane).
            let key = desc.txns[0].2;
            let differs = |k: (u32, u32)| if desc.any_block { k.1 != key.1 } else { k != key };
            if let Some(t) = desc.txns.iter().find(|t| differs(t.2)) {
                return fail(format!(
                    "multi-plane {:?} command on die {die} pairs (block, page) {:?} on plane {} with {:?} on plane {}",
                    desc.kind, key, desc.txns[0].1, t.2, t.1
                ));
            }
        }
        let id = self.next_command;
        for &(slot, ..) in desc.txns {
            let Some(trace) = self.txns.get(slot as usize).copied() else {
                return fail(format!("transaction {slot} put in command {id} but never created"));
            };
            // (A page read out for another plane is programmed there by a second command.)
            if !matches!(trace.state, TxnState::Queued | TxnState::Done(_)) {
                return fail(format!("transaction {slot} put in command {id} while {:?}", trace.state));
            }
            if trace.user_program && self.update_reads.contains(&(trace.request, trace.lpn)) {
                return fail(format!(
                    "the write of logical page {} (request {}) started at {now} ns before its read-modify-write \
                     read completed",
                    trace.lpn, trace.request
                ));
            }
        }
        self.next_command += 1;
        for &(slot, ..) in desc.txns {
            self.txns[slot as usize].state = TxnState::InCommand;
        }
        for &plane in &planes {
            self.planes[plane as usize] = Some(id);
        }
        self.dies[die as usize] = Some(ActiveCommand {
            id,
            kind: desc.kind,
            start: now,
            steps: desc.steps.to_vec(),
            next: 0,
            phase: Phase::Ready,
            phase_start: now,
            txns: desc.txns.iter().map(|t| t.0).collect(),
            planes,
        });
        Ok(())
    }

    /// The engine is about to run step `index` of the die's command (`index` = number of
    /// steps = the command ends). The previous step must have ended exactly now.
    pub fn step(&mut self, die: u32, index: usize, now: u64, channel: u32) -> Check {
        let Some(active) = self.dies[die as usize].as_mut() else {
            return fail(format!("die {die} ran step {index} at {now} ns with no command"));
        };
        let (id, phase_start) = (active.id, active.phase_start);
        match active.phase {
            // (The step in order is checked below.)
            Phase::Ready => {}
            Phase::Array { end } => {
                if now != end {
                    return fail(format!("die {die}: array step of command {id} ended at {now} ns, not {end} ns"));
                }
                active.phase = Phase::Ready;
                self.record(Resource::Die(die), phase_start, now, Activity::Array, id);
            }
            Phase::Waiting { channel, .. } | Phase::Transfer { channel, .. } => {
                return fail(format!(
                    "die {die}: command {id} moved on at {now} ns while its transfer on channel {channel} had not ended"
                ));
            }
        }
        let active = self.dies[die as usize].as_mut().expect("checked");
        if index != active.next {
            return fail(format!("die {die}: command {id} ran step {index} when step {} was due", active.next));
        }
        active.next += 1;
        active.phase_start = now;
        match active.steps.get(index).copied() {
            Some(StepDesc::Array(ns)) => active.phase = Phase::Array { end: now + ns },
            Some(StepDesc::In | StepDesc::Out) => {
                active.phase = Phase::Waiting { channel, since: now };
                self.channel_queues[channel as usize].push_back(die);
            }
            None => {
                if index != active.steps.len() {
                    return fail(format!("die {die}: command {id} ran past its {} steps", active.steps.len()));
                }
                let active = self.dies[die as usize].take().expect("checked");
                self.record(Resource::Die(die), active.start, now, Activity::Command(active.kind), id);
                for &plane in &active.planes {
                    self.planes[plane as usize] = None;
                    self.record(Resource::Plane(plane), active.start, now, Activity::Command(active.kind), id);
                }
                for &t in &active.txns {
                    self.txns[t as usize].state = TxnState::Done(now);
                }
            }
        }
        Ok(())
    }

    /// The channel starts carrying `die`'s transfer, lasting `ns`.
    pub fn transfer_started(&mut self, channel: u32, die: u32, now: u64, ns: u64) -> Check {
        if let Some((holder, ..)) = self.channels[channel as usize] {
            return fail(format!("channel {channel} granted to die {die} at {now} ns while die {holder} transfers"));
        }
        let queue = &mut self.channel_queues[channel as usize];
        if queue.front() != Some(&die) {
            return fail(format!(
                "channel {channel} granted to die {die} at {now} ns, but die {:?} asked first (waiting: {:?})",
                queue.front(),
                queue
            ));
        }
        queue.pop_front();
        let Some(active) = self.dies[die as usize].as_mut() else {
            return fail(format!("channel {channel} granted to die {die}, which has no command"));
        };
        let Phase::Waiting { channel: asked, since } = active.phase else {
            return fail(format!("channel {channel} granted to die {die}, which is not waiting for it"));
        };
        if let StepDesc::Array(_) = active.steps[active.next - 1] {
            return fail(format!("die {die} transfers during an array step"));
        }
        if asked != channel {
            return fail(format!("die {die} asked channel {asked} and got {channel}"));
        }
        let id = active.id;
        active.phase = Phase::Transfer { channel, end: now + ns };
        if now > since {
            self.record(Resource::Die(die), since, now, Activity::ChannelWait, id);
        }
        self.channels[channel as usize] = Some((die, now, now + ns));
        Ok(())
    }

    /// The channel's transfer ended; its die may move on.
    pub fn transfer_ended(&mut self, channel: u32, now: u64) -> Check {
        let Some((die, start, end)) = self.channels[channel as usize].take() else {
            return fail(format!("channel {channel} ended a transfer at {now} ns that it was not carrying"));
        };
        if now != end {
            return fail(format!("channel {channel}: transfer for die {die} ended at {now} ns, not {end} ns"));
        }
        let Some(active) = self.dies[die as usize].as_mut() else {
            return fail(format!("channel {channel} carried a transfer for die {die}, which has no command"));
        };
        let id = active.id;
        let activity = match active.steps[active.next - 1] {
            StepDesc::In => Activity::TransferIn { die },
            _ => Activity::TransferOut { die },
        };
        active.phase = Phase::Ready;
        active.phase_start = now;
        self.record(Resource::Channel(channel), start, now, activity, id);
        Ok(())
    }

    pub fn request_submitted(&mut self, slot: u32, id: u64, pages: u32) -> Check {
        let s = slot as usize;
        if s >= self.requests.len() {
            self.requests.resize(s + 1, RequestTrace::default());
        }
        if self.requests[s].live {
            return fail(format!("request slot {slot} reused while request {} is outstanding", self.requests[s].id));
        }
        self.requests[s] = RequestTrace { live: true, id, pages, finished: 0 };
        Ok(())
    }

    /// A request needs one more sub-request than it was submitted with (a dummy read of
    /// the other page holding part of a logical page).
    pub fn request_grew(&mut self, slot: u32) -> Check {
        match self.requests.get_mut(slot as usize) {
            Some(r) if r.live => {
                r.pages += 1;
                Ok(())
            }
            _ => fail(format!("request slot {slot} grew with no request outstanding there")),
        }
    }

    pub fn sub_request_finished(&mut self, slot: u32) -> Check {
        let r = self.requests.get_mut(slot as usize);
        match r {
            Some(r) if r.live => {
                r.finished += 1;
                if r.finished > r.pages {
                    return fail(format!("request {} finished {} of its {} sub-requests", r.id, r.finished, r.pages));
                }
                Ok(())
            }
            _ => fail(format!("a sub-request of request slot {slot} finished with no request outstanding there")),
        }
    }

    pub fn request_completed(&mut self, slot: u32, id: u64) -> Check {
        let r = self.requests[slot as usize];
        if !r.live || r.id != id || r.finished != r.pages {
            return fail(format!(
                "request {id} completed after {} of its {} sub-requests finished",
                r.finished, r.pages
            ));
        }
        self.requests[slot as usize].live = false;
        Ok(())
    }

    /// A power loss drops every command, transfer, transaction and request.
    pub fn power_lost(&mut self, now: u64) {
        for die in 0..self.dies.len() {
            if let Some(active) = self.dies[die].take() {
                self.record(Resource::Die(die as u32), active.start, now, Activity::Command(active.kind), active.id);
            }
        }
        self.planes.iter_mut().for_each(|p| *p = None);
        self.channels.iter_mut().for_each(|c| *c = None);
        self.channel_queues.iter_mut().for_each(|q| q.clear());
        self.txns.clear();
        self.requests.clear();
        self.update_reads.clear();
    }
}

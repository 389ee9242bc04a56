//! `flash.issue_on_idle_channel`: a die starts a command only when its channel carries no
//! transfer and has none waiting, and a channel that goes idle is offered to its chips in
//! turn. A command's command and address cycles need the bus, so a controller cannot
//! issue one to a chip while another chip of the channel moves data; MQSim's controller
//! (its TSU and ONFI PHY) also moves all data waiting in the chips' registers before it
//! issues a new command on that channel. On a saturated channel this keeps its chips in
//! step: a chip whose data-out ends while another chip's data waits gets its next command
//! only after that transfer too (about one page transfer more per read).
//!
//! This module owns the gate, the turn of each channel and what a freed chip does next
//! (also without the gate: the chip-serial and oldest-first rules).

use super::*;

impl Simulator<'_> {
    /// Whether `die` must wait for its channel before it starts a command.
    #[inline]
    pub(crate) fn channel_gate_closed(&self, die: u32) -> bool {
        self.config.flash.issue_on_idle_channel && {
            let ch = &self.channels[self.ftl.addr.channel_of_die(die) as usize];
            ch.holder.is_some() || !ch.waiting.is_empty()
        }
    }

    /// `die`'s command has ended and the die is idle: it, or under
    /// `flash.die_scheduling = "chip-serial"` one of its chip's dies, starts the next
    /// command.
    pub(crate) fn schedule_freed(&mut self, die: u32) -> Result<(), SimError> {
        if self.config.flash.die_scheduling != DieScheduling::ChipSerial {
            return self.schedule_die(die);
        }
        if self.config.arbitration.scheme == crate::config::ArbitrationScheme::OldestFirst {
            return self.schedule_chip_oldest_first(die);
        }
        // The chip is free: its dies get it in turn, this one last, those with user
        // reads queued first (MQSim's TSU serves a chip's reads before its writes).
        let per_chip = self.ftl.addr.dies_per_chip.max(1);
        let first = die - die % per_chip;
        for reads_only in [true, false] {
            for k in 1..=per_chip {
                let d = first + (die % per_chip + k) % per_chip;
                if !reads_only || !self.dies[d as usize].reads.is_empty() {
                    self.schedule_die(d)?;
                }
            }
        }
        Ok(())
    }

    /// Under the gate: `channel` has no transfer on it or waiting. Its chips, in turn from
    /// the channel's round-robin position, may start commands (MQSim's
    /// `handle_channel_idle_signal`); the turn moves past each chip offered.
    pub(crate) fn channel_went_idle(&mut self, channel: u32) -> Result<(), SimError> {
        let (chips, per_chip) = (self.ftl.addr.chips_per_channel.max(1), self.ftl.addr.dies_per_chip.max(1));
        for _ in 0..chips {
            let ch = &mut self.channels[channel as usize];
            if ch.holder.is_some() || !ch.waiting.is_empty() {
                break;
            }
            let chip = channel * chips + ch.turn;
            ch.turn = (ch.turn + 1) % chips;
            let first = chip * per_chip;
            if self.config.flash.die_scheduling == DieScheduling::ChipSerial {
                // A busy chip gets the channel when its command ends. A free one is offered
                // from its first die (`schedule_freed` starts after the die it is given).
                if !(first..first + per_chip).any(|d| self.dies[d as usize].busy) {
                    self.schedule_freed(first + per_chip - 1)?;
                }
            } else {
                for d in first..first + per_chip {
                    self.kick(d)?;
                }
            }
        }
        Ok(())
    }
}

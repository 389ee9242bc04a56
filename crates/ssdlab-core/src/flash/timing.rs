//! Operation latencies and energies derived from the config, as integer nanoseconds and
//! nanojoules. The engine asks "how long does this program take" here and nowhere else.

use crate::config::{Config, ProgramScheme};

#[derive(Clone, Debug)]
pub struct Timing {
    read_ns: Vec<u64>,
    program_ns: Vec<u64>,
    pub erase_ns: u64,
    pub slc_read_ns: u64,
    pub slc_program_ns: u64,
    pub one_shot_ns: u64,
    pub program_delay_ns: u64,
    pub one_shot: bool,
    /// Without a wordline buffer, type t's program first re-reads the t lower pages.
    pub wordline_buffer: bool,
    /// Picoseconds per byte on the channel (integer for exact, portable arithmetic).
    transfer_ps_per_byte: u64,
    pub command_overhead_ns: u64,
    pub ecc_decode_ns: u64,
    pub page_size_bytes: u64,
    read_nj: Vec<f64>,
    program_nj: Vec<f64>,
    pub erase_nj: f64,
    slc_read_nj: f64,
    slc_program_nj: f64,
    pub transfer_nj_per_byte: f64,
    /// Parallel buses per channel (super-pages striped over channels).
    pub lanes: u64,
}

impl Timing {
    pub fn new(c: &Config) -> Self {
        let f = &c.flash;
        let one_shot_ns = if f.one_shot_program_latency_ns > 0 {
            f.one_shot_program_latency_ns
        } else {
            f.program_latency_ns.iter().copied().max().unwrap_or(0)
        };
        Timing {
            read_ns: f.read_latency_ns.clone(),
            program_ns: f.program_latency_ns.clone(),
            erase_ns: f.erase_latency_ns,
            slc_read_ns: f.slc_read_latency_ns,
            slc_program_ns: f.slc_program_latency_ns,
            one_shot_ns,
            program_delay_ns: f.program_delay_ns,
            one_shot: f.program_scheme == ProgramScheme::OneShot,
            wordline_buffer: f.wordline_buffer,
            transfer_ps_per_byte: (f.transfer_ns_per_byte * 1000.0).round() as u64,
            command_overhead_ns: f.command_overhead_ns,
            ecc_decode_ns: f.ecc_decode_ns,
            page_size_bytes: c.geometry.page_size_bytes as u64,
            read_nj: c.energy.read_nj.clone(),
            program_nj: c.energy.program_nj.clone(),
            erase_nj: c.energy.erase_nj,
            slc_read_nj: if c.energy.slc_read_nj > 0.0 { c.energy.slc_read_nj } else { c.energy.read_nj[0] },
            slc_program_nj: if c.energy.slc_program_nj > 0.0 {
                c.energy.slc_program_nj
            } else {
                c.energy.program_nj[0]
            },
            transfer_nj_per_byte: c.energy.transfer_nj_per_byte,
            lanes: 1,
        }
    }

    /// A channel of `lanes` parallel buses (a super-page's horizontal stripe): its bytes
    /// are spread evenly over them.
    pub fn with_lanes(mut self, lanes: u32) -> Self {
        self.lanes = lanes.max(1) as u64;
        self
    }

    /// Array sense time of a page of `page_type` (SLC-mode blocks use the SLC latency).
    pub fn read_ns(&self, page_type: u8, slc: bool) -> u64 {
        if slc {
            self.slc_read_ns
        } else {
            self.read_ns[page_type as usize]
        }
    }

    /// Array program time of one page. Without wordline buffering the lower pages of the
    /// wordline must be read back first (PA §5.1: CSB +1 page read, MSB +2).
    pub fn program_ns(&self, page_type: u8, slc: bool) -> u64 {
        if slc {
            return self.slc_program_ns;
        }
        let mut ns = self.program_ns[page_type as usize];
        if !self.wordline_buffer {
            ns += (0..page_type).map(|t| self.read_ns[t as usize]).sum::<u64>();
        }
        ns
    }

    /// Channel occupancy of one command moving `pages` pages.
    pub fn transfer_ns(&self, pages: u32) -> u64 {
        self.transfer_bytes_ns(pages as u64 * self.page_size_bytes)
    }

    /// Channel occupancy of one command moving `bytes` bytes (partial programs move
    /// only the subpages they write).
    pub fn transfer_bytes_ns(&self, bytes: u64) -> u64 {
        let per_lane = if self.lanes > 1 { bytes.div_ceil(self.lanes) } else { bytes };
        self.command_overhead_ns + (per_lane * self.transfer_ps_per_byte).div_ceil(1000)
    }

    pub fn read_nj(&self, page_type: u8, slc: bool) -> f64 {
        if slc {
            self.slc_read_nj
        } else {
            self.read_nj[page_type as usize]
        }
    }
    pub fn program_nj(&self, page_type: u8, slc: bool) -> f64 {
        if slc {
            self.slc_program_nj
        } else {
            self.program_nj[page_type as usize]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_wordline_buffer_adds_lower_page_reads() {
        let mut c = Config::default();
        c.flash.read_latency_ns = vec![100, 200, 300];
        c.flash.program_latency_ns = vec![1000, 2000, 5000];
        c.flash.wordline_buffer = false;
        let t = Timing::new(&c);
        assert_eq!(t.program_ns(0, false), 1000);
        assert_eq!(t.program_ns(1, false), 2000 + 100);
        assert_eq!(t.program_ns(2, false), 5000 + 100 + 200);
        c.flash.wordline_buffer = true;
        let t = Timing::new(&c);
        assert_eq!(t.program_ns(2, false), 5000);
    }

    #[test]
    fn transfer_is_exact() {
        let mut c = Config::default();
        c.geometry.page_size_bytes = 8192;
        c.flash.transfer_ns_per_byte = 3.0;
        let t = Timing::new(&c);
        assert_eq!(t.transfer_ns(1), 24_576);
        assert_eq!(t.transfer_ns(2), 49_152);
    }
}

//! The SSD-CDC scaling model of Grupp's thesis (seed 004, Chapter 3; also FAST '12, "The
//! Bleak Future of NAND Flash Memory"): a constant-die-count SSD whose capacity, latency,
//! bandwidth and IOPS are projected from feature size and bits per cell. This module owns
//! the model as pure functions: Table 3.1's architecture ([`Architecture`]), Table 3.2's
//! fitted latency trends ([`Configuration::trend`]) and Table 3.3's Eqs. 1–11
//! ([`capacity_gb`], [`channel_bandwidth`], [`channel_iops`], [`project`]). No simulation
//! runs here; `ssdlab scaling` and `ssdlab reproduce ssd-cdc` print what it computes, and
//! docs/scaling.md says where every number comes from.
//!
//! Units: capacities in GB (10⁹ bytes), bandwidths in MB/s (10⁶ bytes/s, as Table 3.1's
//! "400 MB/s"), page and access sizes in bytes (a "4 kB" page is 4,096 bytes), latencies
//! in µs, feature sizes in nm.
//!
//! Two readings the thesis leaves open, both selectable:
//! - Table 3.3's printed conditions for Eqs. 3 and 4 say the die-bound bandwidth applies
//!   when `DieLatency ≤ BWThreshold`; §3.2.2's text says the die is the bottleneck when its
//!   latency is *larger* than the threshold. The text wins: it is the only reading under
//!   which a channel never moves more than its bus allows, and it is how the same table
//!   states the IOPS conditions (Eqs. 8, 9). Both equations agree at the threshold, so
//!   the model is `min(bus, die-bound)`.
//! - Whether `DieLatency` includes the 30-µs FTL overhead is not said ([`DieLatency`]).

use std::fmt;
use std::str::FromStr;

/// The errors of bad input; every message names the value and what it must be.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ScalingError {
    #[error("feature size {0} nm: must be a positive, finite number of nanometres")]
    FeatureSize(f64),
    #[error("{name} = {value}: {why}")]
    Parameter { name: &'static str, value: String, why: &'static str },
    #[error(
        "access size {access_bytes} B is larger than {configuration}'s {page_bytes}-B page: Table 3.3's IOPS \
         equations (7-11) cover accesses of at most one page"
    )]
    AccessLargerThanPage { access_bytes: u64, configuration: Configuration, page_bytes: u64 },
    #[error("unknown configuration '{0}'; available: SLC-1, MLC-1, MLC-2, TLC-3")]
    UnknownConfiguration(String),
    #[error("unknown fit '{0}'; available: min, avg, max")]
    UnknownFit(String),
    #[error("unknown die latency '{0}'; available: flash, flash+overhead")]
    UnknownDieLatency(String),
}

/// The cell configurations of Table 3.2: the chip's cell type and the bits per cell the
/// SSD stores (MLC-1 uses only an MLC chip's fast pages, §3.2.2 "Latency").
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Configuration {
    Slc1,
    Mlc1,
    Mlc2,
    Tlc3,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Operation {
    Read,
    Write,
}

/// Which of Table 3.2's three fits: through the chips' minimum, average or maximum
/// latencies (Fig. 3.4's error bars are one standard deviation, the text says).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Fit {
    Min,
    Avg,
    Max,
}

/// What `DieLatency` in Eqs. 3, 6, 9 and 11 is. The thesis does not say whether the FTL
/// overhead, which §3.2.2 adds to the SSD's latency, also occupies the die.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DieLatency {
    /// Table 3.2's fitted flash latency alone: "the latency of the operation on the die"
    /// (§3.2.2, Bandwidth), the overhead being spent in the controller while the die works
    /// on another request; §3.2.2 resolves open assumptions towards the faster SSD.
    #[default]
    Flash,
    /// The fitted latency plus the FTL overhead, as the SSD's latency is.
    FlashPlusOverhead,
}

/// `A·e^{b·f}` with `f` in nm, as Table 3.2 prints it: the mantissa and the power of ten
/// of `b` kept apart so the table's rounding is known, and the table's "-1nm" column
/// (per cent latency increase for a 1-nm shrink) kept to check the transcription.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Exponential {
    pub scale_us: f64,
    pub exponent_mantissa: f64,
    pub exponent_power: i32,
    pub shrink_increase_percent: f64,
}

const fn trend(
    scale_us: f64,
    exponent_mantissa: f64,
    exponent_power: i32,
    shrink_increase_percent: f64,
) -> Exponential {
    Exponential { scale_us, exponent_mantissa, exponent_power, shrink_increase_percent }
}

/// Table 3.2 (thesis lines 668–683): per configuration, read then write, each
/// `[min, avg, max]`. The three fits of a row were made separately, so they can cross:
/// MLC-1's min read lies above its avg above 57 nm (inside §3.3's sweep), SLC-1's avg read
/// above its max above 84 nm, and TLC-3's min write above its avg below 3.5 nm.
const TABLE_3_2: [[[Exponential; 3]; 2]; 4] = [
    // SLC-1
    [
        [trend(22.8, -2.9, -3, 0.29), trend(23.4, -3.2, -3, 0.32), trend(24.0, -3.5, -3, 0.36)],
        [trend(239.3, -1.3, -2, 1.34), trend(262.6, -1.2, -2, 1.19), trend(287.0, -1.1, -2, 1.07)],
    ],
    // MLC-1
    [
        [trend(32.2, -5.6, -3, 0.57), trend(33.5, -6.3, -3, 0.63), trend(34.8, -6.9, -3, 0.69)],
        [trend(316.5, -7.0, -3, 0.70), trend(390.0, -8.7, -3, 0.87), trend(467.3, -1.0, -2, 1.01)],
    ],
    // MLC-2
    [
        [trend(34.2, -6.6, -3, 0.66), trend(43.3, -5.2, -3, 0.52), trend(52.5, -4.5, -3, 0.45)],
        [trend(393.7, -9.9, -3, 1.00), trend(1084.4, -8.6, -3, 0.86), trend(1778.2, -8.3, -3, 0.84)],
    ],
    // TLC-3 (the thesis marks its trends as less certain: few TLC chips were measured).
    // The min read trend really has a positive exponent (latency falls as cells shrink).
    [
        [trend(54.0, 9.9, -4, -0.10), trend(78.2, -4.4, -4, 0.04), trend(102.5, -1.3, -3, 0.13)],
        [trend(2620.8, -4.6, -2, 4.67), trend(2286.2, -7.1, -3, 0.71), trend(4844.8, -1.1, -2, 1.12)],
    ],
];

impl Exponential {
    pub fn exponent_per_nm(&self) -> f64 {
        self.exponent_mantissa * 10f64.powi(self.exponent_power)
    }

    pub fn latency_us(&self, feature_nm: f64) -> f64 {
        self.scale_us * (self.exponent_per_nm() * feature_nm).exp()
    }

    /// The per cent increase for a 1-nm shrink that the printed exponent implies,
    /// `100·(e^{−b} − 1)`, over every `b` that rounds to the printed one: (low, high).
    pub fn shrink_increase_range_percent(&self) -> (f64, f64) {
        let half_unit = 0.05 * 10f64.powi(self.exponent_power);
        let b = self.exponent_per_nm();
        (100.0 * ((-(b + half_unit)).exp() - 1.0), 100.0 * ((-(b - half_unit)).exp() - 1.0))
    }

    /// Whether the table's "-1nm" column (two decimals) agrees with its exponent under the
    /// reading `100·(e^{−b} − 1)`. The readings `100·(1 − e^{b})` and `−100·b` fail some
    /// rows, so this also settles the column's sign convention (positive: slower when
    /// cells shrink).
    pub fn shrink_increase_consistent(&self) -> bool {
        let (low, high) = self.shrink_increase_range_percent();
        (low - 0.005..=high + 0.005).contains(&self.shrink_increase_percent)
    }
}

impl Configuration {
    pub const ALL: [Configuration; 4] =
        [Configuration::Slc1, Configuration::Mlc1, Configuration::Mlc2, Configuration::Tlc3];

    pub fn name(self) -> &'static str {
        match self {
            Configuration::Slc1 => "SLC-1",
            Configuration::Mlc1 => "MLC-1",
            Configuration::Mlc2 => "MLC-2",
            Configuration::Tlc3 => "TLC-3",
        }
    }

    /// The bits per cell the SSD stores: Eq. 1's `BitsPerCell_proj`, the *effective* count
    /// (§3.2.2, Capacity: MLC-1 stores one bit in an MLC chip).
    pub fn bits_per_cell(self) -> u32 {
        match self {
            Configuration::Slc1 | Configuration::Mlc1 => 1,
            Configuration::Mlc2 => 2,
            Configuration::Tlc3 => 3,
        }
    }

    pub fn trend(self, op: Operation, fit: Fit) -> Exponential {
        let op = match op {
            Operation::Read => 0,
            Operation::Write => 1,
        };
        let fit = match fit {
            Fit::Min => 0,
            Fit::Avg => 1,
            Fit::Max => 2,
        };
        TABLE_3_2[self as usize][op][fit]
    }
}

impl fmt::Display for Configuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Configuration {
    type Err = ScalingError;

    /// `SLC-1`, `slc1`, `Slc_1`: case and separator do not matter.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let key: String = text.chars().filter(char::is_ascii_alphanumeric).collect::<String>().to_ascii_uppercase();
        Configuration::ALL
            .into_iter()
            .find(|c| c.name().replace('-', "") == key)
            .ok_or_else(|| ScalingError::UnknownConfiguration(text.to_string()))
    }
}

impl Operation {
    pub fn name(self) -> &'static str {
        match self {
            Operation::Read => "read",
            Operation::Write => "write",
        }
    }
}

impl Fit {
    pub const ALL: [Fit; 3] = [Fit::Min, Fit::Avg, Fit::Max];

    pub fn name(self) -> &'static str {
        match self {
            Fit::Min => "min",
            Fit::Avg => "avg",
            Fit::Max => "max",
        }
    }
}

impl FromStr for Fit {
    type Err = ScalingError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.trim().to_ascii_lowercase().as_str() {
            "min" | "minimum" => Ok(Fit::Min),
            "avg" | "average" | "mean" => Ok(Fit::Avg),
            "max" | "maximum" => Ok(Fit::Max),
            _ => Err(ScalingError::UnknownFit(text.to_string())),
        }
    }
}

impl DieLatency {
    pub fn name(self) -> &'static str {
        match self {
            DieLatency::Flash => "flash",
            DieLatency::FlashPlusOverhead => "flash+overhead",
        }
    }
}

impl FromStr for DieLatency {
    type Err = ScalingError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.trim().to_ascii_lowercase().as_str() {
            "flash" => Ok(DieLatency::Flash),
            "flash+overhead" | "overhead" => Ok(DieLatency::FlashPlusOverhead),
            _ => Err(ScalingError::UnknownDieLatency(text.to_string())),
        }
    }
}

/// SSD-CDC's architecture and baseline (Table 3.1, thesis lines 655–666; §3.2.1 lines
/// 702–704), plus the page sizes §3.3.3 gives (line 770).
#[derive(Debug, Clone, PartialEq)]
pub struct Architecture {
    pub channels: u32,
    /// Each channel's bus, MB/s (10⁶ bytes/s).
    pub channel_speed_mb_s: f64,
    pub dies_per_channel: u32,
    /// ECC and FTL work per request (§3.2.1), added to every projected latency.
    pub ftl_overhead_us: f64,
    pub baseline_capacity_gb: f64,
    pub baseline_feature_nm: f64,
    pub baseline_bits_per_cell: f64,
    /// The baseline SSD's price; with the die count fixed it is every projection's price.
    pub price_usd: f64,
    /// SLC and MLC pages ("SLC and MLC chips must access 4 kB of data", §3.3.3).
    pub page_bytes: u64,
    /// "For TLC ... page size is 8 kB" (§3.3.3).
    pub tlc_page_bytes: u64,
}

impl Default for Architecture {
    fn default() -> Self {
        Architecture {
            channels: 24,
            channel_speed_mb_s: 400.0,
            dies_per_channel: 4,
            ftl_overhead_us: 30.0,
            baseline_capacity_gb: 320.0,
            baseline_feature_nm: 34.0,
            baseline_bits_per_cell: 2.0,
            price_usd: 7800.0,
            page_bytes: 4096,
            tlc_page_bytes: 8192,
        }
    }
}

fn positive(name: &'static str, value: f64) -> Result<(), ScalingError> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(ScalingError::Parameter { name, value: value.to_string(), why: "must be a positive, finite number" })
    }
}

impl Architecture {
    /// Every parameter in its domain; the error names the first that is not.
    pub fn validate(&self) -> Result<(), ScalingError> {
        if self.channels == 0 {
            return Err(ScalingError::Parameter { name: "channels", value: "0".into(), why: "must be at least 1" });
        }
        if self.dies_per_channel < 2 {
            // Eqs. 3, 6, 9 and 11 count the dies other than the one on the bus.
            return Err(ScalingError::Parameter {
                name: "dies_per_channel",
                value: self.dies_per_channel.to_string(),
                why: "must be at least 2: the model's die-bound equations use DiesPerChannel - 1",
            });
        }
        positive("channel_speed_mb_s", self.channel_speed_mb_s)?;
        if !(self.ftl_overhead_us.is_finite() && self.ftl_overhead_us >= 0.0) {
            return Err(ScalingError::Parameter {
                name: "ftl_overhead_us",
                value: self.ftl_overhead_us.to_string(),
                why: "must be a finite number of microseconds, zero or more",
            });
        }
        positive("baseline_capacity_gb", self.baseline_capacity_gb)?;
        positive("baseline_feature_nm", self.baseline_feature_nm)?;
        positive("baseline_bits_per_cell", self.baseline_bits_per_cell)?;
        positive("price_usd", self.price_usd)?;
        for (name, bytes) in [("page_bytes", self.page_bytes), ("tlc_page_bytes", self.tlc_page_bytes)] {
            if bytes == 0 {
                return Err(ScalingError::Parameter { name, value: "0".into(), why: "must be at least 1 byte" });
            }
        }
        Ok(())
    }

    pub fn page_bytes(&self, configuration: Configuration) -> u64 {
        match configuration {
            Configuration::Tlc3 => self.tlc_page_bytes,
            _ => self.page_bytes,
        }
    }

    /// Eqs. 5 and 10: the bus time of `bytes`, µs.
    pub fn transfer_time_us(&self, bytes: u64) -> f64 {
        bytes as f64 / self.channel_speed_mb_s
    }

    /// Eqs. 6 and 11: the die latency above which the dies, not the bus, bound a channel.
    pub fn threshold_us(&self, bytes: u64) -> f64 {
        (self.dies_per_channel - 1) as f64 * self.transfer_time_us(bytes)
    }
}

fn check_feature(feature_nm: f64) -> Result<(), ScalingError> {
    if feature_nm.is_finite() && feature_nm > 0.0 {
        Ok(())
    } else {
        Err(ScalingError::FeatureSize(feature_nm))
    }
}

/// Eq. 1: the baseline's capacity scaled by the bits per cell and the square of the
/// feature-size ratio (the die area is fixed).
pub fn capacity_gb(arch: &Architecture, configuration: Configuration, feature_nm: f64) -> f64 {
    arch.baseline_capacity_gb
        * (configuration.bits_per_cell() as f64 / arch.baseline_bits_per_cell)
        * (arch.baseline_feature_nm / feature_nm).powi(2)
}

/// Eq. 1 solved for the feature size at which `configuration` reaches `capacity_gb`.
pub fn feature_for_capacity_nm(arch: &Architecture, configuration: Configuration, capacity_gb: f64) -> f64 {
    let at_baseline_node =
        arch.baseline_capacity_gb * configuration.bits_per_cell() as f64 / arch.baseline_bits_per_cell;
    arch.baseline_feature_nm * (at_baseline_node / capacity_gb).sqrt()
}

/// The SSD's latency (§3.2.2, Latency): the Table 3.2 trend plus the FTL overhead.
pub fn latency_us(arch: &Architecture, configuration: Configuration, op: Operation, fit: Fit, feature_nm: f64) -> f64 {
    configuration.trend(op, fit).latency_us(feature_nm) + arch.ftl_overhead_us
}

pub fn die_latency_us(
    arch: &Architecture,
    configuration: Configuration,
    op: Operation,
    fit: Fit,
    feature_nm: f64,
    die_latency: DieLatency,
) -> f64 {
    let flash = configuration.trend(op, fit).latency_us(feature_nm);
    match die_latency {
        DieLatency::Flash => flash,
        DieLatency::FlashPlusOverhead => flash + arch.ftl_overhead_us,
    }
}

/// What limits a channel: its bus (Eqs. 4, 8) or its dies (Eqs. 3, 9).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    Bus,
    Die,
}

impl Bound {
    pub fn name(self) -> &'static str {
        match self {
            Bound::Bus => "bus",
            Bound::Die => "die",
        }
    }
}

/// A channel's or the SSD's rate and what bounds it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rate {
    pub value: f64,
    pub bound: Bound,
}

/// Eqs. 3, 4 and 6: one channel's bandwidth, MB/s, for pages of `page_bytes` at
/// `die_latency_us`. Die-bound when the die latency exceeds the threshold (§3.2.2's text;
/// Table 3.3 prints the condition the other way round).
pub fn channel_bandwidth(arch: &Architecture, die_latency_us: f64, page_bytes: u64) -> Rate {
    if die_latency_us > arch.threshold_us(page_bytes) {
        Rate { value: (arch.dies_per_channel - 1) as f64 * page_bytes as f64 / die_latency_us, bound: Bound::Die }
    } else {
        Rate { value: arch.channel_speed_mb_s, bound: Bound::Bus }
    }
}

/// Eqs. 8, 9 and 11: one channel's operations per second for accesses of `access_bytes`
/// (each still costing a whole page's `die_latency_us`, §3.2.2, IOPS).
pub fn channel_iops(arch: &Architecture, die_latency_us: f64, access_bytes: u64) -> Rate {
    if die_latency_us > arch.threshold_us(access_bytes) {
        Rate { value: (arch.dies_per_channel - 1) as f64 / die_latency_us * 1e6, bound: Bound::Die }
    } else {
        Rate { value: 1e6 / arch.transfer_time_us(access_bytes), bound: Bound::Bus }
    }
}

/// Eqs. 2 and 7: the SSD is its channels side by side.
pub fn ssd_rate(arch: &Architecture, channel: Rate) -> Rate {
    Rate { value: channel.value * arch.channels as f64, bound: channel.bound }
}

/// The IOPS of one access size.
#[derive(Debug, Clone, PartialEq)]
pub struct AccessIops {
    pub access_bytes: u64,
    pub read: Rate,
    pub write: Rate,
}

/// Every metric of one (configuration, feature size, fit): one row of `ssdlab scaling`.
#[derive(Debug, Clone, PartialEq)]
pub struct Projection {
    pub configuration: Configuration,
    pub feature_nm: f64,
    pub fit: Fit,
    pub page_bytes: u64,
    pub capacity_gb: f64,
    pub price_per_gb_usd: f64,
    pub read_latency_us: f64,
    pub write_latency_us: f64,
    /// MB/s.
    pub read_bandwidth: Rate,
    pub write_bandwidth: Rate,
    pub iops: Vec<AccessIops>,
}

/// Projects one configuration at one feature size. `access_sizes_bytes` are the IOPS
/// columns (Fig. 3.8: 512 B and 4 kB); none may exceed the configuration's page.
pub fn project(
    arch: &Architecture,
    configuration: Configuration,
    feature_nm: f64,
    fit: Fit,
    die_latency: DieLatency,
    access_sizes_bytes: &[u64],
) -> Result<Projection, ScalingError> {
    arch.validate()?;
    check_feature(feature_nm)?;
    let page_bytes = arch.page_bytes(configuration);
    for &access_bytes in access_sizes_bytes {
        if access_bytes == 0 {
            return Err(ScalingError::Parameter {
                name: "access size",
                value: "0".into(),
                why: "must be at least 1 byte",
            });
        }
        if access_bytes > page_bytes {
            return Err(ScalingError::AccessLargerThanPage { access_bytes, configuration, page_bytes });
        }
    }
    let die = |op| die_latency_us(arch, configuration, op, fit, feature_nm, die_latency);
    let (die_read, die_write) = (die(Operation::Read), die(Operation::Write));
    let capacity = capacity_gb(arch, configuration, feature_nm);
    Ok(Projection {
        configuration,
        feature_nm,
        fit,
        page_bytes,
        capacity_gb: capacity,
        price_per_gb_usd: arch.price_usd / capacity,
        read_latency_us: latency_us(arch, configuration, Operation::Read, fit, feature_nm),
        write_latency_us: latency_us(arch, configuration, Operation::Write, fit, feature_nm),
        read_bandwidth: ssd_rate(arch, channel_bandwidth(arch, die_read, page_bytes)),
        write_bandwidth: ssd_rate(arch, channel_bandwidth(arch, die_write, page_bytes)),
        iops: access_sizes_bytes
            .iter()
            .map(|&access_bytes| AccessIops {
                access_bytes,
                read: ssd_rate(arch, channel_iops(arch, die_read, access_bytes)),
                write: ssd_rate(arch, channel_iops(arch, die_write, access_bytes)),
            })
            .collect(),
    })
}

/// §3.3's sweep: "72 nm to 6.5 nm". The thesis names only the ends; between them we take
/// the nodes of the chips Chapter 2 measured (72, 50, 41, 34, 25 nm) and a few steps of
/// the roadmap below them.
pub const DEFAULT_FEATURE_SIZES_NM: [f64; 13] =
    [72.0, 65.0, 50.0, 45.0, 41.0, 34.0, 25.0, 20.0, 16.0, 12.0, 10.0, 8.0, 6.5];

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    /// Three cells of Table 3.3, computed by hand from Tables 3.1 and 3.2 (units: µs,
    /// bytes, MB/s = bytes/µs), so a wrong equation, condition or constant fails.
    #[test]
    fn three_cells_of_table_3_3_by_hand() {
        let arch = Architecture::default();
        // Eq. 1, TLC-3 at 17 nm: 320 GB × (3 / 2) × (34 / 17)² = 320 × 1.5 × 4 = 1920 GB;
        // the baseline itself, MLC-2 at 34 nm: 320 × 1 × 1 = 320 GB.
        assert!(close(capacity_gb(&arch, Configuration::Tlc3, 17.0), 1920.0));
        assert!(close(capacity_gb(&arch, Configuration::Mlc2, 34.0), 320.0));
        // Eqs. 3, 5, 6, MLC-2 write (avg) at 34 nm, die latency without the overhead:
        // 1084.4 × e^(−8.6e-3 × 34) = 1084.4 × e^(−0.2924) = 1084.4 × 0.7464698882924860
        // = 809.4719468643718 µs; threshold = 3 × 4096 B / 400 B/µs = 30.72 µs, exceeded,
        // so Eq. 3: 3 × 4096 / 809.4719468643718 = 15.180266651117 MB/s per channel, and
        // Eq. 2: × 24 = 364.32639962681 MB/s.
        let write = project(&arch, Configuration::Mlc2, 34.0, Fit::Avg, DieLatency::Flash, &[]).unwrap();
        assert_eq!(write.write_bandwidth.bound, Bound::Die);
        assert!((write.write_bandwidth.value - 364.32639962681).abs() < 1e-9, "{:?}", write.write_bandwidth);
        assert!((write.write_latency_us - (809.4719468643718 + 30.0)).abs() < 1e-9);
        // Eq. 4 on the other side, SLC-1 read (avg) at 34 nm: 23.4 × e^(−3.2e-3 × 34) =
        // 23.4 × 0.8969097815175392 = 20.98768888751 µs ≤ 30.72 µs, so the bus: 400 MB/s
        // per channel, 9,600 MB/s for the SSD.
        let read = project(&arch, Configuration::Slc1, 34.0, Fit::Avg, DieLatency::Flash, &[]).unwrap();
        assert_eq!(read.read_bandwidth, Rate { value: 9600.0, bound: Bound::Bus });
        // Eqs. 7–11, TLC-3 write (avg) at 6.5 nm, 512-B accesses: 2286.2 × e^(−7.1e-3 ×
        // 6.5) = 2286.2 × 0.9548987166400709 = 2183.08944598253 µs > 3 × 512 / 400 =
        // 3.84 µs, so Eq. 9: 3 / 2183.08944598253 µs = 1374.19930526475 IOPS per channel,
        // × 24 = 32,980.7833263540 IOPS (§3.3.3's slowest configuration).
        let tlc = project(&arch, Configuration::Tlc3, 6.5, Fit::Avg, DieLatency::Flash, &[512]).unwrap();
        assert_eq!(tlc.iops[0].write.bound, Bound::Die);
        assert!((tlc.iops[0].write.value - 32_980.783_326_354).abs() < 1e-6, "{:?}", tlc.iops[0]);
    }

    #[test]
    fn the_die_bound_applies_above_the_threshold_and_meets_the_bus_there() {
        let arch = Architecture::default();
        let threshold = arch.threshold_us(4096);
        assert!(close(threshold, 30.72));
        assert_eq!(channel_bandwidth(&arch, threshold * 0.5, 4096).bound, Bound::Bus);
        assert_eq!(channel_bandwidth(&arch, threshold * 2.0, 4096).bound, Bound::Die);
        // Continuous at the threshold, and never above the bus: Table 3.3's printed
        // conditions would give 800 MB/s per channel at half the threshold.
        assert!(close(channel_bandwidth(&arch, threshold * (1.0 + 1e-12), 4096).value, 400.0));
        assert!(close(channel_iops(&arch, arch.threshold_us(512) * (1.0 + 1e-12), 512).value, 1e6 / 1.28));
        for latency in [1.0, 10.0, 30.0, 31.0, 100.0, 5000.0] {
            assert!(channel_bandwidth(&arch, latency, 4096).value <= 400.0 + 1e-9);
        }
    }

    #[test]
    fn every_shrink_percentage_of_table_3_2_agrees_with_its_exponent() {
        for c in Configuration::ALL {
            for op in [Operation::Read, Operation::Write] {
                for fit in Fit::ALL {
                    let t = c.trend(op, fit);
                    assert!(t.shrink_increase_consistent(), "{c} {} {}: {t:?}", op.name(), fit.name());
                }
            }
        }
        // The check can fail: one digit off in an exponent is caught.
        let typo = Exponential { exponent_mantissa: -1.2, ..Configuration::Slc1.trend(Operation::Write, Fit::Min) };
        assert!(!typo.shrink_increase_consistent());
    }

    #[test]
    fn capacity_inverts_and_bad_input_is_refused() {
        let arch = Architecture::default();
        let f = feature_for_capacity_nm(&arch, Configuration::Tlc3, 4600.0);
        assert!(close(capacity_gb(&arch, Configuration::Tlc3, f), 4600.0));
        let err = |r: Result<Projection, ScalingError>| r.unwrap_err().to_string();
        let p = |f, access: &[u64], arch: &Architecture| {
            project(arch, Configuration::Mlc2, f, Fit::Avg, DieLatency::Flash, access)
        };
        assert!(err(p(-5.0, &[], &arch)).contains("-5 nm"));
        assert!(err(p(f64::NAN, &[], &arch)).contains("positive"));
        assert!(err(p(34.0, &[8192], &arch)).contains("larger than MLC-2's 4096-B page"));
        assert!(err(p(34.0, &[0], &arch)).contains("access size"));
        let one_die = Architecture { dies_per_channel: 1, ..Architecture::default() };
        assert!(err(p(34.0, &[], &one_die)).contains("dies_per_channel = 1"));
        assert!("QLC-4".parse::<Configuration>().unwrap_err().to_string().contains("available: SLC-1"));
        assert_eq!("tlc3".parse::<Configuration>(), Ok(Configuration::Tlc3));
        assert_eq!("Average".parse::<Fit>(), Ok(Fit::Avg));
    }
}

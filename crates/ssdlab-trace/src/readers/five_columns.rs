//! The whitespace-separated five-column layout `time_ms device offset size op` that
//! DiskSim, FlashSim and the byte-unit replay tools share; they differ only in the units
//! of the offset and size columns and in how the last column names the operation.

use super::driver::Parsed;
use super::line::{self, parse_decimal, parse_device, parse_u64, quote, DataLine};
use crate::{Op, TraceError};

/// One format's reading of the five columns.
pub(super) struct FiveColumns {
    /// Field names in errors.
    pub names: [&'static str; 5],
    /// "whitespace-separated fields for …", and the expected layout, in errors.
    pub what: &'static str,
    pub layout: &'static str,
    /// Bytes per offset and per size unit, and the unit's name (1 = bytes, as they are).
    pub offset_unit: (u64, &'static str),
    pub size_unit: (u64, &'static str),
    pub op: OpColumn,
}

/// How the last column names the operation.
pub(super) enum OpColumn {
    /// DiskSim's flags: bit 0 set = read.
    Flags,
    /// 1 = read, 0 = write, anything else an error naming who uses that code.
    ReadOneWriteZero(&'static str),
}

fn scaled(
    l: &DataLine<'_>,
    field: &'static str,
    raw: &[u8],
    (unit, name): (u64, &'static str),
) -> Result<u64, TraceError> {
    let n = parse_u64(raw).map_err(|m| l.error(field, m))?;
    if unit == 1 {
        return Ok(n);
    }
    line::scale(raw, n, unit, name).map_err(|m| l.error(field, m))
}

/// Parses one data line of the layout `f`.
pub(super) fn parse(f: &FiveColumns, l: &DataLine<'_>) -> Result<Parsed, TraceError> {
    let [time, dev, offset, size, op] =
        line::split_fields(l, l.whitespace_fields(), &f.names, f.what, f.layout, false)?;
    let arrival_ns = l.time(time, |t| parse_decimal(t, 6))?;
    let device = parse_device(dev).map_err(|m| l.error("device", m))?;
    let offset_bytes = scaled(l, "offset", offset, f.offset_unit)?;
    let size_bytes = scaled(l, "size", size, f.size_unit)?;
    let field = f.names[4];
    let code = parse_u64(op).map_err(|m| l.error(field, m))?;
    let op = match (&f.op, code) {
        (OpColumn::Flags, flags) if flags & 1 == 1 => Op::Read,
        (OpColumn::Flags, _) | (OpColumn::ReadOneWriteZero(_), 0) => Op::Write,
        (OpColumn::ReadOneWriteZero(_), 1) => Op::Read,
        (OpColumn::ReadOneWriteZero(who), _) => {
            return Err(l.error(field, format!("unknown op code '{}' ({who} uses 1 = read, 0 = write)", quote(op))))
        }
    };
    line::finish(l, arrival_ns, device, offset_bytes, size_bytes, op).map(Parsed::Record)
}

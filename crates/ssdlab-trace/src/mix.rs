//! A trace mixer: a second stream's records interleaved into a main stream so that they
//! make up a fixed share of all requests, each tagged with a hint (the thesis' Swap
//! scenario, §7.2: "we interleaved requests from the SwapSpace trace with requests from
//! other traces so that swap requests accounted for between 5 and 20% of the total").
//!
//! The main stream keeps its order and its clock: a mixed-in record takes the arrival
//! time of the main record it is placed before, so arrivals never go backwards. The mixed
//! stream starts again from its beginning when it runs out (through `reopen`), so a short
//! swap trace can accompany a long one; the mix ends with the main stream.

use crate::{Record, RecordSource, TraceError};

/// Opens the mixed-in stream again from its start.
pub type Reopen = Box<dyn FnMut() -> Result<Box<dyn RecordSource>, TraceError> + Send>;

/// Where the mixed-in records land and what they carry.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MixSpec {
    /// The mixed-in records' share of all requests, 0 < share < 1.
    pub share: f64,
    /// The hint every mixed-in record carries (`None`: its own).
    pub hint: Option<u8>,
    /// Added to every mixed-in record's address after wrapping it into `size_bytes`.
    pub offset_bytes: u64,
    /// The mixed-in records' logical range from `offset_bytes` (0: no wrapping).
    pub size_bytes: u64,
}

impl MixSpec {
    /// Places a mixed-in record in its range and tags it (as a flow's records are placed:
    /// the address modulo the range, a request crossing its end starting early enough).
    pub fn place(&self, record: &mut Record) {
        place_in_range(record, self.offset_bytes, self.size_bytes, self.hint);
    }
}

/// Wraps a record's address into `size_bytes` (0: no wrapping; a request that would
/// cross the end starts early enough to fit), adds `offset_bytes`, and sets `hint` if
/// given: how a flow's and a mixed-in stream's records are placed (MQSim's flows).
pub fn place_in_range(record: &mut Record, offset_bytes: u64, size_bytes: u64, hint: Option<u8>) {
    if size_bytes > 0 {
        let start = record.offset_bytes % size_bytes;
        record.offset_bytes =
            if start + record.size_bytes > size_bytes { size_bytes.saturating_sub(record.size_bytes) } else { start };
    }
    record.offset_bytes = record.offset_bytes.saturating_add(offset_bytes);
    if hint.is_some() {
        record.hint = hint;
    }
}

pub struct MixSource {
    main: Box<dyn RecordSource>,
    mixed: Option<Box<dyn RecordSource>>,
    reopen: Option<Reopen>,
    spec: MixSpec,
    /// The next main record (peeked: a mixed-in record takes its time).
    pending: Option<Record>,
    /// Bresenham accumulator in millionths (exact for shares such as 0.2): a mixed-in
    /// record is due when it reaches a million.
    due: u64,
    share_ppm: u64,
    /// Mixed-in records emitted, and times the mixed stream was started again.
    pub mixed_records: u64,
    pub restarts: u64,
    /// Records each stream skipped (lenient parsing), the mixed stream's over every pass.
    skipped_mixed: u64,
    /// [`skipped_mixed`](MixSource::skipped_mixed) by reason.
    reasons_mixed: Vec<(&'static str, u64)>,
}

impl MixSource {
    pub fn new(
        main: Box<dyn RecordSource>,
        mixed: Box<dyn RecordSource>,
        reopen: Option<Reopen>,
        spec: MixSpec,
    ) -> Self {
        debug_assert!(spec.share > 0.0 && spec.share < 1.0);
        MixSource {
            main,
            mixed: Some(mixed),
            reopen,
            spec,
            pending: None,
            due: 0,
            share_ppm: (spec.share * 1e6).round() as u64,
            mixed_records: 0,
            restarts: 0,
            skipped_mixed: 0,
            reasons_mixed: Vec::new(),
        }
    }

    /// The mixed stream's next record, starting it again once when it ends.
    fn next_mixed(&mut self) -> Option<Result<Record, TraceError>> {
        for _ in 0..2 {
            let source = self.mixed.as_mut()?;
            match source.next() {
                Some(r) => return Some(r),
                None => {
                    self.skipped_mixed += source.skipped();
                    crate::merge_skip_reasons(&mut self.reasons_mixed, &source.skip_reasons());
                    self.mixed = None;
                    let reopen = self.reopen.as_mut()?;
                    match reopen() {
                        Ok(s) => {
                            self.restarts += 1;
                            self.mixed = Some(s);
                        }
                        Err(e) => return Some(Err(e)),
                    }
                }
            }
        }
        // (A mixed stream with no records at all: mix nothing.)
        self.mixed = None;
        None
    }
}

impl Iterator for MixSource {
    type Item = Result<Record, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.pending.is_none() {
            match self.main.next()? {
                Ok(r) => self.pending = Some(r),
                Err(e) => return Some(Err(e)),
            }
        }
        // Every emitted record adds the share; a mixed-in record is due at each whole one.
        self.due += self.share_ppm;
        if self.due >= 1_000_000 && self.mixed.is_some() {
            self.due -= 1_000_000;
            match self.next_mixed() {
                Some(Ok(mut r)) => {
                    r.arrival_ns = self.pending.as_ref().expect("peeked").arrival_ns;
                    self.spec.place(&mut r);
                    self.mixed_records += 1;
                    return Some(Ok(r));
                }
                Some(Err(e)) => return Some(Err(e)),
                None => {}
            }
        }
        self.pending.take().map(Ok)
    }
}

impl RecordSource for MixSource {
    fn format_name(&self) -> &'static str {
        self.main.format_name()
    }

    fn skipped(&self) -> u64 {
        self.main.skipped() + self.skipped_mixed + self.mixed.as_ref().map_or(0, |m| m.skipped())
    }

    fn skip_reasons(&self) -> Vec<(&'static str, u64)> {
        let mut all = self.main.skip_reasons();
        crate::merge_skip_reasons(&mut all, &self.reasons_mixed);
        if let Some(m) = &self.mixed {
            crate::merge_skip_reasons(&mut all, &m.skip_reasons());
        }
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Op;

    struct Vecs(std::vec::IntoIter<Record>);
    impl Iterator for Vecs {
        type Item = Result<Record, TraceError>;
        fn next(&mut self) -> Option<Self::Item> {
            self.0.next().map(Ok)
        }
    }
    impl RecordSource for Vecs {
        fn format_name(&self) -> &'static str {
            "vec"
        }
    }

    fn records(n: u64, device: u32, step_ns: u64) -> Vec<Record> {
        (0..n)
            .map(|i| Record {
                arrival_ns: i * step_ns,
                device,
                offset_bytes: i * 4096,
                size_bytes: 4096,
                op: Op::Write,
                hint: None,
            })
            .collect()
    }

    fn mix(main: u64, mixed: u64, share: f64, reopen: bool) -> (Vec<Record>, u64) {
        let m = records(mixed, 1, 7);
        let reopen: Option<Reopen> = reopen.then(|| {
            let m = m.clone();
            Box::new(move || Ok(Box::new(Vecs(m.clone().into_iter())) as Box<dyn RecordSource>)) as Reopen
        });
        let spec = MixSpec { share, hint: Some(0), offset_bytes: 1 << 30, size_bytes: 1 << 20 };
        let mut s = MixSource::new(
            Box::new(Vecs(records(main, 0, 1000).into_iter())),
            Box::new(Vecs(m.into_iter())),
            reopen,
            spec,
        );
        let out: Vec<Record> = s.by_ref().map(|r| r.unwrap()).collect();
        (out, s.restarts)
    }

    #[test]
    fn the_share_is_exact_and_main_keeps_its_order_and_clock() {
        for share in [0.05, 0.1, 0.2, 0.5] {
            let (out, _) = mix(10_000, 1_000_000, share, false);
            let mixed = out.iter().filter(|r| r.device == 1).count() as f64;
            let got = mixed / out.len() as f64;
            assert!((got - share).abs() < 1e-3, "share {share}: got {got}");
            let main: Vec<u64> = out.iter().filter(|r| r.device == 0).map(|r| r.arrival_ns).collect();
            assert_eq!(main, (0..10_000).map(|i| i * 1000).collect::<Vec<_>>());
            assert!(out.windows(2).all(|w| w[0].arrival_ns <= w[1].arrival_ns), "arrivals never go back");
            for r in out.iter().filter(|r| r.device == 1) {
                assert_eq!(r.hint, Some(0));
                assert!(r.offset_bytes >= 1 << 30 && r.offset_bytes + r.size_bytes <= (1 << 30) + (1 << 20));
            }
        }
    }

    #[test]
    fn a_short_mixed_stream_starts_again_or_stops() {
        let (out, restarts) = mix(1000, 10, 0.2, true);
        // (Every fifth record; the mix ends with the main stream's last record.)
        assert_eq!(out.iter().filter(|r| r.device == 1).count(), 249);
        assert_eq!(restarts, 24);
        let (out, _) = mix(1000, 10, 0.2, false);
        assert_eq!(out.iter().filter(|r| r.device == 1).count(), 10);
        assert_eq!(out.iter().filter(|r| r.device == 0).count(), 1000);
    }
}

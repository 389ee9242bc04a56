use super::*;

const GIB: u64 = 1 << 30;

fn job(text: &str) -> FioJob {
    FioJob::parse_ini(text, "job.fio").unwrap_or_else(|e| panic!("{e}"))
}

fn err(text: &str) -> FioError {
    FioJob::parse_ini(text, "job.fio").unwrap_err()
}

fn records(text: &str, capacity: u64) -> Vec<Record> {
    job(text).source(capacity).unwrap().map(Result::unwrap).collect()
}

#[test]
fn parses_a_fio_job_file() {
    let j = job("; comment\n# another\n[global]\nbs=8k\nsize=1g\nioengine=libaio\ndirect=1\n\n\
                 [oltp]\nrw=randrw\nrwmixread=70\niodepth=32\nrandom_distribution=zipf:1.2\n\
                 time_based\nruntime=30s\nthinktime=250\nrandseed=42\n");
    assert_eq!(j.name, "oltp");
    assert_eq!((j.rw, j.read_percent, j.iodepth(), j.randseed), (RwMode::RandRw, 70.0, 32, 42));
    assert_eq!(j.block_sizes, [SizeDist::Fixed(8192), SizeDist::Fixed(8192), SizeDist::Fixed(8192)]);
    assert_eq!(j.size, Some(Extent::Bytes(GIB)));
    assert_eq!(j.distribution, AddressDistribution::Zipf { theta: 1.2 });
    assert_eq!((j.time_based, j.runtime_ns, j.thinktime_ns), (true, Some(30_000_000_000), 250_000));
    assert_eq!(j.ignored_keys, ["ioengine", "direct"]);
    assert!(j.has_timestamps());
}

#[test]
fn toml_jobs_read_like_ini_jobs() {
    let toml = "bs = \"8k\"\nsize = \"1g\"\n[oltp]\nrw = \"randrw\"\nrwmixread = 70\niodepth = 32\n\
                random_distribution = \"zipf:1.2\"\ntime_based = true\nruntime = \"30s\"\nthinktime = 250\n\
                randseed = 42\nioengine = \"libaio\"\ndirect = 1\n";
    let mut a = FioJob::parse_toml(toml, "job.toml").unwrap();
    let b =
        job("[global]\nbs=8k\nsize=1g\n[oltp]\nrw=randrw\nrwmixread=70\niodepth=32\nrandom_distribution=zipf:1.2\n\
                 time_based\nruntime=30s\nthinktime=250\nrandseed=42\nioengine=libaio\ndirect=1\n");
    a.ignored_keys.sort();
    let mut b2 = b.clone();
    b2.ignored_keys.sort();
    b2.file = "job.toml".to_string();
    assert_eq!(a, b2);
    let e = FioJob::parse_toml("[job]\nrw = \"read\"\nblocksiez = \"4k\"\n", "j.toml").unwrap_err();
    assert_eq!((e.line, e.key.as_str()), (3, "blocksiez"));
    assert!(e.message.contains("did you mean 'blocksize'"), "{e}");
    let e = FioJob::parse_toml("rw = [1, 2]\n", "j.toml").unwrap_err();
    assert_eq!((e.line, e.key.as_str()), (1, "rw"));
    let e = FioJob::parse_toml("rw = \n", "j.toml").unwrap_err();
    assert_eq!(e.line, 1);
    let e = FioJob::parse_toml("[a]\nrw = \"read\"\n[b]\nrw = \"write\"\n", "j.toml").unwrap_err();
    assert_eq!(e.line, 3);
    assert!(e.message.contains("only one job per file"), "{e}");
}

#[test]
fn per_op_block_sizes_follow_fio_comma_rules() {
    let bs = |v: &str| job(&format!("[j]\nbs={v}\n")).block_sizes.map(|s| s.max());
    assert_eq!(bs("256k"), [262_144; 3]);
    assert_eq!(bs("8k,32k"), [8192, 32_768, 32_768]);
    assert_eq!(bs("8k,32k,"), [8192, 32_768, 4096]);
    assert_eq!(bs(",8k"), [4096, 8192, 8192]);
    assert_eq!(bs(",8k,"), [4096, 8192, 4096]);
    assert_eq!(job("[j]\nkb_base=1000\nbs=4k\n").block_sizes[0], SizeDist::Fixed(4000));
    assert_eq!(
        job("[j]\nbssplit=4k/50:8k:64k\n").block_sizes[0],
        SizeDist::Split(vec![(4096, 50.0), (8192, 25.0), (65_536, 25.0)])
    );
    assert_eq!(job("[j]\nbsrange=4k-64k\n").block_sizes[1], SizeDist::Range { min: 4096, max: 65_536 });
}

#[test]
fn errors_name_line_key_and_suggest() {
    let cases: &[(&str, u64, &str, &str)] = &[
        ("[j]\nrw=randraed\n", 2, "rw", "unknown rw 'randraed'"),
        ("[j]\nrw=randread:8\n", 2, "rw", "offset modifier"),
        ("[j]\niodepht=4\n", 2, "iodepht", "did you mean 'iodepth'"),
        ("[j]\nbs=4q\n", 2, "bs", "invalid size"),
        ("[j]\nbs=0\n", 2, "bs", "at least 1 byte"),
        ("[j]\nbssplit=4k/50:8k/30\n", 2, "bssplit", "add up to 80"),
        ("[j]\nbssplit=4k/80:8k/30\n", 2, "bssplit", "more than 100"),
        ("[j]\nrwmixread=70\nrwmixwrite=40\n", 3, "rwmixwrite", "do not add up to 100"),
        ("[j]\nrwmixread=170\n", 2, "rwmixread", "outside [0, 100]"),
        ("[j]\nrandom_distribution=zipf:-1\n", 2, "random_distribution", "≥ 0"),
        ("[j]\ntime_based\n", 2, "time_based", "needs a runtime"),
        ("[j]\nnumjobs=4\n", 2, "numjobs", "one job per file"),
        ("[j]\nkb_base=512\n", 2, "kb_base", "1024 or 1000"),
        ("[j]\nrate_iops=100,200\n", 2, "rate_iops", "not supported"),
        ("[j]\npriority=1\nhint_split=0/50:1/50\n", 3, "hint_split", "conflicts with 'priority'"),
        ("[j]\nhint_split=0/50:1/40\n", 2, "hint_split", "add up to 90"),
        ("[j]\npriority=300\n", 2, "priority", "0-255"),
        ("[j]\nthinktime=5 parsecs\n", 2, "thinktime", "invalid time"),
        ("[j]\nsize\n", 2, "size", "needs a value"),
        ("bs=4k\n", 1, "bs", "outside a section"),
    ];
    for &(text, line, key, needle) in cases {
        let e = err(text);
        assert_eq!((e.line, e.key.as_str(), e.file.as_str()), (line, key, "job.fio"), "{text}: {e}");
        assert!(e.message.contains(needle), "{text}: {e}");
    }
    let e = err("[a]\nrw=read\n[b]\nrw=write\n");
    assert_eq!(e.line, 3);
    assert!(e.message.contains("only one job per file"), "{e}");
    assert_eq!(err("[j\n").line, 1);
    assert_eq!(err("[j]\nfoo=1\n").to_string(), "job.fio:2: key 'foo': unknown key");
}

#[test]
fn sequential_job_covers_its_region_once() {
    let recs = records("[j]\nrw=write\nbs=64k\nsize=1m\noffset=1m\n", GIB);
    assert_eq!(recs.len(), 16);
    for (i, r) in recs.iter().enumerate() {
        assert_eq!(
            (r.offset_bytes, r.size_bytes, r.op, r.arrival_ns),
            ((1 << 20) + i as u64 * 65_536, 65_536, Op::Write, 0)
        );
    }
    // loops and number_ios
    assert_eq!(records("[j]\nrw=read\nbs=64k\nsize=1m\nloops=3\n", GIB).len(), 48);
    assert_eq!(records("[j]\nrw=read\nbs=64k\nsize=1m\nloops=3\nnumber_ios=20\n", GIB).len(), 20);
    // io_size beyond size wraps around
    let recs = records("[j]\nrw=read\nbs=512k\nsize=1m\nio_size=2m\n", GIB);
    assert_eq!(recs.iter().map(|r| r.offset_bytes >> 19).collect::<Vec<_>>(), [0, 1, 0, 1]);
}

#[test]
fn percent_sizes_and_region_checks() {
    let j = job("[j]\nsize=50%\noffset=25%\n");
    assert_eq!(j.region(4 * GIB).unwrap(), (GIB, 2 * GIB));
    let e = job("[j]\nsize=4g\noffset=1g\n").region(4 * GIB).unwrap_err();
    assert!(e.message.contains("exceeds") && e.to_string().starts_with("job.fio: key 'size': "), "{e}");
    assert!(job("[j]\nsize=4k\nbs=8k\n").region(GIB).unwrap_err().message.contains("smaller than"));
    assert_eq!(job("[j]\noffset=1g\n").region(4 * GIB).unwrap(), (GIB, 3 * GIB));
}

#[test]
fn timing_rate_thinktime_bursts_and_runtime() {
    let recs = records("[j]\nrw=randread\nsize=1g\nrate_iops=1000\nnumber_ios=3\n", GIB);
    assert_eq!(recs.iter().map(|r| r.arrival_ns).collect::<Vec<_>>(), [0, 1_000_000, 2_000_000]);
    let recs = records("[j]\nrw=read\nsize=1g\nthinktime=10\nthinktime_blocks=2\nnumber_ios=5\n", GIB);
    assert_eq!(recs.iter().map(|r| r.arrival_ns).collect::<Vec<_>>(), [0, 0, 10_000, 10_000, 20_000]);
    let recs = records("[j]\nrw=write\nsize=1g\nrate_iops=1000000\nburst_ios=2\nburst_idle=1ms\nnumber_ios=5\n", GIB);
    assert_eq!(recs.iter().map(|r| r.arrival_ns).collect::<Vec<_>>(), [0, 1000, 1_002_000, 1_003_000, 2_004_000]);
    let recs = records("[j]\nrw=randwrite\nsize=1g\nrate_iops=100\nruntime=1s\ntime_based\n", GIB);
    assert_eq!(recs.len(), 100);
    let j = job("[j]\nrw=randwrite\nsize=1g\nruntime=1s\ntime_based\n");
    assert!(j.is_unbounded() && !j.has_timestamps());
    assert_eq!(j.source(GIB).unwrap().take(1_000_000).count(), 1_000_000);
}

#[test]
fn hints_fixed_and_split() {
    let recs = records("[j]\nrw=randread\nsize=1g\npriority=2\nnumber_ios=10\n", GIB);
    assert!(recs.iter().all(|r| r.hint == Some(2)));
    let recs = records("[j]\nrw=randread\nsize=1g\nhint_split=0/10:3/90\nnumber_ios=100000\n", GIB);
    let zeros = recs.iter().filter(|r| r.hint == Some(0)).count() as f64 / 1e5;
    assert!((zeros - 0.1).abs() < 0.005, "{zeros}");
    assert!(recs.iter().all(|r| matches!(r.hint, Some(0) | Some(3))));
}

#[test]
fn mixes_trims_alignment_and_percentage_random() {
    let recs = records("[j]\nrw=randrw\nrwmixwrite=25\nsize=1g\nbs=4k,16k\nnumber_ios=100000\n", GIB);
    let reads: Vec<&Record> = recs.iter().filter(|r| r.op == Op::Read).collect();
    assert!((reads.len() as f64 / 1e5 - 0.75).abs() < 0.01);
    assert!(reads.iter().all(|r| r.size_bytes == 4096 && r.offset_bytes % 4096 == 0));
    assert!(recs.iter().filter(|r| r.op == Op::Write).all(|r| r.size_bytes == 16_384 && r.offset_bytes % 16_384 == 0));
    let recs = records("[j]\nrw=randtrim\nsize=1g\nbs=1m\nnumber_ios=100\n", GIB);
    assert!(recs.iter().all(|r| r.op == Op::Trim && r.offset_bytes % (1 << 20) == 0 && r.offset_bytes < GIB));
    let recs = records("[j]\nrw=randread\nsize=1g\npercentage_random=20\nnumber_ios=100000\n", GIB);
    let seq = recs.windows(2).filter(|w| w[1].offset_bytes == w[0].offset_bytes + 4096).count() as f64 / 1e5;
    assert!((seq - 0.8).abs() < 0.01, "{seq}");
    let recs = records("[j]\nrw=randread\nsize=1g\nbs=4k\nba=64k\nnumber_ios=1000\n", GIB);
    assert!(recs.iter().all(|r| r.offset_bytes % 65_536 == 0));
    let recs = records("[j]\nrw=randread\nsize=1g\nbsrange=4k-64k\nnumber_ios=10000\n", GIB);
    assert!(recs.iter().all(|r| r.size_bytes % 4096 == 0 && (4096..=65_536).contains(&r.size_bytes)));
    assert!(recs.iter().any(|r| r.size_bytes == 65_536) && recs.iter().any(|r| r.size_bytes == 4096));
}

#[test]
fn deterministic_per_seed() {
    let text = "[j]\nrw=randrw\nsize=1g\nbssplit=4k/50:64k/50\nrandom_distribution=pareto:0.2\nnumber_ios=1000\n";
    assert_eq!(records(text, GIB), records(text, GIB));
    assert_ne!(records(text, GIB), records(&format!("{text}randseed=2\n"), GIB));
}

/// The acceptance test: bssplit mix within 2% and the Zipf rank-frequency slope within
/// 0.05 of θ, with a fixed seed.
#[test]
fn bssplit_and_zipf_follow_the_job() {
    let theta = 1.2;
    let recs = records(
        &format!(
            "[global]\nsize=1g\nrandseed=7\n[zipf]\nrw=randread\nbssplit=4k/50:8k/30:64k/20\n\
             random_distribution=zipf:{theta}\nnumber_ios=400000\n"
        ),
        16 * GIB,
    );
    assert_eq!(recs.len(), 400_000);
    let n = recs.len() as f64;
    for (size, share) in [(4096, 0.5), (8192, 0.3), (65_536, 0.2)] {
        let got = recs.iter().filter(|r| r.size_bytes == size).count() as f64 / n;
        assert!((got - share).abs() < 0.02, "{size}: {got}");
    }
    let mut counts = std::collections::HashMap::new();
    for r in &recs {
        *counts.entry(r.offset_bytes / 4096).or_insert(0u64) += 1;
    }
    let mut freq: Vec<u64> = counts.into_values().collect();
    freq.sort_unstable_by(|a, b| b.cmp(a));
    // Least-squares slope of ln(frequency) against ln(rank) over the top 100 ranks.
    let pts: Vec<(f64, f64)> =
        freq[..100].iter().enumerate().map(|(i, &f)| (((i + 1) as f64).ln(), (f as f64).ln())).collect();
    let (mx, my) = (pts.iter().map(|p| p.0).sum::<f64>() / 100.0, pts.iter().map(|p| p.1).sum::<f64>() / 100.0);
    let slope =
        pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum::<f64>() / pts.iter().map(|p| (p.0 - mx).powi(2)).sum::<f64>();
    assert!((-slope - theta).abs() < 0.05, "slope {slope}");
    // The permutation spreads the hottest pages over the region.
    let hot: Vec<u64> = recs.iter().take(1000).map(|r| r.offset_bytes).collect();
    assert!(hot.iter().any(|&o| o > GIB / 2));
}

#[test]
fn unscrambled_zipf_puts_rank_one_first() {
    let recs =
        records("[j]\nrw=randread\nsize=1g\nrandom_distribution=zipf:1.5\nrank_scramble=0\nnumber_ios=10000\n", GIB);
    let at_zero = recs.iter().filter(|r| r.offset_bytes == 0).count();
    assert!(at_zero > 3000, "{at_zero}");
}

/// `zonemode=zbd` (issue 44): writes at the write pointers of at most `max_open_zones`
/// zones, resets at `zone_reset_threshold`, zone keys checked with their names.
#[test]
fn zbd_jobs_write_zones_at_their_write_pointers() {
    let text = "[z]\nzonemode=zbd\nzonesize=64k\nmax_open_zones=2\nzone_reset_threshold=0.5\n\
                rw=write\nbs=16k\nnumber_ios=100\noffset=128k\n";
    let j = job(text);
    assert_eq!(
        j.zbd,
        ZbdOptions {
            enabled: true,
            zone_size: 65536,
            zone_capacity: 0,
            max_open_zones: 2,
            reset_threshold: Some(0.5),
            conventional_bytes: 0
        }
    );
    let rs = records(text, 1 << 20);
    let mut wp = std::collections::BTreeMap::new();
    let mut resets = 0;
    for r in &rs {
        let zone = r.offset_bytes / 65536;
        assert!(zone >= 2, "the region starts at zone 2: {r:?}");
        match r.op {
            Op::Write => {
                let at = wp.entry(zone).or_insert(0u64);
                assert_eq!(r.offset_bytes % 65536, *at);
                *at += r.size_bytes;
            }
            Op::ZoneManagement(crate::ZoneAction::Reset) => {
                assert_eq!(wp.insert(zone, 0), Some(65536), "only full zones are reset");
                resets += 1;
            }
            op => panic!("{op:?}"),
        }
    }
    // 100 writes of a quarter zone fill 25 zones; 7 of the 14 zones may hold data.
    assert_eq!(rs.len(), 100 + resets);
    assert_eq!(resets, 25 - 7 + 1);
    assert_eq!(err("[z]\nzonemode=host\n").key, "zonemode");
    assert_eq!(err("[z]\nzone_reset_threshold=2\n").key, "zone_reset_threshold");
    assert_eq!(err("[z]\nzonemode=zbd\nrw=trim\n").key, "zonemode");
    assert_eq!(err("[z]\nzonmode=zbd\n").message, "unknown key; did you mean 'zonemode'?");
    let unknown = job("[z]\nzonemode=zbd\nrw=write\n").source(1 << 20).unwrap_err();
    assert_eq!(unknown.key, "zonesize", "{unknown}");
}

/// A zbd job's region (`offset`) and the drive's conventional zones (issue 44): writes,
/// resets and reads of a job with offset = 2 zones stay in zones 2 and up, at their write
/// pointers; with 3 conventional zones and offset 2 zones, in zones 3 and up; with
/// offset 4 zones past them, in zones 4 and up.
#[test]
fn zbd_jobs_start_at_their_region_and_past_conventional_zones() {
    let text = "[z]\nzonemode=zbd\nzonesize=64k\nmax_open_zones=2\nzone_reset_threshold=0.5\n\
                rw=randrw\nrwmixread=30\nbs=16k\nnumber_ios=300\noffset=128k\n";
    for (conventional, offset, first) in [(0u64, "128k", 2u64), (3 * 65536, "128k", 3), (3 * 65536, "256k", 4)] {
        let mut j = job(&text.replace("128k", offset));
        j.zbd.conventional_bytes = conventional;
        let rs: Vec<Record> = j.source(1 << 20).unwrap().map(Result::unwrap).collect();
        let mut wp = std::collections::BTreeMap::new();
        let zones: std::collections::BTreeSet<u64> = rs.iter().map(|r| r.offset_bytes / 65536).collect();
        assert_eq!(zones.first(), Some(&first), "{conventional} {offset}: {zones:?}");
        assert!(zones.len() > 5, "{zones:?}");
        for r in &rs {
            let zone = r.offset_bytes / 65536;
            match r.op {
                Op::Write => {
                    let at = wp.entry(zone).or_insert(0u64);
                    assert_eq!(r.offset_bytes % 65536, *at, "{r:?}");
                    *at += r.size_bytes;
                }
                Op::Read => assert!(r.offset_bytes % 65536 + r.size_bytes <= wp[&zone], "{r:?}"),
                Op::ZoneManagement(crate::ZoneAction::Reset) => assert_eq!(wp.insert(zone, 0), Some(65536)),
                op => panic!("{op:?}"),
            }
        }
    }
}

/// `fdp=1` (issue 44): each write's placement identifier from `fdp_pli`, round-robin by
/// default or at random, in the device column; reads keep device 0. fio 3.36's names too.
#[test]
fn fdp_jobs_tag_writes_with_placement_identifiers() {
    let rs = records("[f]\nrw=randrw\nfdp=1\nfdp_pli=3,1\nnumber_ios=40\n", 1 << 20);
    let writes: Vec<u32> = rs.iter().filter(|r| r.op == Op::Write).map(|r| r.device).collect();
    assert!(writes.len() > 4);
    assert!(writes.iter().enumerate().all(|(i, &d)| d == [3, 1][i % 2]), "{writes:?}");
    assert!(rs.iter().filter(|r| r.op == Op::Read).all(|r| r.device == 0));
    let j = job("[f]\nrw=write\ndataplacement=fdp\nplids=0,1,2\nplid_select=random\n");
    assert_eq!(j.dp, DpOptions { enabled: true, plis: vec![0, 1, 2], select: PliSelect::Random });
    let random = records("[f]\nrw=write\nfdp=1\nfdp_pli=0,1,2\nfdp_pli_select=random\nnumber_ios=300\n", 1 << 20);
    let seen: std::collections::BTreeSet<u32> = random.iter().map(|r| r.device).collect();
    assert_eq!(seen, [0, 1, 2].into_iter().collect());
    // Without fdp=1 the identifiers are not used.
    assert!(records("[f]\nrw=write\nfdp_pli=4\nnumber_ios=10\n", 1 << 20).iter().all(|r| r.device == 0));
    assert_eq!(err("[f]\nfdp_pli=a\n").key, "fdp_pli");
    assert_eq!(err("[f]\nfdp_pli_select=sometimes\n").key, "fdp_pli_select");
    assert_eq!(err("[f]\ndataplacement=streams\n").key, "dataplacement");
    assert_eq!(err("[f]\nfdp_plii=1\n").message, "unknown key; did you mean 'fdp_pli'?");
}

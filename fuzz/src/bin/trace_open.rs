//! AFL target `trace_open`: see `ssdlab_fuzz::trace::trace_open`. Each input is written to
//! a scratch file (one per process, in `$TMPDIR`; use a tmpfs such as /dev/shm).

fn main() {
    let scratch = std::env::temp_dir().join(format!("ssdlab-fuzz-{}.trace", std::process::id()));
    afl::fuzz!(|data: &[u8]| {
        ssdlab_fuzz::trace::trace_open(data, &scratch);
    });
    let _ = std::fs::remove_file(&scratch);
}

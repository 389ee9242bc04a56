//! AFL target `fio_job`: see the function it calls.

fn main() {
    afl::fuzz!(|data: &[u8]| {
        ssdlab_fuzz::trace::fio_job(data);
    });
}

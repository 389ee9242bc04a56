//! AFL target `trace_reader`: see the function it calls.

fn main() {
    afl::fuzz!(|data: &[u8]| {
        ssdlab_fuzz::trace::trace_reader(data);
    });
}

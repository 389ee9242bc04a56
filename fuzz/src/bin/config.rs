//! AFL target `config`: see the function it calls.

fn main() {
    afl::fuzz!(|data: &[u8]| {
        ssdlab_fuzz::config::config(data);
    });
}

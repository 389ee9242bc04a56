//! Seed derivation: one root seed, one independent stream per concern, so adding a
//! random draw in one component never shifts another component's sequence.

/// Derives a stream seed from the root seed and a fixed concern name (FNV-1a + splitmix).
pub fn derive(root: u64, concern: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in concern.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    let mut z = root ^ h;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

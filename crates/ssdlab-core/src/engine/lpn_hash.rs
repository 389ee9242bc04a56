//! Hash maps and sets keyed by a logical page (or another `u32` number the engine looks up
//! per sub-request: the mapping table's and the data cache's indexes, pending writes).

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// Hashes a `u32` with one multiplication (Fibonacci hashing), folding the product's high
/// half into the low bits the table indexes with. The tables are probed on every user read
/// and write; the default SipHash cost about 40 instructions a probe. None of them is
/// iterated into a result unsorted, so their order cannot reach one.
#[derive(Default, Clone, Copy)]
pub(crate) struct LpnHasher(u64);

impl Hasher for LpnHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u32(b.into());
        }
    }

    fn write_u32(&mut self, n: u32) {
        let h = (n as u64 ^ self.0).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = h ^ (h >> 32);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

pub(crate) type LpnMap<V> = HashMap<u32, V, BuildHasherDefault<LpnHasher>>;
pub(crate) type LpnSet = HashSet<u32, BuildHasherDefault<LpnHasher>>;

//! Hash maps and sets keyed by a logical page (or another `u32` number the engine looks up
//! per sub-request: pending writes, a write's extra pins), and `LpnTable`, an
//! open-addressing map for the tables probed on every request (the mapping table's index,
//! the data cache's index, flushes in flight and hot-window set).

use std::collections::HashMap;
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

/// The key of a free slot of an `LpnTable` (never a key: logical pages are below it).
const FREE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
struct Slot<V> {
    key: u32,
    value: V,
}

/// A map from a `u32` key (a logical page) to a small `Copy` value: open addressing with
/// linear probing, at most half full, the key stored beside its value, and deletion by
/// shifting the probe sequence back (no tombstones). A probe of a large table at a
/// random page is one cache miss where `LpnMap` (hashbrown: control bytes and buckets in
/// two arrays) takes two, and an absent key is usually told by the first slot it looks
/// at. On MQSim's default drive with its mapping table, nearly every request evicts an
/// entry: a lookup, a removal and an insertion (issue 48). Never iterated.
#[derive(Clone, Debug)]
pub(crate) struct LpnTable<V: Copy> {
    slots: Vec<Slot<V>>,
    /// 64 − log2(slots): the hash's top bits index the table.
    shift: u32,
    len: usize,
}

impl<V: Copy + Default> LpnTable<V> {
    /// A table that holds `n` keys without growing.
    pub(crate) fn with_capacity(n: usize) -> Self {
        let size = (n.max(8) * 2).next_power_of_two();
        LpnTable {
            slots: vec![Slot { key: FREE, value: V::default() }; size],
            shift: 64 - size.trailing_zeros(),
            len: 0,
        }
    }

    fn mask(&self) -> usize {
        self.slots.len() - 1
    }

    /// The slot where `key`'s probe sequence starts (Fibonacci hashing: the product's top
    /// bits, which every bit of the key reaches).
    fn home(&self, key: u32) -> usize {
        ((key as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    /// The slot holding `key`, or the free slot that ends its probe sequence.
    fn find(&self, key: u32) -> (usize, bool) {
        let mask = self.mask();
        let mut i = self.home(key);
        loop {
            let k = self.slots[i].key;
            if k == key {
                return (i, true);
            }
            if k == FREE {
                return (i, false);
            }
            i = (i + 1) & mask;
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Loads the slot where a probe for `key` starts, into the caches (`read_ahead`);
    /// returns something read from it, to be folded away.
    pub(crate) fn preload(&self, key: u32) -> u32 {
        self.slots[self.home(key)].key
    }

    pub(crate) fn get(&self, key: u32) -> Option<V> {
        match self.find(key) {
            (i, true) => Some(self.slots[i].value),
            _ => None,
        }
    }

    pub(crate) fn contains_key(&self, key: u32) -> bool {
        self.find(key).1
    }

    pub(crate) fn get_mut(&mut self, key: u32) -> Option<&mut V> {
        match self.find(key) {
            (i, true) => Some(&mut self.slots[i].value),
            _ => None,
        }
    }

    /// The keys, in the table's order (a function of the keys and the order they came
    /// in: sort them before they reach a result).
    pub(crate) fn keys(&self) -> impl Iterator<Item = u32> + '_ {
        self.slots.iter().map(|s| s.key).filter(|&k| k != FREE)
    }

    /// Maps `key` to `value`; returns the value it replaced.
    pub(crate) fn insert(&mut self, key: u32, value: V) -> Option<V> {
        assert!(key != FREE, "key {key} is reserved");
        let (i, found) = self.find(key);
        if found {
            return Some(std::mem::replace(&mut self.slots[i].value, value));
        }
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow();
            let (i, _) = self.find(key);
            self.slots[i] = Slot { key, value };
        } else {
            self.slots[i] = Slot { key, value };
        }
        self.len += 1;
        None
    }

    fn grow(&mut self) {
        let mut bigger = LpnTable::with_capacity(self.slots.len());
        for s in self.slots.iter().filter(|s| s.key != FREE) {
            let (i, _) = bigger.find(s.key);
            bigger.slots[i] = *s;
        }
        bigger.len = self.len;
        *self = bigger;
    }

    /// Removes `key`; returns its value. The keys after it in its cluster that may sit
    /// earlier move back into the hole, so every probe sequence stays unbroken.
    pub(crate) fn remove(&mut self, key: u32) -> Option<V> {
        let (mut hole, found) = self.find(key);
        if !found {
            return None;
        }
        let value = self.slots[hole].value;
        let mask = self.mask();
        let mut j = hole;
        loop {
            j = (j + 1) & mask;
            let k = self.slots[j].key;
            if k == FREE {
                break;
            }
            // Slot j's key may move to the hole unless its home lies cyclically in
            // (hole, j]: then the hole is not on its probe sequence.
            let home = self.home(k);
            let stays = if hole <= j { hole < home && home <= j } else { hole < home || home <= j };
            if !stays {
                self.slots[hole] = self.slots[j];
                hole = j;
            }
        }
        self.slots[hole].key = FREE;
        self.len -= 1;
        Some(value)
    }

    /// Empties the table, keeping its size.
    pub(crate) fn clear(&mut self) {
        if self.len > 0 {
            for s in &mut self.slots {
                s.key = FREE;
            }
            self.len = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64Mcg;
    use std::collections::BTreeMap;

    /// Against a BTreeMap, over random inserts, removals and lookups on key ranges small
    /// (long clusters, wrap-around at the table's end) and large, through growth.
    #[test]
    fn the_table_agrees_with_a_btree_map() {
        for (seed, keys) in [(1u64, 40u32), (2, 1000), (3, 1 << 30)] {
            let mut rng = Pcg64Mcg::seed_from_u64(seed);
            let mut table = LpnTable::<u32>::with_capacity(4);
            let mut model = BTreeMap::new();
            for round in 0..200_000u32 {
                let key = rng.random_range(0..keys);
                match rng.random_range(0..4) {
                    0 | 1 => assert_eq!(table.insert(key, round), model.insert(key, round), "insert {key}"),
                    2 => assert_eq!(table.remove(key), model.remove(&key), "remove {key}"),
                    _ => {
                        assert_eq!(table.get(key), model.get(&key).copied(), "get {key}");
                        assert_eq!(table.contains_key(key), model.contains_key(&key));
                    }
                }
                assert_eq!(table.len(), model.len());
            }
            let mut keys: Vec<u32> = table.keys().collect();
            keys.sort_unstable();
            assert_eq!(keys, model.keys().copied().collect::<Vec<_>>());
            for (&k, &v) in &model {
                assert_eq!(table.get(k), Some(v));
                *table.get_mut(k).expect("present") += 1;
                assert_eq!(table.get(k), Some(v + 1));
            }
            table.clear();
            assert_eq!((table.len(), table.keys().count()), (0, 0));
            assert!(model.keys().all(|&k| table.get(k).is_none()));
        }
    }
}

//! Page-type layouts as data: for every page ID of a block, its page type (0 = LSB,
//! 1 = CSB/MSB …) and its wordline. Under the strict program order pages are programmed
//! in ID order, so a layout is also a program order.

use crate::config::{Flash, LayoutKind};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PageLayout {
    /// Page type of page ID i.
    pub types: Vec<u8>,
    /// Wordline of page ID i.
    pub wordlines: Vec<u32>,
}

impl PageLayout {
    /// Builds the layout a config asks for. The config must be validated.
    pub fn from_config(flash: &Flash, pages_per_block: u32) -> Self {
        let bits = flash.cell.bits_per_cell() as u32;
        match flash.layout {
            LayoutKind::Staircase => Self::staircase(bits, pages_per_block, 1),
            LayoutKind::Pairs => Self::staircase(bits, pages_per_block, 2),
            LayoutKind::Sequential => Self::sequential(bits, pages_per_block),
            LayoutKind::Custom => {
                PageLayout { types: flash.custom_types.clone(), wordlines: flash.custom_wordlines.clone() }
            }
        }
    }

    /// One wordline per page, every page type 0: a block used in SLC mode.
    pub fn slc(pages_per_block: u32) -> Self {
        PageLayout { types: vec![0; pages_per_block as usize], wordlines: (0..pages_per_block).collect() }
    }

    /// Wordline after wordline: page p is type p % bits of wordline p / bits.
    pub fn sequential(bits: u32, pages_per_block: u32) -> Self {
        PageLayout {
            types: (0..pages_per_block).map(|p| (p % bits) as u8).collect(),
            wordlines: (0..pages_per_block).map(|p| p / bits).collect(),
        }
    }

    /// The staircase order: step k programs type 0 of wordline k, type 1 of wordline
    /// k-1, …, type b-1 of wordline k-b+1, each as `unit` consecutive pages (1 = single
    /// chain, 2 = even/odd chains). For TLC with unit 1 this yields PA-SSD's order:
    /// WL0 = (0,2,5), WL1 = (1,4,8), WL2 = (3,7,11), …
    pub fn staircase(bits: u32, pages_per_block: u32, unit: u32) -> Self {
        let wordlines_total = pages_per_block / (bits * unit);
        let mut types = Vec::with_capacity(pages_per_block as usize);
        let mut wordlines = Vec::with_capacity(pages_per_block as usize);
        for step in 0..wordlines_total + bits - 1 {
            for page_type in 0..bits {
                let Some(wordline) = step.checked_sub(page_type) else { continue };
                if wordline >= wordlines_total {
                    continue;
                }
                for _ in 0..unit {
                    types.push(page_type as u8);
                    wordlines.push(wordline);
                }
            }
        }
        PageLayout { types, wordlines }
    }

    pub fn pages(&self) -> u32 {
        self.types.len() as u32
    }

    /// Index of each page among the pages of its type, in ID order.
    pub fn ranks(&self) -> Vec<u32> {
        let mut seen = [0u32; 8];
        self.types
            .iter()
            .map(|&t| {
                seen[t as usize] += 1;
                seen[t as usize] - 1
            })
            .collect()
    }

    /// Page IDs of each type in ID order: `by_type[t][k]` is the k-th page of type t.
    pub fn by_type(&self, bits: usize) -> Vec<Vec<u32>> {
        let mut out = vec![Vec::new(); bits];
        for (page, &t) in self.types.iter().enumerate() {
            out[t as usize].push(page as u32);
        }
        out
    }

    /// Pages of each type in one block.
    pub fn pages_per_type(&self, bits: usize) -> Vec<u32> {
        let mut counts = vec![0u32; bits];
        for &t in &self.types {
            counts[t as usize] += 1;
        }
        counts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pages_of_wordline(l: &PageLayout, wl: u32) -> Vec<u32> {
        (0..l.pages()).filter(|&p| l.wordlines[p as usize] == wl).collect()
    }

    #[test]
    fn tlc_staircase_is_pa_strict_order() {
        // SPEC §1.2: WLk's LSB, CSB, MSB are pages (0,2,5), (1,4,8), (3,7,11), (6,10,14), (9,13,17)
        let l = PageLayout::staircase(3, 384, 1);
        assert_eq!(l.pages(), 384);
        assert_eq!(pages_of_wordline(&l, 0), vec![0, 2, 5]);
        assert_eq!(pages_of_wordline(&l, 1), vec![1, 4, 8]);
        assert_eq!(pages_of_wordline(&l, 2), vec![3, 7, 11]);
        assert_eq!(pages_of_wordline(&l, 3), vec![6, 10, 14]);
        assert_eq!(pages_of_wordline(&l, 4), vec![9, 13, 17]);
        for wl in 0..128 {
            let pages = pages_of_wordline(&l, wl);
            let types: Vec<u8> = pages.iter().map(|&p| l.types[p as usize]).collect();
            assert_eq!(types, vec![0, 1, 2], "wordline {wl}: LSB, then CSB, then MSB");
        }
        assert_eq!(l.pages_per_type(3), vec![128, 128, 128]);
    }

    #[test]
    fn mlc_pairs_match_thesis_figure() {
        // Thesis §7.1: first four pages fast, last four slow, mid-block pairs alternate.
        let l = PageLayout::staircase(2, 128, 2);
        assert_eq!(&l.types[..4], &[0, 0, 0, 0]);
        assert_eq!(&l.types[124..], &[1, 1, 1, 1]);
        assert_eq!(&l.types[4..12], &[1, 1, 0, 0, 1, 1, 0, 0]);
        assert_eq!(l.pages_per_type(2), vec![64, 64]);
    }

    #[test]
    fn sequential_groups_wordlines() {
        let l = PageLayout::sequential(3, 9);
        assert_eq!(l.types, vec![0, 1, 2, 0, 1, 2, 0, 1, 2]);
        assert_eq!(l.wordlines, vec![0, 0, 0, 1, 1, 1, 2, 2, 2]);
    }
}

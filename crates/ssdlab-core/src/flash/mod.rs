//! The flash array's static description: addressing (channel → chip → die → plane →
//! block → page), page-type layouts, and the latency/energy of each operation.
//! Mutable per-block state lives in the FTL's block table; busy-until state lives in the
//! engine. This module only answers "where is it" and "how long does it take".

pub mod address;
pub mod layout;
pub mod reliability;
pub mod timing;

pub use address::{Address, Ppn, NO_PAGE};
pub use layout::PageLayout;
pub use timing::Timing;

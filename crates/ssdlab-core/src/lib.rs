//! ssdlab-core: the pure SSD model — flash array, FTL, host interface and the
//! discrete-event engine that ties them together. No file I/O, no wall clock, no threads.

pub mod config;
pub mod presets;

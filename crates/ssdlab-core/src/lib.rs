//! ssdlab-core: the pure SSD model — flash array, FTL, host interface and the
//! discrete-event engine that ties them together. No file I/O, no wall clock, no threads.

pub mod config;
pub mod designs;
pub mod engine;
pub mod flash;
pub mod ftl;
pub mod presets;
pub mod rng;
pub mod scaling;
pub mod stats;

pub use config::Config;
pub use engine::{Observers, SimError, Simulator, SourceFactory};
pub use stats::{Report, SeriesRow};
pub mod policies;
pub mod source;
pub mod swarm;
pub mod theory;

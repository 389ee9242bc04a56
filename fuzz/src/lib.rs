//! The logic of the ssdlab fuzz targets, shared with the corpus replay tests of the main
//! workspace (which include these files by path). See docs/testing.md.

pub mod config;
pub mod trace;

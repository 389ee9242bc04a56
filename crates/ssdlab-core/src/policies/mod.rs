//! Policies of the source papers, one module per system. Each module cites its paper
//! and is selected by config; the engine calls them at fixed decision points.

pub mod hybrid;
pub mod pa_ssd;

//! The source papers' pure decision functions, kept at their old paths for library
//! users. Each now lives with its design in `crate::designs`.

pub use crate::designs::pa_ssd::scheme as pa_ssd;
pub use crate::designs::spa_hybrid::policy as hybrid;

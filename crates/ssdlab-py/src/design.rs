//! Designs written in Python: an `ssdlab.Design` subclass runs as a design of the
//! simulator (`ssdlab.run(..., design=MyDesign())`). `PyDesign` implements the Rust
//! trait with the documented subset of hooks; each hook the Python class overrides calls
//! its method with plain numbers (the simulation thread takes the GIL for the call), and
//! turns the answer into the hook's. A Python exception, or an answer out of range, ends
//! the run with an error naming the design and the hook (`Simulator::fail_design`).

use pyo3::prelude::*;
use ssdlab_core::designs::{Baseline, Design, Hook, MoveTarget};
use ssdlab_core::flash::Ppn;
use ssdlab_core::ftl::{Allocated, BlockState, WriteMode};
use ssdlab_core::{Report, SimError, Simulator};

/// The Python methods a design may override, and the hooks each one claims.
pub(crate) const METHODS: &[(&str, &[Hook])] = &[
    ("place_write", &[Hook::PlaceWrite]),
    ("user_page", &[Hook::UserPage]),
    ("gc_victim", &[Hook::GcVictim]),
    // A GC destination chosen by write point keeps GC in the victim's plane.
    ("gc_page", &[Hook::GcPage, Hook::GcMoveTarget]),
    ("idle_work", &[Hook::IdleWork]),
    ("report", &[Hook::Report]),
];

/// A Python design's state: the Python object, its name and the calls made.
pub(crate) struct PyDesign {
    obj: Py<PyAny>,
    name: String,
}

/// Adds the Python design `obj`, named `name`, overriding `methods`, to `sim`.
pub(crate) fn install(sim: &mut Simulator<'_>, obj: Py<PyAny>, name: &str, methods: &[String]) -> Result<(), SimError> {
    let mut hooks = Vec::new();
    for m in methods {
        let Some((_, claimed)) = METHODS.iter().find(|(n, _)| n == m) else {
            let known: Vec<&str> = METHODS.iter().map(|(n, _)| *n).collect();
            return Err(SimError::Setup(format!(
                "design {name}: '{m}' is not a hook a Python design may override ({})",
                known.join(", ")
            )));
        };
        hooks.extend_from_slice(claimed);
    }
    let ftl = &sim.ftl;
    if ftl.unit_shift != 0 && methods.iter().any(|m| m == "gc_page") {
        return Err(SimError::Setup(format!(
            "design {name}: gc_page needs a page map (ftl.mapping = \"page\"): a GC move's page is one logical page"
        )));
    }
    sim.add_design_as(name, PyDesign { obj, name: name.to_string() }, &hooks)
}

/// Calls `method` of the design with `args`; `None` after a failure (recorded: the run
/// ends after this event).
fn call<A, R>(
    sim: &mut Simulator<'_>,
    method: &str,
    args: A,
    convert: impl FnOnce(&Bound<'_, PyAny>) -> PyResult<R>,
) -> Option<R>
where
    A: for<'py> pyo3::call::PyCallArgs<'py>,
{
    let d = sim.design::<PyDesign>();
    let result = Python::attach(|py| -> PyResult<R> {
        let value = d.obj.bind(py).call_method1(method, args)?;
        convert(&value)
    });
    match result {
        Ok(r) => Some(r),
        Err(e) => {
            let name = d.name.clone();
            sim.fail_design(&name, format!("{method}() raised {e}"));
            None
        }
    }
}

/// A write point from Python (`None`: the default), checked against the drive's.
fn write_point(sim: &mut Simulator<'_>, method: &str, answer: Option<Option<u32>>) -> Option<u32> {
    let k = answer.flatten()?;
    let points = sim.ftl.user_write_points;
    if k < points {
        return Some(k);
    }
    let name = sim.design::<PyDesign>().name.clone();
    sim.fail_design(
        &name,
        format!("{method}() returned write point {k}; the drive has {points} per plane (ftl.user_write_points)"),
    );
    None
}

impl Design for PyDesign {
    const NAME: &'static str = "python";
    const HOOKS: &'static [Hook] = &[
        Hook::PlaceWrite,
        Hook::UserPage,
        Hook::GcVictim,
        Hook::GcMoveTarget,
        Hook::GcPage,
        Hook::IdleWork,
        Hook::Report,
    ];

    /// `place_write(lpn, plane) -> write point | None`.
    fn place_write(sim: &mut Simulator<'_>, static_plane: u32, _request: u32, lpn: u32) -> (u32, WriteMode) {
        let answer = call(sim, "place_write", (lpn, static_plane), |v| v.extract::<Option<u32>>());
        match write_point(sim, "place_write", answer) {
            Some(k) => (static_plane, WriteMode::UserPoint(k as u8)),
            None => (static_plane, WriteMode::Auto),
        }
    }

    /// `user_page(lpn, plane) -> write point | None`: the page is that write point's
    /// next (the write's own stream's when that one cannot take it now).
    fn user_page(sim: &mut Simulator<'_>, txn: u32) -> Option<Allocated> {
        let t = sim.txn(txn);
        let answer = call(sim, "user_page", (t.lpn, t.plane), |v| v.extract::<Option<u32>>());
        let k = write_point(sim, "user_page", answer)?;
        let now = sim.now();
        sim.ftl.allocate_user_point(t.plane, k, now)
    }

    /// `gc_victim(plane, blocks) -> block | None`, `blocks` the plane's closed blocks as
    /// (block, valid pages, erase count, last write ns).
    fn gc_victim(sim: &mut Simulator<'_>, plane: u32) -> Option<u32> {
        let ftl = &sim.ftl;
        let first = ftl.addr.first_block_of_plane(plane);
        let candidates: Vec<(u32, u32, u32, u64)> = (first..first + ftl.addr.blocks_per_plane)
            .filter(|&b| ftl.blocks[b as usize].state == BlockState::Closed)
            .map(|b| {
                let info = &ftl.blocks[b as usize];
                (b, info.valid_pages, info.erase_count, info.last_write_ns)
            })
            .collect();
        if candidates.is_empty() {
            return None;
        }
        let allowed: Vec<u32> = candidates.iter().map(|c| c.0).collect();
        let block = call(sim, "gc_victim", (plane, candidates), |v| v.extract::<Option<u32>>()).flatten()?;
        if allowed.contains(&block) {
            return Some(block);
        }
        let name = sim.design::<PyDesign>().name.clone();
        sim.fail_design(&name, format!("gc_victim() returned block {block}, not a closed block of plane {plane}"));
        None
    }

    fn gc_move_target(_sim: &Simulator<'_>, _plane: u32) -> MoveTarget {
        MoveTarget::SamePlane
    }

    /// `gc_page(lpn, plane) -> write point | None`: where a valid page GC moves goes.
    fn gc_page(sim: &mut Simulator<'_>, plane: u32, from: Ppn) -> Option<Allocated> {
        let lpn = sim.ftl.rev_at(from);
        let answer = call(sim, "gc_page", (lpn, plane), |v| v.extract::<Option<u32>>());
        match write_point(sim, "gc_page", answer) {
            Some(k) => {
                let now = sim.now();
                sim.ftl.allocate_user_point_for_gc(plane, k, now)
            }
            None => Baseline::gc_page(sim, plane, from),
        }
    }

    /// `idle_work(die) -> plane | None`: a GC step on that plane of the idle die.
    fn idle_work(sim: &mut Simulator<'_>, die: u32) -> Result<bool, SimError> {
        match call(sim, "idle_work", (die,), |v| v.extract::<Option<u32>>()).flatten() {
            Some(plane) => sim.start_gc(die, plane),
            None => Ok(false),
        }
    }

    /// `report() -> dict`: the design's report section (JSON `designs.NAME`).
    fn report(sim: &Simulator<'_>, report: &mut Report) {
        let d = sim.design::<PyDesign>();
        let section = Python::attach(|py| -> PyResult<String> {
            let value = d.obj.bind(py).call_method0("report")?;
            py.import("json")?.call_method1("dumps", (value,))?.extract()
        });
        let value = match section.map(|text| serde_json::from_str::<serde_json::Value>(&text)) {
            Ok(Ok(v)) => v,
            Ok(Err(e)) => serde_json::Value::String(format!("report() is not JSON: {e}")),
            Err(e) => serde_json::Value::String(format!("report() raised {e}")),
        };
        report.set_section(&d.name, &value);
    }
}

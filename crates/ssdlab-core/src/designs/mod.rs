//! Designs: the research works' policies, each in its own module, plugged into the
//! engine through the hooks of the [`Design`] trait (`hooks.rs`, whose rustdoc is the
//! hook reference). The engine names no design: it calls `Simulator` dispatchers named
//! as the hooks, which call the designs that list them.
//!
//! This module owns the registry of built-in designs ([`registry`]: one line per design),
//! which designs a config selects, their composition (two designs may run together when
//! no decision hook is listed by both and they claim nothing in common), their needs of
//! the drive (`needs.rs`), and the set of active designs' states.
//!
//! Adding a built-in design: a folder here with its state, `impl Design` (the hooks it
//! uses) and `impl BuiltIn` (when the config selects it, how to build it), its `mod` line
//! and one line in [`registry`]. It may keep its config in `[designs.NAME]` and its report
//! in `report.set_section`, as outside designs do (then nothing else changes), or have
//! typed sections (`Config` and `Report` fields). See ARCHITECTURE.md, "Adding a design".

mod baseline;
mod context;
pub mod dir;
pub mod fdp;
pub mod gordon;
pub mod harey;
mod hooks;
pub mod ipu;
pub mod mango;
mod needs;
pub mod pa_ssd;
pub mod scrub;
pub mod spa_hybrid;
pub mod wom;
pub mod zns;

pub use context::TxnView;
pub(crate) use hooks::HookTable;
pub use hooks::{Baseline, Design, Hook, MoveTarget};
pub use needs::{Claim, Need};

use crate::config::Config;
use crate::engine::{SimError, Simulator};
use crate::ftl::Ftl;
use std::any::Any;

/// A built-in design: when a config selects it and how it is built.
pub(crate) trait BuiltIn: Design {
    /// Its typed config section (`[SECTION]`, a `Config` field; `--set SECTION.key=...`
    /// and `--set designs.NAME.key=...` both reach it). Empty (the default): the design
    /// reads `[designs.NAME]` itself (`Config::design_section`), as outside designs do.
    /// Either is printed only where it differs from its defaults, as every design's.
    const SECTION: &'static str = "";
    /// The config key that selects it: where errors about the design's needs and
    /// composition point. Empty (the default): `designs.NAME`.
    const KEY: &'static str = "";
    /// The config selects this design (its section asks for it).
    fn selected(config: &Config) -> bool;
    /// Its typed section at its defaults (what `--set` starts from while the section is
    /// not printed): `section_default::<ItsConfig>()`. `None` (the default) for a design
    /// without a typed section.
    fn default_section() -> Option<toml::Value> {
        None
    }
    /// Selected when the config selects no other design: the design that runs this drive
    /// by default (the SPA hybrid's PF policy runs a drive's SLC cache).
    fn runs_by_default(_config: &Config, _ftl: &Ftl) -> bool {
        false
    }
    /// FTL state the design needs from the first page written, preconditioning included
    /// (called before preconditioning when the config selects the design).
    fn prepare_ftl(_config: &Config, _ftl: &mut Ftl) {}
    /// Errors in its config section, whether selected or not (a design reading
    /// `[designs.NAME]` checks its own keys here). Default: none.
    fn validate(_config: &Config) -> Vec<crate::config::ConfigError> {
        Vec::new()
    }
    fn build(config: &Config, ftl: &Ftl) -> Self;
    /// When the swarm draws it (`swarm_draw`).
    const SWARM_PHASE: crate::swarm::SwarmPhase = crate::swarm::SwarmPhase::AfterHost;
    /// The swarm's draw of the design (`crate::swarm`): on a share of the drives that allow
    /// it, from a stream of its own (`rng::derive(seed, "swarm-NAME")`), so that the rest of
    /// every seed's case stays as it was. Default: never drawn.
    fn swarm_draw(_seed: u64, _config: &mut Config, _records: &mut Vec<ssdlab_trace::Record>) {}
}

/// A built-in design's entry in the registry.
pub(crate) struct Registration {
    name: &'static str,
    pub(crate) section: &'static str,
    key: String,
    needs: &'static [Need],
    claims: &'static [Claim],
    pub(crate) default_section: fn() -> Option<toml::Value>,
    selected: fn(&Config) -> bool,
    runs_by_default: fn(&Config, &Ftl) -> bool,
    prepare_ftl: fn(&Config, &mut Ftl),
    validate: fn(&Config) -> Vec<crate::config::ConfigError>,
    build: fn(&Config, &Ftl) -> Box<dyn Any>,
    table: fn() -> HookTable,
    swarm_phase: crate::swarm::SwarmPhase,
    swarm_draw: fn(u64, &mut Config, &mut Vec<ssdlab_trace::Record>),
}

impl Registration {
    fn of<T: BuiltIn>() -> Registration {
        Registration {
            name: T::NAME,
            section: T::SECTION,
            key: if T::KEY.is_empty() { format!("designs.{}", T::NAME) } else { T::KEY.to_string() },
            needs: T::NEEDS,
            claims: T::CLAIMS,
            default_section: T::default_section,
            selected: T::selected,
            runs_by_default: T::runs_by_default,
            prepare_ftl: T::prepare_ftl,
            validate: T::validate,
            build: |config, ftl| Box::new(T::build(config, ftl)),
            table: HookTable::of::<T>,
            swarm_phase: T::SWARM_PHASE,
            swarm_draw: T::swarm_draw,
        }
    }
}

/// The built-in designs, one line each. The order is the order in which notifications
/// reach designs that run together, and in which the swarm draws them (within a phase).
pub(crate) fn registry() -> Vec<Registration> {
    vec![
        Registration::of::<pa_ssd::PaSsd>(),
        Registration::of::<dir::Dir>(),
        Registration::of::<ipu::Ipu>(),
        Registration::of::<gordon::Gordon>(),
        Registration::of::<scrub::Scrub>(),
        Registration::of::<wom::Wom>(),
        Registration::of::<harey::Harey>(),
        Registration::of::<mango::Mango>(),
        Registration::of::<spa_hybrid::SpaHybrid>(),
        Registration::of::<zns::Zns>(),
        Registration::of::<fdp::Fdp>(),
    ]
}

/// The built-in designs `config` selects, in registry order; `ftl` decides a default
/// design when the config selects none. Refuses designs that list a decision hook in
/// common.
fn selection(config: &Config, ftl: &Ftl) -> Result<Vec<Registration>, String> {
    let mut chosen: Vec<Registration> = registry().into_iter().filter(|r| (r.selected)(config)).collect();
    if chosen.is_empty() {
        chosen = registry().into_iter().filter(|r| (r.runs_by_default)(config, ftl)).take(1).collect();
    }
    let declared: Vec<Declared> = chosen.iter().map(|r| (r.name, (r.table)(), r.claims)).collect();
    check_composition(&declared)?;
    Ok(chosen)
}

/// A design as composition sees it: its name, its hooks and its claims.
type Declared<'a> = (&'a str, HookTable, &'static [Claim]);

/// Two designs may run together when no decision hook is listed by both and they claim
/// nothing in common.
fn check_composition(designs: &[Declared]) -> Result<(), String> {
    for (i, (a, ta, ca)) in designs.iter().enumerate() {
        for (b, tb, cb) in &designs[i + 1..] {
            if let Some(h) = Hook::ALL.iter().find(|h| h.is_decision() && ta.has(**h) && tb.has(**h)) {
                return Err(format!(
                    "designs {a} and {b} cannot run together: both decide `{}` (a decision hook only one \
                     design may implement); select one of them",
                    h.name()
                ));
            }
            if let Some(c) = needs::shared_claim(ca, cb) {
                return Err(format!(
                    "designs {a} and {b} cannot run together: both claim {} (`Claim::{c:?}`); select one of them",
                    c.describe()
                ));
            }
        }
    }
    Ok(())
}

/// Config validation of the built-in designs `config` selects: each one's needs, and
/// whether they compose (errors at the selecting keys).
pub(crate) fn validate(config: &Config) -> Vec<crate::config::ConfigError> {
    let all = registry();
    let mut errors: Vec<crate::config::ConfigError> = all.iter().flat_map(|r| (r.validate)(config)).collect();
    let chosen: Vec<Registration> = all.into_iter().filter(|r| (r.selected)(config)).collect();
    for r in &chosen {
        errors.extend(needs::unmet(r.name, r.needs, config).into_iter().map(|m| crate::config::err(&r.key, m)));
        let places = (r.table)().has(Hook::PlaceWrite) || (r.table)().has(Hook::SplitWrite);
        if places && config.ftl.plane_allocation == crate::config::PlaneAllocation::AtService {
            let m = format!("{} places writes itself: not with ftl.plane_allocation = \"at-service\"", r.name);
            errors.push(crate::config::err(&r.key, m));
        }
    }
    for (i, r) in chosen.iter().enumerate() {
        let earlier: Vec<Declared> = chosen[..=i].iter().map(|r| (r.name, (r.table)(), r.claims)).collect();
        if let Err(m) = check_composition(&earlier) {
            errors.push(crate::config::err(&r.key, m));
            break;
        }
    }
    errors
}

/// Whether the drive `config` lacks one of design `T`'s needs (its config validation
/// then skips checks that assume them: `designs::validate` names what is missing).
pub(crate) fn needs_unmet<T: Design>(config: &Config) -> bool {
    T::NEEDS.iter().any(|n| !n.holds(config))
}

/// Whether design `name` (built-in) composes with the designs `config` selects: no
/// decision hook or claim in common (its needs are the drive's, checked when it is
/// selected). The swarm draws designs through it.
pub(crate) fn composes_with(config: &Config, name: &str) -> bool {
    let all = registry();
    let Some(me) = all.iter().find(|r| r.name == name) else { return false };
    let mut declared: Vec<Declared> = all
        .iter()
        .filter(|r| r.name != name && (r.selected)(config))
        .map(|r| (r.name, (r.table)(), r.claims))
        .collect();
    declared.push((me.name, (me.table)(), me.claims));
    check_composition(&declared).is_ok()
}

/// The default of the typed section `section` of a built-in design.
pub(crate) fn default_section(section: &str) -> Option<toml::Value> {
    registry().iter().find(|r| !r.section.is_empty() && r.section == section).and_then(|r| (r.default_section)())
}

/// The typed config section of the built-in design named `name` (or whose section is
/// `name`); `None` for a design whose section is `[designs.NAME]`.
pub(crate) fn section_of(name: &str) -> Option<&'static str> {
    registry().iter().find(|r| !r.section.is_empty() && (r.name == name || r.section == name)).map(|r| r.section)
}

/// `T` at its defaults as TOML: a built-in design's `BuiltIn::default_section`.
pub(crate) fn section_default<T: serde::Serialize + Default>() -> Option<toml::Value> {
    toml::Value::try_from(T::default()).ok()
}

/// The swarm's draws of the built-in designs of `phase`, in registry order.
pub(crate) fn swarm_draws(
    phase: crate::swarm::SwarmPhase,
    seed: u64,
    config: &mut Config,
    records: &mut Vec<ssdlab_trace::Record>,
) {
    for r in registry().iter().filter(|r| r.swarm_phase == phase) {
        (r.swarm_draw)(seed, config, records);
    }
}

/// FTL state the selected designs need before preconditioning.
pub(crate) fn prepare_ftl(config: &Config, ftl: &mut Ftl) {
    for r in registry().iter().filter(|r| (r.selected)(config)) {
        (r.prepare_ftl)(config, ftl);
    }
}

/// Most designs one run may compose.
const MAX_DESIGNS: usize = 8;
// Hooks are bits of `Designs::implemented`.
const _: () = assert!(Hook::COUNT <= 64);
/// No design decides the hook: the baseline does.
const NONE: u8 = u8::MAX;

/// The designs that listen to one hook, in selection order (a copy, so the dispatcher
/// holds no borrow of the set while it calls them).
#[derive(Clone, Copy)]
pub(crate) struct Slots {
    n: u8,
    at: [u8; MAX_DESIGNS],
}

impl Slots {
    pub(crate) fn iter(self) -> impl Iterator<Item = u8> {
        (0..self.n as usize).map(move |i| self.at[i])
    }
}

/// The active designs: their states, hook tables and the dispatch of each hook.
pub(crate) struct Designs {
    names: Vec<String>,
    states: Vec<Box<dyn Any>>,
    tables: Vec<HookTable>,
    claims: Vec<&'static [Claim]>,
    /// Per hook: the design that decides it (`NONE`: the baseline).
    decider: [u8; Hook::COUNT],
    /// Per hook: the designs a notification reaches.
    listeners: [Slots; Hook::COUNT],
    /// Bit `hook`: some active design implements it (without designs, every dispatcher
    /// is one test of this word and the baseline's body, inlined).
    implemented: u64,
}

impl Designs {
    /// The designs `config` selects, built.
    pub(crate) fn new(config: &Config, ftl: &Ftl) -> Result<Designs, SimError> {
        let mut designs = Designs::empty();
        for r in selection(config, ftl).map_err(SimError::Setup)? {
            designs
                .add_raw(r.name.to_string(), (r.build)(config, ftl), (r.table)(), r.claims)
                .map_err(SimError::Setup)?;
        }
        Ok(designs)
    }

    fn empty() -> Designs {
        Designs {
            names: Vec::new(),
            states: Vec::new(),
            tables: Vec::new(),
            claims: Vec::new(),
            decider: [NONE; Hook::COUNT],
            listeners: [Slots { n: 0, at: [0; MAX_DESIGNS] }; Hook::COUNT],
            implemented: 0,
        }
    }

    /// Adds design `T`, under `name` and with only those of its hooks that `hooks` names,
    /// after the built-ins a config selected: refused when the drive (`config`) lacks one
    /// of its needs, when it decides a hook or claims what another active design does, or
    /// when one of its type (or name) is active.
    pub(crate) fn add_as<T: Design>(
        &mut self,
        name: &str,
        state: T,
        hooks: &[Hook],
        config: &Config,
    ) -> Result<(), String> {
        if self.names.iter().any(|n| n == name) || self.states.iter().any(|s| s.is::<T>()) {
            return Err(format!("design {name}: a design of its kind is active already"));
        }
        if let Some(m) = needs::unmet(name, T::NEEDS, config).into_iter().next() {
            return Err(m);
        }
        self.add_raw(name.to_string(), Box::new(state), HookTable::of_listed::<T>(hooks), T::CLAIMS)
    }

    fn add_raw(
        &mut self,
        name: String,
        state: Box<dyn Any>,
        table: HookTable,
        claims: &'static [Claim],
    ) -> Result<(), String> {
        let mut all: Vec<Declared> =
            (0..self.names.len()).map(|i| (self.names[i].as_str(), self.tables[i], self.claims[i])).collect();
        all.push((&name, table, claims));
        check_composition(&all)?;
        if self.names.len() == MAX_DESIGNS {
            return Err(format!("at most {MAX_DESIGNS} designs may run together"));
        }
        let slot = self.names.len() as u8;
        for &hook in Hook::ALL {
            if !table.has(hook) {
                continue;
            }
            self.implemented |= 1 << hook as u32;
            if hook.is_decision() {
                self.decider[hook as usize] = slot;
            } else {
                let l = &mut self.listeners[hook as usize];
                l.at[l.n as usize] = slot;
                l.n += 1;
            }
        }
        self.names.push(name);
        self.states.push(state);
        self.tables.push(table);
        self.claims.push(claims);
        Ok(())
    }

    /// The active designs' names, in selection order.
    pub(crate) fn names(&self) -> &[String] {
        &self.names
    }

    /// The state of active design `T`. Panics if it is not active: a hook of `T` runs
    /// only while it is.
    pub(crate) fn state<T: Design>(&self) -> &T {
        self.try_state::<T>().unwrap_or_else(|| panic!("design {} is not active", T::NAME))
    }

    pub(crate) fn state_mut<T: Design>(&mut self) -> &mut T {
        self.states
            .iter_mut()
            .find_map(|s| s.downcast_mut::<T>())
            .unwrap_or_else(|| panic!("design {} is not active", T::NAME))
    }

    /// The state of design `T`, if it is active.
    pub(crate) fn try_state<T: Design>(&self) -> Option<&T> {
        self.states.iter().find_map(|s| s.downcast_ref::<T>())
    }

    /// The slot of active design `T` (its timers carry it).
    pub(crate) fn slot_of<T: Design>(&self) -> u8 {
        self.states.iter().position(|s| s.is::<T>()).unwrap_or_else(|| panic!("design {} is not active", T::NAME)) as u8
    }

    /// Whether some active design implements `hook`.
    #[inline]
    pub(crate) fn implemented(&self, hook: Hook) -> bool {
        self.implemented & (1 << hook as u32) != 0
    }

    #[inline]
    pub(crate) fn decider_slot(&self, hook: Hook) -> Option<u8> {
        let at = self.decider[hook as usize];
        (at != NONE).then_some(at)
    }

    #[inline]
    pub(crate) fn decider(&self, hook: Hook) -> Option<&HookTable> {
        self.decider_slot(hook).map(|slot| &self.tables[slot as usize])
    }

    #[inline]
    pub(crate) fn listeners(&self, hook: Hook) -> Slots {
        self.listeners[hook as usize]
    }

    #[inline]
    pub(crate) fn table(&self, slot: u8) -> &HookTable {
        &self.tables[slot as usize]
    }
}

impl Simulator<'_> {
    /// Schedules design `T`'s timer `tag` at `at` ns: its `timer` hook gets the tag then.
    pub(crate) fn schedule_design_timer<T: Design>(&mut self, at: u64, tag: u8) {
        let slot = self.designs.slot_of::<T>();
        self.push(at, crate::engine::Event::Design { slot, tag });
    }

    /// A design's timer fired.
    pub(crate) fn design_timer(&mut self, slot: u8, tag: u8) -> Result<(), SimError> {
        match self.designs.table(slot).timer {
            Some(f) => f(self, tag),
            None => Ok(()),
        }
    }
}

//! Other simulators' configuration files: MQSim's `ssdconfig.xml` / `workload.xml` and
//! SSDSim's `page.parameters`. This module owns recognising a config file by its content,
//! reading bytes as the original simulators do (byte-order marks, CRLF, comments in any
//! encoding), the record of what became of every source parameter ([`ImportReport`]), and
//! turning the mapped keys into an ssdlab [`Config`] or a commented TOML file. The
//! per-format rules live in [`mqsim`], [`mqsim_workload`] and [`ssdsim`].

pub mod mqsim;
mod mqsim_flows;
pub mod mqsim_workload;
pub mod ssdsim;

use anyhow::{anyhow, bail, Result};
use serde::Serialize;
use ssdlab_core::Config;
use std::fmt::Write as _;
use std::path::Path;

/// What a config file is, decided from its content (the extension is not trusted).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Toml,
    MqsimDevice,
    MqsimWorkload,
    Ssdsim,
}

/// SSDSim key names that identify its parameter file (no TOML key has a space, and a
/// TOML file cannot end a value with `;`).
const SSDSIM_MARKERS: &[&str] =
    &["channel number", "chip number", "die number", "plane number", "page capacity", "t_PROG", "t_R", "t_BERS"];

pub fn detect(bytes: &[u8]) -> Kind {
    let text = decode_text(&bytes[..bytes.len().min(64 * 1024)]);
    let body = text.trim_start();
    if body.starts_with('<') {
        // The root element, after any declaration, comments and whitespace.
        let mut rest = body;
        while let Some(r) = rest.strip_prefix("<?").or_else(|| rest.strip_prefix("<!")) {
            rest = r.split_once('>').map(|(_, tail)| tail.trim_start()).unwrap_or("");
        }
        if rest.starts_with("<MQSim_IO_Scenarios") {
            return Kind::MqsimWorkload;
        }
        if rest.starts_with("<Execution_Parameter_Set") || rest.starts_with("<Device_Parameter_Set") {
            return Kind::MqsimDevice;
        }
        if body.contains("<Device_Parameter_Set") || body.contains("<Flash_Parameter_Set") {
            return Kind::MqsimDevice;
        }
        if body.contains("<IO_Scenario") {
            return Kind::MqsimWorkload;
        }
    }
    let ssdsim_keys = text
        .lines()
        .filter_map(|l| l.split_once('='))
        .filter(|(k, _)| {
            let k = k.trim();
            SSDSIM_MARKERS.contains(&k) || k.starts_with("chip number[")
        })
        .count();
    if ssdsim_keys >= 3 {
        Kind::Ssdsim
    } else {
        Kind::Toml
    }
}

/// Text of a file whatever its encoding: a UTF-8 byte-order mark is dropped, UTF-16 with
/// a mark is decoded, invalid UTF-8 (old comments in GBK, Latin-1...) is read byte by byte
/// as Latin-1, so ASCII keys and values always come through unchanged.
pub fn decode_text(bytes: &[u8]) -> String {
    if let Some(rest) = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF]) {
        return decode_text(rest);
    }
    let utf16 = |big: bool, rest: &[u8]| {
        let units: Vec<u16> = rest
            .chunks_exact(2)
            .map(|c| if big { u16::from_be_bytes([c[0], c[1]]) } else { u16::from_le_bytes([c[0], c[1]]) })
            .collect();
        String::from_utf16_lossy(&units)
    };
    if let Some(rest) = bytes.strip_prefix(&[0xFF, 0xFE]) {
        return utf16(false, rest);
    }
    if let Some(rest) = bytes.strip_prefix(&[0xFE, 0xFF]) {
        return utf16(true, rest);
    }
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_string(),
        Err(_) => bytes.iter().map(|&b| b as char).collect(),
    }
}

pub fn read_file(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| anyhow!("{}: cannot read: {e}", path.display()))
}

/// What became of one source parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Fate {
    /// ssdlab does exactly what the source simulator does with it (including "nothing",
    /// when the source ignores it too in this configuration).
    Mapped,
    /// Mapped onto an ssdlab mechanism that behaves similarly; the note says how.
    Approximated,
    /// ssdlab has no such mechanism; ignored, the note says why.
    NotModelled,
    /// A name neither the source simulator's reference version nor ssdlab knows.
    Unknown,
    /// An earlier occurrence of a duplicated key or element: the last one wins.
    Overridden,
}

impl Fate {
    pub fn label(self) -> &'static str {
        match self {
            Fate::Mapped => "mapped",
            Fate::Approximated => "approximated",
            Fate::NotModelled => "not modelled",
            Fate::Unknown => "unknown",
            Fate::Overridden => "overridden",
        }
    }
}

/// One source parameter and its fate.
#[derive(Clone, Debug, Serialize)]
pub struct Param {
    pub file: String,
    pub line: u32,
    /// The element (MQSim, with its parent set) or key (SSDSim) as written.
    pub source: String,
    pub value: String,
    pub fate: Fate,
    /// The ssdlab keys it set.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ssdlab: Vec<String>,
    pub note: String,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct Counts {
    pub mapped: usize,
    pub approximated: usize,
    pub not_modelled: usize,
    pub unknown: usize,
    pub overridden: usize,
}

/// What an import did: the source files and every parameter's fate, for the terminal and
/// the JSON report (`import`).
#[derive(Clone, Debug, Default, Serialize)]
pub struct ImportReport {
    /// `mqsim` or `ssdsim`.
    pub format: String,
    pub files: Vec<String>,
    /// The MQSim scenario this run is (e.g. "2 of 3"), when a workload file was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scenario: Option<String>,
    pub counts: Counts,
    pub parameters: Vec<Param>,
    /// Things the user should know (duplicated keys, refused defaults...).
    pub warnings: Vec<String>,
    /// Unknown names close to known ones (likely typos), one message each: they refuse
    /// the import unless `--lenient` ([`ImportReport::check_typos`]).
    #[serde(skip)]
    pub typos: Vec<String>,
    /// Values and keys of a fork of the source simulator that ran with the nearest
    /// meaning or were ignored, one message each: `--strict` refuses them
    /// ([`ImportReport::check_strict`]).
    #[serde(skip)]
    pub fork_extensions: Vec<String>,
}

impl ImportReport {
    pub fn recount(&mut self) {
        let mut c = Counts::default();
        for p in &self.parameters {
            match p.fate {
                Fate::Mapped => c.mapped += 1,
                Fate::Approximated => c.approximated += 1,
                Fate::NotModelled => c.not_modelled += 1,
                Fate::Unknown => c.unknown += 1,
                Fate::Overridden => c.overridden += 1,
            }
        }
        self.counts = c;
    }

    /// Adds another file's parameters (the workload after the device).
    pub fn merge(&mut self, other: ImportReport) {
        if self.format.is_empty() {
            self.format = other.format;
        }
        self.files.extend(other.files);
        self.parameters.extend(other.parameters);
        self.warnings.extend(other.warnings);
        self.typos.extend(other.typos);
        self.fork_extensions.extend(other.fork_extensions);
        if other.scenario.is_some() {
            self.scenario = other.scenario;
        }
        self.recount();
    }

    /// Likely typos refuse the files: the source simulator would have ignored the name
    /// silently and run its default. With `lenient` they become warnings.
    pub fn check_typos(&mut self, lenient: bool) -> Result<()> {
        if self.typos.is_empty() {
            return Ok(());
        }
        if lenient {
            let typos = std::mem::take(&mut self.typos);
            self.warnings.extend(typos.into_iter().map(|t| format!("{t} (ignored: --lenient)")));
            return Ok(());
        }
        let simulator = if self.format == "ssdsim" { "SSDSim" } else { "MQSim" };
        bail!(
            "{}\n{simulator} would ignore {} and run its default instead: correct the name, or pass --lenient to run \
             with it ignored",
            self.typos.join("\n"),
            if self.typos.len() == 1 { "such a name" } else { "such names" }
        )
    }

    /// `--strict`: a fork's values and keys (run with the nearest meaning, or ignored) and
    /// unknown names refuse the files instead of running approximately.
    pub fn check_strict(&self) -> Result<()> {
        let mut refusals = self.fork_extensions.clone();
        for p in self.parameters.iter().filter(|p| p.fate == Fate::Unknown) {
            let line = format!("{}:{}: '{}' is unknown ({})", p.file, p.line, p.source, p.note);
            if !refusals.iter().any(|r| r.starts_with(&format!("{}:{}:", p.file, p.line))) {
                refusals.push(line);
            }
        }
        if refusals.is_empty() {
            return Ok(());
        }
        bail!(
            "{}\n--strict: the file uses {} the original simulator itself does not have (a fork's value or key, or \
             an unknown name); without --strict {} with the nearest meaning or ignored, as listed above",
            refusals.join("\n"),
            if refusals.len() == 1 { "a name or value" } else { "names or values" },
            if refusals.len() == 1 { "it runs" } else { "they run" }
        )
    }

    /// One line of counts, for the summary.
    pub fn counts_line(&self) -> String {
        let c = &self.counts;
        format!(
            "import: {} ({}{}): {} mapped, {} approximated, {} not modelled, {} unknown{}",
            self.files.join(", "),
            self.format,
            self.scenario.as_ref().map(|s| format!(", scenario {s}")).unwrap_or_default(),
            c.mapped,
            c.approximated,
            c.not_modelled,
            c.unknown,
            if c.overridden > 0 {
                format!(", {} overridden by a later duplicate", c.overridden)
            } else {
                String::new()
            }
        )
    }

    /// The whole parameter list, one line each, grouped by fate.
    pub fn listing(&self) -> String {
        let mut text = String::new();
        let _ = writeln!(text, "{}", self.counts_line());
        for fate in [Fate::Mapped, Fate::Approximated, Fate::NotModelled, Fate::Unknown, Fate::Overridden] {
            let mut of: Vec<&Param> = self.parameters.iter().filter(|p| p.fate == fate).collect();
            of.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
            if of.is_empty() {
                continue;
            }
            let _ = writeln!(text, "  {}:", fate.label());
            for p in of {
                let name = Path::new(&p.file).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                let target = if p.ssdlab.is_empty() { String::new() } else { format!(" -> {}", p.ssdlab.join(", ")) };
                let note = if p.note.is_empty() { String::new() } else { format!(" ({})", p.note) };
                let _ = writeln!(text, "    {name}:{} {} = {}{target}{note}", p.line, p.source, p.value);
            }
        }
        for w in &self.warnings {
            let _ = writeln!(text, "  warning: {w}");
        }
        text
    }
}

/// One ssdlab key an import sets, with the source it came from (the TOML comment).
#[derive(Clone, Debug)]
pub struct Assign {
    pub key: String,
    pub value: toml::Value,
    pub from: String,
}

/// Collects the keys an import sets and the fate of every source parameter.
#[derive(Default)]
pub struct Mapping {
    pub assigns: Vec<Assign>,
    pub report: ImportReport,
}

impl Mapping {
    /// Sets an ssdlab key; a later setting of the same key replaces the earlier one.
    pub fn set(&mut self, key: &str, value: impl Into<toml::Value>, from: &str) {
        let value = value.into();
        match self.assigns.iter_mut().find(|a| a.key == key) {
            Some(a) => {
                a.value = value;
                a.from = from.to_string();
            }
            None => self.assigns.push(Assign { key: key.to_string(), value, from: from.to_string() }),
        }
    }

    pub fn param(&mut self, item: &Item, fate: Fate, keys: &[&str], note: impl Into<String>) {
        self.report.parameters.push(Param {
            file: item.file.clone(),
            line: item.line,
            source: item.key.clone(),
            value: item.value.clone(),
            fate,
            ssdlab: keys.iter().map(|k| k.to_string()).collect(),
            note: note.into(),
        });
    }

    /// The config these keys make on top of `base`.
    pub fn apply_to(&self, base: &Config) -> Result<Config> {
        apply_assigns(base, &self.assigns)
    }
}

/// `base` with `assigns` set, through TOML so the keys and types are checked as in a file.
/// A key part `name[N]` is entry N of an array of tables (`flows[1].queue_depth`).
pub fn apply_assigns(base: &Config, assigns: &[Assign]) -> Result<Config> {
    let mut value = toml::Value::try_from(base).map_err(|e| anyhow!("cannot re-serialise the config: {e}"))?;
    for a in assigns {
        let (section, name) = a.key.rsplit_once('.').unwrap_or(("", &a.key));
        let mut table = value.as_table_mut().ok_or_else(|| anyhow!("the config is not a table"))?;
        for part in section.split('.').filter(|p| !p.is_empty()) {
            let (part, index) = split_index(part);
            let entry = table.entry(part.to_string());
            table = match index {
                None => entry.or_insert_with(|| toml::Value::Table(toml::Table::new())).as_table_mut(),
                Some(n) => {
                    let array = entry
                        .or_insert_with(|| toml::Value::Array(Vec::new()))
                        .as_array_mut()
                        .ok_or_else(|| anyhow!("{}: '{part}' is not an array of tables", a.key))?;
                    while array.len() <= n {
                        array.push(toml::Value::Table(toml::Table::new()));
                    }
                    array[n].as_table_mut()
                }
            }
            .ok_or_else(|| anyhow!("{}: '{part}' is not a section", a.key))?;
        }
        table.insert(name.to_string(), a.value.clone());
    }
    let text = toml::to_string(&value).map_err(|e| anyhow!("{e}"))?;
    ssdlab_core::config::parse_config(&text, "<import>").map_err(|e| anyhow!("{e}"))
}

/// `flows[2]` → (`flows`, Some(2)); `cache` → (`cache`, None).
fn split_index(part: &str) -> (&str, Option<usize>) {
    match part.strip_suffix(']').and_then(|p| p.split_once('[')) {
        Some((name, n)) => match n.parse() {
            Ok(n) => (name, Some(n)),
            Err(_) => (part, None),
        },
        None => (part, None),
    }
}

/// A TOML config holding `assigns`, each key commented with where it came from. Keys
/// under `name[N]` become the N-th `[[name]]` table (its subsections after it).
pub fn to_toml(header: &str, assigns: &[Assign]) -> String {
    let mut out = String::new();
    for line in header.lines() {
        let _ = writeln!(out, "# {line}");
    }
    let section_of = |a: &Assign| a.key.rsplit_once('.').map(|(s, _)| s.to_string()).unwrap_or_default();
    let mut sections: Vec<String> = Vec::new();
    for a in assigns {
        let section = section_of(a);
        if !sections.contains(&section) {
            sections.push(section);
        }
    }
    // Top-level keys must come before the first table header, and arrays of tables
    // after the plain tables, each entry's subsections right after it.
    let array_key = |s: &str| {
        let head = s.split('.').next().unwrap_or("");
        split_index(head).1.map(|n| (head.split('[').next().unwrap_or("").to_string(), n))
    };
    sections.sort_by_key(|s| {
        let entry = array_key(s);
        let depth = if entry.is_some() { s.matches('.').count() } else { 0 };
        (!s.is_empty(), entry, depth)
    });
    let mut last_entry = None;
    for section in &sections {
        match array_key(section) {
            Some(entry) => {
                let (name, _) = &entry;
                if last_entry.as_ref() != Some(&entry) {
                    let _ = writeln!(out, "\n[[{name}]]");
                    last_entry = Some(entry.clone());
                }
                if let Some((_, sub)) = section.split_once('.') {
                    let _ = writeln!(out, "\n[{name}.{sub}]");
                }
            }
            None if !section.is_empty() => {
                let _ = writeln!(out, "\n[{section}]");
            }
            None => {}
        }
        for a in assigns.iter().filter(|a| &section_of(a) == section) {
            let name = a.key.rsplit_once('.').map(|(_, k)| k).unwrap_or(&a.key);
            let _ = writeln!(out, "{name} = {}  # {}", a.value, a.from);
        }
    }
    out
}

/// The names a source simulator reads, for telling a likely typo from a fork's extension.
pub struct Vocabulary {
    pub simulator: &'static str,
    /// What its names are: "element" (MQSim's XML) or "parameter" (SSDSim).
    pub noun: &'static str,
    pub names: &'static [&'static str],
}

impl Vocabulary {
    /// A name as the file writes it: `<Element>` or `'key'`.
    pub fn quote(&self, name: &str) -> String {
        if self.noun == "element" {
            format!("<{name}>")
        } else {
            format!("'{name}'")
        }
    }
}

/// Edit distance counting a swap of neighbours as one edit (optimal string alignment),
/// ignoring ASCII case.
fn typo_distance(a: &str, b: &str) -> usize {
    strsim::osa_distance(&a.to_ascii_lowercase(), &b.to_ascii_lowercase())
}

/// The known name `name` is probably a misspelling of: the same letters in another case,
/// or one edit away (a letter missing, extra, wrong, or two swapped; two edits for names
/// of ten characters or more). Farther names are a fork's own, not typos.
pub fn likely_typo<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let length = name.chars().count();
    let limit = match length {
        0..=3 => 0,
        4..=9 => 1,
        _ => 2,
    };
    known
        .into_iter()
        .filter(|k| *k != name)
        .map(|k| (typo_distance(name, k), k))
        .filter(|(d, _)| *d <= limit)
        .min()
        .map(|(_, k)| k)
}

/// One `key = value` of a source file, with where it is.
#[derive(Clone, Debug)]
pub struct Item {
    pub file: String,
    pub line: u32,
    pub key: String,
    pub value: String,
    used: bool,
}

/// The parameters of one source file in file order. Rules take them by name; whatever no
/// rule took is listed as unknown at the end, and earlier duplicates as overridden.
pub struct Items {
    pub file: String,
    items: Vec<Item>,
    /// Every name a rule asked for, present or not (known names, for typos).
    asked: Vec<String>,
}

impl Items {
    pub fn new(file: &str) -> Self {
        Items { file: file.to_string(), items: Vec::new(), asked: Vec::new() }
    }

    pub fn push(&mut self, line: u32, key: &str, value: &str) {
        self.items.push(Item {
            file: self.file.clone(),
            line,
            key: key.to_string(),
            value: value.to_string(),
            used: false,
        });
    }

    /// The last occurrence of `key` (last wins, as both simulators read their files).
    pub fn take(&mut self, key: &str) -> Option<Item> {
        if !self.asked.iter().any(|k| k == key) {
            self.asked.push(key.to_string());
        }
        let mut found = None;
        for item in self.items.iter_mut().filter(|i| i.key == key) {
            item.used = true;
            found = Some(item.clone());
        }
        found
    }

    /// Every item whose key starts with `prefix`, in file order.
    pub fn take_prefixed(&mut self, prefix: &str) -> Vec<Item> {
        let mut out = Vec::new();
        for item in self.items.iter_mut().filter(|i| i.key.starts_with(prefix)) {
            item.used = true;
            out.push(item.clone());
        }
        out
    }

    /// Every item, taken or not, in file order.
    pub fn all(&self) -> impl Iterator<Item = &Item> {
        self.items.iter()
    }

    /// The last occurrence of every key not taken yet, in file order.
    pub fn take_all(&mut self) -> Vec<Item> {
        let keys: Vec<String> = self.items.iter().filter(|i| !i.used).map(|i| i.key.clone()).collect();
        let mut out = Vec::new();
        for key in keys {
            if !out.iter().any(|i: &Item| i.key == key) {
                if let Some(item) = self.take(&key) {
                    out.push(item);
                }
            }
        }
        out
    }

    /// The error for a required `key` that is absent: an untaken name close to it is
    /// named as the likely typo; otherwise `message`.
    pub fn missing(&self, key: &str, vocabulary: &Vocabulary, message: String) -> anyhow::Error {
        match self.items.iter().find(|i| !i.used && likely_typo(&i.key, [key]).is_some()) {
            Some(i) => anyhow!(
                "{}:{}: {} is not {} {} {}: did you mean {}? ({message})",
                i.file,
                i.line,
                vocabulary.quote(&i.key),
                article(vocabulary.simulator),
                vocabulary.simulator,
                vocabulary.noun,
                vocabulary.quote(key)
            ),
            None => anyhow!(message),
        }
    }

    /// Records duplicates as overridden and untaken items as unknown: a name close to one
    /// the source simulator reads (`vocabulary`, or one a rule asked for) is a likely
    /// typo (`report.typos`, which refuse the import unless `--lenient`); any other is a
    /// fork's extension, ignored with a warning. `shape` says which unknown names would
    /// change the device's shape, which refuses the file.
    pub fn finish(self, m: &mut Mapping, vocabulary: &Vocabulary, shape: impl Fn(&str) -> bool) -> Result<()> {
        let simulator = vocabulary.simulator;
        for (i, item) in self.items.iter().enumerate() {
            if let Some(later) = self.items[i + 1..].iter().find(|j| j.key == item.key) {
                m.report.warnings.push(format!(
                    "{}:{}: {} is set again on line {}: the later value ({}) wins, as in {simulator}",
                    item.file, item.line, item.key, later.line, later.value
                ));
                m.param(item, Fate::Overridden, &[], format!("set again on line {}", later.line));
                continue;
            }
            if item.used {
                continue;
            }
            let known = self.asked.iter().map(String::as_str).chain(vocabulary.names.iter().copied());
            let typo = likely_typo(&item.key, known).map(|k| vocabulary.quote(k));
            let hint = typo.as_ref().map(|t| format!(" (did you mean {t}?)")).unwrap_or_default();
            if shape(&item.key) {
                bail!(
                    "{}:{}: {}: unknown parameter that would change the device's shape; ssdlab cannot import \
                     it (remove it or map it by hand){hint}",
                    item.file,
                    item.line,
                    item.key
                );
            }
            let name = vocabulary.quote(&item.key);
            let (a, noun) = (article(simulator), vocabulary.noun);
            match &typo {
                Some(t) => {
                    m.report.typos.push(format!(
                        "{}:{}: {name} is not {a} {simulator} {noun}: did you mean {t}?",
                        item.file, item.line
                    ));
                    m.param(item, Fate::Unknown, &[], format!("a likely typo of {t}; ignored"));
                }
                None if vocabulary.names.contains(&item.key.as_str()) => {
                    m.report.warnings.push(format!(
                        "{}:{}: {name} is {a} {simulator} {noun} that ssdlab does not read here; ignored",
                        item.file, item.line
                    ));
                    m.param(
                        item,
                        Fate::Unknown,
                        &[],
                        format!("{a} {simulator} {noun} ssdlab does not read here; ignored"),
                    );
                }
                None => {
                    m.report.warnings.push(format!(
                        "{}:{}: {name} is not {a} {simulator} {noun} ssdlab knows (a fork's extension?); ignored",
                        item.file, item.line
                    ));
                    m.param(item, Fate::Unknown, &[], format!("not {a} {simulator} {noun} ssdlab knows; ignored"));
                }
            }
        }
        Ok(())
    }
}

/// "an MQSim", "an SSDSim".
fn article(simulator: &str) -> &'static str {
    if simulator.starts_with(['A', 'E', 'F', 'H', 'I', 'L', 'M', 'N', 'O', 'R', 'S', 'X']) {
        "an"
    } else {
        "a"
    }
}

/// A value as a whole number, or an error naming the file, line and key.
pub fn whole(item: &Item) -> Result<u64> {
    let v = item.value.trim();
    v.parse::<u64>().map_err(|_| {
        let why = if v.starts_with('-') { "must not be negative" } else { "is not a whole number" };
        anyhow!("{}:{}: {}: '{}' {why}", item.file, item.line, item.key, item.value)
    })
}

/// A count (whole and at least 1) that fits ssdlab's 32-bit geometry.
pub fn count(item: &Item) -> Result<u32> {
    let n = whole(item)?;
    if n == 0 {
        bail!("{}:{}: {}: must be at least 1", item.file, item.line, item.key);
    }
    u32::try_from(n).map_err(|_| anyhow!("{}:{}: {}: {n} is too large", item.file, item.line, item.key))
}

pub fn number(item: &Item) -> Result<f64> {
    item.value
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| anyhow!("{}:{}: {}: '{}' is not a number", item.file, item.line, item.key, item.value))
}

/// A fraction in [0, 1).
pub fn fraction(item: &Item) -> Result<f64> {
    let v = number(item)?;
    if !(0.0..1.0).contains(&v) {
        bail!("{}:{}: {}: {v} must be a fraction in [0, 1)", item.file, item.line, item.key);
    }
    Ok(v)
}

pub fn boolean(item: &Item) -> Result<bool> {
    match item.value.trim().to_ascii_lowercase().as_str() {
        "true" | "1" => Ok(true),
        "false" | "0" => Ok(false),
        _ => bail!("{}:{}: {}: '{}' is not true or false", item.file, item.line, item.key, item.value),
    }
}

/// Where an imported source comes from, for `from` comments: `element (file:line)`.
pub fn origin(item: &Item) -> String {
    let name = Path::new(&item.file).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    format!("{} = {} ({name}:{})", item.key, item.value, item.line)
}

/// A device config read from any supported file, with its import record if it was not
/// ssdlab TOML.
pub struct Loaded {
    pub config: Config,
    pub import: Option<ImportReport>,
    /// The keys the import set (for `ssdlab import -o`).
    pub assigns: Vec<Assign>,
    pub kind: Kind,
    /// MQSim's `Enabled_Preconditioning` (the workload's occupancy applies only with it).
    pub preconditioning: Option<bool>,
}

/// Reads a config file of any supported kind, recognised by its content; a likely typo in
/// an MQSim or SSDSim file refuses it.
pub fn load(path: &Path) -> Result<Loaded> {
    load_with(path, false)
}

/// As [`load_with`]; with `strict` (`--strict`), a fork's values and keys and unknown
/// names refuse the file ([`ImportReport::check_strict`]).
pub fn load_checked(path: &Path, lenient: bool, strict: bool) -> Result<Loaded> {
    let loaded = load_with(path, lenient)?;
    if strict {
        if let Some(report) = &loaded.import {
            report.check_strict()?;
        }
    }
    Ok(loaded)
}

/// As [`load`]; with `lenient` (`--lenient`), likely typos are warnings instead.
pub fn load_with(path: &Path, lenient: bool) -> Result<Loaded> {
    let bytes = std::fs::read(path).map_err(|e| anyhow!("cannot read config {}: {e}", path.display()))?;
    let name = path.display().to_string();
    match detect(&bytes) {
        Kind::Toml => {
            let text = decode_text(&bytes);
            let config = ssdlab_core::config::parse_config(&text, &name).map_err(|e| anyhow!("{e}"))?;
            Ok(Loaded { config, import: None, assigns: Vec::new(), kind: Kind::Toml, preconditioning: None })
        }
        Kind::MqsimDevice => {
            let (mut m, preconditioning) = mqsim::device(&bytes, &name)?;
            m.report.check_typos(lenient)?;
            let config = m.apply_to(&Config::default()).map_err(|e| anyhow!("{name}: the imported device: {e}"))?;
            Ok(Loaded {
                config,
                import: Some(m.report),
                assigns: m.assigns,
                kind: Kind::MqsimDevice,
                preconditioning: Some(preconditioning),
            })
        }
        Kind::Ssdsim => {
            let mut m = ssdsim::parameters(&bytes, &name)?;
            m.report.check_typos(lenient)?;
            let config = m.apply_to(&Config::default()).map_err(|e| anyhow!("{name}: the imported device: {e}"))?;
            Ok(Loaded { config, import: Some(m.report), assigns: m.assigns, kind: Kind::Ssdsim, preconditioning: None })
        }
        Kind::MqsimWorkload => bail!(
            "{name}: this is an MQSim workload file (<MQSim_IO_Scenarios>), not a device: pass it with --workload and \
             the device with --config (e.g. MQSim's ssdconfig.xml)"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_by_content() {
        assert_eq!(detect(b"\xEF\xBB\xBF<?xml version=\"1.0\"?>\r\n<Execution_Parameter_Set>"), Kind::MqsimDevice);
        assert_eq!(detect(b"<!-- c --><MQSim_IO_Scenarios>"), Kind::MqsimWorkload);
        assert_eq!(detect(b"channel number = 2;\nchip number[0] = 2;\nt_PROG = 1\n"), Kind::Ssdsim);
        assert_eq!(detect(b"[geometry]\nchannels = 2\n"), Kind::Toml);
    }

    #[test]
    fn likely_typos_are_near_names_and_forks_are_not() {
        let mqsim = mqsim::DEVICE.names.iter().copied();
        assert_eq!(likely_typo("Overprovisoning_Ratio", mqsim.clone()), Some("Overprovisioning_Ratio"));
        assert_eq!(likely_typo("overprovisioning_ratio", mqsim.clone()), Some("Overprovisioning_Ratio"));
        assert_eq!(likely_typo("Flash_Chanel_Count", mqsim.clone()), Some("Flash_Channel_Count"));
        assert_eq!(likely_typo("GC_Hard_Threshlod", mqsim.clone()), Some("GC_Hard_Threshold"), "a swap is one edit");
        // A fork's own names and MQSim's own spellings are not typos.
        for name in ["Page_Read_Latency_QLC", "Fork_Thermal_Model", "Die_No_Per_Package", "Overprovisioning_Ratio"] {
            assert_eq!(likely_typo(name, mqsim.clone()), None, "{name}");
        }
        // Short names allow one edit, very short ones only another case.
        assert_eq!(likely_typo("t_PRG", ["t_PROG"]), Some("t_PROG"));
        assert_eq!(likely_typo("GC", ["gc"]), Some("gc"));
        assert_eq!(likely_typo("gd", ["gc"]), None);
        assert_eq!(likely_typo("lun number", ["die number", "page number"]), None);
    }

    #[test]
    fn text_decoding_keeps_ascii() {
        assert_eq!(decode_text(b"\xEF\xBB\xBFa=1"), "a=1");
        assert_eq!(decode_text(b"a=1 #\xd6\xd0"), "a=1 #\u{d6}\u{d0}");
        assert_eq!(decode_text(&[0xFF, 0xFE, b'a', 0, b'=', 0]), "a=");
    }
}

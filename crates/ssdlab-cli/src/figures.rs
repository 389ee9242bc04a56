//! The reproductions' figures: each table of a `reproduce` report also drawn as an SVG
//! file beside the markdown (`NAME-SLUG.svg`), linked from the report under its table.

use crate::plot::{bar_chart, line_chart, BarChart, LineChart};
use anyhow::{Context, Result};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

pub struct Figures {
    dir: PathBuf,
    stem: String,
    files: Vec<(String, String)>,
}

impl Figures {
    /// Figures of the report `out` (written beside it).
    pub fn new(out: &Path) -> Figures {
        let dir = out.parent().map(Path::to_path_buf).unwrap_or_default();
        let stem = out.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "report".into());
        Figures { dir, stem, files: Vec::new() }
    }

    fn add(&mut self, md: &mut String, slug: &str, title: &str, svg: String) {
        let name = format!("{}-{slug}.svg", self.stem);
        let _ = writeln!(md, "![{title}]({name})\n");
        self.files.push((name, svg));
    }

    pub fn bars(&mut self, md: &mut String, slug: &str, chart: BarChart) {
        let title = chart.title.clone();
        self.add(md, slug, &title, bar_chart(&chart));
    }

    pub fn lines(&mut self, md: &mut String, slug: &str, chart: LineChart) {
        let title = chart.title.clone();
        self.add(md, slug, &title, line_chart(&chart));
    }

    /// Writes the report `md` to `out` (creating its folder), then its figures beside it.
    pub fn write_report(&self, out: &Path, md: &str) -> Result<()> {
        if let Some(dir) = out.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(out, md).with_context(|| format!("writing {}", out.display()))?;
        self.write()
    }

    /// Writes every figure's SVG file.
    fn write(&self) -> Result<()> {
        for (name, svg) in &self.files {
            let path = self.dir.join(name);
            std::fs::write(&path, svg).with_context(|| format!("writing {}", path.display()))?;
        }
        Ok(())
    }
}

//! `ssdlab-hotcold`: `ssdlab run` with the hot/cold design added. Every option of
//! `ssdlab run` works (--preset, --trace, --set designs.hotcold.threshold=3, --json, ...).
//!
//! This is the whole of a researcher's own simulator binary: their design, installed
//! into the simulator the command line sets up.

use clap::Parser;
use ssdlab_hotcold::HotCold;

/// ssdlab run, with hot/cold write separation (section [designs.hotcold]).
#[derive(Parser)]
#[command(name = "ssdlab-hotcold", version)]
struct Cli {
    #[command(flatten)]
    run: ssdlab_cli::RunArgs,
}

fn main() {
    let cli = Cli::parse();
    if let Err(e) = ssdlab_cli::run::run_with_designs(cli.run, &[HotCold::install]) {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}

use super::*;

#[test]
fn default_config_is_valid() {
    Config::default().validate().unwrap();
}

#[test]
fn unknown_key_gets_suggestion() {
    let e = parse_config("[geometry]\nchanels = 4\n", "x.toml").unwrap_err();
    assert_eq!(e.key, "x.toml:2");
    assert!(e.message.contains("did you mean 'channels'"), "{}", e.message);
}

#[test]
fn zero_geometry_is_rejected_with_key() {
    let mut c = Config::default();
    c.geometry.planes_per_die = 0;
    let errors = c.validate().unwrap_err();
    assert!(errors.iter().any(|e| e.key == "geometry.planes_per_die"));
}

#[test]
fn latency_count_must_match_cell_type() {
    let mut c = Config::default();
    c.flash.cell = CellType::Mlc;
    let errors = c.validate().unwrap_err();
    assert!(errors.iter().any(|e| e.key == "flash.read_latency_ns"));
}

#[test]
fn too_little_over_provisioning_is_rejected() {
    let mut c = Config::default();
    c.ftl.over_provisioning = 0.01;
    let errors = c.validate().unwrap_err();
    assert!(errors.iter().any(|e| e.key == "ftl.over_provisioning"), "{errors:?}");
}

#[test]
fn key_line_finds_keys_in_their_section() {
    let text = "seed = 3\n\n[geometry]\nchannels = 0\n[ftl] # comment\n\"gc_victim\" = \"fifo\"\n";
    assert_eq!(key_line(text, "seed"), Some(1));
    assert_eq!(key_line(text, "geometry.channels"), Some(4));
    assert_eq!(key_line(text, "ftl.gc_victim"), Some(6));
    assert_eq!(key_line(text, "ftl.channels"), None);
    assert_eq!(key_line(text, "geometry.planes_per_die"), None);
}

#[test]
fn type_errors_name_the_key() {
    let e = parse_config("[geometry]\nchannels = \"8\"\n", "t.toml").unwrap_err();
    assert_eq!(e.to_string(), "t.toml:2: geometry.channels: invalid type: string \"8\", expected u32");
    let e = apply_overrides(&Config::default(), &["flash.cell=plc".into()]).unwrap_err();
    assert!(e.to_string().starts_with("flash.cell: unknown variant `plc`"), "{e}");
}

#[test]
fn absurd_values_are_rejected_without_overflow() {
    let mut c = Config::default();
    c.geometry.channels = u32::MAX;
    c.geometry.chips_per_channel = u32::MAX;
    c.geometry.blocks_per_plane = u32::MAX;
    c.geometry.pages_per_block = u32::MAX;
    c.ftl.slc_blocks_per_plane = u32::MAX;
    c.flash.erase_latency_ns = u64::MAX;
    c.flash.transfer_ns_per_byte = 1e300;
    let errors = c.validate().unwrap_err();
    for key in ["geometry", "flash.erase_latency_ns", "flash.transfer_ns_per_byte", "ftl.slc_blocks_per_plane"] {
        assert!(errors.iter().any(|e| e.key == key), "{key}: {errors:?}");
    }
}

#[test]
fn overrides_apply_and_reject_unknown_keys() {
    let c = apply_overrides(&Config::default(), &["ftl.gc_victim=fifo".into(), "geometry.channels=4".into()]).unwrap();
    assert_eq!(c.ftl.gc_victim, VictimPolicy::Fifo);
    assert_eq!(c.geometry.channels, 4);
    let e = apply_overrides(&Config::default(), &["ftl.gc_victm=fifo".into()]).unwrap_err();
    assert!(e.message.contains("did you mean 'gc_victim'"), "{}", e.message);
}

#[test]
fn new_core_options_are_checked_with_their_keys() {
    let keys = |c: &Config| c.validate().err().unwrap_or_default().into_iter().map(|e| e.key).collect::<Vec<_>>();
    let mut c = Config::default();
    c.ftl.super_page_channels = 3;
    c.ftl.super_page_dies = 0;
    let k = keys(&c);
    assert!(k.contains(&"ftl.super_page_channels".into()) && k.contains(&"ftl.super_page_dies".into()), "{k:?}");
    let mut c = Config::default();
    c.ftl.mapping = Mapping::Subpages;
    assert!(keys(&c).contains(&"geometry.subpages_per_page".into()), "a subpage map needs subpages");
    c.geometry.subpages_per_page = 4;
    c.ftl.super_page_channels = 2;
    assert!(keys(&c).contains(&"ftl.mapping".into()), "super-pages are mapped whole");
    let mut c = Config::default();
    c.ftl.slc_levels = 2;
    assert!(keys(&c).contains(&"ftl.slc_levels".into()), "levels need SLC blocks");
    c.ftl.slc_blocks_per_plane = 3;
    c.flash.slc_pages_per_block = 64;
    assert!(keys(&c).contains(&"ftl.slc_blocks_per_plane".into()), "two levels need four SLC blocks");
    c.ftl.slc_blocks_per_plane = 4;
    assert_eq!(keys(&c), Vec::<String>::new());
    c.ftl.slc_gc_destination = SlcGcDestination::NextLevel;
    c.ftl.slc_levels = 1;
    assert!(keys(&c).contains(&"ftl.slc_gc_destination".into()));
}

/// Issue 42: one rule for every design's section (printed only where it differs from its
/// defaults) and one `--set` form for every design (`designs.NAME.key`).
#[test]
fn design_sections_at_their_defaults_are_not_printed_and_designs_name_key_sets_any_design() {
    let text = toml::to_string(&Config::default()).unwrap();
    for section in ["pa", "dir", "ipu", "gordon", "harey", "mango", "scrub", "wom", "hybrid", "designs"] {
        assert!(!text.contains(&format!("[{section}]")), "[{section}] printed at its defaults:\n{text}");
    }
    let set =
        |items: &[&str]| apply_overrides(&Config::default(), &items.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    let short = set(&["pa.scheme=hgs"]).unwrap();
    assert_eq!(short.pa.scheme, "hgs");
    assert!(toml::to_string(&short).unwrap().contains("[pa]"));
    // The same key by the design's name or its section's.
    assert_eq!(set(&["designs.pa-ssd.scheme=hgs"]).unwrap(), short);
    assert_eq!(set(&["designs.pa.scheme=hgs"]).unwrap(), short);
    assert!(set(&["designs.mango.enabled=true"]).unwrap().mango.enabled);
    assert_eq!(set(&["designs.harey.rtf=weak"]).unwrap().harey.rtf, Rtf::Weak);
    // A typo in a built-in design's key is an error with a did-you-mean, as in its section.
    let e = set(&["designs.pa-ssd.shceme=hgs"]).unwrap_err();
    assert_eq!(e.key, "designs.pa-ssd.shceme");
    assert!(e.message.contains("did you mean 'scheme'"), "{}", e.message);
    // An outside design's key goes to its `[designs.NAME]` section, which it reads itself.
    let outside = set(&["designs.hotcold.threshold=3"]).unwrap();
    assert_eq!(outside.designs["hotcold"]["threshold"].as_integer(), Some(3));
}

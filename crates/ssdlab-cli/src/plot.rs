//! Line and bar charts as standalone SVG text, for the HTML report and the
//! reproductions' figures. Written by hand rather than with a plotting crate: the
//! browser lays out the text (no font files, no font metrics here), the output is small
//! and byte-for-byte deterministic, and nothing is added to the build.
//!
//! Every chart is an `<svg class="plot">` whose data are `<path class="line|bar">`
//! elements, with `<text class="axis-label">` x and y labels (the report's tests check
//! both).

use std::fmt::Write as _;

const WIDTH: f64 = 640.0;
const HEIGHT: f64 = 360.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 20.0;
/// The right margin when there is a legend: it sits beside the plot, never over the data.
const RIGHT_WITH_LEGEND: f64 = 170.0;
const TOP: f64 = 36.0;
const BOTTOM: f64 = 50.0;
/// Line and bar colours in drawing order: Okabe-Ito's colour-blind-safe palette with its
/// pale colours darkened or replaced (reddish purple → #AA3377, orange → dark ochre, sky
/// blue → violet, yellow → grey): yellow, orange and sky blue were unreadable as thin
/// lines on white. Every colour has at least WCAG's 3:1 contrast on white (the tests
/// check it).
const COLOURS: &[&str] = &["#0072B2", "#D55E00", "#009E73", "#AA3377", "#997700", "#6A3D9A", "#000000", "#707070"];

/// One line of a line chart.
#[derive(Clone, Debug, Default)]
pub struct Line {
    pub label: String,
    pub points: Vec<(f64, f64)>,
    /// Draw a marker at every point (few points, e.g. percentiles).
    pub markers: bool,
    pub dashed: bool,
}

#[derive(Clone, Debug, Default)]
pub struct LineChart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub x_log: bool,
    pub lines: Vec<Line>,
    /// Start the y axis at 0 even when every value is above it.
    pub y_from_zero: bool,
}

/// A grouped bar chart: one bar per (category, group).
#[derive(Clone, Debug, Default)]
pub struct BarChart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub categories: Vec<String>,
    /// (group label, one value per category).
    pub groups: Vec<(String, Vec<f64>)>,
}

pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// A number as a tick label: short, without float noise.
pub fn tick_text(v: f64) -> String {
    let a = v.abs();
    if a == 0.0 {
        return "0".into();
    }
    let (scaled, suffix) = match a {
        a if a >= 1e9 => (v / 1e9, "G"),
        a if a >= 1e6 => (v / 1e6, "M"),
        a if a >= 1e4 => (v / 1e3, "k"),
        _ => (v, ""),
    };
    let text = if scaled.abs() >= 100.0 || scaled.fract() == 0.0 {
        format!("{scaled:.0}")
    } else if scaled.abs() >= 1.0 {
        format!("{scaled:.2}").trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        let digits = (-scaled.abs().log10()).ceil() as usize + 2;
        format!("{scaled:.digits$}").trim_end_matches('0').trim_end_matches('.').to_string()
    };
    format!("{text}{suffix}")
}

/// Linear ticks covering [lo, hi]: a 1-2-5 step, about five of them.
fn linear_ticks(lo: f64, hi: f64) -> (f64, f64, Vec<f64>) {
    let span = if hi > lo { hi - lo } else { lo.abs().max(1.0) };
    let raw = span / 5.0;
    let magnitude = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * magnitude).find(|s| *s >= raw).unwrap_or(10.0 * magnitude);
    let start = (lo / step).floor() * step;
    let mut end = (hi / step).ceil() * step;
    if end <= start {
        end = start + step;
    }
    let n = ((end - start) / step).round() as usize;
    let ticks = (0..=n).map(|k| start + k as f64 * step).collect();
    (start, end, ticks)
}

/// Decade ticks covering [lo, hi] (both positive).
fn log_ticks(lo: f64, hi: f64) -> (f64, f64, Vec<f64>) {
    let a = lo.log10().floor();
    let mut b = hi.log10().ceil();
    if b <= a {
        b = a + 1.0;
    }
    let ticks = (a as i32..=b as i32).map(|e| 10f64.powi(e)).collect();
    (10f64.powf(a), 10f64.powf(b), ticks)
}

/// Closes a chart that has nothing to draw with a centred "no data".
fn no_data(mut out: String) -> String {
    let _ =
        write!(out, "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">no data</text></svg>", WIDTH / 2.0, HEIGHT / 2.0);
    out
}

fn header(out: &mut String, title: &str) {
    let _ = write!(
        out,
        "<svg class=\"plot\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {WIDTH} {HEIGHT}\" width=\"{WIDTH}\" \
         height=\"{HEIGHT}\" role=\"img\" font-family=\"sans-serif\" font-size=\"12\">\
         <title>{t}</title><rect x=\"0\" y=\"0\" width=\"{WIDTH}\" height=\"{HEIGHT}\" fill=\"white\"/>\
         <text class=\"title\" x=\"{x}\" y=\"20\" text-anchor=\"middle\" font-size=\"14\" font-weight=\"bold\">{t}</text>",
        t = escape(title),
        x = WIDTH / 2.0
    );
}

fn axis_labels(out: &mut String, x_label: &str, y_label: &str, right: f64) {
    let (x, y) = (LEFT + (WIDTH - LEFT - right) / 2.0, TOP + (HEIGHT - TOP - BOTTOM) / 2.0);
    let _ = write!(
        out,
        "<text class=\"axis-label x\" x=\"{x}\" y=\"{}\" text-anchor=\"middle\">{}</text>\
         <text class=\"axis-label y\" x=\"16\" y=\"{y}\" text-anchor=\"middle\" transform=\"rotate(-90 16 {y})\">{}</text>",
        HEIGHT - 10.0,
        escape(x_label),
        escape(y_label)
    );
}

/// Whether a chart of these series labels has a legend (one unnamed series has none).
fn has_legend(labels: &[&str]) -> bool {
    !(labels.len() < 2 && labels.iter().all(|l| l.is_empty()))
}

fn legend(out: &mut String, labels: &[&str]) {
    if !has_legend(labels) {
        return;
    }
    let mut y = TOP + 8.0;
    for (i, label) in labels.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        let x = WIDTH - RIGHT_WITH_LEGEND + 12.0;
        let _ = write!(
            out,
            "<rect x=\"{x}\" y=\"{}\" width=\"12\" height=\"4\" fill=\"{colour}\"/><text class=\"legend\" x=\"{}\" \
             y=\"{}\">{}</text>",
            y - 4.0,
            x + 16.0,
            y + 1.0,
            escape(label)
        );
        y += 16.0;
    }
}

/// A line chart. Points with non-finite values (or non-positive x on a log axis) are
/// left out, and a non-finite value breaks the line (a gap in the data); a chart with no
/// point left says so in place of the lines.
pub fn line_chart(chart: &LineChart) -> String {
    let usable = |&(x, y): &(f64, f64)| x.is_finite() && y.is_finite() && (!chart.x_log || x > 0.0);
    let all: Vec<(f64, f64)> = chart.lines.iter().flat_map(|l| l.points.iter().copied().filter(usable)).collect();
    let labels: Vec<&str> = chart.lines.iter().map(|l| l.label.as_str()).collect();
    let right = if has_legend(&labels) { RIGHT_WITH_LEGEND } else { RIGHT };
    let mut out = String::new();
    header(&mut out, &chart.title);
    axis_labels(&mut out, &chart.x_label, &chart.y_label, right);
    if all.is_empty() {
        return no_data(out);
    }
    let (mut x_lo, mut x_hi) = all.iter().fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.0), b.max(p.0)));
    let (mut y_lo, y_hi) = all.iter().fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.1), b.max(p.1)));
    if chart.y_from_zero {
        y_lo = y_lo.min(0.0);
    }
    if x_hi <= x_lo {
        (x_lo, x_hi) = if chart.x_log { (x_lo / 2.0, x_hi * 2.0) } else { (x_lo - 1.0, x_hi + 1.0) };
    }
    let (x0, x1, x_ticks) = if chart.x_log { log_ticks(x_lo, x_hi) } else { linear_ticks(x_lo, x_hi) };
    let (y0, y1, y_ticks) = linear_ticks(y_lo, y_hi);
    let (pw, ph) = (WIDTH - LEFT - right, HEIGHT - TOP - BOTTOM);
    let sx = |x: f64| {
        let f = if chart.x_log { (x.log10() - x0.log10()) / (x1.log10() - x0.log10()) } else { (x - x0) / (x1 - x0) };
        LEFT + f * pw
    };
    let sy = |y: f64| TOP + ph - (y - y0) / (y1 - y0) * ph;
    axes_frame(
        &mut out,
        &x_ticks.iter().map(|&t| (sx(t), tick_text(t))).collect::<Vec<_>>(),
        &y_ticks.iter().map(|&t| (sy(t), tick_text(t))).collect::<Vec<_>>(),
        right,
    );
    for (i, line) in chart.lines.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        // A point with a non-finite value is a gap: the line resumes after it.
        let (mut d, mut pen_up) = (String::new(), true);
        for &(x, y) in &line.points {
            if !y.is_finite() {
                pen_up = true;
            } else if usable(&(x, y)) {
                let _ = write!(
                    d,
                    "{}{:.1},{:.1}",
                    if d.is_empty() {
                        "M"
                    } else if pen_up {
                        " M"
                    } else {
                        " L"
                    },
                    sx(x),
                    sy(y)
                );
                pen_up = false;
            }
        }
        if d.is_empty() {
            continue;
        }
        let dash = if line.dashed { " stroke-dasharray=\"6 3\"" } else { "" };
        let _ = write!(
            out,
            "<path class=\"line\" d=\"{d}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"1.8\"{dash}><title>{}</title></path>",
            escape(&line.label)
        );
        if line.markers {
            for &(x, y) in line.points.iter().filter(|p| usable(p)) {
                let _ = write!(out, "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"{colour}\"/>", sx(x), sy(y));
            }
        }
    }
    legend(&mut out, &labels);
    out.push_str("</svg>");
    out
}

/// The plot area's frame, grid and tick labels: (pixel, label) per tick.
fn axes_frame(out: &mut String, x_ticks: &[(f64, String)], y_ticks: &[(f64, String)], right: f64) {
    let (x_end, y_end) = (WIDTH - right, HEIGHT - BOTTOM);
    for (y, label) in y_ticks {
        let _ = write!(
            out,
            "<line x1=\"{LEFT}\" y1=\"{y:.1}\" x2=\"{x_end}\" y2=\"{y:.1}\" stroke=\"#ddd\"/><text class=\"tick\" \
             x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{label}</text>",
            LEFT - 6.0,
            y + 4.0
        );
    }
    for (x, label) in x_ticks {
        let _ = write!(
            out,
            "<line x1=\"{x:.1}\" y1=\"{TOP}\" x2=\"{x:.1}\" y2=\"{y_end}\" stroke=\"#eee\"/><text class=\"tick\" \
             x=\"{x:.1}\" y=\"{}\" text-anchor=\"middle\">{label}</text>",
            y_end + 16.0
        );
    }
    let _ = write!(
        out,
        "<path class=\"frame\" d=\"M{LEFT},{TOP} L{LEFT},{y_end} L{x_end},{y_end}\" fill=\"none\" stroke=\"#333\"/>"
    );
}

/// A grouped bar chart (bars from 0; negative values are drawn downwards).
pub fn bar_chart(chart: &BarChart) -> String {
    let labels: Vec<&str> = chart.groups.iter().map(|g| g.0.as_str()).collect();
    let right = if has_legend(&labels) { RIGHT_WITH_LEGEND } else { RIGHT };
    let mut out = String::new();
    header(&mut out, &chart.title);
    axis_labels(&mut out, &chart.x_label, &chart.y_label, right);
    let values: Vec<f64> = chart.groups.iter().flat_map(|g| g.1.iter().copied()).filter(|v| v.is_finite()).collect();
    if values.is_empty() || chart.categories.is_empty() {
        return no_data(out);
    }
    let lo = values.iter().copied().fold(0.0, f64::min);
    let hi = values.iter().copied().fold(0.0, f64::max);
    let (y0, y1, y_ticks) = linear_ticks(lo, if hi > lo { hi } else { lo + 1.0 });
    let (pw, ph) = (WIDTH - LEFT - right, HEIGHT - TOP - BOTTOM);
    let sy = |y: f64| TOP + ph - (y - y0) / (y1 - y0) * ph;
    let slot = pw / chart.categories.len() as f64;
    let groups = chart.groups.len().max(1) as f64;
    let bar = slot * 0.8 / groups;
    let x_ticks: Vec<(f64, String)> =
        chart.categories.iter().enumerate().map(|(i, c)| (LEFT + slot * (i as f64 + 0.5), escape(c))).collect();
    axes_frame(&mut out, &x_ticks, &y_ticks.iter().map(|&t| (sy(t), tick_text(t))).collect::<Vec<_>>(), right);
    for (g, (label, vals)) in chart.groups.iter().enumerate() {
        let colour = COLOURS[g % COLOURS.len()];
        for (i, &v) in vals.iter().enumerate().take(chart.categories.len()) {
            if !v.is_finite() {
                continue;
            }
            let x = LEFT + slot * i as f64 + slot * 0.1 + bar * g as f64;
            let (top, bottom) = (sy(v.max(0.0)), sy(v.min(0.0)));
            let _ = write!(
                out,
                "<path class=\"bar\" d=\"M{x:.1},{bottom:.1} V{top:.1} H{:.1} V{bottom:.1} Z\" fill=\"{colour}\"><title>{}: {}</title></path>",
                x + bar.max(1.0),
                escape(label),
                tick_text(v)
            );
        }
    }
    legend(&mut out, &labels);
    out.push_str("</svg>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// WCAG contrast ratio of a `#rrggbb` colour against white.
    fn contrast_on_white(hex: &str) -> f64 {
        let channel = |k: usize| {
            let c = u8::from_str_radix(&hex[1 + 2 * k..3 + 2 * k], 16).unwrap() as f64 / 255.0;
            if c <= 0.03928 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        };
        let l = 0.2126 * channel(0) + 0.7152 * channel(1) + 0.0722 * channel(2);
        1.05 / (l + 0.05)
    }

    /// Issue 45 item 13: every line colour stays readable on the white plot (WCAG's 3:1
    /// for graphics), so an 8-series plot has no pale yellow or sky-blue line; and no
    /// colour is used twice.
    #[test]
    fn every_colour_is_readable_on_white() {
        assert!(COLOURS.len() >= 8);
        for c in COLOURS {
            assert!(contrast_on_white(c) >= 3.0, "{c}: contrast {:.2} on white", contrast_on_white(c));
        }
        for (i, c) in COLOURS.iter().enumerate() {
            assert!(!COLOURS[..i].contains(c), "{c} twice");
        }
    }

    /// A non-finite value is a gap: the line stops before it and resumes after it (a
    /// time plot does not bridge an idle stretch with a slope).
    #[test]
    fn a_nan_value_breaks_the_line() {
        let chart = LineChart {
            lines: vec![Line {
                label: "a".into(),
                points: vec![(0.0, 1.0), (1.0, 1.0), (1.0, f64::NAN), (5.0, f64::NAN), (5.0, 2.0), (6.0, 2.0)],
                ..Line::default()
            }],
            ..LineChart::default()
        };
        let svg = line_chart(&chart);
        let d = svg.split("class=\"line\" d=\"").nth(1).and_then(|rest| rest.split('"').next()).unwrap();
        assert_eq!((d.matches('M').count(), d.matches(" L").count()), (2, 2), "two pieces: {d}");
    }

    #[test]
    fn ticks_are_round_and_cover_the_data() {
        let (lo, hi, ticks) = linear_ticks(3.0, 97.0);
        assert!(lo <= 3.0 && hi >= 97.0);
        assert_eq!(ticks, vec![0.0, 20.0, 40.0, 60.0, 80.0, 100.0]);
        let (lo, hi, ticks) = log_ticks(12.0, 3400.0);
        assert_eq!((lo, hi), (10.0, 10000.0));
        assert_eq!(ticks.len(), 4);
        assert_eq!(tick_text(25000.0), "25k");
        assert_eq!(tick_text(0.25), "0.25");
        assert_eq!(tick_text(1.5e6), "1.5M");
    }

    #[test]
    fn charts_draw_paths_and_labels() {
        let chart = LineChart {
            title: "t<1>".into(),
            x_label: "latency (us)".into(),
            y_label: "fraction".into(),
            x_log: true,
            lines: vec![Line {
                label: "a".into(),
                points: vec![(1.0, 0.1), (10.0, 0.5), (0.0, 0.7)],
                ..Line::default()
            }],
            ..LineChart::default()
        };
        let svg = line_chart(&chart);
        assert!(svg.contains("class=\"line\" d=\"M"), "{svg}");
        assert!(svg.contains("t&lt;1&gt;") && svg.contains(">latency (us)</text>"));
        let line = svg.split("class=\"line\" d=\"").nth(1).and_then(|rest| rest.split('"').next()).unwrap();
        assert_eq!(line.matches(" L").count(), 1, "the x = 0 point is left out on a log axis: {line}");
        let empty = line_chart(&LineChart { lines: vec![Line::default()], ..chart });
        assert!(empty.contains("no data") && !empty.contains("class=\"line\""));
        let bars = bar_chart(&BarChart {
            title: "b".into(),
            categories: vec!["LSB".into(), "MSB".into()],
            groups: vec![("run".into(), vec![3.0, 5.0])],
            ..BarChart::default()
        });
        assert_eq!(bars.matches("class=\"bar\"").count(), 2);
    }
}

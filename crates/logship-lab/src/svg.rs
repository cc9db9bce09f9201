//! Hand-written SVG charts for the lab report: throughput bars, latency on a log axis, and
//! ingest lag over time.
//!
//! Why it exists: three small charts do not justify a plotting crate. The pure parts
//! (nice linear ticks, decade ticks, value-to-pixel scales) are unit-tested; the drawing
//! is plain string formatting.

use std::fmt::Write as _;

/// Chart width, pixels.
const W: f64 = 640.0;
/// Chart height, pixels.
const H: f64 = 360.0;
/// Plot area margins: left, right, top, bottom.
const ML: f64 = 70.0;
const MR: f64 = 20.0;
const MT: f64 = 56.0;
const MB: f64 = 50.0;
/// Colours per series, in order.
const COLOURS: [&str; 4] = ["#d62728", "#1f77b4", "#2ca02c", "#9467bd"];

/// One named series of values.
#[derive(Clone, Debug)]
pub struct Series {
    /// Legend name.
    pub name: String,
    /// Values (one per category, or per point).
    pub values: Vec<f64>,
}

/// Ticks for a linear axis from 0 to at least `max`: steps of 1, 2 or 5 times a power of
/// ten, at most about six of them.
pub fn linear_ticks(max: f64) -> Vec<f64> {
    let max = if max.is_finite() && max > 0.0 {
        max
    } else {
        1.0
    };
    let raw = max / 5.0;
    let magnitude = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * magnitude)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * magnitude);
    let mut ticks = vec![0.0];
    while *ticks.last().unwrap_or(&0.0) < max {
        let next = ticks.len() as f64 * step;
        ticks.push(next);
    }
    ticks
}

/// A logarithmic axis covering whole decades.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LogAxis {
    /// Exponent of the lowest decade.
    pub lo: i32,
    /// Exponent of the highest decade (> `lo`).
    pub hi: i32,
}

impl LogAxis {
    /// The smallest decade range containing every positive finite value (values ≤ 0 are
    /// ignored; an empty input gives 1..10).
    pub fn covering(values: impl IntoIterator<Item = f64>) -> LogAxis {
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for v in values.into_iter().filter(|v| v.is_finite() && *v > 0.0) {
            lo = lo.min(v);
            hi = hi.max(v);
        }
        if !lo.is_finite() {
            return LogAxis { lo: 0, hi: 1 };
        }
        let lo = lo.log10().floor() as i32;
        let hi = (hi.log10().ceil() as i32).max(lo + 1);
        LogAxis { lo, hi }
    }

    /// The decade ticks, lowest first.
    pub fn ticks(&self) -> Vec<f64> {
        (self.lo..=self.hi).map(|e| 10f64.powi(e)).collect()
    }

    /// Position of `v` in 0.0 (bottom of the axis) ..= 1.0 (top), clamped.
    pub fn fraction(&self, v: f64) -> f64 {
        if !(v.is_finite() && v > 0.0) {
            return 0.0;
        }
        ((v.log10() - f64::from(self.lo)) / f64::from(self.hi - self.lo)).clamp(0.0, 1.0)
    }
}

/// Position of `v` on a linear axis from 0 to `max`, as 0.0..=1.0, clamped.
pub fn linear_fraction(v: f64, max: f64) -> f64 {
    if max > 0.0 && v.is_finite() {
        (v / max).clamp(0.0, 1.0)
    } else {
        0.0
    }
}

/// Pixel y of an axis fraction.
fn y_of(fraction: f64) -> f64 {
    H - MB - fraction * (H - MT - MB)
}

/// A tick label: compact, no trailing zeros.
fn label(v: f64) -> String {
    if v >= 1_000_000.0 {
        format!("{}M", trim(v / 1_000_000.0))
    } else if v >= 1000.0 {
        format!("{}k", trim(v / 1000.0))
    } else {
        trim(v)
    }
}

/// At most three significant digits (at least the integer part), no trailing zeros.
fn trim(v: f64) -> String {
    let decimals = if v.abs() >= 100.0 {
        0
    } else if v.abs() >= 10.0 {
        1
    } else if v.abs() >= 1.0 {
        2
    } else {
        3
    };
    let s = format!("{v:.decimals$}");
    if !s.contains('.') {
        return s;
    }
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_owned()
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The opening of a chart: the `<svg>` element, background, title and axis name.
fn open(title: &str, y_name: &str) -> String {
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{W}\" height=\"{H}\" viewBox=\"0 0 {W} {H}\" font-family=\"sans-serif\" font-size=\"12\">\n"
    );
    let _ = writeln!(s, "<rect width=\"{W}\" height=\"{H}\" fill=\"white\"/>");
    let _ = writeln!(
        s,
        "<text x=\"{}\" y=\"22\" text-anchor=\"middle\" font-size=\"15\">{}</text>",
        W / 2.0,
        escape(title)
    );
    let _ = writeln!(
        s,
        "<text x=\"16\" y=\"{}\" text-anchor=\"middle\" transform=\"rotate(-90 16 {})\">{}</text>",
        H / 2.0,
        H / 2.0,
        escape(y_name)
    );
    s
}

/// Horizontal grid lines and labels at `ticks` (value, axis fraction).
fn grid(s: &mut String, ticks: &[(f64, f64)]) {
    for &(v, f) in ticks {
        let y = y_of(f);
        let _ = writeln!(
            s,
            "<line x1=\"{ML}\" y1=\"{y:.1}\" x2=\"{}\" y2=\"{y:.1}\" stroke=\"#ddd\"/><text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            W - MR,
            ML - 6.0,
            y + 4.0,
            label(v)
        );
    }
    let _ = writeln!(
        s,
        "<line x1=\"{ML}\" y1=\"{}\" x2=\"{ML}\" y2=\"{}\" stroke=\"black\"/><line x1=\"{ML}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"black\"/>",
        MT,
        H - MB,
        H - MB,
        W - MR,
        H - MB
    );
}

/// A legend in the top margin, right-aligned, one entry per series name (kept out of the
/// plot area so it never hides a line).
fn legend(s: &mut String, names: &[&str]) {
    const ENTRY: f64 = 90.0;
    let y = MT - 16.0;
    for (i, name) in names.iter().enumerate() {
        let x = W - MR - ENTRY * (names.len() - i) as f64;
        let _ = writeln!(
            s,
            "<g class=\"legend\"><rect x=\"{x}\" y=\"{y}\" width=\"10\" height=\"10\" fill=\"{}\"/><text x=\"{}\" y=\"{}\">{}</text></g>",
            COLOURS[i % COLOURS.len()],
            x + 14.0,
            y + 9.0,
            escape(name)
        );
    }
}

/// A category label as one line, or two (split at the space nearest its middle) when it
/// is wider than `width` pixels at about 6.5 pixels per character.
fn label_lines(label: &str, width: f64) -> Vec<&str> {
    if label.chars().count() as f64 * 6.5 <= width {
        return vec![label];
    }
    let middle = label.len() / 2;
    match label
        .match_indices(' ')
        .map(|(i, _)| i)
        .min_by_key(|i| i.abs_diff(middle))
    {
        Some(i) => vec![&label[..i], &label[i + 1..]],
        None => vec![label],
    }
}

/// Grouped bars: one group per category, one bar per series; `log` selects a log axis.
pub fn bars(
    title: &str,
    y_name: &str,
    categories: &[&str],
    series: &[Series],
    log: bool,
) -> String {
    let all = series.iter().flat_map(|s| s.values.iter().copied());
    let max = all.clone().fold(0.0, f64::max);
    let axis = LogAxis::covering(all);
    let fraction = |v: f64| {
        if log {
            axis.fraction(v)
        } else {
            linear_fraction(v, *linear_ticks(max).last().unwrap_or(&1.0))
        }
    };
    let ticks: Vec<(f64, f64)> = if log {
        axis.ticks()
            .into_iter()
            .map(|t| (t, axis.fraction(t)))
            .collect()
    } else {
        linear_ticks(max)
            .into_iter()
            .map(|t| (t, fraction(t)))
            .collect()
    };
    let mut s = open(title, y_name);
    grid(&mut s, &ticks);
    let group = (W - ML - MR) / categories.len().max(1) as f64;
    let bar = group * 0.7 / series.len().max(1) as f64;
    for (c, category) in categories.iter().enumerate() {
        let x0 = ML + c as f64 * group + group * 0.15;
        // A label wider than its group goes on two lines, split at its middle space.
        let x = ML + (c as f64 + 0.5) * group;
        for (line, text) in label_lines(category, group).iter().enumerate() {
            let _ = writeln!(
                s,
                "<text x=\"{x:.1}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
                H - MB + 18.0 + 14.0 * line as f64,
                escape(text)
            );
        }
        for (i, se) in series.iter().enumerate() {
            let v = se.values.get(c).copied().unwrap_or(0.0);
            let top = y_of(fraction(v));
            let x = x0 + i as f64 * bar;
            let _ = writeln!(
                s,
                "<g class=\"series\" data-series=\"{}\"><rect x=\"{x:.1}\" y=\"{top:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{}\"><title>{} {}: {}</title></rect><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"10\">{}</text></g>",
                escape(&se.name),
                bar * 0.9,
                (H - MB - top).max(0.0),
                COLOURS[i % COLOURS.len()],
                escape(category),
                escape(&se.name),
                label(v),
                x + bar * 0.45,
                top - 3.0,
                label(v)
            );
        }
    }
    if series.len() > 1 {
        legend(
            &mut s,
            &series.iter().map(|x| x.name.as_str()).collect::<Vec<_>>(),
        );
    }
    s += "</svg>\n";
    s
}

/// Lines over time on a log axis: each series is a list of (x seconds, value) points;
/// `markers` are labelled vertical lines (for example where a run ends).
pub fn lines_log(
    title: &str,
    y_name: &str,
    x_name: &str,
    series: &[(String, Vec<(f64, f64)>)],
    markers: &[(f64, String)],
) -> String {
    let axis = LogAxis::covering(series.iter().flat_map(|(_, p)| p.iter().map(|q| q.1)));
    let x_max = series
        .iter()
        .flat_map(|(_, p)| p.iter().map(|q| q.0))
        .chain(markers.iter().map(|m| m.0))
        .fold(0.0, f64::max);
    let x_ticks = linear_ticks(x_max);
    let x_top = *x_ticks.last().unwrap_or(&1.0);
    let x_of = |x: f64| ML + linear_fraction(x, x_top) * (W - ML - MR);
    let mut s = open(title, y_name);
    let ticks: Vec<(f64, f64)> = axis
        .ticks()
        .into_iter()
        .map(|t| (t, axis.fraction(t)))
        .collect();
    grid(&mut s, &ticks);
    for t in &x_ticks {
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            x_of(*t),
            H - MB + 16.0,
            label(*t)
        );
    }
    let _ = writeln!(
        s,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
        ML + (W - ML - MR) / 2.0,
        H - 10.0,
        escape(x_name)
    );
    for (x, name) in markers {
        let px = x_of(*x);
        let _ = writeln!(
            s,
            "<g class=\"marker\"><line x1=\"{px:.1}\" y1=\"{MT}\" x2=\"{px:.1}\" y2=\"{}\" stroke=\"#888\" stroke-dasharray=\"4 3\"/><text x=\"{:.1}\" y=\"{}\" font-size=\"10\" fill=\"#555\">{}</text></g>",
            H - MB,
            px + 3.0,
            MT + 10.0,
            escape(name)
        );
    }
    for (i, (name, points)) in series.iter().enumerate() {
        let path: Vec<String> = points
            .iter()
            .map(|&(x, y)| format!("{:.1},{:.1}", x_of(x), y_of(axis.fraction(y))))
            .collect();
        let _ = writeln!(
            s,
            "<g class=\"series\" data-series=\"{}\"><polyline fill=\"none\" stroke=\"{}\" stroke-width=\"2\" points=\"{}\"/></g>",
            escape(name),
            COLOURS[i % COLOURS.len()],
            path.join(" ")
        );
    }
    legend(
        &mut s,
        &series.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(),
    );
    s += "</svg>\n";
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_ticks_are_round_and_cover_the_maximum() {
        assert_eq!(linear_ticks(9.0), vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        assert_eq!(
            linear_ticks(100.0),
            vec![0.0, 20.0, 40.0, 60.0, 80.0, 100.0]
        );
        let t = linear_ticks(12_345.0);
        assert_eq!(t[1], 5000.0);
        assert!(*t.last().unwrap_or(&0.0) >= 12_345.0);
        assert_eq!(
            linear_ticks(0.0),
            vec![0.0, 0.2, 0.4, 0.6000000000000001, 0.8, 1.0]
        );
        assert_eq!(linear_ticks(f64::NAN).len(), 6);
    }

    #[test]
    fn labels_are_compact_with_three_significant_digits() {
        let cases = [
            (80_215.5, "80.2k"),
            (1331.0, "1.33k"),
            (10_000.0, "10k"),
            (2_500_000.0, "2.5M"),
            (100.0, "100"),
            (12.915, "12.9"),
            (0.62, "0.62"),
            (0.1, "0.1"),
            (0.0, "0"),
        ];
        for (v, want) in cases {
            assert_eq!(label(v), want, "{v}");
        }
    }

    #[test]
    fn log_axis_covers_whole_decades() {
        let a = LogAxis::covering([0.35, 20.0, 4200.0, 0.0, -1.0, f64::NAN]);
        assert_eq!(a, LogAxis { lo: -1, hi: 4 });
        assert_eq!(a.ticks(), vec![0.1, 1.0, 10.0, 100.0, 1000.0, 10_000.0]);
        assert_eq!(LogAxis::covering([]), LogAxis { lo: 0, hi: 1 });
        // A single decade value still spans one decade.
        assert_eq!(LogAxis::covering([100.0]), LogAxis { lo: 2, hi: 3 });
    }

    #[test]
    fn scales_map_values_to_fractions_and_clamp() {
        let a = LogAxis { lo: 0, hi: 4 };
        assert!((a.fraction(1.0) - 0.0).abs() < 1e-12);
        assert!((a.fraction(100.0) - 0.5).abs() < 1e-12);
        assert!((a.fraction(10_000.0) - 1.0).abs() < 1e-12);
        assert_eq!(a.fraction(1e9), 1.0);
        assert_eq!(a.fraction(0.0), 0.0);
        assert!((linear_fraction(25.0, 100.0) - 0.25).abs() < 1e-12);
        assert_eq!(linear_fraction(200.0, 100.0), 1.0);
        assert_eq!(linear_fraction(1.0, 0.0), 0.0);
        assert_eq!(y_of(0.0), H - MB);
        assert_eq!(y_of(1.0), MT);
    }

    #[test]
    fn long_category_labels_are_split_at_their_middle_space() {
        assert_eq!(label_lines("stock", 90.0), ["stock"]);
        assert_eq!(
            label_lines("(c) Socket to logship", 90.0),
            ["(c) Socket", "to logship"]
        );
        assert_eq!(
            label_lines("averyveryverylongword", 20.0),
            ["averyveryverylongword"]
        );
    }

    #[test]
    fn charts_are_svg_with_every_series() {
        let series = vec![
            Series {
                name: "mean".into(),
                values: vec![3000.0, 1.5],
            },
            Series {
                name: "p99<x>".into(),
                values: vec![6000.0, 9.0],
            },
        ];
        let svg = bars("Latency", "ms", &["stock", "batch"], &series, true);
        assert!(svg.starts_with("<svg"));
        assert!(svg.trim_end().ends_with("</svg>"));
        assert!(svg.contains("data-series=\"mean\""));
        assert!(
            svg.contains("data-series=\"p99&lt;x&gt;\""),
            "names are escaped"
        );
        assert!(svg.contains(">10k<"), "decade ticks up to 10k: {svg}");
        let lines = lines_log(
            "Lag",
            "ms",
            "s",
            &[("stock".into(), vec![(0.0, 10.0), (1.0, 5000.0)])],
            &[(30.0, "load stops".into())],
        );
        assert!(lines.contains(">load stops<"));
        assert!(
            lines.contains(">30<"),
            "the x axis reaches the marker: {lines}"
        );
        assert!(lines.starts_with("<svg") && lines.contains("<polyline"));
        assert!(lines.contains("data-series=\"stock\""));
    }
}

//! A small SVG scatter plot (log-scale x, linear y, one colour per series, labelled
//! points), enough for accuracy against AND nodes across training runs without a
//! plotting dependency.

use std::fmt::Write;

/// One point of a scatter plot.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    /// Horizontal value (positive: the axis is logarithmic).
    pub x: f64,
    /// Vertical value.
    pub y: f64,
    /// Series (colour and legend entry).
    pub series: String,
    /// Text next to the point.
    pub label: String,
}

const W: f64 = 760.0;
const H: f64 = 480.0;
const LEFT: f64 = 70.0;
/// The least room for the legend, right of the plot; it widens for long series names.
const RIGHT: f64 = 200.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 55.0;
const COLOURS: [&str; 8] =
    ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"];

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// Decade ticks `1, 2, 5, 10, ...` between `lo` and `hi` (both positive).
fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let mut ticks = Vec::new();
    let mut decade = 10f64.powf(lo.log10().floor());
    while decade <= hi {
        for m in [1.0, 2.0, 5.0] {
            let t = decade * m;
            if t >= lo && t <= hi {
                ticks.push(t);
            }
        }
        decade *= 10.0;
    }
    ticks
}

/// Up to this many points, each point's label is written beside it; beyond, only in its
/// tooltip (`<title>`), so that a dense plot stays readable.
pub const MAX_LABELLED_POINTS: usize = 40;

/// The plot as an SVG document. Points with a non-positive `x` are left out; labels are
/// drawn beside the points when there are at most [`MAX_LABELLED_POINTS`].
#[must_use]
pub fn scatter_svg(points: &[Point], title: &str, x_label: &str, y_label: &str) -> String {
    let pts: Vec<&Point> =
        points.iter().filter(|p| p.x > 0.0 && p.x.is_finite() && p.y.is_finite()).collect();
    let (mut x0, mut x1) = pts.iter().fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.x), b.max(p.x)));
    let (mut y0, mut y1) = pts.iter().fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.y), b.max(p.y)));
    if pts.is_empty() {
        (x0, x1, y0, y1) = (1.0, 10.0, 0.0, 1.0);
    }
    // Whole decades in x, steps of 0.05 in y, with some room.
    x0 = 10f64.powf(x0.log10().floor());
    x1 = 10f64.powf((x1 * 1.0001).log10().ceil());
    y0 = ((y0 - 0.01) / 0.05).floor() * 0.05;
    y1 = ((y1 + 0.01) / 0.05).ceil() * 0.05;
    let mut series: Vec<&str> = Vec::new();
    for p in &pts {
        if !series.contains(&p.series.as_str()) {
            series.push(&p.series);
        }
    }
    // About 7 px per character at font size 12, after the 26 px of the legend's dot.
    let longest = series.iter().map(|n| n.chars().count()).max().unwrap_or(0);
    let w = W - RIGHT + RIGHT.max(36.0 + 7.0 * longest as f64);
    let px = |x: f64| LEFT + (x.log10() - x0.log10()) / (x1.log10() - x0.log10()) * (W - LEFT - RIGHT);
    let py = |y: f64| H - BOTTOM - (y - y0) / (y1 - y0) * (H - TOP - BOTTOM);
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{H}" viewBox="0 0 {w} {H}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="{w}" height="{H}" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="22" font-size="15" text-anchor="middle">{}</text>"#,
        (W - RIGHT + LEFT) / 2.0,
        escape(title)
    );
    let (l, r, t, b) = (LEFT, W - RIGHT, TOP, H - BOTTOM);
    let _ = writeln!(
        s,
        r#"<rect x="{l}" y="{t}" width="{}" height="{}" fill="none" stroke="black"/>"#,
        r - l,
        b - t
    );
    for tick in log_ticks(x0, x1) {
        let x = px(tick);
        let _ = writeln!(s, r##"<line x1="{x:.1}" y1="{t}" x2="{x:.1}" y2="{b}" stroke="#ddd"/>"##);
        let _ = writeln!(s, r#"<text x="{x:.1}" y="{}" text-anchor="middle">{tick}</text>"#, b + 16.0);
    }
    let steps = ((y1 - y0) / 0.05).round() as usize;
    for i in 0..=steps {
        let v = y0 + i as f64 * 0.05;
        let y = py(v);
        let _ = writeln!(s, r##"<line x1="{l}" y1="{y:.1}" x2="{r}" y2="{y:.1}" stroke="#ddd"/>"##);
        let _ = writeln!(s, r#"<text x="{}" y="{:.1}" text-anchor="end">{v:.2}</text>"#, l - 6.0, y + 4.0);
    }
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
        (l + r) / 2.0,
        H - 12.0,
        escape(x_label)
    );
    let _ = writeln!(
        s,
        r#"<text x="18" y="{0}" text-anchor="middle" transform="rotate(-90 18 {0})">{1}</text>"#,
        (t + b) / 2.0,
        escape(y_label)
    );
    for p in &pts {
        let c = COLOURS[series.iter().position(|s| *s == p.series).unwrap_or(0) % COLOURS.len()];
        let (x, y) = (px(p.x), py(p.y));
        let _ = writeln!(
            s,
            r#"<circle cx="{x:.1}" cy="{y:.1}" r="4" fill="{c}"><title>{}: {} ANDs, {:.4}</title></circle>"#,
            escape(&p.label),
            p.x,
            p.y
        );
        if pts.len() <= MAX_LABELLED_POINTS {
            let _ = writeln!(
                s,
                r#"<text x="{:.1}" y="{:.1}" font-size="10">{}</text>"#,
                x + 6.0,
                y - 5.0,
                escape(&p.label)
            );
        }
    }
    for (i, name) in series.iter().enumerate() {
        let y = t + 10.0 + i as f64 * 18.0;
        let c = COLOURS[i % COLOURS.len()];
        let _ = writeln!(s, r#"<circle cx="{}" cy="{y}" r="4" fill="{c}"/>"#, r + 16.0);
        let _ = writeln!(s, r#"<text x="{}" y="{}">{}</text>"#, r + 26.0, y + 4.0, escape(name));
    }
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_one_circle_per_point_and_a_legend_per_series() {
        let p = |x: f64, y: f64, s: &str| Point { x, y, series: s.into(), label: format!("{s}@{x}") };
        let svg = scatter_svg(
            &[p(1200.0, 0.81, "rda"), p(48000.0, 0.88, "relaxed"), p(3000.0, 0.84, "rda"), p(0.0, 0.9, "x")],
            "t",
            "AND nodes",
            "test accuracy",
        );
        // 3 plotted points (x = 0 is left out) + 2 legend dots.
        assert_eq!(svg.matches("<circle").count(), 5, "{svg}");
        assert!(svg.contains(">rda@1200<") && svg.contains(">relaxed<"));
        assert!(svg.contains(">1000<") && svg.contains(">100000<"), "decade ticks: {svg}");
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
    }

    #[test]
    fn a_dense_plot_keeps_labels_in_tooltips_only() {
        let p =
            |i: usize| Point { x: 1000.0 + i as f64, y: 0.8, series: "s".into(), label: format!("run{i}") };
        let few: Vec<Point> = (0..MAX_LABELLED_POINTS).map(p).collect();
        let many: Vec<Point> = (0..=MAX_LABELLED_POINTS).map(p).collect();
        let (few, many) = (scatter_svg(&few, "t", "x", "y"), scatter_svg(&many, "t", "x", "y"));
        assert!(few.contains(">run0</text>") && few.contains("<title>run0: 1000 ANDs"), "{few}");
        assert!(!many.contains(">run0</text>") && many.contains("<title>run0: 1000 ANDs"), "{many}");
    }

    #[test]
    fn the_legend_widens_for_long_series_names() {
        let p = |s: &str| Point { x: 1000.0, y: 0.8, series: s.into(), label: String::new() };
        assert!(scatter_svg(&[p("rda")], "t", "x", "y").contains(r#"width="760""#));
        let long = "relaxed gates, learned input wiring, 40 c"; // 41 characters
        assert!(scatter_svg(&[p(long)], "t", "x", "y").contains(r#"width="883""#));
    }
}

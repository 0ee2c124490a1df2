// Package plot draws coloc's figures. It takes plain data (numbers,
// labels, series), never the types of model/ or sim/, so the plotting
// dependency (gonum.org/v1/plot) stays at this edge of the pipeline.
//
// Each figure type (Heatmap, Scatter, CDF, Line, TimeSeries, Bars) has a
// Write method that writes three files into a directory: NAME.svg,
// NAME.png and NAME.csv, the data drawn, so every number in a figure can
// be checked and re-plotted.
//
// The same inputs give the same bytes. SVG text names the font
// ("Liberation Sans", metric-compatible with Arial and Helvetica) instead
// of embedding it, so files stay small and free of anything that varies;
// PNG files carry no timestamp. Files are written atomically
// (internal/atomicfile).
//
// Choices where the data leave room: points that are NaN or infinite are
// not drawn and appear as empty fields in the CSV; an empirical CDF is a
// step function through (v_i, i/n) of the sorted values; a heat map's
// colours diverge around a centre value the caller gives (1 for
// normalized throughput: red below, blue above), cells without a value
// are grey. Series get the Okabe-Ito colours in order (with Tol's wine
// for Okabe-Ito's yellow, too light on white) and two of Tol's (olive,
// indigo): ten, one per model of a figure of the nine models; from the
// eleventh on, colours repeat with another dash pattern and glyph, so 40
// series stay distinct.
//
// Text sizes are chosen for a figure 20 cm wide shown at its own size
// (756 CSS px) in a page at a 1,200 px window, where 1 pt is 1.33 px:
// tick and legend text of 9 pt render at 12 px (8 pt, 11 px, for the
// labels of a heat map of more than 20 rows).
package plot

// Package figure gives the project's plots (`ofswitch replay --plot`,
// `ofswitch bench paper --plot`) one look: a colour-blind-safe palette and
// markers, sans-serif labels, light grids, panels aligned on shared axes,
// the legend outside the data area, and each figure saved as SVG and PNG.
//
// # Layout
//
// A [Figure] is a grid of gonum plots (panels) drawn with their data areas
// aligned (plot.Align), an optional title above them and one legend to
// their right, top-aligned, so that no legend entry covers data. Each
// panel keeps its own legend empty.
//
// # Output
//
// [Figure.Save] writes NAME.svg (vector, fonts not embedded) and NAME.png
// (raster at [DPI], for READMEs and viewers without SVG) of the same
// drawing. Plotters that draw one element per data point make SVGs grow
// with the data: callers summarise (percentile bands per time bin,
// quantile grids for CDFs) before plotting, to keep each SVG small.
package figure

// What every chart of the page shares: Plotly (its partial bundle of the scatter and bar traces,
// the only ones the page draws), loaded once in its own chunk while the simulator starts; the
// page's font, colours (light or dark, as the system is set) and legend; log-axis ticks; and a
// mode bar that holds nothing that sends data anywhere. Each view's charts live beside the view
// (views/*-charts.js) and draw through plot(), which redraws them when the colour scheme changes.

let plotly = null;

/** Starts loading Plotly (once) and resolves to it. */
export function loadPlotly() {
  if (!plotly) {
    plotly = import('plotly.js-basic-dist-min').then((m) => {
      performance.mark('vtrain:plotly-loaded');
      return m.default || m;
    });
  }
  return plotly;
}

const FONT_FAMILY = 'system-ui, -apple-system, Segoe UI, Roboto, Arial, sans-serif';

/**
 * The page's colours now (style.css defines them for the light and the dark scheme): ink, muted,
 * line (grid), panel (backgrounds, hollow markers), bad, ok and idle (the timeline's waiting time).
 */
export function theme() {
  const css = getComputedStyle(document.documentElement);
  const v = (name, fallback) => css.getPropertyValue(name).trim() || fallback;
  return {
    ink: v('--ink', '#1c2430'),
    muted: v('--muted', '#5b6676'),
    line: v('--line', '#dfe3e8'),
    grid: v('--grid', '#eceff3'),
    panel: v('--panel', '#ffffff'),
    bad: v('--bad', '#b42318'),
    ok: v('--ok', '#1b7a3d'),
    idle: v('--idle', '#e9ecf0'),
  };
}

// Nothing in a chart's mode bar may send data anywhere: no cloud upload, no "edit in" link; the
// image export saves a file here. A narrow chart (a phone) has no mode bar: it would cover the
// labels, and a double tap resets a zoom.
const SAFE = { displaylogo: false, showSendToCloud: false, showEditInChartStudio: false, showLink: false, responsive: true };
const NARROW_PX = 600;

/** The Explore and Compute-optimal charts: a mode bar without the selection tools. */
export const VIEW_CONFIG = { modeBarButtonsToRemove: ['select2d', 'lasso2d', 'autoScale2d'] };
/** The Plan view's timeline: zoom and reset only. */
export const PLOT_CONFIG = { modeBarButtonsToRemove: ['select2d', 'lasso2d', 'autoScale2d', 'zoomIn2d', 'zoomOut2d'] };
/** A small chart's: no mode bar. */
export const SMALL_CONFIG = { displayModeBar: false };

function configFor(el, config) {
  const narrow = (el.clientWidth || 800) < NARROW_PX;
  return { ...SAFE, ...config, ...(narrow ? { displayModeBar: false } : {}) };
}

/** The Explore and Compute-optimal charts' legend: under the plot. */
export const VIEW_LEGEND = { orientation: 'h', x: 0, y: 0, yref: 'container', yanchor: 'bottom' };
/** A bar chart's legend: one row under the plot, wrapping on a narrow chart. */
export const BOTTOM_LEGEND = { orientation: 'h', x: 0, xanchor: 'left', y: 0, yref: 'container', yanchor: 'bottom', traceorder: 'normal', font: { size: 11 } };

/**
 * The rows a horizontal legend of these entries (their labels) takes in `el`: Plotly puts an
 * entry's swatch and gap (about 40 px) before its text and wraps at the chart's width. Text
 * widths are estimated generously (7 px a character at 11-12 px), so a legend never runs into
 * the axis above it.
 */
export function legendRows(el, labels, charPx = 7) {
  const width = (el.clientWidth || 600) - 16;
  let rows = 1;
  let used = 0;
  for (const label of labels) {
    const w = 40 + String(label).length * charPx;
    if (used > 0 && used + w > width) {
      rows += 1;
      used = 0;
    }
    used += w;
  }
  return labels.length ? rows : 0;
}

// Room under the plot for the tick labels and a legend of these entries (their labels).
export function bottomRoom(el, labels) {
  return 34 + legendRows(el, labels) * 19;
}

// The colours of the scheme on every axis, the text and the hover box.
function themed(layout, t) {
  const axis = (a) => ({ gridcolor: t.grid, linecolor: t.line, zerolinecolor: t.line, tickcolor: t.line, ...a });
  const out = {
    paper_bgcolor: 'rgba(0,0,0,0)',
    plot_bgcolor: 'rgba(0,0,0,0)',
    ...layout,
    font: { family: FONT_FAMILY, size: 12, ...(layout.font || {}), color: t.ink },
    hoverlabel: { font: { family: FONT_FAMILY, size: 12 }, ...(layout.hoverlabel || {}) },
  };
  for (const k of Object.keys(out)) if (/^[xy]axis\d*$/.test(k)) out[k] = axis(out[k]);
  if (!out.xaxis) out.xaxis = axis({});
  if (!out.yaxis) out.yaxis = axis({});
  return out;
}

function placeholder(el, text) {
  if (!el.querySelector('.js-plotly-plot, .main-svg')) {
    el.innerHTML = `<div class="placeholder">${text}</div>`;
  }
}

/**
 * Draws a chart into `el`: `build(t)` returns {traces, layout, config, fit?} in theme `t`
 * (theme()). A placeholder shows until Plotly has loaded; the chart is drawn again, from `build`,
 * when the colour scheme changes. Resolves to Plotly.
 *
 * A legend under the plot (VIEW_LEGEND, BOTTOM_LEGEND) wraps into as many rows as the chart's
 * width needs, which only the drawn legend tells exactly: with `fit: {below, top?}` the bottom
 * margin becomes `below` (the tick labels and axis title) plus the legend's drawn height, and
 * the chart's height `top` (top margin and plot area) plus that margin, so the legend never
 * covers the axis. The layout's margin.b is the first estimate.
 */
export async function plot(el, build) {
  placeholder(el, 'Loading chart…');
  el.vtrainBuild = build;
  const Plotly = await loadPlotly();
  if (el.vtrainBuild !== build) return Plotly; // a later drawing took over
  const p = el.querySelector('.placeholder');
  if (p) p.remove();
  const t = theme();
  const { traces, layout: given, config, fit } = build(t);
  let layout = themed(given, t);
  // A legend under a narrow chart (a phone) in columns: two of short entries (a long one would
  // overrun its neighbour), else one; left to itself Plotly may put entries on top of each other.
  if (layout.legend && layout.legend.orientation === 'h' && (el.clientWidth || 800) < 420) {
    const names = traces.filter((x) => x.showlegend !== false && x.name).map((x) => x.name);
    const columns = names.every((n) => n.length <= 18) ? 2 : 1;
    layout = { ...layout, legend: { ...layout.legend, entrywidth: 1 / columns, entrywidthmode: 'fraction', font: { ...(layout.legend.font || {}), size: 10 } } };
  }
  const cfg = configFor(el, config || PLOT_CONFIG);
  // The legend's height as last drawn with the same entries at the same width, if any.
  const legendKey = fit ? `${el.clientWidth}|${traces.filter((x) => x.showlegend !== false).map((x) => x.name).join('|')}` : '';
  if (fit && el.vtrainLegend && el.vtrainLegend.key === legendKey) {
    layout = { ...layout, margin: { ...layout.margin, b: fit.below + el.vtrainLegend.px + 4 } };
  }
  // A chart of fitted height says its height to Plotly, which does not measure the box again.
  const sized = (l) => {
    if (!fit || fit.top == null) return l;
    const height = fit.top + (l.margin?.b ?? 0);
    el.style.height = `${height}px`;
    return { ...l, height };
  };
  layout = sized(layout);
  await Plotly.react(el, traces, layout, cfg);
  if (fit) {
    const legend = el.querySelector('g.legend');
    const legendPx = legend ? Math.ceil(legend.getBoundingClientRect().height) : 0;
    el.vtrainLegend = { key: legendKey, px: legendPx };
    const need = fit.below + legendPx + 4;
    if (Math.abs(need - (layout.margin?.b ?? 0)) > 3) {
      layout = sized({ ...layout, margin: { ...layout.margin, b: need } });
      await Plotly.react(el, traces, layout, cfg);
    }
  }
  return Plotly;
}

/** Draws `traces` into `el` with `layout` and `config` (no colour of the scheme inside them). */
export function draw(el, traces, layout, config = PLOT_CONFIG) {
  return plot(el, () => ({ traces, layout, config }));
}

// The system's colour scheme changed: every chart is drawn again in its colours.
if (typeof window !== 'undefined' && window.matchMedia) {
  window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => {
    for (const el of document.querySelectorAll('.js-plotly-plot')) {
      if (el.vtrainBuild) plot(el, el.vtrainBuild);
    }
  });
}

// Ticks at round multiples of the powers of ten inside [lo, hi] for a log axis: as many as
// `room` labels fit (1, 2, 5; else 1, 3; else 1), or finer when the range is narrow.
export function logTicks(lo, hi, label, room) {
  if (!(lo > 0) || !(hi > 0)) return {};
  const within = (steps) => {
    const vals = [];
    for (let e = Math.floor(Math.log10(lo)) - 1; e <= Math.ceil(Math.log10(hi)) + 1; e++) {
      for (const m of steps) {
        const v = Number((m * 10 ** e).toPrecision(6));
        if (v >= lo / 1.15 && v <= hi * 1.15) vals.push(v);
      }
    }
    return vals;
  };
  const options = [[1, 2, 5], [1, 3], [1]].map(within);
  let vals = options.find((v) => v.length <= room && v.length >= 2);
  if (!vals) vals = options[0].length < 3 ? within([1, 1.5, 2, 3, 4, 5, 6, 7, 8, 9]) : options[2];
  return { tickvals: vals, ticktext: vals.map(label) };
}

// 6000000 -> "6M", 1500 -> "1.5k", 20 -> "20": tick labels without trailing zeros.
export function tickNumber(v) {
  for (const [scale, suffix] of [[1e12, 'T'], [1e9, 'B'], [1e6, 'M'], [1e3, 'k']]) {
    if (v >= scale) return `${Number((v / scale).toPrecision(3))}${suffix}`;
  }
  return String(Number(v.toPrecision(3)));
}

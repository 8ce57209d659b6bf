// What every chart of the page shares: Plotly, loaded once in its own chunk after the first result
// is on screen (every function here waits for it), the page's font and legend, and log-axis ticks.
// Each view's charts live beside the view (views/*-charts.js).

let plotly = null;

/** Starts loading Plotly (once) and resolves to it. */
export function loadPlotly() {
  if (!plotly) {
    plotly = import('plotly.js-dist-min').then((m) => {
      performance.mark('vtrain:plotly-loaded');
      return m.default || m;
    });
  }
  return plotly;
}

const FONT = { family: 'system-ui, -apple-system, Segoe UI, Roboto, Arial, sans-serif', size: 12, color: '#1c2430' };
const PLOT_CONFIG = {
  displaylogo: false,
  responsive: true,
  modeBarButtonsToRemove: ['select2d', 'lasso2d', 'autoScale2d', 'zoomIn2d', 'zoomOut2d'],
};

// The Explore and Compute-optimal charts: a transparent plot in the page's font, a legend under it
// and a mode bar without the selection tools.
export const VIEW_LAYOUT = { font: FONT, paper_bgcolor: 'rgba(0,0,0,0)', plot_bgcolor: 'rgba(0,0,0,0)', hovermode: 'closest' };
export const VIEW_LEGEND = { orientation: 'h', x: 0, y: 0, yref: 'container', yanchor: 'bottom' };
export const VIEW_CONFIG = { displaylogo: false, responsive: true, modeBarButtonsToRemove: ['select2d', 'lasso2d', 'autoScale2d'] };

/** A bar chart's legend: one row under the plot, wrapping on a narrow chart. */
export const BOTTOM_LEGEND = { orientation: 'h', x: 0, xanchor: 'left', y: 0, yref: 'container', yanchor: 'bottom', traceorder: 'normal', font: { size: 11 } };
/** A small chart's: no mode bar. */
export const SMALL_CONFIG = { displaylogo: false, responsive: true, displayModeBar: false };

// Room under the plot for the tick labels and a legend of `items` entries, which wraps into more
// rows on a narrow chart (an entry takes about `entryPx`, 150 px by default).
export function bottomRoom(el, items, entryPx = 150) {
  const width = el.clientWidth || 600;
  const perRow = Math.max(1, Math.floor((width - 16) / entryPx));
  return 34 + Math.ceil(items / perRow) * 19;
}

/** A layout in the page's font on a transparent background, with `extra` over it. */
export function baseLayout(extra) {
  return {
    font: FONT,
    paper_bgcolor: 'rgba(0,0,0,0)',
    plot_bgcolor: 'rgba(0,0,0,0)',
    hoverlabel: { font: { family: FONT.family, size: 12 } },
    ...extra,
  };
}

function placeholder(el, text) {
  if (!el.querySelector('.js-plotly-plot, .main-svg')) {
    el.innerHTML = `<div class="placeholder">${text}</div>`;
  }
}

/** Draws `traces` into `el` (a placeholder until Plotly has loaded); resolves to Plotly. */
export async function draw(el, traces, layout, config = PLOT_CONFIG) {
  placeholder(el, 'Loading chart…');
  const Plotly = await loadPlotly();
  const p = el.querySelector('.placeholder');
  if (p) p.remove();
  await Plotly.react(el, traces, layout, config);
  return Plotly;
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

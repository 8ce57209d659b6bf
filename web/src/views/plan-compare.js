// Two plans side by side in the Plan view: a pinned plan against the current one, their figures
// with the difference, a sentence on what the current plan gains or loses in days and dollars,
// and where their time and memory go as paired bars.
import { h } from '../form.js';
import * as fmt from '../format.js';
import { BOTTOM_LEGEND, SMALL_CONFIG, bottomRoom, plot } from '../charts.js';
import { MEMORY_PARTS, PARTS } from './plan-charts.js';

const finite = (x) => typeof x === 'number' && Number.isFinite(x);

/** "-2.1 days (−7.0 %)": a difference with its sign and its share of the pinned value. */
function delta(cur, pin, text) {
  if (!finite(cur) || !finite(pin)) return fmt.DASH;
  const d = cur - pin;
  if (d === 0) return 'same';
  const sign = d > 0 ? '+' : '−';
  const share = pin !== 0 ? ` (${sign}${fmt.percent(Math.abs(d / pin))})` : '';
  return `${sign}${text(Math.abs(d))}${share}`;
}

/** The rows of the table: label, value of a result as text, raw number, unit of the difference. */
const ROWS = [
  { label: 'Iteration time', value: (r) => r.iteration_time_s, text: fmt.duration },
  { label: 'Training time', value: (r) => r.training_days, text: fmt.days },
  { label: 'Cost', value: (r) => r.cost_usd, text: fmt.usd },
  { label: 'GPUs', value: (r) => r.config.cluster.num_gpus, text: (x) => Math.round(x).toLocaleString('en-US') },
  { label: 'GPU-hours', value: (r) => r.training?.gpu_hours, text: fmt.count },
  { label: 'MFU', value: (r) => r.mfu, text: (x) => fmt.percent(x), points: true },
  { label: 'Tokens/s', value: (r) => r.tokens_per_s, text: fmt.count },
  { label: 'Memory per GPU', value: (r) => r.memory_GiB.total, text: fmt.gib, note: (r) => (r.fits_in_memory ? 'fits' : 'does not fit') },
];

/**
 * The sentence on the difference in days and dollars: "The current plan trains 2.1 days sooner
 * and costs $120 k more than the pinned one."
 */
export function differenceText(pin, cur) {
  const parts = [];
  if (finite(cur.training_days) && finite(pin.training_days)) {
    const d = cur.training_days - pin.training_days;
    parts.push(Math.abs(d) < 0.05 ? 'trains in the same time' : `trains ${fmt.days(Math.abs(d))} ${d < 0 ? 'sooner' : 'longer'}`);
  }
  if (finite(cur.cost_usd) && finite(pin.cost_usd)) {
    const d = cur.cost_usd - pin.cost_usd;
    parts.push(Math.abs(d) < 0.5 ? 'costs the same' : `costs ${fmt.usd(Math.abs(d))} ${d < 0 ? 'less' : 'more'}`);
  }
  if (!parts.length) return 'Set training tokens to compare training time and cost.';
  const fit = [pin, cur].map((r) => r.fits_in_memory);
  const warn = !fit[1] ? ' The current plan does not fit in GPU memory.' : !fit[0] ? ' The pinned plan does not fit in GPU memory.' : '';
  return `The current plan ${parts.join(' and ')} than the pinned one.${warn}`;
}

/** Fills the comparison's table and sentence; `labels` name the two plans. */
export function renderCompare({ table, lead }, pin, cur, labels) {
  lead.textContent = differenceText(pin, cur);
  table.textContent = '';
  table.append(h('thead', {}, h('tr', {},
    h('th', { scope: 'col', text: '' }),
    h('th', { scope: 'col' }, 'Pinned', h('span', { class: 'compare-plan', text: labels.pinned })),
    h('th', { scope: 'col' }, 'Current', h('span', { class: 'compare-plan', text: labels.current })),
    h('th', { scope: 'col', text: 'Difference' }))));
  const body = h('tbody');
  for (const row of ROWS) {
    const a = row.value(pin);
    const b = row.value(cur);
    const cell = (r, v) => `${finite(v) ? row.text(v) : fmt.DASH}${row.note ? `, ${row.note(r)}` : ''}`;
    const diff = row.points
      ? (finite(a) && finite(b) ? `${b - a >= 0 ? '+' : '−'}${(Math.abs(b - a) * 100).toFixed(1)} points` : fmt.DASH)
      : delta(b, a, row.text);
    body.append(h('tr', {}, h('th', { scope: 'row', text: row.label }), h('td', { text: cell(pin, a) }), h('td', { text: cell(cur, b) }), h('td', { text: diff })));
  }
  table.append(body);
}

// Paired horizontal stacked bars: a row per plan (pinned above, current below), a trace per part.
function paired(el, parts, pin, cur, { value, unit, hover, shapes = () => [], range }) {
  const shown = parts.filter((p) => value(pin, p.key) > 0 || value(cur, p.key) > 0);
  const room = bottomRoom(el, shown.map((p) => p.label));
  const rows = ['current', 'pinned'];
  const traces = shown.map((p) => ({
    type: 'bar', orientation: 'h', name: p.label, y: rows,
    x: [value(cur, p.key), value(pin, p.key)], marker: { color: p.color },
    hovertemplate: `%{y}, ${p.label}: %{customdata}<extra></extra>`,
    customdata: [hover(value(cur, p.key)), hover(value(pin, p.key))],
  }));
  return plot(el, (t) => ({
    traces,
    layout: {
      barmode: 'stack',
      margin: { l: 64, r: 14, t: 20, b: room },
      xaxis: { ticksuffix: unit, zeroline: false, fixedrange: true, range },
      yaxis: { fixedrange: true, automargin: true },
      legend: BOTTOM_LEGEND,
      bargap: 0.35,
      shapes: shapes(t),
    },
    config: SMALL_CONFIG,
    fit: { top: 130, below: 30 },
  }));
}

/** The two plans' time breakdowns (each its busiest stage) and memory (each its fullest stage). */
export function drawCompareCharts(timeEl, memoryEl, pin, cur) {
  const time = paired(timeEl, PARTS, pin, cur, {
    value: (r, k) => r.breakdown_s[k] || 0,
    unit: ' s',
    hover: fmt.duration,
    range: [0, Math.max(pin.iteration_time_s, cur.iteration_time_s) * 1.02],
  });
  const caps = [cur.memory_capacity_GiB, pin.memory_capacity_GiB];
  const memory = paired(memoryEl, MEMORY_PARTS, pin, cur, {
    value: (r, k) => r.memory_GiB[k] || 0,
    unit: ' GiB',
    hover: fmt.gib,
    range: [0, Math.max(pin.memory_GiB.total, cur.memory_GiB.total, ...caps) * 1.08],
    // Each plan's GPU capacity, across its own bar.
    shapes: (t) => caps.map((cap, i) => ({
      type: 'line', x0: cap, x1: cap, y0: i - 0.4, y1: i + 0.4, yref: 'y',
      line: { color: [cur, pin][i].fits_in_memory ? t.ink : t.bad, width: 2, dash: 'dash' },
    })),
  });
  return Promise.all([time, memory]);
}

// The Plan view's charts: where one iteration's time goes, the memory of a GPU against its
// capacity, and the timeline of one iteration, stage by stage.
import * as fmt from '../format.js';
import { BOTTOM_LEGEND, PLOT_CONFIG, SMALL_CONFIG, bottomRoom, plot } from '../charts.js';

// The parts of the iteration time, in the order they stack, with one colour each. Timeline kinds
// reuse the colours of the part they belong to.
export const PARTS = [
  { key: 'forward', label: 'forward', color: '#4c78a8' },
  { key: 'backward', label: 'backward', color: '#f58518' },
  { key: 'recompute', label: 'recompute', color: '#b279a2' },
  { key: 'tp_comm_exposed', label: 'TP comm', color: '#e45756' },
  { key: 'cp_comm_exposed', label: 'CP comm', color: '#d67195' },
  { key: 'pp_comm_exposed', label: 'PP comm', color: '#ff9da6' },
  { key: 'dp_comm_exposed', label: 'DP comm', color: '#9d755d' },
  { key: 'embedding_comm_exposed', label: 'embedding comm', color: '#72b7b2' },
  { key: 'pipeline_bubble', label: 'pipeline bubble', color: '#c9c3bf' },
  { key: 'optimizer', label: 'optimizer', color: '#54a24b' },
  { key: 'host_overhead', label: 'host overhead', color: '#eeca3b' },
  { key: 'straggler_wait', label: 'slowest GPU', color: '#3b3b3b' },
];

export const MEMORY_PARTS = [
  { key: 'weights', label: 'weights', color: '#4c78a8' },
  { key: 'gradients', label: 'gradients', color: '#f58518' },
  { key: 'optimizer_states', label: 'optimizer states', color: '#54a24b' },
  { key: 'activations', label: 'activations', color: '#b279a2' },
  { key: 'buffers', label: 'buffers', color: '#c9c3bf' },
];

const KINDS = [
  { key: 'forward', label: 'forward', color: '#4c78a8', comm: false },
  { key: 'recompute', label: 'recompute', color: '#b279a2', comm: false },
  { key: 'backward', label: 'backward', color: '#f58518', comm: false },
  { key: 'optimizer', label: 'optimizer', color: '#54a24b', comm: false },
  { key: 'pp_send', label: 'PP send', color: '#e45756', comm: true },
  { key: 'dp_comm', label: 'DP gradient reduction', color: '#9d755d', comm: true },
  { key: 'embedding_comm', label: 'embedding all-reduce', color: '#72b7b2', comm: true },
  { key: 'shard_comm', label: 'sharded gathers and reduce-scatters', color: '#eeca3b', comm: true },
];

const COMM_KINDS = new Set(KINDS.filter((k) => k.comm).map((k) => k.key));

/** Stacked bar of the busiest stage's time, parts summing to the iteration time. */
export function drawBreakdown(el, result) {
  const total = result.iteration_time_s;
  const parts = PARTS.filter((p) => result.breakdown_s[p.key] > 0);
  const room = bottomRoom(el, parts.map((p) => p.label));
  const traces = parts.map((p) => {
    const v = result.breakdown_s[p.key];
    const share = v / total;
    return {
      type: 'bar',
      orientation: 'h',
      name: p.label,
      x: [v],
      y: [''],
      marker: { color: p.color },
      text: [share >= 0.07 ? fmt.percent(share, 0) : ''],
      textposition: 'inside',
      insidetextanchor: 'middle',
      textfont: { color: '#fff' },
      hovertemplate: `${p.label}: ${fmt.duration(v)} (${fmt.percent(share)})<extra></extra>`,
    };
  });
  return plot(el, () => ({
    traces,
    layout: {
      barmode: 'stack',
      margin: { l: 10, r: 14, t: 6, b: room },
      xaxis: { range: [0, total * 1.001], ticksuffix: ' s', zeroline: false, fixedrange: true },
      yaxis: { visible: false, fixedrange: true },
      legend: BOTTOM_LEGEND,
      bargap: 0.2,
    },
    config: SMALL_CONFIG,
    fit: { top: 100, below: 30 },
  }));
}

/** Stacked bar of the fullest stage's memory against the GPU's capacity. */
export function drawMemory(el, result) {
  const mem = result.memory_GiB;
  const cap = result.memory_capacity_GiB;
  const total = mem.total;
  const shown = MEMORY_PARTS.filter((p) => mem[p.key] > 0);
  const room = bottomRoom(el, shown.map((p) => p.label));
  const traces = shown.map((p) => ({
    type: 'bar',
    orientation: 'h',
    name: p.label,
    x: [mem[p.key]],
    y: [''],
    marker: { color: p.color },
    hovertemplate: `${p.label}: ${fmt.gib(mem[p.key])}<extra></extra>`,
  }));
  const over = total > cap;
  const top = Math.max(total, cap) * 1.08;
  return plot(el, (t) => ({
    traces,
    layout: {
      barmode: 'stack',
      margin: { l: 10, r: 14, t: 22, b: room },
      xaxis: { range: [0, top], ticksuffix: ' GiB', zeroline: false, fixedrange: true },
      yaxis: { visible: false, fixedrange: true },
      legend: BOTTOM_LEGEND,
      bargap: 0.2,
      shapes: [
        {
          type: 'line', x0: cap, x1: cap, y0: -0.02, y1: 1.02, yref: 'paper',
          line: { color: over ? t.bad : t.ink, width: 2, dash: 'dash' },
        },
      ],
      annotations: [
        {
          x: cap, y: 1.02, yref: 'paper', yanchor: 'bottom', xanchor: over ? 'left' : 'right', showarrow: false,
          text: `capacity ${fmt.gib(cap)}`, font: { size: 11, color: over ? t.bad : t.ink },
        },
      ],
    },
    config: SMALL_CONFIG,
    fit: { top: 116, below: 30 },
  }));
}

/**
 * Gantt chart of one iteration: a row per pipeline stage, a rectangle per block, coloured by kind;
 * the grey behind the blocks is time a stage waits (the pipeline bubble). Communication blocks are
 * thin bars in the lower half of the row, so overlapped transfers stay visible.
 *
 * A large pipeline has tens of thousands of blocks, so each kind is one filled path (rectangles
 * separated by gaps) rather than one SVG element per block, and the hover box is found here by
 * a binary search over the blocks of the row under the pointer.
 */
export async function drawTimeline(el, result) {
  const stages = result.timeline || [];
  const total = result.iteration_time_s;
  const rows = stages.map((st, s) => {
    const order = st.start_s.map((_, i) => i).sort((a, b) => st.start_s[a] - st.start_s[b]);
    return { st, s, order };
  });
  // One SVG path per kind: a subpath per block, in data coordinates, so zooming redraws it.
  const num = (x) => (Math.round(x * 1e7) / 1e7).toString();
  const rect = (x0, x1, y0, y1) => `M${num(x0)},${y0}H${num(x1)}V${y1}H${num(x0)}Z`;
  const shape = (name, color, parts) => ({
    type: 'path', xref: 'x', yref: 'y', layer: 'below', path: parts.join(''), fillcolor: color,
    line: { width: 0 }, name,
  });
  const build = (t) => {
    const legend = [{ label: 'idle (bubble)', color: t.idle }];
    const shapes = [shape('idle (bubble)', t.idle, stages.map((_, s) => rect(0, total, s - 0.4, s + 0.4)))];
    for (const kind of KINDS) {
      const parts = [];
      for (let s = 0; s < stages.length; s++) {
        const st = stages[s];
        const y0 = kind.comm ? s + 0.08 : s - 0.4;
        const y1 = s + 0.4;
        for (let i = 0; i < st.kind.length; i++) {
          if (st.kind[i] === kind.key) parts.push(rect(st.start_s[i], st.start_s[i] + st.duration_s[i], y0, y1));
        }
      }
      if (parts.length) {
        shapes.push(shape(kind.label, kind.color, parts));
        legend.push(kind);
      }
    }
    // Shapes need a trace to set the axes up; this one is invisible.
    const traces = [{ type: 'scatter', mode: 'markers', x: [0, total], y: [0, Math.max(0, stages.length - 1)], marker: { opacity: 0 }, hoverinfo: 'skip', showlegend: false }];
    // Empty bar traces give the legend square swatches.
    for (const item of legend) {
      traces.push({ type: 'bar', x: [null], y: [null], name: item.label, marker: { color: item.color }, hoverinfo: 'skip', showlegend: true });
    }
    const rowHeight = stages.length > 16 ? 14 : 30;
    const room = bottomRoom(el, legend.map((k) => k.label)) + 6;
    return {
      traces,
      layout: {
        margin: { l: 70, r: 12, t: 30, b: room },
        xaxis: { range: [0, total], ticksuffix: ' s', zeroline: false, showgrid: true },
        yaxis: {
          range: [stages.length - 0.5, -0.5], fixedrange: true, zeroline: false, showgrid: false,
          tickvals: stages.map((_, s) => s), ticktext: stages.map((st) => `stage ${st.stage}`),
          tickfont: { size: stages.length > 24 ? 9 : 12 },
        },
        legend: { ...BOTTOM_LEGEND, itemclick: false, itemdoubleclick: false },
        dragmode: 'zoom',
        hovermode: false,
        shapes,
      },
      config: PLOT_CONFIG,
      fit: { top: Math.max(150, Math.min(900, 40 + stages.length * rowHeight)), below: 30 },
    };
  };
  await plot(el, build);
  el.ganttRows = rows;
  el.ganttKinds = Object.fromEntries(KINDS.map((k) => [k.key, k.label]));
  if (!el.dataset.hover) {
    el.dataset.hover = '1';
    el.addEventListener('mousemove', (e) => ganttHover(el, e));
    el.addEventListener('mouseleave', () => ganttTip(el).classList.remove('show'));
  }
}

function ganttTip(el) {
  let tip = el.querySelector('.gantt-tip');
  if (!tip) {
    tip = document.createElement('div');
    tip.className = 'gantt-tip';
    tip.setAttribute('role', 'tooltip');
    el.append(tip);
  }
  return tip;
}

// The block under the pointer, from the axes' current ranges and the plot area's position.
function ganttHover(el, e) {
  const tip = ganttTip(el);
  const area = el.querySelector('.nsewdrag');
  const rows = el.ganttRows;
  if (!area || !rows || !el.layout || !el.layout.xaxis.range) return tip.classList.remove('show');
  const box = area.getBoundingClientRect();
  const fx = (e.clientX - box.left) / box.width;
  const fy = (e.clientY - box.top) / box.height;
  if (fx < 0 || fx > 1 || fy < 0 || fy > 1) return tip.classList.remove('show');
  const [x0, x1] = el.layout.xaxis.range.map(Number);
  // A y range [a, b] puts a at the bottom; this axis is reversed, stage 0 on top.
  const [ya, yb] = el.layout.yaxis.range.map(Number);
  const t = x0 + fx * (x1 - x0);
  const yv = ya + (1 - fy) * (yb - ya);
  const s = Math.round(yv);
  const row = rows[s];
  if (!row || Math.abs(yv - s) > 0.4) return tip.classList.remove('show');
  const { st, order } = row;
  const slack = (2 * (x1 - x0)) / box.width; // 2 px, so thin blocks can be hovered
  const lower = yv - s > 0.08; // the lower half also shows communication blocks
  let lo = 0;
  let hi = order.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (st.start_s[order[mid]] <= t + slack) lo = mid + 1;
    else hi = mid;
  }
  let found = -1;
  // Blocks that start before t and may still run at t; comm blocks win in the lower half.
  for (let k = lo - 1; k >= 0 && k >= lo - 64; k--) {
    const i = order[k];
    const end = st.start_s[i] + st.duration_s[i];
    if (end + slack < t) continue;
    const comm = COMM_KINDS.has(st.kind[i]);
    if (comm && !lower) continue;
    if (found < 0 || (comm && lower)) found = i;
    if (comm && lower) break;
  }
  if (found < 0) {
    tip.textContent = `stage ${st.stage} · idle at ${fmt.duration(t)}`;
  } else {
    const i = found;
    const label = el.ganttKinds[st.kind[i]] || st.kind[i];
    const mb = st.micro_batch[i] >= 0 ? ` · micro-batch ${st.micro_batch[i]}` : '';
    const chunk = st.chunk[i] > 0 ? ` · chunk ${st.chunk[i]}` : '';
    tip.textContent = `stage ${st.stage} · ${label}${mb}${chunk}\n${fmt.duration(st.start_s[i])} → ${fmt.duration(st.start_s[i] + st.duration_s[i])} (${fmt.duration(st.duration_s[i])})`;
  }
  const host = el.getBoundingClientRect();
  const left = e.clientX - host.left + 14;
  tip.style.left = `${Math.min(left, host.width - 260)}px`;
  tip.style.top = `${e.clientY - host.top + 14}px`;
  tip.classList.add('show');
}

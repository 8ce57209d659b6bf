// The Cluster view's charts: deadlines met and average job completion time per policy, the GPUs
// the cluster's jobs hold over time under each policy, and one policy's jobs as a Gantt chart
// (a bar per allocation, its colour the GPUs held; hover a bar for the job's plan).
import * as fmt from '../format.js';
import { plot, SMALL_CONFIG, VIEW_CONFIG, VIEW_LEGEND } from '../charts.js';

/** A policy's colour in every chart and in the table's key: the two ElasticFlow policies as the other views' two answers. */
const POLICY_COLORS = { fifo: '#8a939f', edf: '#7a5cb8', 'elasticflow-dp': '#e07b12', 'elasticflow-vtrain': '#2457c5' };
const MORE_COLORS = ['#1b7a3d', '#b42318', '#0f7c8c', '#8c5a0f'];

export function policyColor(name, i) {
  return POLICY_COLORS[name] || MORE_COLORS[i % MORE_COLORS.length];
}

const hours = (s) => s / 3600;

/** Deadlines met (share of all jobs) and average JCT, a bar per policy; side by side, or stacked on a narrow chart. */
export async function drawBars(el, r) {
  const names = r.policies.map((p) => p.name);
  const colors = r.policies.map((p, i) => policyColor(p.name, i));
  const narrow = (el.clientWidth || 600) < 560;
  const ratio = r.policies.map((p) => p.deadline_ratio);
  const jct = r.policies.map((p) => hours(p.avg_jct_s));
  const bar = (x, axis, text, hover) => ({
    type: 'bar', orientation: 'h', y: names, x, xaxis: `x${axis}`, yaxis: `y${axis}`, marker: { color: colors },
    text, textposition: 'auto', insidetextanchor: 'end', cliponaxis: false, hovertext: hover, hovertemplate: '%{hovertext}<extra></extra>', showlegend: false,
  });
  const traces = [
    bar(ratio, '', r.policies.map((p) => fmt.percent(p.deadline_ratio)), r.policies.map((p) => `${p.name}: ${p.deadlines_met} of ${p.jobs_total} deadlines met (${fmt.percent(p.deadline_ratio)})`)),
    bar(jct, '2', r.policies.map((p) => fmt.duration(p.avg_jct_s)), r.policies.map((p) => `${p.name}: average JCT ${fmt.duration(p.avg_jct_s)} (95th percentile ${fmt.duration(p.p95_jct_s)}) over ${p.finished} finished jobs`)),
  ];
  const rows = names.length;
  const plotH = rows * 30;
  const height = narrow ? 2 * plotH + 110 : plotH + 70;
  el.style.height = `${height}px`;
  const title = (text, x, y, yref = 'paper') => ({ text, x, y, xref: 'paper', yref, xanchor: 'left', yanchor: 'bottom', showarrow: false, font: { size: 12, weight: 600 } });
  const y = { autorange: 'reversed', automargin: true, fixedrange: true };
  const x = { zeroline: true, fixedrange: true, rangemode: 'tozero' };
  const layout = {
    hovermode: 'closest',
    margin: { l: 10, r: 14, t: 22, b: 30 },
    bargap: 0.3,
    xaxis: { ...x, range: [0, 1.02], tickformat: '.0%', dtick: 0.25, ...(narrow ? { domain: [0, 1], anchor: 'y' } : { domain: [0, 0.46], anchor: 'y' }) },
    xaxis2: { ...x, ticksuffix: ' h', ...(narrow ? { domain: [0, 1], anchor: 'y2' } : { domain: [0.54, 1], anchor: 'y2' }) },
    yaxis: { ...y, ...(narrow ? { domain: [0.58, 1] } : { domain: [0, 1] }) },
    yaxis2: { ...y, ...(narrow ? { domain: [0, 0.42] } : { domain: [0, 1], showticklabels: false }), anchor: 'x2' },
    annotations: narrow
      ? [title('Deadlines met (share of all jobs)', 0, 1), title('Average job completion time', 0, 0.46)]
      : [title('Deadlines met (share of all jobs)', 0, 1), title('Average job completion time', 0.54, 1)],
  };
  await plot(el, () => ({ traces, layout, config: SMALL_CONFIG }));
}

/** The GPUs held over time, a step line per policy, under the cluster's size. */
export async function drawUsage(el, r) {
  const gpus = r.cluster.num_gpus;
  const traces = r.policies.map((p, i) => ({
    type: 'scatter', mode: 'lines', name: p.name, line: { shape: 'hv', color: policyColor(p.name, i), width: 1.6 },
    x: p.timeline.map((u) => hours(u.time_s)), y: p.timeline.map((u) => u.gpus_allocated),
    text: p.timeline.map((u) => `${p.name} at ${fmt.duration(u.time_s)}: ${fmt.gpus(u.gpus_allocated)} held, ${u.jobs_running} running, ${u.jobs_waiting} waiting`),
    hovertemplate: '%{text}<extra></extra>',
  }));
  const room = 40 + Math.ceil(traces.length / Math.max(1, Math.floor(((el.clientWidth || 600) - 16) / 170))) * 24;
  el.style.height = `${280 + room}px`;
  await plot(el, (t) => ({ traces, config: VIEW_CONFIG, layout: {
    margin: { l: 56, r: 14, t: 12, b: room },
    legend: VIEW_LEGEND,
    hovermode: 'closest',
    xaxis: { title: { text: 'hours from the start' }, zeroline: false, rangemode: 'tozero' },
    yaxis: { title: { text: 'GPUs held' }, range: [0, gpus * 1.08], zeroline: false },
    shapes: [{ type: 'line', xref: 'paper', x0: 0, x1: 1, y0: gpus, y1: gpus, line: { color: t.bad, width: 1.5, dash: 'dash' } }],
    annotations: [{ xref: 'paper', x: 1, y: gpus, xanchor: 'right', yanchor: 'bottom', showarrow: false, text: `the cluster: ${fmt.gpus(gpus)}`, font: { size: 11, color: t.bad } }],
  } }));
}

const GANTT_COLORS = [[0, '#c6dbef'], [0.5, '#4a8fd0'], [1, '#0b2f66']];

/** A job as hover text names it: its place in arrival order and its id (long ids shortened). */
export function jobName(spec, i) {
  const id = spec.id.length > 14 ? `${spec.id.slice(0, 8)}…` : spec.id;
  return `job ${i + 1} (${id})`;
}

/** One allocation of a job as hover text: GPUs, plan, iteration time, from and to. */
function allocationText(name, spec, a, end) {
  const paused = a.resume_s - a.time_s;
  const pause = paused > 0 ? `, after a ${paused < 100 ? `${fmt.asGiven(paused)} s` : fmt.duration(paused)} pause to resize` : '';
  return `<b>${name}</b> · ${spec.model_name}, ${fmt.count(spec.iterations)} iterations<br>`
    + `${fmt.gpus(a.gpus)}: ${fmt.planLabel(a.plan)}<br>`
    + `${fmt.duration(a.iteration_time_s)} an iteration, from ${fmt.duration(a.time_s)} to ${fmt.duration(end)}${pause}`;
}

/**
 * The jobs of policy `k` as a Gantt chart, a row per job in arrival order: a bar per allocation,
 * coloured by the GPUs it holds; a thin grey bar while an admitted job waits for GPUs; a tick at
 * its deadline, green when met and red when missed; a cross for a job the policy turned away.
 */
export async function drawGantt(el, r, k) {
  const p = r.policies[k];
  const specs = r.workload.jobs;
  const n = specs.length;
  const maxLog = Math.max(1, Math.log2(r.cluster.num_gpus));
  const run = { x: [], base: [], y: [], c: [], text: [] };
  const wait = { x: [], base: [], y: [], text: [] };
  const deadline = { x: [], y: [], met: [], text: [] };
  const rejected = { x: [], y: [], text: [] };
  p.jobs.forEach((job, i) => {
    const spec = specs[i];
    const name = jobName(spec, i);
    if (!job.admitted) {
      rejected.x.push(hours(spec.arrival_s));
      rejected.y.push(i);
      rejected.text.push(`<b>${name}</b> · ${spec.model_name}: turned away at ${fmt.duration(spec.arrival_s)}; no allocation meets its deadline`);
      return;
    }
    let waitingFrom = spec.arrival_s;
    job.allocations.forEach((a, m) => {
      const end = m + 1 < job.allocations.length ? job.allocations[m + 1].time_s : a.time_s;
      if (a.gpus > 0) {
        if (a.time_s > waitingFrom) {
          wait.x.push(hours(a.time_s - waitingFrom));
          wait.base.push(hours(waitingFrom));
          wait.y.push(i);
          wait.text.push(`<b>${name}</b> · ${spec.model_name}: waiting for GPUs from ${fmt.duration(waitingFrom)} to ${fmt.duration(a.time_s)}`);
        }
        run.x.push(hours(end - a.time_s));
        run.base.push(hours(a.time_s));
        run.y.push(i);
        run.c.push(Math.log2(a.gpus));
        run.text.push(allocationText(name, spec, a, end));
        waitingFrom = end;
      } else if (m + 1 < job.allocations.length) {
        waitingFrom = a.time_s;
      }
    });
    deadline.x.push(hours(spec.deadline_s));
    deadline.y.push(i);
    deadline.met.push(job.met_deadline);
    deadline.text.push(`<b>${name}</b> · deadline ${fmt.duration(spec.deadline_s)}: ${job.met_deadline ? 'met' : 'missed'}${job.finished ? `, finished at ${fmt.duration(job.finish_s)}` : ''}`);
  });
  const rowPx = Math.max(3, Math.min(12, Math.floor(560 / n)));
  const end = Math.max(1, ...p.jobs.map((j) => j.finish_s), ...specs.map((s) => s.arrival_s));
  const ticks = [];
  for (let g = 1; g <= r.cluster.num_gpus; g *= 8) ticks.push(g);
  const traces = (t) => [
    {
      type: 'bar', orientation: 'h', name: 'waiting', x: wait.x, base: wait.base, y: wait.y, width: 0.3,
      marker: { color: t.muted }, text: wait.text, hovertemplate: '%{text}<extra></extra>', textposition: 'none',
    },
    {
      type: 'bar', orientation: 'h', name: 'running', x: run.x, base: run.base, y: run.y, width: 0.85, text: run.text,
      hovertemplate: '%{text}<extra></extra>', textposition: 'none',
      marker: {
        color: run.c, cmin: 0, cmax: maxLog, colorscale: GANTT_COLORS, line: { width: 0 },
        colorbar: { title: { text: 'GPUs', side: 'top' }, tickvals: ticks.map(Math.log2), ticktext: ticks.map(String), thickness: 10, len: 0.9, x: 1.01, xpad: 4 },
      },
    },
    {
      type: 'scatter', mode: 'markers', name: 'deadline', x: deadline.x, y: deadline.y, text: deadline.text, hovertemplate: '%{text}<extra></extra>',
      marker: { symbol: 'line-ns', size: rowPx + 5, line: { width: 2, color: deadline.met.map((m) => (m ? t.ok : t.bad)) } },
    },
    ...(rejected.x.length ? [{
      type: 'scatter', mode: 'markers', name: 'turned away', x: rejected.x, y: rejected.y, text: rejected.text, hovertemplate: '%{text}<extra></extra>',
      marker: { symbol: 'x-thin', size: rowPx + 4, line: { width: 1.5, color: t.bad } },
    }] : []),
  ];
  const height = n * rowPx + 64;
  el.style.height = `${height}px`;
  await plot(el, (t) => ({ traces: traces(t), config: VIEW_CONFIG, layout: {
    hovermode: 'closest',
    showlegend: false,
    bargap: 0,
    barmode: 'overlay',
    margin: { l: 44, r: 60, t: 8, b: 44 },
    // Up to the last finish: a deadline beyond it was met.
    xaxis: { title: { text: 'hours from the start' }, zeroline: false, range: [0, hours(end) * 1.03] },
    yaxis: { title: { text: 'jobs, by arrival' }, range: [n - 0.5, -0.5], showticklabels: false, zeroline: false, showgrid: false },
  } }));
}

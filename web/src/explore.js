// The Explore view: sweeps every plan of the current model and cluster in the sweep worker,
// with a progress bar and a Cancel button, then shows time against cost and a sortable table.
import * as fmt from './format.js';
import { loadPlotly } from './charts.js';
import { fieldForPointer } from './fields.js';

const $ = (id) => document.getElementById(id);

export function planLabel(p) {
  const parts = [`tp ${p.tp}`, `pp ${p.pp}`, `dp ${p.dp}`];
  if (p.virtual_stages > 1) parts.push(`v ${p.virtual_stages}`);
  parts.push(`mb ${p.micro_batch}`);
  if (p.recompute) parts.push(`recompute ${p.recompute}`);
  if (p.sequence_parallel) parts.push('SP');
  if (p.zero_stage) parts.push(`ZeRO-${p.zero_stage}`);
  return parts.join(' · ');
}

const COLUMNS = [
  { key: 'plan', label: 'Plan', value: (p) => planLabel(p), sort: (p) => [p.tp, p.pp, p.dp, p.virtual_stages || 1, p.micro_batch] },
  { key: 'iteration_time_s', label: 'Iteration', value: (p) => fmt.duration(p.iteration_time_s) },
  { key: 'training_days', label: 'Training', value: (p) => fmt.days(p.training_days) },
  { key: 'cost_usd', label: 'Cost', value: (p) => fmt.usd(p.cost_usd) },
  { key: 'gpu_hours', label: 'GPU-hours', value: (p) => fmt.count(p.gpu_hours) },
  { key: 'mfu', label: 'MFU', value: (p) => fmt.percent(p.mfu) },
  { key: 'memory_GiB', label: 'Memory / GPU', value: (p) => fmt.gib(p.memory_GiB) },
  { key: 'fits_in_memory', label: 'Fits', value: (p) => (p.fits_in_memory ? 'yes' : 'no') },
];

function compare(a, b) {
  if (Array.isArray(a)) {
    for (let i = 0; i < a.length; i++) {
      const c = compare(a[i], b[i]);
      if (c) return c;
    }
    return 0;
  }
  const an = a == null || (typeof a === 'number' && !Number.isFinite(a));
  const bn = b == null || (typeof b === 'number' && !Number.isFinite(b));
  if (an || bn) return an === bn ? 0 : an ? 1 : -1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function samePlan(a, b) {
  return ['tp', 'pp', 'dp', 'micro_batch', 'recompute', 'sequence_parallel', 'zero_stage'].every((k) => a[k] === b[k]) &&
    (a.virtual_stages || 1) === (b.virtual_stages || 1);
}

export function createExploreView({ app, openPlan, buildConfig, showErrors }) {
  const view = {
    result: null,
    stale: true,
    running: null, // AbortController of the sweep in flight
    sort: { key: 'training_days', dir: 1 },
    startedAt: 0,
  };

  const runButton = $('explore-run');
  const cancelButton = $('explore-cancel');
  const progress = $('explore-progress');
  const progressWrap = $('explore-progress-wrap');
  const progressText = $('explore-progress-text');
  const status = $('explore-status');

  function setProgress(fraction) {
    const f = Math.max(0, Math.min(1, Number.isFinite(fraction) ? fraction : 0));
    progress.value = f;
    progressText.textContent = `${Math.round(f * 100)} %`;
  }

  function setStatus(text, bad = false) {
    status.textContent = text;
    status.classList.toggle('bad', bad);
  }

  async function run() {
    if (view.running) view.running.abort();
    const { config, errors } = buildConfig();
    if (errors.length) {
      showErrors(errors);
      setStatus('Fix the marked inputs, then explore.', true);
      return;
    }
    const controller = new AbortController();
    view.running = controller;
    view.stale = false;
    runButton.disabled = true;
    cancelButton.hidden = false;
    progressWrap.hidden = false;
    setProgress(0);
    setStatus('Simulating every plan…');
    document.body.dataset.explore = 'running';
    const t0 = performance.now();
    try {
      const result = await app.vtrain.explore({ ...config, output: { timeline: false } }, {
        signal: controller.signal,
        onProgress: setProgress,
      });
      if (view.running !== controller) return;
      const ms = performance.now() - t0;
      setProgress(1);
      view.result = result;
      view.lastMs = ms;
      const n = result.plans.length;
      const fit = result.plans.filter((p) => p.fits_in_memory).length;
      setStatus(`${n} plans simulated in ${fmt.duration(ms / 1000)}; ${fit} fit in memory, ${result.pareto.length} on the time–cost frontier (★).`);
      render();
      document.body.dataset.explore = 'done';
    } catch (e) {
      if (view.running !== controller) return;
      if (e.code === 'cancelled') {
        setStatus('Sweep cancelled.');
        view.stale = true;
      } else {
        // Errors about a field are shown beside it; the rest here.
        const errors = e.errors || [{ code: 'internal', pointer: '', message: String(e.message || e) }];
        if (errors.some((x) => fieldForPointer(x.pointer))) showErrors(errors);
        const text = errors.map((x) => x.message).join(' ');
        setStatus(`The sweep failed: ${text}`, true);
      }
      document.body.dataset.explore = 'stopped';
    } finally {
      if (view.running === controller) {
        view.running = null;
        runButton.disabled = false;
        cancelButton.hidden = true;
        progressWrap.hidden = true;
      }
    }
  }

  function bestCard(title, plan, note) {
    const card = document.createElement('div');
    card.className = 'kpi';
    const label = document.createElement('span');
    label.className = 'kpi-label';
    label.textContent = title;
    const value = document.createElement('span');
    value.className = 'kpi-value';
    value.textContent = plan.training_days != null ? `${fmt.days(plan.training_days)} · ${fmt.usd(plan.cost_usd)}` : fmt.duration(plan.iteration_time_s);
    const sub = document.createElement('span');
    sub.className = 'kpi-sub';
    sub.textContent = `${planLabel(plan)}${note ? ` · ${note}` : ''}`;
    const open = document.createElement('button');
    open.type = 'button';
    open.textContent = 'Open in Plan view';
    open.addEventListener('click', () => openPlan(plan));
    card.append(label, value, sub, open);
    return card;
  }

  function renderBest() {
    const box = $('explore-best');
    box.textContent = '';
    const r = view.result;
    if (r.best_time) box.append(bestCard('Fastest plan that fits', r.best_time));
    if (r.best_cost) box.append(bestCard('Cheapest plan that fits', r.best_cost));
    if (r.baseline) box.append(bestCard('Your plan', r.baseline, r.baseline.fits_in_memory ? '' : 'does not fit'));
  }

  function xy(p) {
    return [p.training_days ?? p.iteration_time_s, p.cost_usd ?? p.gpu_hours];
  }

  async function renderScatter() {
    const r = view.result;
    const el = $('chart-scatter');
    $('explore-figure').hidden = false;
    const hasDays = r.plans.some((p) => p.training_days != null);
    const hasCost = r.plans.some((p) => p.cost_usd != null);
    const groups = [
      { name: 'does not fit in memory', plans: r.plans.filter((p) => !p.fits_in_memory), marker: { color: '#b8bec7', size: 7, opacity: 0.6 } },
      { name: 'fits', plans: r.plans.filter((p) => p.fits_in_memory && !p.pareto), marker: { color: '#4c78a8', size: 8, opacity: 0.8 } },
      {
        name: 'time–cost frontier',
        plans: r.plans.filter((p) => p.pareto).sort((a, b) => compare(xy(a)[0], xy(b)[0])),
        marker: { color: '#e45756', size: 11, symbol: 'star', line: { color: '#7a1f1a', width: 1 } },
        mode: 'lines+markers',
        line: { color: '#e45756', width: 1.5, dash: 'dot', shape: 'hv' },
      },
    ];
    const traces = groups
      .filter((g) => g.plans.length)
      .map((g) => ({
        type: 'scatter',
        mode: g.mode || 'markers',
        name: g.name,
        x: g.plans.map((p) => xy(p)[0]),
        y: g.plans.map((p) => xy(p)[1]),
        customdata: g.plans.map((p) => r.plans.indexOf(p)),
        text: g.plans.map((p) => `${planLabel(p)}<br>${fmt.days(p.training_days)} · ${fmt.usd(p.cost_usd)} · MFU ${fmt.percent(p.mfu)}<br>iteration ${fmt.duration(p.iteration_time_s)} · ${fmt.gib(p.memory_GiB)} per GPU${p.fits_in_memory ? '' : ' (does not fit)'}`),
        hovertemplate: '%{text}<extra></extra>',
        marker: g.marker,
        line: g.line,
      }));
    const base = r.baseline;
    if (base) {
      const [bx, by] = xy(base);
      traces.push({
        type: 'scatter', mode: 'markers', name: 'your plan', x: [bx], y: [by],
        marker: { color: 'rgba(0,0,0,0)', size: 18, line: { color: '#1c2430', width: 2 } },
        hovertemplate: `your plan: ${planLabel(base)}<extra></extra>`,
      });
    }
    const Plotly = await loadPlotly();
    await Plotly.react(
      el,
      traces,
      {
        font: { family: 'system-ui, -apple-system, Segoe UI, Roboto, Arial, sans-serif', size: 12, color: '#1c2430' },
        paper_bgcolor: 'rgba(0,0,0,0)',
        plot_bgcolor: 'rgba(0,0,0,0)',
        margin: { l: 70, r: 12, t: 8, b: 46 },
        xaxis: { title: { text: hasDays ? 'training time (days)' : 'iteration time (s)' }, type: 'log', zeroline: false },
        yaxis: { title: { text: hasCost ? 'cost (USD)' : 'GPU-hours' }, type: 'log', tickprefix: hasCost ? '$' : '', zeroline: false },
        legend: { orientation: 'h', y: 1.0, yanchor: 'bottom', x: 0 },
        hovermode: 'closest',
      },
      { displaylogo: false, responsive: true, modeBarButtonsToRemove: ['select2d', 'lasso2d', 'autoScale2d'] },
    );
    if (!el.dataset.wired) {
      el.dataset.wired = '1';
      el.on('plotly_click', (ev) => {
        const pt = ev.points && ev.points[0];
        if (pt && Number.isInteger(pt.customdata)) openPlan(view.result.plans[pt.customdata]);
      });
    }
    document.body.dataset.scatter = String(Date.now());
  }

  function renderTable() {
    const r = view.result;
    $('explore-table-wrap').hidden = false;
    const table = $('explore-table');
    const head = table.tHead;
    head.textContent = '';
    const tr = head.insertRow();
    for (const col of COLUMNS) {
      const th = document.createElement('th');
      th.scope = 'col';
      if (view.sort.key === col.key) th.setAttribute('aria-sort', view.sort.dir > 0 ? 'ascending' : 'descending');
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = col.label;
      b.addEventListener('click', () => {
        view.sort = { key: col.key, dir: view.sort.key === col.key ? -view.sort.dir : 1 };
        renderTable();
      });
      th.append(b);
      tr.append(th);
    }
    const col = COLUMNS.find((c) => c.key === view.sort.key) || COLUMNS[2];
    const key = col.sort || ((p) => p[col.key]);
    const rows = [...r.plans].sort((a, b) => view.sort.dir * compare(key(a), key(b)) || compare(a.iteration_time_s, b.iteration_time_s));
    const body = table.tBodies[0];
    body.textContent = '';
    for (const p of rows) {
      const row = body.insertRow();
      row.className = `${p.fits_in_memory ? '' : 'infeasible'}${p.pareto ? ' pareto' : ''}`;
      row.tabIndex = 0;
      row.title = 'Open this plan';
      for (const c of COLUMNS) row.insertCell().textContent = c.value(p);
      row.addEventListener('click', () => openPlan(p));
      row.addEventListener('keydown', (e) => {
        if (e.key === 'Enter') openPlan(p);
      });
    }
  }

  function render() {
    renderBest();
    renderTable();
    renderScatter();
  }

  function csv() {
    const keys = ['tp', 'pp', 'dp', 'virtual_stages', 'micro_batch', 'recompute', 'sequence_parallel', 'zero_stage', 'num_gpus',
      'iteration_time_s', 'training_days', 'gpu_hours', 'cost_usd', 'energy_MWh', 'mfu', 'memory_GiB', 'fits_in_memory', 'pareto'];
    const cell = (v) => (v == null || (typeof v === 'number' && !Number.isFinite(v)) ? '' : String(v));
    return `${[keys.join(','), ...view.result.plans.map((p) => keys.map((k) => cell(p[k])).join(','))].join('\n')}\n`;
  }

  runButton.addEventListener('click', run);
  cancelButton.addEventListener('click', () => {
    if (view.running) view.running.abort();
  });

  return {
    get result() {
      return view.result;
    },
    csv,
    run,
    /** The view became visible: sweep when the inputs changed since the last sweep. */
    shown() {
      if (view.stale && !view.running) run();
      else if (view.result) renderScatter();
    },
    inputsChanged() {
      view.stale = true;
      if (view.result && !view.running) setStatus('The inputs changed: explore again to update the plans.');
    },
  };
}

export { samePlan };

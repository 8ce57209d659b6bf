// The Explore view: sweeps the plans of the current model and cluster in the sweep worker, with a
// progress bar and Cancel, then shows training time against cost and a sortable table.
import * as fmt from './format.js';
import { bottomRoom, loadPlotly, VIEW_CONFIG, VIEW_LAYOUT, VIEW_LEGEND } from './charts.js';
import { fieldForPointer, fieldMessage } from './fields.js';
import { errorList } from './form.js';
import { csvText, openableRow, runControls } from './sweep.js';

const $ = (id) => document.getElementById(id);

// Sweeps the simulator's case presets run as they were published; the page knows them by name.
export const CASES = [
  { name: 'mt-nlg', example: 'mt-nlg-530b', label: 'vTrain case study: MT-NLG 530B, the paper’s (t, d, p) grid' },
];
const MAX_ROWS = 1000; // table rows drawn at once; the rest are a sort away
// A larger space is refused by the simulator, and the page says how to restrict it. GPT-3 175B's
// whole space on 1,024 GPUs (255,894 plans, 20,291 fit) takes about 11 s in the page's worker,
// 4 s of sweep and the rest moving its 90 MB result to the page; the CLI sweeps it in 1-1.5 s.
export const MAX_PLANS = 50000;

// What "best" means in a sweep: the request's explore.objective.
export const OBJECTIVES = {
  cost: { card: 'Cheapest plan', short: 'the cheapest' },
  time: { card: 'Fastest plan', short: 'the fastest' },
  deadline: { card: 'Cheapest within the deadline', short: 'the cheapest within the deadline' },
};

/** "tp 8 · pp 35 · dp 12 · mb 1 · full recompute"; `varying` limits it to the fields that differ. */
export function planLabel(p, varying = null) {
  const show = (k) => !varying || varying.has(k);
  const parts = [`tp ${p.tp}`, `pp ${p.pp}`, `dp ${p.dp}`];
  if (show('virtual_stages') && (p.virtual_stages > 1 || varying)) parts.push(`v ${p.virtual_stages}`);
  if (show('micro_batch')) parts.push(`mb ${p.micro_batch}`);
  if (show('recompute')) parts.push(p.recompute === 'none' ? 'no recompute' : `${p.recompute} recompute`);
  if (show('sequence_parallel') && (p.sequence_parallel || varying)) parts.push(p.sequence_parallel ? 'SP' : 'no SP');
  if (show('zero_stage') && (p.zero_stage || varying)) parts.push(`ZeRO-${p.zero_stage}`);
  return parts.join(' · ');
}

// The plan fields other than tp, pp and dp that take more than one value in a sweep.
function varyingFields(plans) {
  const out = new Set();
  for (const k of ['virtual_stages', 'micro_batch', 'recompute', 'sequence_parallel', 'zero_stage']) {
    if (new Set(plans.map((p) => p[k])).size > 1) out.add(k);
  }
  return out;
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

function status(p) {
  if (!p.within_gpu_limit) return 'over budget';
  if (!p.fits_in_memory) return 'does not fit';
  if (!p.simulated) return 'not timed';
  return p.pareto ? 'frontier' : 'fits';
}

const COLUMNS = [
  { key: 'plan', label: 'Plan', value: (p, varying) => planLabel(p, varying), sort: (p) => [p.tp, p.pp, p.dp, p.virtual_stages, p.micro_batch] },
  { key: 'num_gpus', label: 'GPUs', value: (p) => p.num_gpus.toLocaleString('en-US') },
  { key: 'iteration_time_s', label: 'Iteration', value: (p) => fmt.duration(p.iteration_time_s) },
  { key: 'training_days', label: 'Training', value: (p) => fmt.days(p.training_days) },
  { key: 'cost_usd', label: 'Cost', value: (p) => fmt.usd(p.cost_usd) },
  { key: 'mfu', label: 'MFU', value: (p) => fmt.percent(p.mfu) },
  { key: 'memory_GiB', label: 'Memory / GPU', value: (p) => fmt.gib(p.memory_GiB) },
  { key: 'status', label: 'Status', value: status, sort: (p) => [p.pareto ? 0 : p.simulated && p.fits_in_memory && p.within_gpu_limit ? 1 : 2, p.training_days] },
];

function compare(a, b) {
  if (Array.isArray(a)) {
    for (let i = 0; i < a.length; i++) {
      const c = compare(a[i], b[i]);
      if (c) return c;
    }
    return 0;
  }
  // Missing numbers (plans not timed) sort last whatever the direction.
  const an = a == null || (typeof a === 'number' && !Number.isFinite(a));
  const bn = b == null || (typeof b === 'number' && !Number.isFinite(b));
  if (an || bn) return an === bn ? 0 : an ? 1 : -1;
  return a < b ? -1 : a > b ? 1 : 0;
}

const PLAN_KEYS = ['tp', 'pp', 'dp', 'virtual_stages', 'micro_batch', 'recompute', 'sequence_parallel', 'zero_stage'];

function samePlan(a, b) {
  return PLAN_KEYS.every((k) => a[k] === b[k]);
}

function feasible(p) {
  return p.simulated && p.fits_in_memory && p.within_gpu_limit;
}

export function createExploreView({ app, openPlan, buildConfig, showErrors, onSettingsChange }) {
  const view = {
    result: null,
    stale: true,
    sort: { key: 'status', dir: 1 },
    space: 'grid',
    budget: '', // '' follows the cluster's GPU count
    unfit: true,
    objective: 'cost', // cost | time | deadline
    deadline: '30', // days, as typed; used with the deadline objective
  };

  const controls = runControls('explore', run);
  const { setProgress, setStatus } = controls;
  const spaceSelect = $('explore-space');
  const budgetInput = $('explore-budget');
  const unfitBox = $('explore-unfit');
  const objectiveSelect = $('explore-objective');
  const deadlineInput = $('explore-deadline');
  const deadlineErr = $('explore-deadline-err');

  for (const c of CASES) spaceSelect.append(new Option(c.label, c.name));

  function budget() {
    const text = String(view.budget || app.values.num_gpus || '').trim();
    const v = fmt.parseNumber(text);
    return v != null && Number.isInteger(v) && v > 0 ? v : null;
  }

  function showSettings() {
    spaceSelect.value = view.space;
    budgetInput.value = view.budget || String(app.values.num_gpus || '');
    unfitBox.checked = view.unfit;
    objectiveSelect.value = view.objective;
    deadlineInput.value = view.deadline;
    $('explore-deadline-field').hidden = view.objective !== 'deadline';
    const v = app.values;
    const b = budget();
    const model = app.models.find((m) => m.name === app.preset);
    const gpu = app.profiles.find((p) => p.name === v.gpu);
    const tokens = fmt.parseNumber(v.tokens || '');
    const batch = fmt.parseNumber(v.global_batch || '');
    $('explore-intro').textContent = `Plans for ${model ? model.description : 'this model'} on at most ${b ? b.toLocaleString('en-US') : '?'} × ${gpu ? gpu.display_name.replace(/^NVIDIA /, '') : v.gpu} (global batch ${batch ? batch.toLocaleString('en-US') : '?'}, ${tokens ? fmt.count(tokens) : '?'} tokens): training time against cost.`;
  }

  // The request: the inputs, a GPU budget, and which plans to try.
  function request() {
    const { config, errors } = buildConfig();
    const b = budget();
    const budgetErr = $('explore-budget-err');
    budgetErr.hidden = b != null;
    budgetErr.textContent = b != null ? '' : 'Enter a whole number of GPUs';
    budgetInput.setAttribute('aria-invalid', String(b == null));
    const deadline = deadlineDays();
    const deadlineBad = view.objective === 'deadline' && deadline == null;
    showDeadlineError(deadlineBad ? 'Enter a number of days above 0' : '');
    if (errors.length || b == null || deadlineBad) {
      return { errors: errors.length ? errors : [{ pointer: '', message: b == null ? 'the GPU budget' : 'the deadline' }] };
    }
    const p = config.plan;
    const goal = { objective: view.objective };
    if (view.objective === 'deadline') goal.deadline_days = deadline;
    const explore = { simulate_unfit: view.unfit, max_plans: MAX_PLANS, ...goal };
    if (view.space === 'grid') {
      Object.assign(explore, {
        virtual_stages: [p.virtual_stages],
        micro_batch: [p.micro_batch],
        recompute: [p.recompute],
        sequence_parallel: [p.sequence_parallel],
        zero_stage: [p.zero_stage],
      });
    }
    const req = { ...config, cluster: { ...config.cluster, num_gpus: b }, explore, output: undefined };
    delete req.output;
    const known = CASES.find((c) => c.name === view.space);
    if (known) {
      // The case's grid applied to the current inputs (a merge patch over the case).
      req.case = known.name;
      req.explore = { simulate_unfit: view.unfit, ...goal };
    }
    return { request: req };
  }

  function deadlineDays() {
    const v = fmt.parseNumber(view.deadline);
    return v != null && v > 0 ? v : null;
  }

  function showDeadlineError(text) {
    deadlineErr.hidden = !text;
    deadlineErr.textContent = text;
    deadlineInput.setAttribute('aria-invalid', String(Boolean(text)));
    deadlineInput.closest('.field').classList.toggle('invalid', Boolean(text));
  }

  // The simulator's reasons, as the page's words: the bound names the page's choices, errors about
  // the deadline sit beside it.
  function failureText(errors) {
    if (errors.some((x) => x.code === 'too_large')) {
      const b = budget();
      return `This space holds more than ${MAX_PLANS.toLocaleString('en-US')} plans, more than the page sweeps. `
        + 'Choose “tp × pp × dp, the rest as in the plan” under Plans to try, or fewer GPUs'
        + `${b ? ` than ${b.toLocaleString('en-US')}` : ''}; the command line sweeps the whole space in seconds (vtrain explore CONFIG).`;
    }
    const known = CASES.find((c) => c.name === view.space);
    if (known && errors.some((x) => String(x.pointer).startsWith('/explore/'))) {
      // The case's published grid against other inputs: say so, with the first reasons in words.
      const reasons = [...new Set(errors.map((x) => fieldMessage(x.message.replace(/\/explore\/([a-z]+)\/\d+: /, '$1 '), null)))];
      return `${known.label.replace(/,.*$/, '')}: its grid of plans does not fit these inputs (${reasons.slice(0, 2).join('; ').replace(/\.$/, '')}${reasons.length > 2 ? '; …' : ''}). `
        + 'Choose “tp × pp × dp, the rest as in the plan” under Plans to try, or load its example.';
    }
    return `The sweep failed: ${errors.map((x) => fieldMessage(x.message, null)).join(' ')}`;
  }

  // Results of a sweep that no longer matches the inputs (or was cancelled) are dimmed.
  function markStale(stale) {
    $('view-explore').classList.toggle('stale', Boolean(stale && view.result));
  }

  async function run() {
    controls.abort();
    const { request: req, errors } = request();
    if (errors) {
      if (errors.some((x) => fieldForPointer(x.pointer))) showErrors(errors);
      setStatus('Fix the marked inputs, then explore.', true);
      return;
    }
    view.stale = false;
    const controller = controls.start('Simulating every plan…');
    document.body.dataset.explore = 'running';
    const t0 = performance.now();
    try {
      const result = await app.vtrain.explore(req, { signal: controller.signal, onProgress: setProgress });
      if (!controls.current(controller)) return;
      const ms = performance.now() - t0;
      setProgress(1);
      view.result = result;
      view.ms = ms;
      const s = result.stats;
      const parts = [`${s.plans.toLocaleString('en-US')} plans in ${fmt.duration(ms / 1000)}`];
      parts.push(`${s.feasible.toLocaleString('en-US')} can run (fit in memory and the GPU budget)`);
      if (result.pareto.length) parts.push(`${result.pareto.length} on the time–cost frontier (★)`);
      if (result.best_time) parts.push(bestText(result));
      setStatus(`${parts.join('; ')}.`);
      markStale(false);
      render();
      document.body.dataset.explore = 'done';
    } catch (e) {
      if (!controls.current(controller)) return;
      if (e.code === 'cancelled') {
        setStatus(view.result ? 'Sweep cancelled: the plans shown are from the sweep before.' : 'Sweep cancelled.');
        view.stale = true;
        markStale(true);
      } else {
        // Errors about a field are shown beside it; the rest here.
        const errors = errorList(e);
        if (errors.some((x) => fieldForPointer(x.pointer))) showErrors(errors);
        const onDeadline = errors.filter((x) => x.pointer === '/explore/deadline_days');
        if (onDeadline.length) showDeadlineError(onDeadline.map((x) => fieldMessage(x.message, x.pointer)).join('\n'));
        setStatus(failureText(errors), true);
        markStale(true);
      }
      document.body.dataset.explore = 'stopped';
    } finally {
      controls.finish(controller);
    }
  }

  function card(title, plan, note) {
    const box = document.createElement('div');
    box.className = 'kpi';
    const label = document.createElement('span');
    label.className = 'kpi-label';
    label.textContent = title;
    const best = view.result.best;
    if (best && plan.index === best.index) {
      box.classList.add('objective');
      const badge = document.createElement('span');
      badge.className = 'badge';
      badge.textContent = 'best for the objective';
      label.append(' ', badge);
    }
    const value = document.createElement('span');
    value.className = 'kpi-value';
    value.textContent = plan.simulated ? `${fmt.days(plan.training_days)} · ${fmt.usd(plan.cost_usd)}` : fmt.DASH;
    const sub = document.createElement('span');
    sub.className = 'kpi-sub';
    sub.textContent = `${planLabel(plan)} · ${fmt.gpus(plan.num_gpus)}${note ? ` · ${note}` : ''}`;
    const open = document.createElement('button');
    open.type = 'button';
    open.textContent = 'Open in Plan view';
    open.addEventListener('click', () => openPlan(plan));
    box.append(label, value, sub, open);
    return box;
  }

  function current() {
    const r = view.result;
    if (!r || !app.result) return null;
    return r.plans.find((p) => samePlan(p, app.result.config.plan)) || null;
  }

  function renderBest() {
    const box = $('explore-best');
    box.textContent = '';
    const r = view.result;
    if (r.best_time) box.append(card('Fastest plan', r.best_time));
    if (r.best_cost && (!r.best_time || r.best_cost.index !== r.best_time.index)) box.append(card('Cheapest plan', r.best_cost));
    const deadline = r.question.deadline_days;
    if (r.best && ![r.best_time, r.best_cost].some((p) => p && p.index === r.best.index)) {
      box.append(card(`Cheapest within ${fmt.daysGiven(deadline)}`, r.best));
    }
    const mine = current() || r.baseline;
    if (mine) box.append(card('Your plan', mine, feasible(mine) ? '' : status(mine)));
    const say = (text) => {
      const p = document.createElement('p');
      p.className = 'status bad';
      p.textContent = text;
      box.append(p);
    };
    if (!r.best_time) {
      say('No plan in this space can run: none fits in GPU memory within the GPU budget. Raise the budget, allow more recomputation, or try every plan.');
    } else if (!r.best && r.question.objective === 'deadline') {
      say(`No plan finishes within ${fmt.daysGiven(deadline)}: the fastest takes ${fmt.days(r.best_time.training_days)}. Allow more days or more GPUs.`);
    }
  }

  /** "the cheapest within 30.0 days: tp 8 · pp 21 · dp 8 …", for the status line. */
  function bestText(r) {
    const o = r.question.objective;
    const what = o === 'deadline' ? `the cheapest within ${fmt.daysGiven(r.question.deadline_days)}` : OBJECTIVES[o]?.short || o;
    return r.best ? `best for the objective, ${what}: ${planLabel(r.best)}` : `no plan is ${what}`;
  }

  function xy(p) {
    return [p.training_days, p.cost_usd];
  }

  async function renderScatter() {
    const r = view.result;
    const el = $('chart-scatter');
    $('explore-figure').hidden = false;
    const timed = r.plans.map((p, i) => [p, i]).filter(([p]) => p.simulated && p.training_days > 0 && p.cost_usd > 0);
    const hover = ([p]) => `${planLabel(p)} · ${fmt.gpus(p.num_gpus)}<br>${fmt.days(p.training_days)} · ${fmt.usd(p.cost_usd)} · MFU ${fmt.percent(p.mfu)}<br>iteration ${fmt.duration(p.iteration_time_s)} · ${fmt.gib(p.memory_GiB)} per GPU${feasible(p) ? '' : ` · ${status(p)}`}`;
    const group = (name, items, style) => ({
      type: 'scatter',
      mode: 'markers',
      name: `${name} (${items.length})`,
      x: items.map(([p]) => xy(p)[0]),
      y: items.map(([p]) => xy(p)[1]),
      customdata: items.map(([, i]) => i),
      text: items.map(hover),
      hovertemplate: '%{text}<extra></extra>',
      ...style,
    });
    const frontier = timed.filter(([p]) => p.pareto).sort((a, b) => compare(xy(a[0])[0], xy(b[0])[0]));
    const traces = [];
    const over = timed.filter(([p]) => !p.within_gpu_limit);
    const unfit = timed.filter(([p]) => p.within_gpu_limit && !p.fits_in_memory);
    const ok = timed.filter(([p]) => feasible(p) && !p.pareto);
    if (over.length) traces.push(group('over the GPU budget', over, { marker: { color: '#c3c8cf', size: 7, symbol: 'x-thin', line: { color: '#aab1ba', width: 1.5 } } }));
    if (unfit.length) traces.push(group('does not fit in memory', unfit, { marker: { color: '#c3c8cf', size: 7, opacity: 0.8 } }));
    // The status line counts every plan that can run; the frontier's are drawn as stars.
    if (ok.length) traces.push(group(frontier.length ? 'can run, off the frontier' : 'can run', ok, { marker: { color: '#4c78a8', size: 8, opacity: 0.75 } }));
    if (frontier.length) {
      traces.push(group('time–cost frontier', frontier, {
        mode: 'lines+markers',
        marker: { color: '#e45756', size: 12, symbol: 'star', line: { color: '#8c2a25', width: 1 } },
        line: { color: '#e45756', width: 1.5, dash: 'dot', shape: 'hv' },
      }));
    }
    const mine = current() || r.baseline;
    if (mine && mine.simulated) {
      traces.push({
        type: 'scatter', mode: 'markers', name: 'your plan', x: [mine.training_days], y: [mine.cost_usd],
        customdata: [r.plans.findIndex((p) => samePlan(p, mine))],
        marker: { color: 'rgba(0,0,0,0)', size: 20, line: { color: '#1c2430', width: 2 } },
        hovertemplate: `your plan: ${planLabel(mine)}<extra></extra>`,
      });
    }
    const best = r.best;
    if (best && best.simulated) {
      const what = r.question.objective === 'deadline' ? `cheapest within ${fmt.daysGiven(r.question.deadline_days)}` : OBJECTIVES[r.question.objective]?.short.replace(/^the /, '');
      traces.push({
        type: 'scatter', mode: 'markers', name: `best: ${what}`, x: [best.training_days], y: [best.cost_usd],
        customdata: [best.index],
        marker: { color: 'rgba(0,0,0,0)', size: 26, symbol: 'diamond', line: { color: '#1b7a3d', width: 2.5 } },
        hovertemplate: `best, ${what}: ${planLabel(best)}<br>${fmt.days(best.training_days)} · ${fmt.usd(best.cost_usd)}<extra></extra>`,
      });
    }
    // The deadline as a vertical line, when it is the objective.
    const deadline = r.question.objective === 'deadline' ? r.question.deadline_days : null;
    const shapes = [];
    const annotations = [];
    if (deadline > 0) {
      shapes.push({ type: 'line', xref: 'x', yref: 'paper', x0: deadline, x1: deadline, y0: 0, y1: 1, line: { color: '#1b7a3d', width: 1.5, dash: 'dash' } });
      annotations.push({ xref: 'x', yref: 'paper', x: Math.log10(deadline), y: 1, yanchor: 'top', xanchor: 'left', showarrow: false, text: ` deadline ${fmt.daysGiven(deadline)}`, font: { size: 11, color: '#1b7a3d' } });
    }
    const xs = timed.map(([p]) => p.training_days).concat(deadline > 0 ? [deadline] : []);
    const ys = timed.map(([p]) => p.cost_usd);
    const width = el.clientWidth || 600;
    const height = el.clientHeight || 400;
    const xTicks = logTicks(Math.min(...xs), Math.max(...xs), (v) => `${tickNumber(v)} d`, Math.max(2, Math.floor((width - 90) / 60)));
    const yTicks = logTicks(Math.min(...ys), Math.max(...ys), (v) => `$${tickNumber(v)}`, Math.max(2, Math.floor((height - 110) / 28)));
    const Plotly = await loadPlotly();
    await Plotly.react(
      el,
      traces,
      {
        ...VIEW_LAYOUT,
        // The ticks and the legend (its entries here about 190 px wide), and the axis title.
        margin: { l: 70, r: 14, t: 10, b: bottomRoom(el, traces.length, 190) + 24 },
        xaxis: { title: { text: 'training time' }, type: 'log', zeroline: false, ...xTicks },
        yaxis: { title: { text: 'cost' }, type: 'log', zeroline: false, ...yTicks },
        legend: VIEW_LEGEND,
        shapes,
        annotations,
      },
      VIEW_CONFIG,
    );
    if (!el.dataset.wired) {
      el.dataset.wired = '1';
      el.on('plotly_click', (ev) => {
        const pt = ev.points && ev.points[0];
        if (pt && Number.isInteger(pt.customdata) && pt.customdata >= 0) openPlan(view.result.plans[pt.customdata]);
      });
    }
    document.body.dataset.scatter = String(performance.now());
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
      th.setAttribute('aria-sort', view.sort.key === col.key ? (view.sort.dir > 0 ? 'ascending' : 'descending') : 'none');
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = col.label;
      b.addEventListener('click', () => {
        view.sort = { key: col.key, dir: view.sort.key === col.key ? -view.sort.dir : 1 };
        renderTable();
        head.querySelector(`th:nth-child(${COLUMNS.indexOf(col) + 1}) button`).focus();
      });
      th.append(b);
      tr.append(th);
    }
    const col = COLUMNS.find((c) => c.key === view.sort.key) || COLUMNS[3];
    const key = col.sort || ((p) => p[col.key]);
    const dir = view.sort.dir;
    const rows = [...r.plans].sort((a, b) => {
      const ka = key(a);
      const kb = key(b);
      const missing = compare(ka, kb);
      // Missing values stay last in both directions.
      const aMissing = ka == null;
      const bMissing = kb == null;
      if (aMissing || bMissing) return missing;
      return dir * missing || compare(a.training_days, b.training_days);
    });
    const body = table.tBodies[0];
    body.textContent = '';
    const mine = current();
    const varying = varyingFields(r.plans);
    for (const p of rows.slice(0, MAX_ROWS)) {
      const row = body.insertRow();
      const best = r.best && samePlan(p, r.best);
      row.className = `${feasible(p) ? '' : 'infeasible'}${p.pareto ? ' pareto' : ''}${mine && samePlan(p, mine) ? ' mine' : ''}${best ? ' objective-best' : ''}`;
      for (const c of COLUMNS) row.insertCell().textContent = c.value(p, varying);
      openableRow(row, `Open ${planLabel(p)}`, () => openPlan(p));
    }
    $('explore-caption').textContent = rows.length > MAX_ROWS
      ? `The first ${MAX_ROWS.toLocaleString('en-US')} of ${rows.length.toLocaleString('en-US')} plans by the sorted column. Click a column to sort, a row to open the plan.`
      : `All ${rows.length.toLocaleString('en-US')} plans. Click a column to sort, a row to open the plan.`;
  }

  function render() {
    renderBest();
    renderTable();
    renderScatter();
  }

  function csv() {
    const keys = [...PLAN_KEYS, 'num_gpus', 'iteration_time_s', 'training_days', 'gpu_hours', 'cost_usd', 'energy_MWh', 'mfu',
      'memory_GiB', 'fits_in_memory', 'within_gpu_limit', 'simulated', 'pareto'];
    return csvText(keys, view.result.plans.map((p) => keys.map((k) => p[k])));
  }

  function settingsChanged() {
    view.stale = true;
    showSettings();
    onSettingsChange();
    if (!$('view-explore').hidden) run();
  }

  spaceSelect.addEventListener('change', () => {
    view.space = spaceSelect.value;
    const known = CASES.find((c) => c.name === view.space);
    // A case study starts from its example's inputs.
    if (known && app.loadExampleByName) {
      view.budget = '';
      app.loadExampleByName(known.example);
    }
    settingsChanged();
  });
  budgetInput.addEventListener('change', () => {
    const text = budgetInput.value.trim();
    view.budget = text === String(app.values.num_gpus || '') ? '' : text;
    settingsChanged();
  });
  unfitBox.addEventListener('change', () => {
    view.unfit = unfitBox.checked;
    settingsChanged();
  });
  objectiveSelect.addEventListener('change', () => {
    view.objective = objectiveSelect.value;
    showDeadlineError('');
    settingsChanged();
    if (view.objective === 'deadline') deadlineInput.focus();
  });
  deadlineInput.addEventListener('change', () => {
    view.deadline = deadlineInput.value.trim();
    settingsChanged();
  });

  return {
    get result() {
      return view.result;
    },
    csv,
    run,
    /** Settings for the URL: {space, budget, unfit, objective, deadline}. */
    settings() {
      return {
        space: view.space,
        budget: view.budget,
        unfit: view.unfit,
        objective: view.objective,
        deadline: view.objective === 'deadline' ? view.deadline : null,
      };
    },
    /** Settings from a link; returns the [name, value] pairs it did not know. */
    applySettings({ space, budget: b, unfit, objective, deadline }) {
      const ignored = [];
      if (space && (space === 'grid' || space === 'all' || CASES.some((c) => c.name === space))) view.space = space;
      else if (space) ignored.push(['space', space]);
      if (b != null) view.budget = b;
      if (unfit != null) view.unfit = unfit;
      if (objective && Object.hasOwn(OBJECTIVES, objective)) view.objective = objective;
      else if (objective) ignored.push(['objective', objective]);
      if (deadline != null && deadline !== '') view.deadline = deadline;
      showSettings();
      return ignored;
    },
    /** The view became visible: sweep when the inputs changed since the last sweep. */
    shown() {
      showSettings();
      if (view.stale && !controls.running) run();
      else if (view.result) renderScatter();
    },
    inputsChanged() {
      view.stale = true;
      showSettings();
      markStale(true);
      if (view.result && !controls.running) setStatus('The inputs changed: explore again to update the plans.');
    },
    /** An example was loaded: a case study's grid stays only with its own example. */
    exampleLoaded(name) {
      const known = CASES.find((c) => c.name === view.space);
      if (known && known.example !== name) {
        view.space = 'grid';
        onSettingsChange();
      }
      showSettings();
    },
    /** Keeps the last sweep's GPU budget when the cluster's GPU count is about to change. */
    pinBudget() {
      if (!view.budget && view.result) view.budget = String(view.result.question.max_gpus);
      showSettings();
    },
    /** The Plan view opened one of the plans: the sweep still holds, only "your plan" moved. */
    planOpened() {
      if (view.result) {
        renderBest();
        renderTable();
      }
    },
  };
}

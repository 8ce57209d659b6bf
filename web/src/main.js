// The calculator page: inputs on the left, the Plan, Explore and Compute-optimal views on the
// right, everything simulated in a worker by the WebAssembly module. The URL always holds the inputs.
import './style.css';
import { createVtrain } from '../lib/vtrain.js';
import { FIELDS, SECTIONS, MODEL_KEYS, FIELD_BY_KEY, fieldForPointer, fieldMessage } from './fields.js';
import { readQuery, writeQuery } from './state.js';
import * as fmt from './format.js';
import { PARTS, drawBreakdown, drawMemory, drawTimeline, loadPlotly } from './charts.js';
import { createExploreView } from './explore.js';
import { h, errorList, fieldElement, markFieldErrors } from './form.js';
import { createOptimalView } from './optimal.js';
import { renderOperators } from './operators.js';

performance.mark('vtrain:boot');

const $ = (id) => document.getElementById(id);
/** A sentence of the simulator's (lower-case first word) as the page shows it. */
const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);

const DEFAULT_EXAMPLE = 'gpt3-175b';

const app = {
  vtrain: null,
  models: [], // model presets: {name, description, model}
  examples: [], // {name, description, config (every field explicit)}
  profiles: [],
  preset: null, // model preset name, or null for a custom shape
  values: {}, // field key -> text as typed
  view: 'plan',
  embed: false,
  seq: 0, // increases with every simulation request; older replies are dropped
  result: null, // last good result (no timeline) and the config that gave it
  config: null,
  timeline: null, // the same run with its timeline, once fetched
  rendered: 0,
  explore: null,
  optimal: null,
  optimalPresets: [], // the simulator's compute-optimal presets: {name, request}
  coreErrors: [], // the simulator's errors for the last inputs it saw
};

// ---------------------------------------------------------------- inputs

function toText(v) {
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number') return fmt.fieldValue(v);
  return v == null ? '' : String(v);
}

function presetModel(name) {
  const m = app.models.find((p) => p.name === name);
  if (!m) return null;
  const shape = {};
  for (const k of MODEL_KEYS) shape[k] = toText(m.model[k]);
  return shape;
}

function inputOf(f) {
  return $(f.id);
}

function showValue(f) {
  const input = inputOf(f);
  if (!input) return;
  const v = app.values[f.key] ?? '';
  if (f.kind === 'bool') input.checked = v === 'true';
  else if (f.kind === 'select') {
    if (v !== '' && ![...input.options].some((o) => o.value === v)) input.append(h('option', { value: v, text: v }));
    input.value = v;
  } else if (input.value !== v) input.value = v;
}

function setValues(values) {
  Object.assign(app.values, values);
  for (const f of FIELDS) showValue(f);
  showPreset();
  updatePlaceholders();
}

function showPreset() {
  const sel = $('f-model-preset');
  if (sel) sel.value = app.preset && app.models.some((m) => m.name === app.preset) ? app.preset : 'custom';
}

// The model preset the current shape equals, if any (after an edit, or for a custom link).
function matchPreset() {
  const want = app.preset ? [app.preset, ...app.models.map((m) => m.name)] : app.models.map((m) => m.name);
  for (const name of want) {
    const shape = presetModel(name);
    if (shape && MODEL_KEYS.every((k) => shape[k] === (app.values[k] ?? ''))) return name;
  }
  return null;
}

function updatePlaceholders() {
  const profile = app.profiles.find((p) => p.name === app.values.gpu);
  const hw = profile ? profile.hardware : null;
  const intra = $('f-cluster-intra_node_GBps');
  const inter = $('f-cluster-inter_node_Gbps');
  if (intra) intra.placeholder = hw ? `${hw.intra_node_GBps} (GPU default)` : '';
  if (inter) inter.placeholder = hw ? `${hw.inter_node_Gbps} (GPU default)` : '';
}

function renderForm() {
  const root = $('fields');
  root.textContent = '';
  for (const section of SECTIONS) {
    const fs = h('fieldset', { id: `section-${section.id}` }, h('legend', { text: section.title }));
    const grid = h('div', { class: 'grid' });
    if (section.id === 'model') {
      const sel = h('select', { id: 'f-model-preset', name: 'model' });
      for (const m of app.models) sel.append(h('option', { value: m.name, text: m.description }));
      sel.append(h('option', { value: 'custom', text: 'Custom shape' }));
      grid.append(
        h('div', { class: 'field select wide' }, h('label', { for: 'f-model-preset', text: 'Preset' }), h('div', { class: 'control' }, sel)),
      );
      sel.addEventListener('change', () => {
        if (sel.value === 'custom') {
          app.preset = null;
        } else {
          app.preset = sel.value;
          setValues(presetModel(sel.value));
        }
        scheduleSimulate(0);
      });
    }
    const fields = FIELDS.filter((f) => f.section === section.id);
    for (const f of fields.filter((x) => !x.advanced)) grid.append(fieldElement(f));
    fs.append(grid);
    const advanced = fields.filter((x) => x.advanced);
    if (advanced.length) {
      const more = h('div', { class: 'grid' });
      for (const f of advanced) more.append(fieldElement(f));
      fs.append(h('details', { class: 'more', id: `more-${section.id}` }, h('summary', { text: `More ${section.title.toLowerCase()} options` }), more));
    }
    root.append(fs);
  }
  const gpu = $('f-cluster-gpu');
  for (const p of app.profiles) gpu.append(h('option', { value: p.name, text: p.display_name || p.name }));

  root.addEventListener('input', onFieldEdit);
  root.addEventListener('change', onFieldEdit);
}

const positiveInt = (text) => {
  const v = fmt.parseNumber(text ?? '');
  return v != null && Number.isInteger(v) && v > 0 ? v : null;
};

function onFieldEdit(event) {
  const target = event.target;
  const f = FIELD_BY_KEY.get(target.name);
  if (!f || target.id !== f.id) return;
  if (event.type === 'input' && (f.kind === 'select' || f.kind === 'bool')) return;
  if (event.type === 'change' && f.kind !== 'select' && f.kind !== 'bool') return;
  app.values[f.key] = f.kind === 'bool' ? String(target.checked) : target.value;
  // GPUs = tp x pp x dp: a change to one side keeps the other in step.
  if (['tp', 'pp', 'dp'].includes(f.key)) {
    const [tp, pp, dp] = ['tp', 'pp', 'dp'].map((k) => positiveInt(app.values[k]));
    if (tp && pp && dp) {
      app.values.num_gpus = String(tp * pp * dp);
      showValue(FIELD_BY_KEY.get('num_gpus'));
    }
  } else if (f.key === 'num_gpus') {
    const [n, tp, pp] = ['num_gpus', 'tp', 'pp'].map((k) => positiveInt(app.values[k]));
    if (n && tp && pp && n % (tp * pp) === 0) {
      app.values.dp = String(n / (tp * pp));
      showValue(FIELD_BY_KEY.get('dp'));
    }
  } else if (f.key === 'gpu') {
    updatePlaceholders();
  }
  if (f.section === 'model') {
    app.preset = matchPreset();
    showPreset();
  }
  scheduleSimulate(f.kind === 'select' || f.kind === 'bool' ? 0 : 200);
}

// The config the simulator gets, or the fields that are not numbers yet.
function buildConfig() {
  const config = { model: {}, cluster: {}, plan: {}, training: {} };
  const errors = [];
  for (const f of FIELDS) {
    const raw = String(app.values[f.key] ?? '').trim();
    const out = config[f.section];
    if (f.kind === 'bool') {
      out[f.key] = raw === 'true';
      continue;
    }
    if (f.kind === 'select') {
      out[f.key] = f.key === 'zero_stage' ? Number(raw) : raw;
      continue;
    }
    if (raw === '') {
      if (!f.optional) errors.push({ code: 'missing', pointer: f.pointer, message: `${f.pointer}: enter a value` });
      continue;
    }
    const v = fmt.parseNumber(raw);
    if (v == null) errors.push({ code: 'type', pointer: f.pointer, message: `${f.pointer}: enter a number` });
    else if (f.kind === 'int' && !Number.isInteger(v)) errors.push({ code: 'type', pointer: f.pointer, message: `${f.pointer}: enter a whole number` });
    else out[f.key] = v;
  }
  config.model.name = app.preset || 'custom';
  return { config, errors };
}

function showErrors(errors) {
  return markFieldErrors({
    fields: FIELDS,
    errors,
    lookup: fieldForPointer,
    message: (e, f) => fieldMessage(e.message, f ? (f.pointer === e.pointer ? e.pointer : null) : e.pointer),
    box: $('form-error'),
  });
}

// ---------------------------------------------------------------- simulation

let timer = 0;
function scheduleSimulate(delay = 200) {
  clearTimeout(timer);
  queueUrlSync();
  if (app.explore) app.explore.inputsChanged();
  timer = setTimeout(() => simulateNow(), delay);
}

async function simulateNow() {
  clearTimeout(timer);
  const seq = ++app.seq;
  queueUrlSync();
  const { config, errors } = buildConfig();
  if (errors.length) {
    // The simulator's last word on the other fields still holds until they can be checked again.
    const typed = new Set(errors.map((e) => e.pointer));
    showErrors([...errors, ...app.coreErrors.filter((e) => !typed.has(e.pointer))]);
    showStale(true);
    return false;
  }
  try {
    const result = await app.vtrain.simulate({ ...config, output: { timeline: false, operators: !app.embed } });
    if (seq !== app.seq) return false;
    app.coreErrors = [];
    showErrors([]);
    app.result = result;
    app.config = config;
    app.timeline = null;
    renderResult(result, seq);
    fetchTimeline(seq, config);
    return true;
  } catch (e) {
    if (seq !== app.seq || e.code === 'cancelled') return false;
    app.coreErrors = errorList(e);
    showErrors(app.coreErrors);
    showStale(true);
    return false;
  }
}

async function fetchTimeline(seq, config) {
  if (app.embed) return;
  try {
    // The timeline can be megabytes; it is computed beside, not before, the next quick result.
    const full = await app.vtrain.simulate({ ...config, output: { timeline: true, operators: true } }, { priority: 'low' });
    if (seq !== app.seq) return;
    app.timeline = full;
    if (app.view === 'plan') drawTimelineNow(seq);
  } catch (e) {
    if (seq === app.seq && e.code !== 'cancelled') setChartMessage($('chart-timeline'), 'The timeline could not be computed.');
  }
}

function setChartMessage(el, text) {
  el.textContent = '';
  el.append(h('div', { class: 'placeholder', text }));
}

let timelineDrawn = 0;
function drawTimelineNow(seq) {
  const el = $('chart-timeline');
  const r = app.timeline;
  if (!r || timelineDrawn === seq) return;
  timelineDrawn = seq;
  if (!r.timeline || r.timeline.length === 0) {
    const omitted = r.warnings.find((w) => w.code === 'timeline_omitted');
    setChartMessage(el, omitted ? capital(omitted.message) : 'No timeline for this run.');
    return;
  }
  drawTimeline(el, r).then(() => {
    if (seq === app.seq) document.body.dataset.timeline = String(seq);
  });
}

function showStale(stale) {
  $('results').classList.toggle('stale', stale && Boolean(app.result));
  const status = $('status');
  if (stale) {
    status.textContent = app.result
      ? 'Fix the marked inputs to update the result; the numbers below are from the last valid inputs.'
      : 'Fix the marked inputs to see a result.';
    status.classList.add('bad');
    $('card-status').textContent = 'This link has invalid inputs.';
  } else {
    status.textContent = '';
    status.classList.remove('bad');
  }
}

function gpuName(config) {
  const p = app.profiles.find((x) => x.name === config.cluster.gpu);
  return p ? (p.display_name || p.name).replace(/^NVIDIA /, '') : config.cluster.gpu;
}

function modelName(result) {
  const name = result.config.model.name;
  const m = app.models.find((x) => x.name === name);
  return m ? m.description : 'Custom model';
}

function planText(c) {
  const p = c.plan;
  const parts = [`tp ${p.tp}`, `pp ${p.pp}`, `dp ${p.dp}`];
  if (p.virtual_stages > 1) parts.push(`${p.virtual_stages} virtual stages`);
  parts.push(`micro-batch ${p.micro_batch}`, `global batch ${p.global_batch.toLocaleString('en-US')}`, `recompute ${p.recompute}`);
  if (p.sequence_parallel) parts.push('sequence parallel');
  if (p.zero_stage) parts.push(`ZeRO-${p.zero_stage}`);
  return parts.join(' · ');
}

// "26.44 s" shows as a large number and a smaller unit.
// `raw` (the unrounded number) is kept in data-value for anyone who reads the page.
function setKpi(id, value, sub, bad = false, raw = undefined) {
  const out = $(id);
  if (typeof raw === 'number' && Number.isFinite(raw)) out.dataset.value = String(raw);
  else delete out.dataset.value;
  const cut = value.indexOf(' ');
  out.textContent = cut < 0 ? value : value.slice(0, cut);
  if (cut >= 0) out.append(h('span', { class: 'kpi-unit', text: value.slice(cut + 1) }));
  $(`${id}-sub`).textContent = sub || '';
  $(id).closest('.kpi').classList.toggle('bad', bad);
}

function renderResult(r, seq) {
  showStale(false);
  const c = r.config;
  const nodes = Math.ceil(c.cluster.num_gpus / c.cluster.gpus_per_node);
  $('headline').textContent = '';
  $('headline').append(
    h('strong', { text: modelName(r) }),
    ` (${fmt.count(r.parameters.total)} parameters) on ${c.cluster.num_gpus.toLocaleString('en-US')} × ${gpuName(c)}, ${nodes.toLocaleString('en-US')} node${nodes === 1 ? '' : 's'}`,
    h('br'),
    h('span', { class: 'plan', text: `${planText(c)} · ${r.micro_batches} micro-batches per iteration` }),
  );
  setKpi('kpi-iteration', fmt.duration(r.iteration_time_s), `${fmt.duration(r.breakdown_s.pipeline_bubble)} of it pipeline bubble`, false, r.iteration_time_s);
  const t = r.training;
  setKpi('kpi-days', t ? fmt.days(r.training_days) : fmt.DASH, t ? `${fmt.count(t.iterations)} iterations, ${fmt.count(t.tokens)} tokens` : 'set training tokens', false, r.training_days);
  setKpi(
    'kpi-cost',
    r.cost_usd != null ? fmt.usd(r.cost_usd) : fmt.DASH,
    t ? `${fmt.count(t.gpu_hours)} GPU-hours${r.cost_usd != null ? ` at ${fmt.usd(c.cluster.price_per_gpu_hour_usd)}` : ''}, ${fmt.sig(t.energy_MWh)} MWh` : 'set training tokens',
    false,
    r.cost_usd,
  );
  setKpi('kpi-mfu', fmt.percent(r.mfu), `HFU ${fmt.percent(r.hfu)}`, false, r.mfu);
  setKpi('kpi-tps', fmt.count(r.tokens_per_s), `${fmt.sig(r.tflops_per_gpu)} TFLOP/s per GPU`, false, r.tokens_per_s);
  setKpi(
    'kpi-mem',
    `${fmt.gib(r.memory_GiB.total)}`,
    r.fits_in_memory ? `fits in ${fmt.gib(r.memory_capacity_GiB)}` : `over the ${fmt.gib(r.memory_capacity_GiB)} capacity`,
    !r.fits_in_memory,
  );
  // The memory warning gets what to do about it.
  const advice = '. More recomputation, ZeRO-1 or more pipeline stages lower it; Explore plans lists the plans that fit.';
  const warnings = r.warnings
    .filter((w) => w.code !== 'timeline_omitted')
    .map((w) => capital(w.message) + (w.code === 'out_of_memory' ? advice : ''));
  $('accuracy').textContent = accuracyNote(r);
  $('accuracy').hidden = !r.accuracy;
  const list = $('warnings');
  list.textContent = '';
  for (const w of warnings) list.append(h('li', { text: w }));
  list.hidden = warnings.length === 0;
  $('breakdown-note').textContent = `stage ${r.breakdown_stage}, the busiest`;
  if (!app.embed) renderOperators($('ops-figure'), $('ops-table'), $('ops-note'), r);
  $('memory-note').textContent = `stage ${r.memory_stage}, the fullest`;

  const answer = r.training ? [fmt.days(r.training_days), r.cost_usd != null ? fmt.usd(r.cost_usd) : null] : [`${fmt.duration(r.iteration_time_s)} per iteration`];
  document.title = `${modelName(r)} on ${fmt.gpus(c.cluster.num_gpus)}: ${answer.filter(Boolean).join(', ')} · vtrain`;
  app.rendered = seq;
  $('results').dataset.rendered = String(seq);
  performance.mark('vtrain:result');
  renderCard(r);
  updateExamplesPressed();

  // Charts after the numbers have been painted.
  if (!app.embed) {
    setTimeout(() => {
      if (seq !== app.seq) return;
      const charts = [];
      if (app.view === 'plan') {
        charts.push(drawBreakdown($('chart-breakdown'), r), drawMemory($('chart-memory'), r));
      }
      Promise.all(charts).then(() => {
        if (seq === app.seq) document.body.dataset.charts = String(seq);
      });
    }, 0);
  }
}

// ---------------------------------------------------------------- embed card

function renderCard(r) {
  if (!app.embed) return;
  const c = r.config;
  $('card-title').textContent = `${modelName(r)} on ${c.cluster.num_gpus.toLocaleString('en-US')} × ${gpuName(c)}`;
  $('card-sub').textContent = planText(c);
  $('card-iteration').textContent = fmt.duration(r.iteration_time_s);
  $('card-days').textContent = r.training ? fmt.days(r.training_days) : fmt.DASH;
  $('card-cost').textContent = r.cost_usd != null ? fmt.usd(r.cost_usd) : fmt.DASH;
  $('card-mfu').textContent = fmt.percent(r.mfu);
  const bar = $('card-bar');
  const legend = $('card-legend');
  bar.textContent = '';
  legend.textContent = '';
  for (const p of PARTS) {
    const v = r.breakdown_s[p.key];
    if (!(v > 0)) continue;
    const share = v / r.iteration_time_s;
    bar.append(h('span', { style: `width:${(share * 100).toFixed(3)}%;background:${p.color}`, title: `${p.label} ${fmt.percent(share)}` }));
    if (share >= 0.02) legend.append(h('li', {}, h('i', { style: `background:${p.color}` }), `${p.label} ${fmt.percent(share, 0)}`));
  }
  const memory = r.fits_in_memory ? `${fmt.gib(r.memory_GiB.total)} of ${fmt.gib(r.memory_capacity_GiB)} per GPU` : 'does not fit in GPU memory';
  $('card-status').textContent = r.accuracy
    ? `${memory} · ±${fmt.percent(r.accuracy.mape_percent / 100)} on ${r.accuracy.set === 'published' ? 'published' : 'measured'} runs`
    : memory;
}

// What the profile's record says about runs like this plan: the calibration runs of its kind, or,
// beyond their GPU counts, the published runs that no fit saw.
function accuracyNote(r) {
  const acc = r.accuracy;
  if (!acc) return '';
  const off = (a) => fmt.percent(a.mape_percent / 100);
  const range = ([lo, hi]) => (lo === hi ? lo.toLocaleString('en-US') : `${lo.toLocaleString('en-US')} to ${hi.toLocaleString('en-US')}`);
  const span = (a) => {
    const parts = [a.gpus ? `${range(a.gpus)} GPUs` : '', a.hidden ? `hidden ${range(a.hidden)}` : ''].filter(Boolean);
    return parts.length ? ` (${parts.join(', ')})` : '';
  };
  if (acc.set === 'published') {
    const also = (r.accuracy_also || [])
      .map((a) => ` On ${a.measured_runs} published ${a.framework} runs${span(a)}, by ${off(a)}.`)
      .join('');
    return `This plan is larger than the calibration runs. On ${acc.measured_runs} published ${acc.framework} runs${span(acc)}, which no fit saw, this profile's iteration times were off by ${off(acc)} on average.${also}`;
  }
  const kind = acc.set === 'single-node' ? 'runs on one node' : 'runs across nodes';
  return `On ${acc.measured_runs} measured ${kind}${span(acc)}, this profile's iteration times were off by ${off(acc)} on average (${acc.held_out ? 'each predicted by a fit that had not seen it' : 'the runs it was fitted to'}).`;
}

// ---------------------------------------------------------------- URL, sharing, downloads

function currentQuery({ embed = false, view = app.view } = {}) {
  const explore = app.explore && !embed ? app.explore.settings() : null;
  const optimal = app.optimal && !embed ? app.optimal.settings() : null;
  return writeQuery({ preset: app.preset, values: app.values, view, embed, explore, optimal }, app.preset ? presetModel(app.preset) : null);
}

function pageUrl(query) {
  return `${location.origin}${location.pathname}?${query}`;
}

// Updating the address costs the browser a few milliseconds, so it waits until the result is shown.
let urlTimer = 0;
function queueUrlSync() {
  clearTimeout(urlTimer);
  urlTimer = setTimeout(syncUrl, 60);
}

function syncUrl() {
  clearTimeout(urlTimer);
  const query = currentQuery({ embed: app.embed });
  if (location.search !== `?${query}`) history.replaceState(null, '', `?${query}`);
  const embedUrl = pageUrl(currentQuery({ embed: true, view: 'plan' }));
  const title = app.preset ? `vtrain: ${app.preset} training time and cost` : 'vtrain: training time and cost';
  $('embed-snippet').value = `<iframe src="${embedUrl.replace(/&/g, '&amp;')}" title="${title}" width="560" height="320" style="border:0;max-width:100%" loading="lazy"></iframe>`;
  $('embed-preview').href = embedUrl;
  $('card-open').href = pageUrl(currentQuery({ embed: false, view: 'plan' }));
}

let toastTimer = 0;
function toast(text) {
  const t = $('toast');
  t.textContent = text;
  t.classList.add('show');
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => t.classList.remove('show'), 2200);
}

async function copyText(text, what) {
  try {
    await navigator.clipboard.writeText(text);
    toast(`${what} copied`);
  } catch {
    // No clipboard permission: show the text selected so it can be copied by hand.
    window.prompt(`Copy the ${what.toLowerCase()}:`, text);
  }
}

function download(name, type, text) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = h('a', { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function csvCell(v) {
  const s = v == null ? '' : String(v);
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function toCsv(rows) {
  return `${rows.map((r) => r.map(csvCell).join(',')).join('\n')}\n`;
}

function planCsv(r) {
  const rows = [['quantity', 'value', 'unit']];
  const add = (q, v, u) => {
    if (typeof v === 'number' && Number.isFinite(v)) rows.push([q, v, u]);
  };
  add('iteration_time', r.iteration_time_s, 's');
  for (const p of PARTS) add(`breakdown.${p.key}`, r.breakdown_s[p.key], 's');
  add('training_days', r.training_days, 'days');
  add('cost', r.cost_usd, 'USD');
  if (r.training) {
    add('iterations', r.training.iterations, 'count');
    add('gpu_hours', r.training.gpu_hours, 'GPU-hours');
    add('energy', r.training.energy_MWh, 'MWh');
  }
  add('mfu', r.mfu, 'fraction');
  add('hfu', r.hfu, 'fraction');
  add('tokens_per_s', r.tokens_per_s, 'tokens/s');
  add('tflops_per_gpu', r.tflops_per_gpu, 'TFLOP/s');
  for (const [k, v] of Object.entries(r.memory_GiB)) add(`memory.${k}`, v, 'GiB');
  add('memory_capacity', r.memory_capacity_GiB, 'GiB');
  for (const o of r.operators || []) {
    for (const phase of ['forward', 'recompute', 'backward']) add(`operators.${o.block}.${o.name}.${phase}`, o[`${phase}_s`], 's');
  }
  rows.push(['fits_in_memory', r.fits_in_memory, '']);
  return toCsv(rows);
}

function fileStem() {
  const c = app.result ? app.result.config : null;
  if (!c) return 'vtrain';
  return `vtrain-${c.model.name}-${c.cluster.num_gpus}gpu-tp${c.plan.tp}-pp${c.plan.pp}-dp${c.plan.dp}`;
}

function downloadJson() {
  if (app.view === 'optimal') {
    if (!app.optimal.result) return toast('No answer to download yet');
    const body = { link: location.href, request: app.optimal.request, result: app.optimal.result };
    download(`${app.optimal.fileStem()}.json`, 'application/json', JSON.stringify(body, null, 2));
    return;
  }
  if (app.view === 'explore' && app.explore.result) {
    download(`${fileStem()}-plans.json`, 'application/json', JSON.stringify(app.explore.result, null, 2));
    return;
  }
  if (!app.result) return toast('No result to download yet');
  const r = app.timeline || app.result;
  download(`${fileStem()}.json`, 'application/json', JSON.stringify({ link: location.href, result: r }, null, 2));
}

function downloadCsv() {
  if (app.view === 'optimal') {
    if (!app.optimal.result) return toast('No answer to download yet');
    download(`${app.optimal.fileStem()}-sizes.csv`, 'text/csv', app.optimal.csv());
    return;
  }
  if (app.view === 'explore' && app.explore.result) {
    download(`${fileStem()}-plans.csv`, 'text/csv', app.explore.csv());
    return;
  }
  if (!app.result) return toast('No result to download yet');
  download(`${fileStem()}.csv`, 'text/csv', planCsv(app.result));
}

// ---------------------------------------------------------------- examples and views

function exampleLabel(ex) {
  const m = app.models.find((x) => x.name === (typeof ex.config.model === 'string' ? ex.config.model : ex.config.model.name));
  const model = m ? m.description : ex.name;
  return `${model} · ${fmt.gpus(ex.config.cluster.num_gpus)}`;
}

function configValues(config) {
  const values = {};
  for (const f of FIELDS) {
    const v = config[f.section][f.key];
    values[f.key] = v === undefined ? '' : toText(v);
  }
  return values;
}

function exampleValues(ex) {
  return configValues(ex.config);
}

function renderExamples() {
  const list = $('examples');
  for (const ex of app.examples) {
    list.append(
      h('button', {
        type: 'button',
        'data-example': ex.name,
        title: ex.description,
        'aria-pressed': 'false',
        text: exampleLabel(ex),
        onclick: () => loadExample(ex),
      }),
    );
  }
}

function loadExampleByName(name) {
  const ex = app.examples.find((e) => e.name === name);
  return ex ? loadExample(ex) : Promise.resolve(false);
}

function loadExample(ex) {
  app.preset = ex.config.model.name;
  app.values = {};
  setValues(exampleValues(ex));
  if (app.explore) {
    app.explore.exampleLoaded(ex.name);
    app.explore.inputsChanged();
  }
  return simulateNow();
}

function updateExamplesPressed() {
  for (const b of $('examples').querySelectorAll('button')) {
    const ex = app.examples.find((e) => e.name === b.dataset.example);
    const values = exampleValues(ex);
    const same = app.preset === ex.config.model.name && FIELDS.every((f) => (values[f.key] ?? '') === (app.values[f.key] ?? ''));
    b.setAttribute('aria-pressed', String(same));
  }
}

const VIEW_TABS = ['plan', 'explore', 'optimal'];

function showView(view, { focus = false } = {}) {
  app.view = view;
  // The Compute-optimal view has inputs of its own; the examples and the embed card are the Plan's.
  const optimal = view === 'optimal';
  $('inputs').hidden = optimal;
  $('optimal-inputs').hidden = !optimal;
  $('jump-inputs').href = optimal ? '#optimal-inputs' : '#inputs';
  document.querySelector('nav.examples').hidden = optimal;
  $('show-embed').hidden = optimal;
  if (optimal) {
    $('embed-panel').hidden = true;
    $('show-embed').setAttribute('aria-expanded', 'false');
  }
  for (const v of VIEW_TABS) {
    const tab = $(`tab-${v}`);
    const on = v === view;
    tab.setAttribute('aria-selected', String(on));
    tab.tabIndex = on ? 0 : -1;
    $(`view-${v}`).hidden = !on;
    if (on && focus) tab.focus();
  }
  syncUrl();
  if (view === 'plan' && app.result) {
    // Charts drawn while hidden have no size: redraw now that the view shows.
    const r = app.result;
    const seq = app.seq;
    Promise.all([drawBreakdown($('chart-breakdown'), r), drawMemory($('chart-memory'), r)]).then(() => {
      if (seq === app.seq) document.body.dataset.charts = String(seq);
    });
    timelineDrawn = 0;
    drawTimelineNow(seq);
  }
  if (view === 'explore') app.explore.shown();
  if (view === 'optimal') app.optimal.shown();
}

function wireTabs() {
  const tabs = VIEW_TABS;
  for (const v of tabs) {
    const tab = $(`tab-${v}`);
    tab.addEventListener('click', () => showView(v));
    tab.addEventListener('keydown', (e) => {
      if (e.key !== 'ArrowRight' && e.key !== 'ArrowLeft') return;
      const next = tabs[(tabs.indexOf(v) + (e.key === 'ArrowRight' ? 1 : tabs.length - 1)) % tabs.length];
      showView(next, { focus: true });
    });
  }
}

function wireActions() {
  $('copy-link').addEventListener('click', () => {
    syncUrl();
    copyText(location.href, 'Link');
  });
  $('download-json').addEventListener('click', downloadJson);
  $('download-csv').addEventListener('click', downloadCsv);
  $('show-embed').addEventListener('click', () => {
    syncUrl();
    const panel = $('embed-panel');
    panel.hidden = !panel.hidden;
    $('show-embed').setAttribute('aria-expanded', String(!panel.hidden));
  });
  $('copy-embed').addEventListener('click', () => copyText($('embed-snippet').value, 'Snippet'));
}

/** Puts an explored plan into the inputs and shows it in the Plan view. */
function openPlan(plan) {
  const keys = ['tp', 'pp', 'dp', 'virtual_stages', 'micro_batch', 'recompute', 'sequence_parallel', 'zero_stage', 'num_gpus'];
  const values = {};
  for (const k of keys) if (plan[k] !== undefined) values[k] = toText(plan[k]);
  // The sweep's GPU budget stays what it was, though this plan may use fewer GPUs.
  app.explore.pinBudget();
  setValues(values);
  showView('plan');
  return simulateNow().then((ok) => {
    app.explore.planOpened();
    return ok;
  });
}

/** Puts a whole simulate config (e.g. a compute-optimal answer's model and plan) into the Plan view. */
async function openConfig(config) {
  let full;
  try {
    full = await app.vtrain.validateConfig(config);
  } catch (e) {
    toast(`This plan could not be opened: ${e.message || e}`);
    return false;
  }
  app.preset = null;
  app.values = configValues(full);
  app.preset = matchPreset();
  setValues({});
  app.explore.inputsChanged();
  showView('plan');
  return simulateNow();
}

// ---------------------------------------------------------------- start

// A link that names a model, view, objective or sweep this page does not know opens with the
// defaults in their place, and says so above the results.
function showLinkNotice(ignored) {
  const el = $('link-notice');
  el.hidden = ignored.length === 0;
  el.textContent = ignored.length
    ? `This link names ${ignored.map(([k, v]) => `${k} "${v}"`).join(', ')}, which this page does not know; ` +
      'the defaults stand in their place.'
    : '';
}

async function boot() {
  const query = readQuery(location.search);
  app.embed = query.embed;
  app.view = query.view;
  document.body.classList.toggle('embed', app.embed);
  $('embed-card').hidden = !app.embed;
  try {
    app.vtrain = await createVtrain();
    const [presets, profiles] = await Promise.all([app.vtrain.presets(), app.vtrain.profiles()]);
    app.models = presets.models;
    app.optimalPresets = presets.optimal || [];
    app.profiles = profiles;
    // Examples with every field explicit, so loading one sets every input.
    app.examples = await Promise.all(
      presets.examples.map(async (ex) => ({ ...ex, config: await app.vtrain.validateConfig(ex.config) })),
    );
  } catch (e) {
    $('status').textContent = `The simulator could not start: ${e.message || e}`;
    $('status').classList.add('bad');
    $('card-status').textContent = 'The simulator could not start.';
    return;
  }
  renderForm();
  renderExamples();
  wireTabs();
  wireActions();
  app.loadExampleByName = loadExampleByName;
  app.explore = createExploreView({ app, openPlan, buildConfig, showErrors, onSettingsChange: queueUrlSync });
  const ignored = [...query.ignored, ...app.explore.applySettings(query.explore)];
  app.optimal = createOptimalView({ app, openConfig, onSettingsChange: queueUrlSync });
  app.optimal.applySettings(query.optimal);

  const base = app.examples.find((e) => e.name === DEFAULT_EXAMPLE) || app.examples[0];
  app.preset = base.config.model.name;
  app.values = exampleValues(base);
  if (query.hasInputs) {
    // A link that names a model with an example starts from that example, not from GPT-3's plan.
    const own = app.examples.find((e) => e.config.model.name === query.preset);
    if (own) app.values = exampleValues(own);
    if (query.preset && query.preset !== 'custom') {
      app.preset = query.preset;
      const shape = presetModel(query.preset);
      if (shape) Object.assign(app.values, shape);
      else {
        ignored.push(['model', query.preset]);
        app.preset = null;
      }
    } else {
      app.preset = null;
    }
    Object.assign(app.values, query.values);
    // A hand-written link that sets a parallel degree but not the GPU count gets the product,
    // as editing the degree in the form does.
    const degrees = ['tp', 'pp', 'dp'].map((k) => fmt.parseNumber(app.values[k] ?? ''));
    if (query.values.num_gpus == null && ['tp', 'pp', 'dp'].some((k) => query.values[k] != null) && degrees.every((d) => Number.isInteger(d) && d > 0)) {
      app.values.num_gpus = String(degrees[0] * degrees[1] * degrees[2]);
    }
    if (app.preset && !MODEL_KEYS.every((k) => presetModel(app.preset)[k] === app.values[k])) app.preset = matchPreset();
  }
  showLinkNotice(ignored);
  setValues({});
  showView(app.view);
  await simulateNow();
  performance.mark('vtrain:interactive');
  document.body.dataset.ready = 'true';
  // Plotly starts loading once the first numbers are on screen, then the other workers start, so
  // the first sweep does not wait for a module to load.
  if (!app.embed) {
    loadPlotly()
      .catch(() => {})
      .then(() => app.vtrain.warmUp())
      .then(() => {
        document.body.dataset.warm = 'true';
      })
      .catch(() => {});
  }
  if (app.view === 'explore') app.explore.shown();
}

boot();

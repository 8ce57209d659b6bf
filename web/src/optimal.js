// The Compute-optimal view: which model a budget buys. Its own inputs (budget, cluster, batch,
// family, scaling law) replace the Plan inputs on the left; the answer runs in the sweep worker
// (a sweep per candidate size) with a progress bar and Cancel. Two answers side by side: the
// scaling law's FLOP-only optimum (GPUs at peak) and the best model the simulated plans really
// train within the budget, then iso-budget charts of loss and of training days (or cost).
import * as fmt from './format.js';
import { loadPlotly, VIEW_CONFIG, VIEW_LAYOUT, VIEW_LEGEND } from './charts.js';
import { planLabel, logTicks, tickNumber } from './explore.js';
import { h, errorList, fieldElement, markFieldErrors } from './form.js';
import { BUDGET_KINDS } from './state.js';
import { csvText, openableRow, runControls } from './sweep.js';

const $ = (id) => document.getElementById(id);

const BUDGETS = {
  days: { label: 'days on the cluster', unit: 'days', help: 'wall-clock time on up to the GPUs below' },
  usd: { label: 'dollars', unit: 'USD', help: 'GPU-hours at the price below; e.g. 10M' },
  gpu_hours: { label: 'GPU-hours', unit: 'GPU-hours', help: 'e.g. 2M; their cost at the price below' },
  flops: { label: 'FLOPs at the GPUs’ peak', unit: 'FLOP', help: 'e.g. 1e24, spent on all the GPUs below' },
};

const FITS = [
  ['hoffmann2022', 'Hoffmann et al. 2022 (Chinchilla)'],
  ['besiroglu2024', 'Besiroglu et al. 2024'],
];
const FIT_NAMES = { hoffmann2022: 'Hoffmann et al. 2022', besiroglu2024: 'Besiroglu et al. 2024' };

const SECTIONS = [
  { id: 'budget', title: 'Budget' },
  { id: 'cluster', title: 'Cluster' },
  { id: 'training', title: 'Training' },
  { id: 'scaling', title: 'Scaling law' },
];

// Every input of the view; `pointer` is how the simulator names it in errors, `when` the scaling
// choice that shows it.
export const OPTIMAL_FIELDS = [
  { section: 'budget', key: 'budget_kind', label: 'Budget in', kind: 'select', wide: true, options: BUDGET_KINDS.map((k) => [k, BUDGETS[k].label]) },
  { section: 'budget', key: 'budget', pointer: '/budget', label: 'Amount', kind: 'number', wide: true, unit: 'days', help: BUDGETS.days.help },
  {
    section: 'budget', key: 'deadline_days', pointer: '/budget/days', label: 'Within', kind: 'number', wide: true, unit: 'days',
    help: 'optional: the days the run must finish in; blank, the cheapest plans, however long', optional: true, money: true,
  },
  { section: 'cluster', key: 'gpu', pointer: '/cluster/gpu', label: 'GPU', kind: 'select', wide: true, options: [] },
  { section: 'cluster', key: 'num_gpus', pointer: '/cluster/num_gpus', label: 'At most', kind: 'int', unit: 'GPUs' },
  { section: 'cluster', key: 'gpus_per_node', pointer: '/cluster/gpus_per_node', label: 'GPUs per node', kind: 'int' },
  { section: 'cluster', key: 'price_per_gpu_hour_usd', pointer: '/cluster/price_per_gpu_hour_usd', label: 'Price per GPU-hour', kind: 'number', unit: 'USD', wide: true },
  { section: 'training', key: 'seq_len', pointer: '/seq_len', label: 'Sequence length', kind: 'int', unit: 'tokens' },
  { section: 'training', key: 'global_batch', pointer: '/global_batch', label: 'Global batch', kind: 'int', unit: 'sequences' },
  {
    section: 'training', key: 'family', pointer: '/family', label: 'Model family', kind: 'select', wide: true,
    options: [['gpt', 'GPT (GeLU, learned positions)'], ['llama', 'Llama (SwiGLU, RoPE, GQA)']],
  },
  {
    section: 'scaling', key: 'scaling', pointer: '/scaling', label: 'Loss and token count from', kind: 'select', wide: true,
    options: [...FITS, ['ratio', 'fixed tokens per parameter'], ['custom', 'custom fit: E, A, B, α, β']],
    help: 'loss L(N, D) = E + A/N^α + B/D^β for N parameters trained on D tokens',
  },
  { section: 'scaling', key: 'tokens_per_param', pointer: '/scaling/tokens_per_param', label: 'Tokens per parameter', kind: 'number', when: 'ratio' },
  { section: 'scaling', key: 'loss_fit', pointer: '/scaling/loss_fit', label: 'Losses from', kind: 'select', options: [['hoffmann2022', 'Hoffmann'], ['besiroglu2024', 'Besiroglu']], when: 'ratio' },
  { section: 'scaling', key: 'E', pointer: '/scaling/E', label: 'E', kind: 'number', when: 'custom' },
  { section: 'scaling', key: 'A', pointer: '/scaling/A', label: 'A', kind: 'number', when: 'custom' },
  { section: 'scaling', key: 'B', pointer: '/scaling/B', label: 'B', kind: 'number', when: 'custom' },
  { section: 'scaling', key: 'alpha', pointer: '/scaling/alpha', label: 'α (alpha)', kind: 'number', when: 'custom' },
  { section: 'scaling', key: 'beta', pointer: '/scaling/beta', label: 'β (beta)', kind: 'number', when: 'custom' },
];
for (const f of OPTIMAL_FIELDS) f.id = `o-${f.key}`;
const FIELD = Object.fromEntries(OPTIMAL_FIELDS.map((f) => [f.key, f]));
const CUSTOM_KEYS = ['E', 'A', 'B', 'alpha', 'beta'];
const FIELD_BY_POINTER = new Map(OPTIMAL_FIELDS.filter((f) => f.pointer).map((f) => [f.pointer, f]));

// How a pointer reads inside a message about another field.
const NAMES = {
  '/budget': 'the budget', '/cluster/num_gpus': 'GPUs', '/cluster/gpus_per_node': 'GPUs per node',
  '/cluster/gpu': 'GPU', '/cluster/price_per_gpu_hour_usd': 'price per GPU-hour', '/seq_len': 'sequence length',
  '/global_batch': 'global batch', '/scaling': 'scaling law', '/candidates': 'candidate sizes', '/explore': 'plan space',
};

/** A simulator message as shown beside its field, or above the form when no field is its own. */
export function optimalMessage(e) {
  let m = String(e.message || '');
  const lead = /^(\/[A-Za-z0-9_/]*): /.exec(m);
  if (lead) m = m.slice(lead[0].length);
  m = m.replace(/\/[a-z_]+(?:\/[A-Za-z0-9_]+)*/g, (p) => NAMES[p] || FIELD_BY_POINTER.get(p)?.label.toLowerCase() || p);
  return m.charAt(0).toUpperCase() + m.slice(1);
}

const COLORS = { flop: '#e07b12', achievable: '#2457c5', ratio: '#6b7686', budget: '#b42318' };

/** "hidden 9,216 · 90 layers · 72 heads" (and the KV heads of grouped-query attention). */
export function shapeText(m) {
  if (!m) return fmt.DASH;
  const kv = m.kv_heads && m.kv_heads < m.heads ? ` (${m.kv_heads} KV)` : '';
  return `hidden ${m.hidden.toLocaleString('en-US')} · ${m.layers} layers · ${m.heads} heads${kv}`;
}

/** 2.72e24 as "2.72 × 10²⁴". */
export function powerOfTen(x) {
  if (!(typeof x === 'number' && Number.isFinite(x) && x > 0)) return fmt.DASH;
  const e = Math.floor(Math.log10(x));
  const sup = String(e).replace(/[-0-9]/g, (c) => '⁻⁰¹²³⁴⁵⁶⁷⁸⁹'['-0123456789'.indexOf(c)]);
  return `${(x / 10 ** e).toFixed(2)} × 10${sup}`;
}

const finite = (x) => typeof x === 'number' && Number.isFinite(x);
const isMoney = (kind) => kind === 'usd' || kind === 'gpu_hours';
const orNull = (x) => (finite(x) ? x : null);
// 20 -> "20", 0.5 -> "0.5", 12.345 -> "12.3": a budget or a ratio as it was given.
const plain = (x) => (finite(x) ? String(Number(x.toPrecision(3))) : fmt.DASH);

/** The form's values (text) from a request, e.g. a preset's. */
export function valuesFromRequest(req) {
  const v = {};
  const b = req.budget || {};
  // Days beside dollars or GPU-hours are their deadline.
  const money = ['usd', 'gpu_hours'].find((k) => b[k] != null);
  const kind = money || BUDGET_KINDS.find((k) => b[k] != null) || (b.gpu_days != null ? 'gpu_hours' : 'days');
  v.budget_kind = kind;
  v.budget = fmt.fieldValue(kind === 'gpu_hours' && b.gpu_hours == null && b.gpu_days != null ? b.gpu_days * 24 : b[kind]);
  v.deadline_days = money && b.days != null ? fmt.fieldValue(b.days) : '';
  const c = req.cluster || {};
  for (const k of ['gpu', 'num_gpus', 'gpus_per_node', 'price_per_gpu_hour_usd']) if (c[k] != null) v[k] = fmt.fieldValue(c[k]);
  for (const k of ['seq_len', 'global_batch', 'family']) if (req[k] != null) v[k] = fmt.fieldValue(req[k]);
  const s = req.scaling ?? 'hoffmann2022';
  if (typeof s === 'string') {
    v.scaling = s;
  } else if (s.tokens_per_param != null) {
    v.scaling = 'ratio';
    v.tokens_per_param = fmt.fieldValue(s.tokens_per_param);
    v.loss_fit = s.loss_fit || 'hoffmann2022';
  } else {
    v.scaling = 'custom';
    for (const k of CUSTOM_KEYS) if (s[k] != null) v[k] = fmt.fieldValue(s[k]);
  }
  return v;
}

export function createOptimalView({ app, openConfig, onSettingsChange }) {
  const view = {
    values: {},
    result: null, // the last answer, with the request and values that gave it
    request: null,
    stale: true,
    seq: 0,
    timer: 0,
    clientErrors: [],
  };
  const presets = app.optimalPresets || [];
  const defaults = presets.length ? valuesFromRequest(presets[0].request) : {};
  view.values = { loss_fit: 'hoffmann2022', ...defaults };

  const controls = runControls('optimal', run);
  const { setProgress, setStatus } = controls;

  // ---------------------------------------------------------------- the form

  function renderForm() {
    const root = $('optimal-fields');
    root.textContent = '';
    FIELD.gpu.options = app.profiles.map((p) => [p.name, p.display_name || p.name]);
    if (presets.length) {
      const box = h('div', { class: 'optimal-presets' }, h('span', { class: 'presets-title', text: 'Preset' }));
      for (const p of presets) {
        box.append(h('button', {
          type: 'button',
          class: 'preset',
          'data-optimal-preset': p.name,
          title: p.request.description || p.name,
          text: presetLabel(p),
          onclick: () => loadPreset(p.name),
        }));
      }
      root.append(box);
    }
    for (const section of SECTIONS) {
      const fs = h('fieldset', { id: `optimal-section-${section.id}` }, h('legend', { text: section.title }));
      const grid = h('div', { class: 'grid' });
      for (const f of OPTIMAL_FIELDS.filter((x) => x.section === section.id)) grid.append(fieldElement(f));
      fs.append(grid);
      root.append(fs);
    }
    root.addEventListener('input', onEdit);
    root.addEventListener('change', onEdit);
    showValues();
  }

  function presetLabel(p) {
    const r = p.request;
    const m = /^vTrain's (\w+) case study/i.exec(r.description || '');
    const gpu = app.profiles.find((x) => x.name === r.cluster?.gpu);
    const gpuName = gpu ? (gpu.display_name || gpu.name).replace(/^NVIDIA /, '').replace(/ SXM4.*$/, '') : 'GPUs';
    const what = r.budget?.days != null ? `${r.budget.days} days on ${Number(r.cluster?.num_gpus).toLocaleString('en-US')} ${gpuName}s` : p.name;
    return m ? `vTrain case study: ${what}` : what;
  }

  function showValues() {
    const v = view.values;
    for (const f of OPTIMAL_FIELDS) {
      const input = $(f.id);
      if (!input) continue;
      const text = v[f.key] ?? '';
      if (f.kind === 'select') {
        if (text !== '' && ![...input.options].some((o) => o.value === text)) input.append(new Option(text, text));
        input.value = text;
      } else if (input.value !== text) {
        input.value = text;
      }
      const wrap = input.closest('.field');
      if (f.when) wrap.hidden = v.scaling !== f.when;
      if (f.money) wrap.hidden = !isMoney(v.budget_kind);
    }
    const kind = BUDGETS[v.budget_kind] || BUDGETS.days;
    const amount = $('o-budget').closest('.field');
    amount.querySelector('.unit').textContent = kind.unit;
    amount.querySelector('.help').textContent = kind.help;
    updatePresetPressed();
  }

  function updatePresetPressed() {
    for (const b of document.querySelectorAll('[data-optimal-preset]')) {
      const p = presets.find((x) => x.name === b.dataset.optimalPreset);
      const want = valuesFromRequest(p.request);
      const same = Object.entries(want).every(([k, val]) => (view.values[k] ?? '') === val);
      b.setAttribute('aria-pressed', String(same));
    }
  }

  function onEdit(event) {
    const t = event.target;
    const f = OPTIMAL_FIELDS.find((x) => x.id === t.id);
    if (!f) return;
    const select = f.kind === 'select';
    if (event.type === 'input' && select) return;
    if (event.type === 'change' && !select) return;
    if (f.key === 'budget_kind') view.values.budget = convertBudget(view.values.budget_kind, t.value);
    view.values[f.key] = t.value;
    if (f.key === 'scaling' && t.value === 'custom') {
      // A custom fit starts from the last answer's constants.
      const s = view.result && view.result.scaling;
      for (const k of CUSTOM_KEYS) if (!view.values[k] && s && finite(s[k])) view.values[k] = String(s[k]);
    }
    showValues();
    onSettingsChange();
    schedule(select ? 0 : 600);
  }

  // The amount in another unit: the same GPU time on the cluster at its price and peak, so that
  // switching "30 days" to dollars gives their cost, not $30. Blank where an input is missing.
  function convertBudget(from, to) {
    const v = view.values;
    const amount = fmt.parseNumber(v.budget ?? '');
    const gpus = fmt.parseNumber(v.num_gpus ?? '');
    const price = fmt.parseNumber(v.price_per_gpu_hour_usd ?? '');
    const profile = app.profiles.find((x) => x.name === v.gpu);
    const peak = profile && profile.hardware ? profile.hardware.peak_fp16_tflops * 1e12 : null;
    const perHour = { days: gpus ? 1 / (24 * gpus) : null, usd: price, gpu_hours: 1, flops: peak ? peak * 3600 : null };
    if (from === to || amount == null || !(amount > 0)) return v.budget;
    if (!(perHour[from] > 0) || !(perHour[to] > 0)) return '';
    const converted = (amount / perHour[from]) * perHour[to];
    if (to === 'flops') return converted.toExponential(2).replace('e+', 'e');
    for (const [unit, suffix] of [[1e12, 'T'], [1e9, 'B'], [1e6, 'M']]) {
      if (converted >= unit) return `${Number((converted / unit).toPrecision(3))}${suffix}`;
    }
    return String(Number(converted.toPrecision(3)));
  }

  function loadPreset(name) {
    const p = presets.find((x) => x.name === name);
    if (!p) return Promise.resolve(false);
    view.values = { ...view.values, ...valuesFromRequest(p.request) };
    showValues();
    onSettingsChange();
    return run();
  }

  function numberOf(key, { int = false, errors }) {
    const f = FIELD[key];
    const raw = String(view.values[key] ?? '').trim().replace(/^\$/, '');
    if (raw === '' && f.optional) return null;
    if (raw === '') {
      errors.push({ code: 'missing', pointer: f.pointer, message: `${f.pointer}: enter a value` });
      return null;
    }
    const v = fmt.parseNumber(raw);
    if (v == null) errors.push({ code: 'type', pointer: f.pointer, message: `${f.pointer}: enter a number` });
    else if (int && !Number.isInteger(v)) errors.push({ code: 'type', pointer: f.pointer, message: `${f.pointer}: enter a whole number` });
    else return v;
    return null;
  }

  /** The request the inputs describe, or the inputs that are not numbers yet. */
  function buildRequest() {
    const v = view.values;
    const errors = [];
    const kind = BUDGET_KINDS.includes(v.budget_kind) ? v.budget_kind : 'days';
    const amount = numberOf('budget', { errors });
    const deadline = isMoney(kind) ? numberOf('deadline_days', { errors }) : null;
    const req = {
      budget: deadline != null ? { [kind]: amount, days: deadline } : { [kind]: amount },
      cluster: {
        gpu: v.gpu,
        num_gpus: numberOf('num_gpus', { int: true, errors }),
        gpus_per_node: numberOf('gpus_per_node', { int: true, errors }),
        price_per_gpu_hour_usd: numberOf('price_per_gpu_hour_usd', { errors }),
      },
      seq_len: numberOf('seq_len', { int: true, errors }),
      global_batch: numberOf('global_batch', { int: true, errors }),
      family: v.family || 'gpt',
    };
    if (v.scaling === 'ratio') {
      req.scaling = { tokens_per_param: numberOf('tokens_per_param', { errors }), loss_fit: v.loss_fit || 'hoffmann2022' };
    } else if (v.scaling === 'custom') {
      req.scaling = Object.fromEntries(CUSTOM_KEYS.map((k) => [k, numberOf(k, { errors })]));
    } else {
      req.scaling = v.scaling || 'hoffmann2022';
    }
    return { request: req, errors };
  }

  function lookup(pointer) {
    let p = pointer || '';
    while (p) {
      const f = FIELD_BY_POINTER.get(p);
      if (f && !(f.when && view.values.scaling !== f.when) && !(f.money && !isMoney(view.values.budget_kind))) return f;
      p = p.slice(0, p.lastIndexOf('/'));
    }
    return null;
  }

  function showErrors(errors) {
    return markFieldErrors({
      fields: OPTIMAL_FIELDS,
      errors,
      lookup,
      message: (e) => optimalMessage(e),
      box: $('optimal-form-error'),
    });
  }

  // ---------------------------------------------------------------- running

  function visible() {
    return !$('view-optimal').hidden;
  }

  function schedule(delay) {
    clearTimeout(view.timer);
    view.stale = true;
    const { errors } = buildRequest();
    // Inputs that are not numbers are marked as they are typed; the simulator checks the rest.
    if (errors.length) {
      showErrors(errors);
      markStale('Fix the marked inputs to size the model.');
      controls.abort();
      return;
    }
    showErrors([]);
    if (visible()) view.timer = setTimeout(run, delay);
  }

  function markStale(text) {
    $('optimal-result').classList.toggle('stale', Boolean(view.result));
    setStatus(view.result ? `${text} The answer below is for the last valid inputs.` : text, true);
    document.body.dataset.optimal = 'invalid';
  }

  async function run() {
    clearTimeout(view.timer);
    controls.abort();
    const { request, errors } = buildRequest();
    if (errors.length) {
      showErrors(errors);
      markStale('Fix the marked inputs to size the model.');
      return false;
    }
    view.stale = false;
    const seq = ++view.seq;
    const controller = controls.start('Finding the fastest plan of every candidate size…');
    document.body.dataset.optimal = 'running';
    const t0 = performance.now();
    try {
      const result = await app.vtrain.optimal(request, { signal: controller.signal, onProgress: setProgress });
      if (!controls.current(controller)) return false;
      setProgress(1);
      showErrors([]);
      const ms = performance.now() - t0;
      view.result = result;
      view.request = request;
      view.ms = ms;
      render(result, request, seq);
      const sizes = result.curve.length;
      setStatus(`${sizes} candidate sizes, ${result.plans_simulated.toLocaleString('en-US')} plans simulated in ${(ms / 1000).toFixed(1)} s.`);
      document.body.dataset.optimal = 'done';
      return true;
    } catch (e) {
      if (!controls.current(controller)) return false;
      if (e.code === 'cancelled') {
        setStatus('Cancelled.');
        view.stale = true;
        document.body.dataset.optimal = 'stopped';
        return false;
      }
      let errs = errorList(e);
      // Candidate sizes follow the budget (1/16 to 1.4 times the FLOP-only size): none is near it
      // when the budget buys less than the smallest model or more than the largest.
      errs = errs.map((x) => (x.code === 'no_candidates' || (x.pointer === '/budget' && /candidate architectures/.test(x.message))
        ? { ...x, pointer: '/budget', message: 'no candidate size lies near what this budget buys (hidden sizes 1,024 to 65,536); change the budget' }
        : x));
      showErrors(errs);
      const placed = errs.filter((x) => lookup(x.pointer));
      markStale(placed.length ? 'Fix the marked inputs to size the model.' : `The sizing failed: ${errs.map(optimalMessage).join(' ')}`);
      return false;
    } finally {
      controls.finish(controller);
    }
  }

  // ---------------------------------------------------------------- the answer

  function gpuName(name) {
    const p = app.profiles.find((x) => x.name === name);
    return p ? (p.display_name || p.name).replace(/^NVIDIA /, '') : name;
  }

  // What the budget is, in the words of the kind it was given in.
  function budgetText(r, req) {
    const b = r.budget;
    const on = `on up to ${b.gpus.toLocaleString('en-US')} × ${gpuName(b.gpu)}`;
    const price = fmt.usd(req.cluster.price_per_gpu_hour_usd);
    if (req.budget.days != null && b.kind === 'time') return `${fmt.daysGiven(b.days)} ${on}, ${powerOfTen(b.flops)} FLOP at peak`;
    const within = finite(b.deadline_days) ? ` within ${fmt.daysGiven(b.deadline_days)}` : '';
    if (req.budget.gpu_hours != null) return `${fmt.count(req.budget.gpu_hours)} GPU-hours (${fmt.usd(b.usd)} at ${price} per GPU-hour)${within} ${on}`;
    if (req.budget.usd != null) return `${fmt.usd(b.usd)} at ${price} per GPU-hour${within} ${on}`;
    return `${powerOfTen(b.flops)} FLOP, ${fmt.days(b.days)} at peak ${on}`;
  }

  function scalingText(s) {
    if (s.rule === 'tokens_per_param') return `${plain(s.tokens_per_param)} tokens per parameter, losses from ${FIT_NAMES[s.loss_fit] || s.loss_fit}`;
    if (s.fit && FIT_NAMES[s.fit]) return `the scaling law of ${FIT_NAMES[s.fit]}`;
    return `the fit E ${fmt.sig(s.E, 4)}, A ${fmt.sig(s.A, 4)}, B ${fmt.sig(s.B, 4)}, α ${fmt.sig(s.alpha, 3)}, β ${fmt.sig(s.beta, 3)}`;
  }

  const moneyBudget = (r) => r.budget.kind === 'money';

  // "would take 74.4 days, 2.5× the budget" or "27.7 days, within the 30-day budget".
  function verdict(r, days, cost) {
    const times = (x) => `${x < 1.1 ? x.toFixed(2) : x.toFixed(1)}×`;
    if (moneyBudget(r)) {
      if (!finite(cost)) return { text: 'no plan fits on these GPUs', over: true };
      const ratio = cost / r.budget.usd;
      const deadline = r.budget.deadline_days;
      if (finite(deadline) && finite(days) && days > deadline * 1.001) {
        return { text: `would take ${fmt.days(days)}, ${times(days / deadline)} the deadline of ${fmt.daysGiven(deadline)}`, over: true };
      }
      // A budget given in GPU-hours is spoken of in GPU-hours.
      const inHours = view.request && view.request.budget && view.request.budget.gpu_hours != null && finite(r.budget.gpu_hours);
      const amount = (usd) => (inHours ? `${fmt.count((usd / r.budget.usd) * r.budget.gpu_hours)} GPU-hours` : fmt.usd(usd));
      return ratio > 1.001
        ? { text: `would ${inHours ? 'take' : 'cost'} ${amount(cost)}, ${times(ratio)} the budget of ${amount(r.budget.usd)}`, over: true }
        : { text: `${inHours ? 'takes' : 'costs'} ${amount(cost)}, within the budget of ${amount(r.budget.usd)}`, over: false };
    }
    if (!finite(days)) return { text: 'no plan fits on these GPUs', over: true };
    const limit = r.budget.days;
    const ratio = days / limit;
    return ratio > 1.001
      ? { text: `would take ${fmt.days(days)}, ${times(ratio)} the budget of ${fmt.daysGiven(limit)}`, over: true }
      : { text: `takes ${fmt.days(days)}, within the budget of ${fmt.daysGiven(limit)}`, over: false };
  }

  function row(label, value, attrs = {}) {
    return h('div', attrs, h('dt', { text: label }), h('dd', { text: value }));
  }

  /** A simulate config for an answer's model and plan, with the tokens it trains on. */
  function configFor(c, tokens) {
    const req = view.request;
    const model = { ...c.model };
    delete model.params;
    const p = c.plan;
    return {
      model,
      cluster: { ...req.cluster, num_gpus: p.num_gpus },
      plan: {
        tp: p.tp, pp: p.pp, dp: p.dp, micro_batch: p.micro_batch, virtual_stages: p.virtual_stages,
        recompute: p.recompute, sequence_parallel: p.sequence_parallel, zero_stage: p.zero_stage,
        global_batch: req.global_batch, ...(req.plan || {}),
      },
      // Whole tokens, to four figures: the Plan view's field and link stay readable.
      training: { tokens: Number(Math.round(tokens).toPrecision(4)) },
    };
  }

  function openButton(c, tokens) {
    if (!c || !c.plan || !c.has_plan) return null;
    return h('button', { type: 'button', class: 'open-plan', text: 'Open in Plan view', onclick: () => openConfig(configFor(c, tokens)) });
  }

  function answerCard({ id, title, note, params, tokens, loss, model, modelNote, plan, gpus, mfu, days, cost, extra, candidate }) {
    const r = view.result;
    const v = verdict(r, days, cost);
    const big = fmt.count(params);
    const cut = big.indexOf(' ');
    const card = h(
      'article',
      { class: `answer ${id}`, id: `answer-${id}`, 'data-params': String(params) },
      h('h3', {}, title, h('span', { class: 'answer-note', text: note })),
      h('p', { class: 'answer-big' },
        h('output', { text: cut < 0 ? big : big.slice(0, cut) }),
        h('span', { class: 'kpi-unit', text: `${cut < 0 ? '' : big.slice(cut + 1)} parameters` })),
      h('p', { class: 'answer-sub', text: `on ${fmt.count(tokens)} tokens · loss ${finite(loss) ? loss.toFixed(4) : fmt.DASH}` }),
      h('p', { class: `verdict ${v.over ? 'over' : 'within'}`, text: v.text }),
    );
    const dl = h('dl', {});
    dl.append(row('Model', `${modelNote || ''}${shapeText(model)}`));
    dl.append(row('Plan', plan ? `${planLabel(plan)} · ${fmt.gpus(gpus)}` : 'no plan fits on these GPUs'));
    dl.append(row('MFU', fmt.percent(mfu)));
    dl.append(row('Training', fmt.days(days)));
    dl.append(row('Cost', fmt.usd(cost) + (extra || '')));
    card.append(dl);
    const open = openButton(candidate, tokens);
    if (open) card.append(open);
    return card;
  }

  function renderCards(r) {
    const box = $('optimal-answers');
    box.textContent = '';
    const f = r.flop_only;
    const near = f.nearest_candidate;
    box.append(answerCard({
      id: 'flop',
      title: 'FLOP-only',
      note: ' (GPUs at peak)',
      params: f.params,
      tokens: f.tokens,
      loss: f.loss,
      model: near && near.model,
      modelNote: near ? `nearest size, ${fmt.count(near.params)}: ` : '',
      plan: near && near.has_plan ? near.plan : null,
      gpus: near && near.num_gpus,
      mfu: f.mfu,
      days: f.training_days,
      cost: f.cost_usd,
      candidate: near,
    }));
    const a = r.achievable;
    if (a) {
      box.append(answerCard({
        id: 'achievable',
        title: 'Achievable',
        note: ' (simulated plans)',
        params: a.params,
        tokens: a.tokens,
        loss: a.loss,
        model: a.model,
        plan: a.plan,
        gpus: a.num_gpus,
        mfu: a.mfu,
        days: a.training_days,
        cost: a.cost_usd,
        extra: finite(a.gpu_hours) ? `, ${fmt.count(a.gpu_hours)} GPU-hours` : '',
        candidate: a,
      }));
    } else {
      box.append(h('article', { class: 'answer achievable none', id: 'answer-achievable' },
        h('h3', {}, 'Achievable', h('span', { class: 'answer-note', text: ' (simulated plans)' })),
        h('p', { class: 'verdict over', text: 'No candidate size can be trained within this budget on these GPUs.' }),
        h('p', { class: 'answer-sub', text: 'A larger budget, more GPUs or a smaller global batch lets more sizes run.' })));
    }
    // The contrast in one line, above the cards.
    const lead = $('optimal-lead');
    lead.textContent = '';
    if (a && finite(f.params) && finite(a.params)) {
      const v = verdict(r, f.training_days, f.cost_usd);
      lead.append(
        'The scaling law alone says ', h('strong', { text: `${fmt.count(f.params)} parameters` }),
        `, which ${v.text.startsWith('no plan') ? 'no plan on these GPUs can train' : v.text}; the plans this cluster really runs train `, h('strong', { text: `${fmt.count(a.params)} parameters` }),
        ` within the budget (loss ${a.loss.toFixed(4)} against ${f.loss.toFixed(4)}).`,
      );
      if (moneyBudget(r) && !finite(r.budget.deadline_days) && finite(a.training_days) && a.training_days > 365) {
        // Money alone is spent most cheaply on few GPUs, however long that takes.
        lead.append(` The cheapest plan takes ${fmt.days(a.training_days)}: give the days it must finish in under “Within”.`);
      }
    }
  }

  function renderAlternatives(r) {
    const wrap = $('optimal-alternatives-wrap');
    const body = $('optimal-alternatives').tBodies[0];
    body.textContent = '';
    wrap.hidden = !r.alternatives.length;
    for (const c of r.alternatives) {
      const tr = body.insertRow();
      const cells = [
        fmt.count(c.params), fmt.count(c.tokens), finite(c.loss) ? c.loss.toFixed(4) : fmt.DASH, fmt.days(c.training_days),
        fmt.usd(c.cost_usd), shapeText(c.model), c.plan ? `${planLabel(c.plan)} · ${fmt.gpus(c.num_gpus)}` : fmt.DASH,
      ];
      for (const text of cells) tr.insertCell().textContent = text;
      openableRow(tr, 'Open this model and plan in the Plan view', () => openConfig(configFor(c, c.tokens)));
    }
  }

  function render(r, req, seq) {
    $('optimal-result').hidden = false;
    $('optimal-result').classList.remove('stale');
    $('optimal-headline').textContent = `${budgetText(r, req)} · ${scalingText(r.scaling)}`;
    renderCards(r);
    renderAlternatives(r);
    const s = r.scaling;
    const source = /^[A-Z]/.test(s.citation || '') ? s.citation : 'the fit given';
    $('optimal-note').textContent = `Losses from ${source}: E ${fmt.sig(s.E, 4)}, A ${fmt.sig(s.A, 4)}, B ${fmt.sig(s.B, 4)}, α ${fmt.sig(s.alpha, 3)}, β ${fmt.sig(s.beta, 3)}. `
      + 'Candidate sizes: hidden sizes in multiples of 256, head dimension 128, two depths per width; each gets its fastest plan'
      + `${moneyBudget(r) ? ' (cheapest, for a money budget)' : ''} from a sweep of the plans that fit.`;
    const a = r.achievable;
    document.title = a
      ? `Compute-optimal: ${fmt.count(a.params)} parameters on ${fmt.count(a.tokens)} tokens · vtrain`
      : 'Compute-optimal: no size fits the budget · vtrain';
    performance.mark('vtrain:optimal-result');
    drawCharts(seq);
  }

  // ---------------------------------------------------------------- charts

  // Room under the plot for the tick labels and a legend that wraps on a narrow chart (an entry
  // takes up to about 230 px).
  function legendRoom(el, items) {
    const width = el.clientWidth || 600;
    const perRow = Math.max(1, Math.floor((width - 16) / 230));
    return 40 + Math.ceil(items / perRow) * 28;
  }
  const legendItems = (traces) => traces.filter((t) => t.showlegend !== false).length;

  const LAYOUT = { ...VIEW_LAYOUT, hoverlabel: { font: { size: 12 } }, legend: VIEW_LEGEND };

  function xAxis(el, curve) {
    const xs = curve.map((c) => c.params).filter(finite);
    const width = el.clientWidth || 600;
    return {
      type: 'log',
      zeroline: false,
      ...logTicks(Math.min(...xs), Math.max(...xs), tickNumber, Math.max(2, Math.floor((width - 90) / 50))),
    };
  }

  // The loss at `tokens` from the fit the answer used.
  function lossAt(s, n, d) {
    return s.E + s.A / n ** s.alpha + s.B / d ** s.beta;
  }

  // An answer: a star labelled with its size; the two share one legend entry.
  function star(first, x, y, color, hover, label, below) {
    return {
      type: 'scatter', mode: 'markers+text', name: 'the two answers', legendgroup: 'answers', showlegend: first,
      x: [orNull(x)], y: [orNull(y)], text: [label], textposition: below ? 'bottom center' : 'top center',
      textfont: { color, size: 12, weight: 600 },
      marker: { symbol: 'star', size: 17, color, line: { color: '#1c2430', width: 1 } },
      hovertemplate: `${hover}<extra></extra>`,
    };
  }

  async function drawLoss(r) {
    const el = $('chart-optimal-loss');
    const curve = r.curve;
    const s = r.scaling;
    const ratio = s.rule === 'tokens_per_param';
    const px = curve.map((c) => c.params);
    const hoverFlop = curve.map((c) => `${fmt.count(c.params)} parameters (${shapeText(c.model)})<br>FLOP-only: ${fmt.count(c.tokens_flop_only)} tokens at peak, loss ${c.loss_flop_only.toFixed(4)}`);
    const hoverAch = curve.map((c) => (c.has_plan
      ? `${fmt.count(c.params)} parameters (${shapeText(c.model)})<br>achievable: ${fmt.count(c.tokens_achievable)} tokens in ${fmt.days(c.days_achievable)}, loss ${c.loss_achievable.toFixed(4)}<br>${planLabel(c.plan)} · MFU ${fmt.percent(c.mfu)}`
      : `${fmt.count(c.params)} parameters: no plan fits on these GPUs`));
    const traces = [
      {
        type: 'scatter', mode: 'lines+markers', name: 'FLOP-only (GPUs at peak)', x: px, y: curve.map((c) => orNull(c.loss_flop_only)),
        line: { color: COLORS.flop, width: 2 }, marker: { color: COLORS.flop, size: 6 }, text: hoverFlop, hovertemplate: '%{text}<extra></extra>',
      },
      {
        type: 'scatter', mode: 'lines+markers', name: 'achievable (simulated plans)', x: px, y: curve.map((c) => (c.has_plan ? orNull(c.loss_achievable) : null)),
        line: { color: COLORS.achievable, width: 2 }, marker: { color: COLORS.achievable, size: 6 }, text: hoverAch, hovertemplate: '%{text}<extra></extra>',
      },
    ];
    if (ratio) {
      const k = s.tokens_per_param;
      traces.push({
        type: 'scatter', mode: 'lines+markers', name: `${plain(k)} tokens per parameter`, x: px,
        y: curve.map((c) => orNull(lossAt(s, c.params, k * c.params))),
        line: { color: COLORS.ratio, width: 1.5, dash: 'dot' },
        marker: {
          color: curve.map((c) => (c.within_budget_at_ratio ? COLORS.ratio : '#ffffff')), size: 7,
          line: { color: COLORS.ratio, width: 1.5 },
        },
        text: curve.map((c) => `${fmt.count(c.params)} parameters on ${fmt.count(k * c.params)} tokens: ${c.has_plan ? `${fmt.days(c.days_at_ratio)}, ${c.within_budget_at_ratio ? 'within' : 'over'} the budget` : 'no plan fits'}`),
        hovertemplate: '%{text}<extra></extra>',
      });
    }
    const f = r.flop_only;
    const a = r.achievable;
    traces.push(star(true, f.params, f.loss, COLORS.flop, `FLOP-only answer: ${fmt.count(f.params)} parameters, loss ${f.loss.toFixed(4)}`, fmt.count(f.params), true));
    if (a) traces.push(star(false, a.params, a.loss, COLORS.achievable, `achievable answer: ${fmt.count(a.params)} parameters, loss ${a.loss.toFixed(4)}`, fmt.count(a.params), false));
    // The range of the two curves and the answers: the ratio's curve may leave it at small sizes.
    const ys = [...traces[0].y, ...traces[1].y, f.loss, a ? a.loss : null].filter(finite);
    const pad = (Math.max(...ys) - Math.min(...ys)) * 0.12 || 0.01;
    const room = legendRoom(el, legendItems(traces));
    el.style.height = `${300 + room}px`;
    const Plotly = await loadPlotly();
    await Plotly.react(el, traces, {
      ...LAYOUT,
      margin: { l: 62, r: 14, t: 10, b: room },
      xaxis: xAxis(el, curve),
      yaxis: { title: { text: 'loss' }, zeroline: false, tickformat: '.3f', range: [Math.min(...ys) - pad, Math.max(...ys) + pad] },
    }, VIEW_CONFIG);
  }

  async function drawDays(r) {
    const el = $('chart-optimal-days');
    const curve = r.curve;
    const s = r.scaling;
    const ratio = s.rule === 'tokens_per_param';
    const money = moneyBudget(r);
    const px = curve.map((c) => c.params);
    const unit = money ? (x) => fmt.usd(x) : (x) => fmt.days(x);
    const budgetValue = money ? r.budget.usd : r.budget.days;
    // Money budget: what each size costs; otherwise how long it takes, both at the simulated speed.
    const flopY = curve.map((c) => (c.has_plan ? orNull(money ? c.cost_flop_only_usd : c.days_flop_only) : null));
    const traces = [{
      type: 'scatter', mode: 'lines+markers', name: 'FLOP-only tokens, simulated plan', x: px, y: flopY,
      line: { color: COLORS.flop, width: 2 }, marker: { color: COLORS.flop, size: 6 },
      text: curve.map((c) => (c.has_plan ? `${fmt.count(c.params)} parameters on ${fmt.count(c.tokens_flop_only)} tokens: ${unit(money ? c.cost_flop_only_usd : c.days_flop_only)}<br>${planLabel(c.plan)} · MFU ${fmt.percent(c.mfu)}` : '')),
      hovertemplate: '%{text}<extra></extra>',
    }];
    let ratioY = [];
    if (ratio) {
      const k = s.tokens_per_param;
      // Cost at the ratio: the cost per token of the size's plan times its token count.
      ratioY = curve.map((c) => {
        if (!c.has_plan) return null;
        if (!money) return orNull(c.days_at_ratio);
        return finite(c.cost_achievable_usd) && c.tokens_achievable > 0 ? orNull((c.cost_achievable_usd * c.tokens_at_ratio) / c.tokens_achievable) : null;
      });
      traces.push({
        type: 'scatter', mode: 'lines+markers', name: `${plain(k)} tokens per parameter`, x: px, y: ratioY,
        line: { color: COLORS.achievable, width: 2 },
        marker: { color: curve.map((c) => (c.within_budget_at_ratio ? COLORS.achievable : '#ffffff')), size: 7, line: { color: COLORS.achievable, width: 1.5 } },
        text: curve.map((c, i) => (c.has_plan ? `${fmt.count(c.params)} parameters on ${fmt.count(c.tokens_at_ratio)} tokens: ${unit(ratioY[i])}, ${c.within_budget_at_ratio ? 'within' : 'over'} the budget` : '')),
        hovertemplate: '%{text}<extra></extra>',
      });
    }
    const f = r.flop_only;
    const a = r.achievable;
    const fy = money ? f.cost_usd : f.training_days;
    traces.push(star(true, f.params, fy, COLORS.flop, `FLOP-only answer: ${fmt.count(f.params)} parameters, ${unit(fy)}`, fmt.count(f.params), false));
    if (a) {
      const ay = money ? a.cost_usd : a.training_days;
      traces.push(star(false, a.params, ay, COLORS.achievable, `achievable answer: ${fmt.count(a.params)} parameters, ${unit(ay)}`, fmt.count(a.params), true));
    }
    const ys = [...flopY, ...ratioY, fy, budgetValue, a ? (money ? a.cost_usd : a.training_days) : null].filter((y) => finite(y) && y > 0);
    const height = 300;
    const tickLabel = money ? (v) => `$${tickNumber(v)}` : (v) => `${tickNumber(v)} d`;
    const yTicks = ys.length ? logTicks(Math.min(...ys), Math.max(...ys), tickLabel, Math.max(2, Math.floor((height - 60) / 28))) : {};
    const room = legendRoom(el, legendItems(traces));
    el.style.height = `${height + room}px`;
    const budgetLabel = money ? `budget ${fmt.usd(budgetValue)}` : `budget ${fmt.daysGiven(budgetValue)}`;
    const Plotly = await loadPlotly();
    await Plotly.react(el, traces, {
      ...LAYOUT,
      margin: { l: 62, r: 14, t: 10, b: room },
      xaxis: xAxis(el, curve),
      yaxis: { title: { text: money ? 'cost' : 'training time' }, type: 'log', zeroline: false, ...yTicks },
      shapes: finite(budgetValue) && budgetValue > 0
        ? [{ type: 'line', xref: 'paper', yref: 'y', x0: 0, x1: 1, y0: budgetValue, y1: budgetValue, line: { color: COLORS.budget, width: 2, dash: 'dash' } }]
        : [],
      annotations: finite(budgetValue) && budgetValue > 0
        ? [{ xref: 'paper', yref: 'y', x: 0, y: Math.log10(budgetValue), xanchor: 'left', yanchor: 'bottom', showarrow: false, text: budgetLabel, font: { size: 11, color: COLORS.budget } }]
        : [],
    }, VIEW_CONFIG);
  }

  function drawCharts(seq) {
    const r = view.result;
    if (!r || !visible()) return Promise.resolve();
    const money = moneyBudget(r);
    $('optimal-days-caption').textContent = money ? 'What each size costs to train' : 'How long each size takes to train';
    $('optimal-days-note').textContent = money
      ? `at the simulated plans' cost; the dashed line is the budget`
      : 'at the simulated plans’ speed; the dashed line is the budget';
    const missing = r.curve.filter((c) => !c.has_plan).length;
    const s = r.scaling;
    const ratioNote = s.rule === 'tokens_per_param' ? `; dotted: ${plain(s.tokens_per_param)} tokens per parameter, hollow where over the budget` : '';
    const gaps = missing ? `; ${missing} size${missing === 1 ? '' : 's'} with no plan on these GPUs left out` : '';
    $('optimal-loss-note').textContent = `one point per candidate size, each spending the whole budget${ratioNote}${gaps}`;
    return Promise.all([drawLoss(r), drawDays(r)]).then(() => {
      if (seq === view.seq) document.body.dataset.optimalCharts = String(seq);
    });
  }

  // ---------------------------------------------------------------- downloads

  function csv() {
    const r = view.result;
    const cols = [
      ['name', (c) => c.model.name], ['hidden', (c) => c.model.hidden], ['layers', (c) => c.model.layers], ['heads', (c) => c.model.heads],
      ['params', (c) => c.params], ['has_plan', (c) => c.has_plan],
      ['tokens_flop_only', (c) => c.tokens_flop_only], ['loss_flop_only', (c) => c.loss_flop_only], ['days_flop_only', (c) => c.days_flop_only],
      ['cost_flop_only_usd', (c) => c.cost_flop_only_usd], ['tokens_achievable', (c) => c.tokens_achievable], ['loss_achievable', (c) => c.loss_achievable],
      ['days_achievable', (c) => c.days_achievable], ['cost_achievable_usd', (c) => c.cost_achievable_usd],
      ['tokens_at_ratio', (c) => c.tokens_at_ratio], ['days_at_ratio', (c) => c.days_at_ratio], ['within_budget_at_ratio', (c) => c.within_budget_at_ratio],
      ['mfu', (c) => c.mfu], ['num_gpus', (c) => c.num_gpus],
      ...['tp', 'pp', 'dp', 'virtual_stages', 'micro_batch', 'recompute', 'sequence_parallel', 'zero_stage'].map((k) => [k, (c) => (c.plan ? c.plan[k] : null)]),
    ];
    return csvText(cols.map(([k]) => k), r.curve.map((c) => cols.map(([, get]) => get(c))));
  }

  function fileStem() {
    const req = view.request;
    if (!req) return 'vtrain-optimal';
    const [kind, amount] = Object.entries(req.budget)[0];
    return `vtrain-optimal-${fmt.fieldValue(amount)}${kind.replace('_', '-')}-${req.cluster.num_gpus}gpu`;
  }

  // ---------------------------------------------------------------- wiring

  renderForm();

  return {
    get result() {
      return view.result;
    },
    get request() {
      return view.request;
    },
    csv,
    fileStem,
    run,
    loadPreset,
    /** The inputs for the URL (text as typed), without those the scaling choice hides. */
    settings() {
      const v = { ...view.values };
      if (v.scaling !== 'ratio') {
        delete v.tokens_per_param;
        delete v.loss_fit;
      }
      if (v.scaling !== 'custom') for (const k of CUSTOM_KEYS) delete v[k];
      return v;
    },
    /** Inputs read from a link; the rest keep the preset's values. */
    applySettings(values) {
      if (!values) return;
      for (const [k, v] of Object.entries(values)) if (v != null) view.values[k] = String(v);
      showValues();
    },
    /** The view became visible: answer when the inputs changed since the last answer. */
    shown() {
      showValues();
      if (view.stale && !controls.running) {
        const { errors } = buildRequest();
        if (errors.length) {
          showErrors(errors);
          markStale('Fix the marked inputs to size the model.');
        } else {
          run();
        }
      } else if (view.result) {
        drawCharts(view.seq);
      }
    },
  };
}

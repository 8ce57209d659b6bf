// The Compute-optimal view's own inputs: the budget, the cluster, the batch, the model family
// and the scaling law, with the simulator's presets as buttons above them. Values stay the text
// the user typed; request() turns them into an optimal request, or says which are not numbers.
import * as fmt from '../format.js';
import { BUDGETS, PLAN_RULES } from '../choices.js';
import { h, fieldElement, markFieldErrors, nearestField, showText, typedNumber } from '../form.js';
import { pricePresets } from '../prices.js';

const SECTIONS = [
  { id: 'budget', title: 'Budget' },
  { id: 'cluster', title: 'Cluster' },
  { id: 'training', title: 'Training' },
  { id: 'scaling', title: 'Scaling law' },
];

// Every input; `pointer` is how the simulator names it in errors, `when` the scaling choice that
// shows it, `money` whether only a budget in money shows it. The choices of the budget's kind, the
// GPU, the family and the fits are the simulator's (its schema), given when the form is made.
// The choices of the scaling law beside its fits, and the words of each.
const SCALING_RULES = [['ratio', 'fixed tokens per parameter'], ['custom', 'custom fit: E, A, B, α, β']];

const FIELDS = [
  { section: 'budget', key: 'budget_kind', label: 'Budget in', kind: 'select', wide: true },
  { section: 'budget', key: 'budget', pointer: '/budget', label: 'Amount', kind: 'number', wide: true, unit: 'days', help: BUDGETS.days.help },
  {
    section: 'budget', key: 'deadline_days', pointer: '/budget/days', label: 'Within', kind: 'number', wide: true, unit: 'days',
    help: 'optional: the days the run must finish in; blank, each size takes its plan as below', optional: true, money: true,
  },
  {
    section: 'budget', key: 'objective', pointer: '/explore/objective', label: 'Plan per size', kind: 'select', wide: true, options: PLAN_RULES, money: true,
    help: 'without a deadline: how each candidate size spends the money',
  },
  { section: 'cluster', key: 'gpu', pointer: '/cluster/gpu', label: 'GPU', kind: 'select', wide: true, options: [] },
  { section: 'cluster', key: 'num_gpus', pointer: '/cluster/num_gpus', label: 'At most', kind: 'int', unit: 'GPUs' },
  { section: 'cluster', key: 'gpus_per_node', pointer: '/cluster/gpus_per_node', label: 'GPUs per node', kind: 'int' },
  { section: 'cluster', key: 'price_per_gpu_hour_usd', pointer: '/cluster/price_per_gpu_hour_usd', label: 'Price per GPU-hour', kind: 'number', unit: 'USD', wide: true },
  { section: 'training', key: 'seq_len', pointer: '/seq_len', label: 'Sequence length', kind: 'int', unit: 'tokens' },
  { section: 'training', key: 'global_batch', pointer: '/global_batch', label: 'Global batch', kind: 'int', unit: 'sequences' },
  { section: 'training', key: 'family', pointer: '/family', label: 'Model family', kind: 'select', wide: true },
  {
    section: 'scaling', key: 'scaling', pointer: '/scaling', label: 'Loss and token count from', kind: 'select', wide: true,
    help: 'loss L(N, D) = E + A/N^α + B/D^β for N parameters trained on D tokens',
  },
  { section: 'scaling', key: 'tokens_per_param', pointer: '/scaling/tokens_per_param', label: 'Tokens per parameter', kind: 'number', when: 'ratio' },
  { section: 'scaling', key: 'loss_fit', pointer: '/scaling/loss_fit', label: 'Losses from', kind: 'select', when: 'ratio' },
  { section: 'scaling', key: 'E', pointer: '/scaling/E', label: 'E', kind: 'number', when: 'custom' },
  { section: 'scaling', key: 'A', pointer: '/scaling/A', label: 'A', kind: 'number', when: 'custom' },
  { section: 'scaling', key: 'B', pointer: '/scaling/B', label: 'B', kind: 'number', when: 'custom' },
  { section: 'scaling', key: 'alpha', pointer: '/scaling/alpha', label: 'α (alpha)', kind: 'number', when: 'custom' },
  { section: 'scaling', key: 'beta', pointer: '/scaling/beta', label: 'β (beta)', kind: 'number', when: 'custom' },
];
for (const f of FIELDS) f.id = `o-${f.key}`;
const FIELD = Object.fromEntries(FIELDS.map((f) => [f.key, f]));
const FIELD_BY_POINTER = new Map(FIELDS.filter((f) => f.pointer).map((f) => [f.pointer, f]));
export const CUSTOM_KEYS = ['E', 'A', 'B', 'alpha', 'beta'];
/** The inputs a link holds, beside the budget (whose key is its kind: days, usd, gpu_hours or flops). */
export const LINK_KEYS = ['deadline_days', 'objective', 'gpu', 'num_gpus', 'gpus_per_node', 'price_per_gpu_hour_usd', 'seq_len', 'global_batch', 'family',
  'scaling', 'tokens_per_param', 'loss_fit', ...CUSTOM_KEYS];

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

/** Whether a budget of this kind is money (dollars or GPU-hours), which may carry a deadline. */
const isMoney = (kind) => kind === 'usd' || kind === 'gpu_hours';
const finite = (x) => typeof x === 'number' && Number.isFinite(x);

/**
 * The budget's kinds the page offers: the simulator's amounts (the schema's /budget fields) that
 * the page has words for (choices.js).
 */
export const budgetKinds = (schema) => schema.optimal.budget.order.filter((k) => Object.hasOwn(BUDGETS, k));

/** The form's values (text) from a request, e.g. a preset's; `kinds` and `defaultFit` are the schema's. */
function valuesFromRequest(req, kinds, defaultFit) {
  const v = {};
  const b = req.budget || {};
  // Days beside dollars or GPU-hours are their deadline.
  const money = ['usd', 'gpu_hours'].find((k) => b[k] != null);
  const kind = money || kinds.find((k) => b[k] != null) || (b.gpu_days != null ? 'gpu_hours' : 'days');
  v.budget_kind = kind;
  v.budget = fmt.fieldValue(kind === 'gpu_hours' && b.gpu_hours == null && b.gpu_days != null ? b.gpu_days * 24 : b[kind]);
  v.deadline_days = money && b.days != null ? fmt.fieldValue(b.days) : '';
  const c = req.cluster || {};
  for (const k of ['gpu', 'num_gpus', 'gpus_per_node', 'price_per_gpu_hour_usd']) if (c[k] != null) v[k] = fmt.fieldValue(c[k]);
  for (const k of ['seq_len', 'global_batch', 'family']) if (req[k] != null) v[k] = fmt.fieldValue(req[k]);
  v.objective = req.explore?.objective || PLAN_RULES[0][0];
  const s = req.scaling ?? defaultFit;
  if (typeof s === 'string') {
    v.scaling = s;
  } else if (s.tokens_per_param != null) {
    v.scaling = 'ratio';
    v.tokens_per_param = fmt.fieldValue(s.tokens_per_param);
    v.loss_fit = s.loss_fit || defaultFit;
  } else {
    v.scaling = 'custom';
    for (const k of CUSTOM_KEYS) if (s[k] != null) v[k] = fmt.fieldValue(s[k]);
  }
  return v;
}

/**
 * The form, drawn into `root` with the errors no field owns in `errorBox`. `onEdit(select)` hears
 * of each edit (select: whether it was a choice, which is answered at once), `onPreset()` of a
 * preset loaded, and `lastScaling()` gives the last answer's fit, where a custom fit starts.
 */
export function createOptimalForm({ root, errorBox, catalog, onEdit, onPreset, lastScaling, lastBudget }) {
  const $ = (id) => document.getElementById(id);
  const presets = catalog.optimalPresets;
  const kinds = budgetKinds(catalog.schema);
  const defaultFit = catalog.schema.optimal.scaling.fit.default;
  const fromRequest = (req) => valuesFromRequest(req, kinds, defaultFit);
  FIELD.budget_kind.options = kinds.map((k) => [k, BUDGETS[k].label]);
  FIELD.gpu.options = catalog.profiles.map((p) => [p.name, p.display_name || p.name]);
  FIELD.family.options = catalog.choices('family');
  FIELD.scaling.options = [...catalog.fits.map((f) => [f.name, f.label]), ...SCALING_RULES];
  FIELD.loss_fit.options = catalog.fits.map((f) => [f.name, f.label]);
  let values = { loss_fit: defaultFit, ...(presets.length ? fromRequest(presets[0].request) : {}) };
  let prices = null; // the price presets beside the price (prices.js)

  // "30 days on 3,360 A100s": the preset's budget and GPUs (the GPU by the first word of its label).
  function presetLabel(p) {
    const r = p.request;
    const gpu = catalog.profile(r.cluster?.gpu);
    const gpuName = gpu ? `${catalog.gpuName(gpu.name).split(' ')[0]}s` : 'GPUs';
    return r.budget?.days != null ? `${r.budget.days} days on ${Number(r.cluster?.num_gpus).toLocaleString('en-US')} ${gpuName}` : p.name;
  }

  function render() {
    root.textContent = '';
    if (presets.length) {
      const box = h('div', { class: 'optimal-presets' }, h('span', { class: 'presets-title', text: 'Preset' }));
      for (const p of presets) {
        box.append(h('button', {
          type: 'button',
          class: 'preset',
          'data-optimal-preset': p.name,
          title: p.description || p.request.description || p.name,
          text: presetLabel(p),
          onclick: () => loadPreset(p.name),
        }));
      }
      root.append(box);
    }
    for (const section of SECTIONS) {
      const fs = h('fieldset', { id: `optimal-section-${section.id}` }, h('legend', { text: section.title }));
      const grid = h('div', { class: 'grid' });
      for (const f of FIELDS.filter((x) => x.section === section.id)) grid.append(fieldElement(f));
      fs.append(grid);
      root.append(fs);
    }
    root.addEventListener('input', edited);
    root.addEventListener('change', edited);
    // Published prices for the GPU, beside the price.
    prices = pricePresets($('o-price_per_gpu_hour_usd').closest('.field'), {
      id: 'o-price-preset',
      read: () => ({ gpu: values.gpu, price: values.price_per_gpu_hour_usd ?? '' }),
      pick: (text) => {
        values.price_per_gpu_hour_usd = text;
        show();
        onEdit(true);
      },
    });
    show();
  }

  function show() {
    if (prices) prices.update();
    for (const f of FIELDS) {
      const input = $(f.id);
      if (!input) continue;
      showText(f, input, values[f.key] ?? '');
      const wrap = input.closest('.field');
      if (f.when) wrap.hidden = values.scaling !== f.when;
      if (f.money) wrap.hidden = !isMoney(values.budget_kind);
    }
    const kind = BUDGETS[values.budget_kind] || BUDGETS.days;
    const amount = $('o-budget').closest('.field');
    amount.querySelector('.unit').textContent = kind.unit;
    amount.querySelector('.help').textContent = kind.help;
    for (const b of root.querySelectorAll('[data-optimal-preset]')) {
      const p = presets.find((x) => x.name === b.dataset.optimalPreset);
      const want = fromRequest(p.request);
      const same = Object.entries(want).every(([k, val]) => (values[k] ?? '') === val);
      b.setAttribute('aria-pressed', String(same));
    }
  }

  function edited(event) {
    const t = event.target;
    const f = FIELDS.find((x) => x.id === t.id);
    if (!f) return;
    const select = f.kind === 'select';
    if (event.type === 'input' && select) return;
    if (event.type === 'change' && !select) return;
    if (f.key === 'budget_kind') values.budget = convertBudget(values.budget_kind, t.value);
    values[f.key] = t.value;
    if (f.key === 'scaling' && t.value === 'custom') {
      // A custom fit starts from the last answer's constants.
      const s = lastScaling();
      for (const k of CUSTOM_KEYS) if (!values[k] && s && finite(s[k])) values[k] = String(s[k]);
    }
    show();
    onEdit(select);
  }

  // The amount in another unit: the same GPU time on the cluster at its price and peak, so that
  // switching "30 days" to dollars gives their cost, not $30. The simulator converts: its last
  // answer's budget in every unit (lastBudget(): {cluster, equivalent}) gives the rate while the
  // cluster is the one it was for. Blank where there is none, or an input is missing.
  function convertBudget(from, to) {
    const amount = fmt.parseNumber(values.budget ?? '');
    if (from === to || amount == null || !(amount > 0)) return values.budget;
    const last = lastBudget();
    const same = last && ['gpu', 'num_gpus', 'price_per_gpu_hour_usd'].every((k) => {
      const typed = k === 'gpu' ? values.gpu : fmt.parseNumber(String(values[k] ?? '').replace(/^\$/, ''));
      return typed === last.cluster[k];
    });
    const rate = same ? last.equivalent[to] / last.equivalent[from] : NaN;
    if (!(rate > 0) || !Number.isFinite(rate)) return '';
    const converted = amount * rate;
    if (to === 'flops') return converted.toExponential(2).replace('e+', 'e');
    for (const [unit, suffix] of [[1e12, 'T'], [1e9, 'B'], [1e6, 'M']]) {
      if (converted >= unit) return `${Number((converted / unit).toPrecision(3))}${suffix}`;
    }
    return String(Number(converted.toPrecision(3)));
  }

  function loadPreset(name) {
    const p = presets.find((x) => x.name === name);
    if (!p) return;
    values = { ...values, ...fromRequest(p.request) };
    show();
    onPreset();
  }

  const numberOf = (key, { int = false, errors }) => typedNumber(FIELD[key], values[key], { int, errors, lead: `${FIELD[key].pointer}: ` });

  // The field an error pointer belongs to, if it is shown: the pointer's, or the nearest above it.
  const lookup = (pointer) => nearestField(pointer, FIELD_BY_POINTER, (f) => !(f.when && values.scaling !== f.when) && !(f.money && !isMoney(values.budget_kind)));

  render();

  return {
    /** The inputs as typed, by key. */
    get values() {
      return values;
    },
    /** The budget's kinds it offers (budgetKinds). */
    kinds,
    lookup,
    /** The request the inputs describe, and the inputs that are not numbers yet: {request, errors}. */
    request() {
      const v = values;
      const errors = [];
      const kind = kinds.includes(v.budget_kind) ? v.budget_kind : 'days';
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
        family: v.family || catalog.schema.optimal.fields.family.default,
      };
      // A money budget's plan per size: the page's default is balanced, not the cheapest plan of
      // all, which often trains on a few GPUs for years.
      if (isMoney(kind)) req.explore = { objective: v.objective || PLAN_RULES[0][0] };
      if (v.scaling === 'ratio') {
        req.scaling = { tokens_per_param: numberOf('tokens_per_param', { errors }), loss_fit: v.loss_fit || defaultFit };
      } else if (v.scaling === 'custom') {
        req.scaling = Object.fromEntries(CUSTOM_KEYS.map((k) => [k, numberOf(k, { errors })]));
      } else {
        req.scaling = v.scaling || defaultFit;
      }
      return { request: req, errors };
    },
    /** Shows `errors` beside the fields they name, the rest above the form. */
    showErrors(errors) {
      return markFieldErrors({ fields: FIELDS, errors, lookup, message: optimalMessage, box: errorBox });
    },
    /** Sets inputs (text by key), e.g. from a link. */
    set(more) {
      for (const [k, v] of Object.entries(more)) if (v != null) values[k] = String(v);
      show();
    },
    show,
  };
}

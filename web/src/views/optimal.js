// The Compute-optimal view: which model a budget buys. Its own inputs (optimal-form.js) replace
// the Plan inputs on the left; the answer runs in the sweep worker (a sweep per candidate size)
// with a progress bar and Cancel. Two answers side by side: the scaling law's FLOP-only optimum
// (GPUs at peak) and the best model the simulated plans really train within the budget, then
// iso-budget charts of loss and of training days or cost (optimal-charts.js).
import * as fmt from '../format.js';
import { PLAN_RULES } from '../choices.js';
import { h } from '../form.js';
import { termButton } from '../glossary.js';
import { formRuns, openableRow, runDownload } from '../sweep.js';
import { drawDays, drawLoss, lossRule } from './optimal-charts.js';
import { CUSTOM_KEYS, LINK_KEYS, createOptimalForm, optimalMessage } from './optimal-form.js';

const $ = (id) => document.getElementById(id);

const markup = `
  <div class="explore-head">
    <p class="explore-intro">Which model a budget buys. The scaling law’s answer assumes the GPUs run at peak; the achievable answer gives every candidate size its fastest simulated plan and asks what it reaches within the budget.</p>
    <div class="explore-actions">
      <button type="button" id="optimal-run" class="primary">Size the model</button>
      <button type="button" id="optimal-cancel" hidden>Cancel</button>
    </div>
  </div>
  <div id="optimal-progress-wrap" class="progress-wrap" hidden>
    <progress id="optimal-progress" max="1" value="0" aria-label="Sizing progress"></progress>
    <span id="optimal-progress-text" class="progress-text"></span>
  </div>
  <p id="optimal-status" class="status" aria-live="polite"></p>
  <div id="optimal-result" hidden>
    <p id="optimal-headline" class="headline"></p>
    <p id="optimal-lead" class="optimal-lead"></p>
    <div id="optimal-answers" class="answers" data-summary-anchor></div>
    <p id="optimal-rule" class="optimal-rule"></p>
    <div class="charts">
      <figure class="chart-card">
        <figcaption>Loss against model size on this budget <span class="caption-note" id="optimal-loss-note"></span></figcaption>
        <div id="chart-optimal-loss" class="chart chart-mid" role="img" aria-label="Loss against parameters for the FLOP-only and the achievable answers"></div>
        <p class="chart-note" id="optimal-loss-rule"></p>
      </figure>
      <figure class="chart-card">
        <figcaption><span id="optimal-days-caption">How long each size takes to train</span> <span class="caption-note" id="optimal-days-note"></span></figcaption>
        <div id="chart-optimal-days" class="chart chart-mid" role="img" aria-label="Training time against parameters, with the budget"></div>
      </figure>
    </div>
    <div class="table-wrap" id="optimal-alternatives-wrap" hidden>
      <table id="optimal-alternatives" class="plans">
        <caption>Next best within the budget. Click a row to open it in the Plan view.</caption>
        <thead><tr><th scope="col">Parameters</th><th scope="col">Tokens</th><th scope="col">Loss</th><th scope="col">Training</th><th scope="col">Cost</th><th scope="col">Model</th><th scope="col">Plan</th></tr></thead>
        <tbody></tbody>
      </table>
    </div>
    <p id="optimal-note" class="optimal-note"></p>
  </div>`;

const inputsMarkup = `
  <p id="optimal-form-error" class="form-error" role="alert" hidden></p>
  <div id="optimal-fields"></div>`;

/** 2.72e24 as "2.72 × 10²⁴". */
function powerOfTen(x) {
  if (!(typeof x === 'number' && Number.isFinite(x) && x > 0)) return fmt.DASH;
  const e = Math.floor(Math.log10(x));
  const sup = String(e).replace(/[-0-9]/g, (c) => '⁻⁰¹²³⁴⁵⁶⁷⁸⁹'['-0123456789'.indexOf(c)]);
  return `${(x / 10 ** e).toFixed(2)} × 10${sup}`;
}

const finite = (x) => typeof x === 'number' && Number.isFinite(x);
const moneyBudget = (r) => r.budget.kind === 'money';

function scalingText(s, catalog) {
  const fitCited = (name) => catalog.fit(name)?.label;
  if (s.rule === 'tokens_per_param') return `${fmt.asGiven(s.tokens_per_param)} tokens per parameter, losses from ${fitCited(s.loss_fit) || s.loss_fit}`;
  if (s.fit && fitCited(s.fit)) return `the scaling law of ${fitCited(s.fit)}`;
  return `the fit E ${fmt.sig(s.E, 4)}, A ${fmt.sig(s.A, 4)}, B ${fmt.sig(s.B, 4)}, α ${fmt.sig(s.alpha, 3)}, β ${fmt.sig(s.beta, 3)}`;
}

/** How each candidate size's plan was chosen (the answer's plan_rule), in a sentence. */
export function planRuleText(rule) {
  const slack = rule && rule.time_slack != null ? fmt.percent(rule.time_slack, 0) : '';
  switch (rule && rule.objective) {
    case 'balanced': return `Each size trains on its cheapest plan within ${slack} more days than its fastest: the money buys tokens in days or weeks, not years.`;
    case 'cost': return 'Each size trains on its cheapest plan, however long that takes (often a few GPUs for years); choose “balanced” under Plan per size for the cheapest near the fastest.';
    case 'most_tokens': return 'Each size trains on the plan that buys the most tokens within both the money and the days.';
    case 'time': return 'Each size trains on its fastest plan on these GPUs: the days buy the most tokens.';
    default: return '';
  }
}

function row(label, value, attrs = {}) {
  return h('div', attrs, h('dt', { text: label }), h('dd', { text: value }));
}

function create(panel, { vtrain, catalog, open, changed, ownInputs, summarize }) {
  const view = {
    shown: false,
    result: null, // the last answer, with the request that gave it
    request: null,
    stale: true,
    seq: 0,
    timer: 0,
  };

  const form = createOptimalForm({
    root: ownInputs.querySelector('#optimal-fields'),
    errorBox: ownInputs.querySelector('#optimal-form-error'),
    catalog,
    onEdit: (select) => {
      changed();
      runs.schedule(select ? 0 : 600);
    },
    onPreset: () => {
      changed();
      runs.run();
    },
    lastScaling: () => view.result && view.result.scaling,
    lastBudget: () => view.result && { cluster: view.request.cluster, equivalent: view.result.budget.equivalent },
  });
  const kinds = form.kinds;

  // ---------------------------------------------------------------- running

  const FIX = 'Fix the marked inputs to size the model.';
  const runs = formRuns('optimal', {
    view,
    form,
    call: (request, opts) => vtrain.optimal(request, opts),
    starting: 'Finding the fastest plan of every candidate size…',
    invalid: () => FIX,
    failed: (errs) => `The sizing failed: ${errs.map(optimalMessage).join(' ')}`,
    noun: 'answer',
    stale: (text) => summarize({ parts: [text.replace(/\.$/, ''), view.result ? 'the answer is for the last valid inputs' : 'no answer yet'], bad: true }),
    // Candidate sizes follow the budget (1/16 to 1.4 times the FLOP-only size): none is near it
    // when the budget buys less than the smallest model or more than the largest. The page has
    // no inputs for the candidates' sizes, so it says which widths there are (the schema's).
    mapErrors: (errs) => {
      const [narrowest, widest] = catalog.schema.optimal.candidates.hidden;
      return errs.map((x) => (x.code === 'no_candidates'
        ? { ...x, pointer: '/budget', message: `no candidate size lies near what this budget buys (hidden sizes ${narrowest.toLocaleString('en-US')} to ${widest.toLocaleString('en-US')}); change the budget` }
        : x));
    },
    done: (result, request, ms, seq) => {
      render(result, request, seq);
      return `${result.curve.length} candidate sizes, ${result.plans_simulated.toLocaleString('en-US')} plans simulated in ${(ms / 1000).toFixed(1)} s.`;
    },
  });

  // ---------------------------------------------------------------- the answer

  // What the budget is, in the words of the kind it was given in.
  function budgetText(r, req) {
    const b = r.budget;
    const on = `on up to ${b.gpus.toLocaleString('en-US')} × ${catalog.gpuName(b.gpu)}`;
    const price = fmt.usd(req.cluster.price_per_gpu_hour_usd);
    if (req.budget.days != null && b.kind === 'time') return `${fmt.daysGiven(b.days)} ${on}, ${powerOfTen(b.flops)} FLOP at peak`;
    const within = finite(b.deadline_days) ? ` within ${fmt.daysGiven(b.deadline_days)}` : '';
    if (req.budget.gpu_hours != null) return `${fmt.count(req.budget.gpu_hours)} GPU-hours (${fmt.usd(b.usd)} at ${price} per GPU-hour)${within} ${on}`;
    if (req.budget.usd != null) return `${fmt.usd(b.usd)} at ${price} per GPU-hour${within} ${on}`;
    return `${powerOfTen(b.flops)} FLOP, ${fmt.days(b.days)} at peak ${on}`;
  }

  // "would take 74.4 days, 2.5× the budget" or "27.7 days, within the 30-day budget".
  function verdict(r, days, cost, hours) {
    const times = (x) => `${x < 1.1 ? x.toFixed(2) : x.toFixed(1)}×`;
    if (moneyBudget(r)) {
      if (!finite(cost)) return { text: 'no plan fits on these GPUs', over: true };
      const ratio = cost / r.budget.usd;
      const deadline = r.budget.deadline_days;
      if (finite(deadline) && finite(days) && days > deadline * 1.001) {
        return { text: `would take ${fmt.days(days)}, ${times(days / deadline)} the deadline of ${fmt.daysGiven(deadline)}`, over: true };
      }
      // A budget given in GPU-hours is spoken of in GPU-hours, as the simulator converts them.
      const inHours = view.request && view.request.budget && view.request.budget.gpu_hours != null && finite(r.budget.gpu_hours) && finite(hours);
      const spent = inHours ? `${fmt.count(hours)} GPU-hours` : fmt.usd(cost);
      const limit = inHours ? `${fmt.count(r.budget.gpu_hours)} GPU-hours` : fmt.usd(r.budget.usd);
      return ratio > 1.001
        ? { text: `would ${inHours ? 'take' : 'cost'} ${spent}, ${times(ratio)} the budget of ${limit}`, over: true }
        : { text: `${inHours ? 'takes' : 'costs'} ${spent}, within the budget of ${limit}`, over: false };
    }
    if (!finite(days)) return { text: 'no plan fits on these GPUs', over: true };
    const limit = r.budget.days;
    const ratio = days / limit;
    return ratio > 1.001
      ? { text: `would take ${fmt.days(days)}, ${times(ratio)} the budget of ${fmt.daysGiven(limit)}`, over: true }
      : { text: `takes ${fmt.days(days)}, within the budget of ${fmt.daysGiven(limit)}`, over: false };
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

  const openInPlan = (c, tokens) => open('plan', { config: configFor(c, tokens) });

  function openButton(c, tokens) {
    if (!c || !c.plan || !c.has_plan) return null;
    return h('button', { type: 'button', class: 'open-plan', text: 'Open in Plan view', onclick: () => openInPlan(c, tokens) });
  }

  function answerCard({ id, title, note, params, tokens, loss, model, modelNote, plan, gpus, mfu, days, cost, hours, extra, candidate }) {
    const r = view.result;
    const v = verdict(r, days, cost, hours);
    const big = fmt.count(params);
    const cut = big.indexOf(' ');
    const card = h(
      'article',
      { class: `answer ${id}`, id: `answer-${id}`, 'data-params': String(params) },
      h('h3', {}, title, h('span', { class: 'answer-note', text: note }), id === 'flop' ? termButton('flop_only') : null),
      h('p', { class: 'answer-big' },
        h('output', { text: cut < 0 ? big : big.slice(0, cut) }),
        h('span', { class: 'kpi-unit', text: `${cut < 0 ? '' : big.slice(cut + 1)} parameters` })),
      h('p', { class: 'answer-sub', text: `on ${fmt.count(tokens)} tokens · loss ${finite(loss) ? loss.toFixed(4) : fmt.DASH}` }),
      h('p', { class: `verdict ${v.over ? 'over' : 'within'}`, text: v.text }),
    );
    const dl = h('dl', {});
    dl.append(row('Model', `${modelNote || ''}${fmt.shapeText(model)}`));
    dl.append(row('Plan', plan ? `${fmt.planLabel(plan)} · ${fmt.gpus(gpus)}` : 'no plan fits on these GPUs'));
    dl.append(row('MFU', fmt.percent(mfu)));
    dl.append(row('Training', fmt.days(days)));
    dl.append(row('Cost', fmt.usd(cost) + (extra || '')));
    card.append(dl);
    const button = openButton(candidate, tokens);
    if (button) card.append(button);
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
      hours: f.gpu_hours,
      candidate: near,
    }));
    const a = r.achievable;
    $('optimal-rule').textContent = planRuleText(r.plan_rule);
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
        hours: a.gpu_hours,
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
      const v = verdict(r, f.training_days, f.cost_usd, f.gpu_hours);
      lead.append(
        'The scaling law alone says ', h('strong', { text: `${fmt.count(f.params)} parameters` }),
        `, which ${v.text.startsWith('no plan') ? 'no plan on these GPUs can train' : v.text}; the plans this cluster really runs train `, h('strong', { text: `${fmt.count(a.params)} parameters` }),
        ` within the budget (loss ${a.loss.toFixed(4)} against ${f.loss.toFixed(4)}).`,
      );
      if (moneyBudget(r) && r.plan_rule?.objective === 'cost' && finite(a.training_days) && a.training_days > 365) {
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
        fmt.usd(c.cost_usd), fmt.shapeText(c.model), c.plan ? `${fmt.planLabel(c.plan)} · ${fmt.gpus(c.num_gpus)}` : fmt.DASH,
      ];
      for (const text of cells) tr.insertCell().textContent = text;
      openableRow(tr, 'Open this model and plan in the Plan view', () => openInPlan(c, c.tokens));
    }
  }

  function render(r, req, seq) {
    const a0 = r.achievable;
    summarize(a0
      ? { parts: [`achievable: ${fmt.count(a0.params)} parameters`, `${fmt.count(a0.tokens)} tokens`, fmt.days(a0.training_days), fmt.usd(a0.cost_usd)], bad: false }
      : { parts: ['no candidate size trains within this budget'], bad: true });
    $('optimal-result').hidden = false;
    $('optimal-result').classList.remove('stale');
    $('optimal-headline').textContent = `${budgetText(r, req)} · ${scalingText(r.scaling, catalog)}`;
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

  function drawCharts(seq) {
    const r = view.result;
    if (!r || !view.shown) return Promise.resolve();
    const money = moneyBudget(r);
    $('optimal-days-caption').textContent = money ? 'What each size costs to train' : 'How long each size takes to train';
    $('optimal-days-note').textContent = money
      ? `at the simulated plans' cost; the dashed line is the budget`
      : 'at the simulated plans’ speed; the dashed line is the budget';
    const missing = r.curve.filter((c) => !c.has_plan).length;
    const s = r.scaling;
    const ratioNote = s.rule === 'tokens_per_param' ? `; solid: ${fmt.asGiven(s.tokens_per_param)} tokens per parameter, hollow where over the budget; dashed: each size spending the whole budget` : ', each spending the whole budget';
    const gaps = missing ? `; ${missing} size${missing === 1 ? '' : 's'} with no plan on these GPUs left out` : '';
    $('optimal-loss-note').textContent = `one point per candidate size${ratioNote}${gaps}`;
    $('optimal-loss-rule').textContent = lossRule(r).text;
    return Promise.all([drawLoss($('chart-optimal-loss'), r), drawDays($('chart-optimal-days'), r)]).then(() => {
      if (seq === view.seq) document.body.dataset.optimalCharts = String(seq);
    });
  }

  // ---------------------------------------------------------------- downloads

  function csv() {
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
    return fmt.csv([cols.map(([k]) => k), ...view.result.curve.map((c) => cols.map(([, get]) => get(c)))]);
  }

  function fileStem() {
    const req = view.request;
    if (!req) return 'vtrain-optimal';
    const [kind, amount] = Object.entries(req.budget)[0];
    return `vtrain-optimal-${fmt.fieldValue(amount)}${kind.replace('_', '-')}-${req.cluster.num_gpus}gpu`;
  }

  return {
    /** The view became visible: answer when the inputs changed since the last answer. */
    show() {
      view.shown = true;
      form.show();
      if (runs.showFresh() && view.result) drawCharts(view.seq);
    },
    hide() {
      view.shown = false;
    },
    /** The inputs for the link (text as typed): the budget under its kind, then the rest but those the scaling choice hides. */
    state() {
      const v = { ...form.values };
      if (v.scaling !== 'ratio') {
        delete v.tokens_per_param;
        delete v.loss_fit;
      }
      if (v.scaling !== 'custom') for (const k of CUSTOM_KEYS) delete v[k];
      // The plan per size is a money budget's, and its default goes without saying.
      if (!['usd', 'gpu_hours'].includes(v.budget_kind) || v.objective === PLAN_RULES[0][0]) delete v.objective;
      const out = [];
      if (kinds.includes(v.budget_kind) && v.budget) out.push([v.budget_kind, v.budget]);
      for (const k of LINK_KEYS) if (v[k] != null && v[k] !== '') out.push([k, v[k]]);
      return out;
    },
    /** Inputs read from a link; the rest keep the first preset's values. */
    applyState(query) {
      const named = {};
      for (const kind of kinds) {
        if (query.has(kind) && named.budget_kind == null) {
          named.budget_kind = kind;
          named.budget = query.get(kind);
        }
      }
      for (const k of LINK_KEYS) if (query.has(k)) named[k] = query.get(k);
      form.set(named);
      return [];
    },
    download(kind) {
      return runDownload(kind, { view, stem: fileStem, rows: 'sizes', csv, none: 'No answer to download yet' });
    },
  };
}

export default {
  id: 'optimal',
  label: 'Compute-optimal',
  markup,
  // Inputs of its own on the left, in place of the Plan inputs; its link holds only those.
  inputs: { label: 'Budget and scaling inputs', markup: inputsMarkup },
  create,
};

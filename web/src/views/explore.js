// The Explore view: sweeps the plans of the Plan inputs' model and cluster in the sweep worker,
// with a progress bar and Cancel, then shows the best plans, training time against cost
// (explore-charts.js) and a sortable table; any plan opens in the Plan view.
import * as fmt from '../format.js';
import { OBJECTIVES } from '../choices.js';
import { fieldForPointer, fieldMessage } from '../fields.js';
import { errorList, h } from '../form.js';
import { termHtml } from '../glossary.js';
import { openableRow, runControls } from '../sweep.js';
import { drawScatter } from './explore-charts.js';
import { PLAN_KEYS, compare, feasible, planStatus, samePlan } from './explore-plans.js';

const $ = (id) => document.getElementById(id);

const MAX_ROWS = 1000; // table rows drawn at once; the rest are a sort away
// A larger space is refused by the simulator, and the page says how to restrict it. GPT-3 175B's
// whole space on 1,024 GPUs (255,894 plans, 20,291 fit) takes about 11 s in the page's worker,
// 4 s of sweep and the rest moving its 90 MB result to the page; the CLI sweeps it in 1-1.5 s.
const MAX_PLANS = 50000;
// The objective a sweep has by default: a planner's choice, not an extreme (the simulator's own
// default is the cheapest plan).
const DEFAULT_OBJECTIVE = 'balanced';

const option = (value, label) => `<option value="${value}">${label}</option>`;

const markup = `
  <div class="explore-head">
    <p class="explore-intro" id="explore-intro">Simulates every plan for this model and cluster and shows training time against cost.</p>
  </div>
  <div class="explore-controls" role="group" aria-label="Sweep settings">
    <div class="field select">
      <label for="explore-space">Plans to try</label>
      <div class="control">
        <select id="explore-space">
          ${option('grid', 'tp × pp × dp, the rest as in the plan')}
          ${option('all', 'every plan (also micro-batch, recomputation, SP, ZeRO, interleaving)')}
          ${option('sharded', 'every plan, ZeRO-2 and -3 / FSDP too (full and per-node shard groups)')}
        </select>
      </div>
    </div>
    <div class="field">
      <label for="explore-budget">At most</label>
      <div class="control"><input id="explore-budget" type="text" inputmode="numeric" autocomplete="off" aria-describedby="explore-budget-err" /><span class="unit">GPUs</span></div>
      <p class="error" id="explore-budget-err" aria-live="polite" hidden></p>
    </div>
    <div class="field select objective">
      <label for="explore-objective">Best plan</label>
      <div class="control">
        <select id="explore-objective"></select>
      </div>
    </div>
    <div class="field" id="explore-deadline-field" hidden>
      <label for="explore-deadline">Deadline</label>
      <div class="control"><input id="explore-deadline" type="text" inputmode="decimal" autocomplete="off" aria-describedby="explore-deadline-err" /><span class="unit">days</span></div>
      <p class="error" id="explore-deadline-err" aria-live="polite" hidden></p>
    </div>
    <div class="field bool">
      <div class="control"><input id="explore-unfit" type="checkbox" /><label for="explore-unfit">Also time plans that run out of memory</label></div>
    </div>
    <div class="explore-actions">
      <button type="button" id="explore-run" class="primary">Run the sweep</button>
      <button type="button" id="explore-cancel" hidden>Cancel</button>
    </div>
  </div>
  <div id="explore-progress-wrap" class="progress-wrap" hidden>
    <progress id="explore-progress" max="1" value="0" aria-label="Sweep progress"></progress>
    <span id="explore-progress-text" class="progress-text"></span>
  </div>
  <p id="explore-status" class="status" aria-live="polite"></p>
  <div id="explore-best" class="best"></div>
  <figure class="chart-card" id="explore-figure" hidden>
    <figcaption>Training time against cost, one point per plan; ★ the time–cost frontier${termHtml('frontier')} <span class="caption-note">click a point to open the plan</span></figcaption>
    <div id="chart-scatter" class="chart chart-tall" role="img" aria-label="Training days against cost for every plan"></div>
  </figure>
  <div class="table-wrap" id="explore-table-wrap" hidden>
    <table id="explore-table" class="plans">
      <caption id="explore-caption">Every plan. Click a column to sort, a row to open it.</caption>
      <thead></thead>
      <tbody></tbody>
    </table>
  </div>`;

// The plan fields other than tp, pp and dp that take more than one value in a sweep.
function varyingFields(plans) {
  const out = new Set();
  for (const k of ['virtual_stages', 'micro_batch', 'recompute', 'sequence_parallel', 'zero_stage']) {
    if (new Set(plans.map((p) => p[k])).size > 1) out.add(k);
  }
  return out;
}

const COLUMNS = [
  { key: 'plan', label: 'Plan', value: (p, varying) => fmt.planLabel(p, varying), sort: (p) => [p.tp, p.pp, p.dp, p.virtual_stages, p.micro_batch] },
  { key: 'num_gpus', label: 'GPUs', value: (p) => p.num_gpus.toLocaleString('en-US') },
  { key: 'iteration_time_s', label: 'Iteration', value: (p) => fmt.duration(p.iteration_time_s) },
  { key: 'training_days', label: 'Training', value: (p) => fmt.days(p.training_days) },
  { key: 'cost_usd', label: 'Cost', value: (p) => fmt.usd(p.cost_usd) },
  { key: 'mfu', label: 'MFU', value: (p) => fmt.percent(p.mfu) },
  { key: 'memory_GiB', label: 'Memory / GPU', value: (p) => fmt.gib(p.memory_GiB) },
  { key: 'status', label: 'Status', value: planStatus, sort: (p) => [p.pareto ? 0 : feasible(p) ? 1 : 2, p.training_days] },
];

/** "the cheapest within 30 days: tp 8 · pp 21 · dp 8 …", for the status line. */
function bestText(r) {
  const o = r.question.objective;
  const what = o === 'deadline' ? `the cheapest within ${fmt.daysGiven(r.question.deadline_days)}` : OBJECTIVES[o]?.short || o;
  return r.best ? `best for the objective, ${what}: ${fmt.planLabel(r.best)}` : `no plan is ${what}`;
}

const share = (x) => fmt.percent(Math.abs(x), 0);

/** Why the best plan is the best, in a sentence, against the extremes a click away. */
export function whyBest(r) {
  const b = r.best;
  const f = r.best_time;
  const c = r.best_cost;
  if (!b || !f || !c) return '';
  const o = r.question.objective;
  if (o === 'balanced') {
    const slack = r.question.time_slack;
    const limit = f.training_days * (1 + slack);
    if (b.index === f.index) {
      return `No plan that trains within ${share(slack)} more days than the fastest (${fmt.days(limit)}) is cheaper, so the fastest is also the balanced plan. The cheapest of all takes ${fmt.days(c.training_days)}.`;
    }
    return `The cheapest plan within ${share(slack)} more days than the fastest (${fmt.days(limit)} at most): ${share(1 - b.gpu_hours / f.gpu_hours)} cheaper than the fastest for ${share(b.training_days / f.training_days - 1)} more time. The cheapest of all takes ${fmt.days(c.training_days)}.`;
  }
  if (o === 'deadline') return `The cheapest plan that trains within ${fmt.daysGiven(r.question.deadline_days)}.`;
  if (o === 'expected_time') return `The fewest expected days with failures, restarts and checkpoints: ${fmt.days(b.expected_days)}, ${fmt.days(b.training_days)} of them training; the fastest plan by training days expects ${fmt.days(f.expected_days)}.`;
  if (o === 'cost') return `The cheapest plan, however long it takes: ${fmt.days(b.training_days)}, against ${fmt.days(f.training_days)} for the fastest.`;
  return `The fastest plan, whatever it costs: ${share(f.gpu_hours / c.gpu_hours - 1)} more than the cheapest.`;
}

function create(panel, { vtrain, catalog, planInputs: inputs, open, changed }) {
  const view = {
    shown: false,
    result: null,
    stale: true,
    sort: { key: 'status', dir: 1 },
    space: 'grid',
    budget: '', // '' follows the cluster's GPU count
    unfit: false, // whether plans that do not fit in memory are timed too
    objective: DEFAULT_OBJECTIVE, // balanced | cost | time | deadline
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

  // The simulator's explore cases and objectives (its schema), in the page's words where it has some.
  const cases = catalog.exploreCases;
  for (const c of cases) spaceSelect.append(h('option', { value: c.name, text: c.label }));
  const objectives = catalog.choices('objective');
  if (!objectives.some(([name]) => name === DEFAULT_OBJECTIVE)) view.objective = objectives[0]?.[0];
  const defaultObjective = view.objective;
  for (const [name, label] of [...objectives].sort(([a], [b]) => (b === defaultObjective) - (a === defaultObjective))) {
    objectiveSelect.append(h('option', { value: name, text: OBJECTIVES[name]?.option || label }));
  }
  const knownCase = () => cases.find((c) => c.name === view.space);

  function budget() {
    const text = String(view.budget || inputs.values.num_gpus || '').trim();
    const v = fmt.parseNumber(text);
    return v != null && Number.isInteger(v) && v > 0 ? v : null;
  }

  function showSettings() {
    const v = inputs.values;
    spaceSelect.value = view.space;
    budgetInput.value = view.budget || String(v.num_gpus || '');
    unfitBox.checked = view.unfit;
    objectiveSelect.value = view.objective;
    deadlineInput.value = view.deadline;
    $('explore-deadline-field').hidden = view.objective !== 'deadline';
    const b = budget();
    const model = catalog.model(inputs.preset);
    const tokens = fmt.parseNumber(v.tokens || '');
    const batch = fmt.parseNumber(v.global_batch || '');
    $('explore-intro').textContent = `Plans for ${model ? model.description : 'this model'} on at most ${b ? b.toLocaleString('en-US') : '?'} × ${catalog.gpuName(v.gpu)} (global batch ${batch ? batch.toLocaleString('en-US') : '?'}, ${tokens ? fmt.count(tokens) : '?'} tokens): training time against cost.`;
  }

  // The request: the inputs, a GPU budget, and which plans to try.
  function request() {
    const { config, errors } = inputs.config();
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
    } else if (view.space === 'sharded') {
      // ZeRO-3's shard group: all of dp (FULL_SHARD) or one node (HSDP), as FSDP users choose.
      Object.assign(explore, { zero_stage: [0, 1, 2, 3], shard_group: [0, config.cluster.gpus_per_node] });
    }
    const req = { ...config, cluster: { ...config.cluster, num_gpus: b }, explore };
    const known = knownCase();
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
    const known = knownCase();
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
    panel.classList.toggle('stale', Boolean(stale && view.result));
  }

  async function run() {
    controls.abort();
    const { request: req, errors } = request();
    if (errors) {
      // A sweep of the inputs before is dropped without a word, so that the reason stays.
      controls.stop();
      document.body.dataset.explore = 'invalid';
      if (errors.some((x) => fieldForPointer(x.pointer))) inputs.showErrors(errors);
      const what = errors.length === 1 && errors[0].pointer === '' ? errors[0].message : null;
      setStatus(what === 'the deadline'
        ? 'Enter a deadline of more than 0 days, then explore: the best plan is the cheapest that finishes within it.'
        : what === 'the GPU budget' ? 'Enter the most GPUs a plan may use, then explore.' : 'Fix the marked inputs, then explore.', true);
      markStale(true);
      return;
    }
    view.stale = false;
    const controller = controls.start('Simulating every plan…');
    document.body.dataset.explore = 'running';
    const t0 = performance.now();
    try {
      const result = await vtrain.explore(req, { signal: controller.signal, onProgress: setProgress });
      if (!controls.current(controller)) return;
      const ms = performance.now() - t0;
      setProgress(1);
      view.result = result;
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
        const errs = errorList(e);
        if (errs.some((x) => fieldForPointer(x.pointer))) inputs.showErrors(errs);
        const onDeadline = errs.filter((x) => x.pointer === '/explore/deadline_days');
        if (onDeadline.length) showDeadlineError(onDeadline.map((x) => fieldMessage(x.message, x.pointer)).join('\n'));
        setStatus(failureText(errs), true);
        markStale(true);
      }
      document.body.dataset.explore = 'stopped';
    } finally {
      controls.finish(controller);
    }
  }

  /** Opens a plan of the sweep in the Plan view; the sweep still holds, only "your plan" moves. */
  function openPlan(plan, { compare = false } = {}) {
    // The sweep's GPU budget stays what it was, though this plan may use fewer GPUs.
    if (!view.budget && view.result) view.budget = String(view.result.question.max_gpus);
    showSettings();
    return open('plan', { plan, compare }).then((ok) => {
      if (view.result) {
        renderBest();
        renderTable();
      }
      return ok;
    });
  }

  function card(title, plan, note) {
    const box = document.createElement('div');
    box.className = 'kpi';
    const label = document.createElement('span');
    label.className = 'kpi-label';
    label.textContent = title;
    const best = view.result.best;
    const isBest = best && plan.index === best.index;
    if (isBest) {
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
    sub.textContent = `${fmt.planLabel(plan)} · ${fmt.gpus(plan.num_gpus)}${note ? ` · ${note}` : ''}`;
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = 'Open in Plan view';
    button.addEventListener('click', () => openPlan(plan));
    const buttons = h('div', { class: 'card-buttons' }, button);
    // Side by side with the plan the Plan view shows (which is pinned), unless it is that plan.
    const shown = current();
    if (!(shown && samePlan(shown, plan)) && inputs.result) {
      buttons.append(h('button', { type: 'button', class: 'compare-button', text: 'Compare with your plan', onclick: () => openPlan(plan, { compare: true }) }));
    }
    box.append(label, value, sub);
    // The best plan says why it is the best.
    if (isBest) box.append(h('p', { class: 'kpi-why', text: whyBest(view.result) }));
    box.append(buttons);
    return box;
  }

  // The sweep's plan that the Plan view shows, if it is one of them.
  function current() {
    const r = view.result;
    const shown = inputs.result;
    if (!r || !shown) return null;
    return r.plans.find((p) => samePlan(p, shown.config.plan)) || null;
  }

  function renderBest() {
    const box = $('explore-best');
    box.textContent = '';
    const r = view.result;
    const deadline = r.question.deadline_days;
    // The best plan for the objective first, then the two extremes, a click away from it.
    if (r.best && ![r.best_time, r.best_cost].some((p) => p && p.index === r.best.index)) {
      box.append(card(r.question.objective === 'deadline' ? `Cheapest within ${fmt.daysGiven(deadline)}` : OBJECTIVES[r.question.objective]?.card || 'Best plan', r.best));
    }
    if (r.best_time) box.append(card('Fastest plan', r.best_time));
    if (r.best_cost && (!r.best_time || r.best_cost.index !== r.best_time.index)) box.append(card('Cheapest plan', r.best_cost));
    const mine = current() || r.baseline;
    if (mine) box.append(card('Your plan', mine, feasible(mine) ? '' : planStatus(mine)));
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

  function renderScatter() {
    $('explore-figure').hidden = false;
    return drawScatter($('chart-scatter'), view.result, { mine: current() || view.result.baseline, onOpen: openPlan });
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
    // Plans that can run come first whatever the column and direction: one that does not fit in
    // memory, or needs more GPUs than the budget, never sorts above one that runs.
    const rows = [...r.plans].sort((a, b) => {
      const group = Number(!feasible(a)) - Number(!feasible(b));
      if (group) return group;
      const ka = key(a);
      const kb = key(b);
      const missing = compare(ka, kb);
      // Missing values stay last in both directions.
      if (ka == null || kb == null) return missing;
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
      openableRow(row, `Open ${fmt.planLabel(p)}`, () => openPlan(p));
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

  function settingsChanged() {
    view.stale = true;
    showSettings();
    changed();
    if (view.shown) run();
  }

  // The Plan inputs changed: the sweep no longer matches them. An example keeps a case study's
  // grid only if it is the case's own.
  function inputsChanged(change) {
    if (change.reason === 'example') {
      const known = knownCase();
      if (known && known.example !== change.name) {
        view.space = 'grid';
        changed();
      }
      showSettings();
    }
    view.stale = true;
    showSettings();
    markStale(true);
    if (view.result && !controls.running) setStatus('The inputs changed: explore again to update the plans.');
  }

  spaceSelect.addEventListener('change', () => {
    view.space = spaceSelect.value;
    const known = knownCase();
    // A case study starts from its example's inputs.
    if (known) {
      view.budget = '';
      inputs.loadExample(known.example);
    }
    settingsChanged();
  });
  budgetInput.addEventListener('change', () => {
    const text = budgetInput.value.trim();
    view.budget = text === String(inputs.values.num_gpus || '') ? '' : text;
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
  inputs.subscribe(inputsChanged);

  return {
    /** The view became visible: sweep when the inputs changed since the last sweep. */
    show() {
      view.shown = true;
      showSettings();
      if (view.stale && !controls.running) run();
      else if (view.result) renderScatter();
    },
    hide() {
      view.shown = false;
    },
    /** Settings for the link: which plans, the GPU budget, whether unfit plans are timed, the objective. */
    state() {
      const out = [];
      if (view.space !== 'grid') out.push(['space', view.space]);
      if (view.budget) out.push(['budget', view.budget]);
      if (view.unfit) out.push(['unfit', '1']);
      if (view.objective !== defaultObjective) out.push(['objective', view.objective]);
      if (view.objective === 'deadline' && view.deadline) out.push(['deadline', view.deadline]);
      return out;
    },
    /** Settings from a link; returns the [name, value] pairs it did not know. */
    applyState(query) {
      const ignored = [];
      const space = query.get('space');
      if (space && (space === 'grid' || space === 'all' || space === 'sharded' || cases.some((c) => c.name === space))) view.space = space;
      else if (space) ignored.push(['space', space]);
      if (query.get('budget') != null) view.budget = query.get('budget');
      if (query.has('unfit')) view.unfit = query.get('unfit') === '1';
      const objective = query.get('objective');
      if (objective && objectives.some(([name]) => name === objective)) view.objective = objective;
      else if (objective) ignored.push(['objective', objective]);
      const deadline = query.get('deadline');
      if (deadline != null && deadline !== '') view.deadline = deadline;
      showSettings();
      return ignored;
    },
    /** Every explored plan; without a sweep, the Plan view's download. */
    download(kind) {
      const r = view.result;
      if (!r) return null;
      const stem = `${fmt.fileStem(inputs.result?.config)}-plans`;
      if (kind === 'json') return { name: `${stem}.json`, type: 'application/json', text: JSON.stringify({ link: location.href, result: r }, null, 2) };
      const keys = [...PLAN_KEYS, 'num_gpus', 'iteration_time_s', 'training_days', 'gpu_hours', 'cost_usd', 'energy_MWh', 'mfu',
        'memory_GiB', 'fits_in_memory', 'within_gpu_limit', 'simulated', 'pareto'];
      return { name: `${stem}.csv`, type: 'text/csv', text: fmt.csv([keys, ...r.plans.map((p) => keys.map((k) => p[k]))]) };
    },
  };
}

export default { id: 'explore', label: 'Explore plans', markup, create };

// The Plan view: simulates the Plan inputs as they are edited and shows the answer: iteration
// time, training time, cost, MFU, throughput and memory, the simulator's warnings and accuracy
// record, where the time and memory go, the timeline of one iteration and every operator's time.
// In an embedded page (?embed=1) it fills the card instead.
import * as fmt from '../format.js';
import { h, errorList } from '../form.js';
import { fieldMessage, shortName } from '../fields.js';
import { termButton, termHtml } from '../glossary.js';
import { toText } from '../plan-inputs.js';
import { renderOperators } from './operators.js';
import { renderCard, cardStatus } from './plan-card.js';
import { accuracyNote, accuracyShort } from '../accuracy.js';
import { PARTS, drawBreakdown, drawMemory, drawTimeline } from './plan-charts.js';
import { drawCompareCharts, renderCompare } from './plan-compare.js';
import { configOf } from '../plan-inputs.js';

const $ = (id) => document.getElementById(id);
/** A sentence of the simulator's (lower-case first word) as the page shows it. */
const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);

const markup = `
  <p id="status" class="status" aria-live="polite"></p>
  <p id="headline" class="headline" tabindex="-1"></p>
  <div class="kpis" id="kpis" data-summary-anchor>
    <div class="kpi"><span class="kpi-label">Iteration time${termHtml('iteration')}</span><output id="kpi-iteration" class="kpi-value">—</output><span class="kpi-sub" id="kpi-iteration-sub"></span></div>
    <div class="kpi"><span class="kpi-label">Training time</span><output id="kpi-days" class="kpi-value">—</output><span class="kpi-sub" id="kpi-days-sub"></span></div>
    <div class="kpi"><span class="kpi-label">Cost</span><output id="kpi-cost" class="kpi-value">—</output><span class="kpi-sub" id="kpi-cost-sub"></span></div>
    <div class="kpi"><span class="kpi-label">MFU${termHtml('mfu')}</span><output id="kpi-mfu" class="kpi-value">—</output><span class="kpi-sub" id="kpi-mfu-sub"></span></div>
    <div class="kpi"><span class="kpi-label">Tokens/s</span><output id="kpi-tps" class="kpi-value">—</output><span class="kpi-sub" id="kpi-tps-sub"></span></div>
    <div class="kpi"><span class="kpi-label">Memory per GPU</span><output id="kpi-mem" class="kpi-value">—</output><span class="kpi-sub" id="kpi-mem-sub"></span></div>
  </div>
  <p id="accuracy" class="accuracy-note" hidden></p>
  <ul id="warnings" class="warnings" hidden></ul>
  <div class="pin-row">
    <button type="button" id="pin-plan" aria-controls="compare">Pin this plan to compare</button>
    <span class="caption-note" id="pin-hint">then change the inputs, or open a plan from Explore: both stand side by side</span>
  </div>
  <section id="compare" class="compare" hidden aria-labelledby="compare-title">
    <div class="compare-head">
      <h2 id="compare-title">Pinned against current</h2>
      <div class="compare-actions">
        <button type="button" id="compare-swap">Swap</button>
        <button type="button" id="compare-unpin">Unpin</button>
      </div>
    </div>
    <p id="compare-lead" class="compare-lead" aria-live="polite"></p>
    <div class="table-wrap compare-wrap"><table id="compare-table" class="plans compare-table"></table></div>
    <div class="charts">
      <figure class="chart-card">
        <figcaption>Where the iteration time goes <span class="caption-note">each plan's busiest stage</span></figcaption>
        <div id="chart-compare-time" class="chart chart-short" role="img" aria-label="Time breakdown of the pinned and the current plan"></div>
      </figure>
      <figure class="chart-card">
        <figcaption>Memory per GPU <span class="caption-note">each plan's fullest stage; dashed: its GPU's capacity</span></figcaption>
        <div id="chart-compare-memory" class="chart chart-short" role="img" aria-label="Memory per GPU of the pinned and the current plan"></div>
      </figure>
    </div>
  </section>
  <div class="charts">
    <figure class="chart-card">
      <figcaption>Where the iteration time goes${termHtml('bubble')} <span class="caption-note" id="breakdown-note"></span></figcaption>
      <div id="chart-breakdown" class="chart chart-short" role="img" aria-label="Time breakdown of one iteration"></div>
    </figure>
    <figure class="chart-card">
      <figcaption>Memory per GPU <span class="caption-note" id="memory-note"></span></figcaption>
      <div id="chart-memory" class="chart chart-short" role="img" aria-label="Memory per GPU against its capacity"></div>
    </figure>
    <figure class="chart-card chart-wide">
      <figcaption>One iteration, stage by stage <span class="caption-note">drag to zoom, double-click to reset</span></figcaption>
      <div id="chart-timeline" class="chart chart-tall" role="img" aria-label="Timeline of one iteration per pipeline stage"></div>
    </figure>
    <figure class="chart-card chart-wide" id="ops-figure" hidden>
      <figcaption>Operator by operator <span class="caption-note" id="ops-note"></span></figcaption>
      <div class="ops-wrap"><table class="ops" id="ops-table"></table></div>
      <p class="chart-note" id="ops-foot"></p>
    </figure>
  </div>`;

/** "tp 8 · pp 8 · dp 16 · micro-batch 1 · global batch 1,536 · recompute full": the plan in words. */
function planText(c) {
  const p = c.plan;
  const parts = [`tp ${p.tp}`, `pp ${p.pp}`, `dp ${p.dp}`];
  if (p.cp > 1) parts.push(`cp ${p.cp}`);
  if (p.ep > 1) parts.push(`ep ${p.ep}`);
  if (p.virtual_stages > 1) parts.push(`${p.virtual_stages} virtual stages`);
  parts.push(`micro-batch ${p.micro_batch}`, `global batch ${p.global_batch.toLocaleString('en-US')}`, `recompute ${p.recompute}`);
  if (p.sequence_parallel) parts.push('sequence parallel');
  if (p.zero_stage) parts.push(`ZeRO-${p.zero_stage}`);
  if (p.zero_stage === 3 && p.shard_group) parts.push(`sharded over ${p.shard_group} GPUs (HSDP)`);
  if (p.zero_stage === 3 && p.shard_device_sync) parts.push('device synchronized before each layer');
  if (p.optimizer_offload) parts.push('optimizer on the CPU');
  if (p.moe_permute_sync) parts.push('host waits on token permutations');
  return parts.join(' · ');
}

/** The download of a result: a row per quantity with its unit. */
function planCsv(r) {
  const rows = [['quantity', 'value', 'unit']];
  const add = (q, v, u) => {
    if (typeof v === 'number' && Number.isFinite(v)) rows.push([q, v, u]);
  };
  add('iteration_time', r.iteration_time_s, 's');
  for (const p of PARTS) add(`breakdown.${p.key}`, r.breakdown_s[p.key], 's');
  add('training_days', r.training_days, 'days');
  if (r.goodput) {
    add('expected_days', r.goodput.expected_days, 'days');
    for (const [k, v] of Object.entries(r.goodput.parts_days)) add(`goodput.${k}`, v, 'days');
    add('goodput.lost_share', r.goodput.lost_share, 'fraction');
  }
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
  return fmt.csv(rows);
}

function create(panel, { vtrain, catalog, planInputs: inputs, embed, show, changed, toast, link, summarize }) {
  let shown = false;
  let seq = 0; // increases with every simulation request; older replies are dropped
  let result = null; // the last good result (without its timeline)
  let timeline = null; // the same run with its timeline, once fetched
  let timelineDrawn = 0;
  let coreErrors = []; // the simulator's errors for the last inputs it saw
  // The pinned plan: {snap (the inputs, plan-inputs.js's snapshot()), result, label}, or null;
  // pendingPin holds a link's pin.* pairs until the inputs they are read over are in place.
  let pinned = null;
  let pendingPin = null;
  let timer = 0;
  const results = document.getElementById('results');

  const modelName = (r) => catalog.model(r.config.model.name)?.description || 'Custom model';

  function schedule(delay) {
    clearTimeout(timer);
    timer = setTimeout(() => simulateNow(), delay);
  }

  async function simulateNow() {
    clearTimeout(timer);
    const mine = ++seq;
    changed();
    const { config, errors } = inputs.config();
    if (errors.length) {
      // The simulator's last word on the other fields still holds until they can be checked again.
      const typed = new Set(errors.map((e) => e.pointer));
      const all = [...errors, ...coreErrors.filter((e) => !typed.has(e.pointer))];
      inputs.showErrors(all);
      showStale(true, all);
      return false;
    }
    try {
      const r = await vtrain.simulate({ ...config, output: { timeline: false, operators: !embed } });
      if (mine !== seq) return false;
      coreErrors = [];
      inputs.showErrors([]);
      result = r;
      timeline = null;
      renderResult(r, mine);
      fetchTimeline(mine, config);
      return true;
    } catch (e) {
      if (mine !== seq || e.code === 'cancelled') return false;
      coreErrors = errorList(e);
      inputs.showErrors(coreErrors);
      showStale(true, coreErrors);
      return false;
    }
  }

  async function fetchTimeline(mine, config) {
    if (embed) return;
    try {
      // The timeline can be megabytes; it is computed beside, not before, the next quick result.
      const full = await vtrain.simulate({ ...config, output: { timeline: true, operators: true } }, { priority: 'low' });
      if (mine !== seq) return;
      timeline = full;
      performance.mark('vtrain:timeline-data', { detail: mine });
      if (shown) drawTimelineNow(mine);
    } catch (e) {
      if (mine === seq && e.code !== 'cancelled') setChartMessage($('chart-timeline'), 'The timeline could not be computed.');
    }
  }

  function setChartMessage(el, text) {
    el.textContent = '';
    el.append(h('div', { class: 'placeholder', text }));
  }

  function drawTimelineNow(mine) {
    const el = $('chart-timeline');
    const r = timeline;
    if (!r || timelineDrawn === mine) return;
    timelineDrawn = mine;
    if (!r.timeline || r.timeline.length === 0) {
      const omitted = r.warnings.find((w) => w.code === 'timeline_omitted');
      setChartMessage(el, omitted ? capital(omitted.message) : 'No timeline for this run.');
      chartDone(mine, 'timeline');
      return;
    }
    drawTimeline(el, r).then(() => {
      if (mine === seq) document.body.dataset.timeline = String(mine);
      chartDone(mine, 'timeline');
    });
  }

  // The small charts, when the view shows; body's data-charts then names the result they show.
  function drawCharts(r, mine) {
    const charts = shown ? [drawBreakdown($('chart-breakdown'), r), drawMemory($('chart-memory'), r)] : [];
    if (shown && pinned && pinned.result) charts.push(drawCompareCharts($('chart-compare-time'), $('chart-compare-memory'), pinned.result, r));
    Promise.all(charts).then(() => {
      if (mine === seq) document.body.dataset.charts = String(mine);
      if (shown) chartDone(mine, 'small');
    });
  }

  // Every chart of a result is drawn: body's data-plan-charts names it, and a performance mark
  // (detail: the result's number) times it against the result's own mark, vtrain:result.
  let drawn = { mine: 0, parts: new Set() };
  function chartDone(mine, part) {
    if (mine !== seq) return;
    if (drawn.mine !== mine) drawn = { mine, parts: new Set() };
    drawn.parts.add(part);
    if (drawn.parts.size === 2 && document.body.dataset.planCharts !== String(mine)) {
      document.body.dataset.planCharts = String(mine);
      performance.mark('vtrain:plan-charts', { detail: mine });
    }
  }

  // `errors`, when stale: what stops the result, the first of them for the summary bar.
  function showStale(stale, errors = []) {
    results.classList.toggle('stale', stale && Boolean(result));
    const status = $('status');
    if (stale) {
      const e = errors[0];
      const said = e ? fieldMessage(e.message, e.pointer || null) : '';
      const what = e ? (e.pointer ? `${shortName(e.pointer)}: ${said.charAt(0).toLowerCase()}${said.slice(1)}` : said) : 'Fix the marked inputs';
      summarize({ parts: [what, result ? 'the figures are from the last valid inputs' : 'no result yet'], bad: true });
      status.textContent = result
        ? 'Fix the marked inputs to update the result; the numbers below are from the last valid inputs.'
        : 'Fix the marked inputs to see a result.';
      status.classList.add('bad');
      cardStatus('This link has invalid inputs.');
    } else {
      status.textContent = '';
      status.classList.remove('bad');
    }
  }

  // "26.44 s" shows as a large number and a smaller unit.
  // `raw` (the unrounded number) is kept in data-value for anyone who reads the page.
  // `term`: a glossary entry whose "?" follows the sub-line.
  function setKpi(id, value, sub, bad = false, raw = undefined, term = null) {
    const out = $(id);
    if (typeof raw === 'number' && Number.isFinite(raw)) out.dataset.value = String(raw);
    else delete out.dataset.value;
    const cut = value.indexOf(' ');
    out.textContent = cut < 0 ? value : value.slice(0, cut);
    if (cut >= 0) out.append(h('span', { class: 'kpi-unit', text: value.slice(cut + 1) }));
    $(`${id}-sub`).textContent = sub || '';
    if (term && sub) $(`${id}-sub`).append(termButton(term));
    out.closest('.kpi').classList.toggle('bad', bad);
  }

  function renderResult(r, mine) {
    showStale(false);
    const c = r.config;
    const nodes = Math.ceil(c.cluster.num_gpus / c.cluster.gpus_per_node);
    $('headline').textContent = '';
    $('headline').append(
      h('strong', { text: modelName(r) }),
      ` (${fmt.count(r.parameters.total)} parameters) on ${c.cluster.num_gpus.toLocaleString('en-US')} × ${catalog.gpuName(c.cluster.gpu)}, ${nodes.toLocaleString('en-US')} node${nodes === 1 ? '' : 's'}`,
      h('br'),
      h('span', { class: 'plan', text: `${planText(c)} · ${r.micro_batches} micro-batches per iteration` }),
    );
    setKpi('kpi-iteration', fmt.duration(r.iteration_time_s), `${fmt.duration(r.breakdown_s.pipeline_bubble)} of it pipeline bubble`, false, r.iteration_time_s, 'bubble');
    const t = r.training;
    // Ideal days; with failures, restarts and checkpoints the expected days, and where the rest goes.
    const g = r.goodput;
    const split = g && g.expected_days != null && g.expected_days > g.ideal_days
      ? `; expected ${fmt.days(g.expected_days)} with failures (${fmt.percent(g.lost_share)} lost: checkpoints ${fmt.days(g.parts_days.checkpoint_days)}, redone work ${fmt.days(g.parts_days.lost_work_days)}, restarts ${fmt.days(g.parts_days.restart_days)})`
      : g && !g.finite ? '; failures come faster than it progresses' : '';
    setKpi('kpi-days', t ? fmt.days(r.training_days) : fmt.DASH, t ? `${fmt.count(t.iterations)} iterations, ${fmt.count(t.tokens)} tokens${split}` : 'set training tokens', false, r.training_days);
    setKpi(
      'kpi-cost',
      r.cost_usd != null ? fmt.usd(r.cost_usd) : fmt.DASH,
      t ? `${fmt.count(t.gpu_hours)} GPU-hours${r.cost_usd != null ? ` at ${fmt.usd(c.cluster.price_per_gpu_hour_usd)}` : ''}, ${fmt.sig(t.energy_MWh)} MWh` : 'set training tokens',
      false,
      r.cost_usd,
      t ? 'gpu_hours' : null,
    );
    setKpi('kpi-mfu', fmt.percent(r.mfu), `HFU ${fmt.percent(r.hfu)}`, false, r.mfu, 'hfu');
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
    // The same words as the embed card's, then the runs they come from.
    $('accuracy').textContent = '';
    if (r.accuracy) $('accuracy').append(h('strong', { class: 'accuracy-short', text: `${accuracyShort(r)}.` }), ` ${accuracyNote(r)}`);
    $('accuracy').hidden = !r.accuracy;
    inputs.showWhy(r.warnings.filter((w) => w.code === 'no_effect'));
    const list = $('warnings');
    list.textContent = '';
    for (const w of warnings) list.append(h('li', { text: w }));
    list.hidden = warnings.length === 0;
    const off = r.details.offload;
    // Optimizer offload: the step's parts (CPU Adam, PCIe both ways) and the host memory it holds.
    $('breakdown-note').textContent = `stage ${r.breakdown_stage}, the busiest` +
      (off ? `; the optimizer on the CPU: Adam ${fmt.duration(off.cpu_step_s)}, PCIe ${fmt.duration(off.gradient_exposed_s + off.parameter_copy_s)}` : '');
    if (!embed) renderOperators($('ops-figure'), $('ops-table'), $('ops-note'), $('ops-foot'), r);
    $('memory-note').textContent = `stage ${r.memory_stage}, the fullest` +
      (off ? `; its optimizer states in host memory, ${fmt.gib(off.host_GiB)} a GPU` : '');

    summarize({
      parts: [
        `${fmt.duration(r.iteration_time_s)} per iteration`,
        r.training ? fmt.days(r.training_days) : null,
        r.cost_usd != null ? fmt.usd(r.cost_usd) : null,
        r.fits_in_memory ? `${fmt.gib(r.memory_GiB.total)}, fits` : `${fmt.gib(r.memory_GiB.total)}, does not fit`,
      ].filter(Boolean),
      bad: !r.fits_in_memory,
    });
    const answer = r.training ? [fmt.days(r.training_days), r.cost_usd != null ? fmt.usd(r.cost_usd) : null] : [`${fmt.duration(r.iteration_time_s)} per iteration`];
    document.title = `${modelName(r)} on ${fmt.gpus(c.cluster.num_gpus)}: ${answer.filter(Boolean).join(', ')} · vtrain`;
    results.dataset.rendered = String(mine);
    performance.mark('vtrain:result', { detail: mine });
    if (embed) {
      renderCard(r, {
        title: `${modelName(r)} on ${c.cluster.num_gpus.toLocaleString('en-US')} × ${catalog.gpuName(c.cluster.gpu)}`,
        sub: planText(c),
        link: link({ embed: false, view: 'plan' }),
      });
    }
    inputs.setResult(r);
    renderPinned();

    // Charts after the numbers have been painted.
    if (!embed) {
      setTimeout(() => {
        if (mine === seq) drawCharts(r, mine);
      }, 0);
    }
  }

  // ---------------------------------------------------------------- the pinned plan

  const shortPlan = (c) => `${catalog.model(c.model.name)?.description || 'custom model'} · ${fmt.planLabel({ ...c.plan })} · ${fmt.gpus(c.cluster.num_gpus)}`;

  // The comparison, when a plan is pinned and both plans have a result.
  function renderPinned() {
    const box = $('compare');
    box.hidden = !pinned;
    $('pin-plan').textContent = pinned ? 'Pin the current plan instead' : 'Pin this plan to compare';
    $('pin-hint').hidden = Boolean(pinned);
    if (!pinned) return;
    if (pinned.error) {
      $('compare-lead').textContent = `The pinned plan cannot be simulated: ${pinned.error}`;
      $('compare-table').textContent = '';
      return;
    }
    if (!pinned.result || !result) return;
    renderCompare({ table: $('compare-table'), lead: $('compare-lead') }, pinned.result, result, {
      pinned: shortPlan(pinned.result.config), current: shortPlan(result.config),
    });
  }

  function pinCurrent() {
    if (!result) return;
    pinned = { snap: inputs.snapshot(), result };
    renderPinned();
    drawCharts(result, seq);
    changed();
  }

  // A pinned plan read from a link: simulated once, beside the current one.
  async function simulatePinned() {
    const { config, errors } = configOf(pinned.snap.values, pinned.snap.preset);
    const mine = pinned;
    if (errors.length) {
      mine.error = errors.map((e) => fieldMessage(e.message, null)).join(' ');
    } else {
      try {
        mine.result = await vtrain.simulate({ ...config, output: { timeline: false, operators: false } });
      } catch (e) {
        mine.error = errorList(e).map((x) => fieldMessage(x.message, null)).join(' ');
      }
    }
    if (pinned !== mine) return;
    renderPinned();
    if (result) drawCharts(result, seq);
  }

  $('pin-plan').addEventListener('click', pinCurrent);
  $('compare-unpin').addEventListener('click', () => {
    pinned = null;
    renderPinned();
    changed();
    $('pin-plan').focus();
  });
  // The pinned plan becomes the current one, and the current one is pinned.
  $('compare-swap').addEventListener('click', async () => {
    if (!pinned || !result) return;
    const was = { snap: inputs.snapshot(), result };
    inputs.restore(pinned.snap);
    pinned = was;
    await simulateNow();
  });

  // Edits are simulated once typing pauses; an example at once.
  inputs.subscribe((change) => {
    if (change.reason === 'edit') schedule(change.delay);
    else if (change.reason === 'example') simulateNow();
  });

  return {
    /** The first simulation of the inputs a link gave (and of its pinned plan): the page is ready once both are shown. */
    async start() {
      const ok = await simulateNow();
      if (pendingPin) {
        pinned = { snap: inputs.overlay(pendingPin) };
        pendingPin = null;
        renderPinned();
        await simulatePinned();
      }
      return ok;
    },
    show() {
      shown = true;
      if (!result) return;
      // Charts drawn while hidden have no size: redraw now that the view shows.
      drawCharts(result, seq);
      timelineDrawn = 0;
      drawTimelineNow(seq);
    },
    hide() {
      shown = false;
    },
    /**
     * The Plan view's link is the Plan inputs, and a pinned plan as pin=1 and pin.<key> for each
     * input where it differs from them.
     */
    state() {
      if (!pinned) return [];
      return [['pin', '1'], ...inputs.differences(pinned.snap).map(([k, v]) => [`pin.${k}`, v])];
    },
    applyState(query) {
      const ignored = [];
      pendingPin = null;
      if (query.get('pin') !== '1') return ignored;
      pendingPin = [];
      for (const [k, v] of query) {
        if (!k.startsWith('pin.')) continue;
        const key = k.slice(4);
        if (key === 'model' || inputs.knows(key)) pendingPin.push([key, v]);
        else ignored.push([k, v]);
      }
      return ignored;
    },
    /**
     * Shows a plan another view found: {plan} (an explored plan's fields) or {config} (a whole
     * simulate config, e.g. a compute-optimal answer's model and plan). Resolves to whether it ran.
     */
    async open({ plan, config, compare = false }) {
      // "Compare with your plan": the plan shown now is pinned before the other is opened.
      if (compare && result) pinned = { snap: inputs.snapshot(), result };
      if (config) {
        let full;
        try {
          full = await vtrain.validateConfig(config);
        } catch (e) {
          toast(`This plan could not be opened: ${e.message || e}`);
          return false;
        }
        inputs.replace(full);
      } else {
        const keys = ['tp', 'pp', 'dp', 'virtual_stages', 'micro_batch', 'recompute', 'sequence_parallel', 'zero_stage', 'num_gpus'];
        const values = {};
        for (const k of keys) if (plan[k] !== undefined) values[k] = toText(plan[k]);
        // A swept plan names these only away from their defaults.
        values.cp = toText(plan.cp ?? 1);
        values.ep = toText(plan.ep ?? 1);
        values.etp = toText(plan.etp ?? 0);
        values.shard_group = toText(plan.shard_group ?? 0);
        inputs.set(values);
      }
      show('plan');
      const ok = await simulateNow();
      // The answer's headline, in sight and focused, wherever the page was scrolled to.
      const headline = $('headline');
      headline.scrollIntoView({ block: 'start' });
      headline.focus({ preventScroll: true });
      return ok;
    },
    download(kind) {
      if (!result) return 'No result to download yet';
      if (kind === 'csv') return { name: `${fmt.fileStem(result.config)}.csv`, type: 'text/csv', text: planCsv(result) };
      const body = { link: location.href, result: timeline || result };
      return { name: `${fmt.fileStem(result.config)}.json`, type: 'application/json', text: JSON.stringify(body, null, 2) };
    },
  };
}

export default { id: 'plan', label: 'Plan', markup, create };

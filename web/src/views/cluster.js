// The Cluster view: many training jobs on one cluster under every scheduling policy the simulator
// has (vTrain's second case study). Its own inputs (cluster-form.js) replace the Plan inputs on
// the left; the run goes to the sweep worker (each job shape's throughput curve, then one
// simulation of the cluster per policy) with a progress bar and Cancel. Then the metrics side by
// side with elasticflow-vtrain against elasticflow-dp, deadlines met and average JCT per policy,
// the GPUs held over time, and one policy's jobs as a Gantt chart (cluster-charts.js).
import './cluster.css';
import * as fmt from '../format.js';
import { GENERATOR_MIXES, POLICY_NOTES, SCHEDULE_CASE } from '../choices.js';
import { h } from '../form.js';
import { formRuns, runDownload } from '../sweep.js';
import { drawBars, drawGantt, drawUsage, policyColor } from './cluster-charts.js';
import { LINK_KEYS, clusterMessage, createClusterForm } from './cluster-form.js';

const $ = (id) => document.getElementById(id);

const markup = `
  <div class="explore-head">
    <p class="explore-intro">Many training jobs share one cluster, each with a deadline: which to admit, and how many GPUs each gets? Every scheduling policy runs on the same jobs. ElasticFlow resizes jobs as if they scaled by data parallelism alone (elasticflow-dp); elasticflow-vtrain gives the same policy each job’s best plan at every GPU count.</p>
    <div class="explore-actions">
      <button type="button" id="cluster-run" class="primary">Run every policy</button>
      <button type="button" id="cluster-cancel" hidden>Cancel</button>
    </div>
  </div>
  <div id="cluster-progress-wrap" class="progress-wrap" hidden>
    <progress id="cluster-progress" max="1" value="0" aria-label="Scheduling progress"></progress>
    <span id="cluster-progress-text" class="progress-text"></span>
  </div>
  <p id="cluster-status" class="status" aria-live="polite"></p>
  <div id="cluster-result" hidden>
    <p id="cluster-headline" class="headline"></p>
    <p id="cluster-lead" class="cluster-lead"></p>
    <div class="table-wrap" id="cluster-table-wrap">
      <table id="cluster-table" class="plans cluster-metrics">
        <caption id="cluster-caption">Every policy on the same jobs.</caption>
        <thead></thead>
        <tbody></tbody>
      </table>
    </div>
    <p id="cluster-table-note" class="cluster-note" hidden></p>
    <p id="cluster-paper" class="cluster-note" hidden></p>
    <div class="charts">
      <figure class="chart-card">
        <figcaption>Deadlines met and average job completion time <span class="caption-note">per policy; hover a bar for its numbers</span></figcaption>
        <div id="chart-cluster-bars" class="chart" role="img" aria-label="Deadlines met and average job completion time per policy"></div>
      </figure>
      <figure class="chart-card">
        <figcaption>GPUs held over time <span class="caption-note">a line per policy; dashed: the cluster’s GPUs</span></figcaption>
        <div id="chart-cluster-usage" class="chart" role="img" aria-label="GPUs held over time under each policy"></div>
      </figure>
      <figure class="chart-card chart-wide">
        <figcaption class="gantt-caption">
          <span>Each job’s GPUs over time under</span>
          <select id="cluster-gantt-policy" aria-label="Policy of the Gantt chart"></select>
          <span class="caption-note">a row per job, a bar per allocation, darker with more GPUs; grey: waiting; ticks: deadlines, green when met, red when missed. Hover a bar for the job’s plan.</span>
        </figcaption>
        <div id="chart-cluster-gantt" class="chart" role="img" aria-label="Each job's allocations over time under one policy"></div>
      </figure>
    </div>
    <p id="cluster-note" class="cluster-note"></p>
  </div>`;

const inputsMarkup = `
  <p id="cluster-form-error" class="form-error" role="alert" hidden></p>
  <div id="cluster-fields"></div>`;

const finite = (x) => typeof x === 'number' && Number.isFinite(x);
// The comparison the simulator makes (its `comparison`, null when either policy did not run).
const PAPER = { policy: 'elasticflow-vtrain', baseline: 'elasticflow-dp' };

/** +3.2 %, −11.9 %: a relative change. */
function change(f) {
  if (!finite(f)) return fmt.DASH;
  const v = Math.abs(f * 100).toFixed(1);
  if (v === '0.0') return '0.0 %';
  return `${f > 0 ? '+' : '−'}${v} %`;
}
/** 1.09×: a ratio, or a dash where the baseline had none. */
const times = (x) => (finite(x) && x > 0 ? `${x.toFixed(2)}×` : fmt.DASH);
/** +0.1 points: a difference of two fractions. */
const points = (d) => (finite(d) ? `${d > 0 ? '+' : d < 0 ? '−' : ''}${Math.abs(d * 100).toFixed(1)} points` : fmt.DASH);
const ratioChange = (a, b) => (finite(a) && finite(b) && b > 0 ? a / b - 1 : NaN);

// The table's rows: a metric, its value and text per policy, and its change of elasticflow-vtrain
// against elasticflow-dp (the simulator's comparison, else the ratio of the two) and whether
// higher is better.
const METRICS = [
  { key: 'admitted', label: 'Jobs admitted', text: (p) => String(p.admitted), change: (c) => times(c.admitted_x), sign: (c) => c.admitted_x - 1, higher: true },
  {
    key: 'deadlines_met', label: 'Deadlines met', text: (p) => `${p.deadlines_met} (${fmt.percent(p.deadline_ratio)})`,
    change: (c) => times(c.deadlines_met_x), sign: (c) => c.deadlines_met_x - 1, higher: true,
  },
  { key: 'finished', label: 'Jobs finished', text: (p) => String(p.finished) },
  { key: 'avg_jct_s', label: 'Average JCT', text: (p) => fmt.duration(p.avg_jct_s), change: (c) => change(c.avg_jct_change), sign: (c) => c.avg_jct_change },
  { key: 'p95_jct_s', label: '95th-percentile JCT', text: (p) => fmt.duration(p.p95_jct_s), change: (c) => change(c.p95_jct_change), sign: (c) => c.p95_jct_change },
  { key: 'makespan_s', label: 'Makespan', text: (p) => fmt.duration(p.makespan_s), change: (c) => change(c.makespan_change), sign: (c) => c.makespan_change },
  {
    key: 'gpu_utilization', label: 'GPU utilization', text: (p) => fmt.percent(p.gpu_utilization),
    change: (c) => points(c.utilization_change), sign: (c) => c.utilization_change, higher: true,
  },
  {
    key: 'gpu_hours', label: 'GPU-hours', text: (p) => fmt.count(p.gpu_hours),
    change: (c, v, b) => change(ratioChange(v.gpu_hours, b.gpu_hours)), sign: (c, v, b) => ratioChange(v.gpu_hours, b.gpu_hours),
  },
  {
    key: 'cost_usd', label: 'Cost', text: (p, r) => (r.cluster.price_per_gpu_hour_usd > 0 ? fmt.usd(p.cost_usd) : fmt.DASH),
    change: (c, v, b) => change(ratioChange(v.cost_usd, b.cost_usd)), sign: (c, v, b) => ratioChange(v.cost_usd, b.cost_usd),
  },
  { key: 'resizes', label: 'Resizes', text: (p) => p.resizes.toLocaleString('en-US') },
];

function create(panel, { vtrain, catalog, changed, ownInputs }) {
  const view = {
    shown: false,
    result: null, // the last result, with the request that gave it
    request: null,
    stale: true,
    seq: 0,
    timer: 0,
    gantt: PAPER.policy, // the policy the Gantt chart shows
  };

  const form = createClusterForm({
    root: ownInputs.querySelector('#cluster-fields'),
    errorBox: ownInputs.querySelector('#cluster-form-error'),
    catalog,
    onEdit: (now) => {
      changed();
      runs.schedule(now ? 0 : 600);
    },
  });
  const ganttSelect = $('cluster-gantt-policy');
  ganttSelect.addEventListener('change', () => {
    view.gantt = ganttSelect.value;
    changed();
    drawCharts(view.seq);
  });

  // ---------------------------------------------------------------- running

  function invalidText(errors = []) {
    if (form.values.source === 'file' && !form.file) return 'Choose a job file to run every policy on its jobs; a link does not carry the file.';
    if (form.values.source === 'file' && form.fileOnly(errors)) return `Fix the job file: its errors are listed under it, by line and column.`;
    return 'Fix the marked inputs to run the policies.';
  }

  const runs = formRuns('cluster', {
    view,
    form,
    call: (request, opts) => vtrain.schedule(request, opts),
    starting: 'Finding each job’s best plan at every GPU count, then running every policy…',
    invalid: invalidText,
    failed: (errs) => `The run failed: ${errs.map(clusterMessage).join(' ')}`,
    noun: 'result',
    done: (result, request, ms, seq) => {
      render(result, seq);
      const s = result.stats;
      const swept = s.swept ? `${s.swept} of ${s.shapes} job shapes swept (${s.plans_simulated.toLocaleString('en-US')} plans)` : `the curves of its ${s.shapes} job shapes from the last run`;
      return `${result.policies.length} policies on ${result.workload.jobs.length} jobs in ${(ms / 1000).toFixed(1)} s: ${swept}, then ${result.policies.reduce((a, p) => a + p.events, 0).toLocaleString('en-US')} scheduling events.`;
    },
  });

  // ---------------------------------------------------------------- the result

  function policyHeader(p, i) {
    const th = h('th', { scope: 'col', title: POLICY_NOTES[p.name] || null, 'data-policy': p.name });
    const key = h('span', { class: 'policy-key', 'aria-hidden': 'true' });
    key.style.background = policyColor(p.name, i);
    th.append(key, p.name);
    return th;
  }

  function renderTable(r) {
    const c = r.comparison;
    const v = r.policies.find((p) => p.name === PAPER.policy);
    const b = r.policies.find((p) => p.name === PAPER.baseline);
    const compare = Boolean(c && v && b);
    const table = $('cluster-table');
    const head = h('tr', {}, h('th', { scope: 'col', text: 'Metric' }));
    r.policies.forEach((p, i) => head.append(policyHeader(p, i)));
    if (compare) head.append(h('th', { scope: 'col', class: 'change', title: `${PAPER.policy} against ${PAPER.baseline}`, text: 'vtrain vs dp' }));
    table.tHead.replaceChildren(head);
    const body = table.tBodies[0];
    body.textContent = '';
    for (const m of METRICS) {
      const tr = body.insertRow();
      tr.dataset.metric = m.key;
      tr.append(h('th', { scope: 'row', text: m.label }));
      for (const p of r.policies) {
        const td = tr.insertCell();
        td.textContent = m.text(p, r);
        td.dataset.policy = p.name;
        td.dataset.value = String(p[m.key]);
      }
      if (compare) {
        const td = tr.insertCell();
        td.className = 'change';
        if (m.change) {
          td.textContent = m.change(c, v, b);
          const s = m.sign(c, v, b);
          if (finite(s) && Math.abs(s) >= 0.0005) td.classList.add((s > 0) === Boolean(m.higher) ? 'better' : 'worse');
        }
      }
    }
    $('cluster-caption').textContent = `Every policy on the same ${r.workload.jobs.length} jobs.`;
    $('cluster-table-note').hidden = !compare;
    $('cluster-table-note').textContent = `The last column is ${PAPER.policy} against ${PAPER.baseline}: ratios of counts, relative changes of times, GPU-hours and cost, and the difference of utilizations; green where it is better, red where it is worse.`;
  }

  function renderLead(r) {
    const lead = $('cluster-lead');
    lead.textContent = '';
    const v = r.policies.find((p) => p.name === PAPER.policy);
    const b = r.policies.find((p) => p.name === PAPER.baseline);
    if (!(r.comparison && v && b)) return;
    const n = r.workload.jobs.length;
    lead.append(
      'With each job’s best plan, ElasticFlow meets ', h('strong', { text: `${v.deadlines_met} of ${n} deadlines` }),
      ` (${b.deadlines_met} with data parallelism alone), and its average job completion time is `,
      h('strong', { text: fmt.duration(v.avg_jct_s) }), ` against ${fmt.duration(b.avg_jct_s)} (${change(r.comparison.avg_jct_change)}); `,
      `the whole workload takes ${fmt.duration(v.makespan_s)} against ${fmt.duration(b.makespan_s)} (${change(r.comparison.makespan_change)}).`,
    );
  }

  function render(r, seq) {
    $('cluster-result').hidden = false;
    $('cluster-result').classList.remove('stale');
    const c = r.cluster;
    const gpu = catalog.gpuName(c.gpu);
    const where = r.workload.name === 'generated' || r.workload.name === 'custom' || r.workload.name === 'csv' ? '' : ` (${r.workload.name})`;
    const pause = r.restart_pause_s > 0 ? `a resize pauses a job for ${fmt.asGiven(r.restart_pause_s)} s` : 'resizes are free';
    const period = r.period_s > 0 ? `; every policy also re-plans every ${fmt.asGiven(r.period_s / 3600)} h` : '';
    $('cluster-headline').textContent = `${r.workload.jobs.length} jobs${where} on ${c.num_gpus.toLocaleString('en-US')} × ${gpu}, ${c.gpus_per_node} per node; ${pause}${period}.`;
    renderLead(r);
    renderTable(r);
    const paper = $('cluster-paper');
    paper.hidden = r.case !== SCHEDULE_CASE.name;
    if (r.case === SCHEDULE_CASE.name) form.setCaseCluster(r.cluster);
    paper.textContent = 'The paper (Bang et al., MICRO’24), on its own 1,024-A100 setup and job list, reports for elasticflow-vtrain against elasticflow-dp: '
      + 'deadlines met 1.09–1.23×, average JCT −15.21 %, makespan −23.03 %. This tool maps the ITP trace to LLM jobs by its own rule; the guide '
      + 'docs/cluster-scheduling.md (“Many jobs on one cluster”) says where the figures differ and why.';
    const desc = r.workload.description || r.description || '';
    $('cluster-note').textContent = `${desc ? `${desc.charAt(0).toUpperCase()}${desc.slice(1)}. ` : ''}`
      + 'Each job’s iteration time at every GPU count comes from the explorer: its own plan scaled by data parallelism for fifo, edf and elasticflow-dp, '
      + 'the best plan that fits for elasticflow-vtrain. GPUs are given in whole nodes beyond one node.';
    // The Gantt chart's policy: the one chosen, if this result has it.
    ganttSelect.replaceChildren(...r.policies.map((p) => h('option', { value: p.name, text: p.name })));
    if (!r.policies.some((p) => p.name === view.gantt)) view.gantt = r.policies[r.policies.length - 1].name;
    ganttSelect.value = view.gantt;
    document.title = `Cluster: ${r.workload.jobs.length} jobs on ${c.num_gpus.toLocaleString('en-US')} GPUs · vtrain`;
    performance.mark('vtrain:cluster-result');
    drawCharts(seq);
  }

  function drawCharts(seq) {
    const r = view.result;
    if (!r || !view.shown) return Promise.resolve();
    const k = Math.max(0, r.policies.findIndex((p) => p.name === view.gantt));
    return Promise.all([
      drawBars($('chart-cluster-bars'), r),
      drawUsage($('chart-cluster-usage'), r),
      drawGantt($('chart-cluster-gantt'), r, k),
    ]).then(() => {
      if (seq === view.seq) document.body.dataset.clusterCharts = String(seq);
    });
  }

  // ---------------------------------------------------------------- downloads

  function csv() {
    const r = view.result;
    const specs = r.workload.jobs;
    const cols = [
      ['policy', (p) => p.name], ['job', (p, j, i) => i + 1], ['id', (p, j, i) => specs[i].id], ['model', (p, j, i) => specs[i].model_name],
      ['gpus_asked', (p, j, i) => specs[i].gpus], ['iterations', (p, j, i) => specs[i].iterations],
      ['arrival_s', (p, j, i) => specs[i].arrival_s], ['deadline_s', (p, j, i) => specs[i].deadline_s],
      ['admitted', (p, j) => j.admitted], ['finished', (p, j) => j.finished], ['met_deadline', (p, j) => j.met_deadline],
      ['start_s', (p, j) => (j.start_s >= 0 ? j.start_s : null)], ['finish_s', (p, j) => (j.finish_s >= 0 ? j.finish_s : null)],
      ['jct_s', (p, j) => (j.jct_s >= 0 ? j.jct_s : null)], ['resizes', (p, j) => j.resizes],
      ['most_gpus_held', (p, j) => Math.max(0, ...j.allocations.map((a) => a.gpus))],
    ];
    const rows = [cols.map(([k]) => k)];
    for (const p of r.policies) p.jobs.forEach((j, i) => rows.push(cols.map(([, get]) => get(p, j, i))));
    return fmt.csv(rows);
  }

  function fileStem() {
    const r = view.result;
    const n = `${r.workload.jobs.length}jobs`;
    if (r.case) return `vtrain-cluster-${r.case}-${n}`;
    const gpus = `${r.cluster.num_gpus}gpu`;
    if (r.workload.name === 'generated') return `vtrain-cluster-seed${form.values.seed}-${n}-${gpus}`;
    const base = form.file ? form.file.name.replace(/\.[^.]*$/, '').replace(/[^A-Za-z0-9_-]+/g, '-') : 'jobs';
    return `vtrain-cluster-${base}-${n}-${gpus}`;
  }

  return {
    /** The view became visible: run when the inputs changed since the last result. */
    show() {
      view.shown = true;
      form.show();
      if (runs.showFresh() && view.result) drawCharts(view.seq);
    },
    hide() {
      view.shown = false;
    },
    /** The inputs for the link (text as typed), and the Gantt chart's policy. */
    state() {
      const out = form.linkPairs();
      if (view.gantt !== PAPER.policy) out.push(['gantt', view.gantt]);
      return out;
    },
    /** Inputs read from a link; names this page does not offer are returned, the defaults kept in their place. */
    applyState(query) {
      const named = {};
      const ignored = [];
      const known = {
        source: ['case', 'generate', 'file'],
        case_jobs: SCHEDULE_CASE.jobs.map(String),
        mix: Object.keys(GENERATOR_MIXES),
      };
      for (const k of LINK_KEYS) {
        if (!query.has(k)) continue;
        const v = query.get(k);
        if (known[k] && !known[k].includes(v)) ignored.push([k, v]);
        else named[k] = v;
      }
      if (query.has('gantt')) view.gantt = query.get('gantt');
      form.set(named);
      return ignored;
    },
    download(kind) {
      return runDownload(kind, { view, stem: fileStem, rows: 'jobs', csv, none: 'No result to download yet' });
    },
  };
}

export default {
  id: 'cluster',
  label: 'Cluster',
  markup,
  // Inputs of its own on the left, in place of the Plan inputs; its link holds only those.
  inputs: { label: 'Cluster and job inputs', markup: inputsMarkup },
  create,
};

// The Cluster view in Debian's Chromium, against the built page (build/web): vTrain's second case
// study compared with the native CLI's `vtrain schedule --case vtrain-case2 --jobs 64 --json`, the
// 128-job workload timed from the tab's click to its table (held to ten times its floor, which
// `npm run bench` measures: tests/e2e/floors.mjs), Cancel, a job file with errors named by line and column, the
// generator's request run again by the CLI, links that reopen the view, and screenshots (desktop
// and phone) under build/screenshots.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as fmt from '../../web/src/format.js';
import { sanity } from './floors.mjs';
import {
  assertNoBadText, base, cancelRun, newPage, open, plain, problems, runCli, screenshot, startPage, stopPage, trackRun,
} from './harness.mjs';
import { clusterTime } from './measure.mjs';
const POLICIES = ['fifo', 'edf', 'elasticflow-dp', 'elasticflow-vtrain'];

/** +3.2 %, −11.9 %: a relative change as the table writes it. */
function change(f) {
  const v = Math.abs(f * 100).toFixed(1);
  return v === '0.0' ? '0.0 %' : `${f > 0 ? '+' : '−'}${v} %`;
}

// Each metric's text in the table, from the CLI's numbers.
const METRIC_TEXT = {
  admitted: (p) => String(p.admitted),
  deadlines_met: (p) => `${p.deadlines_met} (${fmt.percent(p.deadline_ratio)})`,
  finished: (p) => String(p.finished),
  avg_jct_s: (p) => fmt.duration(p.avg_jct_s),
  p95_jct_s: (p) => fmt.duration(p.p95_jct_s),
  makespan_s: (p) => fmt.duration(p.makespan_s),
  gpu_utilization: (p) => fmt.percent(p.gpu_utilization),
  gpu_hours: (p) => fmt.count(p.gpu_hours),
  cost_usd: (p) => fmt.usd(p.cost_usd),
  resizes: (p) => p.resizes.toLocaleString('en-US'),
};

/** The table as the page shows it: {metric: {policy: {text, value}}}, and the change column's texts. */
function readTable(page) {
  return page.evaluate(() => {
    const cells = {};
    const changes = {};
    for (const tr of document.querySelectorAll('#cluster-table tbody tr')) {
      cells[tr.dataset.metric] = {};
      for (const td of tr.querySelectorAll('td[data-policy]')) cells[tr.dataset.metric][td.dataset.policy] = { text: td.textContent, value: Number(td.dataset.value) };
      const c = tr.querySelector('td.change');
      if (c) changes[tr.dataset.metric] = c.textContent;
    }
    return { cells, changes };
  });
}

/** Asserts that the page's table holds the CLI's numbers for every policy and metric. */
function assertTable(table, want) {
  assert.deepEqual(Object.keys(table.cells.admitted), want.policies.map((p) => p.name));
  for (const p of want.policies) {
    for (const [key, text] of Object.entries(METRIC_TEXT)) {
      const cell = table.cells[key][p.name];
      // Native and WebAssembly builds give the same numbers.
      assert.ok(Math.abs(cell.value - p[key]) <= 1e-9 * Math.max(1, Math.abs(p[key])), `${p.name} ${key}: ${cell.value} vs ${p[key]}`);
      assert.equal(plain(cell.text), plain(text(p)), `${p.name} ${key}`);
    }
  }
  const c = want.comparison;
  assert.equal(table.changes.deadlines_met, `${c.deadlines_met_x.toFixed(2)}×`);
  assert.equal(table.changes.avg_jct_s, change(c.avg_jct_change));
  assert.equal(table.changes.p95_jct_s, change(c.p95_jct_change));
  assert.equal(table.changes.makespan_s, change(c.makespan_change));
}

/** Sets a Cluster input while another view shows (its form hidden), as a link or an edit would. */
function setHidden(page, id, value) {
  return page.evaluate(({ id, value }) => {
    const el = document.getElementById(id);
    el.value = value;
    el.dispatchEvent(new Event(el.tagName === 'SELECT' ? 'change' : 'input', { bubbles: true }));
  }, { id, value });
}

const settled = (page) => page.waitForFunction(() => ['done', 'invalid', 'stopped'].includes(document.body.dataset.cluster), null, { timeout: 120000 });

describe('the Cluster view in Chromium', { timeout: 600000 }, () => {
  let golden;

  before(async () => {
    await startPage();
    golden = runCli(['schedule', '--case', 'vtrain-case2', '--jobs', '64', '--json']);
    assert.deepEqual(golden.policies.map((p) => p.name), POLICIES);
  });

  after(async () => {
    await stopPage();
  });

  test('the case study: a progress bar, every policy\'s metrics as the CLI gives them, the charts, a link and downloads', async () => {
    const page = await newPage({ width: 1440, height: 900 });
    await open(page);
    await page.waitForSelector('body[data-warm]', { timeout: 20000 });
    const run = await trackRun(page, { view: 'cluster', click: '#tab-cluster', charts: 'data-cluster-charts' });
    assert.equal(run.state, 'done', run.status);
    assert.ok(run.seen.some((s) => s.visible && s.value > 0 && s.value < 1), 'the progress bar showed progress');
    assert.ok(await page.isHidden('#cluster-progress-wrap'));
    assert.ok(await page.isVisible('#cluster-inputs'));
    assert.ok(await page.isHidden('#inputs'));
    assert.match(run.status, /^4 policies on 64 jobs in [\d.]+ s/);

    assertTable(await readTable(page), golden);
    const v = golden.policies[3];
    const dp = golden.policies[2];
    const lead = await page.textContent('#cluster-lead');
    assert.ok(lead.includes(`meets ${v.deadlines_met} of 64 deadlines (${dp.deadlines_met} with data parallelism alone)`), lead);
    assert.ok(lead.includes(`${fmt.duration(v.avg_jct_s)} against ${fmt.duration(dp.avg_jct_s)} (${change(golden.comparison.avg_jct_change)})`), lead);
    assert.match(await page.textContent('#cluster-headline'), /^64 jobs \(itp-195\) on 1,024 × A100/);
    assert.match(await page.textContent('#cluster-paper'), /1\.09–1\.23×/);

    // The charts: a bar per policy for each metric, a line per policy, and the Gantt chart of
    // elasticflow-vtrain with a bar per allocation.
    const charts = await page.evaluate(() => {
      const el = (id) => document.getElementById(id);
      const gantt = el('chart-cluster-gantt').data.find((t) => t.name === 'running');
      return {
        bars: el('chart-cluster-bars').data.map((t) => ({ y: t.y, x: t.x })),
        usage: el('chart-cluster-usage').data.map((t) => t.name),
        ganttBars: gantt.x.length,
        ganttText: gantt.text[0],
        deadlines: el('chart-cluster-gantt').data.find((t) => t.name === 'deadline').x.length,
      };
    });
    assert.deepEqual(charts.bars[0].y, POLICIES);
    assert.deepEqual(charts.bars[0].x, golden.policies.map((p) => p.deadline_ratio));
    assert.deepEqual(charts.bars[1].x, golden.policies.map((p) => p.avg_jct_s / 3600));
    assert.deepEqual(charts.usage, POLICIES);
    // Every allocation that holds GPUs is a bar.
    const allocations = v.jobs.reduce((a, j) => a + j.allocations.filter((x) => x.gpus > 0).length, 0);
    assert.equal(charts.ganttBars, allocations);
    assert.equal(charts.deadlines, 64);
    assert.equal(await page.inputValue('#cluster-gantt-policy'), 'elasticflow-vtrain');

    // Hovering a job's bar shows its plan: the longest bar, found in the CLI's allocations in the
    // order the chart draws them (job by job, each allocation that holds GPUs).
    const bars = v.jobs.flatMap((j, i) => j.allocations.map((a, m) => ({ i, a, end: j.allocations[m + 1]?.time_s })).filter((x) => x.a.gpus > 0));
    const longest = bars.reduce((best, b, k) => (b.end - b.a.time_s > bars[best].end - bars[best].a.time_s ? k : best), 0);
    const box = await page.evaluate((k) => {
      const el = document.getElementById('chart-cluster-gantt');
      const n = el.data.find((t) => t.name === 'running').x.length;
      const trace = [...el.querySelectorAll('.barlayer .trace')].find((t) => t.querySelectorAll('.point').length === n);
      const point = trace.querySelectorAll('.point')[k];
      point.scrollIntoView({ block: 'center' });
      const r = point.getBoundingClientRect();
      return { x: r.x + r.width / 2, y: r.y + r.height / 2 };
    }, longest);
    await page.mouse.move(box.x, box.y);
    await page.waitForSelector('#chart-cluster-gantt .hoverlayer .hovertext', { timeout: 5000 });
    const hover = await page.textContent('#chart-cluster-gantt .hoverlayer .hovertext');
    const { a, i } = bars[longest];
    assert.ok(plain(hover).includes(plain(`${fmt.gpus(a.gpus)}: ${fmt.planLabel(a.plan)}`)), hover);
    assert.ok(hover.includes(`job ${i + 1} (`), hover);
    await page.mouse.move(0, 0);

    await assertNoBadText(page);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.waitForTimeout(200);
    await screenshot(page, 'cluster.png', { fullPage: true });

    // Another policy's Gantt chart, kept in the link.
    await page.selectOption('#cluster-gantt-policy', 'fifo');
    await page.waitForFunction(() => document.getElementById('chart-cluster-gantt').data.find((t) => t.name === 'running').x.length === 64);
    await page.waitForFunction(() => new URLSearchParams(location.search).get('gantt') === 'fifo');
    const url = page.url();
    const q = new URL(url).searchParams;
    assert.equal(q.get('view'), 'cluster');
    assert.equal(q.get('source'), 'case');
    assert.equal(q.get('case_jobs'), '64');

    // Download JSON: the request and the whole result; CSV: a row per policy and job.
    const [json] = await Promise.all([page.waitForEvent('download'), page.click('#download-json')]);
    assert.equal(json.suggestedFilename(), 'vtrain-cluster-vtrain-case2-64jobs.json');
    const saved = JSON.parse(readFileSync(await json.path(), 'utf8'));
    assert.deepEqual(saved.request, { case: 'vtrain-case2', workload: { first_jobs: 64 }, restart_pause_s: 60 });
    assert.deepEqual(saved.result.policies.map((p) => p.deadlines_met), golden.policies.map((p) => p.deadlines_met));
    const [csv] = await Promise.all([page.waitForEvent('download'), page.click('#download-csv')]);
    const rows = readFileSync(await csv.path(), 'utf8').trim().split('\n');
    assert.equal(rows.length, 1 + 4 * 64);
    assert.match(rows[0], /^policy,job,id,model,gpus_asked/);
    assert.doesNotMatch(rows.join('\n'), /NaN|Infinity|undefined/);
    const table = await readTable(page);
    await page.close();

    // Reopening the link runs the same and shows the same.
    const again = await newPage({ width: 1440, height: 900 });
    await open(again, url.slice(base.length));
    await settled(again);
    assert.equal(await again.evaluate(() => document.body.dataset.cluster), 'done');
    assert.deepEqual(await readTable(again), table);
    assert.equal(await again.inputValue('#c-case_jobs'), '64');
    await again.waitForSelector('body[data-cluster-charts]');
    assert.equal(await again.inputValue('#cluster-gantt-policy'), 'fifo');
    await again.close();
  });

  test('128 jobs on 1,024 GPUs under all four policies, timed from the click, as the CLI gives them', async () => {
    const want = runCli(['schedule', '--case', 'vtrain-case2', '--jobs', '128', '--json']);
    const page = await newPage({ width: 1440, height: 900 });
    await open(page);
    await page.waitForSelector('body[data-warm]', { timeout: 20000 });
    const run = await clusterTime(page);
    assert.equal(run.state, 'done', run.status);
    assert.match(run.status, /^4 policies on 128 jobs/);
    assert.match(run.status, /(\d+) of \1 job shapes swept/, 'the run swept every shape anew');
    assert.ok(run.ms <= sanity('cluster_128_ms'), `128 jobs took ${run.ms.toFixed(0)} ms`);
    assertTable(await readTable(page), want);
    await page.close();
  });

  test('a run can be cancelled, and the page answers input meanwhile', async () => {
    const page = await newPage();
    await open(page);
    await page.waitForSelector('body[data-warm]', { timeout: 20000 });
    await setHidden(page, 'c-case_jobs', '128');
    const r = await cancelRun(page, { view: 'cluster', click: '#tab-cluster', at: 0.05 });
    assert.equal(r.state, 'stopped');
    assert.ok(r.worst < sanity('main_thread_gap_ms'), `the page's thread stalled for ${r.worst.toFixed(0)} ms`);
    assert.match(await page.textContent('#cluster-status'), /Cancelled/);
    assert.ok(await page.isHidden('#cluster-progress-wrap'));
    assert.ok(await page.isHidden('#cluster-cancel'));
    assert.ok(await page.isEnabled('#cluster-run'));
    // It runs again on request.
    await page.click('#cluster-run');
    await settled(page);
    assert.equal(await page.evaluate(() => document.body.dataset.cluster), 'done');
    assert.match(await page.textContent('#cluster-status'), /^4 policies on 128 jobs/);
    await page.close();
  });

  test('a job file: errors named by line and column in CSV and JSON, then a good file runs', async () => {
    const page = await newPage({ width: 1440, height: 900 });
    await open(page, '?view=cluster&source=file&num_gpus=256');
    await settled(page);
    // A link cannot carry the file: the view asks for it.
    assert.equal(await page.evaluate(() => document.body.dataset.cluster), 'invalid');
    assert.match(await page.textContent('#cluster-status'), /Choose a job file/);
    assert.equal(await page.inputValue('#c-num_gpus'), '256');

    const choose = async (name, text) => {
      // Each choice settles the view again: from a mark set here, to its outcome.
      await page.evaluate(() => {
        document.body.dataset.cluster = 'choosing';
      });
      await page.setInputFiles('#c-file', { name, mimeType: name.endsWith('.csv') ? 'text/csv' : 'application/json', buffer: Buffer.from(text) });
      await settled(page);
      return page.textContent('#c-file-err');
    };
    const header = 'id,arrival_s,deadline_s,model,global_batch,gpus,tokens\n';
    let err = await choose('jobs.csv', `${header}a,0,7200,gpt3-2.7b,512,8,1e9\nb,abc,7200,gpt3-2.7b,512,8,1e9\nc,60,7200,gpt3-99b,512,8,1e9\n`);
    assert.match(err, /^jobs\.csv, line 3, column 2 \(arrival_s\): must be a number, got "abc"/m);
    assert.match(err, /^jobs\.csv, line 4, column 4 \(model\): unknown model preset "gpt3-99b"/m);
    assert.equal(await page.getAttribute('#c-file', 'aria-invalid'), 'true');
    assert.match(await page.textContent('#cluster-status'), /^Fix the job file: its errors are listed under it, by line and column/);
    await page.evaluate(() => document.getElementById('c-file').scrollIntoView({ block: 'center' }));
    await screenshot(page, 'cluster-file-error.png');

    // JSON that does not parse, and a job whose field breaks a rule: each at its line and column.
    err = await choose('jobs.json', '{"jobs": [\n  {"id": "a", "arrival_s": 0 "deadline_s": 7200}\n]}\n');
    assert.match(err, /^jobs\.json, line 2, column 30: not JSON: expected ',' or '}' after a value/);
    err = await choose('jobs.json', JSON.stringify({
      jobs: [
        { id: 'a', arrival_s: 0, deadline_s: 7200, model: 'gpt3-2.7b', global_batch: 512, gpus: 8, tokens: 1e9 },
        { id: 'b', arrival_s: 60, deadline_s: 7200, model: 'gpt3-2.7b', global_batch: 512, gpus: 7, tokens: 1e9 },
      ],
    }, null, 2));
    assert.match(err, /^jobs\.json, line 18, column 7 \(gpus\): must be 1, 2, 4, or a multiple of 8/);

    // A good file: two jobs on 256 GPUs.
    err = await choose('jobs.csv', `${header}a,0,7200,gpt3-2.7b,512,8,1e9\nb,600,3600,gpt3-2.7b,512,8,5e8\n`);
    assert.equal(err, '');
    assert.equal(await page.evaluate(() => document.body.dataset.cluster), 'done');
    assert.match(await page.textContent('#cluster-headline'), /^2 jobs on 256 × /);
    assert.ok(await page.isHidden('#cluster-paper'));
    await assertNoBadText(page);
    await page.close();
  });

  test('the generator: its inputs in the link, their errors beside them, and its request gives the CLI\'s numbers', async () => {
    const query = '?view=cluster&source=generate&seed=7&jobs=24&rate=6&mix=small&duration_min=0.5&duration_max=6&deadline_min=0.8&deadline_max=2'
      + '&gpu=a100-sxm4-80gb&num_gpus=256&gpus_per_node=8&price_per_gpu_hour_usd=2&restart_pause_s=30';
    const page = await newPage({ width: 1440, height: 900 });
    await open(page, query);
    await settled(page);
    assert.equal(await page.evaluate(() => document.body.dataset.cluster), 'done', await page.textContent('#cluster-status'));
    assert.equal(await page.inputValue('#c-mix'), 'small');
    assert.equal(await page.inputValue('#c-seed'), '7');
    assert.match(await page.textContent('#cluster-headline'), /^24 jobs on 256 × .*a resize pauses a job for 30 s/);
    await page.waitForSelector('body[data-cluster-charts]');
    const [json] = await Promise.all([page.waitForEvent('download'), page.click('#download-json')]);
    const saved = JSON.parse(readFileSync(await json.path(), 'utf8'));
    assert.equal(json.suggestedFilename(), 'vtrain-cluster-seed7-24jobs-256gpu.json');
    const dir = mkdtempSync(path.join(tmpdir(), 'vtrain-cluster-'));
    const file = path.join(dir, 'request.json');
    writeFileSync(file, JSON.stringify(saved.request));
    const want = runCli(['schedule', file, '--json']);
    assertTable(await readTable(page), want);

    // Text that is not a number, beside its field; a mix whose jobs ask for more GPUs than the cluster has, beside the mix.
    await page.fill('#c-num_gpus', 'many');
    await page.waitForSelector('#c-num_gpus-err:not([hidden])');
    assert.match(await page.textContent('#c-num_gpus-err'), /^Enter a number/);
    assert.ok(await page.evaluate(() => document.getElementById('cluster-result').classList.contains('stale')));
    await page.fill('#c-num_gpus', '64');
    await page.selectOption('#c-mix', 'gpt3');
    await page.waitForSelector('#c-mix-err:not([hidden])', { timeout: 60000 });
    assert.match(await page.textContent('#c-mix-err'), /^gpt3-175b on 128 GPUs: must be 1, 2, 4, or a multiple of 8 \(whole nodes\) within the cluster’s GPUs \(64\), got 128/);
    await page.selectOption('#c-mix', 'small');
    await page.waitForFunction(() => document.body.dataset.cluster === 'done' && /^24 jobs on 64 ×/.test(document.getElementById('cluster-headline').textContent), null, { timeout: 60000 });
    assert.ok(await page.isHidden('#c-mix-err'));
    await page.close();

    // A link naming a source or mix this page does not offer says so, and keeps the defaults.
    const odd = await newPage();
    await open(odd, '?view=cluster&source=trace&mix=huge');
    assert.match(await odd.textContent('#link-notice'), /source "trace", mix "huge"/);
    assert.equal(await odd.inputValue('#c-source'), 'case');
    await settled(odd);
    await odd.close();
  });

  test('the view reads well on a phone', async () => {
    const page = await newPage({ width: 390, height: 844 });
    await open(page, '?view=cluster');
    await page.waitForSelector('body[data-cluster-charts]', { timeout: 60000 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `the page is ${overflow} px wider than the screen`);
    // Every tab is on screen.
    for (const id of ['plan', 'explore', 'optimal', 'cluster']) {
      const tab = await page.locator(`#tab-${id}`).boundingBox();
      assert.ok(tab.x >= 0 && tab.x + tab.width <= 390, `the ${id} tab spans ${tab.x} to ${tab.x + tab.width} px`);
    }
    await assertNoBadText(page);
    await screenshot(page, 'cluster-phone.png', { fullPage: true });
    await page.close();
  });

  test('no console errors or exceptions on any page', () => {
    assert.deepEqual(problems, []);
  });
});

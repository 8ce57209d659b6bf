// How the page's floors (floors.mjs) are timed, in a page opened by harness.mjs: the page tests
// call these and hold the results to their sanity limits; `npm run bench` calls measureAll() and
// holds them to the floors. Not a test file itself.
import { cancelRun, newPage, open, startPage, stopPage, trackRun } from './harness.mjs';

/**
 * Clicks `click` (a selector; none: nothing) and resolves to the ms until attribute `attr` of
 * `selector` changes from what it was.
 */
export function timeChange(page, selector, attr, click) {
  return page.evaluate(
    async ([selector, attr, click]) => {
      const el = document.querySelector(selector);
      const before = el.getAttribute(attr);
      const t0 = performance.now();
      const done = new Promise((resolve) => {
        const o = new MutationObserver(() => {
          if (el.getAttribute(attr) !== before) {
            o.disconnect();
            resolve(performance.now() - t0);
          }
        });
        o.observe(el, { attributes: true, attributeFilter: [attr] });
      });
      if (click) document.querySelector(click).click();
      return done;
    },
    [selector, attr, click],
  );
}

/**
 * The ms from the Plan view's last result on screen (its vtrain:result mark) to every one of its
 * charts drawn (the vtrain:plan-charts mark of the same result); waits for the charts.
 */
export async function chartsLag(page) {
  await page.waitForFunction(() => {
    const r = performance.getEntriesByName('vtrain:result').at(-1);
    return r && performance.getEntriesByName('vtrain:plan-charts').some((c) => c.detail === r.detail);
  }, null, { timeout: 60000 });
  return page.evaluate(() => {
    const r = performance.getEntriesByName('vtrain:result').at(-1);
    const c = performance.getEntriesByName('vtrain:plan-charts').find((x) => x.detail === r.detail);
    return c.startTime - r.startTime;
  });
}

/** A fresh page's load: the ms until it is interactive, and from its first numbers to every chart. */
export async function loadTimes(viewport = { width: 1440, height: 900 }) {
  const page = await newPage(viewport);
  await open(page);
  const lag = await chartsLag(page);
  const interactive = await page.evaluate(() => performance.getEntriesByName('vtrain:interactive')[0].startTime);
  await page.close();
  return { interactive, lag };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Every example, clicked `runs` times after another one (so each click changes the inputs, and
 * is timed on an idle page): the median ms of each until its numbers show, and until its charts
 * follow; resolves to the worst medians and their examples. `check(name)` runs after each.
 */
export async function presetTimes(page, { runs = 3, check = null } = {}) {
  const names = await page.$$eval('[data-example]', (bs) => bs.map((b) => b.dataset.example));
  const out = { simulate: { ms: 0, example: '' }, charts: { ms: 0, example: '' }, byExample: {} };
  for (const name of names) {
    const sim = [];
    const lag = [];
    const other = names.find((n) => n !== name);
    for (let i = 0; i < runs; i++) {
      await timeChange(page, '#results', 'data-rendered', `[data-example="${other}"]`);
      await chartsLag(page);
      sim.push(await timeChange(page, '#results', 'data-rendered', `[data-example="${name}"]`));
      lag.push(await chartsLag(page));
    }
    const s = median(sim);
    const c = median(lag);
    out.byExample[name] = { simulate_ms: s, charts_ms: c };
    if (s > out.simulate.ms) out.simulate = { ms: s, example: name };
    if (c > out.charts.ms) out.charts = { ms: c, example: name };
    if (check) await check(name);
  }
  return out;
}

/**
 * The MT-NLG case study's sweep, started by the Explore tab with the sweep worker warm: resolves
 * to trackRun's answer (ms, progress seen, state, status).
 */
export async function sweepTime(page) {
  await page.waitForSelector('body[data-warm]', { timeout: 30000 });
  await timeChange(page, 'body', 'data-plan-charts', '[data-example="mt-nlg-530b"]');
  await page.evaluate(() => {
    const s = document.getElementById('explore-space');
    s.value = 'mt-nlg';
    s.dispatchEvent(new Event('change'));
  });
  await page.waitForFunction(() => new URLSearchParams(location.search).get('space') === 'mt-nlg');
  return trackRun(page, { view: 'explore', click: '#tab-explore' });
}

/**
 * The compute-optimal case study: the tab's first answer (which also compiles the module's hot
 * code), another budget, then the preset's click timed to its answer and charts. Resolves to
 * {first, run} (trackRun's answers).
 */
export async function optimalTime(page) {
  await page.waitForSelector('body[data-warm]', { timeout: 30000 });
  const first = await trackRun(page, { view: 'optimal', click: '#tab-optimal' });
  await page.fill('#o-budget', '20');
  await page.waitForFunction(() => document.body.dataset.optimal === 'done' && /^20 days/.test(document.getElementById('optimal-headline').textContent), null, { timeout: 60000 });
  const run = await trackRun(page, { view: 'optimal', click: '[data-optimal-preset="vtrain-case3"]', charts: 'data-optimal-charts' });
  return { first, run };
}

/** The longest the page's thread went without running a 10 ms timer while sizing, to 30 %. */
export async function mainThreadGap(page) {
  await page.waitForSelector('body[data-warm]', { timeout: 30000 });
  return cancelRun(page, { view: 'optimal', click: '#tab-optimal', at: 0.3 });
}

/**
 * The cluster case study's first 128 jobs under all four policies, started by the Cluster tab's
 * click with no curve cached: resolves to trackRun's answer (ms, chartsMs, state, status).
 */
export async function clusterTime(page) {
  await page.waitForSelector('body[data-warm]', { timeout: 30000 });
  // Chosen while the Plan view shows, so that the tab's click starts the run.
  await page.evaluate(() => {
    const el = document.getElementById('c-case_jobs');
    el.value = '128';
    el.dispatchEvent(new Event(el.tagName === 'SELECT' ? 'change' : 'input', { bubbles: true }));
  });
  return trackRun(page, { view: 'cluster', click: '#tab-cluster', charts: 'data-cluster-charts' });
}

/** Every floor of floors.mjs, measured on fresh pages: {key: {value, note}}. */
export async function measureAll() {
  await startPage();
  const out = {};
  try {
    const loads = [];
    for (let i = 0; i < 3; i++) loads.push(await loadTimes());
    out.interactive_ms = { value: median(loads.map((l) => l.interactive)), note: 'median of 3 loads' };
    out.charts_on_load_ms = { value: median(loads.map((l) => l.lag)), note: 'median of 3 loads' };

    let page = await newPage();
    await open(page);
    const presets = await presetTimes(page);
    out.simulate_ms = { value: presets.simulate.ms, note: presets.simulate.example };
    out.charts_on_preset_ms = { value: presets.charts.ms, note: presets.charts.example };
    await page.close();

    page = await newPage();
    await open(page);
    const sweep = await sweepTime(page);
    if (sweep.state === 'done') out.sweep_ms = { value: sweep.ms, note: sweep.status.replace(/;.*/, '') };
    await page.close();

    page = await newPage();
    await open(page);
    const optimal = await optimalTime(page);
    if (optimal.run.state === 'done') out.optimal_ms = { value: optimal.run.ms, note: `charts at ${optimal.run.chartsMs.toFixed(0)} ms` };
    await page.close();

    page = await newPage();
    await open(page);
    const gap = await mainThreadGap(page);
    out.main_thread_gap_ms = { value: gap.worst, note: 'cancelled at 30 %' };
    await page.close();

    page = await newPage();
    await open(page);
    const cluster = await clusterTime(page);
    if (cluster.state === 'done') out.cluster_128_ms = { value: cluster.ms, note: `charts at ${cluster.chartsMs.toFixed(0)} ms` };
    await page.close();
  } finally {
    await stopPage();
  }
  return out;
}

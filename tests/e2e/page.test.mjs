// The built page (build/web) in Debian's Chromium: load, run a preset, sweep, an invalid field, a
// shared link and the embed card. Compares the page with the native CLI (build/golden/cli.json),
// holds each timing to a sanity limit (10 times its floor; `npm run bench` holds the floors) and
// saves a screenshot of each view under build/screenshots.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { cliGolden } from '../../scripts/golden.mjs';
import * as fmt from '../../web/src/format.js';
import { SIZE_FLOORS, sanity } from './floors.mjs';
import {
  assertNoBadText, base, cancelRun, newPage, open, plain, problems, runCli, screenshot, shots, startPage, stopPage, trackRun, webDir,
} from './harness.mjs';
import { chartsLag, presetTimes, sweepTime, timeChange as changed } from './measure.mjs';

async function kpis(page) {
  return page.evaluate(() => Object.fromEntries([...document.querySelectorAll('.kpi output')].map((o) => [o.id, { text: o.textContent, value: o.dataset.value }])));
}

describe('the calculator page in Chromium', { timeout: 240000 }, () => {
  before(startPage);
  after(stopPage);

  test('the WebAssembly module and Plotly are small, and Plotly is not in the first load', () => {
    const assets = readdirSync(path.join(webDir, 'assets'));
    const gzip = (f) => gzipSync(readFileSync(path.join(webDir, 'assets', f)), { level: 9 }).length;
    const wasm = assets.filter((f) => f.endsWith('.wasm'));
    assert.equal(wasm.length, 1);
    assert.ok(gzip(wasm[0]) <= SIZE_FLOORS.wasm_gzip_bytes, `wasm is ${gzip(wasm[0])} bytes gzip`);
    // Plotly's partial bundle (scatter and bar), its own chunk.
    const plotly = assets.filter((f) => /^plotly/.test(f));
    assert.equal(plotly.length, 1, assets.join(' '));
    assert.ok(gzip(plotly[0]) <= SIZE_FLOORS.plotly_gzip_bytes, `Plotly is ${gzip(plotly[0])} bytes gzip`);
    const html = readFileSync(path.join(webDir, 'index.html'), 'utf8');
    assert.doesNotMatch(html, /plotly/i, 'Plotly is not a script of the page itself');
  });

  test('loads, becomes interactive and shows the default preset like the CLI', async () => {
    const page = await newPage();
    await open(page);
    const interactive = await page.evaluate(() => performance.getEntriesByName('vtrain:interactive')[0].startTime);
    assert.ok(interactive <= sanity('interactive_ms'), `interactive after ${interactive} ms`);
    // Every chart follows the numbers.
    const lag = await chartsLag(page);
    assert.ok(lag <= sanity('charts_on_load_ms'), `the charts came ${lag} ms after the numbers`);
    assert.ok(await page.isVisible('#chart-timeline .main-svg'));
    const k = await kpis(page);
    const golden = cliGolden().cases.find((c) => c.kind === 'example' && c.name === 'gpt3-175b').expected;
    assert.equal(Number(k['kpi-iteration'].value), golden.iteration_time_s);
    assert.equal(plain(k['kpi-iteration'].text), plain(fmt.duration(golden.iteration_time_s)));
    // 1024 GPUs, beyond the calibration runs' 512: the error the profile recorded on published runs.
    const note = await page.textContent('#accuracy');
    assert.equal(golden.accuracy.set, 'published');
    const n = (x) => x.toLocaleString('en-US');
    const [lo, hi] = golden.accuracy.gpus.map(n);
    const [narrow, wide] = golden.accuracy.hidden.map(n);
    // First the mean error of each set of published runs (the embed card's words), then the runs.
    const pct = (a) => fmt.percent(a.mape_percent / 100);
    const short = `Mean error ${pct(golden.accuracy)} on published Megatron-LM runs, ${golden.accuracy_also.map((a) => `${pct(a)} on ${a.framework}`).join(', ')}.`;
    assert.equal(await page.textContent('#accuracy .accuracy-short'), short);
    assert.ok(note.startsWith(`${short} This plan is larger than the calibration runs. On ${golden.accuracy.measured_runs} published Megatron-LM runs (${lo} to ${hi} GPUs, hidden ${narrow} to ${wide}),`), note);
    assert.ok(note.includes(`off by ${fmt.percent(golden.accuracy.mape_percent / 100)} on average`), note);
    // Then each other published set, in the profile's order; a range of one value is said once.
    const span = ([lo, hi]) => (lo === hi ? n(lo) : `${n(lo)} to ${n(hi)}`);
    const others = golden.accuracy_also.map((also) =>
      ` On ${also.measured_runs} published ${also.framework} runs (${span(also.gpus)} GPUs, hidden ${span(also.hidden)}), by ${fmt.percent(also.mape_percent / 100)}.`);
    assert.deepEqual(golden.accuracy_also.map((a) => a.framework), ['DeepSpeed', 'Megatron-DeepSpeed']);
    assert.ok(note.endsWith(`on average.${others.join('')}`), note);
    await assertNoBadText(page);
    await page.waitForTimeout(200);
    await screenshot(page, 'plan.png', { fullPage: true });
    await page.close();
  });

  test('the operator table shows each operator of a layer, the head and the embedding as the CLI does', async () => {
    const page = await newPage();
    await open(page);
    await page.waitForSelector('#ops-table tbody[data-block="layer"] tr', { timeout: 15000 });
    const cli = runCli(['simulate', 'gpt3-175b', '--operators', '--json', '--no-timeline']);
    const table = await page.evaluate(() =>
      [...document.querySelectorAll('#ops-table tbody')].map((b) => ({
        block: b.dataset.block,
        heading: b.querySelector('tr.ops-block').textContent,
        rows: [...b.querySelectorAll('tr:not(.ops-block)')].map((tr) => [...tr.children].map((c) => c.textContent)),
      })),
    );
    assert.deepEqual(table.map((b) => b.block), ['layer', 'head', 'embedding']);
    for (const b of table) {
      const ops = cli.operators.filter((o) => o.block === b.block);
      assert.deepEqual(b.rows.map((r) => r[0]), ops.map((o) => o.name), `${b.block}: the CLI's operators, in its order`);
      const total = ops.reduce((s, o) => s + o.total_s, 0);
      assert.ok(b.heading.endsWith(`: ${fmt.duration(total)}`), b.heading);
      for (const [i, o] of ops.entries()) {
        assert.equal(plain(b.rows[i][1]), plain(o.forward_s > 0 ? fmt.duration(o.forward_s) : fmt.DASH), `${o.name} forward`);
        assert.equal(plain(b.rows[i][4]), plain(fmt.percent(o.total_s / total)), `${o.name} share`);
      }
    }
    assert.match(table[0].heading, /^Each transformer layer \(12 on each stage\)/);
    // The caption says what a layer's GPU time is made of, by kind of operator, as the CLI's rows add up.
    const layerOps = cli.operators.filter((o) => o.block === 'layer');
    const layerTotal = layerOps.reduce((sum, o) => sum + o.total_s, 0);
    const share = (kind) => layerOps.filter((o) => o.kind === kind).reduce((sum, o) => sum + o.total_s, 0) / layerTotal;
    const caption = await page.textContent('#ops-note');
    assert.ok(caption.includes(`${fmt.percent(share('gemm'), 0)} GEMMs`), caption);
    assert.ok(caption.includes(`${fmt.percent(share('collective'), 0)} collectives`), caption);
    const mlp = table[0].rows.find((r) => r[0] === 'MLP up projection');
    assert.match(mlp[5], /^\d+ TFLOP\/s$/);
    // The downloads carry them too: the JSON (with the timeline) and a CSV row per operator and phase.
    await page.waitForSelector('body[data-timeline]', { timeout: 15000 });
    const [json] = await Promise.all([page.waitForEvent('download'), page.click('#download-json')]);
    const saved = JSON.parse(readFileSync(await json.path(), 'utf8')).result;
    assert.ok(saved.timeline.length > 0);
    assert.deepEqual(saved.operators.map((o) => o.name), cli.operators.map((o) => o.name));
    const [csv] = await Promise.all([page.waitForEvent('download'), page.click('#download-csv')]);
    const lines = readFileSync(await csv.path(), 'utf8').trim().split('\n');
    const mlpUp = cli.operators.find((o) => o.block === 'layer' && o.name === 'MLP up projection');
    assert.ok(lines.includes(`operators.layer.MLP up projection.forward,${mlpUp.forward_s},s`), lines.join('\n'));
    assert.ok(lines.includes(`"operators.layer.q, k, v projection.backward",${cli.operators.find((o) => o.name === 'q, k, v projection').backward_s},s`));
    await assertNoBadText(page);
    await page.locator('#ops-figure').screenshot({ path: path.join(shots, 'operators.png') });
    await page.close();
  });

  test('each preset runs in one click, within the floor, with the CLI numbers', async () => {
    const page = await newPage();
    await open(page);
    const golden = cliGolden().cases.filter((c) => c.kind === 'example');
    const times = await presetTimes(page, {
      check: async (name) => {
        const c = golden.find((g) => g.name === name);
        assert.ok(c, `the CLI's golden numbers have ${name}`);
        const k = await kpis(page);
        assert.equal(Number(k['kpi-iteration'].value), c.expected.iteration_time_s, c.name);
        assert.equal(plain(k['kpi-iteration'].text), plain(fmt.duration(c.expected.iteration_time_s)), c.name);
        assert.equal(Number(k['kpi-days'].value), c.expected.training_days, c.name);
        assert.equal(Number(k['kpi-cost'].value), c.expected.cost_usd, c.name);
        assert.equal(await page.getAttribute(`[data-example="${c.name}"]`, 'aria-pressed'), 'true');
        await assertNoBadText(page);
      },
    });
    assert.deepEqual(Object.keys(times.byExample).sort(), golden.map((c) => c.name).sort());
    // Each button names what sets its example apart: no two read the same.
    const labels = await page.$$eval('[data-example]', (bs) => bs.map((b) => b.textContent));
    assert.equal(new Set(labels).size, labels.length, `example buttons: ${labels.join(' | ')}`);
    assert.ok(times.simulate.ms <= sanity('simulate_ms'), `${times.simulate.example} took ${times.simulate.ms.toFixed(1)} ms`);
    assert.ok(times.charts.ms <= sanity('charts_on_preset_ms'), `${times.charts.example}'s charts came ${times.charts.ms.toFixed(0)} ms after its numbers`);
    // The timeline of the largest pipeline draws and can be zoomed.
    await changed(page, 'body', 'data-timeline', '[data-example="mt-nlg-530b"]');
    // The pointer acts only inside the viewport: bring the chart into it first.
    await page.locator('#chart-timeline').scrollIntoViewIfNeeded();
    const box = await page.locator('#chart-timeline .nsewdrag').boundingBox();
    await page.mouse.move(box.x + box.width * 0.3, box.y + 40);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.4, box.y + 60, { steps: 4 });
    await page.mouse.up();
    const range = await page.evaluate(() => document.getElementById('chart-timeline').layout.xaxis.range);
    assert.ok(range[1] - range[0] < 0.2 * (await page.evaluate(() => Number(document.getElementById('kpi-iteration').dataset.value))));
    // The hover box names the block under the pointer: the top row is stage 0 (of 35).
    await page.mouse.move(box.x + box.width * 0.35, box.y + box.height / 35 / 3);
    assert.match(await page.textContent('#chart-timeline .gantt-tip'), /^stage 0 · (forward|backward|recompute|PP send|idle)/);
    await screenshot(page, 'timeline-zoomed.png', { fullPage: false });
    await page.close();
  });

  test('the MT-NLG sweep shows progress, the scatter and a sortable table, and opens a plan', async () => {
    const page = await newPage();
    await open(page);
    // The page starts its sweep worker once it is idle; the sweep is timed from then on.
    const run = await sweepTime(page);
    assert.equal(run.state, 'done', run.status);
    assert.match(run.status, /^294 plans/);
    assert.ok(run.seen.some((s) => s.visible && s.value > 0 && s.value < 1), 'the progress bar showed progress');
    assert.ok(run.ms <= sanity('sweep_ms'), `the sweep took ${run.ms.toFixed(0)} ms`);

    await page.waitForSelector('body[data-scatter]');
    // Plans that do not fit in memory are not timed by default: they have no training time, and
    // the chart has a point per plan timed.
    const rows = await page.$$eval('#explore-table tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
    const unfit = rows.filter((r) => r[7] === 'does not fit');
    assert.ok(unfit.length > 0 && unfit.every((r) => r[3] === fmt.DASH), 'plans that do not fit are not timed');
    const timed = rows.filter((r) => r[3] !== fmt.DASH).length;
    const points = await page.evaluate(() => document.querySelectorAll('#chart-scatter .scatterlayer .point').length);
    assert.ok(points >= timed && timed < 294, `${points} points drawn for ${timed} plans timed`);
    assert.equal(await page.locator('#explore-table tbody tr').count(), 294);
    await assertNoBadText(page);
    await page.waitForTimeout(200);
    await screenshot(page, 'explore.png', { fullPage: true });

    // Sorting by cost puts the cheapest plan first.
    await page.click('#explore-table thead th:nth-child(5) button');
    const costs = await page.$$eval('#explore-table tbody tr td:nth-child(5)', (tds) => tds.map((td) => td.textContent));
    assert.equal(await page.getAttribute('#explore-table thead th:nth-child(5)', 'aria-sort'), 'ascending');
    const first = await page.textContent('#explore-table tbody tr:first-child td:first-child');
    assert.ok(costs.length === 294 && costs[0].startsWith('$'));

    // The fastest and cheapest plans are the CLI's; clicking the fastest opens it in the Plan view.
    const cli = cliGolden().explore.find((e) => e.name === 'mt-nlg').expected;
    const [fastest, fastestValue, cheapest] = await page.evaluate(() => {
      const cards = [...document.querySelectorAll('#explore-best .kpi')];
      const named = (title) => cards.find((c) => c.querySelector('.kpi-label').textContent.startsWith(title));
      return [named('Fastest plan').querySelector('.kpi-sub').textContent, named('Fastest plan').querySelector('.kpi-value').textContent,
        named('Cheapest plan').querySelector('.kpi-sub').textContent];
    });
    const label = (p) => `tp ${p.tp} · pp ${p.pp} · dp ${p.dp}`;
    assert.ok(fastest.startsWith(label(cli.best_time)), `${fastest} vs ${label(cli.best_time)}`);
    assert.ok(cheapest.startsWith(label(cli.best_cost)), `${cheapest} vs ${label(cli.best_cost)}`);
    assert.equal(fastestValue, `${fmt.days(cli.best_time.training_days)} · ${fmt.usd(cli.best_time.cost_usd)}`);
    const rendered = await page.getAttribute('#results', 'data-rendered');
    await page.locator('#explore-best .kpi', { hasText: 'Fastest plan' }).getByRole('button', { name: 'Open in Plan view' }).click();
    await page.waitForFunction((r) => document.getElementById('results').dataset.rendered !== r, rendered);
    assert.equal(await page.getAttribute('#tab-plan', 'aria-selected'), 'true');
    const m = /tp (\d+) · pp (\d+) · dp (\d+)/.exec(fastest);
    assert.deepEqual([await page.inputValue('#f-plan-tp'), await page.inputValue('#f-plan-pp'), await page.inputValue('#f-plan-dp')], [m[1], m[2], m[3]]);
    assert.equal(Number(await page.getAttribute('#kpi-iteration', 'data-value')), cli.best_time.iteration_time_s);
    // The sweep's GPU budget stayed, though the opened plan may use fewer GPUs.
    assert.equal(await page.evaluate(() => new URLSearchParams(location.search).get('budget')), '3360');
    assert.ok(first.length > 0);
    assert.ok(!(await page.evaluate(() => document.getElementById('view-explore').classList.contains('stale'))));

    // Another example: the case's grid no longer applies, and the old plans are dimmed until the
    // sweep of the new inputs replaces them.
    await changed(page, '#results', 'data-rendered', '[data-example="gpt3-175b"]');
    assert.equal(await page.inputValue('#explore-space'), 'grid');
    assert.ok(await page.evaluate(() => document.getElementById('view-explore').classList.contains('stale')));
    await page.click('#tab-explore');
    await page.waitForFunction(() => document.body.dataset.explore === 'done' && !document.getElementById('view-explore').classList.contains('stale'), null, { timeout: 60000 });
    assert.match(await page.textContent('#explore-intro'), /GPT-3 175B/);
    await page.close();
  });

  test('a running sweep can be cancelled and the page keeps working', async () => {
    const page = await newPage();
    await open(page);
    await changed(page, '#results', 'data-rendered', '[data-example="mt-nlg-530b"]');
    // Cancel at the first progress report, from inside the page, so a fast sweep cannot finish first.
    const { state } = await cancelRun(page, { view: 'explore', click: '#tab-explore' });
    assert.equal(state, 'stopped');
    assert.match(await page.textContent('#explore-status'), /cancelled/);
    assert.ok(await page.isHidden('#explore-progress-wrap'));
    // The page still simulates, and the sweep runs again.
    await page.click('#tab-plan');
    await changed(page, '#results', 'data-rendered', '[data-example="llama3-8b"]');
    await page.click('#tab-explore');
    await page.waitForFunction(() => document.body.dataset.explore === 'done', null, { timeout: 60000 });
    await page.close();
  });

  test('an invalid value shows its error beside the field', async () => {
    const page = await newPage();
    await open(page);
    await page.fill('#f-plan-tp', '7');
    await page.waitForSelector('#f-plan-tp-err:not([hidden])');
    assert.match(await page.textContent('#f-plan-tp-err'), /must divide heads \(96\)/i);
    assert.equal(await page.getAttribute('#f-plan-tp', 'aria-invalid'), 'true');
    assert.match(await page.textContent('#status'), /Fix the marked inputs/);
    await page.fill('#f-model-layers', '9x');
    await page.waitForSelector('#f-model-layers-err:not([hidden])');
    assert.match(await page.textContent('#f-model-layers-err'), /number/);
    // The simulator's error on tp stays beside tp while layers cannot be sent.
    assert.match(await page.textContent('#f-plan-tp-err'), /must divide heads/i);
    await assertNoBadText(page);
    await page.evaluate(() => document.getElementById('f-plan-tp').scrollIntoView({ block: 'center' }));
    await screenshot(page, 'invalid.png');
    // Fixing the fields clears the errors and updates the result.
    await page.fill('#f-model-layers', '96');
    await page.fill('#f-plan-tp', '4');
    await page.waitForSelector('#f-plan-tp-err[hidden]', { state: 'attached' });
    // The GPUs stay what they were; dp takes up the change, and says so.
    assert.equal(await page.inputValue('#f-cluster-num_gpus'), '1024');
    assert.equal(await page.inputValue('#f-plan-dp'), '32');
    assert.match(await page.textContent('#f-plan-dp-note'), /^Changed from 16 to 32, so that tp × pp × dp keeps the 1,024 GPUs\.$/);
    await page.waitForFunction(() => !document.getElementById('results').classList.contains('stale'));
    // A price written with its dollar sign is a price.
    const rendered = await page.getAttribute('#results', 'data-rendered');
    await page.fill('#f-cluster-price_per_gpu_hour_usd', '$2');
    await page.waitForFunction((r) => document.getElementById('results').dataset.rendered !== r, rendered);
    assert.ok(await page.isHidden('#f-cluster-price_per_gpu_hour_usd-err'));
    assert.match(await page.textContent('#kpi-cost'), /\$/);
    await page.close();
  });

  test('a shared link reproduces the result, and the embed card shows it', async () => {
    const page = await newPage();
    await open(page);
    await changed(page, '#results', 'data-rendered', '[data-example="llama2-70b"]');
    const rendered = await page.getAttribute('#results', 'data-rendered');
    await page.fill('#f-plan-micro_batch', '2');
    await page.waitForFunction((r) => document.getElementById('results').dataset.rendered !== r, rendered);
    await page.waitForFunction(() => new URLSearchParams(location.search).get('micro_batch') === '2');
    const url = page.url();
    const want = await kpis(page);
    assert.match(url, /model=llama2-70b/);
    await page.close();

    const again = await newPage();
    await open(again, url.slice(base.length));
    assert.deepEqual(await kpis(again), want);
    assert.equal(await again.inputValue('#f-plan-micro_batch'), '2');
    assert.equal(await again.inputValue('#f-model-preset'), 'llama2-70b');
    const snippet = await again.inputValue('#embed-snippet');
    const accuracy = await again.textContent('#accuracy .accuracy-short');
    await again.close();

    // The card fits the snippet's frame from a phone's width to the frame's own.
    const frameHeight = Number(/height="(\d+)"/.exec(snippet)[1]);
    for (const width of [320, 420, 560]) {
      const narrow = await newPage({ width, height: frameHeight });
      await open(narrow, `${url.slice(base.length)}&embed=1`);
      const box = await narrow.locator('#embed-card').boundingBox();
      assert.ok(box.height <= frameHeight, `the card is ${box.height} px high at ${width} px wide, the frame ${frameHeight}`);
      if (width === 320) await screenshot(narrow, 'embed-320.png');
      await narrow.close();
    }

    const embed = await newPage({ width: 600, height: 300 });
    await open(embed, `${url.slice(base.length)}&embed=1`);
    assert.ok(await embed.isVisible('#embed-card'));
    assert.ok(!(await embed.isVisible('#inputs')));
    assert.equal(plain(await embed.textContent('#card-iteration')), plain(want['kpi-iteration'].text));
    const multi = cliGolden().cases.find((c) => c.kind === 'example' && c.name === 'llama2-70b').expected.accuracy;
    assert.equal(multi.set, 'published', '2048 GPUs are beyond the calibration runs');
    // The card says what the Plan view says of the same plan's accuracy, word for word.
    assert.equal(await embed.textContent('#card-accuracy'), accuracy);
    assert.ok(accuracy.startsWith(`Mean error ${fmt.percent(multi.mape_percent / 100)} on published`), accuracy);
    await assertNoBadText(embed);
    await screenshot(embed, 'embed.png');
    await embed.close();
  });

  test('a link naming what the page does not know says so and runs with the defaults', async () => {
    const page = await newPage();
    await open(page, '?model=gpt-9&tp=8&view=explore&objective=fastest&space=everything');
    const notice = await page.textContent('#link-notice');
    assert.ok(await page.isVisible('#link-notice'));
    for (const part of ['model "gpt-9"', 'objective "fastest"', 'space "everything"']) assert.ok(notice.includes(part), notice);
    assert.equal(await page.inputValue('#f-model-preset'), 'custom');
    assert.equal(await page.inputValue('#f-plan-tp'), '8');
    await page.close();

    const good = await newPage();
    await open(good, '?model=llama3-8b&view=explore&objective=time');
    assert.ok(!(await good.isVisible('#link-notice')));
    await good.close();

    // A hand-written link naming a model and one degree: the model's example fills the rest, and
    // the GPU count follows the degrees as it does in the form.
    const short = await newPage();
    await open(short, '?model=llama3-8b&tp=4');
    const [pp, dp] = [Number(await short.inputValue('#f-plan-pp')), Number(await short.inputValue('#f-plan-dp'))];
    assert.equal(await short.inputValue('#f-cluster-num_gpus'), String(4 * pp * dp));
    assert.ok(await short.isHidden('#f-cluster-num_gpus-err'));
    await short.waitForFunction(() => !document.getElementById('results').classList.contains('stale') && document.getElementById('kpi-iteration').dataset.value);
    assert.match(await short.textContent('#status'), /^(?!Fix)/);
    await short.close();
  });

  test("the simulator's warnings show above the charts as sentences", async () => {
    const page = await newPage();
    // 32 layers on 3 stages: uneven; sequence parallelism at tp 1: no effect; 8192-token sequences
    // on one GPU a stage: more memory than it has.
    await open(page, '?model=llama3-8b&tp=1&pp=3&dp=1&sequence_parallel=true');
    await page.waitForFunction(() => !document.getElementById('results').classList.contains('stale') && document.getElementById('kpi-iteration').dataset.value);
    const items = await page.$$eval('#warnings li', (lis) => lis.map((li) => li.textContent));
    assert.ok(await page.isVisible('#warnings'));
    assert.ok(items.some((w) => w.startsWith('Pipeline parallelism 3 does not divide the 32 layers: stages 0 to 1 hold 11 layers')), items.join(' | '));
    assert.ok(items.some((w) => w.startsWith('Sequence parallelism splits activations') && w.endsWith('at tp 1 it changes nothing')), items.join(' | '));
    // This plan does not fit either: one item says by how much and what lowers it.
    assert.equal(items.filter((w) => /GiB|memory/.test(w)).length, 1, items.join(' | '));
    assert.ok(items.some((w) => /^Needs [\d.]+ GiB on stage 0 but the GPU has 80 GiB\. More recomputation, .* lists the plans that fit\.$/.test(w)), items.join(' | '));
    await page.close();
  });

  test("ZeRO-3's gathers and reduce-scatters show in the timeline beside the blocks they serve", async () => {
    const page = await newPage();
    await open(page, '?model=llama3-8b&tp=2&pp=2&dp=4&zero_stage=3&shard_group=4');
    await page.waitForSelector('body[data-timeline]', { timeout: 15000 });
    assert.equal(await page.inputValue('#f-plan-zero_stage'), '3');
    assert.equal(await page.inputValue('#f-plan-shard_group'), '4');
    const names = await page.evaluate(() => document.getElementById('chart-timeline').layout.shapes.map((s) => s.name));
    assert.ok(names.includes('sharded gathers and reduce-scatters'), names.join(' | '));
    assert.match(await page.textContent('#chart-timeline'), /sharded gathers and reduce-scatters/);
    await page.locator('#chart-timeline').scrollIntoViewIfNeeded();
    await screenshot(page, 'timeline-zero3.png', { fullPage: false });
    // Without sharding there are none.
    const rendered = await page.getAttribute('body', 'data-timeline');
    await page.selectOption('#f-plan-zero_stage', '1');
    await page.waitForFunction((r) => document.body.dataset.timeline !== r, rendered);
    const plain = await page.evaluate(() => document.getElementById('chart-timeline').layout.shapes.map((s) => s.name));
    assert.ok(!plain.includes('sharded gathers and reduce-scatters'), plain.join(' | '));

    // Offloading the optimizer empties its part of the memory chart, as the CLI says.
    const off = await newPage();
    await open(off, '?model=llama3-8b&tp=2&pp=2&dp=4&zero_stage=1&optimizer_offload=true');
    await off.waitForSelector('body[data-plan-charts]', { timeout: 15000 });
    assert.ok(await off.isChecked('#f-plan-optimizer_offload'));
    const memory = await off.evaluate(() => document.getElementById('chart-memory').data.map((t) => t.name));
    assert.ok(memory.includes('weights') && !memory.includes('optimizer states'), memory.join(' | '));
    assert.match(await off.textContent('#memory-note'), /optimizer states in host memory, [\d.]+ GiB a GPU$/);
    assert.match(await off.textContent('#breakdown-note'), /the optimizer on the CPU: Adam [\d.]+ (µs|ms|s), PCIe [\d.]+ (µs|ms|s)$/);
    await screenshot(off, 'offload.png', { fullPage: false });
    await off.close();

    // DeepSpeed ZeRO-3 of 2021 synchronizes the device before each layer: the plan line says so, and
    // the iteration is longer than with the gathers and reductions on their own streams alone.
    const time = async (query) => {
      const tab = await newPage();
      await open(tab, query);
      await tab.waitForSelector('body[data-plan-charts]', { timeout: 15000 });
      const kpi = await tab.textContent('#kpi-iteration');
      const [, value, unit] = /([\d.]+)\s*(ms|s|min)/.exec(kpi);
      const out = { text: await tab.textContent('body'), checked: await tab.isChecked('#f-plan-shard_device_sync'),
                    breakdown: await tab.textContent('#chart-breakdown'),
                    s: Number(value) * { ms: 1e-3, s: 1, min: 60 }[unit] };
      await tab.close();
      return out;
    };
    const zero3 = '?model=llama3-8b&tp=2&pp=2&dp=4&zero_stage=3';
    const [streams, synced] = [await time(zero3), await time(`${zero3}&shard_device_sync=true`)];
    assert.ok(synced.checked && !streams.checked);
    assert.match(synced.text, /ZeRO-3 · device synchronized before each layer/);
    assert.doesNotMatch(streams.text, /device synchronized/);
    assert.ok(synced.s > streams.s, `${synced.s} s synchronized, ${streams.s} s on streams`);

    // A spread of GPU speed: the step waits for the slowest GPU, a part of the breakdown of its own.
    const spread = await time(`${zero3}&gpu_speed_spread=0.015`);
    assert.match(spread.breakdown, /slowest GPU/);
    assert.doesNotMatch(streams.breakdown, /slowest GPU/);
    assert.ok(spread.s > streams.s, `${spread.s} s with the spread, ${streams.s} s without`);

    // The sharded space sweeps ZeRO-2 and -3 with both shard groups, as the CLI does.
    await page.evaluate(() => {
      const s = document.getElementById('explore-space');
      s.value = 'sharded';
      s.dispatchEvent(new Event('change'));
    });
    await page.waitForFunction(() => new URLSearchParams(location.search).get('space') === 'sharded');
    await page.click('#tab-explore');
    await page.fill('#explore-budget', '16');
    const run = await trackRun(page, { view: 'explore', click: '#explore-run' });
    assert.equal(run.state, 'done', run.status);
    const labels = await page.$$eval('#explore-table tbody tr td:first-child', (tds) => tds.map((td) => td.textContent));
    assert.ok(labels.some((l) => /ZeRO-3 · shard group 8/.test(l)), labels.slice(0, 20).join(' | '));
    assert.ok(labels.some((l) => /ZeRO-2/.test(l)), labels.slice(0, 20).join(' | '));
    await page.close();
  });

  test('the library on its own (build/web/lib) runs in a worker and gives the CLI numbers', async () => {
    const page = await newPage();
    await page.goto(base);
    const golden = cliGolden().cases.filter((c) => c.kind === 'model');
    const got = await page.evaluate(async (cases) => {
      const { createVtrain, VtrainError } = await import('./lib/vtrain.js');
      const vtrain = await createVtrain();
      const out = [];
      for (const c of cases) out.push((await vtrain.simulate({ ...c.config, output: { timeline: false } })).iteration_time_s);
      let error = null;
      try {
        await vtrain.simulate({ model: 'gpt3-175b', plan: { tp: 7 } });
      } catch (e) {
        error = { typed: e instanceof VtrainError, pointer: e.pointer, code: e.code };
      }
      vtrain.terminate();
      return { out, error };
    }, golden);
    assert.deepEqual(got.out, golden.map((c) => c.expected.iteration_time_s));
    assert.deepEqual(got.error, { typed: true, pointer: '/plan/tp', code: 'divisibility' });
    await page.close();
  });

  test('the page reads well on a phone', async () => {
    const page = await newPage({ width: 390, height: 844 });
    await open(page);
    await page.waitForSelector('body[data-charts]');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `the page is ${overflow} px wider than the screen`);
    await screenshot(page, 'phone.png', { fullPage: true });
    // The inputs are below the results: a link near the top leads to them; wide screens lack it.
    assert.ok(await page.isVisible('#jump-inputs'));
    await page.click('#jump-inputs');
    await page.waitForFunction(() => Math.abs(document.getElementById('inputs').getBoundingClientRect().top) < 40);
    await page.close();
    const wide = await newPage();
    await open(wide);
    assert.ok(await wide.isHidden('#jump-inputs'));
    await wide.close();
  });

  test('no console errors or exceptions on any page', () => {
    assert.deepEqual(problems, []);
  });
});

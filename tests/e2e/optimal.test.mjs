// The Compute-optimal view and the Explore objective in Debian's Chromium, against the built page
// (build/web). The page's answers are compared with the native CLI's, produced at test time
// (build/golden/cli.json and `vtrain explore`); the time from the preset's click to its answer is
// held to a sanity limit (10 times its floor; `npm run bench` holds the floor). Screenshots go to
// build/screenshots.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { cliGolden } from '../../scripts/golden.mjs';
import * as fmt from '../../web/src/format.js';
import { sanity } from './floors.mjs';
import {
  assertNoBadText, base, newPage, open, plain, problems, runCli, screenshot, startPage, stopPage,
} from './harness.mjs';
import { mainThreadGap, optimalTime } from './measure.mjs';

describe('the Compute-optimal view and the Explore objective in Chromium', { timeout: 300000 }, () => {
  let golden;

  before(async () => {
    await startPage();
    golden = cliGolden().optimal.find((o) => o.name === 'vtrain-case3');
    assert.ok(golden, 'the CLI has the vtrain-case3 preset');
  });

  after(stopPage);

  test('the vTrain case study: a progress bar, both answers as the CLI gives them, both charts', async () => {
    const page = await newPage();
    await open(page);
    // The tab answers the preset at once; then another budget, so that the preset's click really
    // changes the inputs, and the click is timed.
    const { first, run } = await optimalTime(page);
    assert.equal(first.state, 'done', first.status);
    assert.ok(await page.isVisible('#optimal-inputs'));
    assert.ok(await page.isHidden('#inputs'));
    assert.equal(run.state, 'done', run.status);
    assert.ok(run.seen.some((s) => s.visible && s.value > 0 && s.value < 1), 'the progress bar showed progress');
    assert.ok(run.ms <= sanity('optimal_ms'), `the preset took ${run.ms.toFixed(0)} ms`);
    assert.ok(await page.isHidden('#optimal-progress-wrap'));
    assert.equal(await page.getAttribute('[data-optimal-preset="vtrain-case3"]', 'aria-pressed'), 'true');

    // Both answers, as the native CLI gives them.
    const want = golden.expected;
    const cards = await page.evaluate(() => Object.fromEntries(['flop', 'achievable'].map((id) => {
      const el = document.getElementById(`answer-${id}`);
      return [id, { params: el.dataset.params, big: el.querySelector('.answer-big').textContent, text: el.innerText, verdict: el.querySelector('.verdict').textContent }];
    })));
    assert.equal(Number(cards.achievable.params), want.achievable.params);
    assert.equal(plain(cards.achievable.big), plain(`${fmt.count(want.achievable.params)} parameters`));
    assert.equal(Number(cards.flop.params), want.flop_only.params);
    assert.equal(plain(cards.flop.big), plain(`${fmt.count(want.flop_only.params)} parameters`));
    assert.match(cards.achievable.text, new RegExp(`hidden ${want.achievable.model.hidden.toLocaleString('en-US')} · ${want.achievable.model.layers} layers`));
    assert.match(cards.achievable.text, new RegExp(`tp ${want.achievable.plan.tp} · pp ${want.achievable.plan.pp} · dp ${want.achievable.plan.dp}`));
    assert.ok(cards.achievable.text.includes(fmt.days(want.achievable.training_days)));
    assert.ok(cards.flop.text.includes(fmt.usd(want.flop_only.cost_usd)));
    // The contrast: the FLOP-only answer overruns the 30 days, by the CLI's factor.
    assert.ok(want.flop_only.training_days > 30);
    assert.ok(cards.flop.verdict.includes(`${(want.flop_only.training_days / 30).toFixed(1)}× the budget`), cards.flop.verdict);
    assert.match(cards.achievable.verdict, /within the budget/);
    assert.equal(await page.locator('#optimal-alternatives tbody tr').count(), want.alternatives.length);
    const firstAlt = await page.textContent('#optimal-alternatives tbody tr:first-child td:first-child');
    assert.equal(plain(firstAlt), plain(fmt.count(want.alternatives[0].params)));

    // Both charts: loss with the curves and the answers; days with the budget line.
    const charts = await page.evaluate(() => {
      const info = (id) => {
        const el = document.getElementById(id);
        return {
          traces: el.data.map((t) => ({ name: t.name, x: [...t.x], y: [...t.y] })),
          points: el.querySelectorAll('.scatterlayer .point').length,
          shapes: (el.layout.shapes || []).length,
        };
      };
      return { loss: info('chart-optimal-loss'), days: info('chart-optimal-days') };
    });
    // The star of the achievable answer lies on the curve its rule chose it from (20 tokens per
    // parameter, not the whole budget), as the largest size within the budget; the note says
    // which rule picked it and where the whole budget's lowest loss lies.
    const names = charts.loss.traces.map((t) => t.name);
    const rule = charts.loss.traces.find((t) => t.name === '20 tokens per parameter (the rule)');
    assert.ok(rule && names.includes('achievable, whole budget') && names.includes('FLOP-only, whole budget at peak'), names.join());
    const at = rule.x.indexOf(want.achievable.params);
    assert.ok(at >= 0, 'the achievable answer is a point of the rule\'s curve');
    assert.ok(Math.abs(rule.y[at] - want.achievable.loss) < 1e-6, `${rule.y[at]} vs ${want.achievable.loss}`);
    const stars = charts.loss.traces.filter((t) => t.name === 'the two answers');
    assert.deepEqual(stars.map((t) => t.x[0]), [want.flop_only.params, want.achievable.params]);
    const ruleNote = await page.textContent('#optimal-loss-rule');
    assert.match(ruleNote, /^Both stars follow the ratio rule: the largest size whose 20 tokens per parameter fit the budget/);
    const whole = charts.loss.traces.find((t) => t.name === 'achievable, whole budget');
    const lowest = Math.min(...whole.y.filter((y) => y != null));
    if (lowest < want.achievable.loss - 5e-5) {
      assert.ok(ruleNote.includes(`would reach ${lowest.toFixed(4)}`), ruleNote);
      assert.ok(charts.loss.traces.some((t) => t.name === 'lowest loss, whole budget' && Math.abs(t.y[0] - lowest) < 1e-12));
    }
    assert.ok(charts.loss.points >= 15, `${charts.loss.points} points on the loss chart`);
    assert.equal(charts.days.shapes, 1, 'the budget line');
    assert.ok(charts.days.points >= 15);
    await assertNoBadText(page);
    await page.waitForTimeout(200);
    await screenshot(page, 'optimal.png', { fullPage: true });

    // The link holds the inputs; Download JSON gives the request and the answer.
    const url = page.url();
    const q = new URL(url).searchParams;
    assert.equal(q.get('view'), 'optimal');
    assert.equal(q.get('days'), '30');
    assert.equal(q.get('tokens_per_param'), '20');
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download-json')]);
    const saved = JSON.parse(readFileSync(await download.path(), 'utf8'));
    assert.equal(saved.result.achievable.params, want.achievable.params);
    assert.equal(saved.request.budget.days, 30);
    const [csv] = await Promise.all([page.waitForEvent('download'), page.click('#download-csv')]);
    const rows = readFileSync(await csv.path(), 'utf8').trim().split('\n');
    assert.equal(rows.length, 1 + 15);
    assert.doesNotMatch(rows.join('\n'), /NaN|Infinity/);

    // The achievable answer opens in the Plan view with the same iteration time.
    const rendered = await page.getAttribute('#results', 'data-rendered');
    await page.click('#answer-achievable .open-plan');
    await page.waitForFunction((r) => document.getElementById('results').dataset.rendered !== r, rendered);
    assert.equal(await page.getAttribute('#tab-plan', 'aria-selected'), 'true');
    assert.ok(await page.isVisible('#inputs'));
    assert.deepEqual(
      [await page.inputValue('#f-model-hidden'), await page.inputValue('#f-model-layers'), await page.inputValue('#f-plan-tp'), await page.inputValue('#f-plan-pp'), await page.inputValue('#f-plan-dp')],
      [want.achievable.model.hidden, want.achievable.model.layers, want.achievable.plan.tp, want.achievable.plan.pp, want.achievable.plan.dp].map(String),
    );
    const answers = cards.flop.text + cards.achievable.text;
    const iteration = Number(await page.getAttribute('#kpi-iteration', 'data-value'));
    assert.ok(Math.abs(iteration - want.achievable.iteration_time_s) <= 1e-9 * iteration, `${iteration} vs ${want.achievable.iteration_time_s}`);
    await page.close();

    // Reopening the link answers the same.
    const again = await newPage();
    await open(again, url.slice(base.length));
    await again.waitForFunction(() => document.body.dataset.optimal === 'done', null, { timeout: 30000 });
    assert.equal(Number(await again.getAttribute('#answer-achievable', 'data-params')), want.achievable.params);
    assert.equal(await again.evaluate(() => ['flop', 'achievable'].map((id) => document.getElementById(`answer-${id}`).innerText).join('')), answers);
    assert.equal(await again.inputValue('#o-budget'), '30');
    assert.equal(await again.inputValue('#o-scaling'), 'ratio');
    await again.close();
  });

  test('an invalid budget is explained beside its field and the view recovers', async () => {
    const page = await newPage();
    await open(page, '?view=optimal');
    await page.waitForFunction(() => document.body.dataset.optimal === 'done', null, { timeout: 30000 });
    const answer = await page.getAttribute('#answer-achievable', 'data-params');
    // The simulator's range check, beside the amount.
    await page.fill('#o-budget', '-5');
    await page.waitForSelector('#o-budget-err:not([hidden])', { timeout: 15000 });
    assert.match(await page.textContent('#o-budget-err'), /^Must be greater than 0/);
    assert.equal(await page.getAttribute('#o-budget', 'aria-invalid'), 'true');
    assert.match(await page.textContent('#optimal-status'), /Fix the marked inputs/);
    assert.ok(await page.evaluate(() => document.getElementById('optimal-result').classList.contains('stale')));
    // Text that is not a number is caught as it is typed.
    await page.fill('#o-budget', '30 days');
    await page.waitForFunction(() => /number/.test(document.getElementById('o-budget-err').textContent));
    // An error on another field sits beside that field.
    await page.fill('#o-budget', '30');
    await page.fill('#o-num_gpus', '0');
    await page.waitForSelector('#o-num_gpus-err:not([hidden])', { timeout: 15000 });
    // The cluster is read by the simulate config's reader: its bound, as every range error says it.
    assert.match(await page.textContent('#o-num_gpus-err'), /between 1 and 100000000, got 0/);
    assert.ok(await page.isHidden('#o-budget-err'));
    await assertNoBadText(page);
    await page.evaluate(() => document.getElementById('o-budget').scrollIntoView({ block: 'center' }));
    await screenshot(page, 'optimal-invalid.png');
    await page.fill('#o-num_gpus', '3360');
    await page.waitForFunction(() => document.body.dataset.optimal === 'done' && !document.getElementById('optimal-result').classList.contains('stale'), null, { timeout: 30000 });
    assert.equal(await page.getAttribute('#answer-achievable', 'data-params'), answer);
    assert.ok(await page.isHidden('#o-num_gpus-err'));

    // Another unit keeps the budget, not the number: 30 days on 3,360 GPUs become their dollars.
    const price = Number((await page.inputValue('#o-price_per_gpu_hour_usd')).replace(/^\$/, ''));
    await page.selectOption('#o-budget_kind', 'usd');
    const usd = await page.inputValue('#o-budget');
    assert.match(usd, /^[\d.]+M$/);
    const want = 30 * 24 * 3360 * price;
    assert.ok(Math.abs(Number(usd.slice(0, -1)) * 1e6 / want - 1) < 0.01, `${usd} for ${want}`);
    await page.selectOption('#o-budget_kind', 'gpu_hours');
    assert.equal(await page.inputValue('#o-budget'), `${Number((30 * 24 * 3360 / 1e6).toPrecision(3))}M`);
    await page.close();
  });

  test('a running sizing can be cancelled, and the page answers input meanwhile', async () => {
    const page = await newPage();
    await open(page);
    await page.waitForSelector('body[data-warm]', { timeout: 20000 });
    // Cancelled at 30 %; `worst` is the longest the page's thread went without running a 10 ms
    // timer while the worker sized.
    const r = await mainThreadGap(page);
    assert.equal(r.state, 'stopped');
    assert.ok(r.worst <= sanity('main_thread_gap_ms'), `the page's thread stalled for ${r.worst.toFixed(0)} ms`);
    assert.match(await page.textContent('#optimal-status'), /Cancelled/);
    assert.ok(await page.isHidden('#optimal-progress-wrap'));
    assert.ok(await page.isVisible('#optimal-run'));
    // It sizes again on request.
    await page.click('#optimal-run');
    await page.waitForFunction(() => document.body.dataset.optimal === 'done', null, { timeout: 30000 });
    assert.equal(Number(await page.getAttribute('#answer-achievable', 'data-params')), golden.expected.achievable.params);
    await page.close();
  });

  test('a money budget and a fit: the second chart shows cost against the budget', async () => {
    const page = await newPage();
    await open(page, '?view=optimal&usd=10M&gpu=a100-sxm4-80gb&num_gpus=512&gpus_per_node=8&price_per_gpu_hour_usd=2&seq_len=2048&global_batch=1024&family=llama&scaling=besiroglu2024');
    await page.waitForFunction(() => ['done', 'invalid'].includes(document.body.dataset.optimal), null, { timeout: 60000 });
    assert.equal(await page.evaluate(() => document.body.dataset.optimal), 'done', await page.textContent('#optimal-status'));
    assert.equal(await page.inputValue('#o-budget_kind'), 'usd');
    assert.equal(await page.inputValue('#o-family'), 'llama');
    assert.match(await page.textContent('#optimal-days-caption'), /costs/);
    assert.match(await page.textContent('#answer-achievable .verdict'), /within the budget of \$10\.0 M/);
    await page.waitForSelector('body[data-optimal-charts]');
    assert.equal(await page.evaluate(() => document.getElementById('chart-optimal-days').layout.shapes[0].y0), 10e6);
    // With a scaling law the achievable star is the lowest point of the achievable curve.
    const loss = await page.evaluate(() => document.getElementById('chart-optimal-loss').data.map((t) => ({ name: t.name, x: [...t.x], y: [...t.y] })));
    const ach = loss.find((t) => t.name === 'achievable (simulated plans)');
    const low = ach.y.reduce((best, y, i) => (y != null && (best < 0 || y < ach.y[best]) ? i : best), -1);
    assert.deepEqual(loss.filter((t) => t.name === 'the two answers')[1].x, [ach.x[low]]);
    assert.match(await page.textContent('#optimal-loss-rule'), /^Each star is its curve’s lowest loss/);
    await assertNoBadText(page);

    // A deadline beside the money: the answer finishes within it, and the link keeps it.
    const trainingDays = async () => Number((await page.textContent('#answer-achievable dl div:nth-child(4) dd')).replace(/[^\d.]/g, ''));
    assert.ok(await page.isVisible('#o-deadline_days'));
    const before = await trainingDays();
    const deadline = Math.floor(before / 2);
    await page.fill('#o-deadline_days', String(deadline));
    await page.waitForFunction((d) => new URLSearchParams(location.search).get('deadline_days') === String(d), deadline);
    await page.waitForFunction(() => document.body.dataset.optimal === 'done' && !document.getElementById('optimal-result').classList.contains('stale')
      && /within \d+ days/.test(document.getElementById('optimal-headline').textContent), null, { timeout: 60000 });
    assert.ok((await trainingDays()) <= deadline, `${await trainingDays()} days against a deadline of ${deadline}`);
    // A time budget has no deadline field.
    await page.selectOption('#o-budget_kind', 'days');
    assert.ok(await page.isHidden('#o-deadline_days'));
    await page.close();
  });

  test('the view reads well on a phone', async () => {
    const page = await newPage({ width: 390, height: 844 });
    await open(page, '?view=optimal');
    await page.waitForSelector('body[data-optimal-charts]', { timeout: 30000 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `the page is ${overflow} px wider than the screen`);
    // Every tab is on screen.
    const tab = await page.locator('#tab-optimal').boundingBox();
    assert.ok(tab.x + tab.width <= 390, `the Compute-optimal tab ends at ${tab.x + tab.width} px`);
    await assertNoBadText(page);
    await screenshot(page, 'optimal-phone.png', { fullPage: true });
    await page.close();
  });

  test('Explore highlights the best plan for the objective, as the CLI picks it', async () => {
    const cheapestWithin60 = runCli(['explore', '--case', 'mt-nlg', '--objective', 'deadline', '--deadline-days', '60', '--json']).best;
    const page = await newPage();
    await open(page);
    await page.click('[data-example="mt-nlg-530b"]');
    await page.waitForFunction(() => document.querySelector('[data-example="mt-nlg-530b"]').getAttribute('aria-pressed') === 'true');
    await page.evaluate(() => {
      const set = (id, value) => {
        const el = document.getElementById(id);
        el.value = value;
        el.dispatchEvent(new Event('change'));
      };
      set('explore-space', 'mt-nlg');
      set('explore-objective', 'deadline');
      set('explore-deadline', '60');
    });
    await page.click('#tab-explore');
    await page.waitForFunction(() => document.body.dataset.explore === 'done', null, { timeout: 60000 });
    const label = (p) => `tp ${p.tp} · pp ${p.pp} · dp ${p.dp}`;
    const best = await page.textContent('#explore-best .kpi.objective .kpi-sub');
    assert.ok(best.startsWith(label(cheapestWithin60)), `${best} vs ${label(cheapestWithin60)}`);
    assert.match(await page.textContent('#explore-best .kpi.objective .kpi-label'), /within 60 days/);
    assert.ok((await page.textContent('#explore-status')).includes(`best for the objective, the cheapest within 60 days: ${label(cheapestWithin60)}`));
    assert.equal(await page.locator('#explore-table tbody tr.objective-best').count(), 1);
    const q = new URL(page.url()).searchParams;
    assert.equal(q.get('objective'), 'deadline');
    assert.equal(q.get('deadline'), '60');
    await page.waitForSelector('body[data-scatter]');
    assert.ok(await page.evaluate(() => document.getElementById('chart-scatter').data.some((t) => /^best/.test(t.name))));
    await assertNoBadText(page);
    await screenshot(page, 'explore-objective.png', { fullPage: true });

    // The fastest plan, then a deadline no plan meets.
    const fastest = runCli(['explore', '--case', 'mt-nlg', '--objective', 'time', '--json']).best;
    const next = () => page.evaluate(() => new Promise((resolve) => {
      const o = new MutationObserver(() => {
        if (document.body.dataset.explore === 'done' || document.body.dataset.explore === 'stopped') {
          o.disconnect();
          resolve(document.body.dataset.explore);
        }
      });
      o.observe(document.body, { attributes: true, attributeFilter: ['data-explore'] });
    }));
    let settled = next();
    await page.selectOption('#explore-objective', 'time');
    assert.equal(await settled, 'done');
    assert.ok((await page.textContent('#explore-best .kpi.objective .kpi-sub')).startsWith(label(fastest)));
    assert.match(await page.textContent('#explore-best .kpi.objective .kpi-label'), /^Fastest plan/);
    settled = next();
    await page.selectOption('#explore-objective', 'deadline');
    await settled;
    settled = next();
    await page.evaluate(() => {
      const el = document.getElementById('explore-deadline');
      el.value = '1';
      el.dispatchEvent(new Event('change'));
    });
    assert.equal(await settled, 'done');
    assert.match(await page.textContent('#explore-best'), /No plan finishes within 1 day:/);
    assert.equal(await page.locator('#explore-best .kpi.objective').count(), 0);
    await page.close();
  });

  test('every plan of GPT-3 175B is past the page bound, and the page says how to restrict it', async () => {
    const page = await newPage();
    await open(page, '?view=explore&space=all');
    await page.waitForFunction(() => ['done', 'stopped'].includes(document.body.dataset.explore), null, { timeout: 60000 });
    const status = await page.textContent('#explore-status');
    assert.match(status, /more than 50,000 plans/);
    assert.match(status, /tp × pp × dp/);
    assert.match(status, /vtrain explore/);
    await page.close();
  });

  test('no console errors or exceptions on any page', () => {
    assert.deepEqual(problems, []);
  });
});

// The page's choices are the simulator's (`vtrain schema`, build/golden/cli.json): every GPU,
// model preset, example, explore case, objective, scaling fit, family, compute-optimal preset and
// each enum field's choices, in the simulator's order and with its labels, so that a GPU profile or
// a precision the simulator gains is offered without an edit to the page. Fails when a list is
// written into the page again and falls behind the simulator's.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cliGolden } from '../../scripts/golden.mjs';
import { newPage, open, startPage, stopPage } from './harness.mjs';

const options = (page, selector) => page.$$eval(`${selector} option`, (os) => os.map((o) => [o.value, o.textContent]));
const values = async (page, selector) => (await options(page, selector)).map(([v]) => v);
const pairs = (list) => list.map((c) => [c.name, c.label]);

describe('the page offers what the simulator knows', { timeout: 120000 }, () => {
  before(startPage);
  after(stopPage);

  test('Plan inputs: the GPUs, model presets, examples and every enum field as the schema lists them', async () => {
    const schema = cliGolden().schema;
    const reg = schema.registries;
    const page = await newPage();
    await open(page);
    assert.deepEqual(await options(page, '#f-cluster-gpu'), reg.gpus.map((g) => [g.name, g.display_name]));
    assert.deepEqual((await values(page, '#f-model-preset')).filter((v) => v !== 'custom'), reg.model_presets.map((m) => m.name));
    assert.deepEqual(await page.$$eval('[data-example]', (bs) => bs.map((b) => b.dataset.example)), reg.examples.map((e) => e.name));
    for (const section of ['model', 'cluster', 'plan']) {
      for (const [key, field] of Object.entries(schema.config[section].fields)) {
        if (!field.enum) continue;
        const id = `#f-${section}-${key}`;
        if (!(await page.$(id))) continue;
        assert.deepEqual(await options(page, id), pairs(schema.enums[field.enum]), `${id}: the ${field.enum} choices`);
      }
    }
    // A whole-number choice: every value within its bounds.
    const zero = schema.config.plan.fields.zero_stage;
    assert.deepEqual((await values(page, '#f-plan-zero_stage')).map(Number), Array.from({ length: zero.maximum - zero.minimum + 1 }, (_, i) => zero.minimum + i));
    // The bandwidths a GPU brings, as the schema gives them, stand in the empty fields.
    const chosen = await page.inputValue('#f-cluster-gpu');
    const gpu = reg.gpus.find((g) => g.name === chosen);
    assert.equal(await page.getAttribute('#f-cluster-intra_node_GBps', 'placeholder'), `${gpu.intra_node_GBps} (GPU default)`);
    // A sentence names the GPU by its label.
    await page.click('#tab-explore');
    await page.waitForFunction(() => /×/.test(document.getElementById('explore-intro').textContent));
    assert.match(await page.textContent('#explore-intro'), new RegExp(` × ${gpu.label} `));
    // Explore: the simulator's cases after the page's three spaces, and every objective.
    assert.deepEqual((await options(page, '#explore-space')).slice(3), pairs(reg.explore_cases));
    assert.deepEqual((await values(page, '#explore-objective')).sort(), schema.enums.objective.map((o) => o.name).sort());
    await page.close();
  });

  test('Compute-optimal inputs: the GPUs, families, fits, budget amounts and presets as the schema lists them', async () => {
    const schema = cliGolden().schema;
    const reg = schema.registries;
    const page = await newPage();
    await open(page, '?view=optimal');
    assert.deepEqual(await values(page, '#o-gpu'), reg.gpus.map((g) => g.name));
    assert.deepEqual(await options(page, '#o-family'), pairs(schema.enums.family));
    assert.deepEqual((await values(page, '#o-scaling')).slice(0, reg.scaling_fits.length), reg.scaling_fits.map((f) => f.name));
    assert.deepEqual(await options(page, '#o-loss_fit'), pairs(reg.scaling_fits));
    const kinds = await values(page, '#o-budget_kind');
    assert.ok(kinds.length >= 4 && kinds.every((k) => schema.optimal.budget.order.includes(k)), kinds.join(' '));
    assert.deepEqual(await page.$$eval('[data-optimal-preset]', (bs) => bs.map((b) => b.dataset.optimalPreset)), reg.optimal_presets.map((p) => p.name));
    await page.close();
  });
});

// The model section's "Import a Hugging Face config.json": a pasted config fills the model's
// fields, the page then shows the native CLI's answer for the same config (`vtrain simulate --hf`),
// the importer's warnings are listed under the box, a model part the form has no field for is
// named, and a broken file is explained by the field of the Hugging Face file.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { newPage, open, problems, root, runCli, screenshot, startPage, stopPage } from './harness.mjs';

const hf = (name) => path.join(root, 'tests/data/hf', name);
const model = ['layers', 'hidden', 'heads', 'kv_heads', 'ffn_hidden', 'seq_len', 'vocab', 'mlp'];

async function fields(page) {
  const out = {};
  for (const k of model) out[k] = await page.inputValue(`#f-model-${k}`);
  return out;
}

async function paste(page, text) {
  if (!(await page.$eval('#hf-import', (d) => d.open))) await page.click('#hf-import > summary');
  await page.fill('#hf-text', text);
  await page.click('#hf-go');
}

describe('the model section imports a Hugging Face config.json', { timeout: 120000 }, () => {
  before(startPage);
  after(stopPage);

  test('a pasted config fills the model fields and the page simulates what the CLI does', async () => {
    const page = await newPage();
    await open(page, '?model=gpt3-175b&vocab_pad_multiple=64');
    await page.waitForFunction(() => document.getElementById('kpi-iteration').dataset.value);
    const before = await fields(page);
    assert.equal(before.layers, '96');
    const rendered = await page.getAttribute('#results', 'data-rendered');

    await paste(page, readFileSync(hf('Llama-3.1-70B.json'), 'utf8'));
    await page.waitForFunction(() => document.getElementById('f-model-layers').value === '80');
    assert.deepEqual(await fields(page), {
      layers: '80', hidden: '8192', heads: '64', kv_heads: '8', ffn_hidden: '28672', seq_len: '131072', vocab: '128256', mlp: 'swiglu',
    });
    assert.equal(await page.inputValue('#f-model-preset'), 'custom');
    // A model field the import leaves out takes the simulator's default.
    assert.equal(await page.inputValue('#f-model-vocab_pad_multiple'), '128');
    assert.match(await page.textContent('#hf-status'), /Imported llama: 80 layers, hidden 8192, 64 heads/);
    const notes = await page.$$eval('#hf-warnings li', (lis) => lis.map((li) => li.textContent));
    assert.ok(notes.some((n) => n.startsWith('/rope_scaling ')), notes.join('\n'));
    assert.ok(notes.some((n) => n.startsWith('/max_position_embeddings ')), notes.join('\n'));

    // The page's number is the CLI's for the example's plan with the imported model.
    await page.waitForFunction((r) => document.getElementById('results').dataset.rendered !== r && !document.getElementById('results').classList.contains('stale'), rendered);
    const cli = runCli(['simulate', '--hf', hf('Llama-3.1-70B.json'), 'gpt3-175b', '--json']);
    await page.waitForFunction((t) => Number(document.getElementById('kpi-iteration').dataset.value) === t, cli.iteration_time_s, { timeout: 15000 });
    await page.locator('#section-model').screenshot({ path: path.join(root, 'build/screenshots/hf-import.png') });
    await page.close();
  });

  test('a model part the form has no field for is named; a broken file is explained by its field', async () => {
    const page = await newPage();
    await open(page);
    await paste(page, readFileSync(hf('Mixtral-8x7B-v0.1.json'), 'utf8'));
    await page.waitForFunction(() => /Imported mixtral/.test(document.getElementById('hf-status').textContent));
    assert.equal(await page.inputValue('#f-model-ffn_hidden'), '14336');
    const hasMoeField = await page.$('[id="f-model-moe-experts"], [name="experts"]');
    if (!hasMoeField) {
      const notes = await page.textContent('#hf-warnings');
      assert.match(notes, /no field for \/model\/moe/);
    }

    const broken = JSON.parse(readFileSync(hf('Llama-3.1-8B.json'), 'utf8'));
    delete broken.num_hidden_layers;
    const layers = await page.inputValue('#f-model-layers');
    await paste(page, JSON.stringify(broken));
    await page.waitForFunction(() => document.getElementById('hf-status').classList.contains('bad'));
    assert.match(await page.textContent('#hf-warnings'), /\/num_hidden_layers is required/);
    assert.equal(await page.inputValue('#f-model-layers'), layers, 'a refused file changes no field');
    await paste(page, 'not json');
    await page.waitForFunction(() => /not valid JSON/.test(document.getElementById('hf-warnings').textContent));
    await screenshot(page, 'hf-import-error.png');
    // A chosen file is read and imported at once.
    await page.setInputFiles('#hf-file', hf('gpt2.json'));
    await page.waitForFunction(() => /Imported gpt2/.test(document.getElementById('hf-status').textContent));
    assert.equal(await page.inputValue('#f-model-layers'), '12');
    assert.equal(await page.inputValue('#f-model-position'), 'learned');
    assert.match(await page.inputValue('#hf-text'), /"n_embd": 768/);
    await page.close();
    assert.deepEqual(problems, []);
  });
});

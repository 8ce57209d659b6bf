// Every command output quoted in the README is what the command prints now.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { readmeBlocks, commandOutput } from '../../scripts/readme-examples.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

test('README examples match the commands (node scripts/readme-examples.mjs updates them)', (t) => {
  const blocks = readmeBlocks();
  assert.ok(blocks.length >= 1);
  for (const b of blocks) {
    if (b.args.includes('../shared') && !existsSync(path.join(root, '../shared'))) {
      t.diagnostic(`skipped "vtrain ${b.args}": ../shared is not beside this clone`);
      continue;
    }
    assert.equal(b.quoted, commandOutput(b.args), `vtrain ${b.args}`);
  }
});

test('the README accuracy table states what vtrain validate prints', (t) => {
  const shared = path.join(root, '../shared/validation');
  if (!existsSync(shared)) {
    t.skip('../shared is not beside this clone');
    return;
  }
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  for (const [label, file] of [['| single node', 'single_node_calibration.csv'], ['| multi node', 'multi_node_calibration.csv']]) {
    const row = readme.split('\n').find((l) => l.startsWith(label));
    assert.ok(row, `README table row ${label}`);
    const cells = row.split('|').map((c) => c.trim());
    const j = JSON.parse(commandOutput(`validate ${path.join(shared, file)} --json`));
    assert.equal(cells[2], String(j.runs));
    assert.equal(cells[3], `${j.mape_percent.toFixed(2)}%`);
    assert.equal(cells[4], `${j.max_abs_error_percent.toFixed(1)}%`);
  }
});

test('the README accuracy table states the published runs and the profile\'s cross-validation', () => {
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  for (const [label, file] of [['| published Megatron-LM runs', 'megatron-a100.csv'],
    ['| published Megatron-LM weak scaling', 'narayanan-a100.csv'], ['| published MT-NLG', 'mt-nlg-a100.csv'],
    ['| published BLOOM', 'bloom-a100.csv'],
    ['| published per-layer times', 'korthikanti-layer-a100.csv'], ['| GPT-3 175B on 512 A100s', 'vtrain-175b-a100.csv']]) {
    const row = readme.split('\n').find((l) => l.startsWith(label));
    assert.ok(row, `README table row ${label}`);
    const cells = row.split('|').map((c) => c.trim());
    const j = JSON.parse(commandOutput(`validate ${path.join(root, 'profiles/published', file)} --json`));
    assert.equal(cells[2], String(j.runs));
    assert.equal(cells[3], `${j.mape_percent.toFixed(2)}%`);
    assert.equal(cells[4], `${j.max_abs_error_percent.toFixed(1)}%`);
  }
  // The cross-validation column is what `vtrain calibrate --cv 5` recorded in the bundled profile.
  const cv = JSON.parse(readFileSync(path.join(root, 'profiles/a100-sxm4-80gb.json'), 'utf8'))
    .provenance.calibration.cross_validation.held_out;
  for (const [label, set] of [['| single node', 'single-node'], ['| multi node', 'multi-node']]) {
    const line = readme.split('\n').find((l) => l.startsWith(label));
    const held = cv.find((e) => e.set === set);
    assert.equal(line.split('|').map((c) => c.trim())[5], `${held.mape_percent.toFixed(2)}%`);
  }
});

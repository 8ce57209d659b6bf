// Every command output quoted in README.md and docs/*.md is what the command prints now, every
// vtrain command of their sh blocks runs, and the accuracy figures they state are validate's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
import { commandOutput, docFiles, exampleBlocks, needsAbsentShared, runNodeScript, runVtrain, shellCommands } from '../../scripts/readme-examples.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const read = (file) => readFileSync(path.join(root, file), 'utf8');

test('the examples of README.md and every docs/*.md match the commands (node scripts/readme-examples.mjs updates them)', (t) => {
  const files = docFiles();
  assert.ok(files.includes('README.md') && files.includes('docs/accuracy.md'), files.join(', '));
  const blocks = exampleBlocks(files);
  assert.ok(blocks.some((b) => b.file === 'README.md'), 'the README quotes an output');
  for (const b of blocks) {
    if (needsAbsentShared(b.args)) {
      t.diagnostic(`skipped "vtrain ${b.args}" (${b.file}): ../shared is not beside this clone`);
      continue;
    }
    assert.equal(b.quoted, commandOutput(b.args), `${b.file}: vtrain ${b.args}`);
  }
});

test('every vtrain command in the sh blocks of README.md and docs/*.md runs', (t) => {
  const commands = shellCommands();
  assert.ok(commands.some((c) => c.file === 'README.md'), 'the README shows commands');
  const quoted = new Set(exampleBlocks().map((b) => b.args));
  for (const c of commands) {
    // A project script runs in its place in the guide: the vtrain commands after it may read what
    // it writes (docs/gpus.md projects a profile, then calibrates from it).
    if (c.node) {
      const r = runNodeScript(c.args);
      assert.equal(r.status, 0, `${c.file}:${c.line}: node ${c.args}: ${r.stderr}`);
      continue;
    }
    const where = `${c.file}:${c.line}: vtrain ${c.args}`;
    // CONFIG.json, REQUEST.json: a file of the reader's; bench: timed against floors a busy machine misses.
    if (/\b[A-Z]{2,}[A-Z_]*\b/.test(c.args) || /^bench\b/.test(c.args) || needsAbsentShared(c.args)) {
      t.diagnostic(`not run: ${where}`);
      continue;
    }
    if (quoted.has(c.args)) continue;  // its output is compared above
    const r = runVtrain(c.args);
    assert.equal(r.status, 0, `${where}: ${r.stderr}`);
    assert.ok(r.stdout.length > 0, where);
  }
});

test('the accuracy guide\'s table states what vtrain validate prints', (t) => {
  const shared = path.join(root, '../shared/validation');
  if (!existsSync(shared)) {
    t.skip('../shared is not beside this clone');
    return;
  }
  const readme = read('docs/accuracy.md');
  for (const [label, file] of [['| single node', 'single_node_calibration.csv'], ['| multi node', 'multi_node_calibration.csv']]) {
    const row = readme.split('\n').find((l) => l.startsWith(label));
    assert.ok(row, `docs/accuracy.md table row ${label}`);
    const cells = row.split('|').map((c) => c.trim());
    const j = JSON.parse(commandOutput(`validate ${path.join(shared, file)} --json`));
    assert.equal(cells[2], String(j.runs));
    assert.equal(cells[3], `${j.mape_percent.toFixed(2)}%`);
    assert.equal(cells[4], `${j.max_abs_error_percent.toFixed(1)}%`);
  }
});

test('the accuracy guide\'s table states the published runs and the profile\'s cross-validation', () => {
  const readme = read('docs/accuracy.md');
  for (const [label, file] of [['| published Megatron-LM runs', 'megatron-a100.csv'],
    ['| published Megatron-LM weak scaling', 'narayanan-a100.csv'], ['| published MT-NLG', 'mt-nlg-a100.csv'],
    ['| published BLOOM', 'bloom-a100.csv'],
    ['| published per-layer times', 'korthikanti-layer-a100.csv'], ['| GPT-3 175B on 512 A100s', 'vtrain-175b-a100.csv']]) {
    const row = readme.split('\n').find((l) => l.startsWith(label));
    assert.ok(row, `docs/accuracy.md table row ${label}`);
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

test('the README\'s accuracy line states what vtrain validate prints and vTrain\'s figures of the guide', (t) => {
  const readme = read('README.md').replace(/\s+/g, ' ');
  const line = (what, j) => `${j.mape_percent.toFixed(2)}% over ${j.runs} ${what} runs`;
  const published = JSON.parse(commandOutput(`validate ${path.join(root, 'profiles/published/vtrain-175b-a100.csv')} --json`));
  assert.ok(readme.includes(line('GPT-3 175B', published)), line('GPT-3 175B', published));
  // vTrain's published MAPE: the last column of the guide's table.
  const table = read('docs/accuracy.md').split('\n');
  const paper = ['| single node', '| multi node'].map((label) => table.find((l) => l.startsWith(label)).split('|').map((c) => c.trim())[6]);
  assert.ok(readme.includes(`(vTrain reports ${paper[0]} and ${paper[1]})`), `vTrain's ${paper.join(', ')}`);
  const shared = path.join(root, '../shared/validation');
  if (!existsSync(shared)) {
    t.diagnostic('the calibration sets not checked: ../shared is not beside this clone');
    return;
  }
  for (const [what, file] of [['single-node', 'single_node_calibration.csv'], ['multi-node', 'multi_node_calibration.csv']]) {
    const j = JSON.parse(commandOutput(`validate ${path.join(shared, file)} --json`));
    assert.ok(readme.includes(line(what, j)), line(what, j));
  }
});

test('every relative link of README.md and docs/*.md leads to a file, and to a heading there', () => {
  // GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens.
  const slug = (h) => h.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-');
  const anchors = (file) => read(file).split('\n').filter((l) => /^#{1,6} /.test(l)).map((l) => slug(l.replace(/^#+ /, '')));
  let links = 0;
  for (const file of docFiles()) {
    const text = read(file).replace(/```[\s\S]*?```/g, '');
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target)) continue;  // https:, mailto:
      const [where, anchor] = target.split('#');
      const linked = where ? path.normalize(path.join(path.dirname(file), where)) : file;
      assert.ok(existsSync(path.join(root, linked)), `${file}: ${target} (${linked} is missing)`);
      if (anchor) assert.ok(anchors(linked).includes(anchor), `${file}: ${target} (no heading #${anchor} in ${linked})`);
      links += 1;
    }
  }
  assert.ok(links >= 20, `${links} links`);
});

test('no tracked text file holds a merge-conflict marker', () => {
  const { execFileSync } = require('node:child_process');
  // git grep exits 1 when nothing matches; the pattern is built so that this file does not match it.
  const marker = ['<'.repeat(7), '='.repeat(7), '>'.repeat(7)].join('|');
  let out = '';
  try {
    out = execFileSync('git', ['grep', '-n', '-E', `^(${marker})( |$)`, '--', '.', ':!node_modules'], { cwd: root, encoding: 'utf8' });
  } catch (e) {
    if (e.status !== 1) throw e;
  }
  assert.equal(out, '', `conflict markers:\n${out}`);
});

// The page writes none of the simulator's lists: its GPUs, scaling fits, explore cases,
// compute-optimal presets and the choices of the config's enums come from `vtrain schema` at run
// time (web/src/catalog.js). Fails when one of their names is written into the page's source as a
// string, which is how a hard-coded list comes back (the e2e test schema.test.mjs holds the page's
// options to the schema in Chromium).
import test from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli } from '../../scripts/golden.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const src = path.join(root, 'web/src');

function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return e.name.endsWith('.js') ? [p] : [];
  });
}

test('no GPU, fit, case, preset or enum choice of the schema is written in the page', () => {
  const schema = runCli(['schema']);
  const names = [];
  for (const registry of ['gpus', 'scaling_fits', 'explore_cases', 'optimal_presets']) {
    for (const entry of schema.registries[registry]) names.push([registry, entry.name]);
  }
  // Enums whose names the page has no reason to spell: it offers them, the simulator reads them.
  for (const e of ['mlp', 'norm', 'position', 'attention', 'precision', 'placement', 'family']) {
    assert.ok(schema.enums[e]?.length > 1, `the schema lists the ${e} choices`);
    for (const c of schema.enums[e]) names.push([e, c.name]);
  }
  const found = [];
  for (const file of sources(src)) {
    const text = readFileSync(file, 'utf8');
    for (const [what, name] of names) {
      const quoted = new RegExp(`['"\`]${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}['"\`]`, 'g');
      for (const m of text.matchAll(quoted)) {
        const line = text.slice(0, m.index).split('\n').length;
        found.push(`${path.relative(root, file)}:${line}: ${what} "${name}"`);
      }
    }
  }
  assert.deepEqual(found, [], 'the page takes these from the schema (catalog.js)');
});

// The WebAssembly module in Node gives the native CLI's numbers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

async function loadModule() {
  const { default: create } = await import(pathToFileURL(path.join(root, 'build/wasm/vtrain.mjs')).href);
  // Node 20's fetch cannot load file URLs for this glue: hand it the bytes.
  return create({ wasmBinary: await readFile(path.join(root, 'build/wasm/vtrain.wasm')) });
}

test('the module simulates the examples exactly as the native CLI', async () => {
  const mod = await loadModule();
  const presets = JSON.parse(mod.presets());
  assert.equal(presets.ok, true);
  for (const ex of presets.result.examples) {
    const wasm = JSON.parse(mod.simulate(JSON.stringify(ex.config)));
    assert.equal(wasm.ok, true);
    const native = JSON.parse(spawnSync(path.join(root, 'build/native/vtrain'), ['simulate', ex.name, '--json'],
      { encoding: 'utf8', maxBuffer: 1 << 28 }).stdout);
    assert.equal(wasm.result.iteration_time_s, native.iteration_time_s, ex.name);
    assert.deepEqual(wasm.result.breakdown_s, native.breakdown_s);
    assert.deepEqual(wasm.result.memory_GiB, native.memory_GiB);
  }
});

test('errors come back as data', async () => {
  const mod = await loadModule();
  const r = JSON.parse(mod.simulate('{"model": "gpt3-175b", "plan": {"tp": 5}}'));
  assert.equal(r.ok, false);
  assert.equal(r.errors[0].pointer, '/plan/tp');
});

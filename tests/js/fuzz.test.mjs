// The inputs the fuzzer found (tests/fuzz/regressions/) through the native CLI and the WebAssembly
// module: each is answered by one JSON document, an error where its name starts with "error-"
// (exit code 1 or 2 from the CLI), never an abort or an "internal" error. And a JavaScript string
// holding a lone surrogate is refused at the JS boundary, naming its field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir, mkdtemp, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';
import { callModule } from '../../web/lib/protocol.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(root, 'build/native/vtrain');
const wasmDir = path.join(root, 'build/wasm');
const regressions = path.join(root, 'tests/fuzz/regressions');

// The selector byte of tests/fuzz/fuzz_check.hpp: the CLI command and the module call it names.
const ENTRIES = {
  s: { args: (f) => ['simulate', f], call: 'simulate' },
  v: { args: (f) => ['simulate', f], call: 'validateConfig' },
  e: { args: (f) => ['explore', f], call: 'explore' },
  o: { args: (f) => ['optimal', f], call: 'optimal' },
  S: { args: (f) => ['schedule', f], call: 'schedule' },
  c: { args: (f) => ['validate', f], call: null },
  t: { args: (f) => ['schedule', '--map-trace', f], call: null },
};

async function inputs() {
  const list = [];
  for (const name of (await readdir(regressions)).sort()) {
    const bytes = await readFile(path.join(regressions, name));
    const entry = ENTRIES[String.fromCharCode(bytes[0])];
    if (entry) list.push({ name, entry, body: bytes.subarray(1), error: name.startsWith('error-') });
  }
  return list;
}

function oneErrorDocument(text, where) {
  const reply = JSON.parse(text); // throws unless stdout is exactly one JSON document
  assert.equal(reply.ok, false, where);
  assert.ok(Array.isArray(reply.errors) && reply.errors.length > 0, where);
  for (const e of reply.errors) {
    assert.equal(typeof e.pointer, 'string', where);
    assert.ok(e.pointer === '' || e.pointer.startsWith('/'), where);
    assert.notEqual(e.code, 'internal', `${where}: ${e.message}`);
  }
}

test('every reproducer exits 1 or 2 from the native CLI with one JSON document', { skip: !existsSync(cli) && 'build/native/vtrain is not built' }, async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'vtrain-fuzz-'));
  for (const { name, entry, body, error } of await inputs()) {
    const file = path.join(dir, `${name}${entry.call ? '.json' : '.csv'}`);
    await writeFile(file, body);
    const r = spawnSync(cli, [...entry.args(file), '--json'], { encoding: 'utf8', maxBuffer: 1 << 28, timeout: 60000 });
    assert.equal(r.signal, null, `${name}: killed by ${r.signal}`);
    if (!error) {
      assert.ok([0, 1, 2].includes(r.status), `${name}: exit ${r.status}`);
      JSON.parse(r.stdout);
      continue;
    }
    assert.ok(r.status === 1 || r.status === 2, `${name}: exit ${r.status}\n${r.stderr}`);
    oneErrorDocument(r.stdout, name);
  }
});

test('every reproducer is an error reply from the WebAssembly module, never "internal"', { skip: !existsSync(path.join(wasmDir, 'vtrain.wasm')) && 'build/wasm is not built' }, async () => {
  const { default: create } = await import(pathToFileURL(path.join(wasmDir, 'vtrain.mjs')).href);
  const mod = await create({ wasmBinary: await readFile(path.join(wasmDir, 'vtrain.wasm')) });
  for (const { name, entry, body, error } of await inputs()) {
    if (!entry.call) continue; // the CSV readers are not module calls
    // A Uint8Array reaches the module's std::string byte for byte (a JS string would be re-encoded).
    const text = entry.call === 'simulate' || entry.call === 'validateConfig'
      ? mod[entry.call](new Uint8Array(body))
      : mod[entry.call](new Uint8Array(body), () => true);
    if (error) oneErrorDocument(text, name);
    else JSON.parse(text);
  }
});

test('a lone surrogate is refused at the JS boundary, with the field that holds it', async () => {
  // A module that must not be reached: the boundary answers first.
  const mod = { simulate: () => { throw new Error('reached the module'); }, explore: () => { throw new Error('reached the module'); } };
  const text = callModule(mod, 'simulate', '{"model": "gpt3-175b", "description": "half \uD83D"}');
  assert.equal(text.ok, false);
  assert.equal(text.errors[0].code, 'encoding');
  assert.equal(text.errors[0].pointer, '/description');
  assert.match(text.errors[0].message, /lone UTF-16 surrogate \(U\+D83D\) at line 1, column 45/);
  const object = callModule(mod, 'explore', { model: 'gpt3-175b', plan: { ['k\uDC00']: 1 } });
  assert.equal(object.errors[0].code, 'encoding');
  assert.equal(object.errors[0].pointer, '/plan/k\uDC00');
  const broken = callModule(mod, 'simulate', '{"model": "\uD800');
  assert.equal(broken.errors[0].pointer, '');
  assert.match(broken.errors[0].message, /line 1, column 12/);
});

test('a lone surrogate reaches the module as an error reply through the Node library', { skip: !existsSync(path.join(wasmDir, 'vtrain.wasm')) && 'build/wasm is not built' }, async () => {
  const { loadVtrain } = await import('../../web/lib/node.js');
  const vtrain = await loadVtrain({ dir: wasmDir });
  await assert.rejects(vtrain.simulate('{"model": "gpt3-175b\uDBFF", "plan": {}}'), (e) => e.code === 'encoding' && e.pointer === '/model');
  // A paired surrogate (an emoji) is valid text: the config is read, and its error is the config's.
  await assert.rejects(vtrain.simulate('{"model": "gpt3-175b", "description": "\uD83D\uDE00", "plan": {"tp": 5}}'), (e) => e.pointer === '/plan/tp');
});

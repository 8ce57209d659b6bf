// The JavaScript library over the WebAssembly module, in Node: the same numbers as the native CLI
// (build/golden/cli.json, produced by the CLI), errors as data, and the worker client's queue and
// cancellation driven through a stand-in worker.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadVtrain, VtrainError } from '../../web/lib/node.js';
import { callModule, failure } from '../../web/lib/protocol.js';
import { createVtrain } from '../../web/lib/vtrain.js';
import { cliGolden } from '../../scripts/golden.mjs';

const vtrain = await loadVtrain();

test('simulate gives the native CLI numbers for every example and model preset', async () => {
  const golden = cliGolden();
  assert.ok(golden.cases.length >= 16);
  for (const c of golden.cases) {
    const r = await vtrain.simulate(c.config);
    const want = c.expected;
    const label = `${c.kind} ${c.name}`;
    assert.equal(r.iteration_time_s, want.iteration_time_s, label);
    assert.deepEqual(r.breakdown_s, want.breakdown_s, label);
    assert.deepEqual(r.memory_GiB, want.memory_GiB, label);
    for (const k of ['mfu', 'hfu', 'tokens_per_s', 'training_days', 'cost_usd', 'fits_in_memory', 'micro_batches']) {
      assert.equal(r[k], want[k], `${label}: ${k}`);
    }
    assert.deepEqual(r.training, want.training, label);
    assert.deepEqual(r.warnings, want.warnings, label);
    // A calibrated profile records its accuracy; a projected one (B200) has no fitted runs to record.
    assert.ok(want.accuracy || r.profile_kind === 'projected', `${label}: the bundled profile records its accuracy`);
    assert.deepEqual(r.accuracy, want.accuracy, label);
    assert.deepEqual(r.accuracy_also, want.accuracy_also, label);
  }
});

test('explore gives the native CLI sweep of the MT-NLG case study, with progress', async () => {
  const golden = cliGolden();
  for (const c of golden.explore) {
    const seen = [];
    const r = await vtrain.explore(c.request, { onProgress: (f) => seen.push(f) });
    assert.equal(r.plans.length, c.expected.plans.length);
    assert.deepEqual(r.plans, c.expected.plans, c.name);
    assert.deepEqual(r.pareto, c.expected.pareto);
    for (const k of ['best_time', 'best_cost', 'best', 'baseline']) assert.deepEqual(r[k], c.expected[k], k);
    assert.ok(seen.length >= 10, `${seen.length} progress reports`);
    assert.ok(seen.every((f, i) => f >= 0 && f <= 1 && (i === 0 || f >= seen[i - 1])));
  }
  assert.equal(golden.explore[0].expected.plans.length, 294);
});

test('optimal sizes the compute-optimal presets as the native CLI does', async () => {
  const golden = cliGolden();
  assert.ok(golden.optimal.length >= 1);
  for (const c of golden.optimal) {
    let reports = 0;
    const r = await vtrain.optimal(c.request, { onProgress: () => reports++ });
    for (const k of ['achievable', 'flop_only', 'alternatives']) assert.deepEqual(r[k], c.expected[k], `${c.name}: ${k}`);
    assert.ok(reports > 0);
  }
  await assert.rejects(vtrain.optimal({}), (e) => e instanceof VtrainError && e.pointer === '/budget');
});

test('a sweep stops when its signal is aborted, with a typed error', async () => {
  const controller = new AbortController();
  let reports = 0;
  await assert.rejects(
    vtrain.explore({ case: 'mt-nlg' }, {
      signal: controller.signal,
      onProgress: (f) => {
        reports++;
        if (f >= 0.25) controller.abort();
      },
    }),
    (e) => e instanceof VtrainError && e.code === 'cancelled',
  );
  assert.ok(reports > 0 && reports < 150, `${reports} reports before stopping`);
  await assert.rejects(
    vtrain.explore({ case: 'mt-nlg', explore: { tp: [7] } }),
    (e) => e instanceof VtrainError && e.pointer.startsWith('/explore/tp'),
  );
});

test('the result is plain data with parts that add up', async () => {
  const r = await vtrain.simulate({ model: 'gpt3-175b', plan: { tp: 8, pp: 8, dp: 16, global_batch: 1536 } });
  const sum = Object.values(r.breakdown_s).reduce((a, b) => a + b, 0);
  assert.ok(Math.abs(sum - r.iteration_time_s) <= 1e-9 * r.iteration_time_s);
  assert.equal(r.timeline.length, 8);
  for (const st of r.timeline) {
    for (const col of ['micro_batch', 'chunk', 'start_s', 'duration_s']) assert.equal(st[col].length, st.kind.length);
  }
  const lean = await vtrain.simulate({ model: 'gpt3-175b', plan: { tp: 8, pp: 8, dp: 16, global_batch: 1536 }, output: { timeline: false } });
  assert.equal(lean.iteration_time_s, r.iteration_time_s);
  assert.ok(!lean.timeline || lean.timeline.length === 0);
  assert.equal(JSON.stringify(r).match(/NaN|Infinity/), null);
});

test('a rejected config throws a VtrainError naming the field', async () => {
  await assert.rejects(
    vtrain.simulate({ model: 'gpt3-175b', plan: { tp: 7, pp: 8, dp: 16, global_batch: 1536 } }),
    (e) => e instanceof VtrainError && e.code === 'divisibility' && e.pointer === '/plan/tp' && /must divide/.test(e.message),
  );
  await assert.rejects(vtrain.simulate('{"model": '), (e) => e instanceof VtrainError && e.code === 'syntax');
  await assert.rejects(
    vtrain.simulate({ model: 'gpt3-175b', plan: { tp: 8 }, cluster: { gpu: 'h100-imaginary' } }),
    (e) => e instanceof VtrainError && e.errors.some((x) => x.pointer === '/cluster/gpu'),
  );
  await assert.rejects(
    vtrain.simulate({ model: 'gpt3-175b', plan: { tp: 8, bogus: 1 } }),
    (e) => e instanceof VtrainError && e.errors.some((x) => x.pointer.startsWith('/plan')),
  );
});

test('validateConfig makes every field explicit; presets and profiles list what is bundled', async () => {
  const c = await vtrain.validateConfig({ model: 'llama2-70b', plan: { tp: 8, pp: 4, dp: 2, global_batch: 64 } });
  assert.equal(c.model.kv_heads, 8);
  assert.equal(c.cluster.num_gpus, 64);
  assert.equal(c.plan.recompute, 'full');
  const p = await vtrain.presets();
  assert.ok(p.models.length >= 8 && p.examples.length >= 4);
  const profiles = await vtrain.profiles();
  assert.ok(profiles.some((x) => x.name === 'a100-sxm4-80gb' && x.hardware.hbm_GiB === 80));
  // The version is written once, in package.json; the module reports that one.
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  assert.equal(vtrain.version.version, pkg.version);
});

test('schema gives the choices, bounds and registries the simulator reads, and the native CLI its same document', async () => {
  const s = await vtrain.schema();
  assert.deepEqual(s, cliGolden().schema);
  assert.deepEqual(s.enums.recompute.map((c) => c.name), ['none', 'selective', 'full']);
  assert.equal(s.config.plan.fields.tp.minimum, 1);
  assert.equal(s.config.plan.fields.recompute.default, 'full');
  const p = await vtrain.presets();
  assert.deepEqual(s.registries.model_presets.map((m) => m.name), p.models.map((m) => m.name));
  const profiles = await vtrain.profiles();
  assert.deepEqual(s.registries.gpus.map((g) => g.name), profiles.map((g) => g.name));
  // A value the schema allows is read; one past its bound is refused at its pointer.
  const max = s.config.plan.fields.virtual_stages.maximum;
  await assert.rejects(vtrain.validateConfig({ model: 'gpt3-175b', plan: { global_batch: 8, virtual_stages: max + 1 } }),
    (e) => e instanceof VtrainError && e.pointer === '/plan/virtual_stages' && e.code === 'range');
});

test('the boundary turns every failure into an error reply', () => {
  assert.deepEqual(callModule({}, 'frobnicate'), failure('unknown_call', 'there is no call named "frobnicate"'));
  assert.equal(callModule({}, 'explore', {}).errors[0].code, 'unsupported');
  // A sweep is asked whether to go on at each report: the callback's answer reaches the module.
  const answers = [];
  const sweeper = { explore: (_, cb) => { answers.push(cb(0.5)); return '{"ok":true,"result":{}}'; } };
  callModule(sweeper, 'explore', {}, null, () => true);
  callModule(sweeper, 'explore', {}, null, () => false);
  assert.deepEqual(answers, [false, true]);
  const thrower = { simulate: () => { throw new Error('boom'); } };
  assert.equal(callModule(thrower, 'simulate', {}).errors[0].code, 'internal');
  const garbage = { simulate: () => 'not json' };
  assert.equal(callModule(garbage, 'simulate', {}).errors[0].code, 'internal');
  const e = new VtrainError([{ code: 'range', pointer: '/plan/dp', message: '/plan/dp: must be at least 1' }]);
  assert.equal(e.name, 'VtrainError');
  assert.equal(e.pointer, '/plan/dp');
  assert.ok(e instanceof Error);
});

// A stand-in for the browser's Worker that runs the real module on a later turn of the event loop,
// speaking the worker's message set. An explore request with {"hang": true} reports half its
// progress and never finishes, as a long sweep would, so only cancellation ends it.
class FakeWorker {
  static started = 0;
  static terminated = 0;
  constructor(mod) {
    FakeWorker.started++;
    this.mod = mod;
    this.dead = false;
  }
  postMessage(msg) {
    setTimeout(() => {
      if (this.dead) return;
      const progress = (fraction) => this.onmessage({ data: { type: 'progress', id: msg.id, fraction } });
      if (msg.call === 'explore' && msg.input && msg.input.hang) return progress(0.5);
      const reply = callModule(this.mod, msg.call, msg.input, progress);
      this.onmessage({ data: reply.ok ? { type: 'result', id: msg.id, result: reply.result } : { type: 'error', id: msg.id, errors: reply.errors } });
    }, 1);
  }
  terminate() {
    this.dead = true;
    FakeWorker.terminated++;
  }
}

test('the worker client queues calls, rejects with typed errors and cancels by restarting its worker', async () => {
  const { default: create } = await import('../../build/wasm/vtrain.mjs');
  const { readFile } = await import('node:fs/promises');
  const mod = await create({ wasmBinary: await readFile(new URL('../../build/wasm/vtrain.wasm', import.meta.url)) });
  const client = await createVtrain({ spawn: () => new FakeWorker(mod) });
  const config = { model: 'gpt3-175b', plan: { tp: 8, pp: 8, dp: 16, global_batch: 1536 }, output: { timeline: false } };
  const [a, b] = await Promise.all([client.simulate(config), client.simulate({ ...config, plan: { ...config.plan, micro_batch: 2 } })]);
  assert.ok(a.iteration_time_s > 0 && b.iteration_time_s > 0 && a.iteration_time_s !== b.iteration_time_s);
  await assert.rejects(client.simulate({ ...config, plan: { ...config.plan, tp: 7 } }), (e) => e instanceof VtrainError && e.pointer === '/plan/tp');

  // A sweep that never ends: progress arrives, the quick lane keeps answering, and abort() ends it
  // by terminating the sweep worker.
  const controller = new AbortController();
  const seen = [];
  const sweep = client.explore({ hang: true }, { signal: controller.signal, onProgress: (f) => seen.push(f) });
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(seen, [0.5]);
  assert.equal((await client.simulate(config)).iteration_time_s, a.iteration_time_s);
  const terminated = FakeWorker.terminated;
  controller.abort();
  await assert.rejects(sweep, (e) => e instanceof VtrainError && e.code === 'cancelled');
  assert.equal(FakeWorker.terminated, terminated + 1);

  // A queued call can be cancelled too, and an already-aborted signal rejects at once.
  const queued = new AbortController();
  const first = client.simulate(config);
  const second = client.simulate(config, { signal: queued.signal });
  queued.abort();
  await assert.rejects(second, (e) => e.code === 'cancelled');
  assert.equal((await first).iteration_time_s, a.iteration_time_s);
  await assert.rejects(client.simulate(config, { signal: AbortSignal.abort() }), (e) => e.code === 'cancelled');

  // terminate() rejects what is pending.
  const pending = client.simulate(config);
  client.terminate();
  await assert.rejects(pending, (e) => e.code === 'cancelled');
});

// Checks of the native command line: outputs, exit codes and error messages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(root, 'build/native/vtrain');

function run(...args) {
  const r = spawnSync(cli, args, { encoding: 'utf8', cwd: root, maxBuffer: 1 << 28 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function writeConfig(obj) {
  const dir = mkdtempSync(path.join(tmpdir(), 'vtrain-'));
  const file = path.join(dir, 'config.json');
  writeFileSync(file, typeof obj === 'string' ? obj : JSON.stringify(obj));
  return file;
}

test('simulate --json prints the result contract for every example', () => {
  for (const name of ['gpt3-175b', 'mt-nlg-530b', 'llama2-70b']) {
    const r = run('simulate', name, '--json');
    assert.equal(r.code, 0, r.err);
    const j = JSON.parse(r.out);
    assert.ok(j.iteration_time_s > 0);
    const sum = Object.values(j.breakdown_s).reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(sum - j.iteration_time_s) < 1e-9 * j.iteration_time_s);
    assert.ok(j.mfu > 0 && j.mfu < 1);
    assert.equal(typeof j.fits_in_memory, 'boolean');
    assert.ok(j.training_days > 0 && j.cost_usd > 0);
    assert.equal(j.timeline.length, j.config.plan.pp);
  }
});

test('simulate reads each file of examples/ as it stands, description included', () => {
  const dir = path.join(root, 'examples');
  const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
  assert.ok(files.length >= 4, files.join(', '));
  for (const f of files) {
    const file = path.join(dir, f);
    const r = run('simulate', file, '--json', '--no-timeline');
    assert.equal(r.code, 0, `${f}: ${r.err}`);
    const j = JSON.parse(r.out);
    assert.equal(j.config.description, JSON.parse(readFileSync(file, 'utf8')).description, f);
    // The same run as the bundled example of that name.
    const named = JSON.parse(run('simulate', f.replace(/\.json$/, ''), '--json', '--no-timeline').out);
    assert.equal(j.iteration_time_s, named.iteration_time_s, f);
  }
});

test('simulate reruns a result, or the calculator download, from the config it holds', () => {
  const first = run('simulate', 'llama3-8b', '--json', '--no-timeline');
  assert.equal(first.code, 0, first.err);
  const result = JSON.parse(first.out);
  for (const [doc, pointer] of [[result, '/config'], [{ link: 'http://localhost/?model=llama3-8b', result }, '/result/config']]) {
    const file = writeConfig(doc);
    const r = run('simulate', file, '--json');
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, new RegExp(`is a result, not a config: using the config it holds \\(${pointer}\\)`));
    assert.equal(JSON.parse(r.out).iteration_time_s, result.iteration_time_s);
    // An error in the config it holds names the field where it is in that file, in every
    // pointer the message gives; one that an explore option set keeps the request's pointer.
    const bad = structuredClone(doc);
    (bad.result ?? bad).config.cluster.num_gpus += 1;
    const badFile = writeConfig(bad);
    const e = run('simulate', badFile, '--json');
    assert.equal(e.code, 1);
    const err = JSON.parse(e.out).errors[0];
    assert.equal(err.pointer, `${pointer}/cluster/num_gpus`);
    assert.match(err.message, new RegExp(`^${pointer}/cluster/num_gpus: must equal ${pointer}/plan/tp x ${pointer}/plan/pp x ${pointer}/plan/dp`));
    const worse = structuredClone(doc);
    (worse.result ?? worse).config.model.layers = 0;
    const ex = run('explore', writeConfig(worse), '--json');
    assert.equal(ex.code, 1);
    assert.equal(JSON.parse(ex.out).errors[0].pointer, `${pointer}/model/layers`);
    // A key outside the config's sections names its place too, in the pointer and the message.
    const extra = structuredClone(doc);
    (extra.result ?? extra).config.bogus = 1;
    const odd = JSON.parse(run('simulate', writeConfig(extra), '--json').out).errors[0];
    assert.equal(odd.pointer, `${pointer}/bogus`);
    assert.ok(odd.message.startsWith(`${pointer}/bogus: `), odd.message);
    const price = run('explore', file, '--price', '-1', '--json');
    assert.equal(price.code, 1);
    assert.equal(JSON.parse(price.out).errors[0].pointer, '/cluster/price_per_gpu_hour_usd');
  }
  // Not a result: the config's own errors, no note.
  const r = run('simulate', writeConfig({ config: 5 }));
  assert.equal(r.code, 1);
  assert.doesNotMatch(r.err, /is a result/);
  assert.match(r.err, /\/model: is required/);
});

test('simulate prints a readable summary', () => {
  const r = run('simulate', 'gpt3-175b');
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /iteration time/);
  assert.match(r.out, /MFU \d+\.\d%/);
  assert.match(r.out, /memory per GPU/);
  assert.doesNotMatch(r.out, /nan|inf/i);
});

test('the summary names what ZeRO shards, over how many GPUs, and how the stack gathers it', () => {
  const none = run('simulate', 'gpt3-175b');
  assert.equal(none.code, 0, none.err);
  assert.doesNotMatch(none.out, /ZeRO-/);
  const grok = run('simulate', 'grok-1-h100');
  assert.equal(grok.code, 0, grok.err);
  // dp 32 x cp 2: the distributed optimizer's shard group; the experts' over their 8 replicas.
  assert.match(grok.out, /\nZeRO-1: optimizer states sharded over 64 GPUs, the routed experts' over 8\n/);
  // FSDP with expert parallelism: the dense parts over dp, the experts over their 32 replicas.
  const fsdp = run('simulate', 'qwen3-235b-h100-fsdp');
  assert.match(fsdp.out, /\nZeRO-3: optimizer states, gradients and parameters sharded over 128 GPUs, the routed experts' over 32\n/);
  const own = run('simulate', 'qwen3-30b-a3b-h100');
  assert.match(own.out, /\nZeRO-1: optimizer states sharded over 16 GPUs, the routed experts' not at all \(one copy of each\)\n/);
  assert.match(grok.out, /busiest rank [\d.]+ x the mean load; the host waits on its token permutations\n/);
  const z3 = writeConfig({
    model: 'gpt3-175b', cluster: { gpu: 'a100-sxm4-80gb', num_gpus: 384, gpus_per_node: 8 },
    plan: { tp: 1, pp: 1, dp: 384, micro_batch: 4, global_batch: 1536, recompute: 'full', zero_stage: 3,
            shard_group: 8, recompute_gather: true, shard_device_sync: true, optimizer_offload: true },
  });
  const r = run('simulate', z3);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /\nZeRO-3: optimizer states, gradients and parameters sharded over 8 GPUs, gathered again to recompute, the device synchronized before each layer, optimizer on the CPU\n/);
});

test('a warning names its field and its code, in the summary and in --json', () => {
  const file = writeConfig({
    model: 'llama3-8b',
    cluster: { gpu: 'a100-sxm4-80gb', num_gpus: 3, gpus_per_node: 8 },
    plan: { tp: 1, pp: 3, dp: 1, micro_batch: 1, global_batch: 8, sequence_parallel: true },
  });
  const r = run('simulate', file);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^warning: \/plan\/pp: pipeline parallelism 3 does not divide the 32 layers: .* \[uneven_stages\]$/m);
  assert.match(r.out, /^warning: \/plan\/sequence_parallel: sequence parallelism .* at tp 1 it changes nothing \[no_effect\]$/m);
  const j = JSON.parse(run('simulate', file, '--json').out);
  assert.deepEqual(j.warnings.map((w) => [w.code, w.pointer]), [['uneven_stages', '/plan/pp'], ['no_effect', '/plan/sequence_parallel']]);
  assert.ok(j.warnings.every((w) => r.out.includes(w.message)));
});

test('simulate --operators lists each operator of a layer with its time and rate', () => {
  const r = run('simulate', 'gpt3-175b', '--operators');
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /operators, GPU time for one micro-batch on one GPU \("layer": each of a stage's 12 layers\)/);
  const row = r.out.split('\n').find((l) => /^ {2}layer +MLP up projection /.test(l));
  assert.ok(row, r.out);
  assert.match(row, / \d+ TFLOP\/s$/);
  assert.match(r.out, /^ {2}head +logits projection /m);
  assert.doesNotMatch(r.out, /nan|inf/i);
  // --json carries the same rows; the layer's add up to its forward time.
  const j = JSON.parse(run('simulate', 'gpt3-175b', '--operators', '--json', '--no-timeline').out);
  const layer = j.operators.filter((o) => o.block === 'layer');
  const forward = layer.reduce((s, o) => s + o.forward_s, 0);
  assert.ok(Math.abs(forward - j.details.layer_forward_s) < 1e-9 * forward);
  assert.equal(j.details.layers_per_stage, 12);
  // Uneven stages (BLOOM's 70 layers on 12): the most a stage holds.
  const bloom = writeConfig({ model: 'bloom-176b', cluster: { gpu: 'a100-sxm4-80gb', num_gpus: 384, gpus_per_node: 8 },
    plan: { tp: 4, pp: 12, dp: 8, micro_batch: 2, global_batch: 2048 }, output: { timeline: false } });
  assert.match(run('simulate', bloom, '--operators').out, /each of a stage's up to 6 layers\)/);
  // Without the option, the summary and the JSON have no operators.
  assert.doesNotMatch(run('simulate', 'gpt3-175b').out, /operators,/);
  assert.equal(JSON.parse(run('simulate', 'gpt3-175b', '--json', '--no-timeline').out).operators, undefined);
});

test('a config file with the documented contract is accepted', () => {
  const file = writeConfig({
    model: { layers: 96, hidden: 12288, heads: 96, seq_len: 2048, vocab: 51200, ffn_hidden: 49152,
             kv_heads: 96, mlp: 'gelu', tied_embeddings: true },
    cluster: { gpu: 'a100-sxm4-80gb', num_gpus: 1024, gpus_per_node: 8, intra_node_GBps: 300,
               inter_node_Gbps: 1600, price_per_gpu_hour_usd: 4.10 },
    plan: { tp: 8, pp: 8, dp: 16, micro_batch: 1, global_batch: 1536, recompute: 'full',
            sequence_parallel: false, virtual_stages: 1, zero_stage: 0, dp_overlap: false, attention: 'flash' },
    training: { tokens: 300e9 },
  });
  const r = run('simulate', file, '--json');
  assert.equal(r.code, 0, r.err);
  assert.ok(JSON.parse(r.out).cost_usd > 0);
});

test('bad input exits non-zero with the field named', () => {
  const file = writeConfig({ model: 'gpt3-175b', plan: { tp: 7, pp: 8, dp: 16, global_batch: 1536 } });
  const r = run('simulate', file);
  assert.equal(r.code, 1);
  assert.match(r.err, /\/plan\/tp: must divide \/model\/heads \(96\)/);

  const bad = run('simulate', writeConfig('{"model": '));
  assert.notEqual(bad.code, 0);
  assert.match(bad.err, /not valid JSON/);

  const missing = run('simulate', '/nonexistent.json');
  assert.equal(missing.code, 2);
  assert.match(missing.err, /not a file/);

  const unknown = run('frobnicate');
  assert.equal(unknown.code, 2);
  assert.match(unknown.err, /unknown command/);
});

test('bench reports its floors', () => {
  // A floor missed on a busy machine exits 1 (npm run bench reports it); the test holds each
  // timing only to 10 times its floor.
  const r = run('bench', '--json');
  assert.ok(r.code === 0 || r.code === 1, r.err);
  const j = JSON.parse(r.out);
  assert.equal(j.simulate.length, 2);
  for (const row of j.simulate) assert.ok(row.seconds_per_plan > 0 && row.seconds_per_plan <= 10 * row.floor_s, JSON.stringify(row));
  // The explorer's floors: the 294-plan case study and every plan of GPT-3 175B on 1024 GPUs.
  assert.deepEqual(j.explore.map((row) => row.floor_s), [0.5, 5]);
  assert.equal(j.explore[0].plans, 294);
  assert.ok(j.explore[1].plans > 100000);
  for (const row of j.explore) assert.ok(row.seconds > 0 && row.seconds <= 10 * row.floor_s, JSON.stringify(row));
  // The scheduler's: 128 jobs on 1024 GPUs under four policies (2 s), one 175B curve (1 s); a
  // test holds only a limit a slow, busy machine still meets.
  assert.deepEqual(j.schedule.map((row) => row.floor_s), [2, 1]);
  assert.equal(j.schedule[0].jobs, 128);
  for (const row of j.schedule) assert.ok(row.seconds > 0 && row.seconds < 10 * row.floor_s, JSON.stringify(row));
  assert.equal(r.code, [...j.simulate, ...j.explore, ...j.schedule].every((row) => row.meets_floor) ? 0 : 1);
});

test('presets and profiles list what is bundled', () => {
  const p = JSON.parse(run('presets', '--json').out);
  assert.ok(p.models.length >= 8);
  const names = p.models.map((m) => m.name);
  for (const n of ['gpt3-175b', 'mt-nlg-530b', 'llama2-70b']) assert.ok(names.includes(n));
  const profiles = JSON.parse(run('profiles', '--json').out);
  assert.deepEqual(profiles.map((x) => x.name).sort(),
    ['a100-sxm4-40gb', 'a100-sxm4-80gb', 'b200-sxm-180gb', 'h100-sxm5-80gb', 'h200-sxm-141gb']);
});

test('schema prints the choices, bounds, defaults and registries as JSON', () => {
  const r = run('schema');
  assert.equal(r.code, 0, r.err);
  const s = JSON.parse(r.out);
  assert.deepEqual(s.enums.mlp.map((c) => c.name), ['gelu', 'swiglu', 'geglu']);
  assert.equal(s.config.cluster.fields.gpu.registry, 'gpus');
  assert.deepEqual(s.registries.gpus.map((g) => g.name).sort(),
    ['a100-sxm4-40gb', 'a100-sxm4-80gb', 'b200-sxm-180gb', 'h100-sxm5-80gb', 'h200-sxm-141gb']);
  assert.equal(s.registries.explore_cases[0].name, 'mt-nlg');
  assert.deepEqual(s.registries.scaling_fits.map((f) => f.name), ['hoffmann2022', 'besiroglu2024']);
  assert.equal(s.explore.fields.max_plans.default, 1000000);
  assert.deepEqual(s.optimal.budget.order, ['days', 'gpu_days', 'usd', 'gpu_hours', 'flops']);
  assert.equal(run('schema', 'x').code, 2);
});

test('an option a command does not take is an error naming it, not a silent default', () => {
  const r = run('calibrate', '--bogus', '--dry-run');
  assert.equal(r.code, 2);
  assert.match(r.err, /--bogus: not an option of calibrate \(it takes --cv, /);
  const v = run('validate', 'runs.csv', '--summary=yes');
  assert.equal(v.code, 2);
  assert.match(v.err, /--summary: takes no value, got "yes"/);
  const b = run('validate', 'runs.csv', '--by');
  assert.equal(b.code, 2);
  assert.match(b.err, /--by: needs a value/);
  const s = run('simulate', 'gpt3-175b', 'extra');
  assert.equal(s.code, 2);
  assert.match(s.err, /simulate: unexpected argument "extra"/);
});

test('--profile names the file when it is not JSON or not a profile', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'vtrain-profile-'));
  const notJson = path.join(dir, 'p.json');
  writeFileSync(notJson, 'not json');
  const a = run('simulate', 'gpt3-175b', '--profile', notJson);
  assert.equal(a.code, 2);
  assert.match(a.err, /--profile: .*p\.json: \/: not valid JSON: parse error at line 1, column 2/);
  const notProfile = path.join(dir, 'q.json');
  writeFileSync(notProfile, '{"name": "x", "hardware": {"sm_count": 0}}');
  const b = run('validate', 'runs.csv', '--profile', notProfile);
  assert.equal(b.code, 2);
  assert.match(b.err, /--profile: .*q\.json is not a valid profile:\n.*\/hardware\/sm_count/);
  // A profile that leaves fields out is refused, rather than run on the A100's values for them.
  assert.match(b.err, /\/hardware\/peak_fp16_tflops: is required/);
  assert.match(b.err, /\/compute: is required/);
});

test('a --profile replaces the config\'s GPU, and the output names the profile', () => {
  const r = run('simulate', 'gpt3-175b', '--profile', path.join(root, 'profiles/a100-sxm4-40gb.json'));
  assert.equal(r.code, 0);
  assert.match(r.out, /^gpt3-175b, 175 B parameters, on 1024 x a100-sxm4-40gb\n/);
  assert.match(r.out, /of 40 GiB, DOES NOT FIT/);
  assert.match(r.err, /replaces the config's GPU a100-sxm4-80gb/);
});

test('JSON text: a syntax error gives its line and column, a key given twice its pointer', () => {
  const twice = run('simulate', writeConfig('{"model": "gpt3-175b", "plan": {"tp": 8, "tp": 4}}'));
  assert.equal(twice.code, 2);
  assert.match(twice.err, /\/plan\/tp: is given twice in the same object \[duplicate_key\]/);
  const comma = run('simulate', writeConfig('{"model": "gpt3-175b",\n "plan": {"tp": 8,}}'));
  assert.equal(comma.code, 2);
  assert.match(comma.err, /not valid JSON: parse error at line 2, column 19/);
  const empty = run('simulate', writeConfig(''));
  assert.match(empty.err, /not valid JSON: the text is empty/);
  const folder = run('simulate', tmpdir());
  assert.equal(folder.code, 2);
  assert.match(folder.err, /it is a folder, not a JSON file/);
});

test('a count option that is not a whole number in range is an error, checked before any work', () => {
  const cases = [
    [['bench', '--threads', 'abc'], /--threads: must be a whole number from 1 to 1024, got "abc"/],
    [['optimal', '--preset', 'vtrain-case3', '--threads', '0'], /--threads: must be a whole number from 1 to 1024, got "0"/],
    [['explore', '--case', 'mt-nlg', '--threads', '2.5'], /--threads: must be a whole number from 1 to 1024, got "2.5"/],
    [['explore', '--case', 'mt-nlg', '--top', '-1'], /--top: must be a whole number from 0 to 1000000, got "-1"/],
    [['calibrate', '--dry-run', '--threads', '-1'], /--threads: must be a whole number from 1 to 1024/],
    [['calibrate', '--dry-run', '--cv', '1'], /--cv: must be a whole number from 2 to 100, got "1"/],
    [['calibrate', '--dry-run', '--cv', '99999999999'], /--cv: must be a whole number from 2 to 100/],
    [['calibrate', '--dry-run', '--starts', 'many'], /--starts: must be a whole number from 1 to 1000000/],
    [['validate', 'runs.csv', '--vocab', '1e12'], /--vocab: must be a whole number from 1 to 100000000, got "1e12"/],
    [['validate', 'runs.csv', '--gpus-per-node', '2.5'], /--gpus-per-node: must be a whole number from 1 to 4096/],
    [['validate', 'runs.csv', '--inter-node-Gbps', '-3'], /--inter-node-Gbps: must be a positive number, got "-3"/],
    [['explore', '--case', 'mt-nlg', '--price', 'inf'], /--price: must be a number, got "inf"/],
  ];
  for (const [argv, message] of cases) {
    const r = run(...argv);
    assert.equal(r.code, 2, argv.join(' '));
    assert.match(r.err, message);
    assert.equal(r.out, '', `${argv.join(' ')} printed results`);
  }
});

test('every command answers --help with the usage, and does nothing else', () => {
  for (const cmd of ['simulate', 'bench', 'validate', 'calibrate', 'optimal', 'explore', 'schedule', 'presets', 'profiles', 'schema']) {
    const r = run(cmd, '--help');
    assert.equal(r.code, 0, `${cmd}: ${r.err}`);
    assert.match(r.out, /^usage: vtrain <command>/);
    assert.doesNotMatch(r.out, /wrote|calibration took/);
  }
});

test('with --json, errors also come to stdout as the API gives them: ok false, code, pointer, message', () => {
  const cases = [
    [['simulate', writeConfig({ model: 'gpt3-175b', plan: { tp: 7, pp: 8, dp: 16, global_batch: 1536 } }), '--json'], 1, '/plan/tp', 'divisibility'],
    [['simulate', writeConfig('{"model": "gpt3-175b", "model": "llama3-8b"}'), '--json'], 2, '/model', 'duplicate_key'],
    [['simulate', '/nonexistent.json', '--json'], 2, '', 'file'],
    [['explore', writeConfig({ model: 'gpt3-175b', plan: { tp: 8 } }), '--json'], 1, '/plan/global_batch', 'missing'],
    [['optimal', writeConfig({ budget: { gpu_hours: 1000 }, cluster: { num_gpus: 8 } }), '--json'], 1, '/cluster/price_per_gpu_hour_usd', 'missing'],
  ];
  for (const [args, code, pointer, kind] of cases) {
    const r = run(...args);
    assert.equal(r.code, code, args.join(' '));
    const reply = JSON.parse(r.out);
    assert.equal(reply.ok, false);
    assert.equal(reply.errors[0].pointer, pointer, args.join(' '));
    assert.equal(reply.errors[0].code, kind);
    assert.match(r.err, /^error: /);
  }
  // Without --json, stdout stays empty.
  assert.equal(run('simulate', '/nonexistent.json').out, '');
});

test('the slowest GPU: a cluster\'s gpu_speed_spread makes each step wait for it, in parts that add up', () => {
  const config = (dp, spread) => ({
    model: 'gpt3-175b',
    cluster: { gpu: 'a100-sxm4-80gb', num_gpus: 64 * dp, gpus_per_node: 8, ...(spread ? { gpu_speed_spread: spread } : {}) },
    plan: { tp: 8, pp: 8, dp, micro_batch: 1, global_batch: 32 * dp, recompute: 'full' },
  });
  const sim = (obj) => {
    const r = run('simulate', writeConfig(obj), '--json');
    assert.equal(r.code, 0, r.err);
    return JSON.parse(r.out);
  };
  let last = 0;
  for (const dp of [1, 16, 128]) {
    const none = sim(config(dp, 0));
    assert.equal(none.breakdown_s.straggler_wait, 0);
    assert.equal(none.details.stragglers, undefined);
    const j = sim(config(dp, 0.015));
    const s = j.details.stragglers;
    assert.equal(s.gpu_speed_spread, 0.015);
    assert.ok(Math.abs(j.iteration_time_s - none.iteration_time_s - s.wait_s) < 1e-9 * j.iteration_time_s);
    assert.equal(j.breakdown_s.straggler_wait, s.wait_s);
    const parts = s.parts_s.tensor + s.parts_s.pipeline + s.parts_s.data;
    assert.ok(Math.abs(parts - s.wait_s) < 1e-12 * j.iteration_time_s);
    assert.equal(s.parts_s.data === 0, dp === 1);
    assert.ok(s.wait_s / s.compute_s > last, `dp ${dp}: the share grows with the GPUs`);
    last = s.wait_s / s.compute_s;
    const sum = Object.values(j.breakdown_s).reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(sum - j.iteration_time_s) < 1e-9 * j.iteration_time_s);
  }
  // The summary names it with its parts.
  const text = run('simulate', writeConfig(config(16, 0.015)));
  assert.match(text.out, /slowest GPU +\d/);
  assert.match(text.out, /the slowest GPU: .* = 1\.5% spread x 3\.\d\d \(expected slowest of 1024 GPUs\)/);
  // Out of bounds, the field is named.
  const bad = run('simulate', writeConfig(config(1, 0.5)), '--json');
  assert.equal(bad.code, 1);
  assert.equal(JSON.parse(bad.out).errors[0].pointer, '/cluster/gpu_speed_spread');
});

// Checks of vtrain explore: the case-study preset, the JSON contract and errors naming the field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(root, 'build/native/vtrain');

function run(...args) {
  const r = spawnSync(cli, args, { encoding: 'utf8', cwd: root, maxBuffer: 1 << 30 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function writeConfig(obj) {
  const dir = mkdtempSync(path.join(tmpdir(), 'vtrain-'));
  const file = path.join(dir, 'config.json');
  writeFileSync(file, JSON.stringify(obj));
  return file;
}

const PLAN_KEYS = ['tp', 'pp', 'dp', 'virtual_stages', 'micro_batch', 'recompute', 'sequence_parallel',
  'zero_stage', 'num_gpus', 'iteration_time_s', 'training_days', 'gpu_hours', 'cost_usd', 'energy_MWh', 'mfu',
  'memory_GiB', 'fits_in_memory', 'within_gpu_limit', 'simulated', 'pareto'];

test('explore --case mt-nlg --json: 294 plans, the baseline among them, and the contract', () => {
  const r = run('explore', '--case', 'mt-nlg', '--json');
  assert.equal(r.code, 0, r.err);
  const j = JSON.parse(r.out);
  for (const key of ['plans', 'pareto', 'best_time', 'best_cost', 'best', 'baseline', 'question', 'stats'])
    assert.ok(key in j, key);
  assert.equal(j.plans.length, 294);
  for (const p of j.plans) {
    for (const key of PLAN_KEYS) assert.ok(key in p, key);
    assert.equal(p.num_gpus, p.tp * p.dp * p.pp);
    assert.equal(p.within_gpu_limit, p.num_gpus <= 3360);
    // Cost is GPUs x hours x price.
    assert.ok(Math.abs(p.cost_usd - p.num_gpus * p.training_days * 24 * 4.1) <= 1e-9 * p.cost_usd);
  }
  const b = j.baseline;
  assert.deepEqual([b.tp, b.dp, b.pp, b.num_gpus], [8, 12, 35, 3360]);
  assert.deepEqual(j.plans[b.index], Object.fromEntries(Object.entries(b).filter(([k]) => k !== 'index')));
  // The frontier holds feasible plans, fastest first, each cheaper than the one before.
  assert.ok(j.pareto.length >= 2);
  for (let i = 0; i < j.pareto.length; ++i) {
    const p = j.pareto[i];
    assert.ok(p.pareto && p.fits_in_memory && p.within_gpu_limit);
    if (i > 0) assert.ok(p.training_days >= j.pareto[i - 1].training_days && p.cost_usd < j.pareto[i - 1].cost_usd);
  }
  assert.ok(j.best_cost.cost_usd < b.cost_usd);
  assert.ok(j.best_time.training_days <= b.training_days);
  assert.equal(j.best.index, j.best_cost.index);
  assert.equal(j.question.max_gpus, 3360);
});

test('explore prints the baseline beside the cheapest and the fastest plans', () => {
  const r = run('explore', '--case', 'mt-nlg', '--price', '3.5');
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /baseline\s+\(8, 12, 35\)\s+3360/);
  assert.match(r.out, /cheapest\s+\(/);
  assert.match(r.out, /fastest\s+\(/);
  assert.match(r.out, /at \$3\.50 per GPU-hour/);
  assert.match(r.out, /294 plans: 237 within 3360 GPUs/);
  assert.match(r.out, /Pareto frontier/);
  assert.doesNotMatch(r.out, /nan|inf/i);

  const d = run('explore', '--case', 'mt-nlg', '--objective', 'deadline', '--deadline-days', '40');
  assert.equal(d.code, 0, d.err);
  assert.match(d.out, /by 40 d\s+\(/);
});

test('explore of a config: restrictions, and errors that name the field', () => {
  const base = { model: 'gpt3-175b', cluster: { num_gpus: 256, price_per_gpu_hour_usd: 4.1 },
    plan: { tp: 8, pp: 8, dp: 4, global_batch: 1536 }, training: { tokens: 3e11 } };
  const ok = run('explore', writeConfig({ ...base, explore: { tp: 8, pp: [8, 16], recompute: ['full'] } }), '--json');
  assert.equal(ok.code, 0, ok.err);
  const j = JSON.parse(ok.out);
  for (const p of j.plans) {
    assert.equal(p.tp, 8);
    assert.ok(p.pp === 8 || p.pp === 16);
    assert.ok(p.num_gpus <= 256);
  }

  const badTp = run('explore', writeConfig({ ...base, explore: { tp: [8, 7] } }));
  assert.equal(badTp.code, 1);
  assert.match(badTp.err, /\/explore\/tp\/1: 7 does not divide \/model\/heads \(96\)/);

  const zero = run('explore', writeConfig({ ...base, cluster: { num_gpus: 0 } }));
  assert.equal(zero.code, 1);
  assert.match(zero.err, /\/cluster\/num_gpus: must be between 1/);

  const unknown = run('explore', writeConfig({ ...base, explore: { tensor: [8] } }));
  assert.equal(unknown.code, 1);
  assert.match(unknown.err, /\/explore\/tensor: unknown key/);

  const none = run('explore', writeConfig({ ...base, plan: { global_batch: 8 }, explore: { dp: [4], micro_batch: [4] } }));
  assert.equal(none.code, 1);
  assert.match(none.err, /\/explore: no valid plan/);

  const big = run('explore', writeConfig({ ...base, explore: { max_plans: 10 } }));
  assert.equal(big.code, 1);
  assert.match(big.err, /more than 10 plans \(\/explore\/max_plans\); restrict it/);

  const usage = run('explore');
  assert.equal(usage.code, 2);
  assert.match(usage.err, /--case NAME \(mt-nlg\)/);
});

test('explore --objective balanced: the cheapest plan within a quarter more days than the fastest, in the summary too', () => {
  const r = run('explore', '--case', 'mt-nlg', '--objective', 'balanced', '--json');
  assert.equal(r.code, 0, r.err);
  const j = JSON.parse(r.out);
  assert.equal(j.question.objective, 'balanced');
  assert.equal(j.question.time_slack, 0.25);
  const limit = j.best_time.training_days * 1.25;
  assert.ok(j.best.training_days <= limit);
  const within = j.plans.filter((p) => p.simulated && p.fits_in_memory && p.within_gpu_limit && p.training_days <= limit);
  assert.equal(Math.min(...within.map((p) => p.cost_usd)), j.best.cost_usd);
  assert.notEqual(j.best.index, j.best_cost.index, 'not the cheapest plan, which trains for a year');
  const text = run('explore', '--case', 'mt-nlg', '--objective', 'balanced');
  assert.match(text.out, new RegExp(`\\n  balanced  \\(${j.best.tp}, ${j.best.dp}, ${j.best.pp}\\)`));
});

// vtrain calibrate: the fit the bundled A100 profiles come from, rerun, with its cross-validation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(root, 'build/native/vtrain');

function calibration(file) {
  return JSON.parse(readFileSync(file, 'utf8')).provenance.calibration;
}

function bySet(list) {
  return Object.fromEntries(list.map((e) => [e.set, e]));
}

test('calibrate --cv 5 rewrites the committed profile, and held-out error is within 1.5 points of the fit', (t) => {
  if (!existsSync(path.resolve(root, '../shared/validation'))) {
    t.skip('../shared is not beside this clone');
    return;
  }
  const out = mkdtempSync(path.join(tmpdir(), 'vtrain-calibrate-'));
  const r = spawnSync(cli, ['calibrate', '--cv', '5', '--shared', path.resolve(root, '../shared'), '--out-dir', out],
    { encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.equal(r.status, 0, r.stderr);
  const fresh = calibration(path.join(out, 'a100-sxm4-80gb.json'));
  const committed = calibration(path.join(root, 'profiles/a100-sxm4-80gb.json'));
  const fit = bySet(fresh.in_sample), held = bySet(fresh.cross_validation.held_out);
  for (const set of ['single-node', 'multi-node']) {
    // The cross-validation floor: predicting model sizes the fit never saw costs at most 1.5 points.
    assert.ok(held[set].mape_percent <= fit[set].mape_percent + 1.5,
      `${set}: held-out ${held[set].mape_percent} against fitted ${fit[set].mape_percent}`);
    // The committed profile is what the command writes (to within rounding across machines).
    assert.ok(Math.abs(fit[set].mape_percent - bySet(committed.in_sample)[set].mape_percent) < 0.05, set);
    assert.ok(Math.abs(held[set].mape_percent - bySet(committed.cross_validation.held_out)[set].mape_percent) < 0.05, set);
  }
  for (const [name, p] of Object.entries(committed.fitted_parameters)) {
    const v = fresh.fitted_parameters[name].value;
    assert.ok(Math.abs(v - p.value) <= 0.01 * (p.upper - p.lower), `${name}: ${v} against committed ${p.value}`);
  }
});

// A measurement folder laid out as ../shared is, with a few runs and all-reduce curves.
function smallShared(dir) {
  const header = '# GPUs,global batch,micro batch,hidden size,attention heads,# layers,sequence length,'
    + 'tensor parallelism,data parallelism,pipeline parallelism,iteration time (ms)\n';
  mkdirSync(path.join(dir, 'validation'), { recursive: true });
  writeFileSync(path.join(dir, 'validation/single_node_calibration.csv'),
    `${header}2,8,2,1024,16,12,1024,2,1,1,100\n4,8,2,1024,16,24,1024,4,1,1,120\n`);
  writeFileSync(path.join(dir, 'validation/multi_node_calibration.csv'),
    `${header}16,64,2,2048,16,16,1024,8,2,1,400\n32,64,1,2048,16,16,1024,8,2,2,600\n`);
  const nccl = path.join(dir, 'measurements/a100-nccl-allreduce');
  mkdirSync(nccl, { recursive: true });
  for (let n = 2; n <= 8; n++) {
    let csv = 'size(B),count,type,time(ns),busbw(GB/s),time(ns),busbw(GB/s)\n';
    for (let mib = 1; mib <= 256; mib *= 2) {
      const bytes = mib * 1048576;
      const ns = 1e3 * (25 + ((2 * (n - 1)) / n) * (bytes / 150e3));
      csv += `${bytes},1,float,${ns},1,${ns},1\n`;
    }
    writeFileSync(path.join(nccl, `allreduce_${n}gpu.csv`), csv);
  }
}

test('calibrate runs outside the checkout: it reads the folder given and writes the profiles where asked', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'vtrain-calibrate-elsewhere-'));
  smallShared(path.join(dir, 'data'));
  // From a folder with no checkout around it, with relative paths.
  const r = spawnSync(cli, ['calibrate', '--shared', 'data', '--out-dir', 'fitted', '--max-evals', '20', '--threads', '2'],
    { cwd: dir, encoding: 'utf8', maxBuffer: 1 << 26 });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^all-reduce 8 GPUs: floor /m);
  assert.match(r.stdout, /^published Megatron-LM\s+18 runs: MAPE /m);
  for (const name of ['a100-sxm4-80gb', 'a100-sxm4-40gb']) {
    const c = calibration(path.join(dir, 'fitted', `${name}.json`));
    assert.deepEqual(c.published.map((e) => e.framework), ['Megatron-LM', 'DeepSpeed', 'Megatron-DeepSpeed']);
    assert.deepEqual(c.in_sample.map((e) => e.set), ['single-node', 'multi-node']);
  }
  // Without the measurements it says where it looked.
  const missing = spawnSync(cli, ['calibrate', '--dry-run'], { cwd: dir, encoding: 'utf8' });
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /cannot read \.\.\/shared\/validation\/single_node_calibration\.csv/);
});

// vtrain-profile end to end without a GPU: the Python program's own tests, then its dry run on the
// simulator's shapes through calibrate --from-profile into simulate (skipped without python3).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(root, 'build/native/vtrain');
const tool = path.join(root, 'tools/vtrain-profile');
const python = spawnSync('python3', ['--version'], { encoding: 'utf8' });
const noPython = python.error || python.status !== 0 ? 'python3 is not installed: vtrain-profile is not tested' : false;

function run(cmd, args) {
  return spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 28, cwd: root });
}

test('vtrain-profile: its planning, timing loop and file format (python3 -m unittest, no torch)', { skip: noPython }, () => {
  const r = run('python3', ['-m', 'unittest', 'discover', '-s', tool, '-p', 'test_*.py']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /OK/);
});

test('vtrain-profile --dry-run on profile-shapes, calibrate --from-profile, then simulate marks measured operators', { skip: noPython }, () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'vtrain-profile-'));
  // The shapes of one example run keep the dry run short.
  const shapes = run(cli, ['profile-shapes', 'examples/llama3-8b.json']);
  assert.equal(shapes.status, 0, shapes.stderr);
  const grid = JSON.parse(shapes.stdout);
  assert.equal(grid.format, 'vtrain-profile-shapes');
  assert.ok(grid.gemm.length >= 10, `${grid.gemm.length} GEMM shapes`);
  writeFileSync(path.join(dir, 'shapes.json'), shapes.stdout);
  const measured = path.join(dir, 'measurements.json');
  const dry = run('python3', [path.join(tool, 'vtrain_profile.py'), '--shapes', path.join(dir, 'shapes.json'), '--out', measured, '--dry-run']);
  assert.equal(dry.status, 0, dry.stderr);
  const m = JSON.parse(readFileSync(measured, 'utf8'));
  assert.equal(m.synthetic, true);
  assert.equal(m.gemm.filter((g) => g.dtype === 'bf16').length, grid.gemm.length + 1);  // and the 8192^3 reference
  const profile = path.join(dir, 'profile.json');
  const cal = run(cli, ['calibrate', '--from-profile', measured, '--base', 'a100-sxm4-80gb', '--out', profile]);
  assert.equal(cal.status, 0, cal.stderr);
  assert.match(cal.stdout, /synthetic profile a100-sxm4-80gb-synthetic/);
  const p = JSON.parse(readFileSync(profile, 'utf8'));
  assert.equal(p.provenance.kind, 'synthetic');  // a dry run is never labelled measured
  // The dry run's roofline: 500 TFLOP/s and 3 TB/s against the A100's datasheet; the fit finds its
  // 5 us per kernel.
  assert.ok(Math.abs(p.compute.kernel_overhead_us - 5) < 0.5, `${p.compute.kernel_overhead_us}`);
  const sim = run(cli, ['simulate', 'examples/llama3-8b.json', '--profile', profile, '--operators', '--json']);
  assert.equal(sim.status, 0, sim.stderr);
  const ops = JSON.parse(sim.stdout).operators;
  const layerGemms = ops.filter((o) => o.block === 'layer' && o.kind === 'gemm');
  assert.ok(layerGemms.length > 0);
  for (const o of layerGemms) assert.equal(o.time_source, 'measured', o.name);
  const text = run(cli, ['simulate', 'examples/llama3-8b.json', '--profile', profile, '--operators']);
  assert.match(text.stdout, /\[measured\]/);
  // The bundled profile has no table: every operator modelled, and the text has no source column.
  const plain = run(cli, ['simulate', 'examples/llama3-8b.json', '--operators', '--json']);
  for (const o of JSON.parse(plain.stdout).operators) assert.equal(o.time_source, 'modelled');
  assert.doesNotMatch(run(cli, ['simulate', 'examples/llama3-8b.json', '--operators']).stdout, /\[modelled\]/);
});

test('calibrate --from-profile names what is wrong', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'vtrain-profile-'));
  const bad = path.join(dir, 'bad.json');
  writeFileSync(bad, JSON.stringify({ format: 'vtrain-measurements', memory: [{ bytes: 10 }] }));
  const r = run(cli, ['calibrate', '--from-profile', bad, '--base', 'a100-sxm4-80gb']);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /\/memory\/0\/time_us/);
  const nobase = run(cli, ['calibrate', '--from-profile', bad]);
  assert.equal(nobase.status, 2);
  assert.match(nobase.stderr, /--base/);
});

// vtrain calibrate: the fit the bundled A100 profiles come from, rerun, with its cross-validation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
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
  const r = spawnSync(cli, ['calibrate', '--cv', '5', '--out-dir', out], { encoding: 'utf8', maxBuffer: 1 << 28 });
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

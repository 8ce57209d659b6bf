// The page's price presets (web/src/data/prices.json): each names a GPU profile the simulator has,
// a positive price per GPU-hour that is its instance's price over its GPUs, its source and the
// date the price was read, and whether it is on demand or reserved; both kinds are offered for
// every GPU that has presets.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { runCli } from '../../scripts/golden.mjs';

const data = JSON.parse(readFileSync(new URL('../../web/src/data/prices.json', import.meta.url), 'utf8'));

test('every price preset has its GPU, price, kind, source and date', () => {
  const profiles = runCli(['profiles', '--json']).map((p) => p.name);
  const ids = new Set();
  for (const [gpu, presets] of Object.entries(data.gpus)) {
    assert.ok(profiles.includes(gpu), `${gpu} is a GPU profile of the simulator`);
    assert.deepEqual([...new Set(presets.map((p) => p.kind))].sort(), ['on-demand', 'reserved'], `${gpu} has on-demand and reserved prices`);
    for (const p of presets) {
      assert.ok(!ids.has(p.id), `${p.id} is unique`);
      ids.add(p.id);
      assert.ok(p.name && p.usd_per_gpu_hour > 0 && p.usd_per_gpu_hour < 100, JSON.stringify(p));
      assert.match(p.source, /^https:\/\/[a-z0-9.-]+\//, p.id);
      assert.match(p.as_of, /^20\d\d-\d\d(-\d\d)?$/, p.id);
      if (p.instance_usd_per_hour != null) {
        assert.ok(Number.isInteger(p.gpus_per_instance) && p.gpus_per_instance > 0, p.id);
        assert.ok(Math.abs(p.usd_per_gpu_hour - p.instance_usd_per_hour / p.gpus_per_instance) < 1e-6, `${p.id}: the instance's price over its GPUs`);
      }
    }
  }
});

// `npm run bench`: every wall-clock floor of the project against its measurement. The native ones
// come from `vtrain bench` (one plan simulated, the two sweeps, the cluster scheduler); the page's are measured here in
// Debian's Chromium against the built page (tests/e2e/floors.mjs lists them). Prints a row per
// floor and exits 1 when one is missed. Timings depend on the machine and on what else runs on
// it: run it on an idle one. The test suite (npm test) holds only generous sanity limits.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
process.chdir(root);

// Builds what is missing or stale (both are quick when nothing changed).
execFileSync('bash', ['scripts/build.sh'], { stdio: ['ignore', 'ignore', 'inherit'] });
execFileSync('bash', ['scripts/build-web.sh'], { stdio: ['ignore', 'ignore', 'inherit'] });

const { FLOORS } = await import('../tests/e2e/floors.mjs');
const page = await import('../tests/e2e/measure.mjs');

const rows = []; // {what, measured, floor, ok}

// ---------------------------------------------------------------- native: vtrain bench

console.log('vtrain bench (native)…');
const native = spawnSync(path.join(root, 'build/native/vtrain'), ['bench', '--json'], { encoding: 'utf8' });
let nativeJson = null;
try {
  nativeJson = JSON.parse(native.stdout);
} catch {
  console.error(`vtrain bench failed (exit ${native.status}): ${native.stderr}`);
  process.exit(2);
}
for (const r of nativeJson.simulate) {
  rows.push({
    what: `native: one plan, ${r.case}`,
    measured: `${(r.seconds_per_plan * 1e6).toFixed(1)} µs (median of ${r.runs})`,
    floor: `≤ ${(r.floor_s * 1e6).toFixed(0)} µs`,
    ok: r.seconds_per_plan <= r.floor_s,
  });
}
for (const r of nativeJson.explore) {
  rows.push({
    what: `native: ${r.case}`,
    measured: `${r.seconds.toFixed(3)} s, ${r.plans.toLocaleString('en-US')} plans on ${r.threads} threads`,
    floor: `≤ ${r.floor_s} s`,
    ok: r.seconds <= r.floor_s,
  });
}
// The cluster scheduler's, and any section vtrain bench adds later: each row with its floor.
for (const [section, list] of Object.entries(nativeJson)) {
  if (section === 'simulate' || section === 'explore' || !Array.isArray(list)) continue;
  for (const r of list) {
    const count = r.jobs != null ? `${r.jobs} jobs` : r.plans_simulated != null ? `${r.plans_simulated.toLocaleString('en-US')} plans` : '';
    rows.push({
      what: `native: ${r.case}`,
      measured: `${r.seconds.toFixed(3)} s${count ? `, ${count}` : ''} on ${r.threads} threads`,
      floor: `≤ ${r.floor_s} s`,
      ok: r.seconds <= r.floor_s,
    });
  }
}

// ---------------------------------------------------------------- the page in Chromium

console.log('the page in Chromium…');
const measured = await page.measureAll();
for (const [key, f] of Object.entries(FLOORS)) {
  const m = measured[key];
  rows.push({
    what: `page: ${f.what}`,
    measured: m == null ? 'not measured' : `${m.value.toFixed(0)} ${f.unit}${m.note ? ` (${m.note})` : ''}`,
    floor: `≤ ${f.floor} ${f.unit}`,
    ok: m != null && m.value <= f.floor,
  });
}

// ---------------------------------------------------------------- the table

const w = [Math.max(...rows.map((r) => r.what.length)), Math.max(...rows.map((r) => r.measured.length)), Math.max(...rows.map((r) => r.floor.length))];
console.log(`\n${'floor'.padEnd(w[0])}  ${'measured'.padEnd(w[1])}  ${'floor'.padEnd(w[2])}  result`);
for (const r of rows) console.log(`${r.what.padEnd(w[0])}  ${r.measured.padEnd(w[1])}  ${r.floor.padEnd(w[2])}  ${r.ok ? 'ok' : 'MISSED'}`);
const missed = rows.filter((r) => !r.ok);
console.log(missed.length ? `\n${missed.length} of ${rows.length} floors missed.` : `\nAll ${rows.length} floors met.`);
if (existsSync(path.join(root, 'build'))) writeFileSync(path.join(root, 'build/bench.json'), `${JSON.stringify({ rows, native: nativeJson, page: measured }, null, 2)}\n`);
process.exit(missed.length ? 1 : 0);

// vtrain schedule: the command line, the bundled ITP workload, and the WebAssembly module giving
// the native numbers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { loadVtrain, VtrainError } from '../../web/lib/node.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(root, 'build/native/vtrain');
const shared = path.join(root, '../shared');

function run(...args) {
  const r = spawnSync(cli, args, { encoding: 'utf8', cwd: root, maxBuffer: 1 << 28 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

// The numbers of a result, without its wall times.
function numbers(result) {
  const copy = structuredClone(result);
  delete copy.stats;
  for (const p of copy.policies) delete p.seconds;
  return copy;
}

const small = { layers: 16, hidden: 2048, heads: 16, seq_len: 1024 };
const generated = {
  cluster: { gpu: 'a100-sxm4-80gb', num_gpus: 64, gpus_per_node: 8 },
  workload: {
    generate: {
      seed: 5, jobs: 16, arrival_rate_per_hour: 10, duration_hours: [0.2, 2],
      mix: [{ model: small, global_batch: 64, gpus: 8 }, { model: small, global_batch: 64, gpus: 16, weight: 0.5 }],
    },
  },
};

test('schedule --case vtrain-case2 --json gives every policy\'s metrics, jobs and timeline', () => {
  const r = run('schedule', '--case', 'vtrain-case2', '--jobs', '64', '--json');
  assert.equal(r.code, 0, r.err);
  const j = JSON.parse(r.out);
  assert.equal(j.case, 'vtrain-case2');
  assert.equal(j.cluster.num_gpus, 1024);
  assert.equal(j.workload.jobs.length, 64);
  assert.deepEqual(j.policies.map((p) => p.name), ['fifo', 'edf', 'elasticflow-dp', 'elasticflow-vtrain']);
  for (const p of j.policies) {
    for (const k of ['admitted', 'deadlines_met', 'deadline_ratio', 'avg_jct_s', 'p95_jct_s', 'makespan_s', 'gpu_utilization']) {
      assert.equal(typeof p[k], 'number', `${p.name}: ${k}`);
    }
    assert.equal(p.jobs.length, 64);
    assert.ok(p.timeline.length > 1);
    assert.ok(p.deadline_ratio >= 0 && p.deadline_ratio <= 1);
    assert.ok(p.p95_jct_s >= p.avg_jct_s * 0.5);
    for (const job of p.jobs.filter((x) => x.finished)) {
      assert.ok(job.allocations.length >= 2);
      assert.equal(job.allocations.at(-1).gpus, 0);
      const first = job.allocations[0];
      assert.ok(first.gpus > 0 && first.plan.tp * first.plan.pp * first.plan.dp === first.plan_gpus);
    }
  }
  assert.equal(j.comparison.policy, 'elasticflow-vtrain');
  assert.equal(j.comparison.baseline, 'elasticflow-dp');
  const [dp, vt] = [j.policies[2], j.policies[3]];
  assert.equal(j.comparison.avg_jct_change, vt.avg_jct_s / dp.avg_jct_s - 1);
  // The floor of the case study: at least as many deadlines met and a lower average JCT.
  assert.ok(vt.deadlines_met >= dp.deadlines_met, `${vt.deadlines_met} < ${dp.deadlines_met}`);
  assert.ok(vt.avg_jct_s < dp.avg_jct_s);
  // Each job's curve: the best plan never slower than data-parallel scaling of its own plan.
  for (const c of j.curves) {
    c.best.iteration_time_s.forEach((t, i) => {
      const d = c.data_parallel.iteration_time_s[i];
      if (d !== null) assert.ok(t !== null && t <= d);
    });
  }
});

test('schedule --case vtrain-case2 prints both workloads side by side with the relative change', () => {
  const r = run('schedule', '--case', 'vtrain-case2');
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^64 jobs \(itp-195\) on 1024 x a100-sxm4-80gb/m);
  assert.match(r.out, /^128 jobs \(itp-195\) on 1024 x a100-sxm4-80gb/m);
  assert.match(r.out, /fifo\s+edf\s+elasticflow-dp\s+elasticflow-vtrain/);
  for (const row of ['jobs admitted', 'deadlines met', 'average JCT', '95th-percentile JCT', 'makespan', 'GPU utilization']) {
    assert.match(r.out, new RegExp(`^  ${row}`, 'm'), row);
  }
  assert.equal(r.out.match(/^elasticflow-vtrain against elasticflow-dp: deadlines met [\d.]+x, average JCT [-+][\d.]+%/mg).length, 2);
  assert.match(r.out, /1\.09-1\.23x, average JCT -15\.21%, makespan -23\.03%/);
});

test('a request names its job file, read beside it; bad rows are named by line and column', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'vtrain-schedule-'));
  writeFileSync(path.join(dir, 'jobs.csv'),
    'id,arrival_s,deadline_s,model,global_batch,gpus,iterations\n' +
    'a,0,7200,gpt3-2.7b,512,8,200\nb,60,3600,gpt3-2.7b,512,16,100\n');
  const request = path.join(dir, 'request.json');
  writeFileSync(request, JSON.stringify({
    cluster: { gpu: 'a100-sxm4-80gb', num_gpus: 64, gpus_per_node: 8 },
    workload: { file: 'jobs.csv' }, policies: ['fifo', 'elasticflow-vtrain'],
  }));
  const ok = run('schedule', request, '--json');
  assert.equal(ok.code, 0, ok.err);
  const j = JSON.parse(ok.out);
  assert.deepEqual(j.workload.jobs.map((x) => x.id), ['a', 'b']);
  assert.equal(j.policies.length, 2);
  writeFileSync(path.join(dir, 'jobs.csv'),
    'id,arrival_s,deadline_s,model,global_batch,gpus,iterations\na,0,7200,gpt3-2.7b,512,8,-3\n');
  const bad = run('schedule', request);
  assert.equal(bad.code, 1);
  assert.match(bad.err, /error: \/workload\/csv: line 2, column 7 \(iterations\): must be between 1 and/);
  const json = run('schedule', request, '--json');
  const reply = JSON.parse(json.out);
  assert.equal(reply.ok, false);
  assert.equal(reply.errors[0].pointer, '/workload/csv');
  const missing = run('schedule', '--case', 'vtrain-case9');
  assert.equal(missing.code, 2);
  assert.match(missing.err, /unknown case "vtrain-case9"; cases are vtrain-case2/);
});

test('the bundled ITP workload is what --map-trace makes of ../shared\'s trace, and keeps its licence', (t) => {
  const file = JSON.parse(readFileSync(path.join(root, 'examples/workloads/itp-195.json'), 'utf8'));
  assert.equal(file.jobs.length, 195);
  const licence = readFileSync(path.join(root, 'examples/workloads/LICENSE-ITP-TRACES'), 'utf8');
  assert.match(licence, /Copyright \(c\) Microsoft Corporation/);
  assert.match(licence, /MIT License/);
  const trace = path.join(shared, 'traces/itp_195job.csv');
  if (!existsSync(trace)) {
    t.skip('../shared is not beside this clone');
    return;
  }
  const r = run('schedule', '--map-trace', trace);
  assert.equal(r.code, 0, r.err);
  const mapped = JSON.parse(r.out);
  const rows = readFileSync(trace, 'utf8').replace(/^\uFEFF/, '').trim().split('\n').slice(1).map((l) => l.split(','));
  const first = Math.min(...rows.map((c) => Number(c[1])));
  assert.equal(mapped.jobs.length, rows.length);
  for (let i = 0; i < rows.length; ++i) {
    const [id, submission, , , deadline, , gpus, duration] = rows[i];
    const want = file.jobs[i];
    const got = mapped.jobs[i];
    // What the trace fixes is reproduced exactly: the simulator's times may move with its profile.
    for (const k of ['id', 'arrival_s', 'gpus', 'model', 'global_batch']) assert.deepEqual(got[k], want[k], `${id}: ${k}`);
    assert.equal(want.id, id);
    assert.equal(want.arrival_s, Number(submission) - first);
    assert.equal(want.gpus, 8 * Number(gpus));
    assert.ok(Math.abs(got.iterations / want.iterations - 1) < 0.1, `${id}: ${got.iterations} vs ${want.iterations}`);
    // The deadline keeps its proportion to the duration (to the second it is rounded to).
    const ratio = (Number(deadline) - Number(submission)) / Number(duration);
    const wantRatio = (want.deadline_s - want.arrival_s) / (got.deadline_s - got.arrival_s) * ratio;
    assert.ok(Math.abs(wantRatio / ratio - 1) < 0.1, `${id}: deadline ratio`);
  }
});

test('the module schedules as the native CLI does, reports progress, and stops when cancelled', async () => {
  const vtrain = await loadVtrain();
  const dir = mkdtempSync(path.join(tmpdir(), 'vtrain-schedule-'));
  const request = path.join(dir, 'request.json');
  writeFileSync(request, JSON.stringify(generated));
  const native = run('schedule', request, '--json', '--threads', '1');
  assert.equal(native.code, 0, native.err);
  const seen = [];
  const wasm = await vtrain.schedule(generated, { onProgress: (f) => seen.push(f) });
  assert.deepEqual(numbers(wasm), numbers(JSON.parse(native.out)));
  assert.ok(seen.length > 3 && seen.every((f, i) => f >= 0 && f <= 1 && (i === 0 || f >= seen[i - 1])));
  const stop = new AbortController();
  await assert.rejects(
    vtrain.schedule({ ...generated, workload: { generate: { ...generated.workload.generate, seed: 6 } } },
      { signal: stop.signal, onProgress: () => stop.abort() }),
    (e) => e instanceof VtrainError && e.code === 'cancelled',
  );
  await assert.rejects(vtrain.schedule({ ...generated, policies: ['lifo'] }),
    (e) => e instanceof VtrainError && e.pointer === '/policies/0');
});

test('the cluster-scheduling guide\'s comparison with the paper states what vtrain schedule --case vtrain-case2 prints', () => {
  const readme = readFileSync(path.join(root, 'docs/cluster-scheduling.md'), 'utf8');
  const r = run('schedule', '--case', 'vtrain-case2', '--json');
  assert.equal(r.code, 0, r.err);
  const runs = JSON.parse(r.out).runs;
  assert.equal(runs.length, 2);
  for (const result of runs) {
    const n = result.workload.jobs.length;
    const row = readme.split('\n').find((l) => l.startsWith(`| this tool: ${n} jobs |`));
    assert.ok(row, `docs/cluster-scheduling.md row for ${n} jobs`);
    const cells = row.split('|').map((c) => c.trim());
    const c = result.comparison;
    const pct = (f) => `${f >= 0 ? '+' : ''}${(100 * f).toFixed(1)}%`;
    assert.equal(cells[2], `${c.deadlines_met_x.toFixed(2)}x`);
    assert.equal(cells[3], pct(c.avg_jct_change));
    assert.equal(cells[4], pct(c.makespan_change));
  }
});

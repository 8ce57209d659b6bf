// vtrain validate: the JSON contract, a byte-order mark, errors naming line and column.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, writeFileSync, existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(root, 'build/native/vtrain');
const header = '# GPUs,global batch,micro batch,hidden size,attention heads,# layers,sequence length,' +
  'tensor parallelism,data parallelism,pipeline parallelism,iteration time (ms)\n';

function csv(text) {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'vtrain-')), 'runs.csv');
  writeFileSync(file, text);
  return file;
}

function run(...args) {
  const r = spawnSync(cli, args, { encoding: 'utf8', cwd: root, maxBuffer: 1 << 28 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

// `validate --json` of a file of profiles/published, which must succeed. With `expect`, also checks
// that every column was read, the run count, and the bounds on the MAPE and the largest error (%).
// A published file with `pattern` replaced by `replacement` in its text (the replacement must
// change something), validated: what a setting column does to the file's predictions.
function validateVariant(file, pattern, replacement) {
  const text = readFileSync(path.join(root, 'profiles/published', file), 'utf8');
  const variant = text.replace(pattern, replacement);
  assert.notEqual(variant, text, `${pattern} is not in ${file}`);
  const r = run('validate', csv(variant), '--json');
  assert.equal(r.code, 0, r.err);
  return JSON.parse(r.out);
}

function validatePublished(file, expect) {
  const r = run('validate', path.join(root, 'profiles/published', file), '--json');
  assert.equal(r.code, 0, r.err);
  const j = JSON.parse(r.out);
  if (expect) {
    assert.equal(j.unread_columns, undefined);
    assert.equal(j.runs, expect.runs);
    assert.ok(j.mape_percent <= expect.mape, `MAPE ${j.mape_percent}`);
    if (expect.max !== undefined) assert.ok(j.max_abs_error_percent <= expect.max, `max ${j.max_abs_error_percent}`);
  }
  return j;
}

// Teraflop/s per GPU of a row by Narayanan et al. 2021's count, 96 B s l h^2 (1 + s/6h + V/16lh)
// FLOPs per iteration, recomputation included.
function tflopsPerGpu(row) {
  const flops = 96 * row.global_batch * row.seq_len * row.layers * row.hidden ** 2 *
    (1 + row.seq_len / (6 * row.hidden) + row.vocab / (16 * row.layers * row.hidden));
  return flops / (row.measured_ms / 1e3) / row.num_gpus / 1e12;
}

test('validate --json prints runs, MAPE and a row per run', () => {
  const file = csv('\uFEFF' + header + '8,16,2,1024,16,12,1024,2,2,2,150\n4,32,4,2048,16,16,1024,1,4,1,380\n');
  const r = run('validate', file, '--json');
  assert.equal(r.code, 0, r.err);
  const j = JSON.parse(r.out);
  assert.equal(j.runs, 2);
  assert.equal(j.rows.length, 2);
  for (const row of j.rows) {
    assert.ok(row.predicted_ms > 0);
    assert.ok(Math.abs(row.error_percent - 100 * (row.predicted_ms - row.measured_ms) / row.measured_ms) < 1e-9);
  }
  const mape = j.rows.reduce((a, row) => a + Math.abs(row.error_percent), 0) / 2;
  assert.ok(Math.abs(j.mape_percent - mape) < 1e-9);
  const text = run('validate', file);
  assert.match(text.out, /2 runs, MAPE \d+\.\d\d%/);
});

test('validate --by groups the runs and names an unknown column', () => {
  const file = csv(header + '8,16,2,1024,16,12,1024,2,2,2,150\n8,16,2,1024,16,16,1024,2,2,2,190\n' +
    '4,32,4,2048,16,16,1024,1,4,1,380\n');
  const j = JSON.parse(run('validate', file, '--json', '--by', 'tp,micro_batch').out);
  assert.equal(j.groups.length, 2);
  const shares = j.groups.reduce((a, g) => a + g.share_of_error_percent, 0);
  assert.ok(Math.abs(shares - 100) < 1e-9);
  const two = j.groups.find((g) => g.key.tp === 2 && g.key.micro_batch === 2);
  assert.equal(two.runs, 2);
  const mean = (j.rows[0].error_percent + j.rows[1].error_percent) / 2;
  assert.ok(Math.abs(two.mean_error_percent - mean) < 1e-9);
  assert.ok(j.groups[0].share_of_error_percent >= j.groups[1].share_of_error_percent);
  // Scaled by its best factor, a group errs no more than it did; a one-run group not at all.
  assert.ok(two.scatter_mape_percent >= 0 && two.scatter_mape_percent <= two.mape_percent + 1e-9);
  const lone = j.groups.find((g) => g.key.tp === 1);
  assert.ok(Math.abs(lone.scatter_mape_percent) < 1e-9);
  const text = run('validate', file, '--by', 'tp');
  assert.equal(text.code, 0, text.err);
  assert.match(text.out, /by tp: 2 groups, largest share of the error first/);
  assert.match(text.out, /scatter: MAPE if each group's predictions were scaled by the one factor that fits it best:\n {2}\d+\.\d\d%/);
  const bad = run('validate', file, '--by', 'tp,speed');
  assert.equal(bad.code, 2);
  assert.match(bad.err, /\/by\/1: no column named "speed"/);
});

test('validate --decompose splits measured and predicted time of like runs', () => {
  // gpus,gbs,mbs,hidden,heads,layers,seq,tp,dp,pp,ms: time = 3 M L + 6 M + 0.4 L + 2 (M micro-batches)
  const lines = [[12, 4], [16, 8], [20, 16], [24, 4], [12, 16], [24, 16]].map(([L, M]) =>
    `2,${M * 2},1,1024,16,${L},1024,1,2,1,${3 * M * L + 6 * M + 0.4 * L + 2}`);
  const file = csv(header + lines.join('\n') + '\n');
  const j = JSON.parse(run('validate', file, '--json', '--decompose').out);
  assert.equal(j.decomposition.length, 1);
  const d = j.decomposition[0];
  assert.equal(d.runs, 6);
  assert.ok(Math.abs(d.measured.per_layer_microbatch_ms - 3) < 1e-6);
  assert.ok(Math.abs(d.measured.per_microbatch_ms - 6) < 1e-6);
  assert.ok(Math.abs(d.measured.per_layer_ms - 0.4) < 1e-6);
  assert.ok(d.predicted.per_layer_microbatch_ms > 0);
  assert.ok(d.predicted.max_residual_percent < 0.01, 'the simulator is exactly of this form at pp 1');
  const text = run('validate', file, '--decompose');
  assert.match(text.out, /for 1 group of pipeline-parallel-1 runs/);
});

test('validate --contradictions names runs alike where more work was measured faster', () => {
  // Line 3 is line 2 at twice the width, yet 10% faster; line 4 does not do line 3's work.
  const file = csv(header + '2,4,2,1024,16,12,1024,2,1,1,100\n2,4,2,2048,16,12,1024,2,1,1,90\n' +
    '2,8,4,1024,16,12,1024,2,1,1,120\n');
  const j = JSON.parse(run('validate', file, '--json', '--contradictions').out);
  assert.equal(j.contradictions.pairs.length, 1);
  const p = j.contradictions.pairs[0];
  assert.deepEqual([p.less_work_line, p.more_work_line], [2, 3]);
  assert.ok(Math.abs(p.shortfall_percent - 10) < 1e-9);
  assert.equal(j.contradictions.runs_compared, 3);
  assert.equal(j.contradictions.predicted_in_order, 1);
  assert.ok(Math.abs(j.contradictions.mape_floor_percent - 10 / 3) < 1e-9);
  const text = run('validate', file, '--contradictions');
  assert.equal(text.code, 0, text.err);
  assert.match(text.out, /contradictions: 1 pair of runs set up alike/);
  assert.match(text.out, /\n +2 +100\.0 +3 +90\.0 +10\.0% +tp 2, pp 1, dp 1, 12 layers: hidden 1024 -> 2048\n/);
  assert.match(text.out, /errs by at least 3\.33% MAPE on this file/);
});

test('validate rejects a bad file with the line and column named', () => {
  const r = run('validate', csv(header + '8,16,2,1024,16,12,1024,2,2,2,soon\n'));
  assert.equal(r.code, 1);
  assert.match(r.err, /\/line\/2\/iteration time \(ms\)/);
  const missing = run('validate', '/nonexistent.csv');
  assert.equal(missing.code, 2);
});

// Multi-node: the floor of 8%. Single-node: 7% guards the present accuracy (6.44%); the
// floor of 5% is not met yet (docs/accuracy.md).
test('the calibration sets validate within 8% multi-node and 7% single-node', (t) => {
  const shared = path.resolve(root, '../shared/validation');
  if (!existsSync(shared)) {
    t.skip('../shared is not beside this clone');
    return;
  }
  const single = JSON.parse(run('validate', path.join(shared, 'single_node_calibration.csv'), '--json').out);
  const multi = JSON.parse(run('validate', path.join(shared, 'multi_node_calibration.csv'), '--json').out);
  assert.equal(single.runs, 730);
  assert.equal(multi.runs, 88);
  assert.ok(multi.mape_percent <= 8, `multi-node MAPE ${multi.mape_percent}`);
  assert.ok(single.mape_percent <= 7, `single-node MAPE ${single.mape_percent}`);
  // Where measured runs contradict each other (more work, less time), the simulator keeps the order of the work.
  const c = JSON.parse(run('validate', path.join(shared, 'single_node_calibration.csv'), '--json', '--contradictions').out)
    .contradictions;
  assert.ok(c.pairs.length > 0);
  assert.equal(c.predicted_in_order, c.pairs.length);
});

test('published large-scale runs in the repository validate within their floors', () => {
  // Korthikanti et al. 2022 (arXiv 2205.05198): 22B to 1T on 8 to 512 A100s of Selene, full and
  // selective recomputation; the file states each run's setup, network included.
  const j = validatePublished('megatron-a100.csv', { runs: 8, mape: 5, max: 12 });
  const sel = j.rows.filter((row) => row.recompute === 'selective');
  assert.equal(sel.length, 4);
  for (const row of sel) {
    assert.equal(row.sequence_parallel, true);
    assert.equal(row.inter_node_Gbps, 1600);
    assert.equal(row.tp_async_backward, true);
    const full = j.rows.find((f) => f.recompute === 'full' && f.hidden === row.hidden);
    assert.ok(row.predicted_ms < full.predicted_ms, 'selective recomputation is faster than full');
  }
});

test('GPT-3 175B on 512 GPUs, measured with the calibration runs but not fitted, validates within its floor', () => {
  // vTrain's 175B multi-node runs: the calibration setup (no extra columns), a model 4.5 times the
  // largest the fit saw. The MAPE floor is the multi-node calibration set's (8%).
  const j = validatePublished('vtrain-175b-a100.csv', { runs: 21, mape: 8, max: 12 });
  assert.ok(j.rows.every((row) => row.hidden === 12288 && row.num_gpus === 512 && row.layers === 96));
  assert.deepEqual([...new Set(j.rows.map((row) => `${row.tp}x${row.dp}x${row.pp}`))].sort(),
    ['2x8x32', '4x4x32', '4x8x16', '8x2x32', '8x4x16', '8x8x8']);
  // The plans' order: no pair measured more than 4% apart is predicted the other way round.
  for (const a of j.rows) {
    for (const b of j.rows) {
      if (a.measured_ms > 1.04 * b.measured_ms) assert.ok(a.predicted_ms > b.predicted_ms, `line ${a.line} against ${b.line}`);
    }
  }
});

test('the published weak-scaling runs of 2021 validate within their bound, each with its own setup', () => {
  // Narayanan et al. 2021 (arXiv 2104.04473, Table 1): 1.7B to 1T on 32 to 3072 A100s, data
  // parallelism 6 to 32; throughput turned into time by the paper's FLOP count (profiles/published).
  const j = validatePublished('narayanan-a100.csv', { runs: 10, mape: 4.5, max: 8 });
  for (const row of j.rows) {
    assert.equal(row.tp_async_backward, false);
    assert.equal(row.grad_accumulation_fusion, false, 'the 2021 code adds gradients to the buffer in a hook');
    assert.equal(row.dp_overlap, row.pp === 1, 'PyTorch DDP (overlapped) exactly where there is no pipeline');
    // Measured time from throughput: 96 B s l h^2 (1 + s/6h + V/16lh) FLOPs at the reported rate.
    const tflops = tflopsPerGpu(row);
    assert.ok(tflops > 130 && tflops < 170, `${tflops} teraFLOP/s per GPU`);
  }
  // The rates of the paper's Table 1, in the file's order.
  assert.deepEqual(j.rows.map((row) => Math.round(tflopsPerGpu(row))),
                   [137, 138, 142, 135, 138, 140, 148, 155, 163, 163]);
  // Interleaving as the launch script sets it: 76.1B and 529.6B with 3 chunks, 145.6B and 310.1B with 2.
  assert.deepEqual(j.rows.map((row) => row.virtual_stages ?? 1), [1, 1, 1, 1, 1, 3, 2, 2, 3, 1]);
});

test('the published per-layer times of 2022 validate as layer times, recomputation variants in order', () => {
  // Korthikanti et al. 2022 (arXiv 2205.05198, Table 4): one layer of the 22B model on 8 A100s,
  // forward and backward, without and with full or selective recomputation and sequence parallelism.
  const j = validatePublished('korthikanti-layer-a100.csv', { runs: 5, mape: 3, max: 5 });
  for (const row of j.rows) assert.equal(row.layer_time, true);
  const at = (recompute, sp) => j.rows.find((r) => r.recompute === recompute && Boolean(r.sequence_parallel) === sp);
  // Measured and predicted alike: full recomputation costs most, sequence parallelism saves a little.
  for (const key of ['measured_ms', 'predicted_ms']) {
    assert.ok(at('full', false)[key] > 1.3 * at('none', false)[key], key);
    assert.ok(at('selective', false)[key] < 1.1 * at('none', false)[key], key);
    assert.ok(at('none', true)[key] < at('none', false)[key], key);
    assert.ok(at('selective', true)[key] < at('selective', false)[key], key);
  }
});

test('the published MT-NLG runs are read with their own setup and their known shortfall is bounded', () => {
  // Smith et al. 2022 (arXiv 2201.11990): 530B on 2240 to 3360 A100s, bf16, DeepSpeed's pipeline
  // engine. The simulator predicts them short (docs/accuracy.md); this bounds that gap.
  const j = validatePublished('mt-nlg-a100.csv', { runs: 3, mape: 15 });
  for (const row of j.rows) {
    assert.equal(row.precision, 'bf16');
    assert.equal(row.tp_async_backward, false);
    assert.equal(row.grad_accumulation_fusion, false);
    assert.equal(row.pp, 35);
    assert.ok(row.predicted_ms < row.measured_ms);
  }
  // More data parallelism, fewer micro-batches per pipeline: a shorter iteration, predicted and measured.
  const byDp = [...j.rows].sort((a, b) => a.dp - b.dp);
  for (let i = 1; i < byDp.length; ++i) {
    assert.ok(byDp[i].measured_ms < byDp[i - 1].measured_ms);
    assert.ok(byDp[i].predicted_ms < byDp[i - 1].predicted_ms);
  }
  // The shortfall is the same fraction at every data parallelism: it comes with every micro-batch.
  const errors = j.rows.map((r) => r.error_percent);
  assert.ok(Math.max(...errors) - Math.min(...errors) < 2, errors);
});

// A least-squares line time = t x + c through points [x, time].
function line(points) {
  const n = points.length;
  const mx = points.reduce((a, [x]) => a + x, 0) / n;
  const my = points.reduce((a, [, y]) => a + y, 0) / n;
  const sxx = points.reduce((a, [x]) => a + (x - mx) ** 2, 0);
  const t = points.reduce((a, [x, y]) => a + (x - mx) * (y - my), 0) / sxx;
  const c = my - t * mx;
  const residuals = points.map(([x, y]) => y - (t * x + c));
  const sigma = Math.sqrt(residuals.reduce((a, r) => a + r * r, 0) / (n - 2));
  return { t, c, residuals, cError: sigma * Math.sqrt(1 / n + mx ** 2 / sxx) };
}

test('the MT-NLG file\'s micro-batch is the one its three measured times imply under 1F1B', () => {
  // Under 1F1B an iteration takes (m + p - 1) t + c, m = global batch / (dp micro-batch). Only the
  // micro-batch whose line leaves a fixed part c the size of the simulator's own (the reduction and
  // the optimizer step) fits; the file must hold that one, and docs/accuracy.md must state the lines.
  const rows = validatePublished('mt-nlg-a100.csv').rows;
  const x = (row, mb) => row.global_batch / (row.dp * mb) + row.pp - 1;
  const measured = (mb) => line(rows.map((r) => [x(r, mb), r.measured_ms / 1e3]));
  const simulated = line(rows.map((r) => [x(r, r.micro_batch), r.predicted_ms / 1e3]));
  assert.ok(simulated.c > 0 && simulated.c < 1, `the simulator's fixed part ${simulated.c} s`);
  const candidates = [1, 2, 4].map((mb) => ({ mb, ...measured(mb) }));
  const best = candidates.reduce((a, b) => (Math.abs(b.c - simulated.c) < Math.abs(a.c - simulated.c) ? b : a));
  for (const row of rows) assert.equal(row.micro_batch, best.mb);
  assert.ok(Math.abs(best.c - simulated.c) < best.cError, 'the fixed part agrees within its uncertainty');
  for (const other of candidates.filter((k) => k.mb !== best.mb))
    assert.ok(Math.abs(other.c - simulated.c) > 2 * other.cError, `micro-batch ${other.mb}: c = ${other.c} s`);
  const readme = readFileSync(path.join(root, 'docs/accuracy.md'), 'utf8').replace(/\s+/g, ' ');
  const s = (v) => v.toFixed(1).replace('-', '\u2212');
  const [c1, c2, c4] = candidates.map((k) => s(k.c));
  assert.ok(readme.includes(`c = ${c1} s for micro-batch 1, ${c2} s for micro-batch 2 and ${c4} s for micro-batch 4`),
    `docs/accuracy.md states ${c1}, ${c2}, ${c4}`);
  const maxResidual = Math.max(...best.residuals.map(Math.abs));
  assert.ok(readme.includes(`\u00b1${maxResidual.toFixed(1)} s, and c is uncertain by about \u00b1${Math.round(best.cError)} s`));
  assert.ok(readme.includes(`0.3 s in the simulator`) && simulated.c.toFixed(1) === '0.3');
  assert.ok(readme.includes(`${best.t.toFixed(2)} s measured against ${simulated.t.toFixed(2)} s simulated`));
});

test('the published BLOOM run is read with its own setup and agrees with the throughput its log states', () => {
  // BigScience's BLOOM 176B on 384 A100s: the log line gives 105.22 s per iteration and 149.02 TFLOPs,
  // counted as Narayanan et al. count them; the plan and time in the file must give the same.
  const j = validatePublished('bloom-a100.csv', { runs: 1, mape: 15 });
  const row = j.rows[0];
  assert.deepEqual([row.tp, row.pp, row.dp, row.micro_batch, row.vocab], [4, 12, 8, 2, 250880]);
  assert.equal(row.precision, 'bf16');
  assert.equal(row.inter_node_Gbps, 400);
  assert.equal(row.grad_accumulation_fusion, false);
  // Its bf16 optimizer splits the optimizer states over the data-parallel ranks: without that the
  // plan would not fit in 80 GB, and the simulator would say so in the row's notes.
  assert.equal(row.zero_stage, 1);
  assert.equal(row.zero_all_reduce, true, 'its optimizer all-reduces the whole fp32 gradients');
  // Its script exports CUDA_LAUNCH_BLOCKING=1 and uses ALiBi positions.
  assert.equal(row.launch_blocking, true);
  assert.equal(row.position, 'alibi');
  // Its partition counts the tied embedding at each end as a layer (5, 6, ..., 6, 5): chosen, not warned.
  assert.equal(row.embedding_as_layer, true);
  assert.equal(row.head_as_layer, true);
  assert.ok(!(row.notes ?? []).some((n) => n.startsWith('pipeline parallelism 12 does not divide')), row.notes);
  assert.ok(!(row.notes ?? []).some((n) => n.startsWith('needs ')), row.notes);
  assert.equal(Math.round(tflopsPerGpu(row)), 149);
  // Like MT-NLG's, a DeepSpeed run the simulator predicts short (docs/accuracy.md).
  assert.ok(row.predicted_ms < row.measured_ms);
});

test('the accuracy guide\'s teraFLOP/s per GPU of the 530B runs follow from the published files', () => {
  // 2022 (full recomputation, 280 GPUs), 2021 (2520 GPUs), MT-NLG (2240 GPUs), by the same FLOP count.
  const readme = readFileSync(path.join(root, 'docs/accuracy.md'), 'utf8').replace(/\s+/g, ' ');
  const k22 = validatePublished('megatron-a100.csv').rows.find((r) => r.hidden === 20480 && r.recompute === 'full');
  const n21 = validatePublished('narayanan-a100.csv').rows.find((r) => r.hidden === 20480);
  const mt = validatePublished('mt-nlg-a100.csv').rows.find((r) => r.num_gpus === 2240);
  const [a, b, c] = [k22, n21, mt].map((row) => Math.round(tflopsPerGpu(row)));
  assert.ok(a > b && b > c);
  assert.ok(readme.includes(`comes to ${a} teraFLOP/s per GPU`), `docs/accuracy.md states ${a} for the 2022 run`);
  assert.ok(readme.includes(`where the 2021 code reached ${b}`), `docs/accuracy.md states ${b} for the 2021 run`);
  assert.ok(readme.includes(`is ${c} teraFLOP/s per GPU, against ${b}`), `docs/accuracy.md states ${c} for MT-NLG`);
  assert.ok(readme.includes(`and ${a} for its 2022 run`));
});

test('a column validate does not read is named in a warning and in --json', () => {
  const file = csv(header.replace('\n', ',recomputation\n') + '8,16,2,1024,16,12,1024,2,2,2,150,full\n');
  const r = run('validate', file, '--json');
  assert.equal(r.code, 0, r.err);
  assert.match(r.err, /warning: .*column "recomputation" is not read/);
  assert.deepEqual(JSON.parse(r.out).unread_columns, ['recomputation']);
});

test('validate --scale N: the runs on N GPUs or more of every file, by GPU count, and the slope of their error', () => {
  const files = ['narayanan-a100.csv', 'mt-nlg-a100.csv'].map((f) => path.join(root, 'profiles/published', f));
  const r = run('validate', ...files, '--scale', '1000', '--summary');
  assert.equal(r.code, 0, r.err);
  const at = r.out.indexOf('error against GPU count, runs on 1000 GPUs or more');
  assert.ok(at >= 0, r.out);
  const rows = [...r.out.slice(at).matchAll(/^\s+(\d+)\s+([+-]\d+\.\d)%\s+(\S+):(\d+)$/gm)];
  // The errors are those of each file's own table, the runs sorted by GPU count.
  const byFile = new Map();
  for (const f of files) {
    const j = JSON.parse(run('validate', f, '--json').out);
    for (const row of j.rows) if (row.num_gpus >= 1000) byFile.set(`${path.basename(f)}:${row.line}`, row);
  }
  assert.equal(rows.length, byFile.size);
  const gpus = rows.map((m) => Number(m[1]));
  assert.deepEqual(gpus, [...gpus].sort((a, b) => a - b));
  for (const m of rows) {
    const row = byFile.get(`${m[3]}:${m[4]}`);
    assert.ok(row, m[0]);
    assert.equal(Number(m[1]), row.num_gpus);
    assert.ok(Math.abs(Number(m[2]) - row.error_percent) <= 0.051, m[0]);
  }
  const pooled = r.out.match(new RegExp(`${rows.length} runs: error changes by ([+-]\\d+\\.\\d\\d) points per doubling ` +
    'of the GPUs \\(correlation [+-]\\d\\.\\d\\d\\), 95% interval ([+-]\\d+\\.\\d\\d) to ([+-]\\d+\\.\\d\\d)'));
  assert.ok(pooled, r.out);
  assert.ok(Number(pooled[2]) <= Number(pooled[1]) && Number(pooled[1]) <= Number(pooled[3]), pooled[0]);
  // Within each file: its own level taken out. Recomputed here from the printed rows.
  const within = r.out.match(/within each of the 2 files: ([+-]\d+\.\d\d) points per doubling, 95% interval ([+-]\d+\.\d\d) to ([+-]\d+\.\d\d)/);
  assert.ok(within, r.out);
  const sets = new Map();
  for (const m of rows) {
    const set = sets.get(m[3]) ?? [];
    set.push([Math.log2(Number(m[1])), Number(m[2])]);
    sets.set(m[3], set);
  }
  let sxx = 0, sxy = 0;
  for (const pts of sets.values()) {
    const mx = pts.reduce((a, p) => a + p[0], 0) / pts.length, my = pts.reduce((a, p) => a + p[1], 0) / pts.length;
    for (const [x, y] of pts) sxx += (x - mx) ** 2, sxy += (x - mx) * (y - my);
  }
  assert.ok(Math.abs(sxy / sxx - Number(within[1])) <= 0.02, `${sxy / sxx} vs ${within[0]}`);
  assert.ok(Math.abs((Number(within[2]) + Number(within[3])) / 2 - Number(within[1])) <= 0.011, within[0]);
  assert.equal(run('validate', files[0], '--scale', '0').code, 2);
});

test('the published FSDP runs (MosaicML llm-foundry) validate within the 10% floor, as ZeRO-3 with Triton attention', () => {
  // scripts/train/benchmarking/README.md of llm-foundry: FULL_SHARD over every GPU, attn_impl triton.
  const j80 = validatePublished('llm-foundry-a100-80gb.csv', { runs: 35, mape: 10 });
  assert.ok(j80.rows.every((row) => row.zero_stage === 3 && row.attention === 'triton'));
  const r = run('validate', '--gpu', 'a100-sxm4-40gb', path.join(root, 'profiles/published', 'llm-foundry-a100-40gb.csv'), '--json');
  assert.equal(r.code, 0, r.err);
  const j40 = JSON.parse(r.out);
  assert.equal(j40.unread_columns, undefined);
  assert.equal(j40.runs, 39);
  assert.ok(j40.mape_percent <= 10, `MAPE ${j40.mape_percent}`);
  // MPT-7B, micro-batch 18, on 4 to 16 nodes: its gathers hide behind the compute (measured within 3%).
  const seven = j40.rows.filter((row) => row.hidden === 4096 && row.micro_batch === 18);
  assert.equal(seven.length, 3);
  const times = seven.map((row) => row.predicted_ms);
  assert.ok(Math.max(...times) / Math.min(...times) < 1.01, times.join(', '));
});

test('the published torchtitan FSDP2 runs validate within the 10% floor, as eager PyTorch beside NCCL', () => {
  // docs/performance.md of torchtitan (2024-08-23): FSDP2 on 64 A100 80GB, compile false, eager RMSNorm.
  const j = validatePublished('torchtitan-a100.csv', { runs: 3, mape: 10 });
  assert.ok(j.rows.every((row) => row.zero_stage === 3 && row.fused_elementwise === false));
  // Each of the two effects is needed: fused kernels (Megatron's) are further off.
  const fused = validateVariant('torchtitan-a100.csv', /,yes,no,/g, ',yes,yes,');
  assert.ok(fused.mape_percent > j.mape_percent + 3, `fused ${fused.mape_percent}, eager ${j.mape_percent}`);
});

test('the published DeepSpeed ZeRO-3 runs of 2021 are bound by their gathers from 768 GPUs on', () => {
  const j = validatePublished('narayanan-zero3-a100.csv', { runs: 6, mape: 10 });
  const z175 = j.rows.filter((row) => row.hidden === 12288).sort((a, b) => a.num_gpus - b.num_gpus);
  // Measured: the same time on 768 and 1536 GPUs; predicted within 5% of each other as well.
  assert.ok(Math.abs(z175[2].predicted_ms / z175[1].predicted_ms - 1) < 0.05);
  assert.ok(j.rows.every((row) => row.recompute_gather === true && row.shard_flat_ring === true &&
                                  row.shard_device_sync === true));
  // The device-wide synchronization of that DeepSpeed release is what the micro-batch-4 runs show:
  // with the reduce-scatters overlapped instead, they are predicted much shorter than measured.
  const s = validateVariant('narayanan-zero3-a100.csv', /,yes,yes,yes,/g, ',yes,yes,no,');
  assert.ok(s.mape_percent > j.mape_percent + 3, `streams ${s.mape_percent}, synchronized ${j.mape_percent}`);
  for (const [i, row] of j.rows.entries()) {
    if (row.micro_batch === 4) assert.ok(s.rows[i].predicted_ms < row.predicted_ms * 0.9, `line ${row.line}`);
  }
});

test('Llama 3 405B on 8,192 and 16,384 H100s: held out of the H100 fit, its pipeline as the report lays it out', () => {
  // arXiv 2407.21783, Table 4 and section 3.3.2. The bound is the file's present error, to catch a
  // change that moves it; the runs are there to measure the optimism at scale (docs/large-scale.md).
  const j = validatePublished('llama3-405b-h100.csv', { runs: 5, mape: 13, max: 14 });
  assert.ok(j.rows.every((row) => row.held_out && row.embedding_as_layer && row.head_as_layer && row.virtual_stages === 8));
  // NVIDIA's FP8 runs on 1,024 GPUs with context parallelism 2, Meta's BF16 runs on 8K and 16K.
  assert.deepEqual(j.rows.map((row) => row.num_gpus), [1024, 1024, 1024, 8192, 16384]);
  assert.deepEqual(j.rows.map((row) => row.cp ?? 1), [2, 2, 2, 1, 1]);
  assert.ok(j.rows.every((row) => row.error_percent < 0), 'both predicted fast');
  // Meta's cluster as section 3.3.1 builds it, its ranks in the order of section 3.3.2 (data
  // parallelism outermost): there its 1:7 above the pods costs nothing. In Megatron-Core's order the
  // pipeline sends leave the pods, and the 16,384-GPU step is longer.
  const meta = j.rows.filter((row) => row.num_gpus > 1024);
  assert.ok(meta.every((row) => row.placement === 'tp-pp-dp' && row.network.topology === 'clos3' &&
                                row.network.nodes_per_pod === 384 && row.network.core_oversubscription === 7));
  const megatronOrder = validateVariant('llama3-405b-h100.csv', /,yes,tp-pp-dp,clos3,/g, ',yes,tp-dp-pp,clos3,');
  const flat = validateVariant('llama3-405b-h100.csv', /,yes,tp-pp-dp,clos3,2,384,1,7,/g, ',yes,tp-pp-dp,flat,2,384,1,1,');
  for (const [i, row] of j.rows.entries()) {
    assert.equal(flat.rows[i].predicted_ms, row.predicted_ms, `line ${row.line}: the 1:7 costs nothing in Meta's order`);
    if (row.num_gpus === 16384) assert.ok(megatronOrder.rows[i].predicted_ms > row.predicted_ms * 1.03, `line ${row.line}`);
  }
  // The H100 profile's calibration names its files: this one is not among them.
  const h100 = JSON.parse(readFileSync(path.join(root, 'profiles/h100-sxm5-80gb.json'), 'utf8'));
  assert.ok(!h100.provenance.calibration.files.some((f) => f.includes('llama3-405b')));
});

test('Grok-1 on 8 to 2,048 H100s: a mixture of experts with context parallelism, held out of the H100 fit', () => {
  // NVIDIA dgxc-benchmarking v25.04.01, grok1/README_314b.md: BF16 and FP8 step times; the runs
  // below 512 GPUs are its proxy configurations of fewer layers.
  const j = validatePublished('grok-h100.csv', { runs: 18, mape: 12, max: 20 });
  assert.ok(j.rows.every((row) => row.held_out && row.ep >= 2 && row.capacity_factor === 1));
  // Megatron-Core 0.10 (NeMo 24.12): each MoE layer's permutation and unpermutation make the host
  // wait (masked_select). Without those waits every run is predicted faster, and the file is further off.
  assert.ok(j.rows.every((row) => row.moe_permute_sync === true));
  const f = validateVariant('grok-h100.csv', /,1,yes,128256,/g, ',1,no,128256,');
  assert.ok(f.mape_percent > j.mape_percent + 1, `free ${f.mape_percent}, waiting ${j.mape_percent}`);
  for (const [i, row] of j.rows.entries()) assert.ok(f.rows[i].predicted_ms < row.predicted_ms, `line ${row.line}`);
  assert.equal(j.rows.filter((row) => (row.cp ?? 1) === 2).length, 12);
  // The 64-layer model's pipelined runs on 512 to 2,048 GPUs are within 11%, each predicted fast.
  const full = j.rows.filter((row) => row.layers === 64);
  assert.equal(full.length, 6);
  assert.ok(full.every((row) => row.error_percent < 0 && row.error_percent > -11), full.map((r) => r.error_percent).join(', '));
  // FP8 is faster than BF16 in the model as measured: the same plan, the ratio within 6% of the measured
  // one (3.7% to 5.0%: the model's FP8 step is a little too close to its BF16 one, docs/moe.md).
  for (const gpus of [512, 1024, 2048]) {
    const [b, f] = ['bf16', 'fp8'].map((p) => full.find((row) => row.num_gpus === gpus && row.precision === p));
    assert.ok(Math.abs((f.predicted_ms / b.predicted_ms) / (f.measured_ms / b.measured_ms) - 1) < 0.06, `${gpus}`);
  }
});

// Context parallelism: NVIDIA's published long-sequence runs on DGX H100 (docs/context-parallel.md),
// within the floor of 12%.
test('the published context-parallel H100 runs validate, each with its cp, within the floor of 12%', () => {
  const j = validatePublished('long-context-h100.csv', { runs: 8, mape: 12, max: 15 });
  assert.ok(j.rows.every((row) => row.cp >= 2), 'every run has context parallelism');
  assert.deepEqual(j.rows.map((row) => row.cp), [2, 2, 4, 8, 16, 32, 2, 2]);
});

test('the published mixture-of-experts runs of both files validate within the floor of 12% together', () => {
  const files = ['grok-h100.csv', 'moe-b200.csv'].map((f) => path.join(root, 'profiles/published', f));
  const r = run('validate', ...files, '--json');
  assert.equal(r.code, 0, r.err);
  const out = JSON.parse(r.out);
  const rows = (Array.isArray(out) ? out : [out]).flatMap((f) => f.rows);
  assert.equal(rows.length, 21);
  const mape = rows.reduce((a, row) => a + Math.abs(row.error_percent), 0) / rows.length;
  assert.ok(mape <= 12, `MAPE ${mape}`);
});

// NVIDIA's Megatron MoE model zoo (Megatron-Core, H100, BF16): Qwen3-235B-A22B on 256 GPUs in four
// plans, held out of every fit. The bounds record how far off the model is (docs/moe.md says where):
// the DeepEP plans are predicted slow, the two with expert data parallelism or a 32-stage pipeline fast.
test('Qwen3-235B on 256 H100s in four plans, one of them FSDP with expert parallelism, held out of the H100 fit', () => {
  const j = validatePublished('megatron-moe-h100.csv', { runs: 4, mape: 25, max: 40 });
  assert.ok(j.rows.every((row) => row.held_out && row.etp === 1 && row.precision === 'bf16'));
  assert.deepEqual(j.rows.map((row) => [row.tp, row.pp, row.ep, row.zero_stage]),
                   [[2, 8, 32, 1], [2, 1, 8, 3], [2, 32, 8, 1], [4, 8, 8, 1]]);
  // The FSDP plan (Megatron-FSDP: the dense parts sharded over 128 ranks, the experts over their 32
  // expert data-parallel ranks) within 15%; its gathers and reduce-scatters in every micro-batch cost
  // time that the distributed optimizer's once-a-step collectives do not.
  const fsdp = j.rows[1];
  assert.ok(Math.abs(fsdp.error_percent) <= 15, `FSDP ${fsdp.error_percent}`);
  const zero1 = validateVariant('megatron-moe-h100.csv', /,yes,3,yes,no,no,/, ',yes,1,yes,no,no,');
  assert.equal(zero1.rows[1].zero_stage, 1);
  assert.ok(zero1.rows[1].predicted_ms < fsdp.predicted_ms, `${zero1.rows[1].predicted_ms} vs ${fsdp.predicted_ms}`);
  assert.ok((zero1.rows[1].notes ?? []).some((n) => /needs [\d.]+ GiB/.test(n)), 'unsharded, the plan does not fit');
  // docs/moe.md: the 25 MoE runs of the three files together at 12.2%.
  const all = JSON.parse(run('validate', ...['grok-h100.csv', 'moe-b200.csv', 'megatron-moe-h100.csv']
    .map((f) => path.join(root, 'profiles/published', f)), '--json').out).flatMap((f) => f.rows);
  assert.equal(all.length, 25);
  const mape = all.reduce((a, row) => a + Math.abs(row.error_percent), 0) / all.length;
  assert.ok(mape > 11.5 && mape < 13, `MAPE ${mape}`);
});

test('the published B200 mixture-of-experts runs validate within the floor of 12% (docs/moe.md)', () => {
  // NVIDIA NeMo 25.02, Mixtral 8x7B on 64 B200s with expert parallelism 8 and Mixtral 8x22B on 256
  // with context parallelism 8 at sequence 65536, and Megatron Bridge 26.04.01, Qwen3 30B-A3B on 8
  // B200s (docs/moe.md: its fine-grained experts are predicted fast), on the B200 profile projected
  // from the calibrated H100.
  const j = validatePublished('moe-b200.csv', { runs: 3, mape: 12, max: 16 });
  assert.deepEqual(j.rows.map((row) => row.ep), [8, 8, 8]);
  assert.deepEqual(j.rows.map((row) => row.cp ?? 1), [1, 1, 8]);
  assert.ok(Math.abs(j.rows[2].error_percent) <= 12, `Mixtral 8x22B ${j.rows[2].error_percent}`);
  assert.equal(j.rows[0].capacity_factor, 1);
  assert.equal(j.rows[0].grad_reduce_fp32, false);
  assert.ok(Math.abs(j.rows[0].error_percent) <= 12, `Mixtral ${j.rows[0].error_percent}`);
});

// The native CLI's numbers for every bundled example and every model preset (on one fixed plan),
// its sweep of the MT-NLG case study, its compute-optimal presets and its schema, written to
// build/golden/cli.json. The WebAssembly tests and the page tests compare against it,
// so they follow the simulator as its profiles change. Run directly to regenerate:
//   node scripts/golden.mjs
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(root, 'build/native/vtrain');
export const goldenPath = path.join(root, 'build/golden/cli.json');

// Every model preset on 64 GPUs: tp 8 divides every preset's heads, KV heads and FFN width.
export const presetPlan = {
  cluster: { gpu: 'a100-sxm4-80gb', num_gpus: 64, gpus_per_node: 8, price_per_gpu_hour_usd: 2.5 },
  plan: { tp: 8, pp: 1, dp: 8, micro_batch: 1, global_batch: 64, recompute: 'full' },
  training: { tokens: 1e11 },
};

// The numbers the page and the module must reproduce (everything but the timeline and details).
const KEYS = ['iteration_time_s', 'breakdown_s', 'memory_GiB', 'memory_capacity_GiB', 'fits_in_memory', 'mfu', 'hfu',
  'tokens_per_s', 'tflops_per_gpu', 'training_days', 'cost_usd', 'training', 'micro_batches', 'parameters', 'warnings', 'accuracy', 'accuracy_also'];

/** Runs the native CLI with `args`; its JSON output, parsed. */
export function runCli(args) {
  const r = spawnSync(cli, args, { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`vtrain ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout);
}

function pick(result) {
  return Object.fromEntries(KEYS.filter((k) => k in result).map((k) => [k, result[k]]));
}

export function generateGolden() {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run scripts/build.sh first`);
  const presets = runCli(['presets', '--json']);
  const dir = mkdtempSync(path.join(tmpdir(), 'vtrain-golden-'));
  const cases = [];
  for (const ex of presets.examples) {
    cases.push({ name: ex.name, kind: 'example', config: ex.config, expected: pick(runCli(['simulate', ex.name, '--json'])) });
  }
  for (const m of presets.models) {
    const config = { model: m.name, ...presetPlan };
    const file = path.join(dir, `${m.name}.json`);
    writeFileSync(file, JSON.stringify(config));
    cases.push({ name: m.name, kind: 'model', config, expected: pick(runCli(['simulate', file, '--json'])) });
  }
  const sweep = runCli(['explore', '--case', 'mt-nlg', '--json']);
  const explore = {
    name: 'mt-nlg',
    request: { case: 'mt-nlg' },
    expected: { plans: sweep.plans, pareto: sweep.pareto, best_time: sweep.best_time, best_cost: sweep.best_cost, best: sweep.best, baseline: sweep.baseline },
  };
  const optimal = presets.optimal.map((o) => {
    const r = runCli(['optimal', '--preset', o.name, '--json']);
    return { name: o.name, request: o.request, expected: { achievable: r.achievable, flop_only: r.flop_only, alternatives: r.alternatives } };
  });
  // The schema: the module's must be the CLI's, as every number is.
  const schema = runCli(['schema']);
  const golden = { generated_by: 'build/native/vtrain', cases, explore: [explore], optimal, schema };
  mkdirSync(path.dirname(goldenPath), { recursive: true });
  writeFileSync(goldenPath, `${JSON.stringify(golden, null, 1)}\n`);
  return golden;
}

/** The golden file, regenerated when it is missing or older than the CLI. */
export function cliGolden() {
  if (existsSync(goldenPath) && existsSync(cli) && statSync(goldenPath).mtimeMs >= statSync(cli).mtimeMs) {
    return JSON.parse(readFileSync(goldenPath, 'utf8'));
  }
  return generateGolden();
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const g = generateGolden();
  console.log(`${path.relative(root, goldenPath)}: ${g.cases.length} simulations, ${g.explore.length} sweep and ${g.optimal.length} sizing from the native CLI`);
}

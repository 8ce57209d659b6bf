// Draws predicted against measured iteration time for the calibration measurements and the
// published runs in profiles/published (log-log) and writes docs/accuracy.png. Needs ../shared beside the repository, the native CLI
// (npm test builds it) and Debian's Chromium. Run: npm run accuracy-plot
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { launchChromium } from './chromium.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const shared = path.resolve(root, '../shared/validation');
const out = path.join(root, 'docs/accuracy.png');
const files = ['single_node_calibration.csv', 'multi_node_calibration.csv'].map((f) => path.join(shared, f));
if (!files.every(existsSync)) {
  console.log(`accuracy-plot: skipped, ${shared} not found (../shared is not beside this clone)`);
  process.exit(0);
}

const r = spawnSync(path.join(root, 'build/native/vtrain'), ['validate', ...files, '--json'],
  { encoding: 'utf8', maxBuffer: 1 << 28 });
if (r.status !== 0) throw new Error(`vtrain validate failed: ${r.stderr}`);
const sets = JSON.parse(r.stdout);
// The published runs carry their own setup (profiles/published/README.md).
for (const file of ['vtrain-175b-a100.csv', 'megatron-a100.csv', 'narayanan-a100.csv', 'mt-nlg-a100.csv', 'bloom-a100.csv']) {
  const pub = spawnSync(path.join(root, 'build/native/vtrain'),
    ['validate', path.join(root, 'profiles/published', file), '--json'],
    { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (pub.status !== 0) throw new Error(`vtrain validate failed: ${pub.stderr}`);
  sets.push(JSON.parse(pub.stdout));
}
const names = ['single node (2-8 A100s)', 'multi node (64-512 A100s)', 'GPT-3 175B on 512 A100s, same cluster (not fitted)',
  'published Megatron-LM 2022, 22B-1T (not fitted)',
  'published Megatron-LM 2021, 1.7B-1T on 32-3072 A100s (not fitted)', 'published MT-NLG 530B, DeepSpeed 2021 (not fitted)',
  'published BLOOM 176B, Megatron-DeepSpeed 2022 (not fitted)'];
const colors = ['#1f77b4', '#d62728', '#17becf', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b'];
const traces = sets.map((s, i) => ({
  type: 'scatter', mode: 'markers', name: `${names[i]}: ${s.runs} run${s.runs === 1 ? '' : 's'}, MAPE ${s.mape_percent.toFixed(2)}%`,
  x: s.rows.map((row) => row.measured_ms), y: s.rows.map((row) => row.predicted_ms),
  marker: { size: i >= 2 ? 8 : 5, color: colors[i], opacity: i >= 2 ? 0.9 : 0.6, symbol: ['circle', 'circle', 'cross', 'diamond', 'triangle-up', 'square', 'star'][i] },
}));
const all = sets.flatMap((s) => s.rows.flatMap((row) => [row.measured_ms, row.predicted_ms]));
const lo = Math.min(...all) / 1.3, hi = Math.max(...all) * 1.3;
traces.push({ type: 'scatter', mode: 'lines', name: 'predicted = measured', x: [lo, hi], y: [lo, hi],
  line: { color: '#555', dash: 'dot', width: 1 } });
for (const f of [0.9, 1.1]) {
  traces.push({ type: 'scatter', mode: 'lines', showlegend: f === 0.9, name: '±10%', x: [lo, hi], y: [lo * f, hi * f],
    line: { color: '#aaa', dash: 'dash', width: 1 } });
}
const layout = {
  width: 760, height: 760, margin: { l: 70, r: 20, t: 50, b: 200 },
  title: { text: 'vtrain validate: predicted vs measured iteration time (A100, GPT)', font: { size: 14 } },
  xaxis: { type: 'log', title: { text: 'measured iteration time (ms)' }, range: [Math.log10(lo), Math.log10(hi)] },
  yaxis: { type: 'log', title: { text: 'predicted iteration time (ms)' }, range: [Math.log10(lo), Math.log10(hi)] },
  legend: { x: 0, y: -0.13, yanchor: 'top' }, font: { family: 'sans-serif' },
};
const plotly = readFileSync(path.join(root, 'node_modules/plotly.js-basic-dist-min/plotly-basic.min.js'), 'utf8');
const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 760, height: 760 } });
  await page.setContent('<!doctype html><html><head><link rel="icon" href="data:,"></head><body style="margin:0"><div id="p"></div></body></html>');
  await page.addScriptTag({ content: plotly });
  await page.evaluate(async ({ traces, layout }) => {
    await window.Plotly.newPlot('p', traces, layout, { staticPlot: true });
  }, { traces, layout });
  await page.locator('#p').screenshot({ path: out });
} finally {
  await browser.close();
}
console.log(`wrote ${path.relative(root, out)}`);

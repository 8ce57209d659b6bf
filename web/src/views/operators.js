// The Plan view's operator table: each operator's GPU time for one micro-batch on one GPU, by
// block (a transformer layer, the output head, the embedding), with a bar split into forward,
// recomputation and backward, and the rate it ran at.
import { h } from '../form.js';
import * as fmt from '../format.js';
import { PARTS } from './plan-charts.js';

const color = (key) => PARTS.find((p) => p.key === key).color;
const PHASES = [
  { key: 'forward_s', label: 'forward', color: color('forward') },
  { key: 'recompute_s', label: 'recompute', color: color('recompute') },
  { key: 'backward_s', label: 'backward', color: color('backward') },
];

const BLOCKS = [
  { key: 'layer', title: (r) => `Each transformer layer (${r.details.even_stages ? '' : 'up to '}${r.details.layers_per_stage} on each stage)` },
  { key: 'moe layer', title: (r) => `Each MoE layer (${r.parameters.moe_layers} of the model's layers: router, all-to-alls, experts)` },
  { key: 'head', title: () => 'Output head (last stage)' },
  { key: 'embedding', title: () => 'Embedding (first stage)' },
];

const KINDS = [
  { key: 'gemm', label: 'GEMMs' },
  { key: 'attention', label: 'fused attention' },
  { key: 'memory', label: 'memory-bound' },
  { key: 'collective', label: 'collectives' },
];

/** FLOPs or bytes per second of the operator's GPU time, as text. */
function rate(o) {
  if (!(o.total_s > 0)) return fmt.DASH;
  if (o.work_flops > 0) return `${fmt.sig(o.work_flops / o.total_s / 1e12)} TFLOP/s`;
  if (o.hbm_bytes > 0) return `${fmt.sig(o.hbm_bytes / o.total_s / 1e9)} GB/s`;
  if (o.comm_bytes > 0) return `${fmt.sig(o.comm_bytes / o.total_s / 1e9)} GB/s`;
  return fmt.DASH;
}

function bar(o, widest) {
  const wrap = h('span', { class: 'ops-bar', 'aria-hidden': 'true' });
  for (const p of PHASES) {
    if (!(o[p.key] > 0)) continue;
    wrap.append(h('span', { style: `width:${((o[p.key] / widest) * 100).toFixed(2)}%;background:${p.color}` }));
  }
  return wrap;
}

/**
 * Fills `table` from a result computed with output.operators, `note` with what a layer's time is
 * made of and `foot` with what the columns mean (under the table's scrolling box, so a narrow
 * screen never cuts it); hides `figure` when it has none.
 */
export function renderOperators(figure, table, note, foot, r) {
  const ops = Array.isArray(r.operators) ? r.operators : [];
  figure.hidden = ops.length === 0;
  table.textContent = '';
  if (ops.length === 0) return;
  // What a layer's GPU time is made of, by kind of operator.
  const layer = ops.filter((o) => o.block === 'layer' || o.block === 'moe layer');
  const layerTotal = layer.reduce((sum, o) => sum + o.total_s, 0);
  const kinds = KINDS.map((k) => ({ ...k, share: layer.filter((o) => o.kind === k.key).reduce((sum, o) => sum + o.total_s, 0) / layerTotal }))
    .filter((k) => k.share > 0)
    .map((k) => `${fmt.percent(k.share, 0)} ${k.label}`);
  note.textContent = `GPU time of one micro-batch on one GPU, by phase${kinds.length ? `; a layer's is ${kinds.join(', ')}` : ''}`;
  table.append(
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', { scope: 'col', text: 'Operator' }),
        ...PHASES.map((p) => h('th', { scope: 'col' }, h('i', { class: 'ops-key', style: `background:${p.color}` }), p.label)),
        h('th', { scope: 'col', class: 'ops-share', text: 'Share of the block' }),
        h('th', { scope: 'col', text: 'Rate' }),
      ),
    ),
  );
  for (const b of BLOCKS) {
    const rows = ops.filter((o) => o.block === b.key);
    if (rows.length === 0) continue;
    const total = rows.reduce((s, o) => s + o.total_s, 0);
    const widest = Math.max(...rows.map((o) => o.total_s));
    const body = h('tbody', { 'data-block': b.key });
    body.append(
      h('tr', { class: 'ops-block' }, h('th', { scope: 'rowgroup', colspan: '6' }, `${b.title(r)}: ${fmt.duration(total)}`)),
    );
    for (const o of rows) {
      const share = total > 0 ? o.total_s / total : 0;
      body.append(
        h(
          'tr',
          { title: `${o.kernels} kernel${o.kernels === 1 ? '' : 's'} (${o.kind}); time ${o.time_source || 'modelled'}` },
          h('th', { scope: 'row', text: o.time_source && o.time_source !== 'modelled' ? `${o.name} (${o.time_source})` : o.name }),
          ...PHASES.map((p) => h('td', { text: o[p.key] > 0 ? fmt.duration(o[p.key]) : fmt.DASH })),
          h('td', { class: 'ops-share' }, bar(o, widest), h('span', { class: 'ops-pct', text: fmt.percent(share) })),
          h('td', { text: rate(o) }),
        ),
      );
    }
    table.append(body);
  }
  foot.textContent = `${fmt.DASH}: none, or hidden beside another kernel (the tensor-parallel backward collective runs beside a weight-gradient GEMM). Rate: FLOPs executed, or bytes moved (for a collective, its buffer), per second of its GPU time.`;
}

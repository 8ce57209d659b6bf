// Numbers as people read them: units, a sensible number of digits, and a dash for anything that
// is not a finite number (NaN and Infinity are never shown).

export const DASH = '—';

const finite = (x) => typeof x === 'number' && Number.isFinite(x);

/** 3 significant digits, no trailing zeros beyond what the magnitude needs. */
export function sig(x, digits = 3) {
  if (!finite(x)) return DASH;
  if (x === 0) return '0';
  const a = Math.abs(x);
  if (a >= 10 ** digits) return Math.round(x).toLocaleString('en-US');
  const decimals = Math.max(0, digits - 1 - Math.floor(Math.log10(a)));
  return x.toFixed(Math.min(decimals, 6));
}

/** Seconds with a unit that fits: 850 µs, 51.7 ms, 26.44 s, 4.2 min, 3.1 h. */
export function duration(s) {
  if (!finite(s)) return DASH;
  const a = Math.abs(s);
  if (a === 0) return '0 s';
  if (a < 1e-3) return `${sig(s * 1e6)} µs`;
  if (a < 1) return `${sig(s * 1e3)} ms`;
  if (a < 100) return `${s.toFixed(a < 10 ? 3 : 2)} s`;
  if (a < 3600) return `${sig(s / 60)} min`;
  return `${sig(s / 3600)} h`;
}

export function days(d) {
  if (!finite(d)) return DASH;
  if (d < 1) return `${sig(d * 24)} h`;
  return `${d < 100 ? d.toFixed(1) : Math.round(d).toLocaleString('en-US')} days`;
}

/** A length someone typed, without a spurious decimal: "30 days", "7.5 days", "1 day", "18 h". */
export function daysGiven(d) {
  if (!finite(d)) return DASH;
  if (d < 1) return days(d);
  const v = Number(d.toFixed(1));
  return `${v.toLocaleString('en-US')} day${v === 1 ? '' : 's'}`;
}

const SI = [
  [1e12, 'T'],
  [1e9, 'B'],
  [1e6, 'M'],
  [1e3, 'k'],
];

/** 119 k, 2.94 M, 175 B: counts with a magnitude suffix. */
export function count(x, digits = 3) {
  if (!finite(x)) return DASH;
  const a = Math.abs(x);
  for (const [v, s] of SI) if (a >= v) return `${sig(x / v, digits)} ${s}`;
  return sig(x, digits);
}

export function usd(x) {
  if (!finite(x)) return DASH;
  if (Math.abs(x) < 1000) return `$${x.toFixed(2)}`;
  return `$${count(x)}`;
}

export function percent(f, decimals = 1) {
  if (!finite(f)) return DASH;
  return `${(f * 100).toFixed(decimals)} %`;
}

export function gib(x) {
  if (!finite(x)) return DASH;
  if (x >= 1000) return `${x.toLocaleString('en-US', { maximumFractionDigits: 0 })} GiB`;
  return `${x < 10 ? x.toFixed(2) : x.toFixed(1)} GiB`;
}

/** Whole-number inputs shown back in a field: 1536, 300e9 stays readable. */
export function fieldValue(x) {
  if (typeof x === 'boolean') return String(x);
  if (!finite(x)) return x == null ? '' : String(x);
  for (const k of [12, 9]) {
    if (Math.abs(x) >= 10 ** k && Number.isInteger(x / 10 ** k)) return `${x / 10 ** k}e${k}`;
  }
  return String(x);
}

/** "1 GPU", "1,024 GPUs". */
export function gpus(n) {
  return `${Number(n).toLocaleString('en-US')} GPU${n === 1 ? '' : 's'}`;
}

/**
 * Reads a number a person typed: "1536", "4.10", "300e9", "300B", "1.5T", "2,048".
 * Returns a number or null.
 */
export function parseNumber(text) {
  // "$4.10", "1,536", "2_000" and "10M" are numbers as people type them.
  const t = String(text).trim().replace(/,/g, '').replace(/_/g, '').replace(/^\$\s*/, '');
  if (t === '') return null;
  const m = /^([-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?)\s*([kmbgt])?$/i.exec(t);
  if (!m) return null;
  const scale = { k: 1e3, m: 1e6, b: 1e9, g: 1e9, t: 1e12 }[(m[2] || '').toLowerCase()] || 1;
  const v = Number(m[1]) * scale;
  return Number.isFinite(v) ? v : null;
}

/**
 * Reads a whole count a person typed (GPUs, layers, a batch): "2048", "2,048", "3e3". A
 * magnitude suffix is refused, for "2k" GPUs may mean 2,000 or 2,048. Returns {value} or
 * {error} (a sentence).
 */
export function parseCount(text) {
  const t = String(text).trim().replace(/,/g, '').replace(/_/g, '');
  if (t === '') return { error: 'enter a value' };
  const m = /^(\d+(?:\.\d+)?)\s*([kmbgt])$/i.exec(t);
  if (m) {
    const v = Number(m[1]);
    const scale = { k: [1e3, 1024], m: [1e6, 1048576], b: [1e9, 1073741824], g: [1e9, 1073741824], t: [1e12, 1099511627776] }[m[2].toLowerCase()];
    const [dec, bin] = scale.map((x) => Math.round(v * x).toLocaleString('en-US'));
    return { error: `write the number: “${t}” may mean ${dec} or ${bin}` };
  }
  const v = parseNumber(t);
  if (v == null) return { error: 'enter a number' };
  if (!Number.isInteger(v)) return { error: 'enter a whole number' };
  return { value: v };
}

/** "tp 8 · pp 35 · dp 12 · mb 1 · full recompute"; `varying` limits it to the fields that differ. */
export function planLabel(p, varying = null) {
  const show = (k) => !varying || varying.has(k);
  const parts = [`tp ${p.tp}`, `pp ${p.pp}`, `dp ${p.dp}`];
  if (show('virtual_stages') && (p.virtual_stages > 1 || varying)) parts.push(`v ${p.virtual_stages}`);
  if (show('micro_batch')) parts.push(`mb ${p.micro_batch}`);
  if (show('recompute')) parts.push(p.recompute === 'none' ? 'no recompute' : `${p.recompute} recompute`);
  if (show('sequence_parallel') && (p.sequence_parallel || varying)) parts.push(p.sequence_parallel ? 'SP' : 'no SP');
  if (show('zero_stage') && (p.zero_stage || varying)) parts.push(`ZeRO-${p.zero_stage}`);
  if (p.shard_group) parts.push(`shard group ${p.shard_group}`);
  return parts.join(' · ');
}

/**
 * One CSV cell as spreadsheets read it: a missing number is empty, and a cell with a comma, a quote
 * or a line break is quoted with its quotes doubled (RFC 4180).
 */
export function csvCell(v) {
  const s = v == null || (typeof v === 'number' && !Number.isFinite(v)) ? '' : String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** CSV text, a line per row of cells. */
export function csv(rows) {
  return `${rows.map((r) => r.map(csvCell).join(',')).join('\n')}\n`;
}

/** "vtrain-gpt3-175b-1024gpu-tp8-pp8-dp16": a download's name for the result of a simulate config. */
export function fileStem(config) {
  if (!config) return 'vtrain';
  return `vtrain-${config.model.name}-${config.cluster.num_gpus}gpu-tp${config.plan.tp}-pp${config.plan.pp}-dp${config.plan.dp}`;
}

/** 20 -> "20", 0.5 -> "0.5", 12.345 -> "12.3": a budget or a ratio as it was given. */
export function asGiven(x) {
  return finite(x) ? String(Number(x.toPrecision(3))) : DASH;
}

/** "hidden 9,216 · 90 layers · 72 heads" (and the KV heads of grouped-query attention). */
export function shapeText(m) {
  if (!m) return DASH;
  const kv = m.kv_heads && m.kv_heads < m.heads ? ` (${m.kv_heads} KV)` : '';
  return `hidden ${m.hidden.toLocaleString('en-US')} · ${m.layers} layers · ${m.heads} heads${kv}`;
}

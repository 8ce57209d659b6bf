// The Compute-optimal view's charts, one point per candidate size: the loss it reaches, and how
// long it trains (or what it costs, for a money budget) against the budget. Each star sits on the
// curve its answer was chosen from, and the loss chart says which rule chose it.
import * as fmt from '../format.js';
import { logTicks, plot, tickNumber, VIEW_CONFIG, VIEW_LEGEND } from '../charts.js';

/** The colours of the two answers, of the fixed ratio and of the budget, in both charts. */
const COLORS = { flop: '#e07b12', achievable: '#2457c5', ratio: '#6b7686', budget: '#b42318' };

const finite = (x) => typeof x === 'number' && Number.isFinite(x);
const orNull = (x) => (finite(x) ? x : null);

// Room under the plot for the tick labels and a legend that wraps on a narrow chart (an entry
// takes up to about 230 px).
function legendRoom(el, items) {
  const width = el.clientWidth || 600;
  const perRow = Math.max(1, Math.floor((width - 16) / 230));
  return 40 + Math.ceil(items / perRow) * 28;
}
const legendItems = (traces) => traces.filter((t) => t.showlegend !== false).length;

const LAYOUT = { hovermode: 'closest', hoverlabel: { font: { size: 12 } }, legend: VIEW_LEGEND };

function xAxis(el, curve) {
  const xs = curve.map((c) => c.params).filter(finite);
  const width = el.clientWidth || 600;
  return {
    type: 'log',
    zeroline: false,
    ...logTicks(Math.min(...xs), Math.max(...xs), tickNumber, Math.max(2, Math.floor((width - 90) / 50))),
  };
}

// An answer: a star labelled with its size; the two share one legend entry.
function star(first, x, y, color, hover, label, below, t) {
  return {
    type: 'scatter', mode: 'markers+text', name: 'the two answers', legendgroup: 'answers', showlegend: first,
    x: [orNull(x)], y: [orNull(y)], text: [label], textposition: below ? 'bottom center' : 'top center',
    textfont: { color, size: 12, weight: 600 },
    marker: { symbol: 'star', size: 17, color, line: { color: t.ink, width: 1 } },
    hovertemplate: `${hover}<extra></extra>`,
  };
}

/**
 * Which curve each answer was chosen from, and the lowest loss the whole budget reaches: with a
 * scaling law, the achievable answer is the lowest point of the achievable curve; with a fixed
 * ratio of tokens to parameters it is the largest size whose ratio of tokens fits the budget,
 * which need not be the lowest loss. Returns {ratio, lowest: {params, loss} | null, text}.
 */
export function lossRule(r) {
  const s = r.scaling;
  const a = r.achievable;
  const ratio = s.rule === 'tokens_per_param';
  const points = r.curve.filter((c) => c.has_plan && finite(c.loss_achievable));
  const lowest = points.length ? points.reduce((m, c) => (c.loss_achievable < m.loss_achievable ? c : m)) : null;
  if (!ratio) {
    return {
      ratio,
      lowest: lowest && { params: lowest.params, loss: lowest.loss_achievable },
      text: 'Each star is its curve’s lowest loss: the FLOP-only one at the GPUs’ peak, the achievable one at the simulated plans’ speed.',
    };
  }
  const k = fmt.asGiven(s.tokens_per_param);
  let text = `Both stars follow the ratio rule: the largest size whose ${k} tokens per parameter fit the budget (the FLOP-only one at peak, the achievable one on the solid line).`;
  if (a && lowest && lowest.loss_achievable < a.loss - 5e-5) {
    text += ` The rule is not the lowest loss: spending the whole budget, ${fmt.count(lowest.params)} parameters would reach ${lowest.loss_achievable.toFixed(4)} (○ on the dashed line) against the star’s ${a.loss.toFixed(4)}.`;
  }
  return { ratio, lowest: lowest && { params: lowest.params, loss: lowest.loss_achievable }, text };
}

/** Loss against parameters: the curves each answer is chosen from, with both answers as stars. */
export function drawLoss(el, r) {
  return plot(el, (t) => lossChart(el, r, t));
}

function lossChart(el, r, t) {
  const curve = r.curve;
  const s = r.scaling;
  const rule = lossRule(r);
  const px = curve.map((c) => c.params);
  const hoverFlop = curve.map((c) => `${fmt.count(c.params)} parameters (${fmt.shapeText(c.model)})<br>FLOP-only: ${fmt.count(c.tokens_flop_only)} tokens at peak, loss ${c.loss_flop_only.toFixed(4)}`);
  const hoverAch = curve.map((c) => (c.has_plan
    ? `${fmt.count(c.params)} parameters (${fmt.shapeText(c.model)})<br>whole budget: ${fmt.count(c.tokens_achievable)} tokens in ${fmt.days(c.days_achievable)}, loss ${c.loss_achievable.toFixed(4)}<br>${fmt.planLabel(c.plan)} · MFU ${fmt.percent(c.mfu)}`
    : `${fmt.count(c.params)} parameters: no plan fits on these GPUs`));
  const traces = [];
  if (rule.ratio) {
    // The ratio rule: the loss of each size at k tokens per parameter, solid and filled where the
    // budget trains it; the star is the largest filled point. The whole-budget curves are context.
    const k = s.tokens_per_param;
    traces.push({
      type: 'scatter', mode: 'lines', name: 'FLOP-only, whole budget at peak', x: px, y: curve.map((c) => orNull(c.loss_flop_only)),
      line: { color: COLORS.flop, width: 1.5, dash: 'dot' }, text: hoverFlop, hovertemplate: '%{text}<extra></extra>',
    });
    traces.push({
      type: 'scatter', mode: 'lines', name: 'achievable, whole budget', x: px, y: curve.map((c) => (c.has_plan ? orNull(c.loss_achievable) : null)),
      line: { color: COLORS.achievable, width: 1.5, dash: 'dash' }, text: hoverAch, hovertemplate: '%{text}<extra></extra>',
    });
    traces.push({
      type: 'scatter', mode: 'lines+markers', name: `${fmt.asGiven(k)} tokens per parameter (the rule)`, x: px,
      y: curve.map((c) => orNull(c.loss_at_ratio)),
      line: { color: COLORS.achievable, width: 2 },
      marker: {
        color: curve.map((c) => (c.within_budget_at_ratio ? COLORS.achievable : t.panel)), size: 8,
        line: { color: COLORS.achievable, width: 1.5 },
      },
      text: curve.map((c) => `${fmt.count(c.params)} parameters on ${fmt.count(c.tokens_at_ratio)} tokens: ${c.has_plan ? `${fmt.days(c.days_at_ratio)}, ${c.within_budget_at_ratio ? 'within' : 'over'} the budget` : 'no plan fits'}`),
      hovertemplate: '%{text}<extra></extra>',
    });
    if (rule.lowest && r.achievable && rule.lowest.loss < r.achievable.loss - 5e-5) {
      traces.push({
        type: 'scatter', mode: 'markers', name: 'lowest loss, whole budget', x: [rule.lowest.params], y: [rule.lowest.loss],
        marker: { symbol: 'circle-open', size: 13, color: COLORS.achievable, line: { width: 2 } },
        hovertemplate: `lowest loss spending the whole budget: ${fmt.count(rule.lowest.params)} parameters, ${rule.lowest.loss.toFixed(4)}<extra></extra>`,
      });
    }
  } else {
    traces.push({
      type: 'scatter', mode: 'lines+markers', name: 'FLOP-only (GPUs at peak)', x: px, y: curve.map((c) => orNull(c.loss_flop_only)),
      line: { color: COLORS.flop, width: 2 }, marker: { color: COLORS.flop, size: 6 }, text: hoverFlop, hovertemplate: '%{text}<extra></extra>',
    });
    traces.push({
      type: 'scatter', mode: 'lines+markers', name: 'achievable (simulated plans)', x: px, y: curve.map((c) => (c.has_plan ? orNull(c.loss_achievable) : null)),
      line: { color: COLORS.achievable, width: 2 }, marker: { color: COLORS.achievable, size: 6 }, text: hoverAch, hovertemplate: '%{text}<extra></extra>',
    });
  }
  const f = r.flop_only;
  const a = r.achievable;
  traces.push(star(true, f.params, f.loss, COLORS.flop, `FLOP-only answer: ${fmt.count(f.params)} parameters, loss ${f.loss.toFixed(4)}`, fmt.count(f.params), true, t));
  if (a) traces.push(star(false, a.params, a.loss, COLORS.achievable, `achievable answer: ${fmt.count(a.params)} parameters, loss ${a.loss.toFixed(4)}`, fmt.count(a.params), false, t));
  // The range of the curves and the answers: the ratio's curve may leave it at small sizes.
  const ys = [...traces.slice(0, 2).flatMap((x) => x.y), f.loss, a ? a.loss : null].filter(finite);
  const pad = (Math.max(...ys) - Math.min(...ys)) * 0.12 || 0.01;
  const room = legendRoom(el, legendItems(traces));
  return {
    traces,
    layout: {
      ...LAYOUT,
      margin: { l: 62, r: 14, t: 10, b: room },
      xaxis: xAxis(el, curve),
      yaxis: { title: { text: 'loss' }, zeroline: false, tickformat: '.3f', range: [Math.min(...ys) - pad, Math.max(...ys) + pad] },
    },
    config: VIEW_CONFIG,
    fit: { top: 310, below: 40 },
  };
}

/** Training days (or, for a money budget, cost) against parameters, with the budget as a line. */
export function drawDays(el, r) {
  return plot(el, (t) => daysChart(el, r, t));
}

function daysChart(el, r, t) {
  const curve = r.curve;
  const s = r.scaling;
  const ratio = s.rule === 'tokens_per_param';
  const money = r.budget.kind === 'money';
  const px = curve.map((c) => c.params);
  const unit = money ? (x) => fmt.usd(x) : (x) => fmt.days(x);
  const budgetValue = money ? r.budget.usd : r.budget.days;
  // Money budget: what each size costs; otherwise how long it takes, both at the simulated speed.
  const flopY = curve.map((c) => (c.has_plan ? orNull(money ? c.cost_flop_only_usd : c.days_flop_only) : null));
  const traces = [{
    type: 'scatter', mode: 'lines+markers', name: 'FLOP-only tokens, simulated plan', x: px, y: flopY,
    line: { color: COLORS.flop, width: 2 }, marker: { color: COLORS.flop, size: 6 },
    text: curve.map((c) => (c.has_plan ? `${fmt.count(c.params)} parameters on ${fmt.count(c.tokens_flop_only)} tokens: ${unit(money ? c.cost_flop_only_usd : c.days_flop_only)}<br>${fmt.planLabel(c.plan)} · MFU ${fmt.percent(c.mfu)}` : '')),
    hovertemplate: '%{text}<extra></extra>',
  }];
  let ratioY = [];
  if (ratio) {
    const k = s.tokens_per_param;
    // The days, or the cost, of the ratio's tokens at the size's plan.
    ratioY = curve.map((c) => (c.has_plan ? orNull(money ? c.cost_at_ratio_usd : c.days_at_ratio) : null));
    traces.push({
      type: 'scatter', mode: 'lines+markers', name: `${fmt.asGiven(k)} tokens per parameter`, x: px, y: ratioY,
      line: { color: COLORS.achievable, width: 2 },
      marker: { color: curve.map((c) => (c.within_budget_at_ratio ? COLORS.achievable : t.panel)), size: 7, line: { color: COLORS.achievable, width: 1.5 } },
      text: curve.map((c, i) => (c.has_plan ? `${fmt.count(c.params)} parameters on ${fmt.count(c.tokens_at_ratio)} tokens: ${unit(ratioY[i])}, ${c.within_budget_at_ratio ? 'within' : 'over'} the budget` : '')),
      hovertemplate: '%{text}<extra></extra>',
    });
  }
  const f = r.flop_only;
  const a = r.achievable;
  const fy = money ? f.cost_usd : f.training_days;
  traces.push(star(true, f.params, fy, COLORS.flop, `FLOP-only answer: ${fmt.count(f.params)} parameters, ${unit(fy)}`, fmt.count(f.params), false, t));
  if (a) {
    const ay = money ? a.cost_usd : a.training_days;
    traces.push(star(false, a.params, ay, COLORS.achievable, `achievable answer: ${fmt.count(a.params)} parameters, ${unit(ay)}`, fmt.count(a.params), true, t));
  }
  const ys = [...flopY, ...ratioY, fy, budgetValue, a ? (money ? a.cost_usd : a.training_days) : null].filter((y) => finite(y) && y > 0);
  const height = 300;
  const tickLabel = money ? (v) => `$${tickNumber(v)}` : (v) => `${tickNumber(v)} d`;
  const yTicks = ys.length ? logTicks(Math.min(...ys), Math.max(...ys), tickLabel, Math.max(2, Math.floor((height - 60) / 28))) : {};
  const room = legendRoom(el, legendItems(traces));
  const budgetLabel = money ? `budget ${fmt.usd(budgetValue)}` : `budget ${fmt.daysGiven(budgetValue)}`;
  return {
    traces,
    layout: {
      ...LAYOUT,
      margin: { l: 62, r: 14, t: 10, b: room },
      xaxis: xAxis(el, curve),
      yaxis: { title: { text: money ? 'cost' : 'training time' }, type: 'log', zeroline: false, ...yTicks },
      shapes: finite(budgetValue) && budgetValue > 0
        ? [{ type: 'line', xref: 'paper', yref: 'y', x0: 0, x1: 1, y0: budgetValue, y1: budgetValue, line: { color: COLORS.budget, width: 2, dash: 'dash' } }]
        : [],
      annotations: finite(budgetValue) && budgetValue > 0
        ? [{ xref: 'paper', yref: 'y', x: 0, y: Math.log10(budgetValue), xanchor: 'left', yanchor: 'bottom', showarrow: false, text: budgetLabel, font: { size: 11, color: COLORS.budget } }]
        : [],
    },
    config: VIEW_CONFIG,
    fit: { top: 310, below: 40 },
  };
}

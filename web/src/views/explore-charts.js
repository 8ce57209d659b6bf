// The Explore view's chart: training time against cost on log axes, a point per timed plan,
// grouped by whether it can run, the time-cost frontier as a line of stars, and rings around
// "your plan" and the best plan for the objective. A click on a point opens its plan.
import * as fmt from '../format.js';
import { OBJECTIVES } from '../choices.js';
import { bottomRoom, logTicks, plot, tickNumber, VIEW_CONFIG, VIEW_LEGEND } from '../charts.js';
import { compare, feasible, planStatus, samePlan } from './explore-plans.js';

/**
 * Draws sweep result `r` into `el`; `mine` is the plan the Plan view shows (or null), and
 * `onOpen(plan)` is called with the plan of a clicked point.
 */
export async function drawScatter(el, r, { mine, onOpen }) {
  const Plotly = await plot(el, (t) => scatter(el, r, mine, t));
  // The click handler outlives this drawing: it opens the plan of whatever result is drawn now.
  el.scatterOpen = (i) => onOpen(r.plans[i]);
  if (!el.dataset.wired) {
    el.dataset.wired = '1';
    el.on('plotly_click', (ev) => {
      const pt = ev.points && ev.points[0];
      if (pt && Number.isInteger(pt.customdata) && pt.customdata >= 0) el.scatterOpen(pt.customdata);
    });
  }
  document.body.dataset.scatter = String(performance.now());
  return Plotly;
}

function scatter(el, r, mine, t) {
  const timed = r.plans.map((p, i) => [p, i]).filter(([p]) => p.simulated && p.training_days > 0 && p.cost_usd > 0);
  const hover = ([p]) => `${fmt.planLabel(p)} · ${fmt.gpus(p.num_gpus)}<br>${fmt.days(p.training_days)} · ${fmt.usd(p.cost_usd)} · MFU ${fmt.percent(p.mfu)}<br>iteration ${fmt.duration(p.iteration_time_s)} · ${fmt.gib(p.memory_GiB)} per GPU${feasible(p) ? '' : ` · ${planStatus(p)}`}`;
  const group = (name, items, style) => ({
    type: 'scatter',
    mode: 'markers',
    name: `${name} (${items.length})`,
    x: items.map(([p]) => p.training_days),
    y: items.map(([p]) => p.cost_usd),
    customdata: items.map(([, i]) => i),
    text: items.map(hover),
    hovertemplate: '%{text}<extra></extra>',
    ...style,
  });
  const frontier = timed.filter(([p]) => p.pareto).sort((a, b) => compare(a[0].training_days, b[0].training_days));
  const traces = [];
  const over = timed.filter(([p]) => !p.within_gpu_limit);
  const unfit = timed.filter(([p]) => p.within_gpu_limit && !p.fits_in_memory);
  const ok = timed.filter(([p]) => feasible(p) && !p.pareto);
  if (over.length) traces.push(group('over the GPU budget', over, { marker: { color: '#c3c8cf', size: 7, symbol: 'x-thin', line: { color: '#aab1ba', width: 1.5 } } }));
  if (unfit.length) traces.push(group('does not fit in memory', unfit, { marker: { color: '#c3c8cf', size: 7, opacity: 0.8 } }));
  // The status line counts every plan that can run; the frontier's are drawn as stars.
  if (ok.length) traces.push(group(frontier.length ? 'can run, off the frontier' : 'can run', ok, { marker: { color: '#4c78a8', size: 8, opacity: 0.75 } }));
  if (frontier.length) {
    traces.push(group('time–cost frontier', frontier, {
      mode: 'lines+markers',
      marker: { color: '#e45756', size: 12, symbol: 'star', line: { color: '#8c2a25', width: 1 } },
      line: { color: '#e45756', width: 1.5, dash: 'dot', shape: 'hv' },
    }));
  }
  if (mine && mine.simulated) {
    traces.push({
      type: 'scatter', mode: 'markers', name: 'your plan', x: [mine.training_days], y: [mine.cost_usd],
      customdata: [r.plans.findIndex((p) => samePlan(p, mine))],
      marker: { color: 'rgba(0,0,0,0)', size: 20, line: { color: t.ink, width: 2 } },
      hovertemplate: `your plan: ${fmt.planLabel(mine)}<extra></extra>`,
    });
  }
  const best = r.best;
  if (best && best.simulated) {
    const what = r.question.objective === 'deadline' ? `cheapest within ${fmt.daysGiven(r.question.deadline_days)}`
      : r.question.objective === 'balanced' ? 'balanced' : OBJECTIVES[r.question.objective]?.short.replace(/^the /, '');
    traces.push({
      type: 'scatter', mode: 'markers', name: `best: ${what}`, x: [best.training_days], y: [best.cost_usd],
      customdata: [best.index],
      marker: { color: 'rgba(0,0,0,0)', size: 26, symbol: 'diamond', line: { color: t.ok, width: 2.5 } },
      hovertemplate: `best, ${what}: ${fmt.planLabel(best)}<br>${fmt.days(best.training_days)} · ${fmt.usd(best.cost_usd)}<extra></extra>`,
    });
  }
  // The deadline as a vertical line, when it is the objective: the one given, or the balanced
  // objective's, a quarter more days than the fastest plan.
  const balanced = r.question.objective === 'balanced' && r.best_time;
  const deadline = r.question.objective === 'deadline' ? r.question.deadline_days
    : balanced ? r.best_time.training_days * (1 + r.question.time_slack) : null;
  const shapes = [];
  const annotations = [];
  if (deadline > 0) {
    shapes.push({ type: 'line', xref: 'x', yref: 'paper', x0: deadline, x1: deadline, y0: 0, y1: 1, line: { color: t.ok, width: 1.5, dash: 'dash' } });
    annotations.push({ xref: 'x', yref: 'paper', x: Math.log10(deadline), y: 1, yanchor: 'top', xanchor: 'left', showarrow: false, text: balanced ? ` fastest + ${fmt.percent(r.question.time_slack, 0)}` : ` deadline ${fmt.daysGiven(deadline)}`, font: { size: 11, color: t.ok } });
  }
  const xs = timed.map(([p]) => p.training_days).concat(deadline > 0 ? [deadline] : []);
  const ys = timed.map(([p]) => p.cost_usd);
  const width = el.clientWidth || 600;
  const height = el.clientHeight || 400;
  const xTicks = logTicks(Math.min(...xs), Math.max(...xs), (v) => `${tickNumber(v)} d`, Math.max(2, Math.floor((width - 90) / 60)));
  const yTicks = logTicks(Math.min(...ys), Math.max(...ys), (v) => `$${tickNumber(v)}`, Math.max(2, Math.floor((height - 110) / 28)));
  return {
    traces,
    layout: {
      hovermode: 'closest',
      // The ticks and the legend, and the axis title.
      margin: { l: 70, r: 14, t: 10, b: bottomRoom(el, traces.map((x) => x.name)) + 24 },
      xaxis: { title: { text: 'training time' }, type: 'log', zeroline: false, ...xTicks },
      yaxis: { title: { text: 'cost' }, type: 'log', zeroline: false, ...yTicks },
      legend: VIEW_LEGEND,
      shapes,
      annotations,
    },
    config: VIEW_CONFIG,
    fit: { below: 54 },
  };
}

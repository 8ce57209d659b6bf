// The card an embedded page (?embed=1) shows instead of the Plan view: the model and plan, four
// numbers, the iteration's breakdown as one bar, and a link to the full page.
import { h } from '../form.js';
import * as fmt from '../format.js';
import { PARTS } from './plan-charts.js';

const $ = (id) => document.getElementById(id);

/** Fills the card (#embed-card) from result `r`; `title` and `sub` name the model and the plan. */
export function renderCard(r, { title, sub, link }) {
  $('card-title').textContent = title;
  $('card-sub').textContent = sub;
  $('card-iteration').textContent = fmt.duration(r.iteration_time_s);
  $('card-days').textContent = r.training ? fmt.days(r.training_days) : fmt.DASH;
  $('card-cost').textContent = r.cost_usd != null ? fmt.usd(r.cost_usd) : fmt.DASH;
  $('card-mfu').textContent = fmt.percent(r.mfu);
  const bar = $('card-bar');
  const legend = $('card-legend');
  bar.textContent = '';
  legend.textContent = '';
  for (const p of PARTS) {
    const v = r.breakdown_s[p.key];
    if (!(v > 0)) continue;
    const share = v / r.iteration_time_s;
    bar.append(h('span', { style: `width:${(share * 100).toFixed(3)}%;background:${p.color}`, title: `${p.label} ${fmt.percent(share)}` }));
    if (share >= 0.02) legend.append(h('li', {}, h('i', { style: `background:${p.color}` }), `${p.label} ${fmt.percent(share, 0)}`));
  }
  const memory = r.fits_in_memory ? `${fmt.gib(r.memory_GiB.total)} of ${fmt.gib(r.memory_capacity_GiB)} per GPU` : 'does not fit in GPU memory';
  $('card-status').textContent = r.accuracy
    ? `${memory} · ±${fmt.percent(r.accuracy.mape_percent / 100)} on ${r.accuracy.set === 'published' ? 'published' : 'measured'} runs`
    : memory;
  $('card-open').href = link;
}

/** The card's line when the inputs of the link are not valid. */
export function cardStatus(text) {
  $('card-status').textContent = text;
}

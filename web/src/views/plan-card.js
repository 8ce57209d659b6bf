// The card an embedded page (?embed=1) shows instead of the Plan view: the model and plan, four
// numbers, the iteration's breakdown as one bar, and a link to the full page.
import { h } from '../form.js';
import * as fmt from '../format.js';
import { PARTS } from './plan-charts.js';
import { accuracyShort } from '../accuracy.js';

const $ = (id) => document.getElementById(id);

/** Fills the card (#embed-card) from result `r`; `title` and `sub` name the model and the plan. */
export function renderCard(r, { title, sub, link }) {
  $('card-title').textContent = title;
  $('card-sub').textContent = sub;
  $('card-iteration').textContent = fmt.duration(r.iteration_time_s);
  $('card-days').textContent = r.training ? fmt.days(r.training_days) : fmt.DASH;
  $('card-cost').textContent = r.cost_usd != null ? fmt.usd(r.cost_usd) : fmt.DASH;
  $('card-mfu').textContent = fmt.percent(r.mfu);
  // A plan that does not fit in memory cannot run: its figures are shown, but not as an answer.
  $('embed-card').classList.toggle('unfit', !r.fits_in_memory);
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
  const memory = r.fits_in_memory
    ? `${fmt.gib(r.memory_GiB.total).replace(/ GiB$/, '')} of ${fmt.gib(r.memory_capacity_GiB)} per GPU`
    : `Cannot run: needs ${fmt.gib(r.memory_GiB.total)} of the GPU's ${fmt.gib(r.memory_capacity_GiB)}`;
  $('card-status').textContent = memory;
  $('card-accuracy').textContent = r.accuracy ? `${accuracyShort(r)}.` : '';
  $('card-accuracy').hidden = !r.accuracy;
  $('card-open').href = link;
}

/** The card's line when the inputs of the link are not valid. */
export function cardStatus(text) {
  $('card-status').textContent = text;
}

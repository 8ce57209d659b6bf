// Price presets: published on-demand and reserved prices per GPU-hour for each GPU profile
// (data/prices.json, each with its source and date), offered in a list beside a price field. The
// price the user typed stays the field's value until a preset is picked, and the list shows
// "your price" while it matches none.
import data from './data/prices.json';
import { h } from './form.js';
import * as fmt from './format.js';

/** The presets of GPU profile `gpu`: [{id, name, kind, usd_per_gpu_hour, source, as_of, ...}]. */
export function pricesFor(gpu) {
  return data.gpus[gpu] || [];
}

const KIND = { 'on-demand': 'On demand', reserved: 'Reserved' };

// The price as the field shows it once picked: cents, or up to four decimals where the price has
// them (Google Cloud's $10.4365), so the picked preset still matches the field.
export const priceText = (p) => String(Number(p.usd_per_gpu_hour.toFixed(4)));

const host = (url) => url.replace(/^https?:\/\//, '').replace(/\/$/, '');

/** "aws.amazon.com/ec2/pricing/on-demand, 2026-11-09: $21.96 an hour for 8 GPUs, US East (N. Virginia)". */
export function sourceText(p) {
  const inst = p.instance_usd_per_hour ? `: $${p.instance_usd_per_hour.toFixed(2)} an hour for ${p.gpus_per_instance} GPUs` : '';
  return `${host(p.source)}, ${p.as_of}${inst}${p.region ? `, ${p.region}` : ''}${p.note ? `; ${p.note}` : ''}`;
}

/**
 * A preset list for a price field, drawn into `field` (the price input's .field): a select and a
 * line naming the chosen preset's source. `read()` gives {gpu, price (the field's text)};
 * `pick(text)` sets the field to a preset's price. Returns {update()}, to call when the GPU or the
 * price changed.
 */
export function pricePresets(field, { id, read, pick }) {
  const select = h('select', { id, 'aria-label': 'Price preset' });
  const source = h('p', { class: 'help price-source', id: `${id}-source` });
  const link = h('a', { target: '_blank', rel: 'noopener noreferrer' });
  field.append(h('div', { class: 'control price-preset' }, select), source);

  function matching(presets, text) {
    const v = fmt.parseNumber(text);
    return v == null ? null : presets.find((p) => Number(priceText(p)) === v) || null;
  }

  function update() {
    const { gpu, price } = read();
    const presets = pricesFor(gpu);
    const match = matching(presets, price);
    select.textContent = '';
    const own = fmt.parseNumber(price);
    select.append(h('option', { value: '', text: own != null ? `Your price, ${fmt.usd(own)} per GPU-hour` : 'Your price' }));
    for (const kind of Object.keys(KIND)) {
      const group = presets.filter((p) => p.kind === kind);
      if (!group.length) continue;
      const og = h('optgroup', { label: KIND[kind] });
      for (const p of group) og.append(h('option', { value: p.id, text: `${p.name} · ${fmt.usd(p.usd_per_gpu_hour)} (${p.as_of})` }));
      select.append(og);
    }
    select.value = match ? match.id : '';
    select.disabled = presets.length === 0;
    source.textContent = '';
    if (match) {
      link.href = match.source;
      link.textContent = host(match.source);
      source.append('Source: ', link, sourceText(match).slice(host(match.source).length));
    } else {
      source.textContent = presets.length ? `${presets.length} published prices for this GPU, each with its source and date` : 'No published prices for this GPU';
    }
  }

  select.addEventListener('change', () => {
    const p = pricesFor(read().gpu).find((x) => x.id === select.value);
    if (p) pick(priceText(p));
    update();
  });
  update();
  return { update };
}

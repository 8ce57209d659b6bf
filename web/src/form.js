// What every form of the page shares: building elements, an input with its label, unit, help and
// error line, and showing the simulator's errors beside the fields their JSON pointers name.
import { parseNumber } from './format.js';
import { termButton } from './glossary.js';

/** document.createElement with attributes (`text`, `class`, `on…` listeners) and children. */
export function h(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v == null || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children) if (c != null) e.append(c);
  return e;
}

/**
 * One input: f = {id, key, label, kind: int | number | select | bool | list, unit?, help?, options?, wide?,
 * term?}. Its error line is #<id>-err, its help #<id>-help, the page's note on it #<id>-note
 * (a value it changed) and #<id>-why (why it changes nothing); `term` adds the glossary's "?".
 */
export function fieldElement(f) {
  const describedBy = [f.help ? `${f.id}-help` : null, `${f.id}-err`, `${f.id}-note`, `${f.id}-why`].filter(Boolean).join(' ');
  let control;
  if (f.kind === 'bool') {
    control = h(
      'div',
      { class: 'control' },
      h('input', { type: 'checkbox', id: f.id, name: f.key, 'aria-describedby': describedBy }),
      h('label', { for: f.id, text: f.label }),
      f.term ? termButton(f.term) : null,
    );
  } else if (f.kind === 'select') {
    const sel = h('select', { id: f.id, name: f.key, 'aria-describedby': describedBy });
    for (const [value, label] of f.options) sel.append(h('option', { value, text: label }));
    control = h('div', { class: 'control' }, sel);
  } else {
    const input = h('input', {
      type: 'text',
      id: f.id,
      name: f.key,
      inputmode: f.kind === 'int' ? 'numeric' : f.kind === 'list' ? 'text' : 'decimal',
      autocomplete: 'off',
      spellcheck: 'false',
      'aria-describedby': describedBy,
    });
    control = h('div', { class: 'control' }, input, f.unit ? h('span', { class: 'unit', text: f.unit }) : null);
  }
  return h(
    'div',
    { class: `field ${f.kind}${f.wide ? ' wide' : ''}`, 'data-key': f.key },
    f.kind === 'bool' ? null : h('div', { class: 'label-row' }, h('label', { for: f.id, text: f.label }), f.term ? termButton(f.term) : null),
    control,
    f.help ? h('p', { class: 'help', id: `${f.id}-help`, text: f.help }) : null,
    h('p', { class: 'error', id: `${f.id}-err`, 'aria-live': 'polite', hidden: true }),
    h('p', { class: 'note', id: `${f.id}-note`, 'aria-live': 'polite', hidden: true }),
    h('p', { class: 'why', id: `${f.id}-why`, hidden: true }),
  );
}

/** Shows why field `f`'s setting changes nothing here (the simulator's no_effect warnings); empty text hides it. */
export function whyField(f, text) {
  const why = document.getElementById(`${f.id}-why`);
  if (!why) return;
  why.textContent = text || '';
  why.hidden = !text;
}

/** Shows `text` under field `f` (an input the page changed, and why); empty text hides it. */
export function noteField(f, text) {
  const note = document.getElementById(`${f.id}-note`);
  if (!note) return;
  note.textContent = text || '';
  note.hidden = !text;
}

/**
 * Shows `errors` ([{pointer, message}]) beside the fields of `fields` that `lookup(pointer)` finds
 * (the field, or null); the rest go to `box`. `message(error, field)` words an error for its place
 * (field null: the box). Returns the number of errors.
 */
export function markFieldErrors({ fields, errors, lookup, message, box }) {
  const general = [];
  const byField = new Map();
  for (const e of errors) {
    const f = lookup(e.pointer);
    if (!f) {
      general.push(message(e, null));
      continue;
    }
    if (!byField.has(f)) byField.set(f, []);
    byField.get(f).push(message(e, f));
  }
  for (const f of fields) {
    const msgs = byField.get(f);
    const input = document.getElementById(f.id);
    const wrap = input?.closest('.field');
    const err = document.getElementById(`${f.id}-err`);
    if (!wrap || !err) continue;
    wrap.classList.toggle('invalid', Boolean(msgs));
    input.setAttribute('aria-invalid', msgs ? 'true' : 'false');
    err.hidden = !msgs;
    err.textContent = msgs ? [...new Set(msgs)].join('\n') : '';
    // An error inside a collapsed group opens it.
    if (msgs) {
      const details = wrap.closest('details');
      if (details) details.open = true;
    }
  }
  if (box) {
    box.hidden = general.length === 0;
    box.textContent = general.join(' ');
  }
  return errors.length;
}

/** The simulator's errors ([{code, pointer, message}]) from a call that failed, or the failure as one. */
export function errorList(e) {
  return e.errors || [{ code: 'internal', pointer: '', message: String(e.message || e) }];
}

/**
 * The number typed into field `f` (text; a leading $ is allowed), or null with its error pushed
 * onto `errors` ({code, pointer, message}, the message after `lead`): none typed (left out where
 * f.optional), not a number, or with `int` not a whole number.
 */
export function typedNumber(f, text, { int = false, errors, lead = '' }) {
  const raw = String(text ?? '').trim().replace(/^\$/, '');
  if (raw === '' && f.optional) return null;
  if (raw === '') {
    errors.push({ code: 'missing', pointer: f.pointer, message: `${lead}enter a value` });
    return null;
  }
  const v = parseNumber(raw);
  if (v == null) errors.push({ code: 'type', pointer: f.pointer, message: `${lead}enter a number` });
  else if (int && !Number.isInteger(v)) errors.push({ code: 'type', pointer: f.pointer, message: `${lead}enter a whole number` });
  else return v;
  return null;
}

/**
 * The field an error pointer belongs to: the pointer's in `byPointer` (a Map), or the nearest
 * above it, among those `shown(f)` says are on screen; null when none is.
 */
export function nearestField(pointer, byPointer, shown = () => true) {
  let p = pointer || '';
  while (p) {
    const f = byPointer.get(p);
    if (f && shown(f)) return f;
    p = p.slice(0, p.lastIndexOf('/'));
  }
  return null;
}

/** Shows `text` in field f's input: a choice it does not offer is added, so that a value from a link stays what it was. */
export function showText(f, input, text) {
  if (f.kind === 'select') {
    if (text !== '' && ![...input.options].some((o) => o.value === text)) input.append(new Option(text, text));
    input.value = text;
  } else if (input.value !== text) {
    input.value = text;
  }
}

// The Plan inputs: model, cluster, parallel plan and training, the form that edits them on the
// left, the example buttons above it, and their part of the page's link. The Plan view simulates
// them; the Explore view sweeps their plans. Values stay the text the user typed; the simulator
// checks them.
//
// Who changes the inputs hears of it through subscribe(): a change is
//   {reason: 'edit', delay}   the user edited a field (simulate after `delay` ms)
//   {reason: 'example', name} an example was loaded
//   {reason: 'replaced'}      a whole config was put in (replace())
// set() changes values silently, for a caller that simulates them itself.
import { FIELDS, SECTIONS, MODEL_KEYS, FIELD_BY_KEY, FIELD_BY_POINTER, applySchema, fieldForPointer, fieldMessage, shortName } from './fields.js';
import * as fmt from './format.js';
import { h, fieldElement, markFieldErrors, noteField, whyField } from './form.js';
import { pricePresets } from './prices.js';
import { hfImportBox, modelLeaves } from './hf-import.js';

// The example a link without inputs opens.
const DEFAULT_EXAMPLE = 'gpt3-175b';

/** A config value as the text of its field. */
export function toText(v) {
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number') return fmt.fieldValue(v);
  if (Array.isArray(v)) return v.map(toText).join(', ');
  return v == null ? '' : String(v);
}

/** The field texts of a config with every field explicit. */
function configValues(config) {
  const values = {};
  for (const f of FIELDS) {
    const v = config[f.section][f.key];
    values[f.key] = v === undefined ? '' : toText(v);
  }
  return values;
}

const positiveInt = (text) => {
  const { value } = fmt.parseCount(text ?? '');
  return value > 0 ? value : null;
};

const count = (n) => n.toLocaleString('en-US');

/** The config the simulator gets from field texts and a model preset, or the fields that are not numbers yet: {config, errors}. */
export function configOf(values, preset) {
  const config = { model: {}, cluster: {}, plan: {}, training: {} };
  const errors = [];
  for (const f of FIELDS) {
    const raw = String(values[f.key] ?? '').trim();
    const out = config[f.section];
    if (f.kind === 'bool') {
      out[f.key] = raw === 'true';
      continue;
    }
    if (f.kind === 'select') {
      out[f.key] = f.numeric ? Number(raw) : raw;
      continue;
    }
    if (raw === '') {
      if (!f.optional) errors.push({ code: 'missing', pointer: f.pointer, message: `${f.pointer}: enter a value` });
      continue;
    }
    if (f.kind === 'list') {
      // Whole numbers separated by commas or spaces ("14, 16, 16, 18"), each checked by the simulator.
      const list = [];
      for (const part of raw.split(/[\s,;]+/).filter(Boolean)) {
        const { value, error } = fmt.parseCount(part);
        if (error) {
          errors.push({ code: 'type', pointer: f.pointer, message: `${f.pointer}: “${part}”: ${error}; separate whole numbers with commas` });
          break;
        }
        list.push(value);
      }
      out[f.key] = list;
      continue;
    }
    if (f.kind === 'int') {
      const { value, error } = fmt.parseCount(raw);
      if (error) errors.push({ code: 'type', pointer: f.pointer, message: `${f.pointer}: ${error}` });
      else out[f.key] = value;
      continue;
    }
    const v = fmt.parseNumber(raw);
    if (v == null) errors.push({ code: 'type', pointer: f.pointer, message: `${f.pointer}: enter a number` });
    else out[f.key] = v;
  }
  config.model.name = preset || 'custom';
  // A preset's fields beyond the form (a mixture of experts' /model/moe) come with its name.
  if (preset) config.model.preset = preset;
  return { config, errors };
}

/**
 * The inputs, drawn into `fields` (the form's field container) with their errors in `errorBox`
 * and the examples as buttons in `examples`; `catalog` is catalog.js's; `importHf(text)` the
 * simulator's Hugging Face import (the model section's import box; none without it).
 */
export function createPlanInputs({ catalog, fields, errorBox, examples, importHf }) {
  let preset = null; // model preset name, or null for a custom shape
  let values = {}; // field key -> text as typed
  let result = null; // the last result these inputs gave, as the Plan view shows it
  let lastEdited = null; // the field the user changed last
  let prices = null; // the price presets beside the price (prices.js)
  const listeners = [];
  const $ = (id) => document.getElementById(id);
  const emit = (change) => {
    for (const fn of listeners) fn(change);
  };

  function presetModel(name) {
    const m = catalog.model(name);
    if (!m) return null;
    const shape = {};
    for (const k of MODEL_KEYS) shape[k] = toText(m.model[k]);
    return shape;
  }

  // The model preset the current shape equals, if any (after an edit, or for a custom link).
  function matchPreset() {
    const names = catalog.models.map((m) => m.name);
    for (const name of preset ? [preset, ...names] : names) {
      const shape = presetModel(name);
      if (shape && MODEL_KEYS.every((k) => shape[k] === (values[k] ?? ''))) return name;
    }
    return null;
  }

  // ---------------------------------------------------------------- the form

  function showValue(f) {
    const input = $(f.id);
    if (!input) return;
    const v = values[f.key] ?? '';
    if (f.kind === 'bool') input.checked = v === 'true';
    else if (f.kind === 'select') {
      if (v !== '' && ![...input.options].some((o) => o.value === v)) input.append(h('option', { value: v, text: v }));
      input.value = v;
    } else if (input.value !== v) input.value = v;
  }

  function showValues(more) {
    Object.assign(values, more);
    for (const f of FIELDS) showValue(f);
    showPreset();
    updatePlaceholders();
    if (prices) prices.update();
  }

  function showPreset() {
    const sel = $('f-model-preset');
    if (sel) sel.value = preset && catalog.model(preset) ? preset : 'custom';
  }

  function updatePlaceholders() {
    const gpu = catalog.profile(values.gpu);
    const intra = $('f-cluster-intra_node_GBps');
    const inter = $('f-cluster-inter_node_Gbps');
    if (intra) intra.placeholder = gpu ? `${gpu.intra_node_GBps} (GPU default)` : '';
    if (inter) inter.placeholder = gpu ? `${gpu.inter_node_Gbps} (GPU default)` : '';
  }

  function renderForm() {
    fields.textContent = '';
    for (const section of SECTIONS) {
      const fs = h('fieldset', { id: `section-${section.id}` }, h('legend', { text: section.title }));
      const grid = h('div', { class: 'grid' });
      if (section.id === 'model') {
        const sel = h('select', { id: 'f-model-preset', name: 'model' });
        for (const m of catalog.models) sel.append(h('option', { value: m.name, text: m.description }));
        sel.append(h('option', { value: 'custom', text: 'Custom shape' }));
        grid.append(
          h('div', { class: 'field select wide' }, h('label', { for: 'f-model-preset', text: 'Preset' }), h('div', { class: 'control' }, sel)),
        );
        sel.addEventListener('change', () => {
          if (sel.value === 'custom') {
            preset = null;
          } else {
            preset = sel.value;
            showValues(presetModel(sel.value));
          }
          emit({ reason: 'edit', delay: 0 });
        });
      }
      const inSection = FIELDS.filter((f) => f.section === section.id);
      for (const f of inSection.filter((x) => !x.advanced)) grid.append(fieldElement(f));
      fs.append(grid);
      if (section.id === 'model' && importHf) fs.append(hfImportBox({ importHf, apply: applyImported }));
      const advanced = inSection.filter((x) => x.advanced);
      if (advanced.length) {
        const more = h('div', { class: 'grid' });
        for (const f of advanced) more.append(fieldElement(f));
        fs.append(h('details', { class: 'more', id: `more-${section.id}` }, h('summary', { text: `More ${section.title.toLowerCase()} options` }), more));
      }
      fields.append(fs);
    }
    fields.addEventListener('input', onFieldEdit);
    fields.addEventListener('change', onFieldEdit);
    // Published prices for the GPU, beside the price.
    const priceField = FIELD_BY_KEY.get('price_per_gpu_hour_usd');
    prices = pricePresets($(priceField.id).closest('.field'), {
      id: 'f-price-preset',
      read: () => ({ gpu: values.gpu, price: values.price_per_gpu_hour_usd ?? '' }),
      pick: (text) => {
        values.price_per_gpu_hour_usd = text;
        showValue(priceField);
        lastEdited = priceField;
        clearNotes();
        emit({ reason: 'edit', delay: 0 });
      },
    });
  }

  // A Hugging Face config.json's model (hf-import.js) in the model's fields: each value whose
  // pointer names a field, the schema's default in a model field the import leaves out (the
  // vocabulary padding); returns the model's parts the form has no field for (/model/moe).
  function applyImported(model) {
    const left = new Set();
    const leaves = modelLeaves(model);
    const given = new Set(leaves.map(([pointer]) => pointer));
    for (const f of FIELDS) {
      const spec = catalog.schema.config.model?.fields?.[f.key];
      if (f.section === 'model' && !given.has(f.pointer) && spec && spec.default !== undefined) values[f.key] = toText(spec.default);
    }
    for (const [pointer, v] of leaves) {
      if (pointer === '/model/name') continue;
      const f = FIELD_BY_POINTER.get(pointer);
      if (f) values[f.key] = toText(v);
      else left.add(pointer.split('/').slice(0, 3).join('/'));
    }
    lastEdited = null;
    clearNotes();
    preset = matchPreset();
    showValues({});
    emit({ reason: 'edit', delay: 0 });
    return [...left];
  }

  function onFieldEdit(event) {
    const target = event.target;
    const f = FIELD_BY_KEY.get(target.name);
    if (!f || target.id !== f.id) return;
    if (event.type === 'input' && (f.kind === 'select' || f.kind === 'bool')) return;
    if (event.type === 'change' && f.kind !== 'select' && f.kind !== 'bool') return;
    values[f.key] = f.kind === 'bool' ? String(target.checked) : target.value;
    lastEdited = f;
    clearNotes();
    keepGpusInStep(f.key);
    if (f.key === 'gpu') updatePlaceholders();
    if (f.key === 'gpu' || f.key === 'price_per_gpu_hour_usd') prices.update();
    if (f.section === 'model') {
      preset = matchPreset();
      showPreset();
    }
    emit({ reason: 'edit', delay: f.kind === 'select' || f.kind === 'bool' ? 0 : 200 });
  }

  // GPUs = tp × pp × dp. What the user typed stays; the one input that makes the product hold is
  // changed, and a note under it says so: a new tp or pp (or GPU count) sets dp when the GPUs
  // divide evenly, a new dp sets the GPUs. Where no whole dp fits (tp 7 on 2,048 GPUs), nothing
  // else changes and the simulator reports the conflict beside the GPUs.
  function keepGpusInStep(key) {
    if (!['tp', 'cp', 'pp', 'dp', 'num_gpus'].includes(key)) return;
    const [n, tp0, pp, dp] = ['num_gpus', 'tp', 'pp', 'dp'].map((k) => positiveInt(values[k]));
    // Context parallelism multiplies the GPUs as tp does; the product is named with it where it is on.
    const cp = positiveInt(values.cp ?? '1') || 1;
    const tp = tp0 && tp0 * cp;
    const product = cp > 1 ? 'tp × cp × pp × dp' : 'tp × pp × dp';
    if (!tp || !pp) return;
    if (key === 'dp') {
      if (!dp || n === tp * pp * dp) return;
      const before = values.num_gpus;
      values.num_gpus = String(tp * pp * dp);
      showValue(FIELD_BY_KEY.get('num_gpus'));
      noteField(FIELD_BY_KEY.get('num_gpus'), `Changed${before ? ` from ${before}` : ''} to ${count(tp * pp * dp)} = ${product}.`);
      return;
    }
    if (!n || n % (tp * pp) !== 0 || n / (tp * pp) === dp) return;
    const before = values.dp;
    values.dp = String(n / (tp * pp));
    showValue(FIELD_BY_KEY.get('dp'));
    noteField(FIELD_BY_KEY.get('dp'), `Changed${before ? ` from ${before}` : ''} to ${count(n / (tp * pp))}, so that ${product} keeps the ${count(n)} GPUs.`);
  }

  function clearNotes() {
    for (const f of FIELDS) noteField(f, '');
  }

  // ---------------------------------------------------------------- examples

  function exampleLabel(ex) {
    const m = catalog.model(typeof ex.config.model === 'string' ? ex.config.model : ex.config.model.name);
    // Context parallelism sets apart examples of one model on as many GPUs (Llama 3 70B on 64 H100s).
    const cp = ex.config.plan.cp > 1 ? ` · context parallel ${ex.config.plan.cp}` : '';
    return `${m ? m.description : ex.name} · ${fmt.gpus(ex.config.cluster.num_gpus)}${cp}`;
  }

  function renderExamples() {
    for (const ex of catalog.examples) {
      examples.append(
        h('button', {
          type: 'button',
          'data-example': ex.name,
          title: ex.description,
          'aria-pressed': 'false',
          text: exampleLabel(ex),
          onclick: () => loadExample(ex.name),
        }),
      );
    }
  }

  function loadExample(name) {
    const ex = catalog.example(name);
    if (!ex) return;
    preset = ex.config.model.name;
    values = {};
    lastEdited = null;
    clearNotes();
    showValues(configValues(ex.config));
    emit({ reason: 'example', name });
  }

  // An example's button is pressed while the result shown is the example's.
  function updateExamplesPressed() {
    for (const b of examples.querySelectorAll('button')) {
      const ex = catalog.example(b.dataset.example);
      const want = configValues(ex.config);
      const same = preset === ex.config.model.name && FIELDS.every((f) => (want[f.key] ?? '') === (values[f.key] ?? ''));
      b.setAttribute('aria-pressed', String(same));
    }
  }

  applySchema(catalog);
  renderForm();
  renderExamples();

  return {
    /** Field key -> text as typed. */
    get values() {
      return values;
    },
    /** The model preset the shape is, or null for a custom shape. */
    get preset() {
      return preset;
    },
    /** The last result these inputs gave, once the Plan view has shown it (null before). */
    get result() {
      return result;
    },
    /** Subscribes `fn(change)` to the changes listed at the top of this file. */
    subscribe(fn) {
      listeners.push(fn);
    },

    /** The config the simulator gets, or the fields that are not numbers yet: {config, errors}. */
    config() {
      return configOf(values, preset);
    },

    /** Whether `key` is an input's key. */
    knows: (key) => FIELD_BY_KEY.has(key),

    /** The inputs as they are now, to be put back (restore) or simulated (configOf) later. */
    snapshot() {
      return { preset, values: { ...values } };
    },

    /** Puts back a snapshot(), and says so to the subscribers as an example would. */
    restore(snap) {
      preset = snap.preset;
      values = { ...snap.values };
      lastEdited = null;
      clearNotes();
      showValues({});
      emit({ reason: 'replaced' });
    },

    /**
     * A snapshot's inputs for a link: [key, text] pairs of the fields (and the model) where it
     * differs from the inputs now.
     */
    differences(snap) {
      const out = [];
      if ((snap.preset || 'custom') !== (preset || 'custom')) out.push(['model', snap.preset || 'custom']);
      for (const f of FIELDS) {
        const a = snap.values[f.key] ?? '';
        if (a !== (values[f.key] ?? '')) out.push([f.key, a]);
      }
      return out;
    },

    /** The snapshot of the inputs now with `pairs` ([key, text], as differences() gives) over them. */
    overlay(pairs) {
      const snap = { preset, values: { ...values } };
      for (const [k, v] of pairs) {
        if (k === 'model') {
          snap.preset = v === 'custom' || !catalog.model(v) ? null : v;
          const shape = snap.preset ? presetModel(snap.preset) : null;
          if (shape) Object.assign(snap.values, shape);
        } else if (FIELD_BY_KEY.has(k)) {
          snap.values[k] = v;
        }
      }
      // Fields named after the model keep their value over the preset's shape.
      for (const [k, v] of pairs) if (FIELD_BY_KEY.has(k)) snap.values[k] = v;
      return snap;
    },

    /**
     * Shows `errors` ([{pointer, message}]) beside their fields, the rest above the form. An
     * error about another field that names the field the user just changed ("hidden size must
     * be divisible by heads (100)" after heads was edited) is shown beside that field too.
     */
    showErrors(errors) {
      const named = lastEdited
        ? errors
          .filter((e) => e.pointer !== lastEdited.pointer && String(e.message).includes(`${lastEdited.pointer} `) && fieldForPointer(e.pointer))
          .map((e) => ({ ...e, pointer: lastEdited.pointer, message: `${shortName(e.pointer)} ${fieldMessage(e.message, e.pointer).replace(/^./, (c) => c.toLowerCase())}` }))
        : [];
      errors = [...errors, ...named];
      return markFieldErrors({
        fields: FIELDS,
        errors,
        lookup: fieldForPointer,
        message: (e, f) => fieldMessage(e.message, f ? (f.pointer === e.pointer ? e.pointer : null) : e.pointer),
        box: errorBox,
      });
    },

    /**
     * Says beside each field why its setting changes nothing here: the simulator's no_effect
     * warnings ([{pointer, message}]); the fields without one are cleared.
     */
    showWhy(warnings) {
      for (const f of FIELDS) {
        const own = warnings.filter((w) => w.pointer === f.pointer).map((w) => fieldMessage(w.message, null));
        whyField(f, own.join(' '));
      }
    },

    /** Sets some fields (text by key) without telling anyone: the caller simulates them. */
    set(more) {
      showValues(more);
    },

    /** Puts in a whole config (every field explicit), its preset found from the shape. */
    replace(config) {
      preset = null;
      values = configValues(config);
      preset = matchPreset();
      showValues({});
      emit({ reason: 'replaced' });
    },

    /** Loads the example called `name`. */
    loadExample,

    /** The Plan view shows `r`, the result of these inputs. */
    setResult(r) {
      result = r;
      updateExamplesPressed();
    },

    /** The inputs for a link: [key, text] pairs; the model's shape only where it differs from the preset. */
    state() {
      const shape = preset ? presetModel(preset) : null;
      const out = [['model', preset || 'custom']];
      for (const f of FIELDS) {
        const v = values[f.key];
        if (v == null || v === '') continue;
        if (f.section === 'model' && shape && MODEL_KEYS.includes(f.key) && shape[f.key] === v) continue;
        out.push([f.key, v]);
      }
      return out;
    },

    /**
     * The inputs a link names (URLSearchParams), over the default example; returns the [key, value]
     * pairs it did not know.
     */
    applyState(query) {
      const ignored = [];
      const base = catalog.example(DEFAULT_EXAMPLE) || catalog.examples[0];
      const named = {};
      for (const f of FIELDS) if (query.has(f.key)) named[f.key] = query.get(f.key);
      const model = query.get('model') || null;
      preset = base.config.model.name;
      values = configValues(base.config);
      if (query.has('model') || Object.keys(named).length > 0) {
        // A link that names a model with an example starts from that example, not from GPT-3's plan.
        const own = catalog.examples.find((e) => e.config.model.name === model);
        if (own) values = configValues(own.config);
        if (model && model !== 'custom') {
          preset = model;
          const shape = presetModel(model);
          if (shape) Object.assign(values, shape);
          else {
            ignored.push(['model', model]);
            preset = null;
          }
        } else {
          preset = null;
        }
        Object.assign(values, named);
        // A GPU the page has no profile for falls back to the example's, as an unknown model does.
        if (named.gpu != null && !catalog.profile(named.gpu)) {
          ignored.push(['gpu', named.gpu]);
          values.gpu = (own || base).config.cluster.gpu;
        }
        // A hand-written link that sets a parallel degree but not the GPU count gets the product,
        // as editing the degree in the form does.
        const degrees = ['tp', 'pp', 'dp', 'cp'].map((k) => fmt.parseNumber(values[k] ?? '1'));
        if (named.num_gpus == null && ['tp', 'pp', 'dp', 'cp'].some((k) => named[k] != null) && degrees.every((d) => Number.isInteger(d) && d > 0)) {
          values.num_gpus = String(degrees[0] * degrees[1] * degrees[2] * degrees[3]);
        }
        if (preset && !MODEL_KEYS.every((k) => presetModel(preset)[k] === values[k])) preset = matchPreset();
      }
      showValues({});
      return ignored;
    },
  };
}

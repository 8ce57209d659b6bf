// "Import a Hugging Face config.json" in the model section: paste the file's text or drop the file,
// and the simulator (vtrain.importHf) reads it into the model's fields; what it could not map, and
// what it assumed, is listed under the box, each with the field of the Hugging Face file it names.
import { h } from './form.js';

/** Each leaf of the imported model as [JSON pointer under /model, value]: /model/layers, /model/moe/experts. */
export function modelLeaves(model, base = '/model') {
  const out = [];
  for (const [k, v] of Object.entries(model || {})) {
    const at = `${base}/${k}`;
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) out.push(...modelLeaves(v, at));
    else out.push([at, v]);
  }
  return out;
}

/**
 * The import box, a collapsed <details>. `importHf(text)` is the simulator's call (it resolves to
 * {model, architecture, warnings} or throws a VtrainError); `apply(model)` puts the imported model
 * into the fields and returns the pointers of the values the form has no field for.
 */
export function hfImportBox({ importHf, apply }) {
  const text = h('textarea', {
    id: 'hf-text',
    rows: '4',
    spellcheck: 'false',
    autocomplete: 'off',
    placeholder: '{"architectures": ["LlamaForCausalLM"], "hidden_size": 4096, …}',
    'aria-describedby': 'hf-status',
  });
  const file = h('input', { type: 'file', id: 'hf-file', accept: '.json,application/json', class: 'hf-file-input' });
  const go = h('button', { type: 'button', id: 'hf-go', text: 'Import' });
  const status = h('p', { id: 'hf-status', class: 'hf-status', role: 'status', 'aria-live': 'polite' });
  const notes = h('ul', { id: 'hf-warnings', class: 'hf-warnings' });
  const drop = h(
    'div',
    { class: 'hf-drop', id: 'hf-drop' },
    h('label', { for: 'hf-text', text: 'Paste its text, or drop the file here' }),
    text,
    h('div', { class: 'hf-actions' }, go, h('label', { class: 'hf-file', for: 'hf-file', text: 'Choose a file…' }), file),
  );
  const box = h(
    'details',
    { class: 'hf-import', id: 'hf-import' },
    h('summary', { text: 'Import a Hugging Face config.json' }),
    drop,
    status,
    notes,
  );

  function say(message, bad = false) {
    status.textContent = message;
    status.classList.toggle('bad', bad);
  }

  function list(items) {
    notes.textContent = '';
    for (const { pointer, message } of items) {
      const head = `${pointer || '/'}: `;
      const rest = message.startsWith(head) ? message.slice(head.length) : message;
      notes.append(h('li', {}, pointer ? h('code', { text: pointer }) : null, pointer ? ' ' : null, rest));
    }
  }

  async function run() {
    const source = text.value;
    if (!source.trim()) {
      say('Paste a config.json first, or drop the file here.', true);
      list([]);
      return;
    }
    go.disabled = true;
    try {
      const r = await importHf(source);
      const left = apply(r.model);
      const m = r.model;
      const leftOut = left.map((pointer) => ({
        pointer: '',
        message: `This page has no field for ${pointer}: it is left out here (vtrain simulate --hf keeps it).`,
      }));
      const count = r.warnings.length + leftOut.length;
      say(`Imported ${r.architecture}: ${m.layers} layers, hidden ${m.hidden}, ${m.heads} heads${count ? ` · ${count} note${count > 1 ? 's' : ''}:` : '.'}`);
      list([...leftOut, ...r.warnings]);
    } catch (e) {
      const errors = Array.isArray(e.errors) ? e.errors : [{ pointer: '', message: String(e.message || e) }];
      say('Could not import it:', true);
      list(errors);
    } finally {
      go.disabled = false;
    }
  }

  async function readFile(f) {
    if (!f) return;
    text.value = await f.text();
    await run();
  }

  go.addEventListener('click', run);
  file.addEventListener('change', () => readFile(file.files[0]));
  drop.addEventListener('dragover', (e) => {
    e.preventDefault();
    drop.classList.add('over');
  });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', (e) => {
    e.preventDefault();
    drop.classList.remove('over');
    readFile(e.dataTransfer && e.dataTransfer.files[0]);
  });
  // Pasting a whole file imports it at once.
  text.addEventListener('paste', () => setTimeout(() => {
    if (text.value.trim().startsWith('{')) run();
  }, 0));
  return box;
}

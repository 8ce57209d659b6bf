// The boundary between JavaScript and the WebAssembly module, shared by the worker and Node.
// The module's calls take and return JSON text; here each becomes a plain reply object
// {ok: true, result} or {ok: false, errors: [{code, pointer, message}]}. Nothing here throws.

/** Calls the module registers, and whether each takes an input document. */
export const CALLS = Object.freeze({
  simulate: true,
  validateConfig: true,
  explore: true,
  optimal: true,
  schedule: true,
  importHf: true,
  presets: false,
  profiles: false,
  version: false,
  schema: false,
});

/** A reply that carries one error. `pointer` is the JSON pointer of the field, '' for the whole input. */
export function failure(code, message, pointer = '') {
  return { ok: false, errors: [{ code, pointer, message }] };
}

function toText(input) {
  if (typeof input === 'string') return input;
  return JSON.stringify(input ?? {});
}

// A UTF-16 surrogate not paired with its other half: it encodes no character, and the module's
// text is UTF-8, into which it has no faithful form (the character after it would be lost).
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function escapePointerToken(key) {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

// The JSON pointer of the first key or string value of `value` holding a lone surrogate, or null.
function surrogatePointer(value, pointer = '') {
  if (typeof value === 'string') return LONE_SURROGATE.test(value) ? pointer : null;
  if (value === null || typeof value !== 'object') return null;
  for (const [key, child] of Object.entries(value)) {
    const at = `${pointer}/${escapePointerToken(key)}`;
    if (LONE_SURROGATE.test(key)) return at;
    const found = surrogatePointer(child, at);
    if (found !== null) return found;
  }
  return null;
}

/**
 * The error reply for an input (JSON text or object) holding a lone UTF-16 surrogate, or null when
 * it is valid Unicode. The error names the key or string holding it by JSON pointer where the
 * text parses, else its line and column.
 */
export function surrogateFailure(input) {
  if (input !== null && typeof input === 'object') {
    // An object: JSON.stringify would escape the surrogate, and the module would refuse the text
    // at its root; here the error names the field.
    const pointer = surrogatePointer(input);
    if (pointer === null) return null;
    return failure('encoding', `${pointer || '/'}: holds a lone UTF-16 surrogate: the text must be valid Unicode`, pointer);
  }
  const text = typeof input === 'string' ? input : '';
  const match = LONE_SURROGATE.exec(text);
  if (!match) return null;
  let pointer = '';
  try {
    pointer = surrogatePointer(JSON.parse(text)) ?? '';
  } catch {
    // not JSON: the error names the character instead
  }
  const before = text.slice(0, match.index);
  const line = before.split('\n').length;
  const column = match.index - before.lastIndexOf('\n');
  const code = match[0].charCodeAt(0).toString(16).toUpperCase();
  return failure(
    'encoding',
    `${pointer || '/'}: holds a lone UTF-16 surrogate (U+${code}) at line ${line}, column ${column}: the text must be valid Unicode`,
    pointer,
  );
}

/**
 * Runs `call` on the raw Embind module. `onProgress(fraction)` receives the progress of explore,
 * optimal and schedule;
 * `shouldStop()`, asked at each progress report, cancels the sweep when it returns true.
 * A JavaScript exception (a module abort, a bad argument) becomes an `internal` error reply;
 * after one the module may be unusable, so the caller should load a fresh one.
 */
export function callModule(mod, call, input, onProgress, shouldStop) {
  if (!Object.hasOwn(CALLS, call)) return failure('unknown_call', `there is no call named "${call}"`);
  if (typeof mod[call] !== 'function') {
    return failure('unsupported', `this build of the module has no "${call}" call`);
  }
  const invalid = CALLS[call] ? surrogateFailure(input) : null;
  if (invalid) return invalid;
  const inputText = CALLS[call] ? toText(input) : '';
  let text;
  try {
    if (call === 'explore' || call === 'optimal' || call === 'schedule') {
      text = mod[call](inputText, (fraction) => {
        if (onProgress) onProgress(fraction);
        return !(shouldStop && shouldStop());
      });
    } else {
      text = CALLS[call] ? mod[call](inputText) : mod[call]();
    }
  } catch (e) {
    return failure('internal', `the simulator stopped: ${e && e.message ? e.message : String(e)}`);
  }
  try {
    const reply = JSON.parse(text);
    if (reply && typeof reply === 'object' && typeof reply.ok === 'boolean') return reply;
  } catch {
    // fall through: the reply is not the documented shape
  }
  return failure('internal', `the simulator returned an unreadable reply to "${call}"`);
}

/** The error every wrapper throws for an `ok: false` reply. */
export class VtrainError extends Error {
  constructor(errors) {
    const list = Array.isArray(errors) && errors.length ? errors : [{ code: 'internal', pointer: '', message: 'unknown error' }];
    super(list.map((e) => e.message).join('\n'));
    this.name = 'VtrainError';
    /** Every diagnostic: [{code, pointer, message}]. */
    this.errors = list;
    /** Code of the first diagnostic, e.g. "divisibility", "cancelled". */
    this.code = list[0].code;
    /** JSON pointer of the first diagnostic, e.g. "/plan/tp". */
    this.pointer = list[0].pointer;
  }
}

/** The result of a reply, or a thrown VtrainError. */
export function unwrap(reply) {
  if (reply.ok) return reply.result;
  throw new VtrainError(reply.errors);
}

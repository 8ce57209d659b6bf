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
  presets: false,
  profiles: false,
  version: false,
});

/** A reply that carries one error. `pointer` is the JSON pointer of the field, '' for the whole input. */
export function failure(code, message, pointer = '') {
  return { ok: false, errors: [{ code, pointer, message }] };
}

function toText(input) {
  if (typeof input === 'string') return input;
  return JSON.stringify(input ?? {});
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
  let text;
  try {
    if (call === 'explore' || call === 'optimal' || call === 'schedule') {
      text = mod[call](toText(input), (fraction) => {
        if (onProgress) onProgress(fraction);
        return !(shouldStop && shouldStop());
      });
    } else {
      text = CALLS[call] ? mod[call](toText(input)) : mod[call]();
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

// The Web Worker that owns one instance of the WebAssembly module.
// Messages in:  {type: 'run', id, call, input}   (call: simulate, explore, optimal, schedule, validateConfig, ...)
// Messages out: {type: 'progress', id, fraction} | {type: 'result', id, result} | {type: 'error', id, errors}
import { createModule } from './module.js';
import { callModule, failure } from './protocol.js';

const loading = createModule().then(
  (mod) => ({ mod }),
  (e) => ({ failed: failure('load_failed', `the WebAssembly module did not load: ${e && e.message ? e.message : e}`) }),
);

// Progress is posted when it moved by a percent or 30 ms passed, so a fast sweep is not flooded.
function progressReporter(id) {
  let lastFraction = -1;
  let lastTime = 0;
  return (fraction) => {
    const now = performance.now();
    if (fraction - lastFraction >= 0.01 || now - lastTime >= 30 || fraction >= 1) {
      lastFraction = fraction;
      lastTime = now;
      self.postMessage({ type: 'progress', id, fraction });
    }
  };
}

self.onmessage = async (event) => {
  const { type, id, call, input } = event.data || {};
  if (type !== 'run') return;
  const loaded = await loading;
  const reply = loaded.failed || callModule(loaded.mod, call, input, progressReporter(id));
  if (reply.ok) self.postMessage({ type: 'result', id, result: reply.result });
  else self.postMessage({ type: 'error', id, errors: reply.errors });
};

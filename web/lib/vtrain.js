// vtrain in the browser: the simulator runs in Web Workers, so the page never blocks.
//
//   import { createVtrain } from 'vtrain';   (in the repository: './web/lib/vtrain.js')
//   const vtrain = await createVtrain();
//   const result = await vtrain.simulate({ model: 'gpt3-175b', plan: { tp: 8, pp: 8, dp: 16, global_batch: 1536 } });
//   const sweep = await vtrain.explore(request, { onProgress: (f) => bar.value = f, signal });
//   const cluster = await vtrain.schedule({ case: 'vtrain-case2' }, { onProgress, signal });
//
// Every call takes and returns plain objects. A config the simulator rejects throws a VtrainError
// whose `errors` list each problem with its JSON pointer ("/plan/tp"); an aborted call throws a
// VtrainError with code "cancelled". Quick calls, low-priority calls and sweeps run in separate
// workers, so a simulation answers while a sweep or a large timeline is being computed.
import { VtrainError } from './protocol.js';

export { VtrainError };

function spawnWorker() {
  return new Worker(new URL('./worker.js', import.meta.url), { type: 'module', name: 'vtrain' });
}

function cancelled() {
  return new VtrainError([{ code: 'cancelled', pointer: '', message: 'the run was cancelled' }]);
}

// One worker and its queue. A job runs when the one before it is done; cancelling the running job
// terminates the worker (the module cannot be interrupted mid-call) and the next job gets a new one.
class Lane {
  constructor(spawn) {
    this.spawn = spawn;
    this.worker = null;
    this.queue = [];
    this.current = null;
    this.nextId = 1;
  }

  run(call, input, { onProgress, signal } = {}) {
    return new Promise((resolve, reject) => {
      if (signal && signal.aborted) {
        reject(cancelled());
        return;
      }
      const job = { id: this.nextId++, call, input, onProgress, resolve, reject, signal };
      if (signal) {
        job.onAbort = () => this.cancel(job);
        signal.addEventListener('abort', job.onAbort, { once: true });
      }
      this.queue.push(job);
      this.pump();
    });
  }

  pump() {
    if (this.current || this.queue.length === 0) return;
    const job = this.queue.shift();
    this.current = job;
    if (!this.worker) this.start();
    this.worker.postMessage({ type: 'run', id: job.id, call: job.call, input: job.input });
  }

  start() {
    const worker = this.spawn();
    worker.onmessage = (event) => this.onMessage(worker, event.data);
    worker.onerror = (event) => {
      event.preventDefault();
      this.fail(worker, 'worker_failed', `the simulator worker failed: ${event.message || 'it could not start'}`);
    };
    worker.onmessageerror = () => this.fail(worker, 'worker_failed', 'a message from the simulator could not be read');
    this.worker = worker;
  }

  discard() {
    if (this.worker) this.worker.terminate();
    this.worker = null;
  }

  finish(job) {
    if (job.signal) job.signal.removeEventListener('abort', job.onAbort);
    this.current = null;
  }

  onMessage(worker, msg) {
    const job = this.current;
    if (worker !== this.worker || !job || !msg || msg.id !== job.id) return;
    if (msg.type === 'progress') {
      if (job.onProgress) {
        try {
          job.onProgress(msg.fraction);
        } catch (e) {
          console.error(e);
        }
      }
      return;
    }
    this.finish(job);
    if (msg.type === 'result') {
      job.resolve(msg.result);
    } else {
      const errors = Array.isArray(msg.errors) ? msg.errors : [];
      // After an internal error the module may be broken: the next job gets a fresh worker.
      if (errors.some((e) => e.code === 'internal' || e.code === 'load_failed')) this.discard();
      job.reject(new VtrainError(errors));
    }
    this.pump();
  }

  fail(worker, code, message) {
    if (worker !== this.worker) return;
    this.discard();
    const job = this.current;
    if (job) {
      this.finish(job);
      job.reject(new VtrainError([{ code, pointer: '', message }]));
    }
    this.pump();
  }

  cancel(job) {
    if (job === this.current) {
      this.discard();
      this.finish(job);
      job.reject(cancelled());
      this.pump();
      return;
    }
    const i = this.queue.indexOf(job);
    if (i >= 0) {
      this.queue.splice(i, 1);
      if (job.signal) job.signal.removeEventListener('abort', job.onAbort);
      job.reject(cancelled());
    }
  }

  close() {
    this.discard();
    for (const job of [this.current, ...this.queue]) {
      if (job) job.reject(cancelled());
    }
    this.current = null;
    this.queue = [];
  }
}

/**
 * Starts the simulator in a worker and resolves once it is loaded.
 * `options.spawn` may supply the worker (a function returning a Worker), e.g. for a different URL.
 */
export async function createVtrain(options = {}) {
  const spawn = options.spawn || spawnWorker;
  const quick = new Lane(spawn);
  const background = new Lane(spawn);
  const sweeps = new Lane(spawn);
  const call = (lane, name, input, opts) => lane.run(name, input, opts);
  const byPriority = (opts) => (opts && opts.priority === 'low' ? background : quick);
  const version = await call(quick, 'version');
  return {
    /** The simulator's version: {version}. */
    version,
    /**
     * Simulates one config: iteration time, breakdown, memory, cost, timeline.
     * `opts.priority: 'low'` runs it in a background worker, so it never delays other calls.
     */
    simulate: (config, opts) => call(byPriority(opts), 'simulate', config, opts),
    /** Checks a config; resolves to it with every field explicit. */
    validateConfig: (config, opts) => call(quick, 'validateConfig', config, opts),
    /** Sweeps the plans of a config; `opts.onProgress(fraction)`, `opts.signal` cancels. */
    explore: (request, opts) => call(sweeps, 'explore', request, opts),
    /** Compute-optimal sizing for a budget; `opts.onProgress(fraction)`, `opts.signal` cancels. */
    optimal: (request, opts) => call(sweeps, 'optimal', request, opts),
    /**
     * Many training jobs on one cluster under each scheduling policy, as `vtrain schedule --json`;
     * `opts.onProgress(fraction)`, `opts.signal` cancels.
     */
    schedule: (request, opts) => call(sweeps, 'schedule', request, opts),
    /**
     * A Hugging Face config.json (its text, or the parsed object) as the model section of a config:
     * {model, architecture, warnings}; an error names the field of the Hugging Face file.
     */
    importHf: (configJson, opts) => call(quick, 'importHf', configJson, opts),
    /** Model presets and example configs: {models, examples}. */
    presets: (opts) => call(quick, 'presets', undefined, opts),
    /** Bundled GPU profiles. */
    profiles: (opts) => call(quick, 'profiles', undefined, opts),
    /**
     * What inputs can be: every enum's choices ({name, label}), each field's type, bounds and default
     * (config, explore and optimal requests), the registries (gpus, model_presets, examples,
     * explore_cases, scaling_fits, optimal_presets) and the limits, as the simulator reads them.
     */
    schema: (opts) => call(quick, 'schema', undefined, opts),
    /**
     * Starts the workers now (each loads its own module), so the first sweep or background call
     * does not wait for one; resolves when they are ready. `lanes` names some of them:
     * 'background' (low-priority simulations) and 'sweeps' (explore, optimal); default both.
     */
    warmUp: (lanes = ['background', 'sweeps']) => {
      const byName = { background, sweeps };
      return Promise.all(lanes.filter((n) => byName[n]).map((n) => call(byName[n], 'version'))).then(() => undefined);
    },
    /** Stops the workers; pending calls reject with code "cancelled". */
    terminate() {
      quick.close();
      background.close();
      sweeps.close();
    },
  };
}

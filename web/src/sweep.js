// What the views that run in the sweep worker share (Explore, Compute-optimal, Cluster): the Run
// button, progress bar, Cancel and status line of their runs, the runs of a view with inputs of
// its own, and table rows that open a plan.
import { errorList } from './form.js';

const $ = (id) => document.getElementById(id);

/**
 * The controls of a view's runs, found by `prefix`: #<prefix>-run (calls `run`), -cancel,
 * -progress, -progress-wrap, -progress-text and -status. A run is an AbortController: start()
 * makes one and shows the bar and Cancel, finish() hides them again; Cancel aborts the run in flight.
 */
export function runControls(prefix, run) {
  const runButton = $(`${prefix}-run`);
  const cancelButton = $(`${prefix}-cancel`);
  const progress = $(`${prefix}-progress`);
  const progressWrap = $(`${prefix}-progress-wrap`);
  const progressText = $(`${prefix}-progress-text`);
  const statusLine = $(`${prefix}-status`);
  let running = null; // AbortController of the run in flight

  function setProgress(fraction) {
    const f = Math.max(0, Math.min(1, Number.isFinite(fraction) ? fraction : 0));
    progress.value = f;
    progressText.textContent = `${Math.round(f * 100)} %`;
  }

  function setStatus(text, bad = false) {
    statusLine.textContent = text;
    statusLine.classList.toggle('bad', bad);
  }

  function abort() {
    if (running) running.abort();
  }

  // Ends the run in flight without a word: its answer, or its cancellation, is dropped.
  function stop() {
    const r = running;
    if (!r) return;
    running = null;
    r.abort();
    runButton.disabled = false;
    cancelButton.hidden = true;
    progressWrap.hidden = true;
  }

  runButton.addEventListener('click', run);
  cancelButton.addEventListener('click', abort);

  return {
    setProgress,
    setStatus,
    abort,
    /** Ends the run in flight, if any, and drops its answer: the caller says why in the status. */
    stop,
    /** Whether a run is in flight. */
    get running() {
      return running !== null;
    },
    /** A new run: its AbortController, with the bar at 0, Cancel shown and `text` as the status. */
    start(text) {
      const controller = new AbortController();
      running = controller;
      runButton.disabled = true;
      cancelButton.hidden = false;
      progressWrap.hidden = false;
      setProgress(0);
      setStatus(text);
      return controller;
    },
    /** Whether `controller` is still the latest run; a later run drops the answer of an earlier one. */
    current(controller) {
      return running === controller;
    },
    /** `controller`'s run ended: hides the bar and Cancel, unless a later run is in flight. */
    finish(controller) {
      if (running === controller) {
        running = null;
        runButton.disabled = false;
        cancelButton.hidden = true;
        progressWrap.hidden = true;
      }
    },
  };
}

/** Makes a table row open what it shows, on a click or with Enter, and reachable with Tab. */
export function openableRow(row, title, open) {
  row.tabIndex = 0;
  row.title = title;
  row.addEventListener('click', () => open());
  row.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') open();
  });
}

/**
 * The runs of a view with inputs of its own (Compute-optimal, Cluster), by its `id`: its controls
 * (runControls), its result (#<id>-result) and body's data-<id> (running, done, stopped, invalid).
 * An edit schedules a run after a pause; inputs that are not numbers yet mark the last result
 * stale instead; a run's errors go beside their fields. `view` ({shown, stale, seq, timer, result,
 * request}) is the view's state, kept here.
 *   form          {request() -> {request, errors}, showErrors(errors), lookup(pointer)}
 *   call(request, {signal, onProgress})   the simulator's call
 *   starting      the status line while a run goes
 *   invalid(errors)   the status line for inputs to fix
 *   failed(errors)    the status line for errors no field owns
 *   noun          what a run gives, in "The answer below is for the last valid inputs."
 *   stale(text)   optional: hears the inputs to fix (text), e.g. for the summary bar
 *   mapErrors(errors) optional: the simulator's errors as the view shows them
 *   done(result, request, ms, seq)   shows a result; returns the status line
 */
export function formRuns(id, { view, form, call, starting, invalid, failed, noun, stale = () => {}, mapErrors = (e) => e, done }) {
  const controls = runControls(id, run);
  const state = (s) => {
    document.body.dataset[id] = s;
  };

  function markStale(text) {
    $(`${id}-result`).classList.toggle('stale', Boolean(view.result));
    controls.setStatus(view.result ? `${text} The ${noun} below is for the last valid inputs.` : text, true);
    stale(text);
    state('invalid');
  }

  // The request of the inputs, or null when some are not numbers yet (shown beside them).
  function checked() {
    const { request, errors } = form.request();
    if (!errors.length) return request;
    form.showErrors(errors);
    markStale(invalid(errors));
    return null;
  }

  function schedule(delay) {
    clearTimeout(view.timer);
    view.stale = true;
    if (!checked()) {
      controls.abort();
      return;
    }
    form.showErrors([]);
    if (view.shown) view.timer = setTimeout(run, delay);
  }

  async function run() {
    clearTimeout(view.timer);
    controls.abort();
    const request = checked();
    if (!request) return false;
    view.stale = false;
    const seq = ++view.seq;
    const controller = controls.start(starting);
    state('running');
    const t0 = performance.now();
    try {
      const result = await call(request, { signal: controller.signal, onProgress: controls.setProgress });
      if (!controls.current(controller)) return false;
      controls.setProgress(1);
      form.showErrors([]);
      const ms = performance.now() - t0;
      view.result = result;
      view.request = request;
      controls.setStatus(done(result, request, ms, seq));
      state('done');
      return true;
    } catch (e) {
      if (!controls.current(controller)) return false;
      if (e.code === 'cancelled') {
        controls.setStatus('Cancelled.');
        view.stale = true;
        state('stopped');
        return false;
      }
      const errs = mapErrors(errorList(e));
      form.showErrors(errs);
      const placed = errs.filter((x) => form.lookup(x.pointer));
      markStale(placed.length ? invalid(errs) : failed(errs));
      return false;
    } finally {
      controls.finish(controller);
    }
  }

  return {
    controls,
    schedule,
    run,
    /** The view became visible: runs when the inputs changed since the last result; whether it did not need to. */
    showFresh() {
      if (!view.stale || controls.running) return true;
      if (checked()) run();
      return false;
    },
  };
}

/**
 * A download of a view's last run (`view` {result, request}): 'csv' the rows `csv()` gives, as
 * <stem()>-<rows>.csv; 'json' the link, request and result; `none` when there is no result yet.
 */
export function runDownload(kind, { view, stem, rows, csv, none }) {
  if (!view.result) return none;
  if (kind === 'csv') return { name: `${stem()}-${rows}.csv`, type: 'text/csv', text: csv() };
  const body = { link: location.href, request: view.request, result: view.result };
  return { name: `${stem()}.json`, type: 'application/json', text: JSON.stringify(body, null, 2) };
}

// What the views that run in the sweep worker share (Explore and Compute-optimal): the Run button,
// progress bar, Cancel and status line of their runs, and table rows that open a plan.

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

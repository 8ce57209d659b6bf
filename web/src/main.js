// The calculator page's shell: it loads the simulator, draws a tab and a panel per view, keeps the
// address in step with what the page shows (so a link reproduces it), and runs the header's
// actions: copy the link, download, embed. What a view shows is its own (views/).
//
// A view is a module whose default export is {id, label, markup, inputs?, create}:
//   id        names its tab (#tab-<id>), its panel (#view-<id>) and its link (?view=<id>)
//   label     the tab's text
//   markup    the panel's HTML, drawn before the simulator has loaded
//   inputs    optional {label, markup}: inputs of its own, on the left in place of the Plan inputs
//             (a form #<id>-inputs); the view's link then holds those alone, and it has no
//             examples and no embed card
//   create(panel, services) makes the view once the simulator is ready and returns
//     show(), hide()     it became visible, or another view did
//     state()            its part of the link: [key, text] pairs
//     applyState(query)  its part of a link (URLSearchParams); returns the [key, value] pairs it did not know
//     download(kind)     'json' or 'csv': {name, type, text}; a sentence why there is none yet; or
//                        null, when it has nothing of its own (the first view's download then)
//     start()            optional: its first work on a page just opened; the page is ready once it resolves
//     open(what)         optional: shows what another view hands it (services.open)
//   services: {vtrain, catalog, planInputs, embed, ownInputs, open(id, what), show(id), changed(),
//     toast(text), link({embed, view}), summarize(summary)}; `changed()` says the view's part of
//     the link changed; `summarize({parts, bad})` gives the view's headline figures (a list of
//     short texts) or, with bad, what stops them, for the summary bar a narrow screen shows while
//     the element of the view's panel marked data-summary-anchor is out of sight.
//
// Adding a view is its module and its line in VIEWS.
import './style.css';
import { createVtrain } from '../lib/vtrain.js';
import { loadCatalog } from './catalog.js';
import { loadPlotly } from './charts.js';
import { h } from './form.js';
import { renderGlossary, wireGlossary } from './glossary.js';
import { createPlanInputs } from './plan-inputs.js';
import plan from './views/plan.js';
import explore from './views/explore.js';
import optimal from './views/optimal.js';
import cluster from './views/cluster.js';

performance.mark('vtrain:boot');

/** The views, in the order of their tabs; the first is the one a link without ?view= opens. */
const VIEWS = [plan, explore, optimal, cluster];

const $ = (id) => document.getElementById(id);
const first = VIEWS[0];
const byId = (id) => VIEWS.find((v) => v.id === id);
const link = new URLSearchParams(location.search);
const embed = link.get('embed') === '1';
const views = new Map(); // id -> the view create() returned
let planInputs = null;
let current = first.id;

// ---------------------------------------------------------------- the frame: tabs and panels

function drawFrame() {
  document.body.classList.toggle('embed', embed);
  renderGlossary($('glossary-list'));
  wireGlossary({ tip: $('term-tip'), glossary: $('glossary') });
  $('embed-card').hidden = !embed;
  const main = $('results');
  for (const v of VIEWS) {
    const on = v === first;
    $('tabs').append(h('button', {
      type: 'button', role: 'tab', id: `tab-${v.id}`, 'aria-controls': `view-${v.id}`, 'aria-selected': String(on), tabindex: on ? null : '-1', text: v.label,
    }));
    const panel = h('section', { id: `view-${v.id}`, role: 'tabpanel', 'aria-labelledby': `tab-${v.id}`, hidden: !on });
    panel.innerHTML = v.markup;
    main.append(panel);
    if (v.inputs) {
      const form = h('form', { id: `${v.id}-inputs`, class: 'inputs', novalidate: true, 'aria-label': v.inputs.label, hidden: true });
      form.innerHTML = v.inputs.markup;
      main.before(form);
    }
  }
}

function show(id, { focus = false } = {}) {
  current = id;
  const def = byId(id);
  // A view with inputs of its own shows them in place of the Plan inputs, without the examples
  // and the embed card, which are the Plan inputs'.
  const own = Boolean(def.inputs);
  $('inputs').hidden = own;
  for (const v of VIEWS) if (v.inputs) $(`${v.id}-inputs`).hidden = v !== def;
  $('jump-inputs').href = own ? `#${id}-inputs` : '#inputs';
  document.querySelector('nav.examples').hidden = own;
  $('show-embed').hidden = own;
  if (own) {
    $('embed-panel').hidden = true;
    $('show-embed').setAttribute('aria-expanded', 'false');
  }
  for (const v of VIEWS) {
    const tab = $(`tab-${v.id}`);
    const on = v === def;
    tab.setAttribute('aria-selected', String(on));
    tab.tabIndex = on ? 0 : -1;
    $(`view-${v.id}`).hidden = !on;
    if (on && focus) tab.focus();
  }
  syncUrl();
  for (const v of VIEWS) if (v !== def && views.get(v.id).hide) views.get(v.id).hide();
  views.get(id).show();
  watchAnchor();
  drawSummary();
}

function wireTabs() {
  VIEWS.forEach((v, i) => {
    const tab = $(`tab-${v.id}`);
    tab.addEventListener('click', () => show(v.id));
    tab.addEventListener('keydown', (e) => {
      if (e.key !== 'ArrowRight' && e.key !== 'ArrowLeft') return;
      const next = VIEWS[(i + (e.key === 'ArrowRight' ? 1 : VIEWS.length - 1)) % VIEWS.length];
      show(next.id, { focus: true });
    });
  });
}

// ---------------------------------------------------------------- the link

/**
 * The query of the page's link: a view with inputs of its own, its state alone; otherwise the
 * Plan inputs and the state of every view that shares them. An embed link holds the inputs only.
 */
function linkQuery({ embed: asEmbed = embed, view = current } = {}) {
  const q = new URLSearchParams();
  const put = (pairs) => {
    for (const [k, v] of pairs) q.set(k, v);
  };
  if (byId(view).inputs && !asEmbed) {
    q.set('view', view);
    put(views.get(view).state());
    return q.toString();
  }
  if (asEmbed) q.set('embed', '1');
  put(planInputs.state());
  if (view !== first.id) q.set('view', view);
  if (!asEmbed) for (const v of VIEWS) if (!v.inputs) put(views.get(v.id).state());
  return q.toString();
}

/** Reads the link the page was opened with; returns the [key, value] pairs it names that the page does not know. */
function applyLink(q) {
  const ignored = [];
  const named = q.get('view');
  let def = byId(named) || first;
  if (q.has('view') && def.id !== named) ignored.push(['view', named]);
  if (embed && def.inputs) def = first;
  current = def.id;
  const own = Boolean(def.inputs) && !embed;
  const none = new URLSearchParams();
  for (const v of VIEWS) ignored.push(...views.get(v.id).applyState((own ? v === def : !v.inputs) ? q : none));
  ignored.push(...planInputs.applyState(own ? none : q));
  return ignored;
}

const pageUrl = (query) => `${location.origin}${location.pathname}?${query}`;

// Updating the address costs the browser a few milliseconds, so it waits until the result is shown.
let urlTimer = 0;
function queueUrlSync() {
  clearTimeout(urlTimer);
  urlTimer = setTimeout(syncUrl, 60);
}

function syncUrl() {
  clearTimeout(urlTimer);
  const query = linkQuery();
  if (location.search !== `?${query}`) history.replaceState(null, '', `?${query}`);
  const embedUrl = pageUrl(linkQuery({ embed: true, view: first.id }));
  const preset = planInputs.preset;
  const title = preset ? `vtrain: ${preset} training time and cost` : 'vtrain: training time and cost';
  $('embed-snippet').value = `<iframe src="${embedUrl.replace(/&/g, '&amp;')}" title="${title}" width="560" height="320" style="border:0;max-width:100%" loading="lazy"></iframe>`;
  $('embed-preview').href = embedUrl;
}

// A link that names a model, view, objective or sweep this page does not know opens with the
// defaults in their place, and says so above the results.
function showLinkNotice(ignored) {
  const el = $('link-notice');
  el.hidden = ignored.length === 0;
  el.textContent = ignored.length
    ? `This link names ${ignored.map(([k, v]) => `${k} "${v}"`).join(', ')}, which this page does not know; ` +
      'the defaults stand in their place.'
    : '';
}

// ---------------------------------------------------------------- the summary bar

// On a narrow screen the inputs sit below the results: while the user edits them, the bar at the
// bottom of the screen keeps the current view's headline figures (or the error) in sight. A view
// with no summary of its own (Explore) shows the first view's, whose inputs it shares.
const summaries = new Map(); // view id -> {parts, bad}
let anchorVisible = true;
let anchorObserver = null;

function summaryOf(id) {
  return summaries.get(id) || (byId(id).inputs ? null : summaries.get(first.id)) || null;
}

function drawSummary() {
  const s = summaryOf(current);
  const bar = $('summary');
  const text = $('summary-text');
  if (s) {
    text.textContent = s.parts.join(' · ');
    bar.classList.toggle('bad', Boolean(s.bad));
  }
  bar.hidden = !s || anchorVisible;
}

function watchAnchor() {
  if (!('IntersectionObserver' in window)) return;
  if (anchorObserver) anchorObserver.disconnect();
  const panel = $(`view-${current}`);
  const anchor = panel.querySelector('[data-summary-anchor]') || panel;
  anchorVisible = true;
  anchorObserver = new IntersectionObserver((entries) => {
    for (const e of entries) anchorVisible = e.isIntersecting;
    drawSummary();
  });
  anchorObserver.observe(anchor);
}

function wireSummary() {
  $('summary-top').addEventListener('click', () => {
    const panel = $(`view-${current}`);
    const target = panel.querySelector('[data-summary-anchor]') || panel;
    target.scrollIntoView({ block: 'start' });
  });
}

// ---------------------------------------------------------------- sharing and downloads

let toastTimer = 0;
function toast(text) {
  const t = $('toast');
  t.textContent = text;
  t.classList.add('show');
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => t.classList.remove('show'), 2200);
}

async function copyText(text, what) {
  try {
    await navigator.clipboard.writeText(text);
    toast(`${what} copied`);
  } catch {
    // No clipboard permission: show the text selected so it can be copied by hand.
    window.prompt(`Copy the ${what.toLowerCase()}:`, text);
  }
}

function download(kind) {
  let file = views.get(current).download(kind);
  if (file == null) file = views.get(first.id).download(kind);
  if (typeof file === 'string') return toast(file);
  if (!file) return undefined;
  const url = URL.createObjectURL(new Blob([file.text], { type: file.type }));
  const a = h('a', { href: url, download: file.name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
  return undefined;
}

function wireActions() {
  $('copy-link').addEventListener('click', () => {
    syncUrl();
    copyText(location.href, 'Link');
  });
  $('download-json').addEventListener('click', () => download('json'));
  $('download-csv').addEventListener('click', () => download('csv'));
  $('show-embed').addEventListener('click', () => {
    syncUrl();
    const panel = $('embed-panel');
    panel.hidden = !panel.hidden;
    $('show-embed').setAttribute('aria-expanded', String(!panel.hidden));
  });
  $('copy-embed').addEventListener('click', () => copyText($('embed-snippet').value, 'Snippet'));
}

// ---------------------------------------------------------------- start

async function boot() {
  drawFrame();
  let vtrain;
  let catalog;
  // Plotly loads while the simulator does, so the charts follow the first numbers closely.
  if (!embed) loadPlotly().catch(() => {});
  try {
    vtrain = await createVtrain();
    // The worker of low-priority simulations (the Plan view's timeline) starts beside the first.
    if (!embed) vtrain.warmUp(['background']).catch(() => {});
    catalog = await loadCatalog(vtrain);
  } catch (e) {
    $('boot-status').textContent = `The simulator could not start: ${e.message || e}`;
    $('boot-status').classList.add('bad');
    $('card-status').textContent = 'The simulator could not start.';
    return;
  }
  planInputs = createPlanInputs({
    catalog, fields: $('fields'), errorBox: $('form-error'), examples: $('examples'), importHf: (text) => vtrain.importHf(text),
  });
  planInputs.subscribe(queueUrlSync);
  const services = {
    vtrain,
    catalog,
    planInputs,
    embed,
    open: (id, what) => views.get(id).open(what),
    show: (id) => show(id),
    changed: queueUrlSync,
    toast,
    link: (options) => pageUrl(linkQuery(options)),
  };
  for (const v of VIEWS) {
    const summarize = (summary) => {
      summaries.set(v.id, summary);
      drawSummary();
    };
    views.set(v.id, v.create($(`view-${v.id}`), { ...services, summarize, ownInputs: v.inputs ? $(`${v.id}-inputs`) : null }));
  }
  $('boot-status').hidden = true;
  wireTabs();
  wireActions();
  wireSummary();
  showLinkNotice(applyLink(link));
  show(current);
  await Promise.all([...views.values()].map((v) => (v.start ? v.start() : null)));
  performance.mark('vtrain:interactive');
  document.body.dataset.ready = 'true';
  // Once the first charts are on their way the sweep worker starts, so the first sweep does not
  // wait for a module to load.
  if (!embed) {
    loadPlotly()
      .catch(() => {})
      .then(() => vtrain.warmUp(['sweeps']))
      .then(() => {
        document.body.dataset.warm = 'true';
      })
      .catch(() => {});
  }
}

boot();

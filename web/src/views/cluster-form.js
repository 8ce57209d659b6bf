// The Cluster view's own inputs: where the jobs come from (vTrain's case study, the seeded
// generator or a job file), the cluster they share and how often jobs may be resized. Values stay
// the text the user typed; request() turns them into a schedule request, or says which are not
// numbers.
import * as fmt from '../format.js';
import { GENERATOR_MIXES, SCHEDULE_CASE } from '../choices.js';
import { h, fieldElement, markFieldErrors, nearestField, showText, typedNumber } from '../form.js';
import { SAMPLE_CSV, fileError, readJobFile } from './cluster-file.js';

const SECTIONS = [
  { id: 'workload', title: 'Jobs' },
  { id: 'cluster', title: 'Cluster' },
  { id: 'scheduling', title: 'Scheduling' },
];

const GENERATE = '/workload/generate';

// Every input; `pointer` is how the simulator names it in errors, `sources` the workload sources
// that show it (all when absent).
const FIELDS = [
  {
    section: 'workload', key: 'source', label: 'Jobs from', kind: 'select', wide: true,
    options: [['case', SCHEDULE_CASE.label], ['generate', 'synthetic jobs (a seeded generator)'], ['file', 'a job file (CSV or JSON)']],
  },
  {
    section: 'workload', key: 'case_jobs', pointer: '/workload/first_jobs', label: 'Jobs', kind: 'select', wide: true, sources: ['case'],
    options: SCHEDULE_CASE.jobs.map((n) => [String(n), `the trace’s first ${n} arrivals`]),
    help: 'the paper reports 64 and 128 jobs on 1,024 A100s',
  },
  { section: 'workload', key: 'seed', pointer: `${GENERATE}/seed`, label: 'Seed', kind: 'int', sources: ['generate'] },
  { section: 'workload', key: 'jobs', pointer: `${GENERATE}/jobs`, label: 'Jobs', kind: 'int', sources: ['generate'] },
  {
    section: 'workload', key: 'rate', pointer: `${GENERATE}/arrival_rate_per_hour`, label: 'Arrivals', kind: 'number', unit: 'jobs / h', wide: true,
    sources: ['generate'], help: 'Poisson arrivals; the ITP trace’s rate is 4 an hour',
  },
  {
    section: 'workload', key: 'mix', pointer: `${GENERATE}/mix`, label: 'Model mix', kind: 'select', wide: true, sources: ['generate'],
    options: Object.entries(GENERATOR_MIXES).map(([k, m]) => [k, m.label]),
  },
  { section: 'workload', key: 'duration_min', pointer: `${GENERATE}/duration_hours`, label: 'Shortest run', kind: 'number', unit: 'h', sources: ['generate'] },
  {
    section: 'workload', key: 'duration_max', pointer: `${GENERATE}/duration_hours#max`, label: 'Longest run', kind: 'number', unit: 'h', sources: ['generate'],
  },
  { section: 'workload', key: 'deadline_min', pointer: `${GENERATE}/deadline_factor`, label: 'Tightest deadline', kind: 'number', unit: 'runs', sources: ['generate'] },
  {
    section: 'workload', key: 'deadline_max', pointer: `${GENERATE}/deadline_factor#max`, label: 'Loosest deadline', kind: 'number', unit: 'runs', sources: ['generate'],
  },
  { section: 'workload', key: 'file', pointer: '/workload/file', label: 'Job file', kind: 'file', wide: true, sources: ['file'] },
  { section: 'cluster', key: 'gpu', pointer: '/cluster/gpu', label: 'GPU', kind: 'select', wide: true, options: [], sources: ['generate', 'file'] },
  { section: 'cluster', key: 'num_gpus', pointer: '/cluster/num_gpus', label: 'GPUs', kind: 'int', sources: ['generate', 'file'] },
  { section: 'cluster', key: 'gpus_per_node', pointer: '/cluster/gpus_per_node', label: 'GPUs per node', kind: 'int', sources: ['generate', 'file'] },
  {
    section: 'cluster', key: 'price_per_gpu_hour_usd', pointer: '/cluster/price_per_gpu_hour_usd', label: 'Price per GPU-hour', kind: 'number', unit: 'USD', wide: true,
    sources: ['generate', 'file'],
  },
  {
    section: 'scheduling', key: 'restart_pause_s', pointer: '/restart_pause_s', label: 'Resize pause', kind: 'number', unit: 's', wide: true,
    help: 'a job whose GPUs change stops to checkpoint and restart, its progress kept',
  },
  {
    section: 'scheduling', key: 'period_h', pointer: '/period_s', label: 'Also re-plan every', kind: 'number', unit: 'h', wide: true, optional: true,
    help: 'blank: at arrivals and completions only',
  },
];
for (const f of FIELDS) f.id = `c-${f.key}`;
const FIELD = Object.fromEntries(FIELDS.map((f) => [f.key, f]));
const FIELD_BY_POINTER = new Map(FIELDS.filter((f) => f.pointer).map((f) => [f.pointer, f]));
// A job file's errors are its own.
FIELD_BY_POINTER.set('/workload/csv', FIELD.file);
FIELD_BY_POINTER.set('/workload/jobs', FIELD.file);

/** The inputs a link holds for each source, beside `source` itself. */
const SOURCE_KEYS = {
  case: ['case_jobs'],
  generate: ['seed', 'jobs', 'rate', 'mix', 'duration_min', 'duration_max', 'deadline_min', 'deadline_max'],
  file: [],
};
const CLUSTER_KEYS = ['gpu', 'num_gpus', 'gpus_per_node', 'price_per_gpu_hour_usd'];
const SCHEDULING_KEYS = ['restart_pause_s', 'period_h'];
export const LINK_KEYS = ['source', ...new Set(Object.values(SOURCE_KEYS).flat()), ...CLUSTER_KEYS, ...SCHEDULING_KEYS];

/** The inputs a page opens with: the case study's first 64 jobs; the generator's and the cluster's defaults for the other sources. */
const DEFAULTS = {
  source: 'case',
  case_jobs: '64',
  seed: '1',
  jobs: '64',
  rate: '4',
  mix: 'itp',
  duration_min: '0.25',
  duration_max: '24',
  deadline_min: '0.5',
  deadline_max: '1.5',
  gpu: '', // the simulator's default GPU (its schema's /cluster/gpu)
  num_gpus: '1024',
  gpus_per_node: '8',
  price_per_gpu_hour_usd: '4.10',
  restart_pause_s: '60',
  period_h: '',
};

// How a pointer reads inside a message about another field.
const NAMES = { '/cluster/num_gpus': 'the cluster’s GPUs', '/cluster/gpus_per_node': 'GPUs per node' };

// Other inputs' pointers inside a message, by their labels.
const namePointers = (m) => m.replace(/\/[a-z_]+(?:\/[A-Za-z0-9_]+)*/g, (p) => NAMES[p] || FIELD_BY_POINTER.get(p)?.label.toLowerCase() || p);

/** A simulator message as shown beside its field, or above the form when no field is its own. */
export function clusterMessage(e) {
  let m = String(e.message || '');
  const lead = /^(\/[A-Za-z0-9_/]*): /.exec(m);
  if (lead) m = m.slice(lead[0].length);
  m = namePointers(m);
  return m.charAt(0).toUpperCase() + m.slice(1);
}

// A job file's errors shown at once; the rest are counted.
const MAX_FILE_ERRORS = 8;

const mixEntryText = (e) => `${e.model} on ${fmt.gpus(e.gpus)}`;

/**
 * The form, drawn into `root` with the errors no field owns in `errorBox`. `onEdit(now)` hears of
 * each edit (now: a choice or a file, answered at once; else typing, answered after a pause).
 */
export function createClusterForm({ root, errorBox, catalog, onEdit }) {
  const $ = (id) => document.getElementById(id);
  let values = { ...DEFAULTS, gpu: catalog.schema.config.cluster.fields.gpu.default };
  let file = null; // {name, size, text, read: readJobFile's answer}
  let caseCluster = null; // the case study's cluster, once a result has told it

  const visible = (f) => !f.sources || f.sources.includes(values.source);

  function fileField(f) {
    const input = h('input', { type: 'file', id: f.id, name: f.key, accept: '.csv,.json,text/csv,application/json', 'aria-describedby': `${f.id}-help ${f.id}-err` });
    const sample = h('a', { href: '#', id: 'c-sample', text: 'a sample CSV' });
    sample.addEventListener('click', (e) => {
      e.preventDefault();
      const url = URL.createObjectURL(new Blob([SAMPLE_CSV], { type: 'text/csv' }));
      const a = h('a', { href: url, download: 'vtrain-jobs-sample.csv' });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
    });
    return h(
      'div',
      { class: 'field file wide', 'data-key': f.key },
      h('label', { for: f.id, text: f.label }),
      h('div', { class: 'control' }, input),
      h('p', { class: 'file-name', id: 'c-file-name', hidden: true }),
      // A file's errors, by line and column, come before the help on its format.
      h('p', { class: 'error', id: `${f.id}-err`, 'aria-live': 'polite', hidden: true }),
      h('p', { class: 'help', id: `${f.id}-help` },
        'A job a row (CSV) or a list of jobs (JSON): id, arrival_s, deadline_s, model (a preset), global_batch, gpus, and tokens or iterations; optional tp, pp, micro_batch, recompute. ',
        'An ITP trace CSV is mapped to LLM jobs. Start from ', sample, '.'),
    );
  }

  function render() {
    root.textContent = '';
    const gpus = catalog.profiles.map((p) => [p.name, p.display_name]);
    for (const section of SECTIONS) {
      const fs = h('fieldset', { id: `cluster-section-${section.id}` }, h('legend', { text: section.title }));
      const grid = h('div', { class: 'grid' });
      for (const f of FIELDS.filter((x) => x.section === section.id)) {
        if (f.kind === 'file') grid.append(fileField(f));
        else grid.append(fieldElement(f.key === 'gpu' ? { ...f, options: gpus } : f));
      }
      if (section.id === 'cluster') grid.append(h('p', { class: 'help wide cluster-case-note', id: 'c-case-cluster' }));
      fs.append(grid);
      root.append(fs);
    }
    root.addEventListener('input', edited);
    root.addEventListener('change', edited);
    show();
  }

  function show() {
    for (const f of FIELDS) {
      const input = $(f.id);
      if (!input) continue;
      input.closest('.field').hidden = !visible(f);
      if (f.kind === 'file') continue;
      showText(f, input, values[f.key] ?? '');
    }
    const note = $('c-case-cluster');
    note.hidden = values.source !== 'case';
    note.textContent = caseCluster
      ? `The case study’s own, as the paper sets it up: ${caseCluster.num_gpus.toLocaleString('en-US')} × ${catalog.gpuName(caseCluster.gpu)}, ${caseCluster.gpus_per_node} to a node, at ${fmt.usd(caseCluster.price_per_gpu_hour_usd)} per GPU-hour.`
      : 'The case study’s own, as the paper sets it up.';
    const name = $('c-file-name');
    name.hidden = !file;
    name.textContent = file ? `${file.name}, ${file.size.toLocaleString('en-US')} bytes` : '';
  }

  async function edited(event) {
    const t = event.target;
    const f = FIELDS.find((x) => x.id === t.id);
    if (!f) return;
    if (f.kind === 'file') {
      if (event.type !== 'change') return;
      const chosen = t.files && t.files[0];
      if (!chosen) return;
      const text = await chosen.text();
      file = { name: chosen.name, size: chosen.size, text, read: readJobFile(chosen.name, text) };
      show();
      onEdit(true);
      return;
    }
    const select = f.kind === 'select';
    if (event.type === 'input' && select) return;
    if (event.type === 'change' && !select) return;
    values[f.key] = t.value;
    show();
    onEdit(select);
  }

  const numberOf = (key, { int = false, errors }) => typedNumber(FIELD[key], values[key], { int, errors });

  // The field an error pointer belongs to, if it is shown: the pointer's, or the nearest above it.
  const lookup = (pointer) => nearestField(pointer, FIELD_BY_POINTER, visible);

  // An error as shown beside its field: a job file's in the file's lines and columns, a mix
  // entry's with the model it is about.
  function message(e, f) {
    if (f === FIELD.file && e.code === 'file') return e.message;
    if (f === FIELD.file && file && file.read.workload) {
      const placed = fileError(e, file.read);
      if (placed != null) return `${file.name}, ${namePointers(placed)}`;
    }
    const entry = /^\/workload\/generate\/mix\/(\d+)\//.exec(e.pointer || '');
    const mix = GENERATOR_MIXES[values.mix];
    if (entry && mix && mix.entries && mix.entries[Number(entry[1])]) return `${mixEntryText(mix.entries[Number(entry[1])])}: ${clusterMessage(e).replace(/^./, (c) => c.toLowerCase())}`;
    return clusterMessage(e);
  }

  render();

  return {
    /** The inputs as typed, by key. */
    get values() {
      return values;
    },
    /** The job file chosen, or null: {name, size, text, read}. */
    get file() {
      return file;
    },
    lookup,
    message,
    /** The request the inputs describe, and the inputs that are not numbers yet: {request, errors}. */
    request() {
      const v = values;
      const errors = [];
      const scheduling = {
        restart_pause_s: numberOf('restart_pause_s', { errors }),
      };
      const period = numberOf('period_h', { errors });
      if (period != null) scheduling.period_s = period * 3600;
      if (v.source === 'case') {
        const jobs = Number(v.case_jobs);
        return { request: { case: SCHEDULE_CASE.name, workload: { first_jobs: jobs }, ...scheduling }, errors };
      }
      const cluster = {
        gpu: v.gpu,
        num_gpus: numberOf('num_gpus', { int: true, errors }),
        gpus_per_node: numberOf('gpus_per_node', { int: true, errors }),
        price_per_gpu_hour_usd: numberOf('price_per_gpu_hour_usd', { errors }),
      };
      let workload;
      if (v.source === 'file') {
        if (!file) {
          errors.push({ code: 'missing', pointer: '/workload/file', message: 'choose a job file' });
        } else if (file.read.errors) {
          for (const x of file.read.errors) {
            errors.push({ code: 'file', pointer: '/workload/file', message: `${file.name}, line ${x.line}, column ${x.column}: ${x.message}` });
          }
        } else {
          workload = file.read.workload;
        }
      } else {
        const generate = {
          seed: numberOf('seed', { int: true, errors }),
          jobs: numberOf('jobs', { int: true, errors }),
          arrival_rate_per_hour: numberOf('rate', { errors }),
          duration_hours: [numberOf('duration_min', { errors }), numberOf('duration_max', { errors })],
          deadline_factor: [numberOf('deadline_min', { errors }), numberOf('deadline_max', { errors })],
        };
        const mix = GENERATOR_MIXES[v.mix];
        if (mix && mix.entries) generate.mix = mix.entries;
        workload = { generate };
      }
      return { request: { cluster, workload, ...scheduling }, errors };
    },
    /** Shows `errors` beside the fields they name, the rest above the form. */
    showErrors(all) {
      const inFile = all.filter((e) => lookup(e.pointer) === FIELD.file);
      const errors = inFile.length > MAX_FILE_ERRORS
        ? [...all.filter((e) => !inFile.includes(e)), ...inFile.slice(0, MAX_FILE_ERRORS),
          { code: 'file', pointer: '/workload/file', message: `and ${inFile.length - MAX_FILE_ERRORS} more errors in ${file ? file.name : 'the file'}` }]
        : all;
      return markFieldErrors({ fields: FIELDS, errors, lookup, message: (e, f) => (f ? message(e, f) : clusterMessage(e)), box: errorBox });
    },
    /** The case study's cluster, as a result gives it, for the note in place of the cluster's inputs. */
    setCaseCluster(cluster) {
      caseCluster = cluster;
      show();
    },
    /** Whether every error of `errors` that has a field is the job file's. */
    fileOnly(errors) {
      const placed = errors.map((e) => lookup(e.pointer)).filter(Boolean);
      return placed.length > 0 && placed.every((f) => f === FIELD.file);
    },
    /** Sets inputs (text by key), e.g. from a link; keys it does not know are left out. */
    set(more) {
      for (const [k, v] of Object.entries(more)) if (v != null && k in DEFAULTS) values[k] = String(v);
      show();
    },
    /** The inputs a link holds: the source, its own inputs, the cluster's (not for the case) and the scheduling's. */
    linkPairs() {
      const v = values;
      const keys = ['source', ...(SOURCE_KEYS[v.source] || []), ...(v.source === 'case' ? [] : CLUSTER_KEYS), ...SCHEDULING_KEYS];
      return keys.filter((k) => v[k] != null && v[k] !== '').map((k) => [k, v[k]]);
    },
    show,
  };
}

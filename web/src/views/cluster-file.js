// A job file the Cluster view reads: a CSV (read by the simulator, which names a bad cell by its
// line and column) or JSON (a list of jobs, or {"jobs": [...]} as `vtrain schedule --map-trace`
// and the bundled workloads write it). The simulator names a bad JSON field by its pointer; here
// each pointer becomes the line and column where the file holds that field, so that an error reads
// the same whichever format the jobs came in.

/** A file's format from its name or, failing that, its first character. */
export function fileFormat(name, text) {
  if (/\.csv$/i.test(name)) return 'csv';
  if (/\.json$/i.test(name)) return 'json';
  return /^\s*[[{]/.test(text) ? 'json' : 'csv';
}

/** Line and column (both from 1) of character `at` of `text`. */
function lineColumn(text, at) {
  let line = 1;
  let start = 0;
  for (let i = 0; i < at && i < text.length; i++) {
    if (text[i] === '\n') {
      line++;
      start = i + 1;
    }
  }
  return { line, column: at - start + 1 };
}

class JsonSyntaxError extends Error {
  constructor(at, message) {
    super(message);
    this.at = at;
  }
}

/**
 * Where each value of a JSON text is: a Map from its JSON pointer to the character where it is
 * named (an object member's key, an array element's value). Throws a JsonSyntaxError at the first
 * character that breaks JSON's grammar.
 */
export function locateJson(text) {
  const where = new Map();
  let i = 0;
  const space = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i])) i++;
  };
  const fail = (message) => {
    throw new JsonSyntaxError(i, i >= text.length ? `${message}, but the file ends` : message);
  };
  const expect = (c, what) => {
    space();
    if (text[i] !== c) fail(`expected ${what}`);
    i++;
  };
  const string = () => {
    if (text[i] !== '"') fail('expected a string in double quotes');
    const start = i++;
    while (i < text.length && text[i] !== '"') {
      if (text[i] === '\\') i++;
      else if (text[i] === '\n') fail('a string does not end on its line');
      i++;
    }
    if (i >= text.length) {
      i = start;
      fail('a string is not closed');
    }
    i++;
    try {
      return JSON.parse(text.slice(start, i));
    } catch {
      i = start;
      return fail('a string holds a character JSON does not allow (a control character or a bad escape)');
    }
  };
  const escape = (key) => String(key).replace(/~/g, '~0').replace(/\//g, '~1');
  const value = (pointer) => {
    space();
    const c = text[i];
    if (c === '{') {
      i++;
      space();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        space();
        const at = i;
        const key = string();
        const p = `${pointer}/${escape(key)}`;
        where.set(p, at);
        expect(':', "':' after a key");
        value(p);
        space();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return;
        }
        fail("expected ',' or '}' after a value");
      }
    }
    if (c === '[') {
      i++;
      space();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (let n = 0; ; n++) {
        space();
        where.set(`${pointer}/${n}`, i);
        value(`${pointer}/${n}`);
        space();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return;
        }
        fail("expected ',' or ']' after a value");
      }
    }
    if (c === '"') {
      string();
      return;
    }
    const m = /^(?:-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null)/.exec(text.slice(i, i + 64));
    if (!m) fail(i >= text.length ? 'expected a value' : `unexpected ${JSON.stringify(text[i])}: expected a value`);
    i += m[0].length;
  };
  where.set('', 0);
  value('');
  space();
  if (i < text.length) fail('unexpected text after the end of the JSON');
  return where;
}

/**
 * Reads a job file: {workload} (the request's /workload: {csv} or {jobs}, with the file's
 * description) or {errors} ([{line, column, message}] for a file that is not JSON, or not a job list).
 */
export function readJobFile(name, text) {
  const format = fileFormat(name, text);
  if (format === 'csv') return { format, workload: { csv: text } };
  let where;
  try {
    where = locateJson(text);
  } catch (e) {
    if (!(e instanceof JsonSyntaxError)) throw e;
    return { format, errors: [{ ...lineColumn(text, e.at), message: `not JSON: ${e.message}` }] };
  }
  const doc = JSON.parse(text);
  const list = Array.isArray(doc) ? doc : doc && typeof doc === 'object' ? doc.jobs : undefined;
  if (!Array.isArray(list)) {
    return { format, errors: [{ line: 1, column: 1, message: 'a job file holds a list of jobs, or {"jobs": [...]}' }] };
  }
  const workload = { jobs: list };
  if (!Array.isArray(doc) && typeof doc.description === 'string') workload.description = doc.description;
  return { format, workload, where, text, base: Array.isArray(doc) ? '' : '/jobs' };
}

/**
 * The simulator's error about a workload read from `file` (what readJobFile returned), placed in
 * the file: "line 12, column 7 (gpus): must be 1, 2, 4, or a multiple of 8 ...". An error that is
 * not about the file's jobs gives null.
 */
export function fileError(e, file) {
  const message = String(e.message || '');
  const pointer = e.pointer || '';
  if (file.format === 'csv') {
    if (pointer !== '/workload/csv' && !pointer.startsWith('/workload/csv/')) return null;
    // The simulator names the cell itself: "/workload/csv: line 3, column 2 (arrival_s): ...".
    return message.replace(/^\/workload\/csv: /, '');
  }
  const prefix = '/workload/jobs';
  if (pointer !== prefix && !pointer.startsWith(`${prefix}/`)) return null;
  let rule = message.startsWith(`${pointer}: `) ? message.slice(pointer.length + 2) : message;
  // Other fields of the same job are named by their key.
  const job = /^\/workload\/jobs\/\d+/.exec(pointer);
  if (job) rule = rule.split(`${job[0]}/`).join('');
  // The pointer in the file, or the nearest value above it that the file holds (a missing key is
  // placed at its job).
  const wanted = file.base + pointer.slice(prefix.length);
  let p = wanted;
  while (!file.where.has(p)) p = p.slice(0, p.lastIndexOf('/'));
  if (p !== wanted) rule = `${wanted.slice(p.length + 1).replace(/\//g, ' ')} ${rule}`;
  const { line, column } = lineColumn(file.text, file.where.get(p));
  const tail = p.slice(p.lastIndexOf('/') + 1);
  const named = /^\d+$/.test(tail) ? `job ${Number(tail) + 1}` : tail.replace(/~1/g, '/').replace(/~0/g, '~');
  return p === file.base || p === '' ? `line ${line}, column ${column}: ${rule}` : `line ${line}, column ${column} (${named}): ${rule}`;
}

/** A job file to start from: four jobs in the CSV columns the simulator reads. */
export const SAMPLE_CSV = `id,arrival_s,deadline_s,model,global_batch,gpus,tokens,tp,pp
small-1,0,14400,gpt3-2.7b,512,8,2e9,,
small-2,600,9000,gpt3-2.7b,512,8,1e9,,
mid-1,1200,43200,gpt3-6.7b,1024,16,4e9,2,1
large-1,1800,172800,gpt3-175b,1536,128,2e9,,
`;

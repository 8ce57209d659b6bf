// The JavaScript library as an npm package (scripts/build-package.mjs): packed by npm pack,
// installed offline into a scratch project in a temporary folder, then run from there in Node
// (through the package's "vtrain/node" export) and in Chromium (a page importing "vtrain",
// bundled by the repository's Vite and served from the scratch project). The examples of the
// package's README are what runs, and the numbers are the native CLI's. Its TypeScript
// declarations are held to real results: every key a result has is declared, every declared key
// it needs is there, with the declared type.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, preview } from 'vite';
import { buildPackage, repositoryVersion } from '../../scripts/build-package.mjs';
import { launchChromium } from '../../scripts/chromium.mjs';
import { runCli } from '../../scripts/golden.mjs';
import { freePort } from '../e2e/harness.mjs';
import { check, membersOf, readDeclarations } from './declarations.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The code blocks of the package README marked <!-- tested: NAME -->, by name. */
function readmeExamples(text) {
  const out = {};
  for (const m of text.matchAll(/<!-- tested: ([\w-]+) -->\s*```\w*\n([\s\S]*?)```/g)) out[m[1]] = m[2];
  return out;
}

function run(cmd, args, cwd) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', maxBuffer: 1 << 26 });
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/** The native CLI's result for `config`. */
function cliResult(dir, config) {
  const file = path.join(dir, `config-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(config));
  return runCli(['simulate', file, '--json', '--no-timeline']);
}

describe('the vtrain npm package, installed from its tarball', { timeout: 300000 }, () => {
  let tmp;
  let pkg;
  let packed;
  let site;
  let installed;
  let examples;

  before(() => {
    tmp = mkdtempSync(path.join(tmpdir(), 'vtrain-package-'));
    pkg = buildPackage(path.join(tmp, 'package'));
    // An empty npm cache and --offline: the package needs nothing from a registry.
    const npm = ['--cache', path.join(tmp, 'npm-cache'), '--offline', '--no-audit', '--no-fund', '--loglevel', 'error'];
    [packed] = JSON.parse(run('npm', ['pack', path.join(tmp, 'package'), '--pack-destination', tmp, '--json', ...npm], tmp));
    site = path.join(tmp, 'site');
    run('mkdir', ['-p', site], tmp);
    writeFileSync(path.join(site, 'package.json'), `${JSON.stringify({ name: 'site', private: true, type: 'module' }, null, 2)}\n`);
    run('npm', ['install', path.join(tmp, packed.filename), '--ignore-scripts', ...npm], site);
    installed = path.join(site, 'node_modules/vtrain');
    examples = readmeExamples(readFileSync(path.join(installed, 'README.md'), 'utf8'));
  });

  after(() => {
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  test('the tarball holds the library, its declarations and the WebAssembly module, at the repository version', () => {
    assert.equal(pkg.version, repositoryVersion());
    assert.equal(packed.version, repositoryVersion());
    const files = packed.files.map((f) => f.path).sort();
    assert.deepEqual(files, [...pkg.files, 'README.md', 'package.json'].sort());
    const manifest = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8'));
    assert.equal(manifest.version, repositoryVersion());
    assert.ok(!manifest.dependencies, 'the package depends on nothing');
    // Every export and its declarations are in the package.
    for (const [entry, target] of Object.entries(manifest.exports)) {
      for (const file of typeof target === 'string' ? [target] : Object.values(target)) {
        assert.ok(existsSync(path.join(installed, file)), `${entry}: ${file}`);
      }
    }
    assert.deepEqual(readFileSync(path.join(installed, 'wasm/vtrain.wasm')), readFileSync(path.join(root, 'build/wasm/vtrain.wasm')));
    assert.deepEqual(Object.keys(examples).sort(), ['errors', 'node', 'page-html', 'page-js']);
  });

  test("in Node, the README's example runs from the scratch project with the CLI's numbers", () => {
    // The example defines `config` and `r`; the line added after it reports them.
    const file = path.join(site, 'estimate.mjs');
    writeFileSync(file, `${examples.node}\nconsole.log(JSON.stringify({ config, r, version: vtrain.version }));\n`);
    const lines = run('node', [file], site).trim().split('\n');
    const { config, r, version } = JSON.parse(lines.pop());
    const cli = cliResult(tmp, config);
    for (const k of ['iteration_time_s', 'training_days', 'cost_usd', 'mfu', 'memory_GiB', 'breakdown_s']) assert.deepEqual(r[k], cli[k], k);
    assert.ok(lines.join('\n').includes(cli.iteration_time_s.toFixed(2)), lines.join('\n'));
    // One version: the module's is the repository's.
    assert.deepEqual(version, { version: repositoryVersion() });
  });

  test("the README's errors example prints what it says it prints", () => {
    const file = path.join(site, 'errors.mjs');
    writeFileSync(file, `import { loadVtrain } from 'vtrain/node';\nconst vtrain = await loadVtrain();\n${examples.errors}`);
    const said = [...examples.errors.matchAll(/^\s*\/\/ (.*)$/gm)].map((m) => m[1]);
    assert.ok(said.length >= 1);
    assert.deepEqual(run('node', [file], site).trim().split('\n'), said);
  });

  test('in Chromium, the README page, bundled by Vite from the scratch project, shows the estimate', async () => {
    // The example's script defines `config` and `r`; the lines added after it report them.
    writeFileSync(path.join(site, 'index.html'), examples['page-html']);
    writeFileSync(path.join(site, 'main.js'), `${examples['page-js']}
const { VtrainError } = await import('vtrain');
let error = null;
try {
  await vtrain.simulate({ model: 'gpt3-175b', plan: { tp: 7 } });
} catch (e) {
  error = { typed: e instanceof VtrainError, code: e.code, pointer: e.pointer };
}
window.vtrainCheck = { config, r, error };
`);
    const outDir = path.join(site, 'dist');
    await build({ root: site, configFile: false, logLevel: 'warn', worker: { format: 'es' }, build: { outDir, target: 'es2022', emptyOutDir: true } });
    const port = await freePort();
    const server = await preview({ root: site, configFile: false, logLevel: 'warn', build: { outDir }, preview: { port, strictPort: true, host: '127.0.0.1', open: false } });
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const problems = [];
      page.on('pageerror', (e) => problems.push(e.message));
      page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
      await page.goto(`http://127.0.0.1:${port}/`);
      await page.waitForFunction(() => window.vtrainCheck, null, { timeout: 30000 });
      const { config, r, error } = await page.evaluate(() => window.vtrainCheck);
      const cli = cliResult(tmp, config);
      for (const k of ['iteration_time_s', 'training_days', 'cost_usd', 'mfu']) assert.equal(r[k], cli[k], k);
      const shown = await page.textContent('#estimate');
      assert.ok(shown.includes(cli.training_days.toFixed(1)), shown);
      assert.deepEqual(error, { typed: true, code: 'divisibility', pointer: '/plan/tp' });
      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
      await server.close();
    }
  });

  test('the TypeScript declarations name every call and every key of its results', async () => {
    const read = (f) => readFileSync(path.join(installed, f), 'utf8');
    const decl = readDeclarations(read('types.d.ts'), read('protocol.d.ts'));
    const browser = readDeclarations(read('vtrain.d.ts'));
    const node = readDeclarations(read('node.d.ts'));
    // What each entry point exports is what its declarations say.
    const browserModule = await import(pathToFileURL(path.join(installed, 'vtrain.js')).href);
    const nodeModule = await import(pathToFileURL(path.join(installed, 'node.js')).href);
    assert.deepEqual(Object.keys(browserModule).sort(), [...browser.values].sort());
    assert.deepEqual(Object.keys(nodeModule).sort(), [...node.values].sort());

    const vtrain = await nodeModule.loadVtrain();
    const calls = membersOf(decl, 'Vtrain');
    assert.deepEqual(Object.keys(vtrain).sort(), [...calls.keys()].sort(), 'the calls are those the declarations list');
    const result = (name, value) => {
      const type = calls.get(name).type;
      // A call's declared return type: the value, or what its promise resolves to.
      const declared = type.kind === 'function' ? type.returns : type;
      const inner = declared.kind === 'ref' && declared.name === 'Promise' ? declared.args[0] : declared;
      assert.deepEqual(check(decl, value, inner, name), [], name);
    };
    result('version', vtrain.version);
    const presets = await vtrain.presets();
    result('presets', presets);
    result('profiles', await vtrain.profiles());
    result('schema', await vtrain.schema());
    // A dense model's import: the fields every Model declares (moe, mla, head_dim come with their branches' declarations).
    for (const name of ['gpt2.json', 'Llama-3.1-8B.json']) {
      result('importHf', await vtrain.importHf(readFileSync(path.join(root, 'tests/data/hf', name), 'utf8')));
    }
    for (const ex of presets.examples) {
      result('validateConfig', await vtrain.validateConfig(ex.config));
      result('simulate', await vtrain.simulate({ ...ex.config, output: { timeline: true, operators: true } }));
    }
    // A model given by its shape, without training tokens or a price: the optional parts absent.
    result('simulate', await vtrain.simulate({ model: { layers: 4, hidden: 1024, heads: 8 }, plan: { tp: 2, global_batch: 8 } }));
    result('explore', await vtrain.explore({ case: 'mt-nlg' }));
    result('explore', await vtrain.explore({ case: 'mt-nlg', explore: { objective: 'deadline', deadline_days: 60 } }));
    for (const o of presets.optimal) result('optimal', await vtrain.optimal(o.request));
    result('schedule', await vtrain.schedule({ case: 'vtrain-case2', workload: { first_jobs: 12 } }));
    // Without a price, a comparison or a case: the optional parts absent or null.
    result('schedule', await vtrain.schedule({
      cluster: { gpu: 'a100-sxm4-80gb', num_gpus: 32, gpus_per_node: 8 },
      workload: { generate: { jobs: 6, mix: [{ model: 'gpt3-2.7b', global_batch: 512, gpus: 8 }] } },
      policies: ['fifo'], period_s: 3600,
    }));
    const rejected = await vtrain.simulate({ model: 'gpt3-175b', plan: { tp: 7 } }).catch((e) => e);
    assert.ok(rejected instanceof nodeModule.VtrainError);
    assert.deepEqual(check(decl, rejected.errors, { kind: 'array', of: { kind: 'ref', name: 'Diagnostic', args: [] } }, 'errors'), []);
    // The checker itself finds what is wrong.
    assert.deepEqual(check(decl, { version: 1 }, 'Version'), ['value.version: 1 is not a string']);
    assert.deepEqual(check(decl, { version: '1', more: 0 }, 'Version'), ['value: has "more", which the declarations do not name']);
  });
});

// Keeps the examples in README.md and every docs/*.md runnable and their quoted outputs equal to
// what the commands print now. A quoted output is marked <!-- example: ARGS --> ```...```
// <!-- end example -->; ARGS are passed to build/native/vtrain. A line of a ```sh block that starts
// with `vtrain ` or `build/native/vtrain ` is a command (what follows # is a comment).
// `node scripts/readme-examples.mjs` rewrites the quoted outputs; with --check it only reports the
// blocks that differ (exit code 1).
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pattern = /<!-- example: (.+?) -->\n```\n([\s\S]*?)```\n<!-- end example -->/g;

/** README.md and every docs/*.md (a guide added later is checked too), relative to the root. */
export function docFiles() {
  const docs = existsSync(path.join(root, 'docs'))
    ? readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)
    : [];
  return ['README.md', ...docs];
}

/** Whether ARGS read ../shared and it is not beside this clone (the example is then skipped). */
export function needsAbsentShared(args) {
  return args.includes('../shared') && !existsSync(path.join(root, '../shared'));
}

export function runVtrain(args) {
  const argv = args.split(/\s+/).filter(Boolean);
  // A calibration writes the profiles it fits (into profiles/ by default): checking a documented
  // command must not rewrite the repository's own, so what it writes goes to a scratch folder.
  let scratch = null;
  if (argv[0] === 'calibrate' && !argv.includes('--dry-run') && !argv.includes('--out-dir') && !argv.includes('--out')) {
    scratch = mkdtempSync(path.join(tmpdir(), 'vtrain-calibrate-'));
    argv.push('--out-dir', scratch);
  }
  const r = spawnSync(path.join(root, 'build/native/vtrain'), argv, { cwd: root, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  return r;
}

// Runs `node scripts/NAME.mjs ARGS` from the repository root, as a documented sh block does.
export function runNodeScript(args) {
  const argv = args.split(/\s+/).filter(Boolean);
  return spawnSync(process.execPath, argv, { cwd: root, encoding: 'utf8', maxBuffer: 1 << 28 });
}

export function commandOutput(args) {
  const r = runVtrain(args);
  if (r.status !== 0) throw new Error(`vtrain ${args} failed: ${r.stderr}`);
  return r.stdout.replace(/\s+$/, '') + '\n';
}

/** Every quoted output, as {file, args, quoted}. */
export function exampleBlocks(files = docFiles()) {
  return files.flatMap((file) => [...readFileSync(path.join(root, file), 'utf8').matchAll(pattern)]
    .map((m) => ({ file, args: m[1], quoted: m[2] })));
}

/** The README's quoted outputs (exampleBlocks covers the guides too). */
export function readmeBlocks() {
  return exampleBlocks(['README.md']);
}

/** Every vtrain command of a ```sh block, as {file, line, args}. */
export function shellCommands(files = docFiles()) {
  const commands = [];
  for (const file of files) {
    let inSh = false;
    readFileSync(path.join(root, file), 'utf8').split('\n').forEach((text, i) => {
      const t = text.trim();
      if (t.startsWith('```')) {
        inSh = !inSh && /^```(sh|bash|shell)\s*$/.test(t);
        return;
      }
      const m = inSh && /^(?:build\/native\/)?vtrain\s+(.*)$/.exec(t);
      if (m) commands.push({ file, line: i + 1, args: m[1].replace(/\s#.*$/, '').trim() });
      // A project script that prepares what the next vtrain command reads (node scripts/NAME.mjs ...).
      const n = inSh && /^node\s+(scripts\/[\w.-]+\.mjs(?:\s.*)?)$/.exec(t);
      if (n) commands.push({ file, line: i + 1, args: n[1].replace(/\s#.*$/, '').trim(), node: true });
    });
  }
  return commands;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  let stale = 0;
  for (const file of docFiles()) {
    const text = readFileSync(path.join(root, file), 'utf8');
    const updated = text.replace(pattern, (whole, args, quoted) => {
      if (needsAbsentShared(args)) return whole;
      const out = commandOutput(args);
      if (out !== quoted) {
        stale += 1;
        console.error(`${file}: vtrain ${args} prints something else now`);
      }
      return `<!-- example: ${args} -->\n\`\`\`\n${out}\`\`\`\n<!-- end example -->`;
    });
    if (!check && updated !== text) writeFileSync(path.join(root, file), updated);
  }
  if (check) {
    if (stale) console.error(`${stale} example(s) differ from the commands' output`);
    process.exit(stale ? 1 : 0);
  }
  console.log(`examples in README.md and docs/: ${stale} updated`);
}

// Keeps the command outputs quoted in README.md equal to what the commands print now.
// A block is marked <!-- example: ARGS --> ```...``` <!-- end example -->; ARGS are passed to
// build/native/vtrain. `node scripts/readme-examples.mjs` rewrites the blocks; with --check it
// only reports blocks that differ (exit code 1).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const readmePath = path.join(root, 'README.md');
const pattern = /<!-- example: (.+?) -->\n```\n([\s\S]*?)```\n<!-- end example -->/g;

export function commandOutput(args) {
  const r = spawnSync(path.join(root, 'build/native/vtrain'), args.split(/\s+/), {
    cwd: root, encoding: 'utf8', maxBuffer: 1 << 28,
  });
  if (r.status !== 0) throw new Error(`vtrain ${args} failed: ${r.stderr}`);
  return r.stdout.replace(/\s+$/, '') + '\n';
}

export function readmeBlocks() {
  const text = readFileSync(readmePath, 'utf8');
  return [...text.matchAll(pattern)].map((m) => ({ args: m[1], quoted: m[2] }));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  const text = readFileSync(readmePath, 'utf8');
  let stale = 0;
  const updated = text.replace(pattern, (whole, args, quoted) => {
    if (args.includes('../shared') && !existsSync(path.join(root, '../shared'))) return whole;
    const out = commandOutput(args);
    if (out !== quoted) stale += 1;
    return `<!-- example: ${args} -->\n\`\`\`\n${out}\`\`\`\n<!-- end example -->`;
  });
  if (check) {
    if (stale) console.error(`${stale} README example(s) differ from the commands' output`);
    process.exit(stale ? 1 : 0);
  }
  writeFileSync(readmePath, updated);
  console.log(`README examples: ${stale} updated`);
}

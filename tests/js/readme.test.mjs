// Every command output quoted in the README is what the command prints now.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { readmeBlocks, commandOutput } from '../../scripts/readme-examples.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

test('README examples match the commands (node scripts/readme-examples.mjs updates them)', (t) => {
  const blocks = readmeBlocks();
  assert.ok(blocks.length >= 1);
  for (const b of blocks) {
    if (b.args.includes('../shared') && !existsSync(path.join(root, '../shared'))) {
      t.diagnostic(`skipped "vtrain ${b.args}": ../shared is not beside this clone`);
      continue;
    }
    assert.equal(b.quoted, commandOutput(b.args), `vtrain ${b.args}`);
  }
});

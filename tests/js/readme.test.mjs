// Every command output quoted in the README is what the command prints now.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readmeBlocks, commandOutput } from '../../scripts/readme-examples.mjs';

test('README examples match the commands (node scripts/readme-examples.mjs updates them)', () => {
  const blocks = readmeBlocks();
  assert.ok(blocks.length >= 1);
  for (const b of blocks) assert.equal(b.quoted, commandOutput(b.args), `vtrain ${b.args}`);
});

// The CSV of every download (web/src/format.js) reads back in a spreadsheet cell for cell.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { csvCell, csv } from '../../web/src/format.js';

test('sweep CSV cells with a comma, a quote or a line break are quoted; missing numbers are empty', () => {
  assert.equal(csvCell('plain'), 'plain');
  assert.equal(csvCell('tp 8, pp 8'), '"tp 8, pp 8"');
  assert.equal(csvCell('the "best" plan'), '"the ""best"" plan"');
  assert.equal(csvCell('two\nlines'), '"two\nlines"');
  assert.equal(csvCell(null), '');
  assert.equal(csvCell(Number.NaN), '');
  assert.equal(csvCell(2.5), '2.5');
  assert.equal(csv([['name', 'note'], ['gpt', 'a, b'], ['llama', null]]), 'name,note\ngpt,"a, b"\nllama,\n');
});

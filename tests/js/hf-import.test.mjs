// Hugging Face config.json import on the command line (vtrain import-hf, simulate --hf) and in the
// WebAssembly module (importHf): the same model, the warnings on stderr or in the reply, errors by
// pointer into the Hugging Face file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(root, 'build/native/vtrain');
const hf = (name) => path.join(root, 'tests/data/hf', name);

function run(...args) {
  const r = spawnSync(cli, args, { encoding: 'utf8', cwd: root, maxBuffer: 1 << 28 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function writeFile(text) {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'vtrain-hf-')), 'config.json');
  writeFileSync(file, text);
  return file;
}

test('import-hf prints the model section, its warnings on stderr naming the file and the field', () => {
  const r = run('import-hf', hf('Mistral-7B-v0.1.json'));
  assert.equal(r.code, 0, r.err);
  const model = JSON.parse(r.out);
  assert.deepEqual(model, {
    name: 'custom', layers: 32, hidden: 4096, heads: 32, kv_heads: 8, seq_len: 32768, vocab: 32000,
    ffn_hidden: 14336, mlp: 'swiglu', tied_embeddings: false, norm: 'rmsnorm', position: 'rope', bias: false,
  });
  assert.match(r.err, /warning: .*Mistral-7B-v0\.1\.json: \/sliding_window: .* \[unmapped\]/);
  assert.match(r.err, /\/max_position_embeddings: .* \[assumption\]/);
});

test('import-hf --json prints the API reply; an error names the Hugging Face field', () => {
  const r = run('import-hf', hf('DeepSeek-V3.json'), '--json');
  assert.equal(r.code, 0, r.err);
  const reply = JSON.parse(r.out);
  assert.equal(reply.ok, true);
  assert.equal(reply.result.architecture, 'deepseek_v3');
  assert.equal(reply.result.model.moe.experts, 256);
  assert.equal(reply.result.model.mla.kv_lora_rank, 512);
  assert.ok(reply.result.warnings.some((w) => w.pointer === '/num_nextn_predict_layers'));

  const broken = JSON.parse(readFileSync(hf('Llama-3.1-8B.json'), 'utf8'));
  broken.num_attention_heads = 2.5;
  const bad = run('import-hf', writeFile(JSON.stringify(broken)), '--json');
  assert.equal(bad.code, 1);
  const errors = JSON.parse(bad.out);
  assert.equal(errors.ok, false);
  assert.equal(errors.errors[0].pointer, '/num_attention_heads');
  assert.equal(errors.errors[0].code, 'type');

  const plain = run('import-hf', writeFile('{"architectures": ["T5ForConditionalGeneration"], "model_type": "t5"}'));
  assert.equal(plain.code, 1);
  assert.match(plain.err, /error: .*config\.json: \/architectures\/0: "T5ForConditionalGeneration" is not an architecture/);
  assert.equal(run('import-hf').code, 2);
  const help = run('import-hf', '--help');
  assert.equal(help.code, 0);
  assert.match(help.out, /import-hf CONFIG\.json \[--json\]/);
  assert.match(help.out, /--hf: the model from a Hugging Face config\.json/);
  assert.equal(run('import-hf', hf('gpt2.json'), '--threads', '2').code, 2);
  assert.equal(run('import-hf', path.join(root, 'no-such.json')).code, 1);
});

test('simulate --hf replaces the config\'s model by the imported one', () => {
  const config = writeFile(JSON.stringify({
    model: 'gpt3-175b',
    cluster: { gpu: 'a100-sxm4-80gb', num_gpus: 16 },
    plan: { tp: 2, pp: 1, dp: 8, global_batch: 64 },
  }));
  const r = run('simulate', '--hf', hf('gpt2.json'), config, '--json');
  assert.equal(r.code, 0, r.err);
  const result = JSON.parse(r.out);
  assert.equal(result.config.model.layers, 12);
  assert.equal(result.config.model.hidden, 768);
  assert.equal(result.config.model.seq_len, 1024);
  assert.match(r.err, /note: the model of --hf .*gpt2\.json replaces the config's/);
  // The same model given by hand simulates to the same numbers.
  const byHand = writeFile(JSON.stringify({
    model: { layers: 12, hidden: 768, heads: 12, seq_len: 1024, vocab: 50257 },
    cluster: { gpu: 'a100-sxm4-80gb', num_gpus: 16 },
    plan: { tp: 2, pp: 1, dp: 8, global_batch: 64 },
  }));
  const same = JSON.parse(run('simulate', byHand, '--json').out);
  assert.equal(result.iteration_time_s, same.iteration_time_s);
  // The Hugging Face text itself, inline.
  const inline = run('simulate', '--hf', readFileSync(hf('gpt2.json'), 'utf8'), config, '--json');
  assert.equal(inline.code, 0, inline.err);
  assert.equal(JSON.parse(inline.out).iteration_time_s, result.iteration_time_s);
  // An error of the Hugging Face file stops the run, naming its field.
  const bad = run('simulate', '--hf', writeFile('{"architectures": ["GPT2LMHeadModel"], "n_layer": 12}'), config);
  assert.equal(bad.code, 1);
  assert.match(bad.err, /\/n_embd: is required/);
});

const wasm = path.join(root, 'build/wasm/vtrain.mjs');

test('the module\'s importHf answers as the native entry does', { skip: !existsSync(wasm) && 'build/wasm is not built' }, async () => {
  const { loadVtrain, VtrainError } = await import('../../web/lib/node.js');
  const vtrain = await loadVtrain();
  for (const name of ['Llama-3.1-70B.json', 'Qwen3-30B-A3B.json', 'bloom-7b1.json']) {
    const text = readFileSync(hf(name), 'utf8');
    const mine = await vtrain.importHf(text);
    const native = JSON.parse(run('import-hf', hf(name), '--json').out).result;
    assert.deepEqual(mine, native, name);
    // An object is taken as well as the text.
    assert.deepEqual(await vtrain.importHf(JSON.parse(text)), native, name);
  }
  await assert.rejects(vtrain.importHf('{"n_layer": 1}'), (e) => e instanceof VtrainError && e.code === 'unknown_architecture');
  await assert.rejects(vtrain.importHf('not json'), (e) => e instanceof VtrainError && e.code === 'syntax');
});

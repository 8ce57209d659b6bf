// scripts/check-node.sh, the first step of scripts/setup.sh, run against fake `node`, `npm`,
// `apt-cache`, `apt-get` and `id` on a PATH that holds nothing else but the few tools it uses: no
// Node, an old one, one new enough, and a machine whose package sources offer a new one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const need = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).engines.node.replace(/^>=\s*/, '');

function tool(name) {
  const r = spawnSync('bash', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  assert.equal(r.status, 0, `${name} is on this machine`);
  return r.stdout.trim();
}
const real = Object.fromEntries(['bash', 'sed', 'head', 'sort', 'cat', 'dirname', 'chmod'].map((n) => [n, tool(n)]));

/**
 * Runs `script` with a PATH of only the real tools above and these fakes: `node` printing
 * `node` (none when null), `npm` when `npm`, `apt-cache policy nodejs` offering `candidate`, `id -u`
 * printing `uid`, and an `apt-get` that logs its arguments and, for nodejs, installs a fake node
 * of `installs`.
 */
function run({ node = null, npm = true, candidate = '18.20.4+dfsg-1~deb12u3', uid = 1000, installs = null,
  script = 'scripts/check-node.sh' } = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), 'vtrain-setup-'));
  const bin = path.join(dir, 'bin');
  const log = path.join(dir, 'apt-get.log');
  mkdirSync(bin);
  for (const [name, p] of Object.entries(real)) symlinkSync(p, path.join(bin, name));
  const fake = (name, body) => {
    writeFileSync(path.join(bin, name), `#!${real.bash}\n${body}\n`);
    chmodSync(path.join(bin, name), 0o755);
  };
  if (node) fake('node', `echo ${node}`);
  if (npm) fake('npm', 'echo 10.8.2');
  fake('apt-cache', `echo "nodejs:"; echo "  Installed: (none)"; echo "  Candidate: ${candidate}"`);
  fake('id', `echo ${uid}`);
  const install = installs ? `printf '#!%s\\necho v${installs}\\n' "${real.bash}" > "${bin}/node"; ${real.chmod} 755 "${bin}/node"` : ':';
  fake('apt-get', `echo "$*" >> "${log}"\ncase "$*" in *nodejs*) ${install};; esac`);
  const r = spawnSync(real.bash, [path.join(root, script)], {
    cwd: root, encoding: 'utf8', env: { PATH: bin, HOME: dir },
  });
  const aptGet = existsSync(log) ? readFileSync(log, 'utf8') : '';
  rmSync(dir, { recursive: true, force: true });
  return { code: r.status, out: r.stdout, err: r.stderr, aptGet };
}

test('Node new enough, with npm: the check passes silently', () => {
  for (const v of [`v${need}.0`, 'v20.20.2', 'v22.12.0', 'v24.1.0']) {
    const r = run({ node: v });
    assert.equal(r.code, 0, `${v}: ${r.err}`);
    assert.equal(r.out + r.err, '');
    assert.equal(r.aptGet, '');
  }
});

test('no Node at all, on a Debian 12 whose sources offer nodejs 18: one message saying what to install', () => {
  const r = run({ node: null, npm: false });
  assert.equal(r.code, 1);
  assert.equal(r.out, '');
  assert.match(r.err, new RegExp(`^setup: this machine has no Node\\.js; vtrain needs Node\\.js >= ${need.replace('.', '\\.')} with npm`));
  assert.match(r.err, /offer nodejs 18\.20\.4\+dfsg-1~deb12u3/);
  assert.match(r.err, /deb\.nodesource\.com\/setup_22\.x/);
  assert.match(r.err, /nvm install 22/);
  assert.equal(r.aptGet, '', 'nothing is installed from sources that only offer 18');
});

test('an old Node (Debian 12\'s 18, or 20 before 20.19): the same message naming the version found', () => {
  for (const v of ['v18.19.0', 'v20.18.1']) {
    const r = run({ node: v });
    assert.equal(r.code, 1, v);
    assert.match(r.err, new RegExp(`^setup: this machine has Node\\.js ${v.replace(/\./g, '\\.')}; vtrain needs`));
    assert.match(r.err, /nodesource/);
  }
});

test('Node without npm is not enough', () => {
  const r = run({ node: 'v20.19.0', npm: false });
  assert.equal(r.code, 1);
  assert.match(r.err, /has Node\.js v20\.19\.0 without npm/);
});

test('package sources that offer a new nodejs: installed as root, named to a user', () => {
  const asRoot = run({ node: 'v18.19.0', candidate: '20.20.2-1nodesource1', uid: 0, installs: '20.20.2' });
  assert.equal(asRoot.code, 0, asRoot.err);
  assert.match(asRoot.out, /installing nodejs 20\.20\.2-1nodesource1 from the machine's package sources/);
  assert.match(asRoot.aptGet, /install .*nodejs/);
  const asUser = run({ node: 'v18.19.0', candidate: '20.20.2-1nodesource1', uid: 1000 });
  assert.equal(asUser.code, 1);
  assert.match(asUser.err, /Install it as root from the machine's package sources \(nodejs 20\.20\.2-1nodesource1\): apt-get install nodejs npm/);
  assert.equal(asUser.aptGet, '');
});

test('scripts/setup.sh checks Node before anything else', () => {
  // The fake PATH has no dpkg-query, apt-get install of the build packages or npm ci to reach.
  const r = run({ node: 'v18.19.0', script: 'scripts/setup.sh' });
  assert.equal(r.code, 1);
  assert.equal(r.out, '');
  assert.match(r.err, /^setup: this machine has Node\.js v18\.19\.0; vtrain needs Node\.js/);
  assert.equal(r.aptGet, '');
});

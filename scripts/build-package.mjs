// Assembles the npm package of the JavaScript library in build/package: web/lib's modules, their
// TypeScript declarations and README, the WebAssembly module from build/wasm (run
// scripts/build.sh first) in its wasm/ folder, and web/lib/package.json with the version of the
// repository's package.json, the one place the version is written. Then
//   npm pack build/package
// makes the tarball a site installs (npm install ./vtrain-X.Y.Z.tgz).
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const lib = path.join(root, 'web/lib');
const wasm = path.join(root, 'build/wasm');

// The package's module.js: the module lies in wasm/ beside the library.
const MODULE_JS = `// Where the WebAssembly module lies in this package: wasm/ beside the library.
export { default as createModule } from './wasm/vtrain.mjs';
/** vtrain.wasm, relative to this file, for Node (which is handed the bytes). */
export const WASM_FILE = './wasm/vtrain.wasm';
`;

/** The repository's version: the root package.json's. */
export function repositoryVersion() {
  const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(version || '')) throw new Error(`package.json: version "${version}" is not a version`);
  return version;
}

/** Writes the package into `out` (build/package by default) and returns its package.json. */
export function buildPackage(out = path.join(root, 'build/package')) {
  for (const f of ['vtrain.mjs', 'vtrain.wasm']) {
    if (!existsSync(path.join(wasm, f))) throw new Error(`build/wasm/${f} is missing: run scripts/build.sh first`);
  }
  const manifest = JSON.parse(readFileSync(path.join(lib, 'package.json'), 'utf8'));
  if ('version' in manifest) throw new Error('web/lib/package.json: the version comes from the root package.json; remove it here');
  const pkg = { name: manifest.name, version: repositoryVersion(), ...manifest };
  rmSync(out, { recursive: true, force: true });
  mkdirSync(path.join(out, 'wasm'), { recursive: true });
  for (const file of [...pkg.files, 'README.md']) {
    const to = path.join(out, file);
    if (file === 'module.js') writeFileSync(to, MODULE_JS);
    else if (file.startsWith('wasm/')) copyFileSync(path.join(wasm, path.basename(file)), to);
    else copyFileSync(path.join(lib, file), to);
    chmodSync(to, 0o644);
  }
  writeFileSync(path.join(out, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  return pkg;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const pkg = buildPackage();
  console.log(`build-package: build/package (${pkg.name} ${pkg.version}); npm pack build/package makes its tarball`);
}

#!/usr/bin/env node
// `npm run build`: compiles src/ to dist/ (JavaScript with source maps) and copies the files tsc does not
// emit (the webmail's browser assets). With --if-stale it does nothing when dist/ is newer than every
// source, so `npm start` pays for a build only after a change. Messages go to stderr: `npm run --silent
// cli` output stays clean for scripts that capture it.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
const stamp = join(dist, '.built');
// A copy without sources (a packed package) has nothing newer than dist/ to build from.
const inputs = ['src', 'tsconfig.json', 'tsconfig.build.json'].filter((input) => existsSync(join(root, input)));

function newestChange(path) {
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  return Math.max(stats.mtimeMs, ...readdirSync(path).map((name) => newestChange(join(path, name))));
}

if (process.argv.includes('--if-stale') && existsSync(stamp)) {
  const built = statSync(stamp).mtimeMs;
  if (Math.max(...inputs.map((input) => newestChange(join(root, input)))) <= built) process.exit(0);
}

let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  // `npm ci --omit=dev` runs `prepare` too: without the compiler, a dist/ built before is what there is.
  console.error(existsSync(stamp) ? 'typescript is not installed: keeping dist/ as built' : 'cannot build dist/: typescript is not installed (run npm ci)');
  process.exit(existsSync(stamp) ? 0 : 1);
}
console.error('building dist/ from src/ ...');
rmSync(dist, { recursive: true, force: true });
const compiled = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: ['ignore', 2, 2] });
if (compiled.status !== 0) {
  console.error('build failed');
  process.exit(compiled.status ?? 1);
}
cpSync(join(root, 'src/webmail/assets'), join(dist, 'webmail/assets'), { recursive: true });
writeFileSync(stamp, `${new Date().toISOString()}\n`);

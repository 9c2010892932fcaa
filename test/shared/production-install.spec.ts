import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import semver from 'semver';

const read = (name: string) => JSON.parse(readFileSync(new URL(`../../${name}`, import.meta.url), 'utf8')) as Record<string, unknown>;

interface LockedPackage {
  readonly dev?: boolean;
  readonly devOptional?: boolean;
  readonly engines?: { readonly node?: string } | string[];
}

// `npm ci --omit=dev` (and the packed package installed globally) installs only the production
// dependencies: none of them may ask for a newer Node than `engines` promises, or npm warns EBADENGINE.
describe('a production install (npm ci --omit=dev, npm install -g <packed>)', () => {
  const lock = read('package-lock.json') as { packages: Record<string, LockedPackage> };
  const promised = (read('package.json') as { engines: { node: string } }).engines.node;
  // The oldest of each supported major line that `engines` admits: 20.19, and 22 and 24 as released.
  const supported = ['20.19.0', '22.0.0', '24.0.0'].map((version) => semver.minVersion(`${promised} >=${version}`)!.version);

  it('every production dependency runs on every Node the package promises, so npm warns of no engine', () => {
    const production = Object.entries(lock.packages).filter(([path, entry]) => path !== '' && !entry.dev && !entry.devOptional);
    assert.ok(production.length > 50, `production packages: ${production.length}`);
    const refused: string[] = [];
    for (const [path, entry] of production) {
      const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      if (range === undefined) continue;
      for (const version of supported) if (!semver.satisfies(version, range)) refused.push(`${path} needs Node ${range}, not ${version}`);
    }
    assert.deepEqual(refused, []);
  });

  // @axe-core/playwright 4.14 asks for Node 22.12: it stays on 4.13 (no engines) until Node 20 leaves `engines`.
  it('every package of the full install (development ones too) runs on Node 20.19 and 24, so npm ci warns of no engine there', () => {
    const refused: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      const range = path === '' || Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      if (range === undefined) continue;
      for (const version of [supported[0]!, supported[2]!]) if (!semver.satisfies(version, range)) refused.push(`${path} needs Node ${range}, not ${version}`);
    }
    assert.deepEqual(refused, []);
  });

  it('the packed package carries what runs (bin, dist, proto) and needs no build', () => {
    const pkg = read('package.json') as { files: string[]; bin: Record<string, string> };
    assert.deepEqual([...pkg.files].sort(), ['bin', 'dist', 'proto']);
    assert.equal(pkg.bin['content-filters'], 'bin/content-filters.js');
  });
});

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (file: string) => readFileSync(`${ROOT}${file}`, 'utf8');

/** The spec files `npm run test:contracts` names, in the order it names them. */
function listedSpecs(): string[] {
  const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
  return [...(scripts['test:contracts'] ?? '').matchAll(/test\/[\w/.-]+\.spec\.ts/g)].map((match) => match[0]);
}

const specs = readdirSync(`${ROOT}test`, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.spec.ts'))
  .map((file) => `test/${file}`);

const contractModules = readdirSync(`${ROOT}test/contracts`).filter((file) => file.endsWith('.contract.ts'));

/** A spec runs a contract suite when it imports one, or registers one for every store location. */
const runsContract = (spec: string) => /from '[./]*contracts\/[\w-]+\.contract\.ts'|eachStoreLocation\(/.test(read(spec));

// CI's `servers` job runs exactly this list against real servers: a suite missing from it is never run there.
describe('the list of contract suites (npm run test:contracts)', () => {
  it('names its files one by one rather than finding them by a pattern', () => {
    assert.ok(listedSpecs().length > 0, 'test:contracts names no spec file');
    assert.doesNotMatch(JSON.parse(read('package.json')).scripts['test:contracts'] as string, /grep|find|\*/);
  });

  it('names every spec that runs a contract suite', () => {
    const listed = new Set(listedSpecs());
    assert.deepEqual(
      specs.filter((spec) => runsContract(spec) && !listed.has(spec)),
      [],
    );
  });

  it('names only files that exist', () => {
    assert.deepEqual(
      listedSpecs().filter((spec) => !specs.includes(spec)),
      [],
    );
  });

  it('runs every contract module through at least one listed spec', () => {
    const texts = listedSpecs().map(read).join('\n');
    assert.deepEqual(
      contractModules.filter((module) => !texts.includes(`contracts/${module}'`)),
      [],
    );
  });
});

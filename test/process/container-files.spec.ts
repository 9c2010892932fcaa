import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const read = (name: string) => readFileSync(new URL(`../../${name}`, import.meta.url), 'utf8');

/** The Dockerfile's instructions, continuation lines joined and comments dropped, by stage. */
function stages(dockerfile: string): string[][] {
  const instructions = dockerfile
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  const result: string[][] = [];
  for (const instruction of instructions) {
    if (/^FROM /i.test(instruction)) result.push([]);
    result.at(-1)?.push(instruction);
  }
  return result;
}

// No Docker on the development machines: these read the files an operator builds from, so that what
// the docs promise of the image and of compose stays true when either file changes.
describe('the Dockerfile and docker-compose.yml', () => {
  const all = stages(read('Dockerfile'));
  const runtime = all.at(-1)!;

  it('build in one stage and run from a slim current Node LTS image without compilers', () => {
    assert.ok(all.length >= 2, 'multi-stage');
    assert.match(runtime[0]!, /^FROM node:24-slim\b/);
    for (const instruction of runtime) assert.doesNotMatch(instruction, /apt-get|build-essential|python3|g\+\+|make\b|npm (ci|install)/, instruction);
    assert.ok(
      runtime.some((instruction) => /^COPY --from=\S+ \S*dist/.test(instruction)),
      'the compiled JavaScript comes from the build stage',
    );
  });

  it('run as a user other than root, with a HEALTHCHECK on 127.0.0.1 and node as the command', () => {
    const user = runtime.filter((instruction) => /^USER /.test(instruction)).at(-1);
    assert.ok(user, 'a USER in the runtime stage');
    assert.doesNotMatch(user, /^USER (root|0)(:|$)/);
    const healthcheck = runtime.find((instruction) => /^HEALTHCHECK /.test(instruction));
    assert.ok(healthcheck, 'a HEALTHCHECK in the runtime stage');
    assert.match(healthcheck, /http:\/\/127\.0\.0\.1:/);
    assert.match(runtime.at(-1)!, /^CMD \["node", "dist\/main\.js"\]$/);
  });

  it('compose health checks use 127.0.0.1, never localhost', () => {
    const compose = read('docker-compose.yml');
    const tests = compose.split('\n').filter((line) => /^\s+test:/.test(line));
    assert.ok(tests.length >= 4, `health checks found: ${tests.length}`);
    for (const test of tests) {
      assert.match(test, /127\.0\.0\.1/, test);
      assert.doesNotMatch(test, /localhost/, test);
    }
  });
});

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
    // Pinned to the build stage's Node, which the addon was compiled against: never a floating tag.
    assert.equal(runtime[0], `${all[0]![0]!.replace(/ AS \w+$/i, '')}-slim`);
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
    assert.match(healthcheck, /http:\/\/127\.0\.0\.1:.*\/health\/live'/);
    assert.match(runtime.at(-1)!, /^CMD \["node", "dist\/main\.js"\]$/);
  });

  it('compose health checks use 127.0.0.1, never localhost', () => {
    const compose = read('docker-compose.yml');
    const tests = compose.split('\n').filter((line) => /^\s+test:/.test(line));
    assert.ok(tests.length >= 4, `health checks found: ${tests.length}`);
    // The gRPC check is a script of the image, which asks 127.0.0.1 (src/rpc/health-check.ts).
    for (const test of tests.filter((line) => !line.includes('dist/rpc/health-check.js'))) {
      assert.match(test, /127\.0\.0\.1/, test);
      assert.doesNotMatch(test, /localhost/, test);
    }
  });

  it('compose publishes every port on loopback only, shares no volume between app replicas, and checks gRPC through grpc.health.v1', () => {
    const compose = read('docker-compose.yml');
    const ports = compose.split('\n').filter(
      (line, i, lines) =>
        /^\s+- '/.test(line) &&
        lines
          .slice(0, i)
          .reverse()
          .find((l) => /^\s+\w+:/.test(l))
          ?.trim() === 'ports:',
    );
    assert.ok(ports.length >= 5, ports.join('\n'));
    for (const port of ports) assert.match(port, /- '127\.0\.0\.1:/, port);
    const app = compose.split('\nservices:')[0]!;
    assert.doesNotMatch(app, /volumes:/, 'the app services share no named volume (each has its own /data)');
    assert.doesNotMatch(compose, /Accounts and tokens stay in SQLite/);
    assert.match(compose, /test: \['CMD', 'node', 'dist\/rpc\/health-check\.js'\]/);
    assert.match(compose, /\/health\/ready/);
  });
});

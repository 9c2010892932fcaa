import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const workflow = readFileSync(new URL('../../.github/workflows/ci.yml', import.meta.url), 'utf8');

/** The workflow's jobs by id, each as its lines without comments (`npm run lint:workflow` checks the YAML itself). */
function jobs(): Map<string, string> {
  const body = workflow.slice(workflow.indexOf('\njobs:\n'));
  const found = new Map<string, string>();
  for (const part of body.split(/\n(?= {2}[\w-]+:\n)/).slice(1)) {
    const id = /^ {2}([\w-]+):/.exec(part)![1]!;
    found.set(id, part.replace(/^\s*#.*$/gm, ''));
  }
  return found;
}

// No Docker daemon on the development machines: CI is where the image is proven, so the job must exist.
describe('the CI workflow', () => {
  const all = jobs();

  it('has a job that builds the Dockerfile, runs the image and asks its own /health', () => {
    const job = [...all.values()].find((text) => /docker build\b/.test(text));
    assert.ok(job, 'no job runs docker build');
    const tag = /docker build (?:.* )?--tag (\S+)/.exec(job)?.[1];
    assert.ok(tag, 'the build is tagged');
    assert.match(job, new RegExp(`docker run .*${tag.replace(/[.:]/g, '\\$&')}`));
    assert.match(job, /curl --fail[^\n]*http:\/\/127\.0\.0\.1:\d+\/health/);
    assert.match(job, /\.State\.Health\.Status/, 'the image HEALTHCHECK is checked too');
  });

  it('runs every contract suite against real servers in the servers job', () => {
    const job = all.get('servers');
    assert.ok(job, 'a servers job');
    assert.match(job, /EVENTSTORE_URL: esdb:\/\//);
    assert.match(job, /MONGODB_URL: mongodb:\/\//);
    assert.match(job, /run: npm run test:contracts\n/);
  });
});

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

/** Every TypeScript file under src/ (relative, e.g. `http/app.ts`) with the src/ files it imports. */
function importGraph(): Map<string, string[]> {
  const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(join(SRC, file), 'utf8');
    const targets = [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+\.ts)'/g)].map((match) =>
      relative(SRC, resolve(dirname(join(SRC, file)), match[1]!)),
    );
    graph.set(file, targets);
  }
  return graph;
}

const folderOf = (file: string) => file.split('/')[0]!;

/** The first import cycle found, as a list of files, or null. */
function findCycle(graph: Map<string, string[]>): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (file: string): string[] | null => {
    if (state.get(file) === 'done') return null;
    if (state.get(file) === 'open') return [...path.slice(path.indexOf(file)), file];
    state.set(file, 'open');
    path.push(file);
    for (const target of graph.get(file) ?? []) {
      const cycle = visit(target);
      if (cycle) return cycle;
    }
    path.pop();
    state.set(file, 'done');
    return null;
  };
  for (const file of graph.keys()) {
    const cycle = visit(file);
    if (cycle) return cycle;
  }
  return null;
}

// The layout is the architecture a newcomer reads (docs/architecture.md "Where the code is"); these keep it true.
describe('the layout of src/', () => {
  const graph = importGraph();

  it('has no import cycles', () => {
    assert.equal(findCycle(graph)?.join(' -> ') ?? null, null);
  });

  it('keeps the core (commands, events, the fold, matching) free of the edges (HTTP, webmail, CLI, gRPC)', () => {
    const core = (file: string) => ['commands', 'events', 'matching'].includes(folderOf(file)) || file.startsWith('projections/fold/');
    const edges = ['http', 'webmail', 'cli', 'rpc'];
    for (const [file, targets] of graph) {
      if (!core(file)) continue;
      for (const target of targets) assert.ok(!edges.includes(folderOf(target)), `${file} imports ${target}`);
    }
  });

  it('keeps the webmail a context of its own: the filters API imports none of it, and it none of the API', () => {
    for (const [file, targets] of graph) {
      for (const target of targets) {
        if (folderOf(file) === 'http') assert.notEqual(folderOf(target), 'webmail', `${file} imports ${target}`);
        if (folderOf(file) === 'webmail') assert.notEqual(folderOf(target), 'http', `${file} imports ${target}`);
      }
    }
  });
});

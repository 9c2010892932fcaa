#!/usr/bin/env node
// The import graph of src/, checked by `npm run lint`: no cycle between files (type-only imports
// included, as a reader follows them too), and no folder importing one of a higher layer than its own
// (the layers docs/architecture.md draws). A small script rather than dependency-cruiser: the rules
// are two, and src/ imports only by relative paths ending in `.ts`.
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Lowest first; a folder may import its own layer and those below it. Keep in step with docs/architecture.md. */
export const LAYERS = [
  ['shared'],
  ['events', 'accounts'],
  ['commands', 'matching', 'mastodon'],
  ['projections', 'notifications', 'metrics', 'health'],
  ['http', 'oauth', 'rate-limits', 'webmail', 'rpc'],
  ['cli', '(root)'],
];

// `import … from '…'`, `export … from '…'` (across lines) and `import('…')`; comments are stripped first.
const IMPORT = /(?:^|[\n;])\s*(?:import|export)\s+[^'";]*?\sfrom\s+'([^']+)'|(?:^|[\n;])\s*import\s+'([^']+)'|\bimport\(\s*'([^']+)'\s*\)/g;
const COMMENT = /\/\*[\s\S]*?\*\/|(?<![:'"])\/\/[^\n]*/g;

function sourceFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Each file of `srcDir` with the files of `srcDir` it imports. */
export function importGraph(srcDir) {
  const graph = new Map();
  for (const file of sourceFiles(srcDir)) {
    const text = readFileSync(file, 'utf8').replace(COMMENT, '');
    const targets = [];
    for (const match of text.matchAll(IMPORT)) {
      const specifier = match[1] ?? match[2] ?? match[3];
      if (specifier.startsWith('.')) targets.push(resolve(dirname(file), specifier));
    }
    graph.set(file, targets);
  }
  return graph;
}

/** Files that import each other, directly or round about (Tarjan's strongly connected components). */
export function cycles(graph) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  let next = 0;
  const visit = (file) => {
    index.set(file, next);
    low.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file), low.get(target)));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file), index.get(target)));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || (graph.get(file) ?? []).includes(file)) found.push(component);
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

function layerOf(srcDir, file) {
  const parts = relative(srcDir, file).split('/');
  const folder = parts.length === 1 ? '(root)' : parts[0];
  const layer = LAYERS.findIndex((folders) => folders.includes(folder));
  return { folder, layer };
}

/** Every import of a folder from a higher layer, and every folder no layer names. */
export function layerViolations(srcDir, graph) {
  const found = [];
  for (const [file, targets] of graph) {
    const from = layerOf(srcDir, file);
    if (from.layer < 0) found.push(`${relative(srcDir, file)}: folder ${from.folder} is in no layer`);
    for (const target of targets) {
      const to = layerOf(srcDir, target);
      if (to.layer > from.layer) {
        found.push(`${relative(srcDir, file)} imports ${relative(srcDir, target)}: ${from.folder} is below ${to.folder}`);
      }
    }
  }
  return found;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const srcDir = resolve(process.argv[2] ?? 'src');
  const graph = importGraph(srcDir);
  const problems = [
    ...cycles(graph).map((files) => `import cycle: ${files.map((file) => relative(srcDir, file)).join(' -> ')}`),
    ...layerViolations(srcDir, graph),
  ];
  for (const problem of problems) console.error(problem);
  if (problems.length > 0) process.exit(1);
  console.log(`import graph: ${graph.size} files, no cycle, every import within its layer or below`);
}

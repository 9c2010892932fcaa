import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';

const ROOT = new URL('../../', import.meta.url);
const folders = (path: string) =>
  readdirSync(new URL(path, ROOT), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);

/** The folder names of the "Where the code is" tree (docs/architecture.md), each with its indentation. */
function docsTree(): string[] {
  const readme = readFileSync(new URL('docs/architecture.md', ROOT), 'utf8');
  const section = readme.split('## Where the code is')[1]?.split('```')[1];
  assert.ok(section, 'docs/architecture.md has a "Where the code is" tree');
  return section
    .split('\n')
    .map((line) => /^( *)([\w.-]+)\/(?: |$)/.exec(line))
    .filter((match) => match !== null)
    .map((match) => `${match[1]}${match[2]}`);
}

// The tree is how a newcomer finds the architecture: a folder added or renamed without it is lost.
describe("the architecture page's tree of folders", () => {
  it('names every folder of src/ and of src/projections/, one line each, as they are', () => {
    const tree = docsTree();
    const expected = [...folders('src/').map((name) => `  ${name}`), ...folders('src/projections/').map((name) => `    ${name}`)];
    for (const folder of expected) assert.ok(tree.includes(folder), `${folder.trim()}/ is missing from the tree in docs/architecture.md`);
    const listed = tree.filter((line) => /^ {2,4}\S/.test(line));
    for (const line of listed) assert.ok(expected.includes(line), `${line.trim()}/ is in the tree in docs/architecture.md but not in src/`);
  });
});

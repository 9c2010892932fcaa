import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';

const ROOT = new URL('../../', import.meta.url);
const folders = (path: string) =>
  readdirSync(new URL(path, ROOT), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);

/** The folder names of the README's "Where the code is" tree, each with its indentation. */
function readmeTree(): string[] {
  const readme = readFileSync(new URL('README.md', ROOT), 'utf8');
  const section = readme.split('## Where the code is')[1]?.split('```')[1];
  assert.ok(section, 'the README has a "Where the code is" tree');
  return section
    .split('\n')
    .map((line) => /^( *)([\w.-]+)\/(?: |$)/.exec(line))
    .filter((match) => match !== null)
    .map((match) => `${match[1]}${match[2]}`);
}

// The tree is how a newcomer finds the architecture: a folder added or renamed without it is lost.
describe("the README's tree of folders", () => {
  it('names every folder of src/ and of src/projections/, one line each, as they are', () => {
    const tree = readmeTree();
    const expected = [...folders('src/').map((name) => `  ${name}`), ...folders('src/projections/').map((name) => `    ${name}`)];
    for (const folder of expected) assert.ok(tree.includes(folder), `${folder.trim()}/ is missing from the README tree`);
    const listed = tree.filter((line) => /^ {2,4}\S/.test(line));
    for (const line of listed) assert.ok(expected.includes(line), `${line.trim()}/ is in the README tree but not in src/`);
  });
});

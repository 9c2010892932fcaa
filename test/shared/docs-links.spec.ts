import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { docPages } from '../support/docs-commands.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const read = (page: string) => readFileSync(join(ROOT, page), 'utf8');

/** GitHub's heading anchors: lower case, punctuation dropped (but `-` and `_`), each space a `-`. */
const anchor = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/ /g, '-');

/** The anchors of a page's headings, outside code blocks. */
function anchorsOf(page: string): Set<string> {
  const text = read(page).replace(/^```[\s\S]*?^```$/gm, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map(([, heading]) => anchor(heading!.trim())));
}

/** Every relative link `[text](target)` of a page, outside code blocks. */
function linksOf(page: string): string[] {
  const text = read(page).replace(/^```[\s\S]*?^```$/gm, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map(([, target]) => target!).filter((target) => !/^[a-z]+:/.test(target));
}

// The README is the front door: short, and every topic a link away, each link landing on something.
describe('README.md and the docs/ pages it splits into', () => {
  it('keeps the README short: under 100 lines', () => {
    const lines = read('README.md').split('\n').length;
    assert.ok(lines < 100, `README.md has ${lines} lines`);
  });

  it('links every docs/ page from the README', () => {
    const linked = new Set(linksOf('README.md').map((target) => target.split('#')[0]));
    assert.deepEqual(
      docPages()
        .filter((page) => page.startsWith('docs/'))
        .filter((page) => !linked.has(page)),
      [],
    );
  });

  it('has no link to a missing file or heading, in the README or any docs/ page', () => {
    const broken: string[] = [];
    for (const page of docPages()) {
      for (const target of linksOf(page)) {
        const [path, fragment] = target.split('#') as [string, string | undefined];
        const file = path === '' ? page : normalize(join(dirname(page), path));
        if (!existsSync(join(ROOT, file))) broken.push(`${page}: ${target} (no ${file})`);
        else if (fragment !== undefined && file.endsWith('.md') && !anchorsOf(file).has(fragment)) broken.push(`${page}: ${target} (no heading #${fragment})`);
      }
    }
    assert.deepEqual(broken, []);
  });
});

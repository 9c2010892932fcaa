import assert from 'node:assert/strict';
import { htmlToPlainText } from '../../src/matching/plain-text.ts';
import { charactersScanned } from './scan-work.ts';

/** Hostile HTML of about 100,000 characters, each made of one construct repeated. */
const HOSTILE: Record<string, string> = {
  'empty comments': '<!---->'.repeat(14_000),
  'comments closed by --!>': '<!--x--!>'.repeat(11_000),
  'comments full of dashes': '<!-- - -- --- -->'.repeat(6_000),
  'an unclosed comment of dashes': `<!--${'-!-'.repeat(33_000)}`,
  'bogus comments': '<!x>'.repeat(25_000),
  'processing instructions': '<?x>'.repeat(25_000),
  'end tags that are not tags': '</ >'.repeat(25_000),
  'tags with quoted attributes': '<a b="c" d=\'e\'>'.repeat(6_000),
  'an unclosed quoted attribute': `<a b="${'x'.repeat(100_000)}`,
  'raw text elements': '<title>x</title>'.repeat(6_000),
  'newline runs': '<br /><br></p>'.repeat(7_000),
  'lone less-than signs': '< <'.repeat(33_000),
  'character references': '&amp;&lt&#x41;'.repeat(7_000),
};

describe('plain text of hostile HTML', () => {
  for (const [name, html] of Object.entries(HOSTILE)) {
    it(`reads ${name} in one forward pass (a bounded number of looks per character)`, () => {
      const scanned = charactersScanned(() => htmlToPlainText(html));
      assert.ok(scanned <= 8 * html.length, `${scanned} characters looked at for ${html.length} of input`);
    });
  }

  it('still ends a comment at the first --> or --!>, whichever comes first', () => {
    assert.equal(htmlToPlainText('a<!-- b --!> c -->d'), 'a c -->d');
    assert.equal(htmlToPlainText('a<!-- b --> c --!>d'), 'a c --!>d');
    assert.equal(htmlToPlainText('a<!-- b ---!-->c'), 'ac');
    assert.equal(htmlToPlainText('a<!-- b --!-- -->c'), 'ac');
    assert.equal(htmlToPlainText('a<!----->b<!--->c<!-->d'), 'abcd');
    assert.equal(htmlToPlainText('a<!-- b -- ! > c'), 'a');
  });
});

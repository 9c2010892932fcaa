import assert from 'node:assert/strict';
import { htmlToPlainText } from '../../src/matching/plain-text.ts';
import { searchableText } from '../../src/matching/searchable-text.ts';
import { keywordMatch } from './filter-fixtures.ts';

// Mastodon's PlainTextFormatter: newline after runs of <br />, <br>, </p>; strip_tags; entities decoded; chomp.
describe("the plain text of a status's HTML", () => {
  it('drops tags and keeps the text of every element', () => {
    const html =
      '<p><span class="h-card"><a href="https://example.social/@bob" class="u-url mention">@<span>bob</span></a></span> read <a href="https://x.example/a?b=1&amp;c=2">this</a></p>';
    assert.equal(htmlToPlainText(html), '@bob read this');
  });

  it('puts a newline after each run of <br />, <br> and </p>, and chomps the last one', () => {
    assert.equal(htmlToPlainText('<p>one</p><p>two<br />three<br>four</p>'), 'one\ntwo\nthree\nfour');
    assert.equal(htmlToPlainText('<p>a<br><br /></p><p>b</p>'), 'a\nb');
    assert.equal(htmlToPlainText('a<BR>b<br/>c'), 'abc', 'only the exact spellings Mastodon looks for');
    assert.equal(htmlToPlainText('<p>a</p>\n'), 'a\n');
  });

  it('decodes named, numeric and legacy entities', () => {
    assert.equal(
      htmlToPlainText('Tom &amp; Jerry &lt;3 &quot;hi&quot; &#39;x&#x27; &eacute;t&eacute; &#x1F600; &copy 2024'),
      'Tom & Jerry <3 "hi" \'x\' été 😀 © 2024',
    );
    assert.equal(htmlToPlainText('&amp;lt;'), '&lt;', 'decoded once');
    assert.equal(htmlToPlainText('a&nbsp;b'), 'a\u00a0b');
    assert.equal(htmlToPlainText('AT&T &unknown; &'), 'AT&T &unknown; &');
  });

  it('keeps a < or > that starts no tag as text', () => {
    assert.equal(htmlToPlainText('a < b > c'), 'a < b > c');
    assert.equal(htmlToPlainText('1 <2 and x</'), '1 <2 and x</');
  });

  it('drops comments, bogus comments and declarations', () => {
    assert.equal(htmlToPlainText('a<!-- hidden <br> -->b<!---->c<!-->d<?php x ?>e<!DOCTYPE html>f</ junk>g'), 'abcdefg');
  });

  it('ends a tag at the first > outside quoted attribute values', () => {
    assert.equal(htmlToPlainText('<a title="1 > 0" data-x=\'<br>\'>link</a>'), 'link');
    assert.equal(htmlToPlainText('<img alt="a cat">text'), 'text');
  });

  it('keeps the raw text of script and style and the decoded text of title and textarea', () => {
    assert.equal(htmlToPlainText('a<script>if (x < 1) y = "&amp;";</script>b'), 'aif (x < 1) y = "&amp;";b');
    assert.equal(htmlToPlainText('<style>p > a { }</style>'), 'p > a { }');
    assert.equal(htmlToPlainText('<textarea>&lt;b&gt;</textarea>'), '<b>');
  });

  it('drops a tag or comment cut off by the end of the input, and what follows it', () => {
    assert.equal(htmlToPlainText('text<a href="x'), 'text');
    assert.equal(htmlToPlainText('text<!-- open'), 'text');
  });

  it('turns CR LF and CR into LF, as HTML parsing does', () => {
    assert.equal(htmlToPlainText('a\r\nb\rc'), 'a\nb\nc');
  });

  it('chomps one trailing LF, CR LF or CR, as Ruby does', () => {
    assert.equal(htmlToPlainText('a\n\n'), 'a\n');
    assert.equal(htmlToPlainText('a&#13;'), 'a');
    assert.equal(htmlToPlainText('a&#13;<br>'), 'a', "the decoded CR and the run's LF come off together");
    assert.equal(htmlToPlainText('a<br><p>b</p>'), 'a\nb');
  });

  it('is what keywords are matched against', () => {
    assert.deepEqual(keywordMatch('fish & chips', '<p>fish &amp; chips</p>'), ['fish & chips']);
    assert.deepEqual(keywordMatch('bold', '<p>a <strong>bold</strong> move</p>'), ['bold']);
    assert.equal(keywordMatch('strong', '<p>a <strong>bold</strong> move</p>'), null);
    assert.equal(keywordMatch('ab', '<p>a</p><p>b</p>', false), null, 'paragraphs are separated by a newline');
    assert.deepEqual(keywordMatch('ab', 'a<b>b</b>', false), ['ab'], 'inline tags leave no gap');
  });
});

describe('the searchable text of a status', () => {
  it('joins spoiler, content, poll options and media descriptions with blank lines', () => {
    const text = searchableText({ id: '1', spoiler_text: 'cw', content: '<p>body</p>', poll_options: ['yes', 'no'], media_descriptions: ['cat', null, 'dog'] });
    assert.equal(text, 'cw\n\nbody\n\nyes\n\nno\n\ncat\n\n\n\ndog');
  });

  it('always has the spoiler and media parts, and the poll part only with a poll', () => {
    assert.equal(searchableText({ id: '1', content: 'body' }), '\n\nbody\n\n');
    assert.equal(searchableText({ id: '1', content: 'body', poll_options: [] }), '\n\nbody\n\n\n\n');
  });
});

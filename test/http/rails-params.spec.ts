import assert from 'node:assert/strict';
import { railsParams } from '../../src/http/rails-params.ts';

const parse = (query: string) => railsParams(new URLSearchParams(query));

describe('Rails-style form parameters', () => {
  it('reads plain keys and appends [] keys to a list', () => {
    assert.deepEqual(parse('title=magic&context[]=home&context[]=public'), { title: 'magic', context: ['home', 'public'] });
  });

  it('groups [][key] pairs into one hash until a key repeats', () => {
    assert.deepEqual(parse('keywords_attributes[][id]=1&keywords_attributes[][keyword]=a&keywords_attributes[][id]=2&keywords_attributes[][_destroy]=1'), {
      keywords_attributes: [
        { id: '1', keyword: 'a' },
        { id: '2', _destroy: '1' },
      ],
    });
  });

  it('keeps indexed hashes as hashes keyed by index', () => {
    assert.deepEqual(parse('keywords_attributes[0][keyword]=tv&keywords_attributes[1][keyword]=radio'), {
      keywords_attributes: { '0': { keyword: 'tv' }, '1': { keyword: 'radio' } },
    });
  });

  it('decodes percent-escapes and plus signs', () => {
    assert.deepEqual(parse('title=two+words%21&context%5B%5D=home'), { title: 'two words!', context: ['home'] });
  });

  it('keeps a malformed name as a plain key instead of failing', () => {
    assert.deepEqual(parse('a[b=1&c]=2'), { 'a[b': '1', 'c]': '2' });
  });
});

import assert from 'node:assert/strict';
import { serverWithTwoAccounts } from '../support/test-server.ts';

/**
 * What a JSON value of another type than the parameter's does, as Mastodon's Rails does it: strong
 * parameters permit any scalar, ActiveModel::Type::ImmutableString turns a number into its text and
 * ActiveModel::Type::Boolean a value into a boolean (rails/rails activemodel/lib/active_model/type/);
 * where Rails would store `true` as the title "t", or drop a list or a hash, this service answers 422.
 */
describe('Typed parameters over HTTP: cast as Rails casts them, or refused by name', () => {
  const given = serverWithTwoAccounts();
  const create = (json: unknown) => given.server.request('POST', '/api/v2/filters', { token: given.alice.token, json });

  it('stores {"title":5} as the title "5" and whole_word "maybe" as true (ImmutableString, Boolean)', async () => {
    const created = await create({ title: 5, context: ['home'], keywords_attributes: [{ keyword: 7, whole_word: 'maybe' }] });
    assert.equal(created.status, 200);
    assert.equal(created.body.title, '5');
    assert.deepEqual(
      created.body.keywords.map((k: { keyword: string; whole_word: boolean }) => [k.keyword, k.whole_word]),
      [['7', true]],
    );
  });

  it('reads only the exact FALSE_VALUES as false: "OFF" and 0 are false, "False" and "Off" true', async () => {
    const rows = ['OFF', 0, 'False', 'Off', 'f', 'no'].map((whole_word, i) => ({ keyword: `k${i}`, whole_word }));
    const created = await create({ title: 't', context: ['home'], keywords_attributes: rows });
    assert.equal(created.status, 200);
    assert.deepEqual(
      created.body.keywords.map((k: { whole_word: boolean }) => k.whole_word),
      [false, false, true, true, false, true],
    );
  });

  it('refuses true, null, a list or a hash where text is expected, naming the parameter', async () => {
    for (const title of [true, null, ['t'], { a: 't' }]) {
      const refused = await create({ title, context: ['home'] });
      assert.deepEqual([refused.status, refused.body], [422, { error: 'Validation failed: title is invalid' }], JSON.stringify(title));
    }
    const keyword = await create({ title: 't', context: ['home'], keywords_attributes: [{ keyword: 'k', whole_word: ['x'] }] });
    assert.deepEqual(keyword.body, { error: 'Validation failed: keywords_attributes[0][whole_word] is invalid' });
  });
});

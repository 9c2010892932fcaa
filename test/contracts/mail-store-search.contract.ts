import assert from 'node:assert/strict';
import type { Delivery } from '../../src/webmail/mail/mail-store.ts';
import type { MailSearch } from '../../src/webmail/mail/mail-search.ts';
import type { LocationFixture } from '../support/store-locations.ts';
import { webmailStoresSubject } from './webmail-stores-fixture.ts';

let sequence = 0;

function mail(fields: Partial<Delivery> & { readonly to: string[] }): Delivery {
  sequence += 1;
  return {
    messageId: `<s${sequence}@localhost>`,
    from: 'carol@example.org',
    cc: [],
    subject: `plain ${sequence}`,
    body: `nothing ${sequence}`,
    date: new Date(Date.UTC(2026, 0, 1, 0, 0, sequence)).toISOString(),
    senderAccountId: 'outside',
    localRecipients: [{ accountId: 'reader', address: 'reader@localhost' }],
    ...fields,
  };
}

const search = (text: string, ...fields: MailSearch['fields'][number][]): MailSearch => ({ text, fields });

/** The local store's search: the fields asked for, any case, the text taken literally, one account's one folder. */
export function mailStoreSearchContract(name: string, fixture: () => LocationFixture | null): void {
  describe(`MailStore search: ${name}`, function () {
    const subject = webmailStoresSubject(fixture);

    it('finds by subject, sender, recipient or body, only in the fields asked for, in any case, newest first', async () => {
      const { mail: store } = await subject.open();
      await store.deliver(mail({ to: ['reader@localhost'], subject: 'Quarterly REPORT' }));
      await store.deliver(mail({ to: ['reader@localhost'], from: 'report-bot@example.org' }));
      await store.deliver(mail({ to: ['reader@localhost', 'reports@example.org'] }));
      await store.deliver(mail({ to: ['reader@localhost'], body: 'see the attached report, please' }));
      await store.deliver(mail({ to: ['reader@localhost'] }));
      const subjects = async (query: MailSearch) => {
        const found = await store.search('reader', 'INBOX', query, 10, 0);
        assert.equal(found.total, found.messages.length);
        return found.messages.map((m) => m.subject);
      };
      assert.deepEqual(await subjects(search('report', 'subject')), ['Quarterly REPORT']);
      assert.deepEqual(await subjects(search('Report', 'from')), [`plain ${sequence - 3}`]);
      assert.deepEqual(await subjects(search('REPORTS@', 'to')), [`plain ${sequence - 2}`]);
      assert.deepEqual(await subjects(search('attached report', 'body')), [`plain ${sequence - 1}`]);
      assert.deepEqual(await subjects(search('report', 'subject', 'from', 'to', 'body')), [
        `plain ${sequence - 1}`,
        `plain ${sequence - 2}`,
        `plain ${sequence - 3}`,
        'Quarterly REPORT',
      ]);
      assert.deepEqual(await subjects(search('absent', 'subject', 'from', 'to', 'body')), []);
    });

    it('pages with an offset and counts every match', async () => {
      const { mail: store } = await subject.open();
      for (let i = 0; i < 5; i += 1) await store.deliver(mail({ to: ['reader@localhost'], subject: `invoice ${i}` }));
      await store.deliver(mail({ to: ['reader@localhost'], subject: 'other' }));
      const page = await store.search('reader', 'INBOX', search('INVOICE', 'subject'), 2, 1);
      assert.equal(page.total, 5);
      assert.deepEqual(
        page.messages.map((m) => m.subject),
        ['invoice 3', 'invoice 2'],
      );
    });

    it("takes the text literally and never finds another account's mail or another folder's", async () => {
      const { mail: store } = await subject.open();
      await store.deliver(mail({ to: ['reader@localhost'], subject: 'price 100% off_now (a+b) [x] \\ $1 .*' }));
      await store.deliver(mail({ to: ['reader@localhost'], subject: 'price 100 percent offXnow' }));
      for (const text of ['100%', 'off_now', '(a+b)', '[x]', '\\', '$1', '.*']) {
        assert.deepEqual(
          (await store.search('reader', 'INBOX', search(text, 'subject'), 10, 0)).messages.map((m) => m.subject),
          ['price 100% off_now (a+b) [x] \\ $1 .*'],
          text,
        );
      }
      assert.equal((await store.search('someone-else', 'INBOX', search('price', 'subject'), 10, 0)).total, 0);
      assert.equal((await store.search('reader', 'Trash', search('price', 'subject'), 10, 0)).total, 0);
      assert.equal((await store.search('outside', 'Sent', search('price', 'subject'), 10, 0)).total, 2, "the sender's copies are its own");
    });
  });
}

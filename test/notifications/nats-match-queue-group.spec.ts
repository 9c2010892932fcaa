import assert from 'node:assert/strict';
import { connect } from 'nats';
import { AccountMatchers } from '../../src/matching/account-matchers.ts';
import { NatsMatchResponder } from '../../src/notifications/nats-match-responder.ts';
import { newId } from '../../src/shared/ids.ts';

const natsUrl = process.env.NATS_URL;

/** A responder whose matcher counts the requests it was given (an account without filters). */
async function countingResponder(subject: string) {
  const counted = { requests: 0 };
  const matchers = new AccountMatchers({
    filtersVersion: () => {
      counted.requests += 1;
      return Promise.resolve('0:0');
    },
    listFilters: () => Promise.resolve([]),
  });
  return { counted, responder: await NatsMatchResponder.start(natsUrl!, matchers, undefined, subject) };
}

describe('filter matching over NATS scales with the API processes (a queue group)', function () {
  before(function () {
    if (!natsUrl) {
      console.log('    (skipped: set NATS_URL, e.g. nats://127.0.0.1:4222, to run the NATS matching tests)');
      this.skip();
    }
  });

  it('has each request answered by exactly one of the responders', async () => {
    const subject = `test.filters.match.${newId()}`;
    const first = await countingResponder(subject);
    const second = await countingResponder(subject);
    const client = await connect({ servers: natsUrl });
    const total = 20;
    try {
      for (let i = 0; i < total; i++) {
        const reply = await client.request(`${subject}.${newId()}`, new TextEncoder().encode(JSON.stringify({ statuses: [{ id: String(i + 1) }] })), {
          timeout: 10_000,
        });
        assert.deepEqual(JSON.parse(reply.string()), { results: { [String(i + 1)]: [] } });
      }
    } finally {
      await client.close();
      // Closing drains: every request NATS handed to a responder has been answered once this returns.
      await Promise.all([first.responder.close(), second.responder.close()]);
    }
    assert.equal(first.counted.requests + second.counted.requests, total);
  });
});

import assert from 'node:assert/strict';
import { Metadata, status } from '@grpc/grpc-js';
import { collect, doubleEchoAll, nextReplies, openDoubleEcho } from './support/rpc-client.ts';
import { servedTestService } from './support/served-test-service.ts';
import { streamsClosed } from './support/streams-closed.ts';

describe('TestService DoubleEcho', () => {
  const served = servedTestService();

  it('answers every message twice, in order, and ends OK on half-close', async () => {
    const { replies, status: final } = await doubleEchoAll(served.client, ['m0', 'm1', 'm2']);
    assert.deepEqual(replies, ['m0', 'm0', 'm1', 'm1', 'm2', 'm2']);
    assert.equal(final.code, status.OK);
  });

  it('ends OK with no replies when the client half-closes without sending', async () => {
    const { replies, status: final } = await doubleEchoAll(served.client, []);
    assert.deepEqual(replies, []);
    assert.equal(final.code, status.OK);
  });

  it('echoes empty payloads', async () => {
    assert.deepEqual((await doubleEchoAll(served.client, ['', ''])).replies, ['', '', '', '']);
  });

  it('answers 10,000 messages with 20,000 replies in order', async () => {
    const payloads = Array.from({ length: 10_000 }, (_, i) => `n${i}`);
    const { replies, status: final } = await doubleEchoAll(served.client, payloads);
    assert.equal(final.code, status.OK);
    assert.equal(replies.length, 20_000);
    assert.deepEqual(
      replies,
      payloads.flatMap((p) => [p, p]),
    );
  });

  it('answers each message as it arrives, before the client half-closes', async () => {
    const call = openDoubleEcho(served.client);
    for (const payload of ['p0', 'p1', 'p2']) {
      const answered = nextReplies(call, 2);
      call.write({ payload });
      assert.deepEqual(await answered, [payload, payload]);
    }
    const outcome = collect(call);
    call.end();
    assert.equal((await outcome).status.code, status.OK);
    await streamsClosed(served.server);
  });

  it('ends the server side cleanly when the client cancels mid-stream, and keeps serving', async () => {
    const call = openDoubleEcho(served.client);
    const outcome = collect(call);
    const firstReplies = nextReplies(call, 100);
    for (let i = 0; i < 5_000; i++) call.write({ payload: `c${i}` });
    await firstReplies;
    call.cancel();
    assert.equal((await outcome).status.code, status.CANCELLED);
    await streamsClosed(served.server);
    assert.deepEqual((await doubleEchoAll(served.client, ['after'])).replies, ['after', 'after']);
  });

  it('ends with DEADLINE_EXCEEDED when the client leaves the stream open past its deadline', async () => {
    const call = openDoubleEcho(served.client, { deadlineMs: 300 });
    const outcome = collect(call);
    call.write({ payload: 'waiting' });
    const { replies, status: final } = await outcome;
    assert.equal(final.code, status.DEADLINE_EXCEEDED);
    assert.deepEqual(replies, ['waiting', 'waiting']);
    await streamsClosed(served.server);
  });

  it('sends both replies of earlier messages, then RESOURCE_EXHAUSTED for one over the size limit', async () => {
    const { replies, status: final } = await doubleEchoAll(served.client, ['small', 'x'.repeat(5 * 1024 * 1024), 'never']);
    assert.equal(final.code, status.RESOURCE_EXHAUSTED);
    assert.deepEqual(replies, ['small', 'small']);
    await streamsClosed(served.server);
  });

  it('echoes the interop metadata: the initial value as a header, the -bin value as a trailer', async () => {
    const metadata = new Metadata();
    metadata.set('x-grpc-test-echo-initial', 'stream_initial');
    metadata.set('x-grpc-test-echo-trailing-bin', Buffer.from([0x0a, 0x0b, 0x0a, 0x0b]));
    const { headers, status: final, replies } = await doubleEchoAll(served.client, ['md'], { metadata });
    assert.deepEqual(replies, ['md', 'md']);
    assert.deepEqual(headers.get('x-grpc-test-echo-initial'), ['stream_initial']);
    assert.deepEqual(final.metadata.get('x-grpc-test-echo-trailing-bin'), [Buffer.from([0x0a, 0x0b, 0x0a, 0x0b])]);
  });
});

import assert from 'node:assert/strict';
import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { INT32_MAX, INT32_MIN } from '../../src/rpc/exact-sum.ts';
import { startRpcServer } from '../../src/rpc/rpc-server.ts';
import { testClient, unary } from './support/rpc-client.ts';
import { servedTestService } from './support/served-test-service.ts';

const rejectsWith = (code: status, details?: RegExp) => (error: ServiceError) => {
  assert.equal(error.code, code, `expected ${status[code]}, got ${status[error.code]}: ${error.details}`);
  if (details) assert.match(error.details, details);
  return true;
};

describe('TestService unary methods', () => {
  const served = servedTestService();

  describe('Echo', () => {
    it('returns any UTF-8 payload unchanged', async () => {
      const payload = 'hello ☃ \u0000 tab\t newline\n 😈 مرحبا';
      assert.deepEqual((await unary(served.client, 'Echo', { payload })).value, { payload });
    });

    it('returns an empty payload as empty', async () => {
      assert.deepEqual((await unary(served.client, 'Echo', { payload: '' })).value, { payload: '' });
    });

    it('echoes the largest payload that fits the 4 MiB default, and refuses one byte more', async () => {
      // 1 tag byte + 4 length-varint bytes + payload = 4 MiB exactly.
      const fits = 'x'.repeat(4 * 1024 * 1024 - 5);
      assert.equal((await unary(served.client, 'Echo', { payload: fits })).value.payload.length, fits.length);
      await assert.rejects(unary(served.client, 'Echo', { payload: `${fits}x` }), rejectsWith(status.RESOURCE_EXHAUSTED, /larger than max/));
    });

    it('ends with DEADLINE_EXCEEDED when the deadline has already passed, and keeps serving', async () => {
      await assert.rejects(unary(served.client, 'Echo', { payload: 'late' }, { deadlineMs: -1 }), rejectsWith(status.DEADLINE_EXCEEDED));
      assert.equal((await unary(served.client, 'Echo', { payload: 'next' })).value.payload, 'next');
    });
  });

  describe('Sum', () => {
    it('adds the values', async () => {
      assert.deepEqual((await unary(served.client, 'Sum', { values: [1, 2, 3] })).value, { value: 6 });
      assert.deepEqual((await unary(served.client, 'Sum', { values: [-5, 2] })).value, { value: -3 });
    });

    it('gives 0 for an empty list', async () => {
      assert.deepEqual((await unary(served.client, 'Sum', { values: [] })).value, { value: 0 });
    });

    it('returns totals at both int32 bounds', async () => {
      assert.deepEqual((await unary(served.client, 'Sum', { values: [INT32_MAX - 1, 1] })).value, { value: INT32_MAX });
      assert.deepEqual((await unary(served.client, 'Sum', { values: [INT32_MIN + 1, -1] })).value, { value: INT32_MIN });
      assert.deepEqual((await unary(served.client, 'Sum', { values: [INT32_MAX, 1, -1] })).value, { value: INT32_MAX });
    });

    it('refuses a total above int32 with OUT_OF_RANGE, never wrapping it', async () => {
      await assert.rejects(
        unary(served.client, 'Sum', { values: [INT32_MAX, 1] }),
        rejectsWith(status.OUT_OF_RANGE, /^sum 2147483648 does not fit in int32 \(-2147483648 to 2147483647\)$/),
      );
      await assert.rejects(unary(served.client, 'Sum', { values: [INT32_MAX, INT32_MAX] }), rejectsWith(status.OUT_OF_RANGE, /4294967294/));
    });

    it('refuses a total below int32 with OUT_OF_RANGE', async () => {
      await assert.rejects(unary(served.client, 'Sum', { values: [INT32_MIN, -1] }), rejectsWith(status.OUT_OF_RANGE, /-2147483649/));
    });

    it('adds 800,000 values in one request', async () => {
      const values = new Array<number>(800_000).fill(2);
      assert.deepEqual((await unary(served.client, 'Sum', { values })).value, { value: 1_600_000 });
    });
  });

  describe('interop metadata echo', () => {
    const asking = () => {
      const metadata = new Metadata();
      metadata.set('x-grpc-test-echo-initial', 'test_initial_metadata_value');
      metadata.set('x-grpc-test-echo-trailing-bin', Buffer.from([0xab, 0xab, 0xab]));
      return metadata;
    };

    it('sends x-grpc-test-echo-initial back as a header and x-grpc-test-echo-trailing-bin as a trailer', async () => {
      const { headers, trailers } = await unary(served.client, 'Echo', { payload: 'md' }, { metadata: asking() });
      assert.deepEqual(headers.get('x-grpc-test-echo-initial'), ['test_initial_metadata_value']);
      assert.deepEqual(trailers.get('x-grpc-test-echo-trailing-bin'), [Buffer.from([0xab, 0xab, 0xab])]);
      assert.deepEqual(headers.get('x-grpc-test-echo-trailing-bin'), []);
    });

    it('sends the trailer with an error status too', async () => {
      const error: ServiceError = await unary(served.client, 'Sum', { values: [INT32_MAX, 1] }, { metadata: asking() }).then(
        () => assert.fail('Sum should have failed'),
        (failure: ServiceError) => failure,
      );
      assert.equal(error.code, status.OUT_OF_RANGE);
      assert.deepEqual(error.metadata.get('x-grpc-test-echo-trailing-bin'), [Buffer.from([0xab, 0xab, 0xab])]);
    });

    it('sends no echo headers when none were asked for', async () => {
      const { headers, trailers } = await unary(served.client, 'Echo', { payload: 'plain' });
      assert.deepEqual(headers.get('x-grpc-test-echo-initial'), []);
      assert.deepEqual(trailers.get('x-grpc-test-echo-trailing-bin'), []);
    });
  });

  describe('compression', () => {
    it('takes gzip- and deflate-compressed requests', async () => {
      for (const algorithm of [2, 1]) {
        const compressing = testClient(served.server.target, { 'grpc.default_compression_algorithm': algorithm });
        const payload = 'squeeze me '.repeat(10_000);
        assert.equal((await unary(compressing, 'Echo', { payload })).value.payload, payload);
        compressing.close();
      }
    });
  });

  describe('with a lowered receive limit', () => {
    it('refuses a request over it with RESOURCE_EXHAUSTED, even one that arrives gzip-compressed', async () => {
      const small = await startRpcServer({ port: 0, maxReceiveMessageBytes: 1024 });
      const plain = testClient(small.target);
      const gzip = testClient(small.target, { 'grpc.default_compression_algorithm': 2 });
      try {
        assert.equal((await unary(plain, 'Echo', { payload: 'y'.repeat(1021) })).value.payload.length, 1021);
        await assert.rejects(unary(plain, 'Echo', { payload: 'y'.repeat(1022) }), rejectsWith(status.RESOURCE_EXHAUSTED));
        // 100 KB of one letter compresses to a few hundred bytes: the limit is on the decompressed size.
        await assert.rejects(unary(gzip, 'Echo', { payload: 'z'.repeat(100_000) }), rejectsWith(status.RESOURCE_EXHAUSTED));
      } finally {
        plain.close();
        gzip.close();
        small.forceShutdown();
      }
    });
  });

  describe('with a lowered send limit', () => {
    it('refuses to send a reply over it with RESOURCE_EXHAUSTED', async () => {
      const small = await startRpcServer({ port: 0, maxSendMessageBytes: 1024 });
      const plain = testClient(small.target);
      try {
        assert.equal((await unary(plain, 'Echo', { payload: 'y'.repeat(1021) })).value.payload.length, 1021);
        await assert.rejects(unary(plain, 'Echo', { payload: 'y'.repeat(1022) }), rejectsWith(status.RESOURCE_EXHAUSTED));
      } finally {
        plain.close();
        small.forceShutdown();
      }
    });
  });
});

import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import type { Middleware } from 'koa';
import { pino } from 'pino';
import { createApp } from '../../src/http/app.ts';
import { listen, type Listening } from '../../src/http/listen.ts';
import { httpRequests } from '../../src/metrics/metrics.ts';
import { TestServer } from '../support/test-server.ts';

type LogLine = Record<string, unknown> & { level: number; msg: string };

describe('errors in any layer of the HTTP app', () => {
  let server: TestServer;
  let app: Listening;
  let logged: LogLine[];
  let stderr: string[];
  let writeStderr: typeof process.stderr.write;
  let layer: Middleware;
  let waiters: { msg: string; resolve: (line: LogLine) => void }[] = [];
  /** The next log line with this message (mocha's timeout bounds the wait). */
  const whenLogged = (msg: string) => new Promise<LogLine>((resolve) => waiters.push({ msg, resolve }));

  before(async () => {
    server = await TestServer.start();
    const logger = pino(
      { level: 'debug' },
      {
        write: (text: string) => {
          const line = JSON.parse(text) as LogLine;
          logged.push(line);
          for (const waiter of waiters.splice(0)) {
            if (waiter.msg === line.msg) waiter.resolve(line);
            else waiters.push(waiter);
          }
        },
      },
    );
    const { stores, projector } = server.service;
    // Where the webmail sits: in front of the API's routes, behind the error handler.
    const front: Middleware = (ctx, next) => layer(ctx, next);
    app = await listen(
      createApp({ ...stores, catchUp: projector!, matchers: server.service.matchers, logger, health: server.service.health, before: [front] }),
      0,
      '127.0.0.1',
    );
  });
  after(async () => {
    await app.stop();
    await server.close();
  });
  beforeEach(() => {
    logged = [];
    waiters = [];
    stderr = [];
    layer = (_ctx, next) => next();
    writeStderr = process.stderr.write.bind(process.stderr);
    process.stderr.write = (chunk: string | Uint8Array) => (stderr.push(String(chunk)), true);
  });
  afterEach(() => {
    process.stderr.write = writeStderr;
  });

  const get = async (path: string, headers: Record<string, string> = {}) => {
    const response = await fetch(`${app.url}${path}`, { headers });
    return {
      status: response.status,
      type: response.headers.get('content-type') ?? '',
      text: await response.text(),
      requestId: response.headers.get('x-request-id'),
    };
  };

  it('answers a failure in a layer in front of the API with a JSON 500 and logs it once, with the request id', async () => {
    layer = () => {
      throw new Error('the webmail layer broke');
    };
    for (const path of ['/api/v2/filters', '/health', '/nowhere']) {
      logged = [];
      const response = await get(path, { 'x-request-id': `broken-${path.length}` });
      assert.equal(response.status, 500);
      assert.match(response.type, /^application\/json/);
      assert.deepEqual(JSON.parse(response.text), { error: 'Internal server error' });
      assert.doesNotMatch(response.text, /webmail layer broke|at /);
      const errors = logged.filter((line) => line.level >= 50);
      assert.equal(errors.length, 1, JSON.stringify(logged));
      assert.equal(errors[0]!.requestId, `broken-${path.length}`);
      assert.equal((errors[0]!.err as { message: string }).message, 'the webmail layer broke');
    }
    assert.deepEqual(stderr, []);
  });

  it("logs what a layer reports to Koa (app.emit('error')) as JSON, never on stderr", async () => {
    layer = (ctx) => {
      ctx.app.emit('error', new Error('reported by the webmail'), ctx);
      ctx.body = 'rendered its own page';
    };
    const response = await get('/webmail/');
    assert.equal(response.status, 200);
    const line = logged.find((l) => l.msg === 'request error');
    assert.equal((line?.err as { message: string } | undefined)?.message, 'reported by the webmail');
    assert.equal(line?.level, 50);
    assert.deepEqual(stderr, []);
  });

  it('logs a response stream that fails after its headers went out, never on stderr', async () => {
    layer = (ctx) => {
      ctx.body = new Readable({
        read() {
          this.destroy(new Error('stream broke'));
        },
      });
    };
    const reported = whenLogged('request error');
    await fetch(`${app.url}/stream`)
      .then((r) => r.text())
      .catch(() => 'aborted');
    assert.equal(((await reported).err as { message: string }).message, 'stream broke');
    assert.deepEqual(stderr, []);
  });

  it('keeps answering when recording metrics fails, and logs why', async () => {
    const inc = httpRequests.inc.bind(httpRequests);
    httpRequests.inc = () => {
      throw new Error('label set broken');
    };
    const failed = whenLogged('could not record request metrics');
    try {
      const response = await get('/health');
      assert.equal(response.status, 200);
      assert.equal(((await failed).err as { message: string }).message, 'label set broken');
    } finally {
      httpRequests.inc = inc;
    }
    assert.equal((await get('/health')).status, 200);
    assert.deepEqual(stderr, []);
  });

  it('records metrics with the status the client got, set by the outermost error handler', async () => {
    const unauthorized = async () =>
      (await httpRequests.get()).values.filter((v) => v.labels.method === 'GET' && v.labels.status === '401').reduce((sum, v) => sum + v.value, 0);
    const before = await unauthorized();
    const recorded = whenLogged('request');
    assert.equal((await get('/api/v2/filters')).status, 401);
    assert.equal((await recorded).status, 401);
    assert.equal(await unauthorized(), before + 1);
  });
});

import { connect, type ClientHttp2Session, type IncomingHttpHeaders } from 'node:http2';

/**
 * Child process of rpc-bench.ts: a closed-loop load client on plain node:http2 with pre-encoded
 * gRPC frames. A grpc-js client tops out near 6k calls/s here and would measure itself, not the
 * server; this one does almost nothing per message, so the server under test is the bottleneck.
 */
export type LoadRequest = {
  readonly mode: 'unary' | 'stream';
  readonly target: string;
  readonly seconds: number;
  readonly concurrency: number;
  readonly frame: number[]; // one length-prefixed EchoRequest
};
export type LoadResult = {
  readonly operations: number;
  readonly seconds: number;
  readonly failures: number;
  /** This client's own CPU time over the run, to tell whether it, not the server, was the limit. */
  readonly clientCpuMicros?: number;
};

const ECHO = '/test_service.TestService/Echo';
const DOUBLE_ECHO = '/test_service.TestService/DoubleEcho';
const headersFor = (path: string) => ({ ':method': 'POST', ':path': path, 'content-type': 'application/grpc', te: 'trailers' });

/** Unary Echo calls, `concurrency` in flight at any time; operations = calls answered with grpc-status 0. */
function unaryLoad(session: ClientHttp2Session, request: LoadRequest, frame: Buffer): Promise<LoadResult> {
  return new Promise((resolve) => {
    const started = performance.now();
    const stopAt = started + request.seconds * 1000;
    let ok = 0,
      failures = 0,
      inFlight = 0;
    const call = () => {
      inFlight++;
      const stream = session.request(headersFor(ECHO));
      stream.on('trailers', (trailers: IncomingHttpHeaders) => (trailers['grpc-status'] === '0' ? ok++ : failures++));
      stream.on('data', () => {});
      stream.on('close', () => {
        inFlight--;
        if (performance.now() < stopAt) call();
        else if (inFlight === 0) resolve({ operations: ok, seconds: (performance.now() - started) / 1000, failures });
      });
      stream.end(frame);
    };
    for (let i = 0; i < request.concurrency; i++) call();
  });
}

// Messages a stream may have sent without both replies back. Without a cap the bare server, which
// reads without limit, would queue replies for seconds after the run and be measured on its drain.
const WINDOW = 5_000;
const BATCH = 100;

/** DoubleEcho streams that keep WINDOW messages in flight each; operations = replies received. */
function streamLoad(session: ClientHttp2Session, request: LoadRequest, frame: Buffer): Promise<LoadResult> {
  const batch = Buffer.concat(new Array<Buffer>(BATCH).fill(frame));
  return new Promise((resolve) => {
    const started = performance.now();
    let replies = 0,
      sentTotal = 0,
      failures = 0,
      open = request.concurrency;
    const stops: (() => void)[] = [];
    for (let i = 0; i < request.concurrency; i++) {
      const stream = session.request(headersFor(DOUBLE_ECHO));
      let sent = 0,
        replyBytes = 0,
        running = true,
        waiting: 'drain' | 'replies' | 'none' = 'none';
      const inFlight = () => sent - replyBytes / frame.length / 2;
      const pump = () => {
        waiting = 'none';
        while (running && inFlight() < WINDOW) {
          sent += BATCH;
          if (!stream.write(batch)) return void ((waiting = 'drain'), stream.once('drain', pump));
        }
        if (running) waiting = 'replies';
        else stream.end();
      };
      stops.push(() => {
        running = false;
        if (waiting === 'replies') stream.end();
      });
      stream.on('data', (chunk: Buffer) => {
        replyBytes += chunk.length;
        if (waiting === 'replies' && inFlight() < WINDOW / 2) pump();
      });
      stream.on('trailers', (trailers: IncomingHttpHeaders) => trailers['grpc-status'] !== '0' && failures++);
      stream.on('close', () => {
        replies += replyBytes / frame.length; // replies are the same size as requests
        sentTotal += sent;
        if (--open > 0) return;
        if (replies !== 2 * sentTotal) failures++;
        resolve({ operations: replies, seconds: (performance.now() - started) / 1000, failures });
      });
      pump();
    }
    setTimeout(() => stops.forEach((stop) => stop()), request.seconds * 1000);
  });
}

async function serve(request: LoadRequest): Promise<void> {
  const session = connect(`http://${request.target}`);
  const frame = Buffer.from(request.frame);
  const cpu = process.cpuUsage();
  const result = await (request.mode === 'unary' ? unaryLoad : streamLoad)(session, request, frame);
  const used = process.cpuUsage(cpu);
  session.close();
  process.send!({ ...result, clientCpuMicros: used.user + used.system });
}

process.on('message', (request: LoadRequest) => void serve(request));
process.on('disconnect', () => process.exit(0));

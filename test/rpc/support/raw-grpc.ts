import { connect, constants, type IncomingHttpHeaders } from 'node:http2';
import { gunzipSync, gzipSync } from 'node:zlib';

/** One length-prefixed gRPC message as it travels: the compressed flag and the (maybe compressed) bytes. */
export type WireMessage = { readonly compressed: boolean; readonly bytes: Buffer };

export type RawOutcome = {
  readonly headers: IncomingHttpHeaders;
  readonly messages: WireMessage[];
  readonly trailers: IncomingHttpHeaders;
};

export function frame(message: Buffer, gzip = false): Buffer {
  const bytes = gzip ? gzipSync(message) : message;
  const prefix = Buffer.alloc(5);
  prefix.writeUInt8(gzip ? 1 : 0, 0);
  prefix.writeUInt32BE(bytes.length, 1);
  return Buffer.concat([prefix, bytes]);
}

export function unframe(body: Buffer): WireMessage[] {
  const messages: WireMessage[] = [];
  for (let at = 0; at + 5 <= body.length;) {
    const length = body.readUInt32BE(at + 1);
    messages.push({ compressed: body[at] === 1, bytes: body.subarray(at + 5, at + 5 + length) });
    at += 5 + length;
  }
  return messages;
}

export function plainBytes(message: WireMessage): Buffer {
  return message.compressed ? gunzipSync(message.bytes) : message.bytes;
}

/**
 * A gRPC call made with nothing but node:http2, to see exactly what the server puts on the wire
 * (headers, compressed flags, trailers) without any gRPC library in between.
 */
export function rawCall(target: string, path: string, body: Buffer, headers: Record<string, string> = {}): Promise<RawOutcome> {
  return new Promise((resolve, reject) => {
    const session = connect(`http://${target}`);
    session.on('error', reject);
    const stream = session.request({
      [constants.HTTP2_HEADER_METHOD]: 'POST',
      [constants.HTTP2_HEADER_PATH]: path,
      'content-type': 'application/grpc',
      te: 'trailers',
      ...headers,
    });
    let responseHeaders: IncomingHttpHeaders = {};
    let trailers: IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    stream.on('response', (received) => (responseHeaders = received));
    stream.on('trailers', (received) => (trailers = received));
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('error', reject);
    stream.on('end', () => {
      session.close();
      resolve({ headers: responseHeaders, messages: unframe(Buffer.concat(chunks)), trailers });
    });
    stream.end(body);
  });
}

/** grpc-status of a call, wherever the server put it (trailers, or headers for a trailers-only reply). */
export function grpcStatus(outcome: RawOutcome): number {
  return Number(outcome.trailers['grpc-status'] ?? outcome.headers['grpc-status']);
}

import {
  Client,
  credentials,
  Metadata,
  type ChannelOptions,
  type ClientDuplexStream,
  type MethodDefinition,
  type ServiceDefinition,
  type StatusObject,
} from '@grpc/grpc-js';
import type { EchoRequest, EchoResponse, SumRequest, SumResponse } from '../../../src/rpc/messages.ts';
import { loadTestServiceDefinition, TEST_SERVICE_NAME } from '../../../src/rpc/package-definitions.ts';

const service = loadTestServiceDefinition()[TEST_SERVICE_NAME] as ServiceDefinition;

type UnaryMethods = {
  Echo: { request: EchoRequest; response: EchoResponse };
  Sum: { request: SumRequest; response: SumResponse };
};

export type CallSettings = { readonly metadata?: Metadata; readonly deadlineMs?: number };
export type UnaryResult<T> = { readonly value: T; readonly headers: Metadata; readonly trailers: Metadata };

/** A plain grpc-js client; channel options let a test turn on compression or lower limits. */
export function testClient(target: string, options: ChannelOptions = {}): Client {
  return new Client(target, credentials.createInsecure(), options);
}

function deadlineOf(settings: CallSettings) {
  return settings.deadlineMs === undefined ? {} : { deadline: Date.now() + settings.deadlineMs };
}

/** Resolves with the reply, headers and trailers; rejects with the ServiceError (code, details, metadata). */
export function unary<M extends keyof UnaryMethods>(
  client: Client,
  method: M,
  request: UnaryMethods[M]['request'],
  settings: CallSettings = {},
): Promise<UnaryResult<UnaryMethods[M]['response']>> {
  const definition = service[method] as MethodDefinition<UnaryMethods[M]['request'], UnaryMethods[M]['response']>;
  return new Promise((resolve, reject) => {
    let headers = new Metadata();
    let outcome: { error: Error } | { value: UnaryMethods[M]['response'] } | undefined;
    const call = client.makeUnaryRequest(
      definition.path,
      definition.requestSerialize,
      definition.responseDeserialize,
      request,
      settings.metadata ?? new Metadata(),
      deadlineOf(settings),
      (error, value) => (outcome = error ? { error } : { value: value! }),
    );
    call.on('metadata', (received: Metadata) => (headers = received));
    // grpc-js calls back before it emits 'status', which is where the trailers are.
    call.on('status', (status: StatusObject) => {
      if (outcome === undefined || 'error' in outcome) reject(outcome?.error ?? new Error(status.details));
      else resolve({ value: outcome.value, headers, trailers: status.metadata });
    });
  });
}

export type DoubleEchoCall = ClientDuplexStream<EchoRequest, EchoResponse>;

export function openDoubleEcho(client: Client, settings: CallSettings = {}): DoubleEchoCall {
  const definition = service.DoubleEcho as MethodDefinition<EchoRequest, EchoResponse>;
  const call = client.makeBidiStreamRequest(
    definition.path,
    definition.requestSerialize,
    definition.responseDeserialize,
    settings.metadata ?? new Metadata(),
    deadlineOf(settings),
  );
  call.on('error', () => {}); // the status says how it ended; 'error' would otherwise crash the test
  return call;
}

export type StreamOutcome = { readonly replies: string[]; readonly status: StatusObject; readonly headers: Metadata };

/** Everything the call answers, and its final status (OK or not). */
export function collect(call: DoubleEchoCall): Promise<StreamOutcome> {
  return new Promise((resolve) => {
    const replies: string[] = [];
    let headers = new Metadata();
    call.on('metadata', (received: Metadata) => (headers = received));
    call.on('data', (reply: EchoResponse) => replies.push(reply.payload));
    call.on('status', (status: StatusObject) => setImmediate(() => resolve({ replies, status, headers })));
  });
}

/** Sends the payloads, half-closes, and collects the outcome. */
export function doubleEchoAll(client: Client, payloads: readonly string[], settings: CallSettings = {}) {
  const call = openDoubleEcho(client, settings);
  const outcome = collect(call);
  for (const payload of payloads) call.write({ payload });
  call.end();
  return outcome;
}

/** The next `count` replies of an open call, for ping-pong style tests. */
export function nextReplies(call: DoubleEchoCall, count: number): Promise<string[]> {
  return new Promise((resolve) => {
    const got: string[] = [];
    const onData = (reply: EchoResponse) => {
      got.push(reply.payload);
      if (got.length < count) return;
      call.off('data', onData);
      resolve(got);
    };
    call.on('data', onData);
  });
}

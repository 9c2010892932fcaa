import { Metadata, type MetadataValue } from '@grpc/grpc-js';

/** Request headers that the canonical gRPC interop server echoes back; clients test metadata paths with them. */
export const ECHO_INITIAL_KEY = 'x-grpc-test-echo-initial';
export const ECHO_TRAILING_KEY = 'x-grpc-test-echo-trailing-bin';

export type EchoedMetadata = {
  /** To send as response headers, or undefined when the client asked for none. */
  readonly initial: Metadata | undefined;
  /** To send as trailers (with the status, OK or not), or undefined when the client asked for none. */
  readonly trailing: Metadata | undefined;
};

const NOTHING_TO_ECHO: EchoedMetadata = { initial: undefined, trailing: undefined };

export function echoedMetadata(request: Metadata): EchoedMetadata {
  const initial = request.get(ECHO_INITIAL_KEY);
  const trailing = request.get(ECHO_TRAILING_KEY);
  if (initial.length === 0 && trailing.length === 0) return NOTHING_TO_ECHO;
  return { initial: copied(ECHO_INITIAL_KEY, initial), trailing: copied(ECHO_TRAILING_KEY, trailing) };
}

function copied(key: string, values: MetadataValue[]): Metadata | undefined {
  if (values.length === 0) return undefined;
  const metadata = new Metadata();
  for (const value of values) metadata.add(key, value);
  return metadata;
}

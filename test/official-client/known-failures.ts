/**
 * The official client's tests the EventStoreDB stand-in is known to fail, each with why. Any other failure
 * makes test/official-client/run.ts exit non-zero; so does one of these that now passes (the list is then
 * stale and must shrink). Keys are `<file>: <full test title>`, as the runner prints them.
 */
export const KNOWN_FAILURES: Readonly<Record<string, string>> = {
  'appendToStream.test.ts: appendToStream should successfully append to stream linkTo':
    'link events written by the client are resolved by the server; the stand-in does not resolve links (no projections subsystem)',
  'readStream.test.ts: readStream should successfully read from stream options resolve link tos':
    'needs Projections/Enable, which the stand-in does not serve (no projections subsystem)',
  'readAll.test.ts: readAll should successfully read from $all resolve link tos':
    'needs Projections/Enable, which the stand-in does not serve (no projections subsystem)',
  'subscribeToAll.test.ts: subscribeToAll should return a readable stream pipeline':
    'subscribes to one stream; the stand-in serves subscriptions to $all only, the only kind the adapter makes',
  'connection/cluster.test.ts: cluster maxDiscoverAttempts':
    "asserts with jest's toThrowErrorMatchingInlineSnapshot (jest-snapshot), which the mocha harness does not have; the discovery it checks is the client's alone, against ports nothing listens on",
  'connection/cluster.test.ts: cluster discoverInterval': 'the same inline snapshot as maxDiscoverAttempts',
  'connection/reconnect/all-nodes-down.test.ts: reconnect All nodes down':
    'creates a persistent subscription, which the stand-in does not serve (the adapter makes none)',
  'connection/reconnect/mid-stream.test.ts: reconnect Connection error mid stream should cause a reconnect':
    'the stand-in sends a stream read whole at once, so a node killed mid-read drops the connection (UnavailableError) rather than a call in progress (CancelledError)',
  'connection/reconnect/no-reconnection.test.ts: reconnect no reconnection is made if error is not for reconnecting':
    'deletes a stream (Streams.Delete), which the stand-in does not serve (the adapter only tombstones, in tests)',
  'connection/reconnect/no-reconnection.test.ts: reconnect no reconnection for TimeoutError':
    "sets the node's commit and prepare timeouts to 1 ms (their Cluster.setOption); the stand-in times out only writes it holds (holdWrites), which esdb-unknown-outcome.spec.ts covers",
};

/** Tests skipped by the tests' own version checks (the pre-21.10 fallback); any other skip is a failure. */
export const KNOWN_SKIPS: ReadonlySet<string> = new Set([
  'appendToStream-batch-append.test.ts: appendToStream - batch append Not Supported (<21.10) Uses normal append',
]);

export interface Tally {
  readonly unexpected: readonly string[];
  readonly stale: readonly string[];
  readonly unexpectedSkips: readonly string[];
}

/** Which failures and skips are not on the lists, and which listed failures did not happen. */
export function judge(failed: readonly string[], skipped: readonly string[], ran: readonly string[]): Tally {
  const failedSet = new Set(failed);
  return {
    unexpected: failed.filter((name) => !(name in KNOWN_FAILURES)),
    // A listed test that ran and passed: the stand-in now does what the list says it cannot.
    stale: Object.keys(KNOWN_FAILURES).filter((name) => ran.includes(name) && !failedSet.has(name)),
    unexpectedSkips: skipped.filter((name) => !KNOWN_SKIPS.has(name)),
  };
}

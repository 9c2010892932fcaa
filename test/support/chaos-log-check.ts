import assert from 'node:assert/strict';
import { EsdbEventStore } from '../../src/events/esdb-event-store.ts';
import { readWholeLog } from '../../src/events/event-history.ts';
import type { EventMetadata, FilterEvent } from '../../src/events/filter-events.ts';
import { checkReadModels } from '../../src/projections/admin/read-model-check.ts';
import { FILTERS_PROJECTION } from '../../src/projections/runtime/filter-projector.ts';
import { MongoReadStore } from '../../src/projections/stores/mongo-read-store.ts';
import type { EsdbStandInCluster } from './esdb-stand-in-cluster.ts';
import type { SentWrite } from './two-process-writer.ts';
import { waitUntil } from './wait-until.ts';

/** Exactly once in the log and in the read models; each 503'd POST made zero or one filter, as the client can see. */
export async function checkTheLog(
  cluster: EsdbStandInCluster,
  mongodbUrl: string,
  database: string,
  url: string,
  token: string,
  sent: readonly SentWrite[],
  refusals: ReadonlyMap<string, string>,
) {
  const events = EsdbEventStore.connect(cluster.url());
  const reads = await MongoReadStore.connect(mongodbUrl, database);
  try {
    const commits = new Map<string, number>();
    const created = new Map<string, number>();
    let last = 0n;
    for await (const event of readWholeLog(events)) {
      last = event.position;
      if (!event.streamName.startsWith('filter-')) continue;
      const meta = event.metadata as EventMetadata;
      if (meta.commitIndex === meta.commitSize - 1) commits.set(meta.requestId, (commits.get(meta.requestId) ?? 0) + 1);
      const filterEvent = { type: event.type, data: event.data } as FilterEvent;
      if (filterEvent.type === 'FilterCreated') created.set(filterEvent.data.title, (created.get(filterEvent.data.title) ?? 0) + 1);
    }
    const acked = sent.filter((s) => s.status === 200);
    assert.deepEqual(
      acked.filter((s) => commits.get(s.requestId) !== 1).map((s) => `${s.kind} ${s.title}: ${commits.get(s.requestId) ?? 0} commits`),
      [],
      'every acknowledged write is in the log exactly once',
    );
    assert.deepEqual(
      acked.filter((s) => s.kind === 'POST' && created.get(s.title) !== 1).map((s) => s.title),
      [],
      'each acknowledged POST made one filter',
    );
    const unknown = sent.filter((s) => s.status === 503);
    assert.deepEqual(
      unknown.filter((s) => (commits.get(s.requestId) ?? 0) > 1 || (s.kind === 'POST' && (created.get(s.title) ?? 0) > 1)).map((s) => s.title),
      [],
      "a 503'd write was made at most once",
    );
    assert.deepEqual(
      unknown.filter((s) => !refusals.has(s.requestId)).map((s) => s.requestId),
      [],
      'every 503 is in an API process log with its reason',
    );
    // A 503 for a write that was made is allowed only where the outcome was still unknown when the budget
    // ran out; one said to be not made (no leader took it, refused) made nothing.
    assert.deepEqual(
      unknown
        .filter((s) => (commits.get(s.requestId) ?? 0) > 0 && !/was made is unknown/.test(refusals.get(s.requestId) ?? ''))
        .map((s) => `${s.kind} ${s.title}: made, answered 503 as ${refusals.get(s.requestId)}`),
      [],
      'a write that was made is answered 503 only when its outcome is unknown',
    );
    // The client tells which a 503'd POST was by listing its filters: the title is there once or not at all.
    const listed = (await (await fetch(`${url}/api/v2/filters`, { headers: { authorization: `Bearer ${token}` } })).json()) as { title: string }[];
    const posts503 = unknown.filter((s) => s.kind === 'POST');
    for (const post of posts503)
      assert.equal(listed.filter((f) => f.title === post.title).length, created.get(post.title) ?? 0, `the listing tells what became of ${post.title}`);
    const unknownOutcomes = unknown.filter((s) => /was made is unknown/.test(refusals.get(s.requestId) ?? '')).length;
    console.log(
      `      ${acked.length} acknowledged writes; ${unknown.length} answered 503 (${unknownOutcomes} of unknown outcome, the rest not made); ${posts503.length} POSTs of them: ${posts503.filter((s) => created.get(s.title) === 1).length} made one filter, ${posts503.filter((s) => !created.has(s.title)).length} made none`,
    );
    await waitUntil(async () => ((await reads.checkpoint(FILTERS_PROJECTION)) ?? -1n) >= last, 'the read models taking in the whole log', 60_000);
    const drifts: unknown[] = [];
    const report = await checkReadModels(events, reads, { onDrift: (drift) => void drifts.push(drift) });
    assert.deepEqual(drifts, [], 'the read models equal a replay of the log');
    assert.equal(report.differences, 0);
  } finally {
    await Promise.all([events.close(), reads.close()]);
  }
}

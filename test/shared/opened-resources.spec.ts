import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { OpenedResources } from '../../src/shared/opened-resources.ts';

/** A resource that remembers, in one shared list, each time it is closed. */
const resource = (name: string, closed: string[], failing = false) => ({
  name,
  close: async () => {
    closed.push(name);
    if (failing) throw new Error(`${name} would not close`);
  },
});

describe('OpenedResources', () => {
  it('closes what it opened once each, the last opened first, however often closeAll is called', async () => {
    const scope = new OpenedResources();
    const closed: string[] = [];
    const names = [`a-${randomUUID()}`, `b-${randomUUID()}`, `c-${randomUUID()}`];
    for (const name of names)
      await scope.open(
        name,
        () => resource(name, closed),
        (opened) => opened.close(),
      );
    assert.deepEqual(await Promise.all([scope.closeAll(), scope.closeAll()]), [[], []]);
    assert.deepEqual(await scope.closeAll(), []);
    assert.deepEqual(closed, [...names].reverse());
  });

  it('owes no close for an open that failed, and fails with its error after closing the ones before', async () => {
    const scope = new OpenedResources();
    const closed: string[] = [];
    const refusal = new Error(`refused-${randomUUID()}`);
    await assert.rejects(
      scope.orCloseAll(async () => {
        await scope.open(
          'first',
          () => resource('first', closed),
          (opened) => opened.close(),
        );
        scope.defer('deferred', () => void closed.push('deferred'));
        await scope.open(
          'third',
          () => Promise.reject(refusal),
          () => closed.push('third'),
        );
        await scope.open(
          'never',
          () => resource('never', closed),
          (opened) => opened.close(),
        );
      }),
      (error) => error === refusal,
    );
    assert.deepEqual(closed, ['deferred', 'first']);
  });

  it('keeps closing when one close fails and reports that one by name', async () => {
    const scope = new OpenedResources();
    const closed: string[] = [];
    await scope.open(
      'events',
      () => resource('events', closed),
      (opened) => opened.close(),
    );
    await scope.open(
      'reads',
      () => resource('reads', closed, true),
      (opened) => opened.close(),
    );
    await scope.open(
      'notifier',
      () => resource('notifier', closed),
      (opened) => opened.close(),
    );
    const failures = await scope.closeAll();
    assert.deepEqual(closed, ['notifier', 'reads', 'events']);
    assert.deepEqual(
      failures.map((failure) => [failure.name, (failure.error as Error).message]),
      [['reads', 'reads would not close']],
    );
  });

  it('closeAllOrFail: closes all, then fails with the one error, or with every one when several failed', async () => {
    const one = new OpenedResources();
    const closed: string[] = [];
    await one.open(
      'a',
      () => resource('a', closed),
      (opened) => opened.close(),
    );
    await one.open(
      'b',
      () => resource('b', closed, true),
      (opened) => opened.close(),
    );
    await assert.rejects(one.closeAllOrFail(), { message: 'b would not close' });
    assert.deepEqual(closed, ['b', 'a']);

    const two = new OpenedResources();
    await two.open(
      'c',
      () => resource('c', closed, true),
      (opened) => opened.close(),
    );
    await two.open(
      'd',
      () => resource('d', closed, true),
      (opened) => opened.close(),
    );
    await assert.rejects(two.closeAllOrFail(), (error) => {
      assert.ok(error instanceof AggregateError);
      assert.equal(error.message, '2 resources failed to close: d, c');
      assert.deepEqual(
        error.errors.map((each: Error) => each.message),
        ['d would not close', 'c would not close'],
      );
      return true;
    });
    assert.deepEqual(closed, ['b', 'a', 'd', 'c']);
  });
});

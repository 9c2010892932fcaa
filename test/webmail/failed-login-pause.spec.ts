import assert from 'node:assert/strict';
import { mock } from 'node:test';
import { timerPause } from '../../src/webmail/sessions/failed-login-pause.ts';

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

// The login test holds the pause itself; this is the pause the webmail uses when nothing replaces it.
describe("the webmail's failed-login pause", () => {
  afterEach(() => mock.timers.reset());

  it('is a timer of the given length, during which the process goes on with other work', async () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    let over = false;
    const pausing = timerPause(1000).then(() => (over = true));
    let otherWork = 0;
    for (let i = 0; i < 3; i++) {
      await turn();
      otherWork += 1;
    }
    assert.equal(otherWork, 3);
    mock.timers.tick(999);
    await turn();
    assert.equal(over, false);
    mock.timers.tick(1);
    await pausing;
    assert.equal(over, true);
  });
});

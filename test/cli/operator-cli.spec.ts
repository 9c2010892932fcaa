import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadConfig } from '../../src/config.ts';
import { startService, type RunningService } from '../../src/service.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import { filtersApi, newFilter } from '../support/filters-api.ts';
import { runCli } from '../support/run-cli.ts';
import { scratchDir } from '../support/scratch-dir.ts';

interface TokenLine {
  tokenId: string;
  account: string;
  app: string | null;
  scopes: string[];
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  revokedBy: { kind: string } | null;
}

const ndjson = <T>(text: string): T[] =>
  text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as T);
const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

describe('Operator CLI: accounts by username or id, token list and revoke by id', function () {
  this.timeout(60_000);
  let dir: string;
  let service: RunningService;
  let carolId: string;
  const username = `carol${process.pid}`;
  const cli = (...args: string[]) => runCli(args, { DATA_DIR: dir });

  before(async () => {
    dir = scratchDir();
    service = await startService({ config: loadConfig({ DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1', RATE_LIMITS: 'off' }), logger: silentLogger });
    carolId = (await cli('account', 'create', username)).stdout.trim();
  });
  after(() => service?.close());

  it('lists tokens with their ids, scopes, times and revocation, and revokes one by the id event metadata records', async () => {
    const byId = await cli('token', 'create', carolId, '--scopes', 'read:filters write:filters');
    assert.equal(byId.code, 0, byId.stderr);
    const readOnly = await cli('token', 'create', username, '--scopes', 'read');
    const token = byId.stdout.trim();
    const created = await filtersApi(service.url, token).post('/api/v2/filters', newFilter('audited'));
    assert.equal(created.status, 200);

    const [byName, byAccountId] = await Promise.all([cli('token', 'list', username), cli('token', 'list', carolId)]);
    assert.equal(byName.code, 0, byName.stderr);
    assert.equal(byName.stdout, byAccountId.stdout);
    const listed = ndjson<TokenLine>(byName.stdout);
    assert.deepEqual(
      listed.map((t) => Object.keys(t)),
      listed.map(() => ['tokenId', 'account', 'app', 'scopes', 'createdAt', 'lastUsedAt', 'revokedAt', 'revokedBy']),
    );
    const [used, unused] = listed as [TokenLine, TokenLine];
    assert.equal(`${used.tokenId}_`, token.slice(0, used.tokenId.length + 1));
    assert.equal(`${unused.tokenId}_`, readOnly.stdout.slice(0, unused.tokenId.length + 1));
    assert.deepEqual([used.account, used.app, used.scopes, unused.scopes], [username, null, ['read:filters', 'write:filters'], ['read']]);
    assert.ok(!Number.isNaN(Date.parse(used.createdAt)));
    assert.ok(used.lastUsedAt !== null && Date.parse(used.lastUsedAt) >= Date.parse(used.createdAt));
    assert.deepEqual([unused.lastUsedAt, used.revokedAt], [null, null]);

    // The account's own facts come first (AccountCreated, TokenIssued); the filter's event names the token used.
    const event = ndjson<{ type: string; metadata: { tokenId: string } }>((await cli('events', '--account', username)).stdout).find(
      (e) => e.type === 'FilterCreated',
    );
    assert.equal(event!.metadata.tokenId, used.tokenId);
    const revoked = await cli('token', 'revoke', event!.metadata.tokenId);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.equal(revoked.stderr, 'revoked\n');
    assert.equal((await filtersApi(service.url, token).get('/api/v2/filters')).status, 401);
    const after = ndjson<TokenLine>((await cli('token', 'list', username)).stdout);
    assert.ok(after[0]!.revokedAt !== null);
    assert.deepEqual(after[0]!.revokedBy, { kind: 'operator' });
    assert.deepEqual([after[1]!.revokedAt, after[1]!.revokedBy], [null, null]);

    const again = await cli('token', 'revoke', used.tokenId);
    assert.equal(again.code, 1);
    assert.match(again.stderr, new RegExp(`^error: token ${used.tokenId} is already revoked \\(since \\d{4}-[^)]+\\)\\n$`));
  });

  it('takes a username wherever it takes an account id', async () => {
    const token = (await cli('token', 'create', username)).stdout.trim();
    await filtersApi(service.url, token).post('/api/v2/filters', newFilter('by name'));
    const pairs = [
      [
        ['events', '--account', username],
        ['events', '--account', carolId],
      ],
      [
        ['filters', '--account', username, '--as-of', '1000'],
        ['filters', '--account', carolId, '--as-of', '1000'],
      ],
      [
        ['account', 'show', username],
        ['account', 'show', carolId],
      ],
    ];
    for (const [named, numbered] of pairs) {
      const [a, b] = await Promise.all([cli(...named!), cli(...numbered!)]);
      assert.equal(a.code, 0, `${named!.join(' ')}: ${a.stderr}`);
      assert.notEqual(a.stdout, '');
      assert.equal(a.stdout, b.stdout, named!.join(' '));
    }
  });

  it('refuses a --handover-timeout that is not whole milliseconds', async () => {
    for (const value of ['abc', '-5', '1.5', '']) {
      const result = await cli('projections', 'rebuild', '--handover-timeout', value);
      assert.equal(result.code, 1, value);
      assert.match(result.stderr, /option '--handover-timeout <ms>' argument '.*' is invalid\. give whole milliseconds/);
    }
  });

  it('prints its version, and its help lists every setting it reads', async () => {
    const [version, short, help] = await Promise.all([cli('--version'), cli('-V'), cli('--help')]);
    assert.equal(version.stdout, `${VERSION}\n`);
    assert.equal(short.stdout, `${VERSION}\n`);
    for (const name of ['DATA_DIR', 'EVENTSTORE_URL', 'MONGODB_URL', 'PROJECTOR_LEASE_MS']) assert.match(help.stdout, new RegExp(`^  ${name} `, 'm'));
  });
});

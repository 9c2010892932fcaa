import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.ts';
import { startService, type RunningService } from '../../src/service.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import { filtersApi, newFilter, newOwner, type Owner } from '../support/filters-api.ts';
import { runCli, runCommand } from '../support/run-cli.ts';
import { scratchDir } from '../support/scratch-dir.ts';

interface Line {
  type: string;
  position: string;
  time: string;
  stream: string;
}

const ndjson = (text: string): Line[] =>
  text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line);

describe('Auditor CLI: events --until, --type and --format', function () {
  this.timeout(60_000);
  let dir: string;
  let service: RunningService;
  let alice: Owner;
  let all: Line[];
  const cli = (...args: string[]) => runCli(args, { DATA_DIR: dir });

  before(async () => {
    dir = scratchDir();
    service = await startService({ config: loadConfig({ DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1', RATE_LIMITS: 'off' }), logger: silentLogger });
    alice = await newOwner(dir, 'alice');
    const api = filtersApi(service.url, alice.token);
    // A title written to move a terminal's cursor and colour it, which a table must not pass on.
    const hostile = (await api.post('/api/v2/filters', newFilter('\u001b[2J\u001b[31mred\u009b1m and a title far longer than the column keeps'.repeat(2)))).body
      .id;
    const plain = (await api.post('/api/v2/filters', newFilter('plain'))).body.id;
    await api.post(`/api/v2/filters/${plain}/statuses`, { status_id: '109' });
    await api.put(`/api/v2/filters/${hostile}`, { title: 'renamed' });
    await api.delete(`/api/v2/filters/${plain}`);
    all = ndjson((await cli('events', '--format', 'json')).stdout);
  });

  after(async () => {
    await service?.close();
  });

  it('--until takes a position (inclusive) or a time (inclusive), alone or with --since', async () => {
    assert.equal(all.length, 7);
    const [upTo3, window, byTime] = await Promise.all([
      // Positions as the log gave them: the usage ledger's events (which events leaves out) take some too.
      cli('events', '--until', all[2]!.position),
      cli('events', '--since', all[1]!.position, '--until', all[4]!.position),
      cli('events', '--until', all[3]!.time),
    ]);
    assert.equal(upTo3.code, 0, upTo3.stderr);
    assert.deepEqual(
      ndjson(upTo3.stdout).map((l) => l.position),
      all.slice(0, 3).map((l) => l.position),
    );
    assert.deepEqual(
      ndjson(window.stdout).map((l) => l.position),
      all.slice(2, 5).map((l) => l.position),
    );
    const expected = all.filter((l) => Date.parse(l.time) <= Date.parse(all[3]!.time)).map((l) => l.position);
    assert.deepEqual(
      ndjson(byTime.stdout).map((l) => l.position),
      expected,
    );
    assert.ok(expected.includes(all[3]!.position));
  });

  it('--type keeps the types named, repeated or separated by commas, with the other filters', async () => {
    const [repeated, commas, withAccount] = await Promise.all([
      cli('events', '--type', 'FilterCreated', '--type', 'FilterDeleted'),
      cli('events', '--type', 'StatusFiltered,FilterUpdated'),
      cli('events', '--type', 'KeywordsUpdated', '--account', 'alice', '--until', all[2]!.position),
    ]);
    assert.deepEqual(
      ndjson(repeated.stdout).map((l) => l.type),
      ['FilterCreated', 'FilterCreated', 'FilterDeleted'],
    );
    assert.deepEqual(
      ndjson(commas.stdout).map((l) => l.type),
      ['StatusFiltered', 'FilterUpdated'],
    );
    assert.deepEqual(
      ndjson(withAccount.stdout).map((l) => [l.type, l.position]),
      [['KeywordsUpdated', all[1]!.position]],
    );
  });

  it('refuses a type no event has with one line naming the known ones, whatever the value', async () => {
    const known =
      'FilterCreated, FilterUpdated, KeywordsUpdated, StatusFiltered, StatusUnfiltered, FilterDeleted, AccountCreated, PasswordChanged, TokenIssued, TokenRevoked, AppAuthorized, WebmailSignInSucceeded, WebmailSignInFailed, AccountUsageChanged';
    for (const value of ['FilterRenamed', 'filtercreated', '', 'FilterCreated,', '{"$ne":null}', '\u001b[31m', 'x'.repeat(100_000)]) {
      const result = await cli('events', '--type', value);
      assert.equal(result.code, 1, value.slice(0, 20));
      assert.equal(result.stdout, '');
      const [first, ...rest] = result.stderr.trimEnd().split('\n');
      assert.match(first!, new RegExp(`^error: --type: unknown event type ".*"; known types: ${known}$`));
      assert.ok(first!.length < 400, 'the refusal stays one short line');
      assert.ok(
        rest.every((l) => !/^\s+at /.test(l)),
        'no stack trace',
      );
    }
  });

  it('refuses a format or an --until it does not know', async () => {
    const format = await cli('events', '--format', 'xml');
    assert.equal(format.code, 1);
    assert.match(format.stderr, /^error: option '--format <format>' argument 'xml' is invalid\. Allowed choices are json, table\.\n/);
    for (const until of ['yesterday', '-1', '1e3', '2026-13-45', '9'.repeat(40)]) {
      const result = await cli('events', '--until', until);
      assert.equal(result.code, 1, until);
      assert.match(result.stderr, /ISO-8601/);
    }
  });

  it('--format table prints aligned columns of bounded width, with no control character from the log', async () => {
    const { code, stdout } = await cli('events', '--format', 'table');
    assert.equal(code, 0);
    const lines = stdout.trimEnd().split('\n');
    assert.equal(lines.length, 8);
    assert.match(lines[0]!, /^time\s+position {2}stream\s+type\s+summary$/);
    // Every column starts where the header's does.
    const starts = ['position', 'stream', 'type', 'summary'].map((name) => lines[0]!.indexOf(name === 'position' ? 'position' : ` ${name}`) + 1);
    for (const [i, line] of lines.slice(1).entries()) {
      const event = all[i]!;
      assert.equal(line.slice(0, 24), event.time.padEnd(24));
      assert.equal(line.slice(25, 45).trim(), event.position);
      assert.equal(line.slice(starts[1], starts[1]! + event.stream.length), event.stream);
      assert.equal(line.slice(starts[2], starts[2]! + event.type.length), event.type);
      assert.ok(Array.from(line).length <= 24 + 1 + 20 + 2 + 26 + 1 + 22 + 1 + 60, `bounded: ${line}`);
    }
    // eslint-disable-next-line no-control-regex
    assert.doesNotMatch(stdout, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    assert.match(lines[1]!, /"\\u001b\[2J\\u001b\[31mred\\u009b1m and a title .*…$/);
    assert.match(lines[6]!, /"renamed", warn$/);
  });

  it('prints JSON lines into a pipe and the table on a terminal when no format is given', async () => {
    const piped = await cli('events');
    assert.deepEqual(ndjson(piped.stdout), all);
    // util-linux `script` gives the CLI a pseudo-terminal as its stdout.
    const command = `${process.execPath} --import tsx src/cli/main.ts events --until ${all[0]!.position}`;
    const onTerminal = await runCommand('script', ['--quiet', '--return', '--command', command, '/dev/null'], { DATA_DIR: dir });
    assert.equal(onTerminal.code, 0, onTerminal.stderr);
    const rows = onTerminal.stdout.replace(/\r/g, '').trimEnd().split('\n');
    assert.match(rows[0]!, /^time\s+position\s+stream\s+type\s+summary$/);
    assert.match(rows[1]!, new RegExp(`^\\S+Z\\s+${all[0]!.position} {2}filter-\\d+\\s+FilterCreated `));
  });
});

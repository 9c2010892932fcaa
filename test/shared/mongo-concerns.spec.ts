import assert from 'node:assert/strict';
import { MongoClient } from 'mongodb';
import { loadConfig } from '../../src/config.ts';
import { runCommand } from '../support/run-cli.ts';
import { scratchDir } from '../support/scratch-dir.ts';

const concernsOf = (url: string) => new URL(url.replace(/^mongodb:\/\/[^/]*/, 'mongodb://h')).searchParams;

describe('MongoDB concerns (MONGODB_WRITE_CONCERN, MONGODB_URL)', () => {
  it('writes wait for a majority, reads see only majority-held data, from the primary, by default', () => {
    const url = loadConfig({ MONGODB_URL: 'mongodb://a:27017,b:27017,c:27017/cf?replicaSet=rs0' }).mongodbUrl!;
    const params = concernsOf(url);
    assert.equal(params.get('w'), 'majority');
    assert.equal(params.get('readConcernLevel'), 'majority');
    assert.equal(params.get('readPreference'), 'primary');
    assert.equal(params.get('replicaSet'), 'rs0');
    assert.ok(url.startsWith('mongodb://a:27017,b:27017,c:27017/cf?'), url);
  });

  it('the driver reads the concerns from the URL it is given', async () => {
    const client = new MongoClient(loadConfig({ MONGODB_URL: 'mongodb://127.0.0.1:1/cf' }).mongodbUrl!);
    assert.equal(client.options.writeConcern?.w, 'majority');
    assert.equal(client.options.readConcern?.level, 'majority');
    assert.equal(client.options.readPreference.mode, 'primary');
    await client.close();
  });

  it('a number of members writes with that w and reads local, which still sees its own writes', () => {
    const params = concernsOf(loadConfig({ MONGODB_URL: 'mongodb://a/cf', MONGODB_WRITE_CONCERN: '2' }).mongodbUrl!);
    assert.equal(params.get('w'), '2');
    assert.equal(params.get('readConcernLevel'), 'local');
  });

  it('commands and connects are bounded (10 s) unless the URL bounds them itself, so a silent cut cannot hold a request for a minute', async () => {
    const params = concernsOf(loadConfig({ MONGODB_URL: 'mongodb://a/cf' }).mongodbUrl!);
    assert.equal(params.get('socketTimeoutMS'), '10000');
    assert.equal(params.get('connectTimeoutMS'), '10000');
    const own = concernsOf(loadConfig({ MONGODB_URL: 'mongodb://a/cf?sockettimeoutms=2500&connectTimeoutMS=0' }).mongodbUrl!);
    assert.equal(own.get('sockettimeoutms'), '2500');
    assert.equal(own.get('socketTimeoutMS'), null, 'not set twice');
    assert.equal(own.get('connectTimeoutMS'), '0');
    const client = new MongoClient(loadConfig({ MONGODB_URL: 'mongodb://127.0.0.1:1/cf' }).mongodbUrl!);
    assert.equal(client.options.socketTimeoutMS, 10_000);
    assert.equal(client.options.connectTimeoutMS, 10_000);
    await client.close();
  });

  it('the same concerns written in the URL (as Atlas writes w=majority) are accepted', () => {
    const params = concernsOf(loadConfig({ MONGODB_URL: 'mongodb+srv://u:p@x.example/cf?retryWrites=true&w=majority&readpreference=primary' }).mongodbUrl!);
    assert.equal(params.getAll('w').length, 1);
    assert.equal(params.get('readpreference'), 'primary');
    assert.equal(params.get('retryWrites'), 'true');
  });

  for (const [query, named] of [
    ['readPreference=secondaryPreferred', /readPreference=secondaryPreferred.*read-your-writes/],
    ['readpreference=nearest', /readpreference=nearest/],
    ['readPreference=primaryPreferred', /primaryPreferred/],
    ['w=1', /w=1.*MONGODB_WRITE_CONCERN/],
    ['readConcernLevel=local', /readConcernLevel=local/],
  ] as const) {
    it(`${query} in MONGODB_URL is refused, naming it`, () => {
      assert.throws(
        () => loadConfig({ MONGODB_URL: `mongodb://u:secret@a/cf?${query}` }),
        (error: Error) => {
          assert.equal(error.name, 'BadSetting');
          assert.match(error.message, named);
          assert.doesNotMatch(error.message, /secret/);
          return true;
        },
      );
    });
  }

  for (const bad of ['0', 'all', '51', '-1', '1.5']) {
    it(`MONGODB_WRITE_CONCERN=${bad} is refused, even without MONGODB_URL`, () => {
      assert.throws(() => loadConfig({ MONGODB_WRITE_CONCERN: bad }), /MONGODB_WRITE_CONCERN must be majority or a number of members from 1 to 50/);
    });
  }

  it('the server refuses to start with one clear line for a URL that would break read-your-writes', async function () {
    this.timeout(60_000);
    const run = await runCommand(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      DATA_DIR: scratchDir('concerns-'),
      PORT: '0',
      MONGODB_URL: 'mongodb://127.0.0.1:1/cf?readPreference=secondary',
    });
    assert.equal(run.code, 1);
    const lines = `${run.stdout}${run.stderr}`.split('\n').filter((line) => line.includes('readPreference=secondary'));
    assert.equal(lines.length, 1, `${run.stdout}${run.stderr}`);
    assert.match(lines[0]!, /MONGODB_URL must be without readPreference=secondary/);
  });
});

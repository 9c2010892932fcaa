import assert from 'node:assert/strict';
import { redact, rememberSecretsOf } from '../../src/shared/redact.ts';
import { runCommand } from '../support/run-cli.ts';

describe('redact: no credential leaves in a text', () => {
  it('hides the user-info of every URL, a token alone before @ included, and keeps the rest', () => {
    assert.equal(redact('cannot reach NATS at nats://user:S3cretPW@127.0.0.1:4333'), 'cannot reach NATS at nats://***@127.0.0.1:4333');
    assert.equal(redact('nats://tok3n@h:1,nats://u:p@h:2'), 'nats://***@h:1,nats://***@h:2');
    assert.equal(redact('"mongodb+srv://u:p%40w@a.example,b.example/db"'), '"mongodb+srv://***@a.example,b.example/db"');
    assert.equal(redact('redis://:pw@127.0.0.1:6379/0'), 'redis://***@127.0.0.1:6379/0');
    assert.equal(redact('alice@localhost wrote to bob@example.com'), 'alice@localhost wrote to bob@example.com');
  });

  it('hides request tokens, access tokens, passwords in queries and forms, bearer credentials and NKEY seeds', () => {
    assert.equal(redact('GET /webmail/?_task=logout&_token=abc123'), 'GET /webmail/?_task=logout&_token=***');
    assert.equal(redact('failed (GET /webmail/?_task=logout&_token=abc123)'), 'failed (GET /webmail/?_task=logout&_token=***)');
    assert.equal(redact('/api/v1/streaming?access_token=xyz&stream=user'), '/api/v1/streaming?access_token=***&stream=user');
    assert.equal(redact('_user=alice&_pass=hunter2'), '_user=alice&_pass=***');
    assert.equal(redact('Authorization: Bearer 12_abcdef'), 'Authorization: Bearer ***');
    const seed = 'SUAMK2FG4MI6UE3ACF3FK3OIQBCEIEZV7NSWFFEW63UXMRLFM2XLAXK4GY';
    assert.equal(redact(`seed ${seed} end`), 'seed *** end');
  });

  it("hides the secrets of the process's settings wherever they appear, also JSON-escaped", () => {
    rememberSecretsOf({ NATS_TOKEN: 'tok"en-value', SMTP_URL: 'smtp://mailer:pa%24%24word@mail.example:587', HOST: 'localhost' });
    assert.equal(redact('auth failed for tok"en-value'), 'auth failed for ***');
    assert.equal(redact(JSON.stringify({ error: 'token tok"en-value refused' })), '{"error":"token *** refused"}');
    assert.equal(redact('password pa$$word was wrong'), 'password *** was wrong');
    assert.equal(redact('listening on localhost'), 'listening on localhost');
  });

  it('is applied to every line the process logger writes', async () => {
    const script =
      "const { createLogger } = await import('./src/shared/logger.ts'); createLogger('info').error({ err: new Error('connect to nats://u:LoggedPw1@h:1 failed') }, 'see nats://tok3nvalue@h:2');";
    const result = await runCommand(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {});
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /nats:\/\/\*\*\*@h:1 failed/);
    assert.ok(!result.stdout.includes('LoggedPw1') && !result.stdout.includes('tok3nvalue'), result.stdout);
  });
});

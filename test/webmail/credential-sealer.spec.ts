import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { CredentialSealer } from '../../src/webmail/mail/credential-sealer.ts';
import { scratchDir } from '../support/scratch-dir.ts';

describe('the IMAP password sealed in a session (CredentialSealer)', () => {
  it('opens what it sealed, never shows the password, and each seal differs', () => {
    const sealer = CredentialSealer.fromSetting('a des key', scratchDir());
    const first = sealer.seal('pässword 1');
    assert.equal(sealer.open(first), 'pässword 1');
    assert.ok(!first.includes('pässword') && !first.includes(Buffer.from('pässword 1').toString('base64url')));
    assert.notEqual(sealer.seal('pässword 1'), first, 'a fresh IV every time');
  });

  it('refuses a seal made with another key, or changed', () => {
    const sealed = CredentialSealer.fromSetting('key one', scratchDir()).seal('secret');
    assert.equal(CredentialSealer.fromSetting('key two', scratchDir()).open(sealed), null);
    const [iv, tag, body] = sealed.split('.');
    const flipped = Buffer.from(body!, 'base64url');
    flipped[0]! ^= 1;
    assert.equal(CredentialSealer.fromSetting('key one', scratchDir()).open([iv, tag, flipped.toString('base64url')].join('.')), null);
    assert.equal(CredentialSealer.fromSetting('key one', scratchDir()).open('not.a.seal'), null);
  });

  it('without WEBMAIL_DES_KEY makes one key file (0600) in the data directory and keeps using it', () => {
    const dir = scratchDir();
    const sealed = CredentialSealer.fromSetting(undefined, dir).seal('secret');
    assert.equal(statSync(join(dir, 'webmail-des-key')).mode & 0o777, 0o600);
    assert.equal(CredentialSealer.fromSetting(undefined, dir).open(sealed), 'secret', 'another process on the same data directory');
    assert.equal(CredentialSealer.fromSetting(undefined, scratchDir()).open(sealed), null);
  });
});

import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Seals the IMAP password kept in a session (AES-256-GCM), as Roundcube encrypts it with its des_key:
 * the session store alone does not give the passwords away. The key is WEBMAIL_DES_KEY, or else one made
 * once in `<DATA_DIR>/webmail-des-key` (every process sharing sessions must then share that key).
 */
export class CredentialSealer {
  private constructor(private readonly key: Buffer) {}

  static fromSetting(desKey: string | undefined, dataDir: string): CredentialSealer {
    if (desKey) return new CredentialSealer(createHash('sha256').update(desKey).digest());
    const path = join(dataDir, 'webmail-des-key');
    if (!existsSync(path)) {
      // 'wx': two processes starting together must not overwrite each other's key.
      try {
        writeFileSync(path, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    }
    return new CredentialSealer(createHash('sha256').update(readFileSync(path, 'utf8').trim()).digest());
  }

  seal(secret: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return [iv, cipher.getAuthTag(), body].map((part) => part.toString('base64url')).join('.');
  }

  /** Null when the seal is damaged or was made with another key. */
  open(sealed: string): string | null {
    const [iv, tag, body] = sealed.split('.').map((part) => Buffer.from(part, 'base64url'));
    if (!iv || !tag || !body || iv.length !== 12 || tag.length !== 16) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, iv);
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
    } catch {
      return null;
    }
  }
}

import { AxeBuilder } from '@axe-core/playwright';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ImapFlow } from 'imapflow';
import type { Browser, Page } from 'playwright-core';
import { chromiumOrSkip, openAsPage } from '../support/browser.ts';
import { dovecotMissing } from '../support/dovecot.ts';
import { startImapWebmailServer, type ImapWebmailServer } from '../support/imap-webmail-server.ts';
import { failedLoginLine } from '../support/log-lines.ts';
import { deliverOverLmtp } from './mailbox-fixtures.ts';

const SHOTS = process.env.WEBMAIL_SCREENSHOTS ?? join('tmp', 'screenshots');
const ATTACHMENT = Buffer.alloc(3000, 'PDF-ish ');

/** A message as the outside world sends it: multipart, ISO-8859-1 quoted-printable text, a base64 attachment. */
function multipart(from: string, to: string, messageId: string): string {
  const attachment = ATTACHMENT.toString('base64').replace(/.{76}/g, '$&\r\n');
  return [
    `From: =?ISO-8859-1?Q?J=FCrgen?= <${from}>`,
    `To: ${to}`,
    'Subject: =?ISO-8859-1?Q?Gr=FC=DFe_aus_M=FCnchen?=',
    `Message-ID: ${messageId}`,
    `Date: ${new Date().toUTCString()}`,
    'MIME-Version: 1.0',
    'Content-Type: multipart/mixed; boundary="b1"',
    '',
    '--b1',
    'Content-Type: text/plain; charset=ISO-8859-1',
    'Content-Transfer-Encoding: quoted-printable',
    '',
    'Sch=F6ne Gr=FC=DFe, bis bald.',
    '--b1',
    'Content-Type: application/pdf; name="Bericht.pdf"',
    'Content-Disposition: attachment; filename="Bericht.pdf"',
    'Content-Transfer-Encoding: base64',
    '',
    attachment,
    '--b1--',
    '',
  ].join('\r\n');
}

const plain = (from: string, to: string, subject: string) =>
  `From: ${from}\r\nTo: ${to}\r\nSubject: ${subject}\r\nDate: ${new Date().toUTCString()}\r\nMessage-ID: <${Math.random()}@example.org>\r\n\r\nhello\r\n`;

describe('webmail on IMAP (Dovecot) in Chromium', function () {
  this.timeout(120_000);
  let browser: Browser;
  let server: ImapWebmailServer;

  before(async function () {
    const missing = dovecotMissing();
    if (missing) {
      console.log(`      skipped: ${missing}`);
      this.skip();
    }
    browser = await chromiumOrSkip(this);
    server = await startImapWebmailServer({ WEBMAIL_REFRESH_SECONDS: '1' });
    mkdirSync(SHOTS, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  async function signIn(user: string, password: string, width = 1280): Promise<Page> {
    const page = await (await browser.newContext({ viewport: { width, height: 800 } })).newPage();
    page.on('pageerror', (error) => assert.fail(error.message));
    await page.goto(`${server.baseUrl}/webmail/`);
    await page.fill('#rcmloginuser', user);
    await page.fill('#rcmloginpwd', password);
    await page.click('#rcmloginsubmit');
    return page;
  }

  /** What a mail client of the other user sees: the headers of each message in a folder. */
  async function headersIn(user: { username: string; password: string }, folder: string): Promise<string[]> {
    const client = new ImapFlow({
      host: '127.0.0.1',
      port: server.dovecot.ports.imap,
      secure: false,
      auth: { user: user.username, pass: user.password },
      logger: false,
    });
    await client.connect();
    try {
      await client.mailboxOpen(folder, { readOnly: true });
      const found = await client.fetchAll('1:*', { headers: true });
      return found.map((message) => message.headers?.toString() ?? '');
    } finally {
      await client.logout();
    }
  }

  it('reads a multipart ISO-8859-1 message from outside, replies in its thread, and the reply is in Sent and the other INBOX', async () => {
    const alice = await server.account('alice');
    const bob = await server.account('bob');
    await deliverOverLmtp(
      server.dovecot,
      `${bob.username}@localhost`,
      multipart(`${alice.username}@localhost`, `${bob.username}@localhost`, '<m1@example.org>'),
    );
    const page = await signIn(bob.username, bob.password);
    const row = page.locator('#messagelist tbody tr.unread', { hasText: 'Grüße aus München' });
    await row.waitFor();
    await page.screenshot({ path: join(SHOTS, 'imap-multipart-inbox-1280.png') });
    await openAsPage(row.locator('a'));
    await page.waitForSelector('.message-body');
    assert.equal((await page.textContent('.message-body'))?.trim(), 'Schöne Grüße, bis bald.');
    assert.equal(await page.textContent('.attachments li'), 'Bericht.pdf (2.9 KB)');
    assert.equal((await page.textContent('.unreadcount[data-folder="INBOX"]'))?.trim(), '', 'read: no longer unread');
    await page.screenshot({ path: join(SHOTS, 'imap-multipart-message-1280.png') });

    await page.click('text=Reply');
    await page.waitForURL(/_action=compose&_id=/);
    assert.equal(await page.inputValue('#_to'), `${alice.username}@localhost`);
    await page.fill('#_body', 'Danke!');
    await page.click('#send-button');
    await page.waitForURL(/_mbox=Sent&_sent=1$/);
    await page.locator('#messagelist tbody tr', { hasText: 'Re: Grüße aus München' }).waitFor();

    const [reply] = await headersIn(alice, 'INBOX');
    assert.match(reply ?? '', /^In-Reply-To: <m1@example\.org>\r?$/m);
    assert.match(reply ?? '', /^References: <m1@example\.org>\r?$/m);
    assert.match(reply ?? '', new RegExp(`^From: ${bob.username}@localhost\\r?$`, 'm'));
    assert.equal((await headersIn(bob, 'Sent')).length, 1);
  });

  it('shows new mail without a reload, and delete moves it to Trash', async () => {
    const carol = await server.account('carol');
    const page = await signIn(carol.username, carol.password);
    await page.waitForSelector('#messagelist');
    await deliverOverLmtp(server.dovecot, `${carol.username}@localhost`, plain('news@example.org', `${carol.username}@localhost`, 'fresh news'));
    const arrived = page.locator('#messagelist tbody tr.unread', { hasText: 'fresh news' });
    await arrived.waitFor({ timeout: 20_000 });
    assert.equal((await page.textContent('.unreadcount[data-folder="INBOX"]'))?.trim(), '1');
    await openAsPage(arrived.locator('a'));
    await page.click('#delete-button');
    await page.waitForURL(/_deleted=1$/);
    assert.equal(await page.locator('#messagelist tbody tr').count(), 0);
    await page.click('nav.folders a:text-is("Trash")');
    await page.locator('#messagelist tbody tr', { hasText: 'fresh news' }).waitFor();
  });

  for (const width of [380, 1280]) {
    it(`passes axe (WCAG 2 AA) on the inbox, a message and compose at ${width} px, without sideways scrolling`, async () => {
      const dave = await server.account('dave');
      await deliverOverLmtp(
        server.dovecot,
        `${dave.username}@localhost`,
        plain('someone.with.a.long.address@example.org', `${dave.username}@localhost`, 'A subject long enough to need wrapping on a small phone screen'),
      );
      const page = await signIn(dave.username, dave.password, width);
      await page.waitForSelector('#messagelist tbody tr');
      const problems: string[] = [];
      const check = async (name: string) => {
        await page.screenshot({ path: join(SHOTS, `imap-${name}-${width}.png`), fullPage: true });
        const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'best-practice']).analyze();
        problems.push(...results.violations.flatMap((rule) => rule.nodes.map((node) => `${name}: ${rule.id}: ${node.target.join(' ')}`)));
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        if (overflow > 0) problems.push(`${name}: scrolls ${overflow} px sideways`);
      };
      await check('inbox');
      await openAsPage(page.locator('#messagelist tbody tr a').first());
      await page.waitForSelector('.message-body');
      await check('message');
      await page.click('#compose-button');
      await page.waitForSelector('#_body');
      await check('compose');
      const subject = await page.locator('#_subject').boundingBox();
      const label = await page.locator('label[for="_subject"]').boundingBox();
      assert.ok(subject && subject.x + subject.width <= width, `subject field ends at ${subject?.x}+${subject?.width}`);
      assert.ok(label && subject && (label.y + label.height <= subject.y + 1 || label.x + label.width <= subject.x + 1), 'label and field do not overlap');
      assert.deepEqual(problems, []);
    });
  }

  it('keeps the name after a wrong password and logs the Roundcube line fail2ban matches', async () => {
    const erin = await server.account('erin');
    const page = await (await browser.newContext({ viewport: { width: 380, height: 800 } })).newPage();
    await page.goto(`${server.baseUrl}/webmail/`);
    // The failure is logged under the session that posted it (the form then gets a fresh one).
    const session = (await page.context().cookies()).find((cookie) => cookie.name === 'roundcube_sessid')!.value;
    await page.fill('#rcmloginuser', erin.username);
    await page.fill('#rcmloginpwd', 'wrong password');
    await page.click('#rcmloginsubmit');
    await page.locator('#messagestack', { hasText: 'Login failed.' }).waitFor();
    assert.equal(await page.inputValue('#rcmloginuser'), erin.username);
    await page.screenshot({ path: join(SHOTS, 'imap-login-failed-380.png') });
    const line = server.loginLines().at(-1)!;
    assert.match(line, failedLoginLine(erin.username, session, 0));
    const filter = '/etc/fail2ban/filter.d/roundcube-auth.conf';
    if (spawnSync('fail2ban-regex', ['--version']).error || !existsSync(filter)) {
      console.log('      fail2ban-regex not run: fail2ban is not installed (apt-get install fail2ban)');
      return;
    }
    const run = spawnSync('fail2ban-regex', [line, filter], { encoding: 'utf8' });
    assert.match(run.stdout, /^Lines: 1 lines, 0 ignored, 1 matched, 0 missed/m, run.stdout);
  });

  it('Dovecot stopped mid-session: an error page and an IMAP Error line, not a 500; back when it is', async () => {
    const frank = await server.account('frank');
    const page = await signIn(frank.username, frank.password);
    await page.waitForSelector('#messagelist');
    const before = server.errorLines().length;
    await server.dovecot.stop();
    try {
      const answer = await page.goto(`${server.baseUrl}/webmail/?_task=mail&_mbox=INBOX`);
      assert.equal(answer?.status(), 503);
      assert.match((await page.textContent('body')) ?? '', /Connection to storage server failed\./);
      await page.screenshot({ path: join(SHOTS, 'imap-storage-down.png') });
      // Pages of earlier tests still refresh every second and log their own lines: keep this session's.
      const session = (await page.context().cookies()).find((cookie) => cookie.name === 'roundcube_sessid')!.value;
      const added = server
        .errorLines()
        .slice(before)
        .filter((line) => line.includes(`<${session.slice(0, 8)}>`))
        // The page's own refresh may hit the stopping server too, and logs the same way; this is the GET's.
        .filter((line) => line.endsWith('(GET /webmail/?_task=mail&_mbox=INBOX)'));
      assert.equal(added.length, 1, added.join('\n'));
      assert.match(
        added[0]!,
        /IMAP Error: connection to imap:\/\/127\.0\.0\.1:\d+ failed: .+ in src\/webmail\/router\.ts on line \d+ \(GET \/webmail\/\?_task=mail&_mbox=INBOX\)$/,
      );
    } finally {
      await server.dovecot.resume();
    }
    await page.goto(`${server.baseUrl}/webmail/?_task=mail&_mbox=INBOX`);
    await page.waitForSelector('#messagelist');
  });
});

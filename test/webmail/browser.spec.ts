import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { chromiumOrSkip, openAsPage } from '../support/browser.ts';
import { startWebmailServer, type WebmailServer } from '../support/webmail-server.ts';

const SHOTS = process.env.WEBMAIL_SCREENSHOTS ?? join('tmp', 'screenshots');
const DENY =
  /Request security check failed in src\/webmail\/request-check\.ts on line \d+ \(POST \/webmail\/\?_task=mail&_action=send&_unlock=loading\d+&_framed=1\)$/;

describe('webmail in Chromium', function () {
  this.timeout(60000);
  let browser: Browser;
  let server: WebmailServer;
  const problems: string[] = [];

  before(async function () {
    browser = await chromiumOrSkip(this);
    server = await startWebmailServer({ WEBMAIL_REFRESH_SECONDS: '1' });
    mkdirSync(SHOTS, { recursive: true });
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  async function loggedInPage(username: string, password: string): Promise<Page> {
    const page = await (await browser.newContext()).newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(`${server.baseUrl}/webmail/`);
    await page.fill('#rcmloginuser', username);
    await page.fill('#rcmloginpwd', password);
    await page.click('#rcmloginsubmit');
    await page.waitForSelector('#messagelist');
    return page;
  }

  it('logs in, composes with autocomplete, sends, and the recipient sees it arrive; then logs out', async () => {
    const alice = await server.account('alice');
    const bob = await server.account('bob');
    const inbox = await loggedInPage(bob.username, bob.password);
    assert.equal(await inbox.locator('#messagelist tbody tr').count(), 0);
    await inbox.screenshot({ path: join(SHOTS, 'inbox-empty.png') });

    const page = await loggedInPage(alice.username, alice.password);
    await page.click('#compose-button');
    await page.waitForURL(/_action=compose&_id=[0-9a-f]+$/);
    await page.locator('#_to').pressSequentially(bob.username.slice(0, 4), { delay: 30 });
    const suggestion = page.locator('#autocomplete-list li', { hasText: `${bob.username}@localhost` });
    await suggestion.waitFor();
    await page.screenshot({ path: join(SHOTS, 'compose-autocomplete.png') });
    await suggestion.click();
    assert.equal(await page.inputValue('#_to'), `${bob.username}@localhost, `);
    await page.fill('#_subject', 'Lunch <b>today</b>?');
    await page.fill('#_body', 'Shall we meet at noon?\n<script>alert(1)</script>');
    await page.click('#send-button');
    await page.waitForURL(/_mbox=Sent&_sent=1$/);
    assert.match((await page.textContent('#messagestack')) ?? '', /Message sent successfully\./);
    assert.equal(await page.locator('#messagelist tbody tr').count(), 1);

    const arrived = inbox.locator('#messagelist tbody tr.unread', { hasText: 'Lunch <b>today</b>?' });
    await arrived.waitFor({ timeout: 10000 });
    assert.equal((await inbox.textContent('.unreadcount[data-folder="INBOX"]'))?.trim(), '1');
    await inbox.screenshot({ path: join(SHOTS, 'inbox-arrived.png') });
    await openAsPage(arrived.locator('a'));
    await inbox.waitForSelector('.message-body');
    assert.equal(await inbox.textContent('.message-body'), 'Shall we meet at noon?\n<script>alert(1)</script>');
    await inbox.screenshot({ path: join(SHOTS, 'message.png') });

    await page.click('#logout');
    await page.waitForSelector('#rcmloginuser');
    assert.match((await page.textContent('#messagestack')) ?? '', /successfully terminated the session/);
    await page.screenshot({ path: join(SHOTS, 'logged-out.png') });
    assert.deepEqual(problems, []);
  });

  it('refuses a send whose form carries a wrong token, logs it, and delivers nothing', async () => {
    const carol = await server.account('carol');
    const dave = await server.account('dave');
    const page = await loggedInPage(carol.username, carol.password);
    await page.click('#compose-button');
    await page.waitForURL(/_action=compose&_id=/);
    await page.fill('#_to', `${dave.username}@localhost`);
    await page.fill('#_subject', 'forged');
    await page.locator('#compose-form input[name="_token"]').evaluate((input) => {
      (input as HTMLInputElement).value = 'WRONGWRONGWRONGWRONGWRONGWRONG12';
    });
    const before = server.errorLines().length;
    await page.click('#send-button');
    await page.locator('#messagestack', { hasText: 'REQUEST CHECK FAILED' }).waitFor();
    await page.screenshot({ path: join(SHOTS, 'send-refused.png') });
    const lines = server.errorLines().slice(before);
    assert.equal(lines.length, 1);
    assert.match(lines[0]!, DENY);
    const inbox = await loggedInPage(dave.username, dave.password);
    assert.equal(await inbox.locator('#messagelist tbody tr').count(), 0);
  });
});

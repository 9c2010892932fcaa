import { AxeBuilder } from '@axe-core/playwright';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { chromiumAndWebmail, SCREENSHOTS, signedInPage, type ChromiumStand } from '../support/browser.ts';
import { WEBMAIL_ADAPTERS } from '../support/imap-webmail-server.ts';
import { WebmailClient } from '../support/webmail-client.ts';

const sendUri = '/webmail/?_task=mail&_action=send&_unlock=loading1&_framed=1';
/** A body a careless page would run: each piece of script would set the window's `mailScript`. */
const HOSTILE_BODY = '<script>window.mailScript = 1</script><img src="x" onerror="window.mailScript = 2"><a href="javascript:window.mailScript=3">x</a>';
const HOSTILE_SUBJECT = '<b onmouseover="window.mailScript = 4">Quarterly</b> figures';

async function axeViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'best-practice']).analyze();
  return results.violations.map((violation) => `${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(' ')).join(', ')})`);
}

/** Alice writes Bob an ordinary message, then the hostile one (the newest, first in the list); Bob signs in. */
async function bobWithTwoMessages(stand: ChromiumStand, width: number): Promise<Page> {
  const [alice, bob] = [await stand.server.account('alice'), await stand.server.account('bob')];
  const client = new WebmailClient(stand.server.baseUrl);
  await client.login(alice.username, alice.password);
  for (const [subject, body] of [
    ['Lunch on Friday', 'shall we?'],
    [HOSTILE_SUBJECT, HOSTILE_BODY],
  ]) {
    const form = { _id: await client.compose(), _token: client.requestToken, _to: `${bob.username}@localhost`, _cc: '', _subject: subject!, _body: body! };
    assert.match((await client.post(sendUri, form)).text, /Message sent successfully/);
  }
  const page = await signedInPage(stand, bob, { width });
  await page.waitForSelector('#messagelist tbody tr:nth-child(2)');
  return page;
}

const subjectLink = (page: Page, subject: string) => page.locator('#messagelist tbody td.subject a', { hasText: subject });

for (const setting of WEBMAIL_ADAPTERS)
  describe(`webmail preview pane, ${setting.name}, in Chromium`, function () {
    this.timeout(120_000);
    const stand = chromiumAndWebmail((context) => setting.start(context));

    it('at 1280 px opens the message next to the list, as safely as its page, marks it read; keys move through the list; axe clean', async () => {
      const page = await bobWithTwoMessages(stand, 1280);
      const listUrl = page.url();
      const pane = page.locator('#preview-pane');
      await pane.waitFor({ state: 'visible' });
      const [list, paneBox] = [(await page.locator('.mail-list').boundingBox())!, (await pane.boundingBox())!];
      assert.ok(paneBox.x >= list.x + list.width, `the pane (x ${paneBox.x}) is right of the list (ends at ${list.x + list.width})`);
      assert.ok(paneBox.x + paneBox.width <= 1280, 'the pane fits the window');
      assert.equal(await page.locator('.unreadcount[data-folder="INBOX"]').textContent(), '2');

      const preview = page.waitForResponse((response) => response.url().includes('_action=preview'));
      await subjectLink(page, 'Quarterly').click();
      const response = await preview;
      const frame = page.frameLocator('#messagecontframe');
      await frame.locator('.message-body').waitFor();
      assert.equal(page.url(), listUrl, 'the list page stays');
      assert.equal(await frame.locator('.message .subject').textContent(), HOSTILE_SUBJECT);
      assert.equal((await frame.locator('.message-body').textContent())!.trimEnd(), HOSTILE_BODY);
      // The pane's page carries the full page's protections: its own CSP (no inline script) and frame rules.
      const headers = response.headers();
      assert.match(headers['content-security-policy'] ?? '', /script-src 'self'/);
      assert.match(headers['content-security-policy'] ?? '', /frame-ancestors 'self'/);
      assert.equal(headers['x-frame-options'], 'sameorigin');
      assert.equal(await frame.locator('.message img, .message script, .message b').count(), 0, 'nothing in the mail became markup');
      await frame.locator('.message .subject').hover();
      const paneWindow = page.frames().find((each) => each.url().includes('_action=preview'))!;
      assert.equal(await paneWindow.evaluate(() => (window as unknown as { mailScript?: number }).mailScript), undefined);
      assert.equal(await page.evaluate(() => (window as unknown as { mailScript?: number }).mailScript), undefined);
      // Opened in the pane, the message is read: the row and the folder's count say so without a reload.
      const hostileRow = page.locator('#messagelist tbody tr').first();
      assert.deepEqual(await hostileRow.getAttribute('class'), 'selected');
      assert.equal(await subjectLink(page, 'Quarterly').getAttribute('aria-current'), 'true');
      assert.equal(await page.locator('.unreadcount[data-folder="INBOX"]').textContent(), '1');
      await page.screenshot({ path: join(SCREENSHOTS, `preview-pane-${setting.name.replace(/\W+/g, '-')}-1280.png`) });
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'no sideways scrolling');
      assert.deepEqual(await axeViolations(page), []);

      // The keyboard: down from the focused subject opens the next message in the pane, focus stays in the list.
      await subjectLink(page, 'Quarterly').focus();
      await page.keyboard.press('ArrowDown');
      await frame.locator('.message .subject:text-is("Lunch on Friday")').waitFor();
      assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Lunch on Friday');
      await page.locator('.unreadcount[data-folder="INBOX"]:empty').waitFor({ state: 'attached' });
      await page.keyboard.press('ArrowUp');
      await frame.locator('.message .subject:text-is("' + HOSTILE_SUBJECT.replace(/"/g, '\\"') + '")').waitFor();

      // The pane's actions lead the whole window: Reply leaves the list for the compose page.
      await frame.locator('#reply-button').click();
      await page.waitForURL(/_action=compose/);
      assert.equal(await page.inputValue('#_subject'), `Re: ${HOSTILE_SUBJECT}`);
    });

    it('at 380 px opens the message as a page of its own, with the way back to the list; axe clean', async () => {
      const page = await bobWithTwoMessages(stand, 380);
      assert.equal(await page.locator('#preview-pane').isVisible(), false);
      await subjectLink(page, 'Lunch').click();
      await page.waitForURL(/_action=show/);
      assert.equal(await page.locator('.message .subject').textContent(), 'Lunch on Friday');
      await page.screenshot({ path: join(SCREENSHOTS, `preview-phone-message-${setting.name.replace(/\W+/g, '-')}-380.png`), fullPage: true });
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'no sideways scrolling');
      assert.deepEqual(await axeViolations(page), []);
      await page.getByRole('link', { name: 'Back to the list' }).click();
      await page.waitForSelector('h1:text-is("Inbox")');
      assert.equal(await page.locator('#messagelist tbody tr').count(), 2);
    });
  });

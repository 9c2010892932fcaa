import { AxeBuilder } from '@axe-core/playwright';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { chromiumAndWebmail, openAsPage, SCREENSHOTS, signedInPage } from '../support/browser.ts';
import { WebmailClient } from '../support/webmail-client.ts';

/** Far from UTC (+13 in November), so a date left in UTC shows another hour, mostly another day. */
const ZONE = 'Pacific/Auckland';
const SUBJECT = 'Planning our quarterly review: internationalization and accessibility considerations';

/** `HH:MM` of `iso` in ZONE, as Node's own ICU reads it (not the code under test). */
const clockIn = (iso: string, zone: string) =>
  new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(new Date(iso));

describe('webmail on phones and across time zones, in Chromium', function () {
  this.timeout(60_000);
  const stand = chromiumAndWebmail();

  /** Alice writes to Bob, who is signed in on a page `width` px wide in ZONE. */
  async function bobsInbox(width: number): Promise<{ page: Page; alice: string }> {
    const alice = await stand.server.account('alice');
    const bob = await stand.server.account('bob');
    const client = new WebmailClient(stand.server.baseUrl);
    await client.login(alice.username, alice.password);
    const form = { _id: await client.compose(), _token: client.requestToken, _to: `${bob.username}@localhost`, _cc: '', _subject: SUBJECT, _body: 'hello' };
    assert.match((await client.post('/webmail/?_task=mail&_action=send&_unlock=loading1&_framed=1', form)).text, /Message sent successfully/);
    const page = await signedInPage(stand, bob, { width, timezoneId: ZONE, locale: 'en-GB' });
    await page.waitForSelector('#messagelist tbody tr');
    return { page, alice: `${alice.username}@localhost` };
  }

  it('shows each message at 380 px as one stacked row: sender and date, the subject below, broken only between words', async () => {
    const { page } = await bobsInbox(380);
    await page.screenshot({ path: join(SCREENSHOTS, 'phone-inbox-380.png'), fullPage: true });
    const box = async (selector: string) => (await page.locator(`#messagelist tbody tr ${selector}`).boundingBox())!;
    const [from, date, subject] = [await box('td.fromto'), await box('td.date'), await box('td.subject')];
    assert.ok(Math.abs(from.y - date.y) < 2 && date.x > from.x + from.width - 1, 'sender and date share the first line');
    assert.ok(subject.y >= from.y + from.height - 1 && Math.abs(subject.x - from.x) < 2, 'the subject is below, at the left');
    assert.ok(date.x + date.width <= 380 && subject.x + subject.width <= 380, 'the row fits the screen');
    const layout = await page.evaluate(() => {
      // No named helpers in here: tsx would wrap them in a __name() the page does not have.
      const subjectText = document.querySelector('#messagelist tbody tr td.subject a')!.firstChild as Text;
      const range = document.createRange();
      // Where each line of the subject starts: the character before it must be a space.
      const breaksAfter: string[] = [];
      let top = -1;
      for (let index = 0; index < subjectText.length; index += 1) {
        range.setStart(subjectText, index);
        range.setEnd(subjectText, index + 1);
        const rect = range.getBoundingClientRect();
        if (rect.height === 0) continue;
        if (top >= 0 && rect.top > top + 1) breaksAfter.push(subjectText.data[index - 1]!);
        top = rect.top;
      }
      const fromCell = document.querySelector('#messagelist tbody tr td.fromto')!;
      const subjectCell = document.querySelector('#messagelist tbody tr td.subject')!;
      return {
        breaksAfter,
        fromLines: fromCell.getBoundingClientRect().height / parseFloat(getComputedStyle(fromCell).lineHeight),
        subjectLines: subjectCell.getBoundingClientRect().height / parseFloat(getComputedStyle(subjectCell).lineHeight),
        sideways: document.documentElement.scrollWidth - document.documentElement.clientWidth,
      };
    });
    assert.ok(layout.breaksAfter.length > 0, 'the long subject wraps');
    assert.ok(
      layout.breaksAfter.every((char) => char === ' '),
      `the subject breaks after ${JSON.stringify(layout.breaksAfter)}`,
    );
    assert.ok(layout.fromLines < 1.5, `the sender takes ${layout.fromLines} lines`);
    assert.ok(layout.subjectLines < 2.5, `the subject takes ${layout.subjectLines} lines`);
    assert.equal(layout.sideways, 0);
    const axe = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'best-practice']).analyze();
    assert.deepEqual(
      axe.violations.map((rule) => rule.id),
      [],
    );
  });

  for (const width of [380, 1280])
    it(`dates the list and the message in the browser’s zone, naming the zone in full, at ${width} px`, async () => {
      const { page } = await bobsInbox(width);
      const listed = page.locator('#messagelist tbody tr time');
      const iso = (await listed.getAttribute('datetime'))!;
      assert.ok((await listed.textContent())!.includes(clockIn(iso, ZONE)), `${await listed.textContent()} is not ${clockIn(iso, ZONE)} in ${ZONE}`);
      await openAsPage(page.locator('#messagelist tbody tr a'));
      await page.waitForSelector('.message-body');
      await page.screenshot({ path: join(SCREENSHOTS, `zone-message-${width}.png`), fullPage: true });
      const shown = (await page.locator('.message .headers time').textContent())!;
      assert.ok(shown.includes(clockIn(iso, ZONE)), shown);
      assert.match(shown, /GMT\+13|NZDT|New Zealand/);
    });

  it('writes the reply’s quote header as a person would, dated in the browser’s zone', async () => {
    const { page, alice } = await bobsInbox(380);
    const iso = (await page.locator('#messagelist tbody tr time').getAttribute('datetime'))!;
    await page.locator('#messagelist tbody tr a').click();
    await page.click('text=Reply');
    await page.waitForSelector('#_body');
    const body = await page.inputValue('#_body');
    assert.match(body, new RegExp(`^\\n\\nOn [A-Z][a-z]{2}, \\d{1,2} [A-Z][a-z]{2} \\d{4} at ${clockIn(iso, ZONE)}, ${alice} wrote:\\n> hello\\n$`));
  });

  it('dates the quote header in UTC, saying so, when no zone came with the request (no script)', async () => {
    const alice = await stand.server.account('alice');
    const client = new WebmailClient(stand.server.baseUrl);
    await client.login(alice.username, alice.password);
    const form = { _id: await client.compose(), _token: client.requestToken, _to: `${alice.username}@localhost`, _cc: '', _subject: 'self', _body: 'hello' };
    await client.post('/webmail/?_task=mail&_action=send&_unlock=loading1&_framed=1', form);
    const inbox = (await client.get('/webmail/?_task=mail&_mbox=INBOX')).text;
    const uid = /data-uid="(\d+)"/.exec(inbox)![1]!;
    const iso = /<time datetime="([^"]+)">/.exec(inbox)![1]!;
    assert.match(inbox, new RegExp(`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>`));
    const compose = await client.get(`/webmail/?_task=mail&_action=compose&_reply_uid=${uid}&_mbox=INBOX&_tz=Not%2FA_Zone`);
    const page = (await client.get(compose.headers.get('location')!)).text;
    assert.match(page, new RegExp(`On [A-Z][a-z]{2}, \\d{1,2} [A-Z][a-z]{2} \\d{4} at ${clockIn(iso, 'UTC')} UTC, ${alice.username}@localhost wrote:`));
  });
});

import { AxeBuilder } from '@axe-core/playwright';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { chromiumOrSkip, openAsPage } from '../support/browser.ts';
import { startWebmailServer, type WebmailServer } from '../support/webmail-server.ts';

/**
 * Every text of every page against WCAG 2 AA (4.5:1, 3:1 for large text), measured by axe-core in the
 * page as rendered. Texts axe cannot decide on (its "incomplete" answers) fail too: each text is checked.
 */
async function contrastProblems(page: Page, name: string, only?: string): Promise<string[]> {
  const axe = new AxeBuilder({ page }).withRules(['color-contrast']);
  const results = await (only ? axe.include(only) : axe).analyze();
  const passed = results.passes.flatMap((rule) => rule.nodes).length;
  assert.ok(passed > 0, `${name}: axe checked no text at all`);
  return [...results.violations, ...results.incomplete].flatMap((rule) =>
    rule.nodes.map((node) => `${name}: ${node.target.join(' ')}: ${node.any.map((check) => check.message).join('; ')}`),
  );
}

describe('webmail colour contrast (axe-core in Chromium)', function () {
  this.timeout(90_000);
  let browser: Browser;
  let server: WebmailServer;

  before(async function () {
    browser = await chromiumOrSkip(this);
    server = await startWebmailServer();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  async function logIn(page: Page, username: string, password: string): Promise<void> {
    await page.goto(`${server.baseUrl}/webmail/`);
    await page.fill('#rcmloginuser', username);
    await page.fill('#rcmloginpwd', password);
    await page.click('#rcmloginsubmit');
  }

  it('meets WCAG AA on every page and in every state of it', async () => {
    const alice = await server.account('alice');
    const bob = await server.account('bob');
    const page = await (await browser.newContext()).newPage();
    const problems: string[] = [];
    const check = async (name: string) => problems.push(...(await contrastProblems(page, name)));

    await page.goto(`${server.baseUrl}/webmail/`);
    await check('login');
    await logIn(page, alice.username, 'wrong password');
    await page.locator('.notice.warning').waitFor();
    await check('login failed');

    await logIn(page, alice.username, alice.password);
    await page.waitForSelector('#messagelist');
    await check('empty inbox');

    await page.click('#compose-button');
    await page.waitForURL(/_action=compose&_id=/);
    // An empty field has no text for axe to measure: give each one some.
    await page.fill('#_cc', `${alice.username}@localhost`);
    await page.fill('#_subject', 'contrast');
    await page.locator('#_to').pressSequentially(bob.username.slice(0, 4));
    await page.locator('#autocomplete-list li').first().waitFor();
    // The open list covers the fields below it, whose background axe then cannot tell: they are checked next.
    problems.push(...(await contrastProblems(page, 'address suggestions', '#autocomplete-list')));
    await page.keyboard.press('Escape');
    await check('compose');
    await page.fill('#_to', 'someone@elsewhere.example');
    await page.click('#send-button');
    await page.locator('#messagestack .notice').waitFor();
    await check('compose with an error');
    await page.fill('#_to', `${bob.username}@localhost`);
    await page.click('#send-button');
    await page.waitForURL(/_mbox=Sent&_sent=1$/);
    await check('sent folder with a confirmation');

    const inbox = await (await browser.newContext()).newPage();
    await logIn(inbox, bob.username, bob.password);
    await inbox.waitForSelector('#messagelist tr.unread');
    problems.push(...(await contrastProblems(inbox, 'inbox with an unread message')));
    await openAsPage(inbox.locator('#messagelist tr.unread a'));
    await inbox.waitForSelector('.message-body');
    problems.push(...(await contrastProblems(inbox, 'message')));

    await page.goto(`${server.baseUrl}/webmail/?_task=mail&_action=nothing-here`);
    await check('error page');
    await page.goto(`${server.baseUrl}/webmail/?_task=logout&_token=wrong`);
    await check('request check failed');
    await page.goto(`${server.baseUrl}/webmail/?_task=mail`);
    await page.click('#logout');
    await page.waitForSelector('#rcmloginuser');
    await check('logged out');

    assert.deepEqual(problems, []);
  });
});

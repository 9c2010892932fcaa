import { AjaxResponse, unlockId } from '../ajax-response.ts';
import type { WebmailServices } from '../webmail-dependencies.ts';
import { input, type WebmailRequest } from '../webmail-request.ts';
import type { Mailbox } from '../mail/mailbox.ts';
import type { LoggedInSession } from './logged-in-session.ts';

const MAX_RESULTS = 15;

type Suggestion = {
  name: string;
  type: null;
  id: string;
  source: 'accounts' | 'correspondents';
  fields: { name: string; email: string };
};

const suggestion = (email: string, id: string, source: Suggestion['source']): Suggestion => ({
  name: email,
  type: null,
  id,
  source,
  fields: { name: '', email },
});

/**
 * POST ?_task=mail&_action=autocomplete with `_search` (and `_reqid`): local accounts' addresses (not
 * with IMAP, whose users are not the service's accounts), then addresses this user itself exchanged mail
 * with. Nothing from other users' mailboxes.
 */
export async function autocompleteAction(services: WebmailServices, request: WebmailRequest, _session: LoggedInSession, mailbox: Mailbox): Promise<void> {
  const search = (input(request, '_search', 'POST') ?? '').trim().toLowerCase();
  const reqId = input(request, '_reqid', 'POST') ?? '';
  const results: Suggestion[] = [];
  if (search !== '') {
    const domain = services.config.mailDomain;
    const accounts = services.mailboxes.kind === 'local' ? await services.accounts.searchAccounts(search.split('@')[0]!, MAX_RESULTS) : [];
    for (const account of accounts) {
      const email = `${account.username.toLowerCase()}@${domain}`;
      if (email.startsWith(search)) results.push(suggestion(email, account.id, 'accounts'));
    }
    for (const [i, email] of (await mailbox.correspondents(search, MAX_RESULTS)).entries()) {
      if (!results.some((known) => known.fields.email === email)) results.push(suggestion(email, `c${i}`, 'correspondents'));
    }
  }
  new AjaxResponse('autocomplete', unlockId(input(request, '_unlock')))
    .command('ksearch_query_results', results.slice(0, MAX_RESULTS), search, reqId)
    .send(request.ctx);
}

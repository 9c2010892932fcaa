import type Router from '@koa/router';
import type { Context } from 'koa';
import type { KeywordChange, KeywordDraft } from '../../commands/filter/commands.ts';
import { NotFoundError } from '../../commands/errors.ts';
import { newId } from '../../shared/ids.ts';
import { ListingCache } from '../listing-cache.ts';
import { keyedCommand } from '../keyed-command.ts';
import { runFilterCommand } from '../run-filter-command.ts';
import { checked, v2FilterInput, type KeywordAttributesInput, type V2FilterInput } from '../input-schemas.ts';
import { attributeList, isAllBlank, railsBoolean, text } from '../input-values.ts';
import { keywordChange, newFilterSettings, newKeyword, partialSettings } from '../filter-input.ts';
import { accountOf, callerOf, found, paramsOf, pathId, type FilterRouteDeps } from '../route-context.ts';
import { filterJson, filterShapeOf } from '../serializers.ts';

interface KeywordEdits {
  addKeywords: KeywordDraft[];
  changeKeywords: KeywordChange[];
  removeKeywords: string[];
}

/** keywords_attributes rows: with id and a true `_destroy` remove, with id update, without id add. */
function keywordEdits(rows: KeywordAttributesInput[], creating: boolean): KeywordEdits {
  const edits: KeywordEdits = { addKeywords: [], changeKeywords: [], removeKeywords: [] };
  for (const row of rows.filter((r) => !isAllBlank(r))) {
    const id = text(row.id);
    if (id === undefined || id === '') {
      edits.addKeywords.push(newKeyword(row.keyword, row.whole_word));
    } else if (creating) {
      // Mastodon answers 404 for an id on create (mastodon/mastodon#21727): nothing can match it yet.
      throw new NotFoundError();
    } else if (railsBoolean(row._destroy)) {
      edits.removeKeywords.push(id);
    } else {
      edits.changeKeywords.push(keywordChange(id, row.keyword, row.whole_word));
    }
  }
  return edits;
}

const settingsFrom = (input: V2FilterInput, now: number) =>
  partialSettings({ title: input.title, context: input.context, action: input.filter_action, expiresIn: input.expires_in }, now);

export function v2FilterRoutes(router: Router, deps: FilterRouteDeps): void {
  const listings = new ListingCache(deps.reads, 'v2');
  router.get('/api/v2/filters', async (ctx: Context) => {
    ctx.type = 'application/json';
    ctx.body = await listings.listing(accountOf(ctx));
  });

  router.get('/api/v2/filters/:id', async (ctx: Context) => {
    ctx.body = filterJson(found(await deps.reads.getFilter(accountOf(ctx), pathId(ctx, 'id'))));
  });

  router.post('/api/v2/filters', async (ctx: Context) => {
    const input = checked(v2FilterInput, paramsOf(ctx));
    const now = Date.now();
    const filterId = newId(now);
    const given = settingsFrom(input, now);
    const { addKeywords } = keywordEdits(attributeList(input.keywords_attributes), true);
    const settings = newFilterSettings(given);
    const caller = callerOf(ctx, 'v2');
    const { command, run } = await keyedCommand(ctx, deps.idempotency, {
      type: 'CreateFilter',
      data: { filterId, accountId: caller.accountId, now: new Date(now).toISOString(), settings, keywords: addKeywords },
    });
    const { filter } = await runFilterCommand(deps, caller, command, run);
    ctx.body = filterJson(filterShapeOf(found(filter)));
  });

  const update = async (ctx: Context) => {
    const filterId = pathId(ctx, 'id');
    const input = checked(v2FilterInput, paramsOf(ctx));
    const now = Date.now();
    const caller = callerOf(ctx, 'v2');
    const { filter } = await runFilterCommand(deps, caller, {
      type: 'UpdateFilter',
      data: {
        filterId,
        accountId: caller.accountId,
        now: new Date(now).toISOString(),
        settings: settingsFrom(input, now),
        ...keywordEdits(attributeList(input.keywords_attributes), false),
      },
    });
    ctx.body = filterJson(filterShapeOf(found(filter)));
  };
  router.put('/api/v2/filters/:id', update);
  router.patch('/api/v2/filters/:id', update);

  router.delete('/api/v2/filters/:id', async (ctx: Context) => {
    const caller = callerOf(ctx, 'v2');
    const filterId = pathId(ctx, 'id');
    await runFilterCommand(deps, caller, { type: 'DeleteFilter', data: { filterId, accountId: caller.accountId, now: new Date().toISOString() } });
    ctx.body = {};
  });
}

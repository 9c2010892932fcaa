import type Router from '@koa/router';
import type { Context } from 'koa';
import { newId } from '../../shared/ids.ts';
import { ListingCache } from '../listing-cache.ts';
import { keyedCommand } from '../keyed-command.ts';
import { runFilterCommand } from '../run-filter-command.ts';
import { checked, v1FilterInput, type V1FilterInput } from '../input-schemas.ts';
import { railsBoolean } from '../input-values.ts';
import { keywordChange, newFilterSettings, newKeyword, partialSettings } from '../filter-input.ts';
import { accountOf, callerOf, found, paramsOf, pathId, type FilterRouteDeps } from '../route-context.ts';
import { v1FilterJson, v1RecordOf } from '../serializers.ts';

/** v1 filter-level parameters: the phrase is also the filter's title; irreversible maps to hide/warn. */
function v1Settings(input: V1FilterInput, now: number) {
  const irreversible = railsBoolean(input.irreversible);
  const action = irreversible === undefined ? undefined : irreversible ? 'hide' : 'warn';
  return partialSettings({ title: input.phrase, context: input.context, action, expiresIn: input.expires_in }, now);
}

/** The legacy API: each record is one keyword, identified by the keyword's id. */
export function v1FilterRoutes(router: Router, deps: FilterRouteDeps): void {
  const listings = new ListingCache(deps.reads, 'v1');
  router.get('/api/v1/filters', async (ctx: Context) => {
    ctx.type = 'application/json';
    ctx.body = await listings.listing(accountOf(ctx));
  });

  router.get('/api/v1/filters/:id', async (ctx: Context) => {
    ctx.body = v1FilterJson(found(await deps.reads.getV1Filter(accountOf(ctx), pathId(ctx, 'id'))));
  });

  router.post('/api/v1/filters', async (ctx: Context) => {
    const input = checked(v1FilterInput, paramsOf(ctx));
    const now = Date.now();
    const given = v1Settings(input, now);
    const filterId = newId(now);
    const keyword = newKeyword(input.phrase, input.whole_word);
    const caller = callerOf(ctx, 'v1');
    const { command, run } = await keyedCommand(ctx, deps.idempotency, {
      type: 'CreateFilter',
      data: {
        filterId,
        accountId: caller.accountId,
        now: new Date(now).toISOString(),
        settings: newFilterSettings(given),
        keywords: [keyword],
      },
    });
    const { filter } = await runFilterCommand(deps, caller, command, run);
    ctx.body = v1FilterJson(v1RecordOf(found(filter), found(command.data.keywords[0])));
  });

  const update = async (ctx: Context) => {
    const keywordId = pathId(ctx, 'id');
    const caller = callerOf(ctx, 'v1');
    const input = checked(v1FilterInput, paramsOf(ctx));
    const located = found(await deps.reads.findKeyword(caller.accountId, keywordId));
    const now = Date.now();
    const { filter } = await runFilterCommand(deps, caller, {
      type: 'UpdateFilter',
      data: {
        filterId: located.filterId,
        accountId: caller.accountId,
        now: new Date(now).toISOString(),
        settings: v1Settings(input, now),
        changeKeywords: [keywordChange(keywordId, input.phrase, input.whole_word)],
        legacySingleKeywordGuard: true,
      },
    });
    const active = found(filter);
    ctx.body = v1FilterJson(v1RecordOf(active, found(active.keywords.find((k) => k.id === keywordId))));
  };
  router.put('/api/v1/filters/:id', update);
  router.patch('/api/v1/filters/:id', update);

  router.delete('/api/v1/filters/:id', async (ctx: Context) => {
    const keywordId = pathId(ctx, 'id');
    const caller = callerOf(ctx, 'v1');
    const located = found(await deps.reads.findKeyword(caller.accountId, keywordId));
    await runFilterCommand(deps, caller, {
      type: 'UpdateFilter',
      data: { filterId: located.filterId, accountId: caller.accountId, now: new Date().toISOString(), removeKeywords: [keywordId] },
    });
    ctx.body = {};
  });
}

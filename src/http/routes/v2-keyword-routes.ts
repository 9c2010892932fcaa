import type Router from '@koa/router';
import type { Context } from 'koa';
import { keyedCommand } from '../keyed-command.ts';
import { runFilterCommand } from '../run-filter-command.ts';
import { checked, keywordInput } from '../input-schemas.ts';
import { keywordChange, newKeyword } from '../filter-input.ts';
import { accountOf, callerOf, found, paramsOf, pathId, type FilterRouteDeps } from '../route-context.ts';
import { keywordJson } from '../serializers.ts';

/** Mastodon's v2 keyword endpoints: nested for index and create, flat for one keyword. */
export function v2KeywordRoutes(router: Router, deps: FilterRouteDeps): void {
  router.get('/api/v2/filters/:filterId/keywords', async (ctx: Context) => {
    ctx.body = found(await deps.reads.getFilter(accountOf(ctx), pathId(ctx, 'filterId'))).keywords.map(keywordJson);
  });

  router.post('/api/v2/filters/:filterId/keywords', async (ctx: Context) => {
    const filterId = pathId(ctx, 'filterId');
    const input = checked(keywordInput, paramsOf(ctx));
    const keyword = newKeyword(input.keyword, input.whole_word);
    const caller = callerOf(ctx, 'v2');
    const { command, run } = await keyedCommand(ctx, deps.idempotency, {
      type: 'UpdateFilter',
      data: { filterId, accountId: caller.accountId, now: new Date().toISOString(), addKeywords: [keyword], keywordLabel: 'Keyword' },
    });
    const { filter } = await runFilterCommand(deps, caller, command, run);
    // As it is now: a repeated Idempotency-Key answers with the keyword its first request added, if it is still there.
    const added = found(command.data.addKeywords?.[0]);
    ctx.body = keywordJson(found(filter?.keywords.find((k) => k.id === added.id)));
  });

  router.get('/api/v2/filters/keywords/:id', async (ctx: Context) => {
    ctx.body = keywordJson(found(await deps.reads.findKeyword(accountOf(ctx), pathId(ctx, 'id'))).keyword);
  });

  const update = async (ctx: Context) => {
    const keywordId = pathId(ctx, 'id');
    const caller = callerOf(ctx, 'v2');
    const input = checked(keywordInput, paramsOf(ctx));
    const located = found(await deps.reads.findKeyword(caller.accountId, keywordId));
    const { filter } = await runFilterCommand(deps, caller, {
      type: 'UpdateFilter',
      data: {
        filterId: located.filterId,
        accountId: caller.accountId,
        now: new Date().toISOString(),
        changeKeywords: [keywordChange(keywordId, input.keyword, input.whole_word)],
        keywordLabel: 'Keyword',
      },
    });
    ctx.body = keywordJson(found(filter?.keywords.find((k) => k.id === keywordId)));
  };
  router.put('/api/v2/filters/keywords/:id', update);
  router.patch('/api/v2/filters/keywords/:id', update);

  router.delete('/api/v2/filters/keywords/:id', async (ctx: Context) => {
    const keywordId = pathId(ctx, 'id');
    const caller = callerOf(ctx, 'v2');
    const located = found(await deps.reads.findKeyword(caller.accountId, keywordId));
    await runFilterCommand(deps, caller, {
      type: 'UpdateFilter',
      data: { filterId: located.filterId, accountId: caller.accountId, now: new Date().toISOString(), removeKeywords: [keywordId] },
    });
    ctx.body = {};
  });
}

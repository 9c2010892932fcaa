import type Router from '@koa/router';
import type { Context } from 'koa';
import type { SettingsInput } from '../../commands/filter/commands.ts';
import { newId } from '../../shared/ids.ts';
import { runFilterCommand } from '../filter-commands.ts';
import { checked, v1FilterInput, type V1FilterInput } from '../input-schemas.ts';
import { contextList, expiresAtFrom, railsBoolean, text } from '../input-values.ts';
import { accountOf, callerOf, found, paramsOf, pathId, type FilterRouteDeps } from '../route-context.ts';
import { v1FilterJson, v1RecordOf } from '../serializers.ts';

/** v1 filter-level parameters: the phrase is also the filter's title; irreversible maps to hide/warn. */
function v1Settings(input: V1FilterInput, now: number): Partial<SettingsInput> {
  const settings: { -readonly [K in keyof SettingsInput]?: SettingsInput[K] } = {};
  if (input.phrase !== undefined) settings.title = String(input.phrase);
  const context = contextList(input.context);
  if (context !== undefined) settings.context = context;
  const irreversible = railsBoolean(input.irreversible);
  if (irreversible !== undefined) settings.action = irreversible ? 'hide' : 'warn';
  const expiresAt = expiresAtFrom(input.expires_in, now);
  if (expiresAt !== undefined) settings.expiresAt = expiresAt;
  return settings;
}

/** The legacy API: each record is one keyword, identified by the keyword's id. */
export function v1FilterRoutes(router: Router, deps: FilterRouteDeps): void {
  router.get('/api/v1/filters', async (ctx: Context) => {
    ctx.body = (await deps.reads.listV1Filters(accountOf(ctx))).map(v1FilterJson);
  });

  router.get('/api/v1/filters/:id', async (ctx: Context) => {
    ctx.body = v1FilterJson(found(await deps.reads.getV1Filter(accountOf(ctx), pathId(ctx, 'id'))));
  });

  router.post('/api/v1/filters', async (ctx: Context) => {
    const input = checked(v1FilterInput, paramsOf(ctx));
    const now = Date.now();
    const given = v1Settings(input, now);
    const filterId = newId(now);
    const keyword = { id: newId(now), keyword: text(input.phrase) ?? '', wholeWord: railsBoolean(input.whole_word) ?? true };
    const caller = callerOf(ctx, 'v1');
    const { filter } = await runFilterCommand(deps, caller, {
      type: 'CreateFilter',
      data: {
        filterId,
        accountId: caller.accountId,
        now: new Date(now).toISOString(),
        settings: { title: given.title ?? '', context: given.context ?? [], action: given.action ?? 'warn', expiresAt: given.expiresAt ?? null },
        keywords: [keyword],
      },
    });
    ctx.body = v1FilterJson(v1RecordOf(found(filter), keyword));
  });

  const update = async (ctx: Context) => {
    const keywordId = pathId(ctx, 'id');
    const caller = callerOf(ctx, 'v1');
    const input = checked(v1FilterInput, paramsOf(ctx));
    const located = found(await deps.reads.findKeyword(caller.accountId, keywordId));
    const now = Date.now();
    const wholeWord = railsBoolean(input.whole_word);
    const { filter } = await runFilterCommand(deps, caller, {
      type: 'UpdateFilter',
      data: {
        filterId: located.filterId,
        accountId: caller.accountId,
        now: new Date(now).toISOString(),
        settings: v1Settings(input, now),
        changeKeywords: [{ id: keywordId, ...(input.phrase !== undefined ? { keyword: String(input.phrase) } : {}), ...(wholeWord !== undefined ? { wholeWord } : {}) }],
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

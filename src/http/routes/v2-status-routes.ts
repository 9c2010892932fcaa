import type Router from '@koa/router';
import type { Context } from 'koa';
import { ValidationError } from '../../commands/errors.ts';
import { newId } from '../../shared/ids.ts';
import { keyedCommand } from '../keyed-command.ts';
import { runFilterCommand } from '../run-filter-command.ts';
import { checked, statusInput } from '../input-schemas.ts';
import { text } from '../input-values.ts';
import { accountOf, callerOf, found, paramsOf, pathId, type FilterRouteDeps } from '../route-context.ts';
import { statusJson } from '../serializers.ts';

/** Mastodon's v2 filter-status endpoints; there is no update. */
export function v2StatusRoutes(router: Router, deps: FilterRouteDeps): void {
  router.get('/api/v2/filters/:filterId/statuses', async (ctx: Context) => {
    ctx.body = found(await deps.reads.getFilter(accountOf(ctx), pathId(ctx, 'filterId'))).statuses.map(statusJson);
  });

  router.post('/api/v2/filters/:filterId/statuses', async (ctx: Context) => {
    const filterId = pathId(ctx, 'filterId');
    const input = checked(statusInput, paramsOf(ctx));
    const caller = callerOf(ctx, 'v2');
    const statusId = (text(input.status_id) ?? '').trim();
    // Mastodon finds the filter (404) before the status is validated (422 `Status must exist`).
    if (deps.statuses && !(await deps.statuses.exists(statusId))) {
      found(await deps.reads.getFilter(caller.accountId, filterId));
      throw new ValidationError(['Status must exist']);
    }
    const { command, run } = await keyedCommand(ctx, deps.idempotency, {
      type: 'FilterStatus',
      data: { filterId, accountId: caller.accountId, now: new Date().toISOString(), filterStatusId: newId(), statusId },
    });
    const { filter } = await runFilterCommand(deps, caller, command, run);
    ctx.body = statusJson(found(filter?.statuses.find((s) => s.id === command.data.filterStatusId)));
  });

  router.get('/api/v2/filters/statuses/:id', async (ctx: Context) => {
    ctx.body = statusJson(found(await deps.reads.findFilterStatus(accountOf(ctx), pathId(ctx, 'id'))).status);
  });

  router.delete('/api/v2/filters/statuses/:id', async (ctx: Context) => {
    const filterStatusId = pathId(ctx, 'id');
    const caller = callerOf(ctx, 'v2');
    const located = found(await deps.reads.findFilterStatus(caller.accountId, filterStatusId));
    await runFilterCommand(deps, caller, {
      type: 'UnfilterStatus',
      data: { filterId: located.filterId, accountId: caller.accountId, now: new Date().toISOString(), filterStatusId },
    });
    ctx.body = {};
  });
}

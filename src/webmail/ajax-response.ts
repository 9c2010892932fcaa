import type { Context } from 'koa';

type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/**
 * Roundcube's AJAX envelope: `{"action", "unlock"?, "exec"}` where `exec` holds one
 * `this.<command>(<JSON arguments>);` per line. Our page script parses those lines (it never evals
 * them) and runs only the commands it knows.
 */
export class AjaxResponse {
  private readonly commands: string[] = [];

  constructor(
    private readonly action: string,
    private readonly unlock?: string | undefined,
  ) {}

  command(name: string, ...args: JsonValue[]): this {
    this.commands.push(`this.${name}(${args.map((arg) => JSON.stringify(arg)).join(',')});\n`);
    return this;
  }

  send(ctx: Context, status = 200): void {
    const body: Record<string, string> = { action: this.action };
    if (this.unlock && this.unlock !== '0') body.unlock = this.unlock;
    body.exec = this.commands.join('');
    ctx.status = status;
    ctx.type = 'application/json; charset=utf-8';
    ctx.body = JSON.stringify(body);
  }
}

/** Roundcube keeps `_unlock` to `[a-z0-9]` before echoing it. */
export function unlockId(value: string | undefined): string {
  return (value ?? '').replace(/[^a-z0-9]/gi, '');
}

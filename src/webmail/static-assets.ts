import { readFileSync } from 'node:fs';
import type { Context } from 'koa';

const ASSETS: Record<string, { file: string; type: string }> = {
  '/webmail/static/webmail.js': { file: 'webmail.js', type: 'text/javascript; charset=utf-8' },
  '/webmail/static/preview-pane.js': { file: 'preview-pane.js', type: 'text/javascript; charset=utf-8' },
  '/webmail/static/compose-attachments.js': { file: 'compose-attachments.js', type: 'text/javascript; charset=utf-8' },
  '/webmail/static/autocomplete.js': { file: 'autocomplete.js', type: 'text/javascript; charset=utf-8' },
  '/webmail/static/favicon.svg': { file: 'favicon.svg', type: 'image/svg+xml' },
  '/webmail/static/webmail.css': { file: 'webmail.css', type: 'text/css; charset=utf-8' },
};

/** The page script and stylesheet, read once; the CSP allows no other script or style. */
export class StaticAssets {
  private readonly contents = new Map<string, Buffer>();

  constructor() {
    for (const [path, asset] of Object.entries(ASSETS)) {
      this.contents.set(path, readFileSync(new URL(`./assets/${asset.file}`, import.meta.url)));
    }
  }

  /** True when the path named an asset and it was sent. */
  serve(ctx: Context): boolean {
    const body = this.contents.get(ctx.path);
    if (!body) return false;
    ctx.status = 200;
    ctx.type = ASSETS[ctx.path]!.type;
    ctx.body = body;
    return true;
  }
}

#!/usr/bin/env node
// The installed `content-filters` command runs the compiled CLI (`npm run build` makes dist/). Source maps
// are switched on before it loads, so a stack trace names the TypeScript file and line.
process.setSourceMapsEnabled(true);
await import('../dist/cli/main.js');

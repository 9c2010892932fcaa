#!/usr/bin/env node
// The CLI is TypeScript run through tsx, so an installed `content-filters` command needs no build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');

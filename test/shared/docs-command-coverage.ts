/**
 * Every command the docs show (README.md, docs/*.md, ```sh blocks), and what runs it: a file (a spec,
 * or `.ci/run`) and a literal that file holds where it runs it, so the entry goes stale loudly when
 * the test changes. A command no test can run here names what is absent instead. Keys are the commands
 * as `shellCommands` reads them (continuations joined, trailing comment dropped, spaces squeezed).
 */
export type Coverage = { readonly runBy: string; readonly where: string } | { readonly needs: string };

const README = 'test/cli/readme-session.spec.ts';
const CLI_AS_WRITTEN = { runBy: README, where: 'exampleSession()' };
const BUF = { runBy: 'test/rpc/support/buf-curl.ts', where: "'--http2-prior-knowledge'" };
const NATS_CLI = { runBy: 'test/notifications/nats-request-cli.spec.ts', where: "'nats-request'" };
const APP_CLI = { runBy: 'test/oauth/app-cli.spec.ts', where: "'app', 'list'" };
const APP_REVOKE = { runBy: 'test/oauth/app-cli.spec.ts', where: "'app', 'revoke'" };
const UNLOCK = { runBy: 'test/accounts/account-cli.spec.ts', where: "'account', 'unlock'" };
const TOKEN_LIST = { runBy: 'test/cli/operator-cli.spec.ts', where: "'token', 'list'" };
const OAUTH = { runBy: 'test/oauth/apps-and-tokens.spec.ts', where: '/oauth/token' };
const AUDIT_STEPS = { runBy: 'test/cli/auditing-doc-steps.spec.ts', where: 'every command shown, run as written' };
const ACCOUNT_STORY = { runBy: 'test/cli/account-story-docs.spec.ts', where: "fenced('sh')" };
const COMPLETE_AUDIT = { runBy: 'test/cli/complete-audit-docs.spec.ts', where: "runCommand('bash'" };
const NO_DOCKER = { needs: 'a container runtime (docker), absent on the test machines; CI job `image` builds and runs the image' };

export const DOCS_COMMAND_COVERAGE: Readonly<Record<string, Coverage>> = {
  // README.md
  'npm ci': { runBy: '.ci/run', where: 'npm ci --no-audit --no-fund' },
  'npm start': { runBy: 'test/process/npm-start-output.spec.ts', where: "spawn('npm', ['start']" },
  'npm start &': { runBy: README, where: "NodeProcess.npm(['start']" },
  'npm run --silent cli -- account create alice': CLI_AS_WRITTEN,
  'TOKEN=$(npm run --silent cli -- token create alice --scopes "read:filters write:filters")': CLI_AS_WRITTEN,
  'AUTH="Authorization: Bearer $TOKEN"': { runBy: README, where: 'exampleSession()' },
  "curl -s -H \"$AUTH\" http://localhost:3000/api/v2/filters -d 'title=spoilers&context[]=home&context[]=public&filter_action=warn' -d 'keywords_attributes[][keyword]=finale&keywords_attributes[][whole_word]=false'":
    { runBy: README, where: "created!.title, 'spoilers'" },
  'FILTER=<the id above>': { runBy: README, where: 'FILTER=$(echo "$FIRST"' },
  'curl -s -H "$AUTH" -X PUT http://localhost:3000/api/v2/filters/$FILTER -H \'Content-Type: application/json\' -d \'{"title":"TV spoilers","expires_in":86400}\'':
    { runBy: README, where: "updated!.title, 'TV spoilers'" },
  'curl -s -H "$AUTH" http://localhost:3000/api/v2/filters/$FILTER/statuses -d status_id=109031743575371913': { runBy: README, where: 'status!.status_id' },
  'curl -s -H "$AUTH" http://localhost:3000/api/v1/filters': { runBy: README, where: 'record.phrase' },
  'curl -s -H "$AUTH" -X DELETE http://localhost:3000/api/v2/filters/$FILTER': { runBy: README, where: 'deepEqual(deleted, {})' },

  // docs/mastodon.md
  'MASTODON_DATABASE_URL=postgresql://mastodon@127.0.0.1:5432/mastodon_production': {
    needs: "a running Mastodon's PostgreSQL; test/mastodon/*.spec.ts set the same setting to databases they make with Mastodon's tables",
  },
  "npx mocha 'test/mastodon/*.spec.ts'": { runBy: 'package.json', where: "mocha 'test/**/*.spec.ts'" },
  'MASTODON_DATABASE_URL=postgresql://mastodon@127.0.0.1:5432/mastodon_production npm run --silent cli -- mastodon import': {
    runBy: 'test/mastodon/mastodon-import.spec.ts',
    where: "runCli(['mastodon', 'import'], env)",
  },

  // docs/auditing.md: its first block is run line by line as written, and so is "An account's story"
  'npm run --silent cli -- events': AUDIT_STEPS,
  'npm run --silent cli -- events --account <id> --since 2026-11-01T00:00:00Z --until <position|time>': AUDIT_STEPS,
  'npm run --silent cli -- events --filter <id> --since <position>': AUDIT_STEPS,
  'npm run --silent cli -- events --type FilterCreated,FilterDeleted --format json': AUDIT_STEPS,
  'npm run --silent cli -- filters --account <id> --as-of <position|time>': AUDIT_STEPS,
  'npm run --silent cli -- filters --account <id> --as-of 2026-11-26': AUDIT_STEPS,
  'npm run --silent cli -- export --account <username-or-id> --output <file>': AUDIT_STEPS,
  'npm run --silent cli -- export --all --output <file>': AUDIT_STEPS,
  'npm run --silent cli -- verify --read-models': AUDIT_STEPS,
  'npm run --silent cli -- projections rebuild': AUDIT_STEPS,
  'npm run --silent cli -- projections parked': AUDIT_STEPS,
  'npm run --silent cli -- token create alice': ACCOUNT_STORY,
  'npm run --silent cli -- token revoke <token id>': ACCOUNT_STORY,
  'npm run --silent cli -- events --account alice': ACCOUNT_STORY,

  "HEAD=$(npm run --silent cli -- verify | sed 's/.*head \\([^;]*\\).*/\\1/')": COMPLETE_AUDIT,
  'npm run --silent cli -- verify --expect "$HEAD"': COMPLETE_AUDIT,
  'npm run --silent cli -- events --account alice --format table': COMPLETE_AUDIT,
  'npm run --silent cli -- filters --account alice --as-of "${HEAD%%:*}"': COMPLETE_AUDIT,
  'npm run --silent cli -- export --account alice --output alice.jsonl': COMPLETE_AUDIT,
  'npm run --silent cli -- verify': { runBy: 'test/cli/verify-chain.spec.ts', where: "'verify'" },
  'npm run --silent cli -- verify --expect 1200:<hash>': { runBy: 'test/cli/verify-chain.spec.ts', where: "verify(copy, '--expect', head)" },

  // docs/development.md
  'npm test': { runBy: '.ci/run', where: 'npm test 2>&1' },

  // docs/grpc.md
  'npm run rpc': { runBy: 'test/process/npm-scripts-signals.spec.ts', where: 'rpc: {' },
  'RPC_HOST=127.0.0.1 RPC_PORT=6000 npm run rpc': { runBy: 'test/rpc/rpc-config.spec.ts', where: "RPC_HOST: '127.0.0.1'" },
  'U=http://127.0.0.1:50051': BUF,
  'npx buf curl --protocol grpc --http2-prior-knowledge --list-methods $U': { runBy: 'test/rpc/buf-curl.spec.ts', where: "'--list-methods'" },
  'npx buf curl --protocol grpc --http2-prior-knowledge -d \'{"payload":"hi"}\' $U/test_service.TestService/Echo': {
    runBy: 'test/rpc/buf-curl.spec.ts',
    where: "method('Echo')",
  },
  'npx buf curl --protocol grpc --http2-prior-knowledge -d \'{"values":[1,2,3]}\' $U/test_service.TestService/Sum': {
    runBy: 'test/rpc/buf-curl.spec.ts',
    where: `'{"values":[1,2,3]}', method('Sum')`,
  },
  'printf \'{"payload":"a"}\\n{"payload":"b"}\\n\' | npx buf curl --protocol grpc --http2-prior-knowledge -d @- $U/test_service.TestService/DoubleEcho': {
    runBy: 'test/rpc/buf-curl.spec.ts',
    where: 'DoubleEcho',
  },
  'npx buf curl --protocol grpc --http2-prior-knowledge -d \'{"service":""}\' $U/grpc.health.v1.Health/Check': {
    runBy: 'test/rpc/buf-curl.spec.ts',
    where: 'Health/Check',
  },
  'npx buf curl --protocol grpc --http2-prior-knowledge -v -H \'x-grpc-test-echo-initial: hello\' -d \'{"payload":"x"}\' $U/test_service.TestService/Echo': {
    runBy: 'test/rpc/buf-curl.spec.ts',
    where: 'x-grpc-test-echo-initial',
  },

  // docs/matching.md
  'curl -s -H "$AUTH" -H \'Content-Type: application/json\' http://localhost:3000/api/v2/filters/match -d \'{"statuses":[{"id":"1","content":"<p>The finale was great</p>"}]}\'':
    { runBy: 'test/http/filter-match.spec.ts', where: '/api/v2/filters/match' },

  // docs/operations.md
  'npm run --silent cli -- account show alice': { runBy: 'test/cli/operator-cli.spec.ts', where: "'account', 'show'" },
  'npm run --silent cli -- token create alice --scopes "read:filters write:filters"': CLI_AS_WRITTEN,
  'npm run --silent cli -- token list alice': TOKEN_LIST,
  'npm run --silent cli -- token revoke <token or token id>': { runBy: 'test/cli/operator-cli.spec.ts', where: "'token', 'revoke'" },
  'npm run --silent cli -- backup <empty dir>': { runBy: 'test/process/backup-restore.spec.ts', where: "'backup'" },
  "npm run --silent cli -- nats-request <subject> '<json>'": NATS_CLI,
  'npm run --silent cli -- account unlock alice': UNLOCK,
  'npm run --silent cli -- app list': APP_CLI,
  'npm run --silent cli -- app revoke <app id or client id>': APP_REVOKE,
  'npm run --silent cli -- backup /backups/cf-2026-11-26': { runBy: 'test/process/backup-restore.spec.ts', where: "'backup'" },
  'cp -a /backups/cf-2026-11-26 /srv/cf-restored && DATA_DIR=/srv/cf-restored npm start': { runBy: 'test/process/backup-restore.spec.ts', where: 'restore' },
  'docker compose up --build': NO_DOCKER,
  'docker compose run --rm api node dist/cli/main.js account create alice': NO_DOCKER,
  'docker compose run --rm api node dist/cli/main.js token create alice': NO_DOCKER,
  'curl -H "Authorization: Bearer <token>" http://localhost:3000/api/v2/filters': NO_DOCKER,

  // docs/sign-in-and-rate-limits.md
  "curl -s localhost:3000/api/v1/apps -d client_name=mine -d redirect_uris=urn:ietf:wg:oauth:2.0:oob -d 'scopes=read write'": {
    runBy: 'test/oauth/apps-and-tokens.spec.ts',
    where: '/api/v1/apps',
  },
  'curl -s localhost:3000/oauth/token -d grant_type=authorization_code -d client_id=CID -d client_secret=SECRET -d redirect_uri=urn:ietf:wg:oauth:2.0:oob -d code=CODE':
    OAUTH,
  'curl -s -H "Authorization: Bearer TOKEN" localhost:3000/api/v2/filters': OAUTH,
  'npm run --silent cli -- app revoke <id or client id>': APP_REVOKE,

  // docs/timeline-services.md
  'NATS_URL=nats://127.0.0.1:4222 npm run --silent cli -- nats-request filters.match.117661866608440641 \'{"statuses":[{"id":"1","content":"<p>The finale was great</p>"}],"context":"home"}\'':
    NATS_CLI,
  'NATS_URL=nats://127.0.0.1:4222 npm run --silent cli -- nats-request filters.match.117661866608440641 \'{"statuses":"all"}\'': {
    runBy: 'test/notifications/nats-request-cli.spec.ts',
    where: 'statuses is invalid',
  },
  'CONTENT_FILTERS_NATS_PASSWORD=... TIMELINE_NATS_PASSWORD=... nats-server -c docs/examples/nats-server.conf': {
    runBy: 'test/notifications/nats-permissions-example.spec.ts',
    where: 'CONTENT_FILTERS_NATS_PASSWORD',
  },
  "NATS_URL='nats://content-filters:<password>@127.0.0.1:4222' npm start": {
    runBy: 'test/notifications/nats-permissions-example.spec.ts',
    where: 'content-filters:${',
  },
  'REDIS_URL=redis://127.0.0.1:6379 npm start &': { runBy: 'test/notifications/redis-timeline.spec.ts', where: 'REDIS_URL' },
  "redis-cli psubscribe 'timeline:*'": { runBy: 'test/notifications/redis-timeline.spec.ts', where: 'pSubscribe' },

  // docs/webmail.md
  "printf '%s\\n' 'a long password' | npm run --silent cli -- account password alice --password-stdin": {
    runBy: 'test/cli/docs-steps.spec.ts',
    where: "'a long password\\n'",
  },
  "printf '%s\\n' 'another one' | npm run --silent cli -- account create bob --password-stdin": {
    runBy: 'test/cli/docs-steps.spec.ts',
    where: "'another one\\n'",
  },
  'IMAP_URL=imap://mail.example.com:143 SMTP_URL=smtp://mail.example.com:587 npm start': {
    runBy: 'test/webmail/imap-browser.spec.ts',
    where: 'imap-webmail-server',
  },
};

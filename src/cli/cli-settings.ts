/** The environment the CLI reads, for its --help: the same variables as the server's. */
export const CLI_SETTINGS_HELP = `
Settings (environment variables, as the server reads them):
  DATA_DIR            where the embedded stores are (default ./data): events unless EVENTSTORE_URL is set,
                      accounts, tokens and read models unless MONGODB_URL is set
  EVENTSTORE_URL      read (and rebuild from) the event log in EventStoreDB, e.g. esdb://localhost:2113?tls=false
  MONGODB_URL         accounts and tokens, and the read models to rebuild, in MongoDB,
                      e.g. mongodb://localhost:27017/content_filters
  MASTODON_DATABASE_URL  Mastodon mode: Mastodon's PostgreSQL owns accounts and tokens, so the account,
                      token and app commands refuse; mastodon import reads its filters (docs/mastodon.md)
  MONGODB_WRITE_CONCERN majority (default) or a number of members that must hold a write
  PROJECTOR_LEASE_MS  the projector lease (default 10000); a rebuild waits at least twice this for the handover
`;

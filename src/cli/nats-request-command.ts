import { Command } from 'commander';
import { connect } from 'nats';
import { natsSettings, type Config } from '../config.ts';
import { describeNats, natsConnectionOptions } from '../notifications/nats-connection-options.ts';
import { CliError } from './cli-error.ts';
import { millisecondsArgument } from './cli-arguments.ts';

/**
 * `nats-request <subject> <body>`: one NATS request with the service's own NATS settings (NATS_URL,
 * NATS_TOKEN, NATS_CREDS, NATS_TLS_CA), the reply on stdout. What `nats request` of the NATS CLI does,
 * with nothing to install beyond this package.
 */
export function natsRequestCommand(config: Config): Command {
  return new Command('nats-request')
    .description('Send one NATS request (e.g. filters.match.<account_id>) with the NATS settings of the service and print the reply.')
    .argument('<subject>', 'the subject, e.g. filters.match.117661866608440641')
    .argument('<body>', 'the request body, e.g. a JSON document')
    .option('--timeout <ms>', 'how long to wait for the reply', millisecondsArgument, 5000)
    .action(async (subject: string, body: string, options: { timeout: number }) => {
      const settings = natsSettings(config);
      if (!settings) throw new CliError('NATS_URL is not set: set it to the NATS server the service uses');
      let connection;
      try {
        connection = await connect({ ...natsConnectionOptions(settings), name: 'content-filters-cli', maxReconnectAttempts: 0 });
      } catch (error) {
        throw new CliError(`cannot reach NATS at ${describeNats(settings)}: ${(error as Error).message}`);
      }
      try {
        const reply = await connection.request(subject, new TextEncoder().encode(body), { timeout: options.timeout });
        process.stdout.write(`${reply.string()}\n`);
      } catch (error) {
        const code = (error as { code?: string }).code;
        if (code === '503') throw new CliError(`no one answers on ${subject}`);
        if (code === 'TIMEOUT') throw new CliError(`no reply on ${subject} within ${options.timeout} ms`);
        throw new CliError(`request on ${subject} failed: ${(error as Error).message}`);
      } finally {
        await connection.close();
      }
    });
}

import { startRpcServer } from '../src/rpc/rpc-server.ts';
import { startBareEchoServer } from './bare-echo-server.ts';

/**
 * Child process of rpc-bench.ts: one server per process, so each gets a core of its own and its CPU
 * time can be read alone. Says its target over IPC, answers 'cpu' with its CPU microseconds so far.
 */
export type BenchServerKind = 'bare' | 'full';
export type BenchServerMessage = { readonly target: string } | { readonly cpuMicros: number };

const kind = process.argv[2] as BenchServerKind;
const server = kind === 'full' ? await startRpcServer({ port: 0 }) : await startBareEchoServer();
const send = (message: BenchServerMessage) => process.send!(message);

send({ target: server.target });
process.on('message', (request) => {
  if (request !== 'cpu') return;
  const { user, system } = process.cpuUsage();
  send({ cpuMicros: user + system });
});
process.on('disconnect', () => process.exit(0));

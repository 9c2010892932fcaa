import { connect, createServer, type Socket } from 'node:net';
import { createInterface } from 'node:readline';

/**
 * A TCP relay that delays every byte by a fixed time in each direction: a slow link between two test hosts
 * (test/support/test-hosts.ts), since the kernels here have no `sch_netem` for `tc ... netem delay`. It runs
 * on a host of its own between the client's and the server's, so the delay is on the network path, not in
 * either process. Usage: `delaying-relay-process.ts <listen address> <target address> <target port> <delay ms>`;
 * prints the port it listens on; a line `delay <ms>` on stdin changes the delay for bytes that arrive after it
 * (and is said back once it applies).
 * Bytes keep their order: each direction is one queue, sent in arrival order once their time has come.
 */
const [listenAddress, targetAddress, targetPort, initialDelay] = process.argv.slice(2);
let delayMs = Number(initialDelay);

function forward(from: Socket, to: Socket): void {
  const queue: { due: number; chunk: Buffer }[] = [];
  let timer: NodeJS.Timeout | null = null;
  let ended = false;
  const send = () => {
    timer = null;
    while (queue.length > 0 && queue[0]!.due <= Date.now()) to.write(queue.shift()!.chunk);
    // The delay is what this process is for: a timer here is the link's latency, not a wait for a condition.
    if (queue.length > 0) timer = setTimeout(send, Math.max(0, queue[0]!.due - Date.now()));
    else if (ended) to.end();
  };
  from.on('data', (chunk: Buffer) => {
    // A later chunk is never due before an earlier one, even when the delay has just been shortened.
    const due = Math.max(Date.now() + delayMs, queue.at(-1)?.due ?? 0);
    queue.push({ due, chunk });
    timer ??= setTimeout(send, Math.max(0, due - Date.now()));
  });
  from.on('end', () => {
    ended = true;
    if (queue.length === 0 && timer === null) to.end();
  });
  from.on('error', () => to.destroy());
  from.on('close', () => {
    if (!ended) to.destroy();
  });
}

const server = createServer((client) => {
  const upstream = connect(Number(targetPort), targetAddress);
  forward(client, upstream);
  forward(upstream, client);
});
server.listen(0, listenAddress, () => {
  const address = server.address();
  console.log(typeof address === 'object' && address ? address.port : '');
});
createInterface({ input: process.stdin }).on('line', (line) => {
  const asked = /^delay (\d+)$/.exec(line.trim());
  if (!asked) return;
  delayMs = Number(asked[1]);
  console.log(`delay ${delayMs}`);
});
process.stdin.on('end', () => process.exit(0));

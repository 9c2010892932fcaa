import { isIPv4, isIPv6 } from 'node:net';

const MAPPED_IPV4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;

/** The eight 16-bit groups of an IPv6 address, an embedded IPv4 tail counted as two. */
function groups(address: string): string[] {
  const [head = '', tail] = address.split('::') as [string, string | undefined];
  const part = (text: string) =>
    text === ''
      ? []
      : text.split(':').flatMap((piece) => {
          if (!isIPv4(piece)) return [piece];
          const [a, b, c, d] = piece.split('.').map(Number) as [number, number, number, number];
          return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
        });
  const front = part(head);
  if (tail === undefined) return front;
  const back = part(tail);
  return [...front, ...Array<string>(8 - front.length - back.length).fill('0'), ...back];
}

/**
 * Mastodon's `throttleable_remote_ip`: an IPv6 client is counted by its /64, since one host is usually
 * given a whole /64 and could otherwise take a fresh address for every request; IPv4 (also when the
 * socket reports it IPv4-mapped) is counted by its address.
 */
export function throttleableAddress(ip: string): string {
  const mapped = MAPPED_IPV4.exec(ip);
  if (mapped) return mapped[1]!;
  const address = ip.replace(/%.*$/, '');
  if (!isIPv6(address)) return ip;
  const prefix = groups(address).slice(0, 4);
  // The URL parser writes the masked address in its shortest form, as Ruby's IPAddr#to_s does.
  return new URL(`http://[${[...prefix, '0', '0', '0', '0'].join(':')}]/`).hostname.slice(1, -1);
}

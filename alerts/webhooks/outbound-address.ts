// Which addresses a webhook may be sent to. Unless the operator allows private URLs
// (WEBHOOK_ALLOW_PRIVATE_URLS), loopback, private, link-local, CGNAT, multicast and unspecified
// addresses are refused, both as IP literals in the URL and as what the host name resolves to at
// connection time (the resolved address is the one connected to, so DNS rebinding cannot slip past).
import dns from 'node:dns';
import net from 'node:net';

const BLOCKED = new net.BlockList();
for (const [addr, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  BLOCKED.addSubnet(addr, prefix, 'ipv4');
}
for (const [addr, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
] as const) {
  BLOCKED.addSubnet(addr, prefix, 'ipv6');
}

/** Whether an IP address (v4 or v6, v4-mapped v6 included) is one a webhook must not reach. */
export function isPrivateAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return BLOCKED.check(address, 'ipv4');
  if (family !== 6) return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return BLOCKED.check(mapped[1]!, 'ipv4');
  return BLOCKED.check(address, 'ipv6');
}

/** The URL's host as an IP literal (brackets stripped), or null for a name. */
export function literalAddress(url: URL): string | null {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return net.isIP(host) ? host : null;
}

export class PrivateAddressError extends Error {
  constructor(readonly address: string) {
    super(`refused: ${address} is a loopback or private address (WEBHOOK_ALLOW_PRIVATE_URLS is off)`);
    this.name = 'PrivateAddressError';
  }
}

/** A dns.lookup for http.request that fails when any resolved address is private. */
export const publicOnlyLookup: net.LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '', 0);
    const list = addresses as dns.LookupAddress[];
    const bad = list.find((a) => isPrivateAddress(a.address));
    if (bad) return callback(new PrivateAddressError(bad.address) as NodeJS.ErrnoException, '', 0);
    if (options.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
    callback(null, list[0]!.address, list[0]!.family);
  });
};

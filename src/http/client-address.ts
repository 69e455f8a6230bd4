// Who is on the other end of a request: the client's address (for key IP allowlists, the
// cabinet's login rate limit, the logs) and whether it connected over TLS (the cabinet's Secure
// cookie). By default that is the TCP peer and its socket: no header is believed. Behind a load
// balancer or TLS terminator listed in `server.trusted_proxies`, the peer is that proxy, and its
// X-Forwarded-For / X-Forwarded-Proto say who connected to it and how — believed only from those
// peers, because any client can send the headers.
import type { IncomingMessage } from 'node:http';
import { isIP, type BlockList } from 'node:net';
import { blockListOf, listed, normalizedAddress } from '../util/ip-list.js';
import type { TLSSocket } from 'node:tls';

export class ClientAddresses {
  private readonly trusted: BlockList | undefined;

  constructor(trustedProxies: readonly string[]) {
    // No trusted proxy (the default): the peer, with no per-request work beyond reading it.
    this.trusted = trustedProxies.length > 0 ? blockListOf(trustedProxies) : undefined;
  }

  /**
   * The client's address. From a trusted proxy: X-Forwarded-For read from the right (each proxy
   * appends the address it saw), skipping the trusted hops; the first untrusted entry is the
   * client. An entry that is not an address stops the walk at the hop that reported it.
   */
  of(request: IncomingMessage): string | undefined {
    const peer = request.socket.remoteAddress;
    if (this.trusted === undefined || peer === undefined) return peer === undefined ? undefined : normalizedAddress(peer);
    let client = normalizedAddress(peer);
    if (!listed(this.trusted, client)) return client;
    const header = request.headers['x-forwarded-for'];
    if (header === undefined) return client;
    const hops = (Array.isArray(header) ? header.join(',') : header).split(',');
    for (let index = hops.length - 1; index >= 0; index--) {
      const hop = normalizedAddress(hops[index]!.trim());
      if (isIP(hop) === 0) return client;
      client = hop;
      if (!listed(this.trusted, hop)) return client;
    }
    return client;
  }

  /** Whether the client connected over TLS: to this process, or to a trusted proxy that says so. */
  secure(request: IncomingMessage): boolean {
    if ((request.socket as TLSSocket).encrypted === true) return true;
    const peer = request.socket.remoteAddress;
    if (this.trusted === undefined || peer === undefined || !listed(this.trusted, normalizedAddress(peer))) return false;
    const proto = request.headers['x-forwarded-proto'];
    const first = (Array.isArray(proto) ? proto[0] : proto)?.split(',')[0]?.trim().toLowerCase();
    return first === 'https';
  }
}

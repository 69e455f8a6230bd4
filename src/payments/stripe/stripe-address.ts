// Where the `stripe` package sends its requests. The package takes a host, a port and a
// protocol, and writes every path from /v1/ itself; an api_url with a path of its own (the
// built-in simulator's http://127.0.0.1:PORT/stripe, or a proxy's) therefore goes through an
// HTTP client of the package's own kind that puts that path in front.
import type Stripe from 'stripe';

export interface StripeAddress {
  readonly host: string;
  readonly port: string;
  readonly protocol: 'http' | 'https';
  /** The api_url's path without its trailing slash: '' for https://api.stripe.com, '/stripe' for the simulator. */
  readonly basePath: string;
}

/** `https://api.stripe.com` → {host: 'api.stripe.com', port: '443', protocol: 'https', basePath: ''}. */
export function stripeAddress(apiUrl: string): StripeAddress {
  const url = new URL(apiUrl);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`payments.stripe.api_url must be http(s): ${apiUrl}`);
  if (url.search || url.hash) throw new Error(`payments.stripe.api_url takes no query or fragment: ${apiUrl}`);
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  return {
    // URL keeps an IPv6 host in brackets; the package hands the host to node:http, which takes it bare.
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port || (protocol === 'http' ? '80' : '443'),
    protocol,
    basePath: url.pathname.replace(/\/+$/, ''),
  };
}

/** The package's HTTP client with `basePath` put in front of every path it asks for (itself when there is none). */
export function withBasePath(client: Stripe.HttpClient, basePath: string): Stripe.HttpClient {
  if (basePath === '') return client;
  return {
    getClientName: () => client.getClientName(),
    makeRequest: (host, port, path, method, headers, requestData, protocol, timeout) => client.makeRequest(host, port, `${basePath}${path}`, method, headers, requestData, protocol, timeout),
  };
}

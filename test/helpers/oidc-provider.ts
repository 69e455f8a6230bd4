// A real OpenID Connect provider for the login tests: oidc-provider (v9) on 127.0.0.1, port 0,
// with one client whose redirect URI is given after the provider listens (the gateway's callback
// needs the issuer first, the client its callback). Its login and consent are the provider's
// own interaction flow, answered by this helper: the login as whichever of `accounts` the test
// names in `provider.nextLogin`, the consent by granting what the client asked for.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ExecutionContext } from 'ava';
import Provider from 'oidc-provider';

export interface TestAccountClaims {
  readonly email?: string;
  readonly email_verified?: boolean;
  readonly name?: string;
}

export interface TestOidcProvider {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Registers the client with the gateway's callback (call once, before the first login). */
  register(redirectUri: string): void;
  /** The account the next login at the provider signs in as. */
  nextLogin: string;
  readonly accounts: Map<string, TestAccountClaims>;
}

export async function startOidcProvider(t: ExecutionContext): Promise<TestOidcProvider> {
  let provider: Provider | undefined;
  const accounts = new Map<string, TestAccountClaims>();
  const server = http.createServer((req, res) => {
    if (!provider) {
      res.writeHead(503).end('no client registered yet');
      return;
    }
    if (req.url?.startsWith('/interaction/')) {
      void interact(provider, req, res).catch((error: unknown) => res.writeHead(500).end(String(error)));
      return;
    }
    provider.callback()(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const helper: TestOidcProvider = {
    issuer,
    clientId: 'gateway-test',
    clientSecret: 'a-client-secret-of-the-test-provider-0123456789',
    nextLogin: '',
    accounts,
    register(redirectUri) {
      provider = new Provider(issuer, {
        clients: [{ client_id: helper.clientId, client_secret: helper.clientSecret, redirect_uris: [redirectUri], grant_types: ['authorization_code'], response_types: ['code'] }],
        async findAccount(_ctx: unknown, accountId: string) {
          const claims = accounts.get(accountId);
          return claims === undefined ? undefined : { accountId, claims: () => ({ sub: accountId, ...claims }) };
        },
        claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
        pkce: { required: () => true },
        cookies: { keys: ['test-cookie-key-0123456789'] },
        features: { devInteractions: { enabled: false } },
        interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
      });
    },
  };

  async function interact(current: Provider, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const details = await current.interactionDetails(req, res);
    if (details.prompt.name === 'login') {
      await current.interactionFinished(req, res, { login: { accountId: helper.nextLogin } }, { mergeWithLastSubmission: false });
      return;
    }
    const grant = new current.Grant({ accountId: details.session!.accountId, clientId: details.params.client_id! });
    const missing = details.prompt.details;
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
    for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) grant.addResourceScope(indicator, scopes.join(' '));
    await current.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
  }

  return helper;
}

/**
 * A browser as far as redirects and cookies go: GET `url` and follow the redirects (cookies
 * kept per origin, sent to every path of it), stopping at the first answer that is not a
 * redirect or whose location is on `stopAt` (the gateway's cabinet page). Returns every hop.
 */
export class RedirectBrowser {
  readonly cookies = new Map<string, Map<string, string>>();

  cookie(origin: string, name: string): string | undefined {
    return this.cookies.get(origin)?.get(name);
  }

  setCookie(origin: string, name: string, value: string): void {
    if (!this.cookies.has(origin)) this.cookies.set(origin, new Map());
    this.cookies.get(origin)!.set(name, value);
  }

  async get(url: string): Promise<Response> {
    const target = new URL(url);
    const jar = this.cookies.get(target.origin);
    const cookie = jar ? [...jar].map(([name, value]) => `${name}=${value}`).join('; ') : '';
    const response = await fetch(target, { redirect: 'manual', headers: cookie ? { cookie } : {} });
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const separator = pair!.indexOf('=');
      const name = pair!.slice(0, separator).trim();
      const value = pair!.slice(separator + 1).trim();
      const gone = value === '' || attributes.some((attribute) => /^\s*max-age=0\s*$/i.test(attribute));
      if (gone) this.cookies.get(target.origin)?.delete(name);
      else this.setCookie(target.origin, name, value);
    }
    return response;
  }

  /** Follows redirects from `url` until one leads to `stopOrigin` + a path under /cabinet/ that is not the API. Returns the hops' URLs and the last response. */
  async follow(url: string, stopOrigin: string): Promise<{ hops: string[]; last: Response; location: string | null }> {
    const hops: string[] = [];
    let next = url;
    for (let hop = 0; hop < 20; hop++) {
      hops.push(next);
      const response = await this.get(next);
      const location = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || location === null) return { hops, last: response, location: null };
      const resolved = new URL(location, next).href;
      if (resolved.startsWith(`${stopOrigin}/cabinet/`) && !resolved.startsWith(`${stopOrigin}/cabinet/api/`)) return { hops, last: response, location: resolved };
      next = resolved;
    }
    throw new Error(`more than 20 redirects from ${url}: ${hops.join(' → ')}`);
  }
}

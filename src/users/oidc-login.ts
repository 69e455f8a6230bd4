// OpenID Connect login (cabinet.oidc, docs/cabinet.md "OpenID Connect"), with openid-client:
// the authorization code flow with PKCE (S256), state and nonce.
//
// - start: a fresh state, nonce and PKCE verifier; the pending login is kept server-side in the
//   cache (memory, or Redis shared by every instance: cache.url) under the sha256 of its state
//   for `pendingLoginTtlMs`, and the browser gets the state in a short-lived HttpOnly cookie
//   (routes/cabinet-oidc.ts). The verifier and nonce never leave the server.
// - finish: the callback's state must name a pending login of this provider AND equal the
//   cookie's (a callback URL sent to someone else's browser is refused: no login CSRF). The
//   pending login is deleted before the code is exchanged, and only the caller whose delete
//   removed it goes on: a state (and its nonce) works once, whatever races it. openid-client
//   then exchanges the code with the verifier and validates the ID token (signature, issuer,
//   audience, expiry against the real clock, and the nonce). The email and name come from the ID
//   token, else from the UserInfo endpoint (fetched with the access token; its sub must match).
// Discovery (the issuer's /.well-known/openid-configuration) happens at the first login of each
// provider and is cached for the process's life; a failed discovery is retried at the next login.
import type Keyv from 'keyv';
import type * as OpenIdClient from 'openid-client';
import type { OidcProviderConfig } from '../config/load.js';
import { hashSecret, sameHash } from '../cabinet/secret-tokens.js';

// openid-client (and jose beneath it) is loaded with the first OIDC login, not when a process
// starts: every CLI command and every serve without cabinet.oidc would pay ~70-170 ms for it.
let loadedClient: Promise<typeof OpenIdClient> | undefined;
const openIdClient = () => (loadedClient ??= import('openid-client'));

/** How long a started login may take at the provider (its login and consent pages). */
export const pendingLoginTtlMs = 10 * 60_000;

/** What the gateway keeps between start and callback. */
interface PendingLogin {
  readonly provider: string;
  readonly codeVerifier: string;
  readonly nonce: string;
  readonly redirectUri: string;
  /** The invite code the visitor brought (cabinet.signup: invite), for a sign-up at the callback. */
  readonly inviteCode: string | null;
  /** The referrer's code the visitor brought (`?ref=`), for a sign-up at the callback. */
  readonly referralCode?: string | null;
  readonly expiresAt: number;
}

/** Who the provider says the visitor is (from the validated ID token). */
export interface OidcIdentity {
  readonly provider: string;
  readonly subject: string;
  /** The email claim, when there is one. */
  readonly email: string | null;
  /** `email_verified: true` in the ID token: only then may the identity link to an existing user. */
  readonly emailVerified: boolean;
  readonly name: string | null;
}

/** Why a login could not finish; the route turns `reason` into the login page's message. */
export class OidcLoginError extends Error {
  constructor(
    readonly reason: 'provider_unknown' | 'login_expired' | 'login_failed',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'OidcLoginError';
  }
}

export class OidcLogins {
  private readonly discovered = new Map<string, Promise<OpenIdClient.Configuration>>();

  constructor(
    private readonly providers: readonly OidcProviderConfig[],
    private readonly pending: Keyv<PendingLogin>,
    private readonly now: () => number,
  ) {}

  private provider(name: string): OidcProviderConfig {
    const provider = this.providers.find((candidate) => candidate.name === name);
    if (!provider) throw new OidcLoginError('provider_unknown', `no OpenID Connect provider "${name}" in cabinet.oidc`);
    return provider;
  }

  /** The provider's configuration, discovered once (a failure is forgotten, so the next login tries again). */
  private configuration(provider: OidcProviderConfig): Promise<OpenIdClient.Configuration> {
    let found = this.discovered.get(provider.name);
    if (!found) {
      // Plain http only when the operator configured an http issuer (a provider on loopback or a private network).
      const insecure = new URL(provider.issuer).protocol === 'http:';
      found = openIdClient().then((client) =>
        client.discovery(new URL(provider.issuer), provider.clientId, undefined, client.ClientSecretBasic(provider.clientSecret), {
          execute: insecure ? [client.allowInsecureRequests] : [],
          timeout: 10,
        }),
      );
      found.catch(() => this.discovered.delete(provider.name));
      this.discovered.set(provider.name, found);
    }
    return found;
  }

  /** Starts a login: the provider's authorization URL to send the browser to, and the state for its cookie. */
  async start(name: string, options: { redirectUri: string; inviteCode: string | null; referralCode?: string | null }): Promise<{ url: string; state: string }> {
    const provider = this.provider(name);
    let configuration;
    try {
      configuration = await this.configuration(provider);
    } catch (error) {
      throw new OidcLoginError('login_failed', `the OpenID Connect provider "${name}" could not be discovered at ${provider.issuer}`, { cause: error });
    }
    const client = await openIdClient();
    const codeVerifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const url = client.buildAuthorizationUrl(configuration, {
      redirect_uri: options.redirectUri,
      scope: 'openid email profile',
      code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    const expiresAt = this.now() + pendingLoginTtlMs;
    await this.pending.set(hashSecret(state), { provider: name, codeVerifier, nonce, redirectUri: options.redirectUri, inviteCode: options.inviteCode, referralCode: options.referralCode ?? null, expiresAt }, pendingLoginTtlMs);
    return { url: url.href, state };
  }

  /**
   * Finishes a login at the callback: `query` is the callback's query string, `cookieState` the
   * state the browser's cookie holds. Returns the identity and the invite and referral codes kept at start.
   */
  async finish(name: string, query: URLSearchParams, cookieState: string | undefined): Promise<{ identity: OidcIdentity; inviteCode: string | null; referralCode: string | null }> {
    const provider = this.provider(name);
    const state = query.get('state');
    if (!state || !cookieState || !sameHash(hashSecret(state), hashSecret(cookieState))) {
      throw new OidcLoginError('login_expired', 'the callback\'s state is missing or is not the one this browser started');
    }
    const key = hashSecret(state);
    const pending = await this.pending.get(key);
    // Whoever removes it owns it: a replayed or concurrent callback with the same state gets nothing.
    if (!pending || !(await this.pending.delete(key))) throw new OidcLoginError('login_expired', 'this login was already finished, or never started here');
    if (pending.provider !== name || this.now() >= pending.expiresAt) throw new OidcLoginError('login_expired', 'this login took too long, or was started for another provider');
    const callbackUrl = new URL(pending.redirectUri);
    callbackUrl.search = query.toString();
    const client = await openIdClient();
    let tokens;
    try {
      tokens = await client.authorizationCodeGrant(await this.configuration(provider), callbackUrl, {
        pkceCodeVerifier: pending.codeVerifier,
        expectedState: state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
    } catch (error) {
      throw new OidcLoginError('login_failed', `the OpenID Connect provider "${name}" refused the login, or its answer did not validate`, { cause: error });
    }
    const idToken = tokens.claims()!;
    let claims: Record<string, unknown> = idToken;
    // Many providers put the email and name in the UserInfo answer only (the ID token then has just sub).
    if (idToken.email === undefined && tokens.access_token) {
      try {
        claims = { ...(await client.fetchUserInfo(await this.configuration(provider), tokens.access_token, idToken.sub)), ...idToken };
      } catch (error) {
        throw new OidcLoginError('login_failed', `the OpenID Connect provider "${name}" did not answer its UserInfo request`, { cause: error });
      }
    }
    const email = typeof claims.email === 'string' && claims.email.includes('@') ? claims.email : null;
    const displayName = typeof claims.name === 'string' ? claims.name.slice(0, 200) : null;
    return {
      identity: { provider: `oidc:${name}`, subject: idToken.sub, email, emailVerified: email !== null && claims.email_verified === true, name: displayName },
      inviteCode: pending.inviteCode,
      referralCode: pending.referralCode ?? null,
    };
  }
}

// Access tokens a vendor issues in exchange for a longer-lived credential (a Vertex service
// account's signed JWT, GigaChat's authorization key): kept per key until shortly before they
// expire, and one exchange in flight serves every request that needs the token meanwhile, so a
// burst of requests after expiry costs one exchange, not one each. A failed exchange is not
// kept: the next request tries again.

export interface ExchangedToken {
  readonly value: string;
  /** Unix milliseconds. */
  readonly expiresAt: number;
}

export class ExchangedTokens {
  private readonly settled = new Map<string, ExchangedToken>();
  private readonly inFlight = new Map<string, Promise<ExchangedToken>>();

  /** `renewBeforeMs`: a token this close to expiry is renewed, so no request carries one that lapses on the way. */
  constructor(private readonly renewBeforeMs: number) {}

  /** The token for `key`: the kept one while it is fresh at `now`, else the one `exchange` gives. */
  async get(key: string, exchange: () => Promise<ExchangedToken>, now: number): Promise<string> {
    const kept = this.settled.get(key);
    if (kept && now < kept.expiresAt - this.renewBeforeMs) return kept.value;
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = exchange().finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    const fresh = await pending;
    this.settled.set(key, fresh);
    return fresh.value;
  }

  /** Forgets every kept token (tests that restart a token server under the same name). */
  clear(): void {
    this.settled.clear();
  }
}

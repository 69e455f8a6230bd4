// What the gateway needs of a payment provider (one folder each: yookassa/, stripe/), so that
// payments.ts holds the money rules once for all of them. A provider's adapter speaks its
// real wire (the simulator answers the same wire in tests and on a fresh install).
//
// Nothing here credits: an adapter only creates, reads and refunds payments at its provider
// and says which payment a notification is about. payments.ts then reads the payment from
// the provider's API (never from the notification's body) and credits once.
import { DomainError } from '../errors/domain-error.js';
import { GatewayError } from '../errors/gateway-error.js';

/** A payment as its provider reports it. Amounts in the currency's minor unit (kopecks, cents). */
export interface ProviderPayment {
  /** The provider's id (YooKassa's payment id, Stripe's Checkout Session id). */
  readonly id: string;
  readonly status: 'pending' | 'succeeded' | 'cancelled';
  readonly amountMinor: bigint;
  /** Lowercase ISO 4217. */
  readonly currency: string;
  /** Our payment id (pay_…) as sent in the payment's metadata; null when absent (not ours). */
  readonly reference: string | null;
  /** What the provider has refunded of it so far. */
  readonly refundedMinor: bigint;
  /** ms since the epoch. */
  readonly createdAt: number;
  /** Why a cancelled payment was cancelled, as the provider said. */
  readonly failure?: string;
}

export interface NewProviderPayment {
  /** Our payment id: the provider's idempotence key and the payment's metadata. */
  readonly reference: string;
  readonly amountMinor: bigint;
  readonly currency: string;
  /** "Balance top-up" in the customer's language: the receipt's one item and the payment's description. */
  readonly description: string;
  /** The customer's email: YooKassa's 54-FZ receipt, Stripe's prefilled address. */
  readonly email: string | null;
  /** Where the browser comes back after paying. */
  readonly returnUrl: string;
  /** Where the browser comes back after giving up (Stripe); YooKassa returns to returnUrl. */
  readonly cancelUrl: string;
  readonly locale: 'ru' | 'en';
}

export interface ProviderRefund {
  readonly id: string;
  readonly status: 'pending' | 'succeeded' | 'failed';
}

/** A notification (webhook) as it arrived: the adapter checks what its provider lets it check. */
export interface NotificationRequest {
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly rawBody: Buffer;
  /** The peer's address as the gateway's client-address rules see it. */
  readonly remoteAddress: string | undefined;
}

/** A notification refused: a bad signature, an address outside the configured ranges, a body that is not the provider's. Answered 400, nothing read. */
export class NotificationRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotificationRefusedError';
  }
}

/**
 * The provider answered that it will not do what was asked (a 4xx: a refund of more than was
 * paid, an unknown payment): definite, unlike a network failure or a 5xx, after which the same
 * request with the same idempotence key is tried again.
 */
export class ProviderRefusedError extends DomainError {
  constructor(
    readonly provider: string,
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ProviderRefusedError';
  }

  // Met by a route when a notification names a payment the provider does not know.
  override get catalogCode(): 'not_found' | 'upstream_error' {
    return this.status === 404 ? 'not_found' : 'upstream_error';
  }

  override toGatewayError(): GatewayError {
    return new GatewayError(this.catalogCode, this.status === 404 ? `${this.provider} has no such payment` : `${this.provider} refused: ${this.message}`);
  }
}

export interface PaymentProvider {
  /** `yookassa` | `stripe`: in payments.provider and credit sources. */
  readonly name: string;
  /** What the customer is charged in (lowercase). */
  readonly currency: string;
  /** RUB per unit of currency, as configured ("1" for rub). */
  readonly rubRate: string;
  /** Starts a payment; idempotent by reference (the same reference gives the same payment). */
  create(payment: NewProviderPayment): Promise<{ payment: ProviderPayment; confirmationUrl: string }>;
  /** The payment as the provider has it now. */
  fetch(providerPaymentId: string): Promise<ProviderPayment>;
  /** Refunds part or all of a payment; idempotent by idempotenceKey. ProviderRefusedError when refused. */
  refund(input: {
    readonly providerPaymentId: string;
    readonly amountMinor: bigint;
    readonly currency: string;
    readonly idempotenceKey: string;
    /** The payer's email as the payment had it: YooKassa's receipt of a partial refund names it. */
    readonly email?: string | null;
  }): Promise<ProviderRefund>;
  /** The refund's state now (a pending one is asked again by the sweeper). */
  fetchRefund?(refundId: string): Promise<ProviderRefund>;
  /** Every payment the provider made since `sinceMs`, for `gateway reconcile payments`. */
  list(sinceMs: number): AsyncIterable<ProviderPayment>;
  /**
   * Which payment a notification is about, after the checks the provider allows (Stripe's
   * signature, YooKassa's address ranges); NotificationRefusedError when they fail; null for an
   * event that changes no payment's state (answered 200 and ignored).
   */
  readNotification(request: NotificationRequest): Promise<{ readonly providerPaymentId: string } | null>;
  /**
   * Called once the gateway serves, with the address its notifications reach. Only the
   * simulator needs it (its shop settings are set through its API); a real provider's
   * notification URL is entered in its dashboard.
   */
  start?(notificationUrl: string): Promise<void>;
  close(): Promise<void>;
}

// Customers' payments as the cabinet and the console read them (GET /cabinet/api/payments,
// /admin/v1/payments; docs/payments.md), and their words: a status and a provider are shown
// in the page's language; one this bundle does not know is shown as the API spells it. Pure.
import type { MessageKey } from './i18n/en.js';

export const paymentStatuses = ['pending', 'succeeded', 'cancelled', 'refunded'] as const;
export type PaymentStatus = (typeof paymentStatuses)[number];

export interface Payment {
  readonly id: string;
  readonly provider: string;
  readonly status: PaymentStatus;
  readonly amount_rub: string;
  /** What the provider charges, in its currency ("1000.00" rub, "10.82" usd). */
  readonly charged: { readonly amount: string; readonly currency: string };
  readonly rate: string | null;
  readonly credited_rub: string | null;
  readonly refunded_rub: string;
  readonly failure: string | null;
  readonly created_at: string;
  readonly paid_at: string | null;
}

export interface PaymentProviderOffer {
  readonly name: string;
  readonly currency: string;
  /** RUB per unit of `currency`; null for a provider charging in roubles. */
  readonly rub_rate: string | null;
}

/** GET /cabinet/api/payments. Without payments configured only `enabled: false`, no providers and no payments. */
export interface PaymentOffer {
  readonly enabled: boolean;
  readonly providers: readonly PaymentProviderOffer[];
  readonly min_rub?: string;
  readonly max_rub?: string;
  readonly presets_rub?: readonly string[];
  readonly bonus_tiers?: readonly { readonly from_rub: string; readonly percent: string }[];
  readonly data: readonly Payment[];
}

/** POST /cabinet/api/payments and GET /cabinet/api/payments/:id: the provider's page while it is pending. */
export interface PaymentWithConfirmation extends Payment {
  readonly confirmation_url: string | null;
}

const knownStatus = (status: string): status is PaymentStatus => (paymentStatuses as readonly string[]).includes(status);
const knownProviders = ['yookassa', 'stripe'] as const;
type KnownProvider = (typeof knownProviders)[number];
const knownProvider = (name: string): name is KnownProvider => (knownProviders as readonly string[]).includes(name);

/** «оплачен», "paid"… */
export function paymentStatusLabel(status: string, t: (key: MessageKey) => string): string {
  return knownStatus(status) ? t(`payments.status.${status}`) : status;
}

/** The provider's name as customers know it: ЮKassa in Russian, YooKassa in English; Stripe as the card it takes. */
export function providerLabel(name: string, t: (key: MessageKey) => string): string {
  return knownProvider(name) ? t(`payments.provider.${name}`) : name;
}

/** The provider with how one pays through it ("YooKassa — bank cards, SBP"), for the choice of provider. */
export function providerChoiceLabel(name: string, t: (key: MessageKey) => string): string {
  return knownProvider(name) ? t(`payments.providerChoice.${name}`) : name;
}

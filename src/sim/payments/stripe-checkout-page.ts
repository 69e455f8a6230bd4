// The simulated Stripe Checkout page (GET /stripe/checkout/<session id>): what the customer's
// browser shows between the gateway's top-up page and its return: the amount and currency, a
// card field, Pay and Cancel (one POST form, `<button name="action" value="pay|cancel">`). In
// the session's language (ru or en), accessible (language, heading, labelled fields, an alert
// for a declined card). No script, no outside resources.
import { formatMinor } from '../../payments/currency.js';

export interface CheckoutView {
  readonly sessionId: string;
  readonly status: 'open' | 'complete' | 'expired';
  readonly amountTotal: number;
  readonly currency: string;
  readonly productName: string;
  readonly locale: string | null;
  readonly customerEmail: string | null;
  /** The page's own query (`notify=none`), kept on the form's action so the switch reaches the POST. */
  readonly query: string;
  /** Shown as an alert: a declined card. */
  readonly error?: 'declined';
}

const texts = {
  en: {
    title: 'Pay with Stripe Checkout (simulated)',
    total: 'Total',
    simulated: 'This is the built-in Stripe simulator: no card is charged and no money moves.',
    email: 'Email',
    card: 'Card number',
    cardHint: '4242 4242 4242 4242 pays; 4000 0000 0000 0002 is declined.',
    pay: 'Pay',
    cancel: 'Cancel and go back',
    complete: 'This payment is complete.',
    expired: 'This checkout session has expired. Start a new payment from the top-up page.',
    declined: 'Your card was declined. Try another card.',
  },
  ru: {
    title: 'Оплата через Stripe Checkout (симулятор)',
    total: 'Итого',
    simulated: 'Это встроенный симулятор Stripe: карта не списывается, деньги не переводятся.',
    email: 'Электронная почта',
    card: 'Номер карты',
    cardHint: '4242 4242 4242 4242 оплачивает; 4000 0000 0000 0002 отклоняется.',
    pay: 'Оплатить',
    cancel: 'Отменить и вернуться',
    complete: 'Этот платёж уже оплачен.',
    expired: 'Срок этой сессии оплаты истёк. Начните новый платёж на странице пополнения.',
    declined: 'Карта отклонена. Попробуйте другую карту.',
  },
} as const;

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

export function checkoutPage(view: CheckoutView): string {
  const language = view.locale?.startsWith('ru') ? 'ru' : 'en';
  const text = texts[language];
  const amount = `${formatMinor(BigInt(view.amountTotal), view.currency)} ${view.currency.toUpperCase()}`;
  const action = `/stripe/checkout/${encodeURIComponent(view.sessionId)}${view.query ? `?${view.query}` : ''}`;
  let body: string;
  if (view.status === 'complete') body = `<p role="status">${escapeHtml(text.complete)}</p>`;
  else if (view.status === 'expired') body = `<p role="status">${escapeHtml(text.expired)}</p>`;
  else {
    body = `${view.error === 'declined' ? `<p role="alert" class="error">${escapeHtml(text.declined)}</p>` : ''}
    <form method="post" action="${escapeHtml(action)}">
      ${view.customerEmail === null ? '' : `<label for="email">${escapeHtml(text.email)}</label>\n      <input id="email" name="email" type="email" autocomplete="email" value="${escapeHtml(view.customerEmail)}" readonly>`}
      <label for="card">${escapeHtml(text.card)}</label>
      <input id="card" name="card" inputmode="numeric" autocomplete="cc-number" value="4242 4242 4242 4242" aria-describedby="card-hint">
      <p id="card-hint" class="hint">${escapeHtml(text.cardHint)}</p>
      <button type="submit" name="action" value="pay">${escapeHtml(text.pay)} ${escapeHtml(amount)}</button>
      <button type="submit" name="action" value="cancel" class="secondary">${escapeHtml(text.cancel)}</button>
    </form>`;
  }
  return `<!doctype html>
<html lang="${language}">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${escapeHtml(text.title)}</title>
  <style>
    body { font-family: system-ui, sans-serif; background: #f6f8fa; color: #1a1f36; margin: 0; }
    main { max-width: 28rem; margin: 3rem auto; background: #fff; padding: 2rem; border-radius: 8px; box-shadow: 0 1px 3px rgba(0,0,0,.15); }
    h1 { font-size: 1.4rem; margin-top: 0; }
    .amount { font-size: 1.6rem; font-weight: 600; }
    label { display: block; margin-top: 1rem; font-weight: 600; }
    input { width: 100%; box-sizing: border-box; padding: .6rem; font-size: 1rem; border: 1px solid #6b7280; border-radius: 4px; }
    .hint, .note { color: #4b5563; font-size: .9rem; }
    button { display: block; width: 100%; margin-top: 1rem; padding: .75rem; font-size: 1rem; border-radius: 4px; border: 1px solid #3f3ab0; background: #3f3ab0; color: #fff; cursor: pointer; }
    button.secondary { background: #fff; color: #3f3ab0; }
    .error { color: #9b1c1c; font-weight: 600; }
  </style>
</head>
<body>
  <main>
    <h1>${escapeHtml(view.productName)}</h1>
    <p>${escapeHtml(text.total)}: <span class="amount">${escapeHtml(amount)}</span></p>
    <p class="note">${escapeHtml(text.simulated)}</p>
    ${body}
  </main>
</body>
</html>
`;
}

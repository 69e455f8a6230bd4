// The simulated YooKassa hosted page (the payment's confirmation_url): what the customer's
// browser is sent to. Plain HTML that works without script: a heading, what is paid for and how
// much, and one POST form whose two buttons pay or cancel. In the payment's language (the
// confirmation's locale), labelled, so a screen reader and an accessibility check read it as a
// real checkout. It says plainly that no money moves.
import type { SimPayment } from './shop.js';

type Language = 'ru' | 'en';

const texts = {
  ru: {
    title: 'Оплата — ЮKassa (симулятор)',
    heading: 'Оплата заказа',
    simulator: 'Это симулятор ЮKassa: деньги не списываются.',
    shop: 'Магазин',
    purpose: 'Назначение',
    amount: 'Сумма',
    card: 'Номер карты',
    pay: 'Оплатить',
    cancel: 'Отменить',
    back: 'Вернуться в магазин',
    states: { pending: 'Ожидает оплаты', waiting_for_capture: 'Оплачен, ожидает подтверждения магазина', succeeded: 'Оплачен', canceled: 'Отменён' },
    missing: 'Платёж не найден',
  },
  en: {
    title: 'Payment — YooKassa (simulator)',
    heading: 'Pay for your order',
    simulator: 'This is the YooKassa simulator: no money is taken.',
    shop: 'Shop',
    purpose: 'For',
    amount: 'Amount',
    card: 'Card number',
    pay: 'Pay',
    cancel: 'Cancel',
    back: 'Back to the shop',
    states: { pending: 'Awaiting payment', waiting_for_capture: 'Paid, awaiting the shop’s capture', succeeded: 'Paid', canceled: 'Cancelled' },
    missing: 'Payment not found',
  },
} as const;

const escape = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

function amountText(kopecks: bigint, language: Language): string {
  const whole = (kopecks / 100n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, language === 'ru' ? '\u00a0' : ',');
  const fraction = (kopecks % 100n).toString().padStart(2, '0');
  return language === 'ru' ? `${whole},${fraction}\u00a0₽` : `RUB ${whole}.${fraction}`;
}

function page(language: Language, title: string, main: string): string {
  return `<!doctype html>
<html lang="${language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)}</title>
<style>
body { font: 16px/1.5 system-ui, sans-serif; color: #1a1a1a; background: #f4f4f6; margin: 0; }
main { max-width: 26rem; margin: 3rem auto; background: #fff; padding: 2rem; border-radius: 0.75rem; }
h1 { font-size: 1.5rem; margin: 0 0 1rem; }
dl { display: grid; grid-template-columns: auto 1fr; gap: 0.25rem 1rem; }
dt { color: #4a4a4a; }
dd { margin: 0; }
label { display: block; margin: 1rem 0 0.25rem; }
input { width: 100%; box-sizing: border-box; padding: 0.5rem; font: inherit; border: 1px solid #767676; border-radius: 0.25rem; }
.actions { display: flex; gap: 0.75rem; margin-top: 1.5rem; }
button { font: inherit; padding: 0.6rem 1.2rem; border-radius: 0.4rem; border: 1px solid #1a1a1a; background: #fff; color: #1a1a1a; cursor: pointer; }
button[value="pay"] { background: #0b5cd5; border-color: #0b5cd5; color: #fff; }
.note { color: #4a4a4a; font-size: 0.875rem; }
</style>
</head>
<body>
<main>
${main}
</main>
</body>
</html>
`;
}

/** The page of a payment: the form while it can be paid, its state and the way back after. `formAction` keeps the page's query (its fault switches). */
export function checkoutPage(payment: SimPayment, shopName: string, formAction: string): string {
  const language: Language = payment.locale === 'en_US' ? 'en' : 'ru';
  const text = texts[language];
  const details = `<dl>
<dt>${text.shop}</dt><dd>${escape(shopName)}</dd>
${payment.description ? `<dt>${text.purpose}</dt><dd>${escape(payment.description)}</dd>\n` : ''}<dt>${text.amount}</dt><dd id="amount">${amountText(payment.amountKopecks, language)}</dd>
</dl>`;
  if (payment.status !== 'pending') {
    return page(
      language,
      text.title,
      `<h1>${text.heading}</h1>
${details}
<p role="status" id="state">${text.states[payment.status]}</p>
<p><a href="${escape(payment.returnUrl)}">${text.back}</a></p>`,
    );
  }
  return page(
    language,
    text.title,
    `<h1>${text.heading}</h1>
<p class="note">${text.simulator}</p>
${details}
<form method="post" action="${escape(formAction)}">
<label for="card">${text.card}</label>
<input id="card" name="card" inputmode="numeric" autocomplete="cc-number" value="5555 5555 5555 4477">
<div class="actions">
<button type="submit" name="action" value="pay">${text.pay}</button>
<button type="submit" name="action" value="cancel">${text.cancel}</button>
</div>
</form>`,
  );
}

/** An unknown payment: 404, in both languages (nothing says which one the customer reads). */
export function missingPage(): string {
  return page('ru', `${texts.ru.missing} / ${texts.en.missing}`, `<h1>${texts.ru.missing}</h1>\n<p lang="en">${texts.en.missing}</p>`);
}

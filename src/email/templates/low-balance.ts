// The notice to an account's owners that its available money fell below the account's
// low-balance threshold (src/payments/low-balance.ts; docs/payments.md, "Low balance"), in the
// owner's language. Sent once per fall: the next one only after the money was back at or above
// the threshold.
import { formatRub } from '../../util/money.js';
import type { UserLocale } from '../../users/users.js';
import type { RenderedEmail } from './email-template.js';

export interface LowBalanceNotice {
  readonly accountName: string;
  readonly availableUnits: bigint;
  readonly thresholdUnits: bigint;
  /** Where the customer adds money: <public_url>/cabinet/topup. */
  readonly topupLink: string;
  readonly locale: UserLocale;
}

/** 495000n → "49.50"; 495123n → "49.5123": kopecks as people write them, the exact units when finer. */
function rubForPeople(units: bigint, locale: UserLocale): string {
  const exact = formatRub(units);
  const shown = exact.endsWith('00') ? exact.slice(0, -2) : exact;
  return locale === 'ru' ? shown.replace('.', ',') : shown;
}

export function lowBalanceEmail(notice: LowBalanceNotice): RenderedEmail {
  const available = rubForPeople(notice.availableUnits, notice.locale);
  const threshold = rubForPeople(notice.thresholdUnits, notice.locale);
  if (notice.locale === 'ru') {
    return {
      subject: `Заканчиваются деньги на счёте «${notice.accountName}»: осталось ${available} ₽`,
      text:
        `Здравствуйте!\n\nДоступный остаток счёта «${notice.accountName}» опустился ниже порога ${threshold} ₽: сейчас доступно ${available} ₽. ` +
        `Когда деньги закончатся, запросы к моделям будут отклоняться.\n\nПополнить баланс:\n\n${notice.topupLink}\n\n` +
        `Это письмо приходит один раз, когда остаток опускается ниже порога; следующее — только после того, как остаток снова поднимется до порога и опять опустится. Порог можно изменить в кабинете.\n`,
    };
  }
  return {
    subject: `Low balance on "${notice.accountName}": ${available} RUB left`,
    text:
      `Hello,\n\nThe available money of the account "${notice.accountName}" fell below its threshold of ${threshold} RUB: ${available} RUB is available now. ` +
      `Once it runs out, requests to the models are refused.\n\nTop up the balance:\n\n${notice.topupLink}\n\n` +
      `This email comes once when the balance falls below the threshold; the next one only after it has risen to the threshold and fallen again. You can change the threshold in the cabinet.\n`,
  };
}

// The account's low-balance notice settings (docs/payments.md, "Low balance"):
// - GET /cabinet/api/low-balance → {threshold_rub, default_threshold_rub, webhook_url} (any member)
// - PUT /cabinet/api/low-balance {threshold_rub: string|null, webhook_url: string|null} → the same
//   (owners only; both fields required, null clears; the URL is checked as a job's webhook_url)
import { z } from 'zod';
import type { LowBalanceAnswer } from '../../cabinet-api/answers.js';
import { formatRub, parseRub } from '../../util/money.js';
import { readLowBalanceSettings, updateLowBalanceSettings } from '../../payments/low-balance-settings.js';
import type { ServerServices } from '../../services.js';
import { validate } from '../../validation/zod-details.js';
import type { Handler } from '../state.js';

const updateBody = z.strictObject({
  threshold_rub: z.string().trim().regex(/^\d{1,9}(\.\d{1,4})?$/, 'expected an amount in RUB such as "100" or "99.50", or null for the default').nullable(),
  webhook_url: z.string().trim().min(1).max(2048).nullable(),
});

async function answer(services: ServerServices, accountId: string): Promise<LowBalanceAnswer> {
  const settings = await readLowBalanceSettings(services.db, accountId, services.config.lowBalance.defaultThresholdUnits);
  return {
    threshold_rub: settings.thresholdUnits === null ? null : formatRub(settings.thresholdUnits),
    default_threshold_rub: settings.defaultThresholdUnits === null ? null : formatRub(settings.defaultThresholdUnits),
    webhook_url: settings.webhookUrl,
  };
}

export const cabinetLowBalance: Handler = async (ctx, services) => {
  ctx.set('cache-control', 'no-store');
  ctx.body = await answer(services, ctx.state.apiKey!.accountId);
};

export const updateCabinetLowBalance: Handler = async (ctx, services) => {
  const body = validate(updateBody, ctx.request.body, 'body');
  const accountId = ctx.state.apiKey!.accountId;
  await updateLowBalanceSettings(
    services.db,
    accountId,
    { thresholdUnits: body.threshold_rub === null ? null : parseRub(body.threshold_rub), webhookUrl: body.webhook_url },
    { policy: services.config.webhooks, actor: ctx.state.actor!, at: services.now() },
  );
  ctx.set('cache-control', 'no-store');
  ctx.body = await answer(services, accountId);
};

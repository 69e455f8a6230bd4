// An account's low-balance settings (docs/payments.md, "Low balance"): its own threshold (null:
// the configured default, low_balance.default_threshold_rub, or none) and the URL a signed
// notice also goes to (null: email only). Read by any member, changed by an owner
// (GET/PUT /cabinet/api/low-balance), audited as low_balance.update.
import type { Knex } from 'knex';
import { writeAudit } from '../audit/audit-log.js';
import { formatRub, unitsFromSql } from '../util/money.js';
import { checkWebhookUrl, type AddressPolicy } from '../jobs/address-guard.js';
import { invalid } from '../validation/zod-details.js';

export interface LowBalanceSettings {
  /** The account's own threshold; null when it uses the default. 0 turns the notices off. */
  readonly thresholdUnits: bigint | null;
  /** low_balance.default_threshold_rub; null when the config sets none. */
  readonly defaultThresholdUnits: bigint | null;
  readonly webhookUrl: string | null;
}

export async function readLowBalanceSettings(db: Knex, accountId: string, defaultThresholdUnits: bigint | undefined): Promise<LowBalanceSettings> {
  const row: { low_balance_threshold_units: string | number | null; low_balance_webhook_url: string | null } | undefined = await db('accounts')
    .where({ id: accountId })
    .first('low_balance_threshold_units', 'low_balance_webhook_url');
  if (!row) throw new Error(`no account ${accountId}`);
  return {
    thresholdUnits: row.low_balance_threshold_units === null ? null : unitsFromSql(row.low_balance_threshold_units),
    defaultThresholdUnits: defaultThresholdUnits ?? null,
    webhookUrl: row.low_balance_webhook_url,
  };
}

/**
 * Replaces both settings. The webhook URL is checked as a job's webhook_url is (http or https,
 * no credentials, every address it resolves to allowed by `webhooks`: never metadata or
 * link-local, loopback and private networks only when allowed), else 422 naming the field.
 * Whether the account is armed for a notice is left as it is: the next check compares the
 * money with the new threshold.
 */
export async function updateLowBalanceSettings(
  db: Knex,
  accountId: string,
  settings: { readonly thresholdUnits: bigint | null; readonly webhookUrl: string | null },
  context: { readonly policy: AddressPolicy; readonly actor: string; readonly at: number },
): Promise<void> {
  if (settings.webhookUrl !== null) {
    const problem = await checkWebhookUrl(settings.webhookUrl, context.policy);
    if (problem) throw invalid(['body', 'webhook_url'], problem, settings.webhookUrl);
  }
  await db.transaction(async (trx) => {
    await trx('accounts')
      .where({ id: accountId })
      .update({ low_balance_threshold_units: settings.thresholdUnits === null ? null : settings.thresholdUnits.toString(), low_balance_webhook_url: settings.webhookUrl });
    await writeAudit(
      trx,
      {
        actor: context.actor,
        action: 'low_balance.update',
        target: accountId,
        accountId,
        details: { threshold_rub: settings.thresholdUnits === null ? null : formatRub(settings.thresholdUnits), webhook_url: settings.webhookUrl },
      },
      context.at,
    );
  });
}

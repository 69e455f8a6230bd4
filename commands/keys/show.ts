import { Args } from '@oclif/core';
import { keyBudget, periodEnd } from '../../src/auth/key-policy.js';
import { formatRub, unitsFromSql } from '../../src/util/money.js';
import { GatewayCommand, isoTime } from '../../src/cli/base-command.js';
import { keyStatus, presentKey } from '../../src/cli/present.js';

export default class KeysShow extends GatewayCommand {
  static override description = "Show one API key (never its secret): scopes, rpm, tokens per minute, requests in flight, expiry, models, addresses, and its budget with what is spent (charged + held) in the current period";
  static override examples = ['<%= config.bin %> keys show key_…', '<%= config.bin %> keys show key_… --json'];
  static override args = { id: Args.string({ description: 'key id (key_…)', required: true }) };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(KeysShow);
    await this.runWithServices(flags, async ({ apiKeys, db, now }) => {
      const apiKey = await apiKeys.find(args.id);
      const budget = keyBudget(apiKey, now());
      let spent: { budget_spent_rub: string; budget_period_start: string | null; budget_resets_at: string | null } | Record<string, never> = {};
      if (budget) {
        const row: { spent_units: string | number } | undefined = await db('key_spend').where({ key_id: apiKey.id, period_start: budget.periodStart }).first('spent_units');
        spent = {
          budget_spent_rub: formatRub(row ? unitsFromSql(row.spent_units) : 0n),
          budget_period_start: budget.period === 'total' ? null : isoTime(budget.periodStart),
          budget_resets_at: isoTime(periodEnd(budget.period, budget.periodStart)),
        };
      }
      const shown = presentKey(apiKey);
      const json = { ...shown, status: keyStatus(apiKey, now()), ...spent };
      const text = Object.entries(json)
        .map(([name, value]) => `${name.padEnd(19)} ${Array.isArray(value) ? value.join(',') : value === null ? '-' : value}`)
        .join('\n');
      return { json, text };
    });
  }
}

import { Flags } from '@oclif/core';
import { differencesExitCode } from '../../src/billing/reconcile-report.js';
import { GatewayCommand } from '../../src/cli/base-command.js';
import { openCommandPayments } from '../../src/cli/command-payments.js';
import { parsePeriod } from '../../src/cli/period.js';
import { GatewayError } from '../../src/errors/gateway-error.js';
import { describeDifference, presentDifference } from '../../src/payments/reconcile-payments.js';
import { reconcilePayments } from '../../src/payments/reconcile-payments-read.js';

export default class ReconcilePayments extends GatewayCommand {
  static override description =
    "List every difference between the ledger and the payment providers' records for payments made over a period: paid there and not credited here, credited here and not paid there, amounts and refunds that differ, payments unknown here, payments pending here and cancelled there. Exits 3 when anything differs (1 is an error)";
  static override examples = [
    '<%= config.bin %> reconcile payments --since 2026-11-01 --until 2026-12-01',
    { description: 'in a daily cron job: exit 3 (differences) alerts', command: '<%= config.bin %> reconcile payments --since "$(date -u -d yesterday +%F)" --until "$(date -u +%F)" --json' },
    '<%= config.bin %> reconcile payments --since 2026-11-01 --provider yookassa',
  ];
  static override flags = {
    since: Flags.string({ description: 'start, inclusive: YYYY-MM-DD (UTC midnight) or an ISO 8601 time', required: true }),
    until: Flags.string({ description: 'end, exclusive: YYYY-MM-DD or an ISO 8601 time (default: now)' }),
    provider: Flags.string({ description: 'only this provider (default: every configured one)', options: ['yookassa', 'stripe'] }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(ReconcilePayments);
    await this.runWithServices(flags, async (services) => {
      const period = parsePeriod(flags, services.now());
      const opened = await openCommandPayments(services);
      try {
        const providers = [...opened.payments.providers.values()].filter((provider) => flags.provider === undefined || provider.name === flags.provider);
        if (providers.length === 0) throw new GatewayError('payment_provider_unavailable', `--provider ${flags.provider} is not configured in payments (configured: ${[...opened.payments.providers.keys()].join(', ')})`);
        const result = await reconcilePayments(services.db, providers, period);
        const json = {
          since: new Date(result.since).toISOString(),
          until: new Date(result.until).toISOString(),
          checked: result.checked,
          differences: result.differences.map(presentDifference),
        };
        const counts = new Map<string, number>();
        for (const difference of result.differences) counts.set(difference.kind, (counts.get(difference.kind) ?? 0) + 1);
        const checked = Object.entries(result.checked).map(([name, count]) => `${count} ${name} payment${count === 1 ? '' : 's'}`).join(', ');
        const summary =
          result.differences.length === 0
            ? `Nothing differs: ${checked} compared with the ledger, ${json.since} — ${json.until}.`
            : `${result.differences.length} difference${result.differences.length === 1 ? '' : 's'} (${[...counts].map(([kind, count]) => `${kind} ${count}`).join(', ')}): ${checked} compared with the ledger, ${json.since} — ${json.until}.`;
        const text = [...result.differences.map(describeDifference), summary].join('\n');
        return { json, text, exitCode: result.differences.length > 0 ? differencesExitCode : 0 };
      } finally {
        await opened.payments.close();
      }
    });
  }
}

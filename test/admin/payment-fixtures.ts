// Customers' payments for the admin and CLI tests, made the way a customer makes them: the
// top-up started in the cabinet by a logged-in owner, paid on the simulated YooKassa's hosted
// page, then read back by the cabinet (which asks YooKassa and credits it). The simulator's
// notification is switched off, so the credit comes from that read, at a known moment.
import type { ExecutionContext } from 'ava';
import type { ServerServices } from '../../src/services.js';
import { newMember, userLogin } from '../helpers/users.js';
import { completeCheckout, readPayment, startTopUp } from '../payments/yookassa-flow.js';

export interface PaidPayment {
  /** The cabinet's answer once paid (id, provider_payment_id, status succeeded, …). */
  readonly payment: Record<string, any>;
  /** The owner who paid: the receipt went to their email. */
  readonly email: string;
}

/** A customer of `accountId` starts a top-up of `amountRub` and, unless `pay` is false, pays it. */
export async function customerPayment(
  t: ExecutionContext,
  gateway: { url: string; services: ServerServices },
  accountId: string,
  amountRub: string,
  outcome: 'pay' | 'cancel' | 'leave' = 'pay',
): Promise<PaidPayment> {
  const user = await newMember(gateway.services, { accountId, role: 'owner' });
  const browser = await userLogin(gateway.services, { accountId, userId: user.id });
  const started = await startTopUp(t, gateway.url, browser, amountRub);
  if (outcome !== 'leave') await completeCheckout(t, started.confirmation_url, outcome, 'notify=none');
  const read = await readPayment(gateway.url, browser, started.id);
  t.is(read.body.status, { pay: 'succeeded', cancel: 'cancelled', leave: 'pending' }[outcome], JSON.stringify(read.body));
  return { payment: read.body, email: user.email! };
}

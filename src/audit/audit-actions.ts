// Every action the audit trail records, in one import-free module: the server (audit-log.ts,
// the admin API's schemas, `gateway audit ls --action`) and the operator console's audit page
// (web/src/console/audit.tsx, bundled by esbuild) read the same list.

/** Every action the trail records (`audit ls --action` and GET /admin/v1/audit?action= offer these). */
export const auditActions = [
  'account.create',
  'account.disable',
  'account.enable',
  'balance.topup',
  'balance.adjust',
  'balance.refund',
  'key.create',
  'key.update',
  'key.revoke',
  'job.cancel',
  // The web cabinet (src/cabinet/*): a login link printed, sessions ended, admin tokens made and revoked.
  'login_link.create',
  'session.revoke',
  'admin_token.create',
  'admin_token.revoke',
  // The account cabinet (src/http/routes/cabinet-keys.ts) also makes and revokes keys (above), and rotates the webhook secret.
  'webhook_secret.rotate',
  // Self-service accounts (src/users/*, issue 31): who signs up and logs in, and who may act for an account.
  'user.signup',
  'user.login',
  'user.login_failed',
  'user.logout',
  'user.verify_email',
  'user.password_reset_request',
  'user.password_reset',
  'user.password_change',
  'user.email_change',
  'user.disable',
  'user.enable',
  'identity.link',
  'identity.unlink',
  'member.invite',
  'member.join',
  'member.role',
  'member.remove',
  'invite.create',
  'invite.revoke',
  // Customers' payments (src/payments/*, issue 32): credited, refunded, a refund the provider refused.
  'payment.succeeded',
  'payment.refund',
  'payment.refund_failed',
  // Redemption codes (src/codes/*, issue 32): a batch made, a code or batch disabled, a code redeemed.
  'code_batch.create',
  'code_batch.disable',
  'code.disable',
  'code.redeem',
  // Referrals (src/referrals/referral-hooks.ts): a referrer's share of a paid top-up, taken back
  // on refund, and what could not be taken back because the referrer had spent it.
  'referral.credit',
  'referral.reversal',
  'referral.reversal_short',
  // An account's low-balance threshold and webhook URL changed (PUT /cabinet/api/low-balance).
  'low_balance.update',
] as const;

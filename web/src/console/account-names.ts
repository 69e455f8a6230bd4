// The console's lists name accounts by id (acc_…); people know them by name. One read of
// GET /admin/v1/accounts gives the names; an account not in it (or before it loads) shows its id.
import { api } from '../api.js';
import { useLoad } from '../data.js';

interface AccountRow {
  id: string;
  name: string;
}

export function useAccountNames(): (accountId: string | null) => string {
  const accounts = useLoad(() => api<{ data: AccountRow[] }>('/admin/v1/accounts'), []);
  const names = new Map((accounts.data?.data ?? []).map((account) => [account.id, account.name]));
  return (accountId) => (accountId === null ? '—' : (names.get(accountId) ?? accountId));
}
